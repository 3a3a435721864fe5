# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path

import series
from project import SeriesError

TEXT = """# comment
0001-seam.patch
# base ends here
0002-fix.patch

0003-feature.patch
"""


class ParseTest(unittest.TestCase):
    def test_splits_seams_from_changes(self) -> None:
        s = series.parse(TEXT)
        self.assertEqual(s.seams, ['0001-seam.patch'])
        self.assertEqual(s.changes, ['0002-fix.patch', '0003-feature.patch'])
        self.assertEqual(s.all[0], '0001-seam.patch')

    def test_marker_is_required(self) -> None:
        with self.assertRaisesRegex(SeriesError, 'base ends here'):
            series.parse('0001-a.patch\n')

    def test_duplicate_patch_is_rejected(self) -> None:
        with self.assertRaisesRegex(SeriesError, 'twice'):
            series.parse('a.patch\n# base ends here\na.patch\n')


class LoadTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        (self.dir / 'series').write_text(TEXT)
        for name in ('0001-seam.patch', '0002-fix.patch',
                     '0003-feature.patch'):
            (self.dir / name).write_text('')

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_loads_a_consistent_series(self) -> None:
        self.assertEqual(len(series.load(self.dir).all), 3)

    def test_listed_but_missing_patch(self) -> None:
        (self.dir / '0002-fix.patch').unlink()
        with self.assertRaisesRegex(SeriesError, '0002-fix.patch.*not exist'):
            series.load(self.dir)

    def test_unlisted_patch(self) -> None:
        (self.dir / '0004-stray.patch').write_text('')
        with self.assertRaisesRegex(SeriesError, '0004-stray.patch is not'):
            series.load(self.dir)

    def test_the_projects_own_series_is_consistent(self) -> None:
        import project
        s = series.load(project.PATCHES)
        self.assertTrue(s.seams and s.changes)


if __name__ == '__main__':
    unittest.main()
