# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path

import manifest
import project
import sanitizers
from project import SeriesError

LOG = '''[   40.1] ==================================================================
[   40.1] BUG: KASAN: slab-use-after-free in vfree+0x1c/0x200
[   41.0] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
[   42.0] WARNING: possible circular locking dependency detected
    # free_pages_after_test: free pages before 1900000, after 1899000, lost 1000, 400 outside slab (tolerance 4096)
    ok 1 free_pages_after_test
'''

CHECKS_PASS = {c: 'pass' for c in sanitizers.CHECK_CASES}


class ReportsTest(unittest.TestCase):
    def test_each_checker_found(self) -> None:
        got = sanitizers.reports(LOG)
        self.assertEqual(len(got), 3)
        self.assertTrue(got[0].endswith('BUG: KASAN: slab-use-after-free in '
                                        'vfree+0x1c/0x200'))
        self.assertEqual(sanitizers.reports('ok 1 a\nWARNING: CPU: 0\n'),
                         [])

    def test_free_pages_line(self) -> None:
        self.assertEqual(sanitizers.free_pages_line(LOG),
                         'free pages before 1900000, after 1899000, lost '
                         '1000, 400 outside slab (tolerance 4096)')
        self.assertEqual(sanitizers.free_pages_line(''),
                         'free pages: not reported')


class ProblemsTest(unittest.TestCase):
    def test_clean(self) -> None:
        self.assertEqual(sanitizers.problems(
            dict(CHECKS_PASS, **{'s.a': 'pass'}), 'ok 1 a\n',
            {'s.a': 'pass'}, {}), [])

    def test_everything_that_counts(self) -> None:
        outcomes = dict(CHECKS_PASS, **{'s.a': 'fail', 's.b': 'fail'})
        outcomes[sanitizers.CHECK_CASES[1]] = 'fail'
        got = sanitizers.problems(outcomes, LOG,
                                  {'s.a': 'pass', 's.b': 'pass',
                                   's.c': 'pass'}, {'s.b': 'fail'})
        self.assertEqual(len([p for p in got if p.startswith('report:')]),
                         3)
        self.assertIn('mm_series_free_pages_last.free_pages_after_test: '
                      'fail', got)
        self.assertIn('s.a: expected pass, got fail', got)
        self.assertIn('s.c: expected pass, got missing', got)
        self.assertFalse([p for p in got if p.startswith('s.b')])


class DeviationsTest(unittest.TestCase):
    def test_format(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / 'd.tsv'
            path.write_text('# c\ns.a\tfail\tDEBUG_PAGEALLOC adds pairs\n')
            self.assertEqual(sanitizers.load_deviations(path),
                             {'s.a': 'fail'})
            path.write_text('s.a\tfail\n')
            with self.assertRaisesRegex(
                    SeriesError, 'd.tsv:1: want "case<TAB>outcome<TAB>why"'):
                sanitizers.load_deviations(path)
        self.assertEqual(sanitizers.load_deviations(Path('/nonexistent')),
                         {})

    def test_the_lane_file_names_manifest_cases(self) -> None:
        """A deviation of a case that no longer exists would hide nothing
        and mislead; one that repeats the manifest is noise."""
        cases = manifest.load(project.MANIFEST)
        deviations = sanitizers.load_deviations()
        self.assertTrue(deviations)
        for case, outcome in deviations.items():
            self.assertIn(case, cases)
            self.assertIn(outcome, ('pass', 'fail', 'skip'))
            self.assertNotEqual(outcome, cases[case].patched, case)


if __name__ == '__main__':
    unittest.main()
