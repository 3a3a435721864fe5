# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path

import kernel_log
from project import SeriesError
from tests.helpers import DATA

# A KTAP run shaped like kunit.py's, with a WARN in a parameterised case,
# one in a plain case and a BUG after the last result.
LOG = '''KTAP version 1
1..1
    KTAP version 1
    # Subtest: suite
    1..2
        KTAP version 1
        # Subtest: param_test
------------[ cut here ]------------
WARNING: CPU: 1 PID: 9 at mm/vmalloc.c:420 vunmap_pmd_range+0x1/0x2
---[ end trace 0000000000000000 ]---
        ok 1 first
        ok 2 second
    ok 1 param_test
WARNING: CPU: 0 PID: 9 at mm/vmalloc.c:400 vunmap_pte_range+0x1/0x2
    ok 2 plain_test
ok 1 suite
BUG: sleeping function called from invalid context at mm/x.c:1
'''


class SplatsTest(unittest.TestCase):
    def test_each_splat_goes_to_the_next_result(self) -> None:
        got = kernel_log.splats_by_case(LOG)
        self.assertEqual(sorted(got), [kernel_log.AFTER_SUITES,
                                       'suite.param_test.first',
                                       'suite.plain_test'])
        self.assertIn('vunmap_pmd_range', got['suite.param_test.first'][0])
        self.assertTrue(got[kernel_log.AFTER_SUITES][0].startswith('BUG:'))

    def test_a_slab_corruption_report_is_a_splat(self) -> None:
        log = ('        # Subtest: s\n'
               '=============================================================\n'
               'BUG kmalloc-128 (Not tainted): Right Redzone overwritten\n'
               '        ok 1 t\n')
        self.assertEqual(kernel_log.splats_by_case(log),
                         {'s.t': ['BUG kmalloc-128 (Not tainted): Right '
                                  'Redzone overwritten']})
        self.assertEqual(kernel_log.splats_by_case(
            'BUG flags: the word in prose\n    ok 1 t\n'), {})

    def test_recorded_base_log(self) -> None:
        # Recorded on the base tree: huge_ptep_get() WARNs where 6.12
        # sizes a 64K entry from its page.
        log = (DATA / 'test-log-base-warn.log').read_text()
        got = kernel_log.splats_by_case(log)
        self.assertEqual(len(got), 2)
        for case, lines in got.items():
            self.assertTrue(case.startswith(
                'arm64_hugetlb_entries.huge_ptep_get_size_from_table_test.'))
            self.assertIn('huge_ptep_get', lines[0])


class ApplyTest(unittest.TestCase):
    OUTCOMES = {'suite.param_test.first': 'pass',
                'suite.param_test.second': 'pass',
                'suite.plain_test': 'pass'}

    def test_expected_warns_keep_a_pass(self) -> None:
        got, notes = kernel_log.apply(
            self.OUTCOMES, LOG.replace('BUG: sleeping', 'note: sleeping'),
            {'suite.param_test.first', 'suite.plain_test'})
        self.assertEqual(got, self.OUTCOMES)
        self.assertEqual(notes, [])

    def test_unexpected_warn_fails_the_case(self) -> None:
        got, notes = kernel_log.apply(self.OUTCOMES, LOG,
                                      {'suite.param_test.first'})
        self.assertEqual(got['suite.plain_test'], 'fail')
        self.assertEqual(got['suite.param_test.first'], 'pass')
        # The BUG after the suites becomes a row no manifest lists.
        self.assertEqual(got[kernel_log.AFTER_SUITES], 'fail')
        self.assertEqual(len(notes), 2)

    def test_missing_expected_warn_fails_the_case(self) -> None:
        got, notes = kernel_log.apply(self.OUTCOMES, '',
                                      {'suite.param_test.second'})
        self.assertEqual(got['suite.param_test.second'], 'fail')
        self.assertIn('no WARN', notes[0])

    def test_a_bug_is_never_expected(self) -> None:
        log = LOG.replace('WARNING: CPU: 0 PID: 9 at', 'kernel BUG at')
        got, _ = kernel_log.apply(self.OUTCOMES, log, {'suite.plain_test'})
        self.assertEqual(got['suite.plain_test'], 'fail')

    def test_failures_stay_failures(self) -> None:
        got, _ = kernel_log.apply({'suite.plain_test': 'fail'}, LOG, set())
        self.assertEqual(got['suite.plain_test'], 'fail')


class LoadExpectedTest(unittest.TestCase):
    def test_the_project_file_parses(self) -> None:
        import project
        self.assertTrue(kernel_log.load_expected(project.WARNINGS))

    def test_bad_lines_are_errors(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / 'warnings.tsv'
            path.write_text('suite.case\n')
            with self.assertRaisesRegex(SeriesError, ':1: want'):
                kernel_log.load_expected(path)
            with self.assertRaisesRegex(SeriesError, 'missing'):
                kernel_log.load_expected(Path(tmp) / 'absent.tsv')


if __name__ == '__main__':
    unittest.main()
