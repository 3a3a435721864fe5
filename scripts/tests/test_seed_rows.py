# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path

import bench
import seed_rows
from project import SeriesError


def rows(changes: dict) -> list:
    """Harness rows with the given change, exact (icount-like)."""
    base, patched = {}, {}
    for (name, params), change in changes.items():
        key = bench.Key('vmalloc', name, params, 'ns')
        base[key] = [100.0, 100.0]
        patched[key] = [100.0 + change, 100.0 + change]
    return bench.compare(base, patched)


class TableTest(unittest.TestCase):
    def test_the_table_in_the_repository(self) -> None:
        got = seed_rows.load()
        # Seed 000: 29 rows on two machines; seed 001: 19 + 2; 003, 004.
        self.assertEqual(len(got), 29 * 2 + 19 + 2 + 2 + 1)
        m2 = next(r for r in got if r.column == 'Apple M2' and
                  (r.bench, r.params) == ('fix_size_alloc_test', 'p=1 h=0'))
        self.assertEqual((m2.mark, m2.change_pct), ('(R)', 4.0))
        # 001 prints speed-ups: +514.75% faster is 6.1475 times as fast.
        fast = next(r for r in got if r.seed == '001' and
                    r.params == 'p=512 h=1')
        self.assertAlmostEqual(fast.change_pct, -83.73, places=2)

    def test_a_bad_number_names_its_line(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / 't.tsv'
            path.write_text('# c\n000\tM2\tb\tp=1\tfast\t-\tn\n')
            with self.assertRaisesRegex(SeriesError, r't.tsv:2: change'):
                seed_rows.load(path)


class VerdictTest(unittest.TestCase):
    def row(self, name: str, change: float, mark: str = '') -> \
            seed_rows.SeedRow:
        return seed_rows.SeedRow('000', 'M2', name, 'p=1 h=0', change, mark,
                                 'n')

    def test_each_verdict(self) -> None:
        ours = {'icount': rows({('up', 'p=1 h=0'): 6.0,
                                ('down', 'p=1 h=0'): -9.0,
                                ('same', 'p=1 h=0'): 0.0})}
        wanted = [(self.row('up', 4.0, '(R)'), 'reproduced'),
                  (self.row('down', 3.0), 'opposite'),
                  (self.row('same', -1.0), 'not resolved'),
                  (self.row('absent', -1.0), 'not measured'),
                  (self.row('-', -1.0), 'no row of ours')]
        held = seed_rows.compare([r for r, _ in wanted], ours)
        self.assertEqual([h.verdict for h in held], [v for _, v in wanted])
        text = seed_rows.render(held)
        self.assertEqual(text.splitlines()[-1],
                         'seed rows: 1 reproduced, 1 opposite, 1 not '
                         'resolved, 1 not measured, 1 no row of ours')
        self.assertIn('| 000 | M2 | up: p:1, h:0 | (R) +4.00% | (R) +6.00% '
                      '| - | reproduced |', text)

    def test_icount_decides_over_the_host_clock(self) -> None:
        ours = {'icount': rows({('up', 'p=1 h=0'): 6.0}),
                'host': rows({('up', 'p=1 h=0'): -30.0})}
        held = seed_rows.compare([self.row('up', 4.0)], ours)
        self.assertEqual(held[0].verdict, 'reproduced')
        # Without icount, the host clock's row decides.
        held = seed_rows.compare([self.row('up', 4.0)],
                                 {'host': ours['host']})
        self.assertEqual(held[0].verdict, 'opposite')


if __name__ == '__main__':
    unittest.main()
