# SPDX-License-Identifier: GPL-2.0
import unittest

import bench_chart


def row(bench: str, params: str, unit: str, mark: str = '') -> dict:
    return {'bench': bench, 'params': params, 'unit': unit,
            'change_pct': -10.0, 'change_hw_pct': 2.5, 'mark': mark}


class BarsTest(unittest.TestCase):
    def test_timed_rows_only(self) -> None:
        got = bench_chart.bars([row('fix_size_alloc_test', 'p=1 h=0', 'ns',
                                    '(I)'),
                                row('barrier_pairs', 'p=1', 'pairs'),
                                row('pcpu_alloc_test', '', 'us')])
        self.assertEqual(got, [
            bench_chart.Bar('fix_size_alloc_test p:1, h:0', -10.0, 2.5,
                            '(I)'),
            bench_chart.Bar('pcpu_alloc_test', -10.0, 2.5, '')])
        self.assertEqual(bench_chart.color(got[0]), 'tab:green')
        self.assertEqual(bench_chart.color(got[1]), 'tab:gray')

    def test_panels_skip_empty(self) -> None:
        report = {'rows': [row('a', '', 'ns')],
                  'test_vmalloc': [row('b', '', 'entries')]}
        self.assertEqual([t for t, _ in bench_chart.panels(report)],
                         ['in-kernel harness'])

    def test_usage(self) -> None:
        import contextlib
        import io
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(bench_chart.main([]), 2)


if __name__ == '__main__':
    unittest.main()
