# SPDX-License-Identifier: GPL-2.0
"""The kernel log of a run: which case logged a WARN or a BUG.

A case passes only if its log is clean, unless kunit/warnings.tsv says it
provokes a WARN on purpose; then it passes only if the WARN is there.
"""

import re
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import tsv

_SUBTEST = re.compile(r'^( *)# Subtest: (\S+)')
_RESULT = re.compile(r'^( *)(?:not )?ok \d+ (\S+)')
_WARN = re.compile(r'^WARNING: CPU: \d+ PID: \d+ at ')
# SLUB's reports of a corrupted object ("BUG kmalloc-128 (Not tainted):
# Right Redzone overwritten") have no colon after BUG.
_SPLAT = re.compile(r'^(?:WARNING: CPU: |kernel BUG at |BUG: |Oops|'
                    r'Unable to handle kernel |Kernel panic|'
                    r'BUG [\w.:-]+ \([^)]*\): )')
# Where splats after the last result line are filed.
AFTER_SUITES = '(after the suites)'


def splats_by_case(log: str) -> Dict[str, List[str]]:
    """Each WARN/BUG line, filed under the result line that follows it."""
    subtests: Dict[int, str] = {}
    pending: List[str] = []
    found: Dict[str, List[str]] = {}
    for line in log.splitlines():
        if _SPLAT.match(line):
            pending.append(line.strip())
            continue
        sub = _SUBTEST.match(line)
        if sub:
            subtests[len(sub.group(1))] = sub.group(2)
            continue
        res = _RESULT.match(line)
        if res and pending:
            indent = len(res.group(1))
            path = [subtests[i] for i in sorted(subtests)
                    if 0 < i <= indent] + [res.group(2)]
            found.setdefault('.'.join(path), []).extend(pending)
            pending = []
    if pending:
        found.setdefault(AFTER_SUITES, []).extend(pending)
    return found


def load_expected(path: Path) -> Set[str]:
    """warnings.tsv: "case<TAB>why" for each case that WARNs on purpose."""
    return {case for _, (case, _why) in tsv.read(path, ('case', 'why'))}


def apply(outcomes: Dict[str, str], log: str, expected: Set[str],
          interrupted: Optional[str] = None
          ) -> Tuple[Dict[str, str], List[str]]:
    """Outcomes with the log's verdict folded in, and why each changed.
    interrupted: the case a crash or hang ended the run in, which owns
    what the log has after the last result line."""
    splats = splats_by_case(log)
    if interrupted and AFTER_SUITES in splats:
        splats.setdefault(interrupted, []).extend(splats.pop(AFTER_SUITES))
    adjusted = dict(outcomes)
    notes: List[str] = []
    for case in sorted(expected):
        if adjusted.get(case) == 'pass' and not any(
                _WARN.match(s) for s in splats.get(case, [])):
            adjusted[case] = 'fail'
            notes.append(f'{case}: passed but logged no WARN '
                         f'(warnings.tsv expects one)')
    for case, lines in sorted(splats.items()):
        allowed = case in expected
        unexpected = [s for s in lines if not (allowed and _WARN.match(s))]
        if not unexpected:
            continue
        notes.append(f'{case}: {unexpected[0]}'
                     + (f' (+{len(unexpected) - 1} more)'
                        if len(unexpected) > 1 else ''))
        if adjusted.get(case, 'pass') == 'pass':
            adjusted[case] = 'fail'
    return adjusted, notes


def cases_reported(outcomes: Dict[str, str]) -> Dict[str, str]:
    """A run's outcomes, none when no case reported: a kernel that crashed
    in code the boot runs has only its oops, filed under AFTER_SUITES,
    which says the boot stopped (the caller's to judge), not that a case
    ran."""
    if all(case == AFTER_SUITES for case in outcomes):
        return {}
    return outcomes
