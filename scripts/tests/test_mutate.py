# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path

import mutate
import project

BEFORE = '''static int f(int a, int b)
{
	return a + b;
}
'''
# What a patch makes of it: two lines added, one kept.
AFTER = '''static int f(int a, int b)
{
	if (a < b)
		return b;
	return a + b;
}
'''
PATCH = '''---
diff --git a/mm/f.c b/mm/f.c
--- a/mm/f.c
+++ b/mm/f.c
@@ -1,4 +1,6 @@
 static int f(int a, int b)
 {
+	if (a < b)
+		return b;
 	return a + b;
 }
diff --git a/Documentation/f.rst b/Documentation/f.rst
--- a/Documentation/f.rst
+++ b/Documentation/f.rst
@@ -1 +1,2 @@
 f
+if (a < b) is prose
'''


class AddedLinesTest(unittest.TestCase):
    def test_only_the_lines_the_patch_wrote_get_mutants(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            project.git(repo, 'init', '-q', '-b', 'main')
            (repo / 'mm').mkdir()
            (repo / 'mm' / 'f.c').write_text(BEFORE)
            project.git(repo, 'add', '-A')
            project.git(repo, 'commit', '-q', '-m', 'base')
            (repo / 'mm' / 'f.c').write_text(AFTER)
            project.git(repo, 'commit', '-q', '-am', 'the patch')
            commit = project.git(repo, 'rev-parse', 'HEAD').stdout.strip()

            self.assertEqual(mutate.touched_sources(PATCH), ['mm/f.c'])
            self.assertEqual(mutate.added_lines(repo, 'HEAD', commit,
                                                ['mm/f.c']),
                             {'mm/f.c': [3, 4]})
            lines, found = mutate.generate(repo, 'HEAD', commit, PATCH)
            self.assertEqual(lines, 2)
            self.assertEqual({m.line for m in found}, {3, 4})
            self.assertIn('\tif (a <= b)', {m.mutated for m in found})
            self.assertIn('\t\treturn 0;', {m.mutated for m in found})


class TargetsTest(unittest.TestCase):
    def test_every_change_of_the_series_has_a_lane_and_suites(self) -> None:
        import manifest
        import series
        targets = mutate.load_targets()
        changes = [p.split('-', 1)[0]
                   for p in series.load(project.PATCHES).changes]
        self.assertEqual(sorted(targets), sorted(changes))
        suites = {case.split('.', 1)[0]
                  for case in manifest.load(project.MANIFEST)}
        for target in targets.values():
            self.assertTrue(target.suites, target.patch)
            for suite in target.suites:
                self.assertIn(suite, suites, target.patch)


class BlameTest(unittest.TestCase):
    def test_porcelain_headers_give_each_lines_commit(self) -> None:
        a, b = 'a' * 40, 'b' * 40
        porcelain = (f'{a} 1 1 2\nauthor x\n\tline one\n{a} 2 2\n\tline two\n'
                     f'{b} 1 3 1\nauthor y\n\tline three\n')
        self.assertEqual(mutate.blame_commits(porcelain),
                         {1: a, 2: a, 3: b})


if __name__ == '__main__':
    unittest.main()
