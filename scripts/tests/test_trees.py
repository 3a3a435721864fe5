# SPDX-License-Identifier: GPL-2.0
import os
import shutil
import tempfile
import unittest
from pathlib import Path
from unittest import mock

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


class BranchFixture(unittest.TestCase):
    """A small stand-in for the pristine kernel repo, a seam and a change."""

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


class BuildBranchTest(BranchFixture):
    """build_branch() on the stand-in."""

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


class NoGitConfigurationTest(BranchFixture):
    """Tree preparation with no git configuration of the user's: an empty
    HOME (no identity anywhere), or one whose ~/.gitconfig would change
    what git does (no identity guessed, commits signed, git am three-way).
    Only the fixture is made with the test identity; everything the
    tooling runs sees just that HOME."""

    HOSTILE = ('[user]\n\tuseConfigOnly = true\n'
               '[commit]\n\tgpgSign = true\n'
               '[am]\n\tthreeWay = true\n')

    def home(self, gitconfig: str) -> 'mock._patch_dict':
        home = Path(self.tmp.name) / 'home'
        home.mkdir(exist_ok=True)
        if gitconfig:
            (home / '.gitconfig').write_text(gitconfig)
        bare = {k: v for k, v in os.environ.items()
                if not k.startswith('GIT_') and k != 'EMAIL'}
        return mock.patch.dict(os.environ, dict(bare, HOME=str(home)),
                               clear=True)

    def test_prepare_and_a_failed_patch_with_an_empty_home(self) -> None:
        for gitconfig in ('', self.HOSTILE):
            with self.subTest(gitconfig=gitconfig or 'none'):
                shutil.rmtree(self.tree.parent, ignore_errors=True)
                git(self.repo, 'worktree', 'prune')
                # Only what the tooling runs sees this HOME.
                with self.home(gitconfig):
                    self.assertTrue(self.build())
                    self.assertFalse(self.build())
                    good = (self.patches / '0002-change.patch').read_text()
                    (self.patches / '0002-change.patch').write_text(
                        good.replace('-b\n', '-not b\n'))
                    with self.assertRaisesRegex(
                            SeriesError, r'^patch 0002-change.patch does not '
                            r'apply: hunk at b.txt:1 failed$'):
                        self.build()
                    git_dir = trees._git_dir(self.tree)
                    self.assertFalse((git_dir / 'rebase-apply').exists())
                    (self.patches / '0002-change.patch').write_text(good)
                    self.assertTrue(self.build())
                log = git(self.tree, 'log', '--format=%s %cn').splitlines()
                self.assertEqual(log[0], 'change arm64-mm-series tooling')


if __name__ == '__main__':
    unittest.main()
