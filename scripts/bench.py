# SPDX-License-Identifier: GPL-2.0
"""Benchmark samples from the harness's KTAP lines, and the A/B table.

The harness (lib/mm_bench.c) prints one line per sample:
  # vmalloc_bench_test: mm_bench suite=vmalloc bench=fix_size_alloc_test p=1 h=0 loops=500 sample=0 value=123 unit=ns
Each boot's samples of a benchmark are reduced to their mean, one
observation per boot; the table compares base and patched the way the seeds
do, over those observations.
"""

import math
import re
import statistics
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import stats

SAMPLE = re.compile(r'mm_bench suite=(?P<suite>\S+) bench=(?P<bench>\S+)'
                     r'(?P<params>(?: \w+=\S+)*?) loops=(?P<loops>\d+)'
                     r' sample=(?P<sample>\d+) value=(?P<value>\d+)'
                     r' unit=(?P<unit>\S+)')


@dataclass(frozen=True, order=True)
class Key:
    suite: str
    bench: str
    params: str
    unit: str

    def case(self) -> str:
        """The benchmark and its parameters, as the seeds' tables write
        them: fix_size_alloc_test: p:1, h:0."""
        return case_label(self.bench, self.params)

    def label(self) -> str:
        return f'{self.case()} ({self.unit})'


def case_label(name: str, params: str) -> str:
    shown = ', '.join(p.replace('=', ':') for p in params.split())
    return f'{name}: {shown}' if shown else name


Samples = Dict[Key, List[float]]


def parse(log: str) -> Samples:
    samples: Samples = {}
    for m in SAMPLE.finditer(log):
        key = Key(m.group('suite'), m.group('bench'),
                  m.group('params').strip(), m.group('unit'))
        samples.setdefault(key, []).append(float(m.group('value')))
    return samples


def per_boot(samples: Samples) -> Samples:
    """One observation per benchmark: the mean of one boot's samples."""
    return {key: [stats.mean(values)] for key, values in samples.items()}


def merge(into: Samples, more: Samples) -> None:
    for key, values in more.items():
        into.setdefault(key, []).extend(values)


@dataclass(frozen=True)
class Row:
    key: Key
    comparison: stats.Comparison


def _natural(key: Key) -> Tuple[object, ...]:
    """Suite, benchmark, then parameters with numbers compared as numbers,
    so that p:2 comes before p:16, as in the seeds' tables."""
    params = tuple((name, int(value) if value.isdigit() else 0, value)
                   for name, _, value in
                   (p.partition('=') for p in key.params.split()))
    return (key.suite, key.bench, params, key.unit)


def compare(base: Samples, patched: Samples) -> List[Row]:
    """One row per benchmark both trees ran with at least two samples."""
    rows = []
    for key in sorted(set(base) & set(patched), key=_natural):
        if len(base[key]) >= 2 and len(patched[key]) >= 2:
            rows.append(Row(key, stats.compare(base[key], patched[key])))
    return rows


LEGEND = ('legend: one observation per boot (the mean of its samples), a '
          'time: smaller is better;\n  change is (patched - base) / base;\n'
          '  (I): improvement, (R): regression, where the 95% intervals of '
          'the two means do not overlap;\n'
          '  +-: half-width of the 95% Student-t interval, in % of the mean; '
          'p: Welch\'s two-sided p-value')


# Column widths of the numeric cells: base +-, patched +-, change, p.
_WIDTHS = (9, 10, 12, 7)


def _line(label: str, width: int, cells: Sequence[str] = ('',) * 4) -> str:
    return f'| {label:<{width}} | ' + ' | '.join(
        f'{c:>{w}}' for c, w in zip(cells, _WIDTHS)) + ' |'


def render(rows: Sequence[Row], suite_title: Dict[str, str]) -> str:
    width = max([40] + [len(r.key.label()) + 2 for r in rows])
    head = _line('Benchmark', width, ('base +-', 'patched +-', 'change', 'p'))
    rule = '+' + '-' * (len(head) - 2) + '+'
    lines = [rule, head, _line('  Result Class', width),
             rule.replace('-', '=')]
    suite = None
    for r in rows:
        if r.key.suite != suite:
            suite = r.key.suite
            lines.append(_line(suite_title.get(suite, suite), width))
        c = r.comparison
        lines.append(_line('  ' + r.key.label(), width, (
            pct(c.base.half_width, c.base.mean),
            pct(c.patched.half_width, c.patched.mean),
            change_cell(c), f'{c.p_value:.3f}')))
    lines.append(rule)
    return '\n'.join(lines + [LEGEND])


# Units of time; any other unit is an exact count (lib/structural_bench.c).
TIME_UNITS = ('ns', 'us')
# Counts in this unit are shares of a whole, shown in percent.
SHARE_UNIT = 'permille'


def split_counts(rows: Sequence[Row]) -> Tuple[List[Row], List[Row]]:
    """(timed rows, count rows)."""
    return ([r for r in rows if r.key.unit in TIME_UNITS],
            [r for r in rows if r.key.unit not in TIME_UNITS])


def _value(values: Sequence[float]) -> str:
    lo, hi = min(values), max(values)
    return f'{lo:g}' if lo == hi else f'{lo:g}..{hi:g}'


def _change(r: Row, base: Samples, patched: Samples) -> str:
    """A share's change is in percentage points: its base is often 0."""
    if r.key.unit == SHARE_UNIT:
        points = (statistics.median(patched[r.key])
                  - statistics.median(base[r.key])) / 10.0
        return f'{points:+.1f} pts'
    return f'{r.comparison.change_pct:+.2f}%'


def _shown(values: Sequence[float], unit: str) -> str:
    if unit == SHARE_UNIT:
        return _value([v / 10.0 for v in values]) + '%'
    return _value(values)


def render_counts(rows: Sequence[Row], base: Samples,
                  patched: Samples) -> str:
    """Exact counts, base against patched; a range where boots differ.
    Shares (per mille in the log) are shown in percent."""
    lines = ['| Count | base | patched | change |']
    for r in rows:
        unit = 'share' if r.key.unit == SHARE_UNIT else r.key.unit
        lines.append(f'| {r.key.bench}: {r.key.params} ({unit}) | '
                     f'{_shown(base[r.key], r.key.unit)} | '
                     f'{_shown(patched[r.key], r.key.unit)} | '
                     f'{_change(r, base, patched)} |')
    return '\n'.join(lines)


@dataclass(frozen=True)
class Agreement:
    label: str
    ours: stats.Comparison
    reference: stats.Comparison

    @property
    def same_direction(self) -> bool:
        return (self.ours.change_pct > 0) == (self.reference.change_pct > 0)


def agreement(ours: Sequence[Row], reference: Sequence[Row]
              ) -> List[Agreement]:
    """The rows both ran: same benchmark and parameters, any unit."""
    mine = {(r.key.bench, r.key.params): r for r in ours}
    return [Agreement(r.key.case(),
                      mine[(r.key.bench, r.key.params)].comparison,
                      r.comparison)
            for r in reference if (r.key.bench, r.key.params) in mine]


def render_agreement(rows: Sequence[Agreement]) -> str:
    lines = ['| Shared case | harness | test_vmalloc | direction |']
    for a in rows:
        lines.append(
            f'| {a.label} | {change_cell(a.ours)} | '
            f'{change_cell(a.reference)} | '
            f'{"same" if a.same_direction else "opposite"} |')
    both = [a for a in rows if a.ours.mark and a.reference.mark]
    lines.append(
        f'direction: the same in {sum(a.same_direction for a in rows)} of '
        f'{len(rows)} shared cases; of the {len(both)} marked (I) or (R) by '
        f'both, {sum(a.same_direction for a in both)} agree')
    return '\n'.join(lines)


def _clock_cell(c: Optional[stats.Comparison]) -> str:
    if c is None:
        return 'not run'
    hw = f'{c.change_hw_pct:.2f}' if math.isfinite(c.change_hw_pct) \
        else 'n/a'
    return f'{change_cell(c)} +-{hw} (p {c.p_value:.3f})'


def render_clocks(host: Sequence[Row], icount: Sequence[Row]) -> str:
    """Each case on both clocks side by side: the change of elapsed time
    under the host clock and of instructions under icount, each with the
    95% half-width of the change. The mark of a case is icount's: its
    observations repeat from boot to boot, the host clock's do not."""
    on_host = {r.key: r.comparison for r in host}
    on_icount = {r.key: r.comparison for r in icount}
    keys = sorted(set(on_host) | set(on_icount), key=_natural)
    lines = ['| Benchmark | time, host clock | instructions, icount | '
             'mark |', '|---|---|---|---|']
    for key in keys:
        mark = on_icount[key].mark if key in on_icount else ''
        lines.append(f'| {key.label()} | {_clock_cell(on_host.get(key))} | '
                     f'{_clock_cell(on_icount.get(key))} | {mark or "-"} |')
    both = [k for k in keys if k in on_host and k in on_icount]
    same = sum((on_host[k].change_pct > 0) == (on_icount[k].change_pct > 0)
               for k in both)
    improved, regressed = marks([Row(k, c) for k, c in on_icount.items()])
    lines.append(f'both clocks: {len(keys)} cases; icount marks '
                 f'{improved} (I), {regressed} (R); the host clock moves '
                 f'the same way in {same} of {len(both)}')
    return '\n'.join(lines)


def change_cell(c: stats.Comparison) -> str:
    return f'{c.mark} {c.change_pct:+.2f}%'.strip()


def pct(half_width: float, mean: float) -> str:
    return f'{half_width / mean * 100:.2f}%' if mean else 'n/a'


def spread_line(clock: str, rows: Sequence[Row]) -> str:
    """The widest 95% half-width of a tree's mean, in % of that mean, over
    the timed cases (each tree's interval counts)."""
    if not rows:
        return f'{clock}: no timed case'
    width, key = max(
        ((100 * s.half_width / s.mean if s.mean else 0.0, r.key)
         for r in rows for s in (r.comparison.base, r.comparison.patched)),
        key=lambda found: found[0])
    return (f'{clock}: max half-width {width:.2f}% over {len(rows)} cases '
            f'({key.label()})')


def marks(rows: Sequence[Row]) -> Tuple[int, int]:
    """(improvements, regressions)."""
    return (sum(r.comparison.mark == '(I)' for r in rows),
            sum(r.comparison.mark == '(R)' for r in rows))


def _json_number(x: float) -> Optional[float]:
    """JSON has no NaN or infinity: a change from 0, or the interval of a
    single boot, is null."""
    return x if math.isfinite(x) else None


def to_json(rows: Sequence[Row], meta: Dict[str, object]) -> Dict[str, object]:
    return {'meta': meta, 'rows': [{
        'suite': r.key.suite, 'bench': r.key.bench, 'params': r.key.params,
        'unit': r.key.unit,
        'base': {'n': r.comparison.base.n, 'mean': r.comparison.base.mean,
                 'sd': r.comparison.base.sd,
                 'half_width': _json_number(r.comparison.base.half_width)},
        'patched': {'n': r.comparison.patched.n,
                    'mean': r.comparison.patched.mean,
                    'sd': r.comparison.patched.sd,
                    'half_width': _json_number(
                        r.comparison.patched.half_width)},
        'change_pct': _json_number(r.comparison.change_pct),
        'change_hw_pct': _json_number(r.comparison.change_hw_pct),
        'p_value': _json_number(r.comparison.p_value),
        'mark': r.comparison.mark}
        for r in rows]}


CSV_HEADER = ('suite,bench,params,unit,base_n,base_mean,base_sd,base_hw,'
              'patched_n,patched_mean,patched_sd,patched_hw,change_pct,'
              'change_hw_pct,p_value,mark')


def to_csv(rows: Sequence[Row]) -> str:
    lines = [CSV_HEADER]
    for r in rows:
        b, p = r.comparison.base, r.comparison.patched
        lines.append(','.join(str(v) for v in (
            r.key.suite, r.key.bench, r.key.params, r.key.unit,
            b.n, b.mean, b.sd, b.half_width, p.n, p.mean, p.sd,
            p.half_width, r.comparison.change_pct,
            r.comparison.change_hw_pct, r.comparison.p_value,
            r.comparison.mark)))
    return '\n'.join(lines) + '\n'
