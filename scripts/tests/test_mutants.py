# SPDX-License-Identifier: GPL-2.0
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import manifest
import mutants
from project import SeriesError
from trees import Tree

from tests.helpers import git, scratch_repo
from tests.test_header_users import HEADER

DATA = Path(__file__).parent / 'data'


def table(text: str) -> Path:
    tmp = Path(tempfile.mkdtemp())
    (tmp / 'mutants.tsv').write_text(text)
    (tmp / 'm1.patch').write_text('F3: a wrong level.\n\ndiff --git ...\n')
    return tmp / 'mutants.tsv'


class LoadTest(unittest.TestCase):
    def load(self, text: str) -> list:
        path = table(text)
        with mock.patch.object(mutants, 'MUTANTS_DIR', path.parent):
            got = mutants.load(path)
            return [(m, m.what()) for m in got]

    def test_the_project_table(self) -> None:
        got = mutants.load()
        self.assertGreaterEqual(len(got), 17)
        listed = {m.patch.name for m in got}
        on_disk = {p.name for p in mutants.MUTANTS_DIR.glob('*.patch')}
        self.assertEqual(listed, on_disk)
        for m in got:
            self.assertTrue(m.what(), m.name)

    def test_every_pattern_names_a_case_of_the_manifest(self) -> None:
        # A case renamed or parameterised would leave its mutants killed
        # by nothing, which make mutants only finds after a kernel build.
        cases = {c: '' for c in mutants.manifest.load(
            mutants.project.MANIFEST)}
        for m in mutants.load():
            for pattern in m.patterns:
                self.assertTrue(mutants.kunit_run.matching(cases,
                                                           (pattern,)),
                                f'{m.name}: {pattern} matches no case')

    def test_fields(self) -> None:
        (m, what), = self.load('# c\nm1\tptc\ta.b.*, c.d\n')
        self.assertEqual((m.name, m.lane, m.patterns),
                         ('m1', 'ptc', ('a.b.*', 'c.d')))
        self.assertEqual(what, 'F3: a wrong level.')

    def test_errors(self) -> None:
        for text, message in (('m1\tmain\n',
                               'want "mutant<TAB>lane<TAB>cases"'),
                              ('m1\tkasan\ta.b\n', "unknown lane 'kasan'"),
                              ('m2\tmain\ta.b\n', 'no patch m2.patch'),
                              ('m1\tmain\ta\nm1\tmain\ta\n', 'listed twice')):
            with self.assertRaisesRegex(SeriesError, message):
                self.load(text)


class SelectAndJudgeTest(unittest.TestCase):
    M = mutants.Mutant('m', 'main', ('s.t.64K*', 's.u'))

    def test_select(self) -> None:
        self.assertEqual(mutants.select([self.M], []), [self.M])
        with self.assertRaisesRegex(SeriesError, "unknown mutant 'x'"):
            mutants.select([self.M], ['x'])

    def test_killed_only_by_named_cases(self) -> None:
        outcomes = {'s.t.64K_a': 'fail', 's.t.2M': 'fail', 's.u': 'pass',
                    's.t.64K_b': 'crash'}
        self.assertEqual(mutants.killed_by(self.M, outcomes),
                         ['s.t.64K_a', 's.t.64K_b'])
        self.assertEqual(mutants.killed_by(self.M, {'s.t.64K_a': 'pass',
                                                    's.t.2M': 'fail'}), [])

    def test_an_expected_skip_is_not_a_kill(self) -> None:
        # On 16K pages the pud size does not exist: its cases skip there,
        # mutant or not, and only the others can kill.
        m = mutants.Mutant('g', '16k', ('s.t.*',))
        expected = manifest.parse(
            's.t.contpmd\tpass\tpass\tF16\t-\n'
            's.t.pud\tpass 16k=skip\tpass 16k=skip\tF16\tpages do not have\n')
        outcomes = {'s.t.contpmd': 'pass', 's.t.pud': 'skip'}
        self.assertEqual(mutants.killed_by(m, outcomes, expected), [])
        outcomes['s.t.contpmd'] = 'skip'
        self.assertEqual(mutants.killed_by(m, outcomes, expected),
                         ['s.t.contpmd'])
        self.assertEqual(mutants.killed_by(m, outcomes),
                         ['s.t.contpmd', 's.t.pud'])

    def test_a_case_that_never_reported_did_not_pass(self) -> None:
        # A mutant of code every boot runs hangs the kernel before the
        # suites: no case reports, and that kills it.
        m = mutants.Mutant('v', 'ptc', ('s.*',))
        expected = manifest.parse(
            's.a\tfail\tpass\tF14\tx\n'
            's.b\tskip\tpass ptc=skip\tF14\tneeds y\n'
            'r.c\tfail\tpass\tF14\tx\n')
        self.assertEqual(mutants.killed_by(m, {}, expected), ['s.a'])
        self.assertEqual(mutants.killed_by(m, {'s.a': 'pass'}, expected), [])
        # A lane that runs one suite only misses the others by design.
        numa = mutants.Mutant('n', 'numa', ('s.*',))
        self.assertEqual(mutants.killed_by(numa, {}, expected), [])

    def test_on_granule_moves_the_main_lanes_mutants(self) -> None:
        ptc = mutants.Mutant('p', 'ptc', ('s.u',))
        g16 = mutants.Mutant('g', '16k', ('s.v',))
        g64 = mutants.Mutant('h', '64k', ('s.w',))
        got = mutants.on_granule([self.M, ptc, g16, g64], '16k')
        self.assertEqual([(m.name, m.lane) for m in got],
                         [('m', '16k'), ('g', '16k')])
        with self.assertRaisesRegex(SeriesError, "unknown granule lane 'ptc'"):
            mutants.on_granule([self.M], 'ptc')

    def test_render(self) -> None:
        with mock.patch.object(mutants.Mutant, 'what',
                               return_value='undoes X'):
            text = mutants.render([
                mutants.Verdict(self.M, ('a', 'b', 'c', 'd')),
                mutants.Verdict(self.M),
                mutants.Verdict(self.M, error='kunit.py failed')])
        self.assertIn('| m | main | undoes X | a, b, c (+1) | killed |',
                      text)
        self.assertIn('| - | SURVIVED |', text)
        self.assertIn('| - | ERROR: kunit.py failed |', text)
        self.assertTrue(text.endswith('3 mutants: 1 killed, 1 survived, '
                                      '1 not judged'))

    def test_build_failure_is_not_a_kill(self) -> None:
        with mock.patch.object(mutants, 'run_one',
                               side_effect=SeriesError('does not build')):
            v = mutants.judge(Tree('mutant', Path('/x')), self.M, Path('/c'))
        self.assertFalse(v.killed)
        self.assertEqual(v.error, 'does not build')


class ApplyTest(unittest.TestCase):
    def test_patch_that_does_not_apply(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp) / 'tree'
            scratch_repo(repo, {'a.c': 'int a;\n'})
            patches = Path(tmp) / 'mutants'
            patches.mkdir()
            (patches / 'm.patch').write_text(
                'X.\n\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n'
                '@@ -1 +1 @@\n-int b;\n+int c;\n')
            with mock.patch.object(mutants, 'MUTANTS_DIR', patches), \
                    self.assertRaisesRegex(SeriesError,
                                           'mutant m does not apply to the '
                                           'patched tree: .*patch does not '
                                           'apply'):
                mutants.apply(Tree('mutant', repo),
                              mutants.Mutant('m', 'main', ('a',)))


class NarrowedBuildTest(unittest.TestCase):
    OLD = 1_000_000_000

    def setUp(self) -> None:
        tmp = Path(tempfile.mkdtemp())
        self.repo = tmp / 'tree'
        scratch_repo(self.repo, {
            'include/p.h': HEADER,
            'mm/a.c': 'void a(int *p) { set_pte(p, 0); }\n',
            'mm/b.c': 'void b(int *p) { __set_pte(p, 1); }\n',
            'mm/c.c': 'int c;\n'})
        git(self.repo, 'branch', 'patched')
        for source in ('a', 'b', 'c'):
            cmd = self.repo / '.kunit-main' / 'mm' / f'.{source}.o.cmd'
            cmd.parent.mkdir(parents=True, exist_ok=True)
            cmd.write_text('')
        (self.repo / '.kunit-main' / '.config').write_text('')
        (self.repo / '.kunit-main' / 'vmlinux').write_text('')
        for f in ('include/p.h', 'mm/a.c', 'mm/b.c', 'mm/c.c'):
            os.utime(self.repo / f, (self.OLD, self.OLD))
        patches = tmp / 'mutants'
        patches.mkdir()
        lines = HEADER.split('\n')
        (patches / 'h.patch').write_text(
            'X.\n\ndiff --git a/include/p.h b/include/p.h\n'
            '--- a/include/p.h\n+++ b/include/p.h\n'
            '@@ -11,3 +11,3 @@\n'
            f' {lines[10]}\n-{lines[11]}\n+\t*p = v + 1;\n {lines[12]}\n')
        self.enterContext(mock.patch.object(mutants, 'MUTANTS_DIR', patches))
        self.mutant = mutants.Mutant('h', 'main', ('s.*',))

    def mtime(self, f: str) -> float:
        return (self.repo / f).stat().st_mtime

    def test_a_same_size_mutation_set_back_in_time_is_reset(self) -> None:
        # A header precheck leaves the header's old mtime in the index; a
        # narrowed build's mutation of the same size, its mtime set back
        # and its ctime in the same second, matches git's stat data, and
        # reset --hard alone kept it (0004-005's, which 0004-006 then did
        # not apply over).
        lines = HEADER.split('\n')
        same_size = lines[11].replace('v', 'w')
        (mutants.MUTANTS_DIR / 's.patch').write_text(
            'X.\n\ndiff --git a/include/p.h b/include/p.h\n'
            '--- a/include/p.h\n+++ b/include/p.h\n'
            '@@ -11,3 +11,3 @@\n'
            f' {lines[10]}\n-{lines[11]}\n+{same_size}\n {lines[12]}\n')
        git(self.repo, 'update-index', '-q', '--refresh')
        with mutants.mutated(Tree('mutant', self.repo),
                             mutants.Mutant('s', 'main', ('s.*',)),
                             narrow=True) as sources:
            self.assertIsNotNone(sources)
            self.assertIn(same_size, (self.repo / 'include/p.h').read_text())
        self.assertEqual((self.repo / 'include/p.h').read_text(), HEADER)
        self.assertEqual(self.mtime('include/p.h'), self.OLD)

    def test_only_the_users_are_touched_and_the_header_keeps_its_mtime(
            self) -> None:
        with mutants.mutated(Tree('mutant', self.repo), self.mutant,
                             narrow=True) as sources:
            self.assertEqual(sources, ['mm/a.c', 'mm/b.c'])
            self.assertIn('v + 1', (self.repo / 'include/p.h').read_text())
            self.assertEqual(self.mtime('include/p.h'), self.OLD)
            self.assertGreater(self.mtime('mm/a.c'), self.OLD)
            self.assertEqual(self.mtime('mm/c.c'), self.OLD)
            os.utime(self.repo / 'mm/b.c', (self.OLD, self.OLD))
        # Back at patched, and the users touched again for the next build.
        self.assertEqual((self.repo / 'include/p.h').read_text(), HEADER)
        self.assertEqual(self.mtime('include/p.h'), self.OLD)
        self.assertGreater(self.mtime('mm/b.c'), self.OLD)
        self.assertEqual(self.mtime('mm/c.c'), self.OLD)

    def test_every_object_the_narrowed_build_wrote_is_rebuilt_next(
            self) -> None:
        # mm/c.c does not use the header's change, but make rebuilt its
        # object too (it was older than another header): it holds the
        # mutated text, so the next build must compile it again.
        obj = self.repo / '.kunit-main' / 'mm' / 'c.o'
        with mutants.mutated(Tree('mutant', self.repo), self.mutant,
                             narrow=True) as sources:
            self.assertEqual(sources, ['mm/a.c', 'mm/b.c'])
            obj.write_text('')
        self.assertGreater(self.mtime('mm/c.c'), self.OLD)
        self.assertEqual(self.mtime('include/p.h'), self.OLD)

    def test_a_whole_build_leaves_the_header_newer(self) -> None:
        with mutants.mutated(Tree('mutant', self.repo), self.mutant,
                             narrow=False) as sources:
            self.assertIsNone(sources)
            self.assertGreater(self.mtime('include/p.h'), self.OLD)
        self.assertEqual((self.repo / 'include/p.h').read_text(), HEADER)
        self.assertGreater(self.mtime('include/p.h'), self.OLD)

    def test_an_unbuilt_lane_is_built_whole(self) -> None:
        (self.repo / '.kunit-main' / 'vmlinux').unlink()
        with mutants.mutated(Tree('mutant', self.repo), self.mutant,
                             narrow=True) as sources:
            self.assertIsNone(sources)

    def test_a_header_newer_than_the_kernel_is_built_whole(self) -> None:
        # As after a whole build of a mutant of it, reset since: objects
        # that include it may hold the mutated text.
        os.utime(self.repo / '.kunit-main' / 'vmlinux',
                 (self.OLD - 1, self.OLD - 1))
        with mutants.mutated(Tree('mutant', self.repo), self.mutant,
                             narrow=True) as sources:
            self.assertIsNone(sources)

    def test_a_survivor_of_a_narrowed_build_is_built_whole(self) -> None:
        def killed(got: dict) -> bool:
            return 'fail' in got.values()

        tree = Tree('mutant', self.repo)
        with mock.patch.object(mutants, 'run_one', side_effect=[
                ({'s.t': 'pass'}, True), ({'s.t': 'fail'}, False)]) as run:
            self.assertEqual(mutants.outcomes_narrowed_first(
                tree, self.mutant, Path('/c'), killed), {'s.t': 'fail'})
        self.assertEqual([c.kwargs for c in run.call_args_list],
                         [{'narrow': True}, {}])
        with mock.patch.object(mutants, 'run_one', side_effect=[
                ({'s.t': 'fail'}, True)]) as run:
            mutants.outcomes_narrowed_first(tree, self.mutant, Path('/c'),
                                            killed)
        self.assertEqual(run.call_count, 1)

    def run_one(self, narrow: bool) -> int:
        """How many times run_one compiles the header mutant's includers
        back, execute() mocked."""
        with mock.patch.object(mutants.kunit_run, 'execute',
                               return_value=Path('/nowhere')), \
                mock.patch.object(mutants.kunit_run, 'outcomes_of',
                                  return_value=({'s.t': 'pass'}, [])), \
                mock.patch.object(mutants, 'compile_back') as back:
            mutants.run_one(Tree('mutant', self.repo), self.mutant,
                            Path('/c'), narrow=narrow)
        return back.call_count

    def test_a_whole_build_of_a_header_mutant_is_compiled_back(
            self) -> None:
        self.assertEqual(self.run_one(narrow=False), 1)

    def test_a_failed_whole_build_is_compiled_back_too(self) -> None:
        with mock.patch.object(mutants, 'compile_back') as back, \
                mock.patch.object(mutants.kunit_run, 'execute',
                                  side_effect=SeriesError('failed')), \
                self.assertRaises(SeriesError):
            mutants.run_one(Tree('mutant', self.repo), self.mutant,
                            Path('/c'))
        self.assertEqual(back.call_count, 1)

    def no_case_from(self, run: Path) -> mutants.NoCaseReported:
        """What run_one raises when the kernel's run left run and reported
        no case."""
        with mock.patch.object(mutants.kunit_run, 'execute',
                               return_value=run), \
                mock.patch.object(mutants.kunit_run, 'outcomes_of',
                                  return_value=({}, [])), \
                self.assertRaisesRegex(SeriesError,
                                       'reported no case') as raised:
            mutants.run_one(Tree('mutant', self.repo), self.mutant,
                            Path('/c'), narrow=True)
        return raised.exception

    def test_a_kernel_that_reported_no_case_judges_nothing(self) -> None:
        # Every named case would otherwise count as never reported; a run
        # that shows no kernel at all (0009-004's 0.2 s) says nothing.
        self.assertFalse(self.no_case_from(Path('/nowhere')).stopped_boot)

    def test_a_kernel_silent_past_the_boot_limit_stopped_at_boot(
            self) -> None:
        run = Path(tempfile.mkdtemp())
        (run / 'test.log').write_text('qemu-system-aarch64: terminating on '
                                      'signal 15\n')
        (run / 'watchdog.txt').write_text(mutants.crash.watchdog_note(
            mutants.crash.SILENT_BOOT, 45, 60) + '\n')
        raised = self.no_case_from(run)
        self.assertTrue(raised.stopped_boot)
        self.assertIn('printed nothing for 45 s', str(raised))

    def test_a_kernel_that_panicked_before_its_suites_stopped_at_boot(
            self) -> None:
        raised = self.no_case_from(DATA / 'run-panic')
        self.assertTrue(raised.stopped_boot)
        self.assertIn('Kernel panic - not syncing', str(raised))

    def test_a_stalled_run_with_no_case_is_no_boot_failure(self) -> None:
        # Only the boot limit says the kernel never reached its suites.
        run = Path(tempfile.mkdtemp())
        (run / 'watchdog.txt').write_text('no progress for 60 s: QEMU '
                                          'stopped\n')
        self.assertFalse(self.no_case_from(run).stopped_boot)

    def test_a_narrowed_build_needs_no_compiling_back(self) -> None:
        self.assertEqual(self.run_one(narrow=True), 0)

    def test_the_build_command_builds_only(self) -> None:
        cmd = mutants.kunit_run.tool_command('build', '.kunit-main', [], 2)
        self.assertEqual(cmd[2], 'build')
        self.assertFalse([a for a in cmd if a.startswith(('--timeout',
                                                          '--kernel_args'))])
        self.assertIn('--jobs=2', cmd)


class BuildLaneTest(unittest.TestCase):
    """The unmutated build of a lane (compile_back, and a mutant tree's
    first build for make mutate's prechecks)."""

    def build(self, returncode: int) -> mock.MagicMock:
        with mock.patch.object(mutants.subprocess, 'run', return_value=(
                mock.Mock(returncode=returncode, stdout='',
                          stderr='mm/a.c:1:1: error: expected ;\n'))) as run:
            mutants.build_lane(Tree('mutant', Path('/x')), 'numa',
                               Path('/c'), 'lane numa does not build')
        return run

    def test_the_lane_s_kernel_is_built_in_its_directory(self) -> None:
        cmd = self.build(0).call_args.args[0]
        self.assertIn('build', cmd)
        # numa boots the 4K lanes' one kernel: one build directory.
        self.assertIn('--build_dir=.kunit-main', cmd)

    def test_a_tree_that_does_not_build_is_one_error_line(self) -> None:
        with self.assertRaisesRegex(SeriesError,
                                    '^lane numa does not build: .*error'):
            self.build(2)


if __name__ == '__main__':
    unittest.main()
