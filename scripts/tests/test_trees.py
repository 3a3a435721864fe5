# SPDX-License-Identifier: GPL-2.0
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import trees
from tests.helpers import DATA, git, scratch_repo
from project import SeriesError


def make_patch(repo: Path, name: str, edit: str, subject: str,
               out: Path) -> None:
    """Commit edit to file a.txt in repo and export it as out/name."""
    (repo / 'a.txt').write_text(edit)
    git(repo, 'commit', '-q', '-am', subject)
    (out / name).write_text(git(repo, 'format-patch', '-1', '--stdout'))
    git(repo, 'reset', '-q', '--hard', 'HEAD~1')


class AmFailureTest(unittest.TestCase):
    def setUp(self) -> None:
        # A three-line a.txt in a scratch repo, and a folder for patches.
        self.tmp = tempfile.TemporaryDirectory()
        root = Path(self.tmp.name)
        self.repo, self.patches = root / 'repo', root / 'patches'
        self.patches.mkdir()
        scratch_repo(self.repo, {'a.txt': 'one\ntwo\nthree\n'})

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_recorded_git_am_output_names_patch_and_hunk(self) -> None:
        output = (DATA / 'git-am-failed.txt').read_text()
        self.assertEqual(
            trees.am_failure('0002-arm64-hugetlb.patch', output),
            'patch 0002-arm64-hugetlb.patch does not apply: hunk at '
            'arch/arm64/include/asm/hugetlb.h:68 failed')

    def test_patch_that_does_not_apply(self) -> None:
        repo, patches = self.repo, self.patches
        make_patch(repo, '0001-good.patch', 'one\n2\nthree\n', 'good',
                   patches)
        (repo / 'a.txt').write_text('uno\ndos\ntres\n')
        git(repo, 'commit', '-q', '-am', 'diverge')
        with self.assertRaisesRegex(
                SeriesError, r'^patch 0001-good.patch does not apply: '
                r'hunk at a.txt:1 failed$'):
            trees.apply_patches(repo, patches, ['0001-good.patch'])
        # The failed am was aborted: the tree is usable again.
        self.assertEqual(git(repo, 'status', '--porcelain'), '')
        self.assertFalse((repo / '.git' / 'rebase-apply').exists())

    def test_patches_apply_one_commit_each(self) -> None:
        repo, patches = self.repo, self.patches
        make_patch(repo, '0001-a.patch', 'one\n2\nthree\n', 'first', patches)
        (repo / 'a.txt').write_text('one\n2\nthree\n')
        git(repo, 'commit', '-q', '-am', 'tmp')
        make_patch(repo, '0002-b.patch', 'one\n2\n3\n', 'second', patches)
        git(repo, 'reset', '-q', '--hard', 'HEAD~1')
        trees.apply_patches(repo, patches, ['0001-a.patch', '0002-b.patch'])
        log = git(repo, 'log', '--format=%s', '-3').split('\n')
        self.assertEqual(log[:3], ['second', 'first', 'initial'])


class RecipeTest(unittest.TestCase):
    def test_key_follows_content_and_order(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            (d / 'a.patch').write_text('A')
            (d / 'b.patch').write_text('B')
            k1 = trees.recipe_key('c0', d, ['a.patch'], ['b.patch'])
            self.assertEqual(k1, trees.recipe_key('c0', d, ['a.patch'],
                                                  ['b.patch']))
            self.assertNotEqual(k1, trees.recipe_key('c0', d, [],
                                                     ['a.patch', 'b.patch']))
            self.assertNotEqual(k1, trees.recipe_key('c1', d, ['a.patch'],
                                                     ['b.patch']))
            (d / 'b.patch').write_text('B2')
            self.assertNotEqual(k1, trees.recipe_key('c0', d, ['a.patch'],
                                                     ['b.patch']))


class SuiteFilesTest(unittest.TestCase):
    def test_only_kernel_sources_go_into_the_tree(self) -> None:
        import project
        names = [f.name for f in trees.suite_files(project.KUNIT_DIR)]
        self.assertIn('Kconfig', names)
        self.assertIn('Makefile', names)
        self.assertNotIn('manifest.tsv', names)


if __name__ == '__main__':
    unittest.main()


class CommitSuitesTest(unittest.TestCase):
    def test_suites_are_copied_hooked_and_committed_once(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp) / 'linux'
            (repo / 'mm').mkdir(parents=True)
            scratch_repo(repo, {
                'mm/Kconfig': 'menu "mm"\nsource "mm/damon/Kconfig"\n'
                              '\nendmenu\n',
                'mm/Makefile': 'obj-$(CONFIG_DEBUG_RODATA_TEST) += '
                               'rodata_test.o\n'})
            trees.commit_suites(repo)
            self.assertIn('source "mm/series-kunit/Kconfig"',
                          (repo / 'mm/Kconfig').read_text())
            self.assertIn('series-kunit/', (repo / 'mm/Makefile').read_text())
            self.assertTrue((repo / 'mm/series-kunit/Kconfig').is_file())
            self.assertTrue((repo / 'mm/series-bench/Makefile').is_file())
            self.assertFalse((repo / 'mm/series-kunit/manifest.tsv')
                             .exists())
            self.assertEqual(git(repo, 'status', '--porcelain'), '')
            self.assertEqual(git(repo, 'log', '-1', '--format=%s').strip(),
                             trees.SUITES_SUBJECT)

    def test_a_tree_without_the_anchor_is_refused(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp) / 'linux'
            (repo / 'mm').mkdir(parents=True)
            scratch_repo(repo, {'mm/Kconfig': 'menu "mm"\nendmenu\n',
                                'mm/Makefile': ''})
            with self.assertRaisesRegex(SeriesError, 'mm/Kconfig: cannot '
                                        'hook the suites in'):
                trees.commit_suites(repo)


class BuildBranchTest(unittest.TestCase):
    """build_branch() on a small stand-in for the pristine kernel repo."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        root = Path(self.tmp.name)
        self.repo, self.patches = root / 'linux', root / 'patches'
        self.tree = root / 'trees' / 'patched'
        self.patches.mkdir()
        (self.repo / 'mm').mkdir(parents=True)
        scratch_repo(self.repo, {
            'a.txt': 'a\n', 'b.txt': 'b\n',
            'mm/Kconfig': 'source "mm/damon/Kconfig"\n',
            'mm/Makefile': 'obj-$(CONFIG_DEBUG_RODATA_TEST) += '
                           'rodata_test.o\n'})
        git(self.repo, 'tag', 'pristine')
        self.write_patch('0001-seam.patch', 'a.txt', 'a seam\n', 'seam')
        self.write_patch('0002-change.patch', 'b.txt', 'b change\n', 'change')

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def write_patch(self, name: str, path: str, text: str,
                    subject: str) -> None:
        (self.repo / path).write_text(text)
        git(self.repo, 'commit', '-q', '-am', subject)
        (self.patches / name).write_text(
            git(self.repo, 'format-patch', '-1', '--stdout'))
        git(self.repo, 'reset', '-q', '--hard', 'HEAD~1')

    def build(self) -> bool:
        return trees.build_branch(self.repo, self.tree, 'patched',
                                  ['0001-seam.patch'], ['0002-change.patch'],
                                  patch_dir=self.patches, tag='pristine')

    def test_one_commit_per_patch_around_the_suites_commit(self) -> None:
        self.assertTrue(self.build())
        log = git(self.tree, 'log', '--format=%s').splitlines()
        self.assertEqual(log, ['change', trees.SUITES_SUBJECT, 'seam',
                               'initial'])
        self.assertEqual(git(self.tree, 'symbolic-ref', 'HEAD').strip(),
                         'refs/heads/patched')
        self.assertTrue((self.tree / 'mm/series-kunit/Kconfig').is_file())

    def test_unchanged_recipe_is_not_rebuilt(self) -> None:
        self.build()
        self.assertFalse(self.build())

    def test_a_local_edit_forces_a_rebuild(self) -> None:
        self.build()
        (self.tree / 'b.txt').write_text('edited by hand\n')
        self.assertTrue(self.build())
        self.assertEqual((self.tree / 'b.txt').read_text(), 'b change\n')

    def test_rebuild_keeps_mtimes_of_files_whose_content_stayed(self) -> None:
        self.build()
        os.utime(self.tree / 'a.txt', (1000, 1000))
        os.utime(self.tree / 'b.txt', (1000, 1000))
        self.write_patch('0002-change.patch', 'b.txt', 'b changed again\n',
                         'change')
        self.assertTrue(self.build())
        # a.txt was rewritten by the checkout and the seam, to the same
        # content: make must not see it as new. b.txt really changed.
        self.assertEqual((self.tree / 'a.txt').stat().st_mtime, 1000)
        self.assertNotEqual((self.tree / 'b.txt').stat().st_mtime, 1000)
        self.assertEqual((self.tree / 'b.txt').read_text(),
                         'b changed again\n')

    def test_a_broken_change_leaves_no_trusted_state(self) -> None:
        self.build()
        (self.patches / '0002-change.patch').write_text(
            (self.patches / '0002-change.patch').read_text()
            .replace('-b\n', '-not b\n'))
        with self.assertRaisesRegex(SeriesError, '0002-change.patch does not '
                                    'apply'):
            self.build()
        self.assertFalse(trees.is_current(self.tree, 'patched', 'anything'))
        self.assertFalse(trees._state_file(self.tree).exists())
