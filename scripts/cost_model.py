# SPDX-License-Identifier: GPL-2.0
"""What our exact counts predict for the seeds' machines.

Seed 000 gives, per test_vmalloc row and machine (Apple M2, Ampere
Altra), the change of the time from base to the series; the TCG plugin
gives, per row of the harness (the same test bodies) and tree, what one
operation executed: instructions outside interrupt handlers, DSB, ISB and
TLBI. A machine's time per operation is modelled as

    t = a * instructions + b * (DSB + ISB) + c * TLBI

and, since the seeds publish changes and no times, only the ratios
b/a and c/a can be known: costs are given in instruction times. The
change of a row is then

    y = (dI + B * dX + C * dT) / (I + B * X + C * T)

(I, X, T base counts, d the patched minus base). Multiplying out gives an
equation linear in B and C, one per row, divided by I so that every row
weighs alike; least squares over the rows fits B and C.

A fit is judged on rows it did not see: each row is predicted from the
fit of the others (leave-one-out), and the held-out error is set against
two models that fit nothing: instructions alone (B = C = 0) and no change
at all. Intervals of B and C come from refitting on rows drawn again with
replacement (bootstrap, a fixed seed, so a report repeats). The same fit
takes a lab board's changes: rows of the seeds' table with the board as
their column (seed "lab").
"""

import math
import random
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import bench
import seed_rows
import stats
import tcg_counts

# The seeds whose rows are whole-series changes of test_vmalloc's cases
# (seed 000), and a lab's own results in the same form.
FIT_SEEDS = ('000', 'lab')
BOOTSTRAP_DRAWS = 2000
BOOTSTRAP_SEED = 0
# A held-out error above this many points of change marks a row the model
# does not predict.
MISS_POINTS = 5.0


@dataclass(frozen=True)
class Observation:
    """One row on one machine: the machine's change (a fraction) and our
    counts per operation of base and patched."""
    case: str
    params: str
    change: float
    base: Tuple[float, float, float]      # instructions, barriers, TLBIs
    patched: Tuple[float, float, float]

    def equation(self) -> Tuple[float, float, float]:
        """(u, v, w) with B * u + C * v = w."""
        (i, x, t), (ip, xp, tp) = self.base, self.patched
        y = self.change
        return ((xp - x - y * x) / i, (tp - t - y * t) / i,
                y - (ip - i) / i)

    def predict(self, costs: Tuple[float, float]) -> float:
        b, c = costs
        (i, x, t), (ip, xp, tp) = self.base, self.patched
        base = i + b * x + c * t
        return (ip + b * xp + c * tp) / base - 1.0


def solve(rows: Sequence[Observation]) -> Optional[Tuple[float, float]]:
    """Least squares (B, C); None when the rows cannot tell them apart."""
    suu = svv = suv = suw = svw = 0.0
    for r in rows:
        u, v, w = r.equation()
        suu += u * u
        svv += v * v
        suv += u * v
        suw += u * w
        svw += v * w
    det = suu * svv - suv * suv
    if abs(det) <= 1e-12 * max(suu * svv, 1e-300):
        return None
    return ((suw * svv - svw * suv) / det, (svw * suu - suw * suv) / det)


def _features(columns: Dict[str, List[float]]) -> Tuple[float, float, float]:
    def m(name: str) -> float:
        values = columns.get(name) or [0.0]
        return stats.mean(values)
    return (m('own_insns'), m('dsb') + m('isb'), m('tlbi'))


def observations(machine: str, rows: Sequence[seed_rows.SeedRow],
                 base: tcg_counts.Counts, patched: tcg_counts.Counts
                 ) -> List[Observation]:
    """The machine's rows that we counted on both trees."""
    def find(counts: tcg_counts.Counts, row: seed_rows.SeedRow
             ) -> Optional[Dict[str, List[float]]]:
        for key, columns in counts.items():
            if row.names(key):
                return columns
        return None

    found = []
    for r in rows:
        if r.column != machine or r.seed not in FIT_SEEDS or r.bench == '-':
            continue
        b, p = find(base, r), find(patched, r)
        if b is None or p is None or not _features(b)[0]:
            continue
        found.append(Observation(bench.case_label(r.bench, r.params),
                                 r.params, r.change_pct / 100.0,
                                 _features(b), _features(p)))
    return found


@dataclass(frozen=True)
class Held:
    row: Observation
    fitted: float           # predicted by the fit of all rows
    held_out: Optional[float]   # predicted by the fit of the others

    @property
    def error_points(self) -> Optional[float]:
        if self.held_out is None:
            return None
        return 100.0 * (self.held_out - self.row.change)


@dataclass(frozen=True)
class Fit:
    machine: str
    costs: Tuple[float, float]
    intervals: Tuple[Tuple[float, float], Tuple[float, float]]
    held: Tuple[Held, ...]

    def rms_points(self, which: str) -> float:
        """Held-out RMS error of the model ("model"), of instructions
        alone ("insns") and of no change ("zero"), in points."""
        errors = []
        for h in self.held:
            if which == 'model':
                if h.held_out is None:
                    continue
                guess = h.held_out
            elif which == 'insns':
                guess = h.row.predict((0.0, 0.0))
            else:
                guess = 0.0
            errors.append(100.0 * (guess - h.row.change))
        if not errors:
            return math.nan
        return math.sqrt(math.fsum(e * e for e in errors) / len(errors))


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    at = q * (len(sorted_values) - 1)
    low = math.floor(at)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) \
        * (at - low)


def fit(machine: str, rows: Sequence[Observation],
        draws: int = BOOTSTRAP_DRAWS) -> Optional[Fit]:
    """The machine's fit with its bootstrap intervals and held-out
    predictions; None when its rows cannot fit two costs."""
    costs = solve(rows)
    if costs is None:
        return None
    rng = random.Random(BOOTSTRAP_SEED)
    bs: List[Tuple[float, float]] = []
    for _ in range(draws):
        again = solve([rows[rng.randrange(len(rows))] for _ in rows])
        if again is not None:
            bs.append(again)
    intervals = []
    for k in range(2):
        values = sorted(c[k] for c in bs) or [math.nan]
        intervals.append((_percentile(values, 0.025),
                          _percentile(values, 0.975)))
    held = []
    for n, r in enumerate(rows):
        others = solve([o for m, o in enumerate(rows) if m != n])
        held.append(Held(r, r.predict(costs),
                         r.predict(others) if others else None))
    return Fit(machine, costs, (intervals[0], intervals[1]), tuple(held))


def why_missed(row: Observation) -> str:
    """What the counts leave out for a row the model does not predict."""
    params = dict(p.split('=', 1) for p in row.params.split() if '=' in p)
    pages = int(params.get('p', '1'))
    if params.get('h') == '1' and pages >= 16:
        return ('huge mapping: patched maps it with contiguous (contpte) '
                'entries, whose TLB reach TCG does not model')
    if pages >= 64:
        return ('large allocation: memory bandwidth and cache misses, '
                'which instruction counts do not see')
    return 'not explained by these counts'


def fits(seed_table: Sequence[seed_rows.SeedRow], base: tcg_counts.Counts,
         patched: tcg_counts.Counts) -> List[Tuple[str, Optional[Fit], int]]:
    """Per machine of the fit seeds: its fit (or None) and its rows."""
    machines: List[str] = []
    for r in seed_table:
        if r.seed in FIT_SEEDS and r.column not in machines:
            machines.append(r.column)
    out = []
    for m in machines:
        rows = observations(m, seed_table, base, patched)
        out.append((m, fit(m, rows) if len(rows) >= 3 else None, len(rows)))
    return out


def _cost(value: float, interval: Tuple[float, float]) -> str:
    return f'{value:.1f} [{interval[0]:.1f}, {interval[1]:.1f}]'


def render(results: Sequence[Tuple[str, Optional[Fit], int]]) -> str:
    lines = ['Model: time per operation = a * instructions + b * (DSB + '
             'ISB) + c * TLBI, fitted per machine to the seed\'s changes '
             'and our icount counts (instructions outside interrupt '
             'handlers); b and c in instruction times, 95% bootstrap '
             'intervals; "held out": the row predicted from the fit of '
             'the other rows.']
    for machine, f, n in results:
        if f is None:
            lines.append(f'\n{machine}: {n} counted row(s), too few or too '
                         'alike to fit two costs')
            continue
        (b, c), (bi, ci) = f.costs, f.intervals
        lines.append(f'\n{machine}: {n} rows; barrier (DSB or ISB) = '
                     f'{_cost(b, bi)} instructions, TLBI = {_cost(c, ci)} '
                     'instructions' + ('; a negative cost is no physical '
                                       'cost: the counts do not explain '
                                       'this machine\'s changes'
                                       if b < 0 or c < 0 else ''))
        lines.append(f'held-out RMS error: model {f.rms_points("model"):.2f} '
                     f'points, instructions alone '
                     f'{f.rms_points("insns"):.2f}, no change '
                     f'{f.rms_points("zero"):.2f}')
        lines.append('| row | seed\'s change | instructions alone | fitted '
                     '| held out | held-out error | |')
        lines.append('|---|---|---|---|---|---|---|')
        for h in f.held:
            err = h.error_points
            miss = err is not None and abs(err) > MISS_POINTS
            lines.append(
                f'| {h.row.case} | {100 * h.row.change:+.2f}% | '
                f'{100 * h.row.predict((0.0, 0.0)):+.2f}% | '
                f'{100 * h.fitted:+.2f}% | '
                + ('-' if h.held_out is None else
                   f'{100 * h.held_out:+.2f}%')
                + f' | {"-" if err is None else f"{err:+.2f}"} | '
                + (f'not predicted: {why_missed(h.row)}' if miss else '')
                + ' |')
        missed = sum(1 for h in f.held if h.error_points is not None
                     and abs(h.error_points) > MISS_POINTS)
        lines.append(f'{machine}: {len(f.held) - missed} of {len(f.held)} '
                     f'rows predicted within {MISS_POINTS:g} points held '
                     'out')
    return '\n'.join(lines)
