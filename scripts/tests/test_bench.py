# SPDX-License-Identifier: GPL-2.0
import json
import unittest

import bench

LOG = '''    # vmalloc_bench_test: mm_bench suite=vmalloc bench=fix_size_alloc_test p=1 h=0 loops=500 sample=0 value=1000 unit=ns
    # vmalloc_bench_test: mm_bench suite=vmalloc bench=fix_size_alloc_test p=1 h=0 loops=500 sample=1 value=1010 unit=ns
    # vmalloc_bench_test: mm_bench suite=vmalloc bench=fix_size_alloc_test p=1 h=1 loops=500 sample=0 value=2000 unit=ns
    # x: mm_bench suite=vmalloc bench=pcpu_alloc_test loops=1 sample=0 value=7 unit=ns
        ok 1 fix_size_alloc_test_p1_h0
'''


class ParseTest(unittest.TestCase):
    def test_samples_by_benchmark(self) -> None:
        got = bench.parse(LOG)
        key = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0', 'ns')
        self.assertEqual(got[key], [1000.0, 1010.0])
        self.assertEqual(len(got), 3)
        self.assertEqual(key.label(), 'fix_size_alloc_test: p:1, h:0 (ns)')
        bare = bench.Key('vmalloc', 'pcpu_alloc_test', '', 'ns')
        self.assertEqual(got[bare], [7.0])

    def test_a_boot_is_one_observation(self) -> None:
        key = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0', 'ns')
        self.assertEqual(bench.per_boot(bench.parse(LOG))[key], [1005.0])

    def test_boots_pool(self) -> None:
        pooled = bench.parse(LOG)
        bench.merge(pooled, bench.parse(LOG))
        key = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0', 'ns')
        self.assertEqual(len(pooled[key]), 4)


class TableTest(unittest.TestCase):
    def test_rows_marks_and_shape(self) -> None:
        key = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=256 h=0', 'ns')
        base = {key: [100.0, 101.0, 99.0, 100.0, 102.0]}
        patched = {key: [67.0, 66.0, 68.0, 67.0, 66.5]}
        rows = bench.compare(base, patched)
        self.assertEqual(bench.marks(rows), (1, 0))
        text = bench.render(rows, {'vmalloc': 'micromm/vmalloc'})
        self.assertIn('micromm/vmalloc', text)
        self.assertIn('fix_size_alloc_test: p:256, h:0 (ns)', text)
        self.assertIn('(I) -33.', text)
        self.assertIn('legend', text)

    def test_single_samples_are_not_compared(self) -> None:
        key = bench.Key('vmalloc', 'x', '', 'ns')
        self.assertEqual(bench.compare({key: [1.0]}, {key: [2.0]}), [])


    def test_rows_sort_numbers_as_numbers(self) -> None:
        keys = [bench.Key('vmalloc', 'fix_size_alloc_test', f'p={p} h={h}',
                          'ns') for p in (16, 2, 128) for h in (1, 0)]
        samples = {k: [1.0, 2.0] for k in keys}
        got = [r.key.params for r in bench.compare(samples, samples)]
        self.assertEqual(got, ['p=2 h=0', 'p=2 h=1', 'p=16 h=0', 'p=16 h=1',
                               'p=128 h=0', 'p=128 h=1'])


class OutputTest(unittest.TestCase):
    def test_json_and_csv_carry_every_row(self) -> None:
        key = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0', 'ns')
        rows = bench.compare({key: [10.0, 11.0, 12.0]},
                             {key: [10.0, 10.5, 11.0]})
        doc = bench.to_json(rows, {'profile': 'quick'})
        self.assertEqual(doc['meta'], {'profile': 'quick'})
        self.assertEqual(doc['rows'][0]['params'], 'p=1 h=0')
        csv = bench.to_csv(rows).splitlines()
        self.assertEqual(csv[0], bench.CSV_HEADER)
        self.assertTrue(csv[1].startswith('vmalloc,fix_size_alloc_test,'
                                          'p=1 h=0,ns,3,11.0,'))



class CountsAndAgreementTest(unittest.TestCase):
    def rows(self, base: dict, patched: dict) -> list:
        return bench.compare(base, patched)

    def test_split_and_render_counts(self) -> None:
        t = bench.Key('vmalloc', 'x', '', 'ns')
        c = bench.Key('structural', 'entries', 'size=1024K', 'entries')
        base = {t: [1.0, 1.1], c: [256.0, 256.0]}
        patched = {t: [1.0, 1.2], c: [16.0, 17.0]}
        timed, counts = bench.split_counts(self.rows(base, patched))
        self.assertEqual([r.key for r in timed], [t])
        self.assertEqual([r.key for r in counts], [c])
        self.assertIn('| entries: size=1024K (entries) | 256 | 16..17 | '
                      '-93.55% |',
                      bench.render_counts(counts, base, patched))

    def test_shares_in_percent_and_points(self) -> None:
        share = bench.Key('file_exec', 'folio_share', 'size=64K', 'permille')
        base, patched = {share: [20.0, 20.0]}, {share: [1000.0, 1000.0]}
        _, counts = bench.split_counts(self.rows(base, patched))
        self.assertIn('| folio_share: size=64K (share) | 2% | 100% | '
                      '+98.0 pts |',
                      bench.render_counts(counts, base, patched))

    def test_change_from_zero_is_valid_json(self) -> None:
        share = bench.Key('file_exec', 'folio_share', 'size=64K', 'permille')
        rows = self.rows({share: [0.0, 0.0]}, {share: [1000.0, 1000.0]})
        text = json.dumps(bench.to_json(rows, {}), allow_nan=False)
        self.assertIsNone(json.loads(text)['rows'][0]['change_pct'])

    def test_agreement_by_benchmark_and_params(self) -> None:
        ours = self.rows(
            {bench.Key('vmalloc', 'a', 'p=1', 'ns'): [10.0, 10.1],
             bench.Key('vmalloc', 'b', 'p=1', 'ns'): [10.0, 10.1]},
            {bench.Key('vmalloc', 'a', 'p=1', 'ns'): [5.0, 5.1],
             bench.Key('vmalloc', 'b', 'p=1', 'ns'): [11.0, 11.1]})
        ref = self.rows(
            {bench.Key('test_vmalloc', 'a', 'p=1', 'us'): [8.0, 8.1],
             bench.Key('test_vmalloc', 'b', 'p=1', 'us'): [8.0, 8.1],
             bench.Key('test_vmalloc', 'c', 'p=1', 'us'): [8.0, 8.1]},
            {bench.Key('test_vmalloc', 'a', 'p=1', 'us'): [4.0, 4.1],
             bench.Key('test_vmalloc', 'b', 'p=1', 'us'): [7.0, 7.1],
             bench.Key('test_vmalloc', 'c', 'p=1', 'us'): [7.0, 7.1]})
        got = bench.agreement(ours, ref)
        self.assertEqual([(a.label, a.same_direction) for a in got],
                         [('a: p:1', True), ('b: p:1', False)])
        text = bench.render_agreement(got)
        # With two observations the intervals of b overlap: no marks.
        self.assertIn('| b: p:1 | +9.95% | -12.42% | opposite |', text)
        self.assertIn('the same in 1 of 2 shared cases; of the 1 marked',
                      text)


class SpreadLineTest(unittest.TestCase):
    def test_the_widest_interval_of_either_tree(self) -> None:
        a = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0', 'ns')
        b = bench.Key('vmalloc', 'vm_map_ram_test', 'p=1 h=0', 'ns')
        rows = bench.compare({a: [100.0, 100.0, 100.0],
                              b: [100.0, 100.0, 100.0]},
                             {a: [101.0, 101.0, 101.0],
                              b: [90.0, 100.0, 110.0]})
        self.assertEqual(bench.spread_line('icount', rows),
                         'icount: max half-width 24.84% over 2 cases '
                         '(vm_map_ram_test: p:1, h:0 (ns))')
        self.assertEqual(bench.spread_line('icount', []),
                         'icount: no timed case')


class ClocksTest(unittest.TestCase):
    A = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0', 'ns')
    B = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=16 h=0', 'ns')

    def test_both_clocks_side_by_side_marked_by_icount(self) -> None:
        # The host clock: wide and, for A, the other way; icount exact.
        host = bench.compare({self.A: [100.0, 140.0, 90.0],
                              self.B: [100.0, 90.0, 110.0]},
                             {self.A: [95.0, 130.0, 85.0],
                              self.B: [70.0, 60.0, 80.0]})
        icount = bench.compare({self.A: [1000.0, 1000.0, 1000.0],
                                self.B: [5000.0, 5000.0, 5000.0]},
                               {self.A: [1061.0, 1061.0, 1061.0],
                                self.B: [3000.0, 3000.0, 3000.0]})
        lines = bench.render_clocks(host, icount).splitlines()
        self.assertEqual(lines[0], '| Benchmark | time, host clock | '
                                   'instructions, icount | mark |')
        a = next(line for line in lines if 'p:1,' in line)
        # p:1 before p:16; the host clock's change unmarked, icount's (R).
        self.assertLess(lines.index(a),
                        lines.index(next(x for x in lines if 'p:16' in x)))
        self.assertIn('| -6.06% +-51.95 (p 0.761) |', a)
        self.assertTrue(a.endswith('| (R) +6.10% +-0.00 (p 0.000) | (R) |'),
                        a)
        self.assertEqual(lines[-1], 'both clocks: 2 cases; icount marks 1 '
                                    '(I), 1 (R); the host clock moves the '
                                    'same way in 1 of 2')

    def test_a_case_one_clock_did_not_run(self) -> None:
        icount = bench.compare({self.A: [1.0, 1.0]}, {self.A: [2.0, 2.0]})
        line = bench.render_clocks([], icount).splitlines()[2]
        self.assertTrue(line.startswith('| fix_size_alloc_test: p:1, h:0 '
                                        '(ns) | not run | (R) +100.00%'),
                        line)


if __name__ == '__main__':
    unittest.main()
