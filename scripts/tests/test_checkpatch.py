# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path

import checkpatch

# What checkpatch.pl --quiet --show-types prints for a patch with problems.
OUTPUT = '''\
WARNING:LONG_LINE: line length of 104 exceeds 100 columns
#21: FILE: mm/vmalloc.c:3460:
+\t\tfree_pages_bulk(start, nr); /* a comment that runs on and on and on */

ERROR:CODE_INDENT: code indent should use tabs where possible
#30: FILE: mm/vmalloc.c:3470:

total: 1 errors, 1 warnings, 40 lines checked
'''


class FindingsTest(unittest.TestCase):
    def test_findings_are_the_typed_lines(self) -> None:
        self.assertEqual(checkpatch.findings(OUTPUT), [
            'WARNING:LONG_LINE: line length of 104 exceeds 100 columns',
            'ERROR:CODE_INDENT: code indent should use tabs where possible'])

    def test_only_unknown_commit_ids_are_ignored(self) -> None:
        cmd = checkpatch.command(Path('/t'), Path('/p/0002-x.patch'))
        self.assertIn('--ignore=UNKNOWN_COMMIT_ID', cmd)
        self.assertEqual(cmd[:2], ['perl', '/t/scripts/checkpatch.pl'])


class CheckTest(unittest.TestCase):
    def test_a_stand_in_checkpatch_judges_each_patch(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            tree, patches = Path(tmp) / 'linux', Path(tmp) / 'patches'
            (tree / 'scripts').mkdir(parents=True)
            patches.mkdir()
            # Clean unless the patch says "bad"; dies on "broken".
            (tree / 'scripts' / 'checkpatch.pl').write_text(
                'my $f = $ARGV[-1]; open(my $h, "<", $f) or die;\n'
                'my $t = do { local $/; <$h> };\n'
                'die "cannot parse\\n" if $t =~ /broken/;\n'
                'if ($t =~ /bad/) { print "ERROR:X: bad\\n"; exit 1 }\n')
            for name, text in (('0001-a.patch', 'fine'),
                               ('0002-b.patch', 'bad'),
                               ('0003-c.patch', 'broken')):
                (patches / name).write_text(text)
            got = checkpatch.check(tree, patches, ['0001-a.patch',
                                                   '0002-b.patch',
                                                   '0003-c.patch'])
        self.assertEqual(got, {'0001-a.patch': [],
                               '0002-b.patch': ['ERROR:X: bad'],
                               '0003-c.patch': ['checkpatch.pl failed: '
                                                'cannot parse']})


if __name__ == '__main__':
    unittest.main()
