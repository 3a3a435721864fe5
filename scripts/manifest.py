# SPDX-License-Identifier: GPL-2.0
"""kunit/manifest.tsv: the expected outcome of every case on each tree.

One case a line, tab-separated: the case id ("suite.case" or
"suite.case.param"), the outcome on base, the outcome on patched, and the
feature it proves. The
patched tree holds every change, so every case must pass there. Every
lane (kernel config) runs every suite, with the same expectations.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Dict

import tsv
from project import SeriesError

EXPECTABLE = ('pass', 'fail', 'skip')


@dataclass(frozen=True)
class Expectation:
    base: str
    patched: str
    feature: str

    def on(self, column: str) -> str:
        """The outcome expected in a matrix column: "tree" or "tree+lane"."""
        tree = column.split('+', 1)[0]
        return self.base if tree == 'base' else self.patched


COLUMNS = ('case', 'base', 'patched', 'feature')


def parse(text: str, where: str = 'manifest') -> Dict[str, Expectation]:
    cases: Dict[str, Expectation] = {}
    for at, (case, base, patched, feature) in tsv.parse(text, COLUMNS,
                                                        where):
        for outcome in (base, patched):
            if outcome not in EXPECTABLE:
                raise SeriesError(f'{at}: unknown outcome {outcome!r}')
        if patched != 'pass':
            raise SeriesError(f'{at}: {case} must pass on patched, the '
                              f'manifest says {patched}')
        if case in cases:
            raise SeriesError(f'{at}: {case} listed twice')
        cases[case] = Expectation(base, patched, feature)
    if not cases:
        raise SeriesError(f'{where}: lists no case')
    return cases


def load(path: Path) -> Dict[str, Expectation]:
    if not path.is_file():
        raise SeriesError(f'{path} is missing')
    return parse(path.read_text(), path.name)
