# SPDX-License-Identifier: GPL-2.0
import re
import unittest

import project

README = project.REPO / 'README.md'
LIMIT = 16384


class ReadmeTest(unittest.TestCase):
    """The README is the users' manual: current facts, small enough to
    read; history lives in git log, results in the cover letter."""

    def test_it_stays_under_16_kib(self) -> None:
        size = len(README.read_bytes())
        self.assertLessEqual(size, LIMIT,
                             f'README.md is {size} bytes, the limit is '
                             f'{LIMIT}: move history to git log and results '
                             'to the cover letter')

    def test_it_has_no_dates_and_no_commit_ids(self) -> None:
        text = README.read_text()
        self.assertEqual(re.findall(r'\b20\d\d-\d\d-\d\d\b', text), [])
        self.assertEqual(re.findall(r'\b[0-9a-f]{12,40}\b', text), [])

    def test_its_links_name_its_own_sections(self) -> None:
        text = README.read_text()
        anchors = {re.sub(r'[^a-z0-9 -]', '', h.lower()).replace(' ', '-')
                   for h in re.findall(r'^#+ (.*)$', text, re.M)}
        for link in re.findall(r'\]\(#([^)]+)\)', text):
            self.assertIn(link, anchors)


if __name__ == '__main__':
    unittest.main()
