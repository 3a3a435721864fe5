# SPDX-License-Identifier: GPL-2.0
"""The A/B benchmark report: the harness's timed table, its exact counts,
test_vmalloc.ko's own table, where the two agree, and a PNG chart; kept
whole in build/bench/ (text, JSON, CSV, PNG)."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import bench
import project

SUITE_TITLES = {'vmalloc': 'micromm/vmalloc (harness)',
                'gigantic': 'gigantic folios (harness)',
                'test_vmalloc': "test_vmalloc.ko (the seeds' tool)"}
CHART = project.REPO / 'scripts' / 'bench_chart.py'
# Interpreters that may have matplotlib: ours, and Debian's, which is the
# one python3-matplotlib installs for.
CHART_PYTHONS = (sys.executable, '/usr/bin/python3')
NO_MATPLOTLIB = ('chart: matplotlib not found (Debian package '
                 'python3-matplotlib); report.png not written')


def chart_python(candidates: Sequence[str] = CHART_PYTHONS) -> Optional[str]:
    for python in candidates:
        if not Path(python).exists():
            continue
        probe = subprocess.run([python, '-c', 'import matplotlib'],
                               capture_output=True, check=False)
        if probe.returncode == 0:
            return python
    return None


def draw_chart(json_path: Path, png_path: Path) -> str:
    """Draw the chart; returns the line that says what happened."""
    python = chart_python()
    if python is None:
        png_path.unlink(missing_ok=True)
        return NO_MATPLOTLIB
    proc = subprocess.run([python, str(CHART), str(json_path),
                           str(png_path)], capture_output=True, text=True,
                          check=False)
    if proc.returncode:
        png_path.unlink(missing_ok=True)
        return ('chart: bench_chart.py failed: '
                + project.last_line(proc.stderr, 'no output'))
    return f'chart: {png_path}'


def text(ours: List[bench.Row], counts: List[bench.Row],
         reference: List[bench.Row], samples: Dict[str, bench.Samples],
         header: str) -> str:
    parts = [header, bench.render(ours, SUITE_TITLES)]
    if counts:
        parts += ['\nExact counts (one per boot; TCG shows these where it '
                  'cannot show TLB or barrier cost):',
                  bench.render_counts(counts, samples['base'],
                                      samples['patched'])]
    if reference:
        parts += ['\nThe reference, lib/test_vmalloc.ko on the same '
                  'kernels (avg usec per load):',
                  bench.render(reference, SUITE_TITLES),
                  '\nHarness and test_vmalloc.ko on their shared cases:',
                  bench.render_agreement(bench.agreement(ours, reference))]
    return '\n'.join(parts)


def write(base: bench.Samples, patched: bench.Samples,
          tv_base: bench.Samples, tv_patched: bench.Samples,
          meta: Dict[str, object], header: str,
          out: Optional[Path] = None, echo: bool = True) -> List[bench.Row]:
    """Keep the report in out (build/bench/ by default) and, with echo,
    print it; returns the harness's rows."""
    ours, counts = bench.split_counts(bench.compare(base, patched))
    reference = bench.compare(tv_base, tv_patched)
    report = text(ours, counts, reference,
                  {'base': base, 'patched': patched}, header)
    out = out or project.RESULTS / 'bench'
    out.mkdir(parents=True, exist_ok=True)
    data = bench.to_json(ours + counts, meta)
    data['test_vmalloc'] = bench.to_json(reference, {})['rows']
    files = {'report.json': json.dumps(data, indent=1) + '\n',
             'report.csv': bench.to_csv(ours + counts + reference)}
    for name, content in files.items():
        tmp = out / f'.{name}.tmp'
        tmp.write_text(content)
        tmp.replace(out / name)
    chart = draw_chart(out / 'report.json', out / 'report.png')
    (out / 'report.txt').write_text(report + '\n' + chart + '\n')
    if echo:
        print(report)
        print(chart)
    return ours
