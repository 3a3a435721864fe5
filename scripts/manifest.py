# SPDX-License-Identifier: GPL-2.0
"""kunit/manifest.tsv: the expected outcome of every case on each tree.

One case a line, tab-separated: the case id ("suite.case" or
"suite.case.param"), the outcome on base, the outcome on patched, and the
feature it proves. Every lane (kernel config) runs every suite with the
same expectations, except where a cell names a lane after its outcome:
"fail main=skip" is fail on every lane but main, where the case skips (a
lane without the kernel option the case needs, or a granule without the
size); "skip 16k=fail" skips everywhere but on the 16k lane. The patched
tree holds every change, so on patched a case passes or skips (with its
reason) on each lane, and passes on one lane at least.

The fifth column, reason, is what every expected non-pass must carry
(see reasons.py): the failing assertion's message for a fail, the skip's
reason for a skip, alternatives separated by " | "; "-" for a case that
passes everywhere.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Tuple

import tsv
from project import SeriesError

EXPECTABLE = ('pass', 'fail', 'skip')
# The lane of a matrix column with no "+lane" (see mmseries.column_name).
MAIN_LANE = 'main'


@dataclass(frozen=True)
class Expectation:
    base: str
    patched: str
    feature: str
    reason: str = ''
    # (tree, lane, outcome) where a lane differs from the tree's outcome.
    by_lane: Tuple[Tuple[str, str, str], ...] = ()

    def on(self, column: str) -> str:
        """The outcome expected in a matrix column: "tree" or "tree+lane"."""
        tree, _, lane = column.partition('+')
        for t, l, outcome in self.by_lane:
            if t == tree and l == (lane or MAIN_LANE):
                return outcome
        return self.base if tree == 'base' else self.patched


COLUMNS = ('case', 'base', 'patched', 'feature', 'reason')
NO_REASON = '-'


def parse_cell(at: str, cell: str) -> Tuple[str, Dict[str, str]]:
    """"fail main=skip" -> ("fail", {"main": "skip"})."""
    outcome, *rest = cell.split(' ')
    lanes: Dict[str, str] = {}
    for word in rest:
        lane, sep, lane_outcome = word.partition('=')
        if not sep or not lane:
            raise SeriesError(f'{at}: {word!r} is not lane=outcome')
        if lane in lanes:
            raise SeriesError(f'{at}: lane {lane} given twice')
        lanes[lane] = lane_outcome
    for o in (outcome, *lanes.values()):
        if o not in EXPECTABLE:
            raise SeriesError(f'{at}: unknown outcome {o!r}')
    return outcome, lanes


def parse(text: str, where: str = 'manifest') -> Dict[str, Expectation]:
    cases: Dict[str, Expectation] = {}
    for at, (case, base_cell, patched_cell, feature, reason) in tsv.parse(
            text, COLUMNS, where):
        base, base_lanes = parse_cell(at, base_cell)
        patched, patched_lanes = parse_cell(at, patched_cell)
        for where, outcome in (('', patched), *[(f'{lane}=', o) for lane, o
                                               in patched_lanes.items()]):
            if outcome not in ('pass', 'skip'):
                raise SeriesError(f'{at}: {case} may only pass or skip on '
                                  f'patched, the manifest says '
                                  f'{where}{outcome}')
        if 'pass' not in (patched, *patched_lanes.values()):
            raise SeriesError(f'{at}: {case} must pass on patched on one '
                              f'lane at least, the manifest says '
                              f'{patched_cell}')
        if case in cases:
            raise SeriesError(f'{at}: {case} listed twice')
        by_lane = tuple([('base', lane, o) for lane, o in base_lanes.items()]
                        + [('patched', lane, o)
                           for lane, o in patched_lanes.items()])
        outcomes = {base, patched, *base_lanes.values(),
                    *patched_lanes.values()}
        if outcomes != {'pass'} and reason == NO_REASON:
            raise SeriesError(f'{at}: {case} expects a non-pass, the reason '
                              f'column must say what it carries')
        if outcomes == {'pass'} and reason != NO_REASON:
            raise SeriesError(f'{at}: {case} passes everywhere, its reason '
                              f'must be {NO_REASON!r}')
        cases[case] = Expectation(base, patched, feature,
                                  '' if reason == NO_REASON else reason,
                                  by_lane)
    if not cases:
        raise SeriesError(f'{where}: lists no case')
    return cases


def load(path: Path) -> Dict[str, Expectation]:
    if not path.is_file():
        raise SeriesError(f'{path} is missing')
    return parse(path.read_text(), path.name)
