# SPDX-License-Identifier: GPL-2.0
import unittest

import results
from tests.helpers import DATA


class FlattenTest(unittest.TestCase):
    def test_recorded_kunit_json(self) -> None:
        # Recorded from kunit.py on an early patched tree whose
        # change-protection case still expected last_level false.
        got = results.load(DATA / 'kunit-results-patched-early.json')
        prefix = 'arm64_hugetlb_flush.'
        self.assertEqual(len(got), 8)
        self.assertEqual(got[prefix + 'flush_hugetlb_tlb_range_test.'
                             '64K_contpte'], 'pass')
        self.assertEqual(got[prefix + 'hugetlb_change_protection_flush_test.'
                             '1G_pud'], 'fail')

    def test_statuses_and_plain_cases(self) -> None:
        report = {'sub_groups': [{
            'name': 's', 'sub_groups': [],
            'test_cases': [{'name': 'a', 'status': 'PASS'},
                           {'name': 'b', 'status': 'SKIP'},
                           {'name': 'c', 'status': 'ERROR'},
                           {'name': 'd', 'status': 'FAIL'}]}]}
        self.assertEqual(results.flatten(report),
                         {'s.a': 'pass', 's.b': 'skip', 's.c': 'crash',
                          's.d': 'fail'})


if __name__ == '__main__':
    unittest.main()
