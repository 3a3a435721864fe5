# SPDX-License-Identifier: GPL-2.0
import unittest

import reasons
from tests.helpers import DATA

# A KTAP run shaped like kunit.py's: a parameterised case with two failure
# blocks (one with a message, one without), a skip, a plain failing case
# and a plain passing one.
LOG = '''KTAP version 1
1..1
    KTAP version 1
    # Subtest: suite
    1..3
        KTAP version 1
        # Subtest: param_test
    # param_test: contpmd: 32768K
    # param_test: EXPECTATION FAILED at mm/series-kunit/a_test.c:87
    Expected event->stride == p->stride, but
        event->stride == 4096 (0x1000)
        p->stride == 2097152 (0x200000)
stride for contpmd
    # param_test: EXPECTATION FAILED at mm/series-kunit/a_test.c:89
    Expected event->last_level to be true, but is false
        not ok 1 contpmd
        ok 2 pud # SKIP pud: needs a 65536M hugetlb size, which 16K pages do not have
    # param_test: pass:0 fail:1 skip:1 total:2
    not ok 1 param_test
    # plain_test: ASSERTION FAILED at mm/series-kunit/a_test.c:12
    Expected rec->nr_events == 1, but
        rec->nr_events == 0 (0x0)
    not ok 2 plain_test
    ok 3 passing_test
not ok 1 suite
'''


class ReportsTest(unittest.TestCase):
    def test_each_block_goes_to_its_case(self) -> None:
        got = reasons.reports_by_case(LOG)
        self.assertEqual(sorted(got), ['suite.param_test.contpmd',
                                       'suite.param_test.pud',
                                       'suite.plain_test'])
        contpmd = got['suite.param_test.contpmd']
        self.assertEqual(len(contpmd), 2)
        self.assertTrue(contpmd[0].endswith('stride for contpmd'))
        self.assertIn('last_level to be true', contpmd[1])
        self.assertEqual(got['suite.param_test.pud'],
                         ['pud: needs a 65536M hugetlb size, which 16K '
                          'pages do not have'])
        self.assertIn('rec->nr_events == 1', got['suite.plain_test'][0])

    def test_a_diagnostic_line_ends_a_block(self) -> None:
        got = reasons.reports_by_case(LOG)
        self.assertNotIn('pass:0', got['suite.param_test.contpmd'][1])

    def test_recorded_base_log(self) -> None:
        log = (DATA / 'test-log-base-warn.log').read_text()
        got = reasons.reports_by_case(log)
        contpte = got['arm64_hugetlb_flush.flush_hugetlb_tlb_range_test.'
                      '64K_contpte']
        self.assertEqual(len(contpte), 1)
        self.assertIn('tlb_level', contpte[0])


class JudgeTest(unittest.TestCase):
    REPORTS = reasons.reports_by_case(LOG)

    def test_every_report_must_carry_an_alternative(self) -> None:
        texts = self.REPORTS['suite.param_test.contpmd']
        self.assertTrue(reasons.matches(texts, 'stride for | last_level'))
        self.assertFalse(reasons.matches(texts, 'stride for'))
        self.assertFalse(reasons.matches([], 'stride for'))

    def test_the_right_reason_keeps_the_outcome(self) -> None:
        outcomes = {'suite.plain_test': 'fail',
                    'suite.param_test.pud': 'skip',
                    'suite.passing_test': 'pass'}
        got = reasons.judge(outcomes, self.REPORTS,
                            {'suite.plain_test': 'rec->nr_events ==',
                             'suite.param_test.pud': 'pages do not have',
                             'suite.passing_test': ''})
        self.assertEqual(got, outcomes)

    def test_another_reason_is_an_outcome_of_its_own(self) -> None:
        got = reasons.judge({'suite.plain_test': 'fail',
                             'suite.param_test.pud': 'skip'},
                            self.REPORTS,
                            {'suite.plain_test': 'level hint',
                             'suite.param_test.pud': 'needs CONFIG_'})
        self.assertEqual(got, {'suite.plain_test': 'fail:other',
                               'suite.param_test.pud': 'skip:other'})

    def test_a_case_without_a_reason_keeps_its_outcome(self) -> None:
        got = reasons.judge({'suite.plain_test': 'fail'}, self.REPORTS, {})
        self.assertEqual(got, {'suite.plain_test': 'fail'})

    def test_a_failure_without_a_report_is_another_reason(self) -> None:
        got = reasons.judge({'suite.gone': 'fail'}, self.REPORTS,
                            {'suite.gone': 'stride'})
        self.assertEqual(got, {'suite.gone': 'fail:other'})

    def test_first_line_prefers_the_message(self) -> None:
        self.assertEqual(reasons.first_line(
            self.REPORTS['suite.param_test.contpmd']), 'stride for contpmd')
        self.assertEqual(reasons.first_line([]), '(no report)')
        self.assertEqual(reasons.first_line(
            self.REPORTS['suite.plain_test']),
            'Expected rec->nr_events == 1, but')


if __name__ == '__main__':
    unittest.main()
