# SPDX-License-Identifier: GPL-2.0
"""The sanitizer lane: every suite on the patched tree with KASAN,
DEBUG_VM, DEBUG_PAGEALLOC, PAGE_TABLE_CHECK (enforced), PROVE_LOCKING,
DEBUG_ATOMIC_SLEEP and KMEMLEAK (kunit/sanitizers.kunitconfig).

It passes when the kernel log holds no report of any of them, when the
free pages after all suites are those before but for slab pages and a
tolerance (kunit/free_pages_last.c), when kmemleak's scan at the end
finds nothing (it vouches for the slab), and
when every case has the outcome the manifest expects on the patched tree,
but for the deviations kunit/sanitizers-deviations.tsv explains.
"""

import os
import re
from pathlib import Path
from typing import Dict, List, Sequence

import kunit_run
import manifest
import project
import tsv
from trees import Tree

LANE = 'sanitizers'
CONFIGS = (project.KUNITCONFIG, project.KUNIT_DIR / 'sanitizers.kunitconfig')
# page_owner is built in but off unless booted on; only the patched tree
# runs here, whose page_ext walks cross memory sections correctly.
KERNEL_ARGS = ('--kernel_args=page_owner=on',)
DEVIATIONS = project.KUNIT_DIR / 'sanitizers-deviations.tsv'
# KASAN, lockdep and DEBUG_PAGEALLOC make every boot many times slower.
TIMEOUT_S = 3 * 3600
CHECK_CASES = ('mm_series_free_pages_first.free_pages_before_test',
               'mm_series_free_pages_last.free_pages_after_test',
               'mm_series_free_pages_last.kmemleak_scan_test')
# A line that starts a report of one of the lane's checkers.
_REPORT = re.compile(
    r'(BUG: KASAN: |kmemleak: \d+ new suspected memory leak|'
    r'WARNING: possible (?:circular|recursive) locking|'
    r'WARNING: inconsistent lock state|WARNING: suspicious RCU usage|'
    r'BUG: sleeping function called from invalid context|'
    r'BUG: scheduling while atomic|BUG: Bad page (?:state|map)|'
    r'kernel BUG at |Unable to handle kernel |BUG: unable to handle)')


def reports(log: str) -> List[str]:
    return [line.strip() for line in log.splitlines() if _REPORT.search(line)]


def load_deviations(path: Path = DEVIATIONS) -> Dict[str, str]:
    """case -> the outcome this lane gives instead (and why, in the file)."""
    if not path.exists():
        return {}
    return {case: outcome for _, (case, outcome, _why)
            in tsv.read(path, ('case', 'outcome', 'why'))}


def problems(outcomes: Dict[str, str], log: str,
             expected: Dict[str, str], deviations: Dict[str, str]
             ) -> List[str]:
    found = [f'report: {r}' for r in reports(log)]
    for case in CHECK_CASES:
        if outcomes.get(case, 'missing') != 'pass':
            found.append(f'{case}: {outcomes.get(case, "missing")}')
    for case, want in expected.items():
        want = deviations.get(case, want)
        got = outcomes.get(case, 'missing')
        if got != want:
            found.append(f'{case}: expected {want}, got {got}')
    return found


def free_pages_line(log: str) -> str:
    m = re.search(r'free pages before \d+, after \d+, lost -?\d+, '
                  r'-?\d+ outside slab \(tolerance \d+\)', log)
    return m.group(0) if m else 'free pages: not reported'


def run(tree: Tree, cache: Path) -> int:
    """Build and run the lane on the patched tree; returns the number of
    problems (0: clean)."""
    expected = {c: e.on(f'patched+{LANE}') for c, e in
                manifest.load(project.MANIFEST).items()}
    build_dir = kunit_run.build_dir_name(LANE)
    print(f'{tree.name} tree: building and running lane {LANE}', flush=True)
    final = kunit_run.execute(
        tree, f'lane {LANE}', f'{tree.name}-{LANE}',
        [*kunit_run.tool_command('run', build_dir, CONFIGS,
                                 os.cpu_count() or 1, TIMEOUT_S),
         *KERNEL_ARGS],
        cache, build_dir)
    outcomes, notes = kunit_run.outcomes_of(final, tree.path, build_dir)
    log_path = final / 'test.log'
    log = log_path.read_text(errors='replace') if log_path.exists() else ''
    found = problems(outcomes, log, expected, load_deviations()) + notes
    text = '\n'.join([f'sanitizer lane: {len(outcomes)} cases, '
                      f'{len(reports(log))} checker reports, '
                      f'{free_pages_line(log)}'] + found)
    out = project.RESULTS / LANE
    out.mkdir(parents=True, exist_ok=True)
    (out / 'report.txt').write_text(text + '\n')
    print(text)
    return len(found)
