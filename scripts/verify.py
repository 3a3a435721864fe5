# SPDX-License-Identifier: GPL-2.0
"""The verification matrix: every case's expected and actual outcome on
each tree, and whether they agree."""

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from manifest import Expectation

# An outcome the manifest cannot expect: a case that ran but is not listed.
UNLISTED = 'unlisted'


@dataclass(frozen=True)
class Cell:
    expected: str
    actual: str

    @property
    def ok(self) -> bool:
        return self.expected == self.actual


@dataclass(frozen=True)
class Row:
    case: str
    feature: str
    cells: Dict[str, Cell]


def compare(expected: Dict[str, Expectation],
            actual: Dict[str, Dict[str, str]],
            trees: Sequence[str],
            runs: Optional[Callable[[str, str], bool]] = None) -> List[Row]:
    """One row per case in the manifest or in any tree's results; a cell
    for each column (tree) that runs the case: runs(column, case), by
    default every column runs every case."""
    names = set(expected)
    for outcomes in actual.values():
        names |= set(outcomes)
    rows = []
    for case in sorted(names):
        exp = expected.get(case)
        cells = {}
        for tree in trees:
            if runs and not runs(tree, case):
                continue
            want = exp.on(tree) if exp else UNLISTED
            got = actual.get(tree, {}).get(case, 'missing')
            cells[tree] = Cell(want, got)
        rows.append(Row(case, exp.feature if exp else '?', cells))
    return rows


def counts(rows: Sequence[Row]) -> Tuple[int, int]:
    """(cells as expected, cells that differ)."""
    good = sum(c.ok for r in rows for c in r.cells.values())
    bad = sum(not c.ok for r in rows for c in r.cells.values())
    return good, bad


def render(rows: Sequence[Row], trees: Sequence[str]) -> str:
    width = max([len('case')] + [len(r.case) for r in rows])
    head = f'{"case":<{width}}  {"feature":<8}' + ''.join(
        f'  {t + " exp/got":<20}' for t in trees)
    lines = [head, '-' * len(head)]
    for r in rows:
        line = f'{r.case:<{width}}  {r.feature:<8}'
        for t in trees:
            c = r.cells.get(t)
            if c is None:
                line += f'  {"-":<20}'
                continue
            mark = 'ok' if c.ok else 'DIFFERS'
            line += f'  {c.expected + "/" + c.actual + " " + mark:<20}'
        lines.append(line.rstrip())
    lines += column_summaries(rows, trees)
    good, bad = counts(rows)
    lines.append(f'{good} cells as expected, {bad} differ')
    return '\n'.join(lines)


def column_summaries(rows: Sequence[Row], trees: Sequence[str]
                     ) -> List[str]:
    """Per column (tree and lane): its cells, how many differ, and its
    actual outcomes."""
    lines = []
    for t in trees:
        cells = [r.cells[t] for r in rows if t in r.cells]
        got: Dict[str, int] = {}
        for c in cells:
            got[c.actual] = got.get(c.actual, 0) + 1
        lines.append(f'{t}: {len(cells)} cells, '
                     f'{sum(not c.ok for c in cells)} differ ('
                     + ', '.join(f'{k} {v}' for k, v in sorted(got.items()))
                     + ')')
    return lines
