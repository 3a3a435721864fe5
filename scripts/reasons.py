# SPDX-License-Identifier: GPL-2.0
"""Why a case did not pass, and whether that is the reason the manifest
expects.

A case that fails on base must fail because the change it proves is
missing, not because its observer, its setup or an unrelated patch broke
it. kunit/manifest.tsv's reason column gives, for every case with an
expected non-pass anywhere, the text the failure must carry: one or more
alternatives separated by " | ". A failing case is judged by every
failure report it printed (each EXPECTATION/ASSERTION FAILED block, and
each kernel-log note that failed it): each must contain one of the
alternatives. A skipping case is judged by its skip reason.
"""

import re
from typing import Dict, List, Mapping, Sequence

_SUBTEST = re.compile(r'^( *)# Subtest: (\S+)')
_RESULT = re.compile(r'^( *)(?:not )?ok \d+ (\S+)(?: # SKIP ?(.*))?$')
_FAILED = re.compile(r'# [^ ]+: (?:EXPECTATION|ASSERTION) FAILED at ')
_DIAG = re.compile(r'^ *# ')
ALTERNATIVES = ' | '
# A non-pass outcome whose report does not carry the expected reason.
OTHER = ':other'


def reports_by_case(log: str) -> Dict[str, List[str]]:
    """Each case's failure reports (a block of lines each) and, for a
    skip, its reason, in the order the log has them."""
    subtests: Dict[int, str] = {}
    pending: List[List[str]] = []
    block: List[str] = []
    found: Dict[str, List[str]] = {}

    def close() -> None:
        if block:
            pending.append(list(block))
            block.clear()

    for raw in log.splitlines():
        line = raw.rstrip()
        sub = _SUBTEST.match(line)
        if sub:
            close()
            subtests[len(sub.group(1))] = sub.group(2)
            continue
        res = _RESULT.match(line)
        if res:
            close()
            indent = len(res.group(1))
            path = '.'.join([subtests[i] for i in sorted(subtests)
                             if 0 < i <= indent] + [res.group(2)])
            texts = ['\n'.join(b) for b in pending]
            if res.group(3) is not None:
                texts.append(res.group(3).strip())
            if texts:
                found[path] = texts
            pending = []
            continue
        if _FAILED.search(line):
            close()
            block.append(line.strip())
        elif block and _DIAG.match(line):
            close()
        elif block:
            block.append(line.strip())
    return found


def matches(texts: Sequence[str], reason: str) -> bool:
    """Every text carries one of the reason's alternatives."""
    alternatives = [a for a in reason.split(ALTERNATIVES) if a]
    return bool(texts) and bool(alternatives) and all(
        any(a in text for a in alternatives) for text in texts)


def judge(outcomes: Mapping[str, str], reports: Mapping[str, List[str]],
          expected_reasons: Mapping[str, str]) -> Dict[str, str]:
    """Outcomes where a fail or skip that does not carry the manifest's
    reason becomes "fail:other" / "skip:other". A case with no reason in
    the manifest (it should pass everywhere) keeps its outcome: any
    non-pass of it is a difference already."""
    judged = dict(outcomes)
    for case, outcome in outcomes.items():
        reason = expected_reasons.get(case)
        if outcome in ('fail', 'skip') and reason and \
                not matches(reports.get(case, []), reason):
            judged[case] = outcome + OTHER
    return judged


_VALUE = re.compile(r' == .* \(0x[0-9a-f]+\)$')


def first_line(texts: Sequence[str]) -> str:
    """The line of a report that says most: a failure's message, or its
    "Expected ..." line when it has none."""
    if not texts:
        return '(no report)'
    lines = texts[0].splitlines()
    if len(lines) == 1:
        return lines[0]
    last = lines[-1]
    if _VALUE.search(last) or last.startswith('Expected '):
        return lines[1]
    return last
