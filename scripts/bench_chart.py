# SPDX-License-Identifier: GPL-2.0
"""The benchmark report as a PNG: per timed case, the change from base to
patched in percent with its 95% interval (Welch), one panel for the
harness and one for test_vmalloc.ko.

    bench_chart.py report.json report.png

matplotlib is optional: mmseries.py runs this with an interpreter that has
it (Debian's python3-matplotlib is for /usr/bin/python3) and says so when
none has. Everything but the drawing is standard library and unit-tested.
"""

import json
import sys
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Sequence

TIME_UNITS = ('ns', 'us')
PANELS = (('rows', 'in-kernel harness'), ('test_vmalloc', 'test_vmalloc.ko'))


class Bar(NamedTuple):
    label: str
    change_pct: float
    half_width_pct: float
    mark: str


def bars(rows: Sequence[Dict[str, Any]]) -> List[Bar]:
    """The timed rows of a report's JSON, in the report's order."""
    out = []
    for r in rows:
        if r['unit'] not in TIME_UNITS:
            continue
        params = ', '.join(p.replace('=', ':') for p in r['params'].split())
        out.append(Bar(f'{r["bench"]} {params}'.strip(), r['change_pct'],
                       r['change_hw_pct'], r['mark']))
    return out


def panels(report: Dict[str, Any]) -> List[tuple]:
    return [(title, bars(report[key])) for key, title in PANELS
            if bars(report.get(key, []))]


def color(bar: Bar) -> str:
    return {'(I)': 'tab:green', '(R)': 'tab:red'}.get(bar.mark, 'tab:gray')


def draw(report: Dict[str, Any], path: Path) -> None:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    shown = panels(report)
    height = max(len(b) for _, b in shown) * 0.28 + 1.5
    fig, axes = plt.subplots(1, len(shown), figsize=(7 * len(shown), height),
                             squeeze=False)
    for ax, (title, the_bars) in zip(axes[0], shown):
        ys = range(len(the_bars))
        ax.barh(list(ys), [b.change_pct for b in the_bars],
                xerr=[b.half_width_pct for b in the_bars],
                color=[color(b) for b in the_bars], capsize=2)
        ax.set_yticks(list(ys), [f'{b.label} {b.mark}'.strip()
                                 for b in the_bars], fontsize=7)
        ax.invert_yaxis()
        ax.axvline(0, color='black', linewidth=0.8)
        ax.set_xlabel('change, patched vs base (%); negative is faster')
        ax.set_title(title)
    meta = report.get('meta', {})
    fig.suptitle(f'{meta.get("base", "")}: {meta.get("boots_per_tree")} '
                 f'boots per tree, {meta.get("profile")} profile, '
                 f'{meta.get("clock")} clock; bars: 95% interval')
    fig.tight_layout()
    fig.savefig(path, dpi=110, format='png')
    plt.close(fig)


def main(argv: List[str]) -> int:
    if len(argv) != 2:
        print('usage: bench_chart.py report.json report.png', file=sys.stderr)
        return 2
    report = json.loads(Path(argv[0]).read_text())
    if not panels(report):
        print('bench_chart.py: no timed rows to draw', file=sys.stderr)
        return 1
    tmp = Path(argv[1] + '.tmp')
    draw(report, tmp)
    tmp.replace(argv[1])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
