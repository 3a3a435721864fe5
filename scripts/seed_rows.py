# SPDX-License-Identifier: GPL-2.0
"""The seeds' published benchmark rows (scripts/seed_rows.tsv) held
against ours: for each, the seed's change, ours on each clock, and
whether we reproduce its direction, see the opposite, or cannot tell.

Ours is the harness's row of the same test and parameters (the same body
as test_vmalloc.ko's, lib/vmalloc_bench.c); the verdict follows icount,
whose observations repeat, and the host clock where icount did not run.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import bench
import project
import stats
import tsv

TABLE = project.REPO / 'scripts' / 'seed_rows.tsv'
COLUMNS = ('seed', 'column', 'bench', 'params', 'change', 'mark', 'note')


@dataclass(frozen=True)
class SeedRow:
    seed: str
    column: str
    bench: str          # our harness's benchmark, "-" for none
    params: str
    change_pct: float   # the seed's change of the time
    mark: str           # (I), (R) or ""
    note: str

    def names(self, key: bench.Key) -> bool:
        """Whether key is the harness's case of this row (any suite and
        unit: the timed row and its counts alike)."""
        return (key.bench, key.params) == (self.bench, self.params)


def load(path: Path = TABLE) -> List[SeedRow]:
    rows = []
    for at, (seed, column, name, params, change, mark, note) in tsv.parse(
            path.read_text(), COLUMNS, str(path)):
        try:
            value = float(change)
        except ValueError:
            raise project.SeriesError(f'{at}: change {change!r} is not a '
                                      'number') from None
        rows.append(SeedRow(seed, column, name, params, value,
                            '' if mark == '-' else mark, note))
    return rows


@dataclass(frozen=True)
class Held:
    row: SeedRow
    icount: Optional[stats.Comparison]
    host: Optional[stats.Comparison]

    @property
    def verdict(self) -> str:
        if self.row.bench == '-':
            return 'no row of ours'
        ours = self.icount or self.host
        if ours is None:
            return 'not measured'
        if not ours.mark:
            return 'not resolved'
        same = (ours.change_pct > 0) == (self.row.change_pct > 0)
        return 'reproduced' if same else 'opposite'


def compare(seed_rows: Sequence[SeedRow],
            rows: Dict[str, Sequence[bench.Row]]) -> List[Held]:
    """rows: the harness's timed rows per clock ("host", "icount")."""
    def find(clock: str, row: SeedRow) -> Optional[stats.Comparison]:
        for r in rows.get(clock, ()):
            if row.names(r.key):
                return r.comparison
        return None

    return [Held(r, find('icount', r), find('host', r)) for r in seed_rows]


def _ours(c: Optional[stats.Comparison]) -> str:
    return bench.change_cell(c) if c else '-'


def render(held: Sequence[Held]) -> str:
    lines = ['| seed | column | row | seed\'s change | ours, icount | '
             'ours, host clock | verdict |', '|---|---|---|---|---|---|---|']
    for h in held:
        r = h.row
        what = bench.case_label(r.bench, r.params) \
            if r.bench != '-' else r.note
        lines.append(f'| {r.seed} | {r.column} | {what} | '
                     f'{f"{r.mark} {r.change_pct:+.2f}%".strip()} | '
                     f'{_ours(h.icount)} | {_ours(h.host)} | {h.verdict} |')
    verdicts = [h.verdict for h in held]
    lines.append('seed rows: ' + ', '.join(
        f'{verdicts.count(v)} {v}' for v in
        ('reproduced', 'opposite', 'not resolved', 'not measured',
         'no row of ours') if verdicts.count(v)))
    return '\n'.join(lines)
