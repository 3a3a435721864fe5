# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path

import tsv
from project import SeriesError


class ParseTest(unittest.TestCase):
    def test_rows_with_their_place(self) -> None:
        rows = tsv.parse('# a\tb\n\na 1\tb # not a comment\n', ('a', 'b'),
                         't.tsv')
        self.assertEqual(rows, [('t.tsv:3', ['a 1', 'b # not a comment'])])

    def test_wrong_shape_names_file_line_and_columns(self) -> None:
        for text in ('x\ty\tz\n', 'x y\n', 'x\t \n'):
            with self.subTest(text=text), self.assertRaisesRegex(
                    SeriesError, r'^t.tsv:1: want "a<TAB>b", got \d'):
                tsv.parse(text, ('a', 'b'), 't.tsv')

    def test_missing_file(self) -> None:
        with tempfile.TemporaryDirectory() as tmp, \
                self.assertRaisesRegex(SeriesError, 'is missing'):
            tsv.read(Path(tmp) / 'none.tsv', ('a',))


if __name__ == '__main__':
    unittest.main()
