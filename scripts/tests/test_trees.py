# SPDX-License-Identifier: GPL-2.0
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
