# SPDX-License-Identifier: GPL-2.0
import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import bench
import bench_report
import project

FIX = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0', 'ns')
PAIRS = bench.Key('structural', 'barrier_pairs_per_vmalloc', 'p=256',
                  'pairs')
TV_FIX = bench.Key('test_vmalloc', 'fix_size_alloc_test', 'p=1 h=0', 'us')
TV_FIT = bench.Key('test_vmalloc', 'full_fit_alloc_test', 'p=1 h=0', 'us')


class WriteTest(unittest.TestCase):
    def write(self, python: object) -> tuple:
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(project, 'RESULTS', Path(tmp)), \
                mock.patch.object(bench_report, 'chart_python',
                                  return_value=python), \
                contextlib.redirect_stdout(out):
            rows = bench_report.write(
                {FIX: [10.0, 10.1, 9.9], PAIRS: [256.0, 256.0, 256.0]},
                {FIX: [7.0, 7.05, 6.95], PAIRS: [1.0, 1.0, 1.0]},
                {TV_FIX: [50.0, 51.0, 49.0], TV_FIT: [5.0, 5.1, 4.9]},
                {TV_FIX: [40.0, 41.0, 39.0], TV_FIT: [5.0, 5.2, 4.8]},
                {'boots_per_tree': 3}, 'header')
            files = {p.name: p.read_text() for p in
                     (Path(tmp) / 'bench').iterdir()
                     if p.suffix != '.png'}
        return rows, files, out.getvalue()

    def test_everything_kept(self) -> None:
        rows, files, printed = self.write(None)
        self.assertEqual([r.key for r in rows], [FIX])
        doc = json.loads(files['report.json'])
        self.assertEqual(doc['meta']['boots_per_tree'], 3)
        self.assertEqual({r['unit'] for r in doc['rows']}, {'ns', 'pairs'})
        self.assertEqual(len(doc['test_vmalloc']), 2)
        # Header, harness (2), count (1), test_vmalloc (2).
        self.assertEqual(len(files['report.csv'].splitlines()), 5)
        self.assertEqual(sorted(files), ['report.csv', 'report.json',
                                         'report.txt'])
        self.assertIn('| barrier_pairs_per_vmalloc: p=256 (pairs) | 256 | '
                      '1 | -99.61% |', printed)
        self.assertIn('direction: the same in 1 of 1 shared cases; of the '
                      '1 marked (I) or (R) by both, 1 agree', printed)
        self.assertIn(bench_report.NO_MATPLOTLIB, files['report.txt'])

    def test_failing_chart_is_one_line(self) -> None:
        _, files, _ = self.write('/bin/false')
        self.assertIn('chart: bench_chart.py failed', files['report.txt'])


class ChartPythonTest(unittest.TestCase):
    def test_none_found(self) -> None:
        self.assertIsNone(bench_report.chart_python(('/nonexistent/py',
                                                     '/bin/false')))

    def test_first_with_matplotlib(self) -> None:
        # /bin/true "imports" anything.
        self.assertEqual(bench_report.chart_python(('/nonexistent/py',
                                                    '/bin/true')),
                         '/bin/true')


if __name__ == '__main__':
    unittest.main()
