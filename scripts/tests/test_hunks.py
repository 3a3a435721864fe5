# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path
from typing import List, Tuple

import hunks
import project

# Two hunks in one file and one in another, as git format-patch writes them.
PATCH = '''From 0 Mon Sep 17 00:00:00 2001
Subject: [PATCH] x

---
diff --git a/mm/vmalloc.c b/mm/vmalloc.c
--- a/mm/vmalloc.c
+++ b/mm/vmalloc.c
@@ -100,7 +100,9 @@ static int vmap_pte_range(pmd_t *pmd,
 	if (!pte)
 		return -ENOMEM;
 
+	arch_enter_lazy_mmu_mode();
+
 	do {
 		if (x)
 			y();
@@ -130,6 +132,7 @@ static int vmap_pte_range(pmd_t *pmd,
 	} while (0);
 
+	arch_leave_lazy_mmu_mode();
 	*mask |= PGTBL_PTE_MODIFIED;
 	return 0;
 }
diff --git a/include/linux/vmalloc.h b/include/linux/vmalloc.h
--- a/include/linux/vmalloc.h
+++ b/include/linux/vmalloc.h
@@ -3 +3,2 @@
 #include <linux/sched.h>
+#include <linux/mmzone.h>
-- 
2.39.5
'''

# A mutant of the patched tree: removes the leave (line 134 there).
MUTANT = '''F12: no leave.

diff --git a/mm/vmalloc.c b/mm/vmalloc.c
--- a/mm/vmalloc.c
+++ b/mm/vmalloc.c
@@ -132,7 +132,6 @@ static int vmap_pte_range(pmd_t *pmd,
 	} while (0);
 
-	arch_leave_lazy_mmu_mode();
 	*mask |= PGTBL_PTE_MODIFIED;
 	return 0;
 }
'''

# A mutant that only adds a line, after line 101 of the patched tree.
ADDING = '''x: return early.

--- a/mm/vmalloc.c
+++ b/mm/vmalloc.c
@@ -100,2 +100,3 @@ static int vmap_pte_range(pmd_t *pmd,
 	if (!pte)
+		return 0;
 		return -ENOMEM;
'''


def fake_read(file: str) -> List[str]:
    """mm/vmalloc.c of the patched tree: the lines the mutants name, at
    the numbers their @@ lines give, and filler elsewhere."""
    lines = [f'filler {n}' for n in range(1, 200)]
    lines[99:101] = ['\tif (!pte)', '\t\treturn -ENOMEM;']
    lines[131:137] = ['\t} while (0);', '', '\tarch_leave_lazy_mmu_mode();',
                      '\t*mask |= PGTBL_PTE_MODIFIED;', '\treturn 0;', '}']
    return lines


def fake_blame(file: str, line: int) -> Tuple[str, int]:
    """The patched tree's line -> (commit, line in it): line 134 of
    mm/vmalloc.c is the patch's line 134; everything else is older."""
    if file == 'mm/vmalloc.c' and line == 134:
        return 'c18', 134
    return 'pristine', line


class ParseTest(unittest.TestCase):
    def test_hunks_and_their_post_image(self) -> None:
        got = hunks.parse_patch('0018', PATCH)
        self.assertEqual([h.label() for h in got],
                         ['0018 mm/vmalloc.c#1 (static int vmap_pte_range('
                          'pmd_t *pmd,)',
                          '0018 mm/vmalloc.c#2 (static int vmap_pte_range('
                          'pmd_t *pmd,)',
                          '0018 include/linux/vmalloc.h#1'])
        self.assertEqual((got[0].start, got[0].end), (100, 109))
        self.assertEqual((got[1].start, got[1].end), (132, 139))
        self.assertEqual((got[2].start, got[2].end), (3, 5))

    def test_removed_lines(self) -> None:
        self.assertEqual(hunks.removed_lines(MUTANT, fake_read),
                         [('mm/vmalloc.c', 134)])
        self.assertEqual(hunks.removed_lines(ADDING, fake_read),
                         [('mm/vmalloc.c', 100)])

    def test_a_hunk_at_an_offset(self) -> None:
        # The tree moved on by three lines since the mutant was written.
        def moved(file: str) -> List[str]:
            return ['new'] * 3 + fake_read(file)
        self.assertEqual(hunks.removed_lines(MUTANT, moved),
                         [('mm/vmalloc.c', 137)])

    def test_a_hunk_not_in_the_tree(self) -> None:
        with self.assertRaisesRegex(project.SeriesError, 'not in the tree'):
            hunks.removed_lines(MUTANT, lambda f: ['x'])


class CoverageTest(unittest.TestCase):
    HUNKS = hunks.parse_patch('0018', PATCH)

    def pinned(self):
        return hunks.pinning(self.HUNKS, {'f12-no-leave': MUTANT,
                                          'x-early': ADDING},
                             {'c18': '0018'}, fake_blame, fake_read)

    def test_blame_names_the_hunk(self) -> None:
        self.assertEqual(self.pinned(),
                         {('0018', 'mm/vmalloc.c', 2): ['f12-no-leave']})

    def test_table_rows(self) -> None:
        table = {
            ('0018', 'include/linux/vmalloc.h', 1):
                ('-', 'an include: nothing to observe'),
            ('0018', 'mm/vmalloc.c', 1):
                ('static int vmap_pte_range(pmd_t *pmd,',
                 'mutant f12-no-leave: the leave it pairs with'),
        }
        cov = hunks.coverage(self.HUNKS, self.pinned(), table,
                             ['f12-no-leave'])
        self.assertEqual(cov.holes, [])
        self.assertEqual(cov.stale, [])
        self.assertEqual(sorted(cov.pinned), [('0018', 'mm/vmalloc.c', 1),
                                              ('0018', 'mm/vmalloc.c', 2)])
        self.assertEqual(cov.line(), 'hunks: 2 of 3 pinned by a mutant, 1 '
                         'listed with the reason none is (kunit/hunks.tsv), '
                         '0 neither')

    def test_holes_and_stale_rows(self) -> None:
        table = {
            ('0018', 'mm/vmalloc.c', 2): ('static int vmap_pte_range(pmd_t '
                                          '*pmd,', 'not observable'),
            ('0018', 'mm/vmalloc.c', 7): ('-', 'gone'),
            ('0018', 'include/linux/vmalloc.h', 1): ('foo', 'wrong context'),
            ('0018', 'mm/vmalloc.c', 1): ('static int vmap_pte_range(pmd_t '
                                          '*pmd,', 'mutant nosuch: x'),
        }
        cov = hunks.coverage(self.HUNKS, self.pinned(), table,
                             ['f12-no-leave'])
        self.assertEqual(len(cov.holes), 2)
        self.assertEqual(len(cov.stale), 4)
        text = '\n'.join(cov.stale)
        self.assertIn('drop its row', text)
        self.assertIn('no such hunk', text)
        self.assertIn("the table says 'foo'", text)
        self.assertIn('no mutant nosuch', text)
        self.assertIn('HOLE', hunks.render(cov, self.HUNKS))


class TableTest(unittest.TestCase):
    def test_the_projects_table_names_real_hunks(self) -> None:
        table = hunks.load_table(project.KUNIT_DIR / 'hunks.tsv')
        keys = {h.key: h for h in hunks.series_hunks(project.PATCHES)}
        names = {p.stem for p in (project.KUNIT_DIR / 'mutants').glob(
            '*.patch')}
        for key, (context, why) in table.items():
            self.assertIn(key, keys)
            self.assertEqual(context, keys[key].context or '-', key)
            if why.startswith('mutant '):
                self.assertIn(why.split()[1].rstrip(':'), names, key)

    def test_a_bad_hunk_number(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / 'hunks.tsv'
            path.write_text('0018\tmm/vmalloc.c\tone\t-\twhy\n')
            with self.assertRaisesRegex(project.SeriesError,
                                        'is not a number'):
                hunks.load_table(path)


if __name__ == '__main__':
    unittest.main()
