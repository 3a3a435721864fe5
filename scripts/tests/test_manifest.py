# SPDX-License-Identifier: GPL-2.0
import unittest

import kunit_run
import manifest
import project
import sanitizers
from project import SeriesError


class ParseTest(unittest.TestCase):
    def test_reads_cases(self) -> None:
        m = manifest.parse('# c\ns.a.64K\tfail\tpass\tF3\tlevel hint\n'
                           's.b\tpass\tpass\tF3\t-\n')
        self.assertEqual(m['s.a.64K'].on('base'), 'fail')
        self.assertEqual(m['s.a.64K'].on('patched'), 'pass')
        self.assertEqual(m['s.b'].feature, 'F3')

    def test_lane_columns_take_the_trees_expectation(self) -> None:
        m = manifest.parse('s.a\tfail\tpass\tF5\twhy\n')
        self.assertEqual(m['s.a'].on('base+ptc'), 'fail')
        self.assertEqual(m['s.a'].on('patched+ptc'), 'pass')

    def test_a_lane_may_differ(self) -> None:
        m = manifest.parse('s.a\tfail main=skip\tpass main=skip\tF6\twhy\n')
        self.assertEqual(m['s.a'].on('base'), 'skip')
        self.assertEqual(m['s.a'].on('patched'), 'skip')
        self.assertEqual(m['s.a'].on('base+ptc'), 'fail')
        self.assertEqual(m['s.a'].on('patched+ptc'), 'pass')
        self.assertEqual(m['s.a'].on('patched+sanitizers'), 'pass')

    def test_patched_may_only_pass_or_skip(self) -> None:
        with self.assertRaisesRegex(SeriesError, 'may only pass or skip on '
                                    'patched, the manifest says '
                                    'ptc=fail'):
            manifest.parse('s.a\tfail\tpass ptc=fail\tF3\twhy\n')

    def test_a_case_of_one_lane(self) -> None:
        m = manifest.parse('s.a\tskip 16k=fail\tskip 16k=pass\tF6\twhy\n')
        self.assertEqual(m['s.a'].on('base'), 'skip')
        self.assertEqual(m['s.a'].on('base+16k'), 'fail')
        self.assertEqual(m['s.a'].on('patched+16k'), 'pass')
        self.assertEqual(m['s.a'].on('patched+64k'), 'skip')

    def test_lane_words_are_checked(self) -> None:
        with self.assertRaisesRegex(SeriesError, "'main' is not "
                                    "lane=outcome"):
            manifest.parse('s.a\tfail main\tpass\tF3\twhy\n')
        with self.assertRaisesRegex(SeriesError, "unknown outcome 'crash'"):
            manifest.parse('s.a\tfail main=crash\tpass\tF3\twhy\n')
        with self.assertRaisesRegex(SeriesError, 'lane main given twice'):
            manifest.parse('s.a\tfail main=skip main=pass\tpass\tF3\twhy\n')

    def test_patched_must_pass_somewhere(self) -> None:
        with self.assertRaisesRegex(SeriesError, 'may only pass or skip'):
            manifest.parse('s.a\tpass\tfail\tF3\twhy\n')
        with self.assertRaisesRegex(SeriesError, 'must pass on patched on '
                                    'one lane at least'):
            manifest.parse('s.a\tskip\tskip main=skip\tF3\twhy\n')

    def test_unknown_outcome(self) -> None:
        with self.assertRaisesRegex(SeriesError, "unknown outcome 'crash'"):
            manifest.parse('s.a\tcrash\tpass\tF3\twhy\n')

    def test_wrong_field_count(self) -> None:
        with self.assertRaisesRegex(SeriesError, ':1: want'):
            manifest.parse('s.a\tpass\tpass\n')

    def test_fields_are_tab_separated(self) -> None:
        with self.assertRaisesRegex(SeriesError, r'manifest:2: want '
                                    r'"case<TAB>base<TAB>patched<TAB>'
                                    r'feature<TAB>reason", got 1 field'):
            manifest.parse('s.a\tpass\tpass\tF3\t-\ns.b pass pass F3\n')

    def test_duplicate(self) -> None:
        with self.assertRaisesRegex(SeriesError, 'twice'):
            manifest.parse('s.a\tpass\tpass\tF\t-\ns.a\tpass\tpass\tF\t-\n')

    def test_a_non_pass_needs_its_reason(self) -> None:
        with self.assertRaisesRegex(SeriesError, 'reason column must say'):
            manifest.parse('s.a\tfail\tpass\tF3\t-\n')
        with self.assertRaisesRegex(SeriesError, 'reason column must say'):
            manifest.parse('s.a\tpass 16k=skip\tpass\tF3\t-\n')

    def test_a_case_that_always_passes_has_no_reason(self) -> None:
        with self.assertRaisesRegex(SeriesError, "its reason must be '-'"):
            manifest.parse('s.a\tpass\tpass\tF3\twhy\n')

    def test_the_reason_is_kept(self) -> None:
        m = manifest.parse('s.a\tfail\tpass\tF3\tlevel hint | stride\n'
                           's.b\tpass\tpass\tF3\t-\n')
        self.assertEqual(m['s.a'].reason, 'level hint | stride')
        self.assertEqual(m['s.b'].reason, '')

    def test_empty(self) -> None:
        with self.assertRaisesRegex(SeriesError, 'no case'):
            manifest.parse('# nothing\n')

    def test_the_projects_manifest_parses(self) -> None:
        self.assertTrue(manifest.load(project.MANIFEST))

    def test_the_projects_manifest_names_only_known_lanes(self) -> None:
        # A misspelt lane would silently leave the tree's outcome in force.
        known = {*kunit_run.LANES, sanitizers.LANE}
        self.assertIn(manifest.MAIN_LANE, kunit_run.LANES)
        for case, e in manifest.load(project.MANIFEST).items():
            for _, lane, _ in e.by_lane:
                self.assertIn(lane, known, case)


if __name__ == '__main__':
    unittest.main()
