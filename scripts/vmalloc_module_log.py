# SPDX-License-Identifier: GPL-2.0
"""The kernel's own lib/test_vmalloc.ko: its "Summary:" lines, parsed.

6.12 prints, per test and worker,
  Summary: fix_size_alloc_test passed: 1 failed: 0 repeat: 1 loops: 1000000 avg: 1020310 usec
behind the console's timestamp and a "test_vmalloc: " prefix that some
kernels add; later kernels append fields or print nsec. Anything after the
test name is read as "key: value" pairs, so fields may come and go.
"""

import re
from dataclasses import dataclass
from typing import Dict, List

_SUMMARY = re.compile(r'Summary:\s+(?P<test>\w+)\s+(?P<fields>.*)$')
_FIELD = re.compile(r'(\w+):\s*(\d+)\s*(usec|nsec|msec)?')
_TO_USEC = {'usec': 1.0, 'nsec': 1e-3, 'msec': 1e3, None: 1.0}


@dataclass(frozen=True)
class Summary:
    test: str
    passed: int
    failed: int
    loops: int
    avg_usec: float


def parse(log: str) -> List[Summary]:
    found = []
    for line in log.splitlines():
        m = _SUMMARY.search(line)
        if not m:
            continue
        fields: Dict[str, float] = {}
        for key, value, unit in _FIELD.findall(m.group('fields')):
            fields[key] = int(value) * (_TO_USEC[unit or None]
                                        if key == 'avg' else 1)
        if 'avg' not in fields:
            continue
        found.append(Summary(m.group('test'), int(fields.get('passed', 0)),
                             int(fields.get('failed', 0)),
                             int(fields.get('loops', 0)), fields['avg']))
    return found
