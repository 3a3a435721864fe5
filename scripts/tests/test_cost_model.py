# SPDX-License-Identifier: GPL-2.0
import unittest
from typing import Dict, List, Tuple

import bench
import cost_model
import seed_rows
import tcg_counts

# A machine whose barrier costs 30 instructions and TLBI 200.
TRUE_COSTS = (30.0, 200.0)
# Per row: base and patched (instructions, DSB, ISB, TLBI) per operation,
# varied enough that barriers and TLBIs can be told apart.
ROWS: Dict[str, Tuple[Tuple[int, int, int, int], Tuple[int, int, int, int]]] = {
    'p=1 h=0': ((3000, 4, 2, 2), (3100, 2, 1, 1)),
    'p=2 h=0': ((4000, 8, 4, 3), (4050, 2, 1, 1)),
    'p=4 h=0': ((6000, 16, 8, 5), (5900, 2, 1, 3)),
    'p=8 h=0': ((10000, 32, 16, 9), (9800, 2, 1, 2)),
    'p=16 h=0': ((18000, 64, 32, 17), (17000, 2, 1, 9)),
    'p=32 h=0': ((34000, 128, 64, 33), (33000, 2, 1, 1)),
}


def counts(which: int) -> tcg_counts.Counts:
    out: tcg_counts.Counts = {}
    for params, trees in ROWS.items():
        insns, dsb, isb, tlbi = trees[which]
        out[bench.Key('vmalloc', 'fix_size_alloc_test', params, 'ns')] = {
            'insns': [insns + 50.0], 'own_insns': [float(insns)],
            'dsb': [float(dsb)], 'isb': [float(isb)], 'tlbi': [float(tlbi)]}
    return out


def time_of(c: Tuple[int, int, int, int]) -> float:
    insns, dsb, isb, tlbi = c
    return insns + TRUE_COSTS[0] * (dsb + isb) + TRUE_COSTS[1] * tlbi


def seed_table(noise: Dict[str, float] = {}) -> List[seed_rows.SeedRow]:
    out = []
    for params, (b, p) in ROWS.items():
        change = 100.0 * (time_of(p) / time_of(b) - 1.0) + \
            noise.get(params, 0.0)
        out.append(seed_rows.SeedRow('000', 'M2', 'fix_size_alloc_test',
                                     params, change, '', 'n'))
    # Rows the fit must leave alone: another seed, a row we lack, one we
    # did not count.
    out.append(seed_rows.SeedRow('001', 'M2', 'fix_size_alloc_test',
                                 'p=1 h=0', 50.0, '', 'n'))
    out.append(seed_rows.SeedRow('000', 'M2', '-', '', 3.0, '', 'n'))
    out.append(seed_rows.SeedRow('000', 'M2', 'pcpu_alloc_test',
                                 'p=1 h=0', 0.1, '', 'n'))
    return out


class FitTest(unittest.TestCase):
    def test_costs_of_an_exact_machine_are_recovered(self) -> None:
        [(machine, fit, n)] = cost_model.fits(seed_table(), counts(0),
                                              counts(1))
        self.assertEqual((machine, n), ('M2', len(ROWS)))
        assert fit is not None
        self.assertAlmostEqual(fit.costs[0], TRUE_COSTS[0], places=6)
        self.assertAlmostEqual(fit.costs[1], TRUE_COSTS[1], places=6)
        for h in fit.held:
            self.assertAlmostEqual(h.held_out or 0.0, h.row.change,
                                   places=9)
        self.assertLess(fit.rms_points('model'), 1e-6)
        # Instructions alone miss what the barriers and TLBIs cost.
        self.assertGreater(fit.rms_points('insns'), 1.0)

    def test_a_row_off_the_model_is_held_out_and_named(self) -> None:
        [(_, fit, _)] = cost_model.fits(seed_table({'p=16 h=0': 12.0}),
                                        counts(0), counts(1))
        assert fit is not None
        errors = {h.row.params: h.error_points for h in fit.held}
        self.assertGreater(abs(errors['p=16 h=0'] or 0.0), 5.0)
        text = cost_model.render([('M2', fit, len(fit.held))])
        self.assertIn('| fix_size_alloc_test: p:16, h:0 | ', text)
        self.assertIn('not predicted: not explained by these counts', text)
        self.assertRegex(text, r'M2: \d of 6 rows predicted within 5 '
                               r'points held out')
        low, high = fit.intervals[0]
        self.assertLessEqual(low, high)

    def test_rows_that_cannot_tell_the_costs_apart(self) -> None:
        # Barriers and TLBIs in one ratio in every row: one cost, not two.
        same = cost_model.Observation('x', 'p=1', 0.1, (100, 2, 1),
                                      (90, 4, 2))
        self.assertIsNone(cost_model.solve([same, same, same]))
        text = cost_model.render([('Altra', None, 2)])
        self.assertIn('Altra: 2 counted row(s), too few or too alike', text)

    def test_the_fit_repeats(self) -> None:
        args = (seed_table({'p=4 h=0': 1.0}), counts(0), counts(1))
        self.assertEqual(cost_model.render(cost_model.fits(*args)),
                         cost_model.render(cost_model.fits(*args)))

    def test_what_a_missed_row_lacks(self) -> None:
        def row(params: str) -> cost_model.Observation:
            return cost_model.Observation('x', params, 0.0, (1, 0, 0),
                                          (1, 0, 0))
        self.assertIn('contiguous', cost_model.why_missed(row('p=32 h=1')))
        self.assertIn('bandwidth', cost_model.why_missed(row('p=128 h=0')))
        self.assertIn('not explained', cost_model.why_missed(row('p=2 h=1')))


if __name__ == '__main__':
    unittest.main()
