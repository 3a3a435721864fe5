# SPDX-License-Identifier: GPL-2.0
import unittest

import verify
from manifest import Expectation

TREES = ('base', 'patched')
EXPECTED = {
    's.c.64K': Expectation('fail', 'pass', 'F3'),
    's.c.2M': Expectation('pass', 'pass', 'F3'),
}


class CompareTest(unittest.TestCase):
    def test_all_as_expected(self) -> None:
        actual = {'base': {'s.c.64K': 'fail', 's.c.2M': 'pass'},
                  'patched': {'s.c.64K': 'pass', 's.c.2M': 'pass'}}
        rows = verify.compare(EXPECTED, actual, TREES)
        self.assertEqual(verify.counts(rows), (4, 0))
        text = verify.render(rows, TREES)
        self.assertTrue(text.endswith('4 cells as expected, 0 differ'))
        self.assertIn('base: 2 cells, 0 differ (fail 1, pass 1)\n'
                      'patched: 2 cells, 0 differ (pass 2)\n', text)

    def test_a_fix_that_passes_on_base_differs(self) -> None:
        # A test that cannot fail without the fix is a defect: the matrix
        # must flag it.
        actual = {'base': {'s.c.64K': 'pass', 's.c.2M': 'pass'},
                  'patched': {'s.c.64K': 'pass', 's.c.2M': 'pass'}}
        rows = verify.compare(EXPECTED, actual, TREES)
        self.assertEqual(verify.counts(rows), (3, 1))
        self.assertIn('fail/pass DIFFERS', verify.render(rows, TREES))

    def test_missing_and_unlisted_cases_differ(self) -> None:
        actual = {'base': {'s.c.64K': 'fail', 's.new': 'pass'},
                  'patched': {'s.c.64K': 'pass', 's.c.2M': 'crash'}}
        rows = {r.case: r for r in verify.compare(EXPECTED, actual, TREES)}
        self.assertEqual(rows['s.c.2M'].cells['base'].actual, 'missing')
        self.assertFalse(rows['s.c.2M'].cells['patched'].ok)
        self.assertEqual(rows['s.new'].cells['base'].expected,
                         verify.UNLISTED)
        self.assertFalse(rows['s.new'].cells['base'].ok)

    def test_a_column_has_cells_only_for_the_cases_its_lane_runs(self) -> None:
        # A lane that boots one suite (numa): no "missing" for the rest.
        columns = ('patched', 'patched+numa')
        actual = {'patched': {'s.c.64K': 'pass', 's.c.2M': 'pass'},
                  'patched+numa': {'s.c.64K': 'pass'}}
        rows = verify.compare(EXPECTED, actual, columns,
                              lambda col, case: col == 'patched' or
                              case == 's.c.64K')
        self.assertEqual(verify.counts(rows), (3, 0))
        by_case = {r.case: r for r in rows}
        self.assertNotIn('patched+numa', by_case['s.c.2M'].cells)
        self.assertIn('pass/pass ok', verify.render(rows, columns))


if __name__ == '__main__':
    unittest.main()
