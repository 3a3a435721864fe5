# SPDX-License-Identifier: GPL-2.0
"""KUnit results: kunit.py's JSON flattened to one outcome per case."""

import json
from pathlib import Path
from typing import Any, Dict

OUTCOMES = ('pass', 'fail', 'skip', 'crash', 'missing')

# kunit.py's JSON statuses (KernelCI test API) to ours.
_STATUS = {'PASS': 'pass', 'FAIL': 'fail', 'SKIP': 'skip', 'ERROR': 'crash'}


def flatten(report: Dict[str, Any]) -> Dict[str, str]:
    """Map "suite.case" and "suite.case.param" to pass/fail/skip/crash."""
    outcomes: Dict[str, str] = {}

    def walk(group: Dict[str, Any], prefix: str) -> None:
        for case in group.get('test_cases', []):
            outcomes[prefix + case['name']] = _STATUS.get(case['status'],
                                                          'fail')
        for sub in group.get('sub_groups', []):
            walk(sub, prefix + sub['name'] + '.')

    for suite in report.get('sub_groups', []):
        walk(suite, suite['name'] + '.')
    return outcomes


def load(path: Path) -> Dict[str, str]:
    return flatten(json.loads(path.read_text()))
