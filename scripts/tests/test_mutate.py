# SPDX-License-Identifier: GPL-2.0
import io
import json
import tempfile
import unittest
from dataclasses import replace
from pathlib import Path
from unittest import mock

import kernel_log
import mutate
import project
from mutation import reach, schema, schemata
from project import SeriesError
from trees import Tree

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


# A second patch rewrites the middle of f() and adds g(); h() it leaves.
TOUCHED_BEFORE = '''static int f(int a, int b)
{
	if (a < b)
		return b;
	a += 1;
	return a + b;
}

static int h(int x)
{
	return x - 1;
}
'''
TOUCHED_AFTER = '''static int f(int a, int b)
{
	if (a < b)
		return b;
	a += 2;
	return a + b;
}

static int g(int y)
{
	return y * 2;
}

static int h(int x)
{
	return x - 1;
}
'''
TOUCHED_PATCH = '''---
diff --git a/mm/f.c b/mm/f.c
--- a/mm/f.c
+++ b/mm/f.c
@@ -1 +1 @@
-x
+y
'''


class TouchedTest(unittest.TestCase):
    def test_the_base_lines_of_each_function_a_patch_changes(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            project.git(repo, 'init', '-q', '-b', 'main')
            (repo / 'mm').mkdir()
            (repo / 'mm' / 'f.c').write_text(TOUCHED_BEFORE)
            project.git(repo, 'add', '-A')
            project.git(repo, 'commit', '-q', '-m', 'pristine')
            pristine = project.git(repo, 'rev-parse', 'HEAD').stdout.strip()
            (repo / 'mm' / 'f.c').write_text(TOUCHED_AFTER)
            project.git(repo, 'commit', '-q', '-am', 'the patch')
            commit = project.git(repo, 'rev-parse', 'HEAD').stdout.strip()
            owners = mutate.first_touchers(repo, [('0002', commit)],
                                           {'0002': TOUCHED_PATCH})
            self.assertEqual(owners, {('mm/f.c', 'f'): '0002',
                                      ('mm/f.c', 'g'): '0002'})
            touched = mutate.generate_touched(repo, 'HEAD', '0002', pristine,
                                              owners)
            self.assertEqual(touched.definitions, ('mm/f.c:f', 'mm/f.c:g'))
            # f() less its line 5, which the patch wrote; g() is all new.
            self.assertEqual(touched.base_lines, 6)
            self.assertEqual({m.line for m in touched.mutations}, {3, 4, 6})
            self.assertIn('\tif (a <= b)',
                          {m.mutated for m in touched.mutations})


class AssertionsTest(unittest.TestCase):
    LOG = '''KTAP version 1
    # Subtest: s
    1..2
    # a_test: EXPECTATION FAILED at mm/series-kunit/s_test.c:12
    Expected x == 1
    not ok 1 a_test
    # b_test: ASSERTION FAILED at mm/series-kunit/s_test.c:30
    not ok 2 b_test
not ok 1 s
'''

    def test_the_failed_assertions_of_the_killing_cases(self) -> None:
        self.assertEqual(mutate.failed_assertions(self.LOG, ['s.a_test']),
                         ('kunit/s_test.c:12',))
        self.assertEqual(mutate.failed_assertions(self.LOG, ['s']), (
            'kunit/s_test.c:12', 'kunit/s_test.c:30'))

    def test_assertions_of_the_suites_and_which_a_mutant_failed(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            (d / 's_test.c').write_text(
                '#define CHECK(x) KUNIT_EXPECT_TRUE(t, x)\n'
                '\tKUNIT_EXPECT_EQ(test, a, 1);\n'
                '\tKUNIT_ASSERT_NOT_NULL(test, p);\n'
                '\tKUNIT_FAIL(test, "no");\n')
            found = mutate.suite_assertions(d)
        self.assertEqual(found, {'s_test.c': ['kunit/s_test.c:2',
                                              'kunit/s_test.c:3',
                                              'kunit/s_test.c:4']})
        killed = mutate.Result('0005', mutation('mm/a.c', 1), mutate.KILLED,
                               ('s.a_test',), assertions=('kunit/s_test.c:3',))
        table = mutate.oracle_table([killed], found)
        self.assertIn('| s_test.c | 1 of 3 | 2, 4 |', table)


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


def mutation(file: str, line: int, op: str = 'ror') -> 'mutate.mutate_gen.Mutation':
    return mutate.mutate_gen.Mutation(file, line, op, '\tif (a < b)',
                                      '\tif (a <= b)', '`<` to `<=`')


class ReportTest(unittest.TestCase):
    def test_score_leaves_out_what_did_not_build_and_the_equivalent(
            self) -> None:
        results = [mutate.Result('0018', mutation('mm/a.c', 1), v)
                   for v in (mutate.KILLED, mutate.KILLED, mutate.KILLED,
                             mutate.SURVIVED, mutate.NO_BUILD, mutate.WARNS,
                             mutate.EQUIVALENT, mutate.SAME_OBJECT)]
        s = mutate.score('0018', 12, 40, results)
        self.assertEqual((s.tried, s.no_build, s.killed, s.survived,
                          s.equivalent, s.same_object), (8, 2, 3, 1, 1, 1))
        self.assertAlmostEqual(s.score, 0.75)

    def test_report_lists_every_survivor_with_where_it_was_judged(
            self) -> None:
        targets = {'0018': mutate.Target('0018', 'ptc',
                                         ('vmalloc_bulk_free',))}
        results = [mutate.Result('0018', mutation('mm/page_alloc.c', 5030),
                                 mutate.SURVIVED),
                   mutate.Result('0018', mutation('mm/a.c', 1),
                                 mutate.KILLED, ('s.c',))]
        scores = [mutate.score('0018', 3, 9, results)]
        text = mutate.render(scores, results, targets)
        self.assertIn('| 0018 | added | 3 | 9 | 2 | 0 | 0 | 1 | 1 | 0 | 0 | 50% |',
                      text)
        self.assertIn('- 0018 (added) mm/page_alloc.c:5030 ror: `<` to `<=`; '
                      'suites vmalloc_bulk_free on ptc', text)
        data = mutate.as_json(scores, results)
        self.assertEqual(data['patches'][0]['score'], 0.5)
        self.assertEqual(data['mutants'][1]['killed_by'], ['s.c'])

    def test_compiler_lines_about_the_mutated_file_only(self) -> None:
        out = ('../mm/vmalloc.c:3690:13: warning: unused variable x\n'
               '../mm/other.c:1:1: warning: y\n'
               'mm/vmalloc.c:12:2: error: expected ;\n')
        self.assertEqual(len(mutate.compiler_warnings(out, 'mm/vmalloc.c')),
                         2)

    def test_headers_come_after_c_files(self) -> None:
        found = [mutation('include/linux/x.h', 3), mutation('mm/b.c', 9),
                 mutation('arch/arm64/include/asm/y.h', 1),
                 mutation('mm/a.c', 2)]
        self.assertEqual([m.file for m in mutate.order_for_builds(found)],
                         ['mm/a.c', 'mm/b.c', 'arch/arm64/include/asm/y.h',
                          'include/linux/x.h'])

    def test_an_equivalent_mutant_needs_its_reason(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / 'eq.tsv'
            path.write_text('0018\tmm/a.c\tif (a < b)\tif (a <= b)\t\n')
            with self.assertRaises(mutate.SeriesError):
                mutate.load_equivalents(path)
            path.write_text('0018\tmm/a.c\t  if (a < b)\tif (a <= b)\t'
                            'a == b cannot happen here\n')
            found = mutate.load_equivalents(path)
            self.assertEqual(found[mutate.equivalent_key(
                '0018', mutate.mutate_gen.Mutation(
                    'mm/a.c', 7, 'ror', '\tif (a < b)', '\tif (a <= b)',
                    ''))], 'a == b cannot happen here')

    def test_a_moved_line_is_one_row(self) -> None:
        # A move mutant spans two lines; its row has them on one, with
        # the white space between them as one space.
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / 'eq.tsv'
            path.write_text('0017\tx.h\ta(); b();\tb(); a();\t'
                            'a and b commute\n')
            found = mutate.load_equivalents(path)
            move = mutate.mutate_gen.Mutation(
                'x.h', 4, 'move', '\ta();\n\t\tb();', '\tb();\n\t\ta();', '')
            self.assertEqual(found[mutate.equivalent_key('0017', move)],
                             'a and b commute')


class SameObjectTest(unittest.TestCase):
    """A mutant whose object is the patched one's is not run."""

    def setUp(self) -> None:
        self.root = Path(tempfile.mkdtemp())
        self.tree = Tree('mutant', self.root)
        self.build = self.root / mutate.kunit_run.build_dir_name('main')
        (self.build / 'mm').mkdir(parents=True)
        (self.build / '.config').write_text('')
        self.obj = self.build / 'mm' / 'a.o'
        self.enterContext(mock.patch.dict(mutate._PATCHED_OBJECTS))

    def compiles_to(self, *objects: bytes) -> mock.MagicMock:
        """Each make of the object writes the next of objects; objcopy
        copies it as it is."""
        made = list(objects)

        def make(*args, **kwargs):  # noqa: ANN002, ANN003
            self.obj.write_bytes(made.pop(0))
            return mock.Mock(returncode=0, stdout='', stderr='')

        def objcopy(cmd, what):  # noqa: ANN001
            Path(cmd[-1]).write_bytes(Path(cmd[-2]).read_bytes())
        self.enterContext(mock.patch.object(mutate.project, 'run',
                                            side_effect=objcopy))
        return self.enterContext(mock.patch.object(
            mutate.subprocess, 'run', side_effect=make))

    def test_the_same_object_is_not_run(self) -> None:
        make = self.compiles_to(b'code', b'code')
        patched = mutate.patched_object(self.tree, 'mm/a.c', 'main',
                                        Path('/c'), 't1')
        verdict, why = mutate.precheck(self.tree, mutation('mm/a.c', 1),
                                       'main', Path('/c'), patched)
        self.assertEqual(verdict, mutate.SAME_OBJECT)
        self.assertIn('main lane', why)
        self.assertEqual(make.call_count, 2)
        self.assertFalse(self.obj.with_suffix('.o.stripped').exists())

    def test_another_object_is_run(self) -> None:
        self.compiles_to(b'code', b'other code')
        patched = mutate.patched_object(self.tree, 'mm/a.c', 'main',
                                        Path('/c'), 't1')
        self.assertEqual(mutate.precheck(self.tree, mutation('mm/a.c', 1),
                                         'main', Path('/c'), patched),
                         ('', ''))

    def test_the_patched_object_is_made_once_per_tree(self) -> None:
        make = self.compiles_to(b'code')
        for _ in range(2):
            mutate.patched_object(self.tree, 'mm/a.c', 'main', Path('/c'),
                                  't1')
        self.assertEqual(make.call_count, 1)

    def test_a_header_is_always_run(self) -> None:
        make = self.compiles_to()
        self.assertEqual(mutate.patched_object(
            self.tree, 'include/linux/a.h', 'main', Path('/c'), 't1'), '')
        self.assertEqual(mutate.precheck(
            self.tree, mutation('include/linux/a.h', 1), 'main', Path('/c'),
            ''), ('', ''))
        self.assertEqual(make.call_count, 0)


class HeaderPrecheckTest(unittest.TestCase):
    """A header mutant whose line the lane preprocesses away is not
    built whole."""
    HEADER = 'include/linux/a.h'
    TEXT = ('#ifdef CONFIG_A\nstatic inline int a(void)\n{\n\treturn 1;\n}'
            '\n#else\nstatic inline int a(void)\n{\n\treturn 0;\n}\n#endif'
            '\n#define B(x) \\\n\t((x) + 1)\n')

    def setUp(self) -> None:
        self.root = Path(tempfile.mkdtemp())
        self.tree = Tree('mutant', self.root)
        build = self.root / mutate.kunit_run.build_dir_name('main')
        (build / 'mm').mkdir(parents=True)
        (build / '.config').write_text('')
        (build / 'mm' / '.b.o.cmd').write_text(
            'source_mm/b.o := ../mm/b.c\n\ndeps_mm/b.o := \\\n'
            '  ../include/linux/other.h \\\n')
        (build / 'mm' / '.c.o.cmd').write_text(
            'source_mm/c.o := ../mm/c.c\n\ndeps_mm/c.o := \\\n'
            f'  ../{self.HEADER} \\\n  ../include/linux/other.h \\\n')
        self.out = build / 'mm' / 'c.i'
        (self.root / 'include/linux').mkdir(parents=True)
        (self.root / self.HEADER).write_text(self.TEXT)
        self.enterContext(mock.patch.dict(mutate._PATCHED_UNITS))
        self.enterContext(mock.patch.object(mutate.mutants, 'apply'))
        self.enterContext(mock.patch.object(mutate.mutants, 'reset'))
        self.enterContext(mock.patch.object(mutate.project, 'git'))

    def preprocesses_to(self, *texts: bytes) -> mock.MagicMock:
        made = list(texts)

        def make(cmd, **kwargs):  # noqa: ANN001, ANN003
            self.assertEqual(cmd[-1], 'mm/c.i')
            self.out.write_bytes(made.pop(0))
            return mock.Mock(returncode=0, stdout='', stderr='')
        return self.enterContext(mock.patch.object(
            mutate.subprocess, 'run', side_effect=make))

    def precheck(self, line: int) -> tuple:
        m = mutation(self.HEADER, line)
        return mutate.header_precheck(
            self.tree, m, mock.Mock(), 'main', Path('/c'), 't1', self.TEXT)

    def test_macro_lines(self) -> None:
        lines = self.TEXT.split('\n')
        self.assertFalse(mutate.in_macro(lines, 4))
        self.assertTrue(mutate.in_macro(lines, 12))
        self.assertTrue(mutate.in_macro(lines, 13))

    def test_the_unit_is_one_that_includes_the_header(self) -> None:
        self.assertEqual(mutate.header_unit(self.tree, self.HEADER, 'main'),
                         'mm/c.c')
        self.assertEqual(mutate.header_unit(self.tree, 'include/x.h',
                                            'main'), '')

    def test_a_line_preprocessed_away_is_not_run(self) -> None:
        make = self.preprocesses_to(b'int a(void) { return 1; }',
                                    b'int a(void) { return 1; }')
        mtime = (self.root / self.HEADER).stat().st_mtime_ns
        verdict, why = self.precheck(9)
        self.assertEqual(verdict, mutate.SAME_OBJECT)
        self.assertIn('mm/c.c preprocesses to the patched text', why)
        self.assertEqual(make.call_count, 2)
        self.assertFalse(self.out.exists())
        # The header keeps its time, so nothing that includes it rebuilds.
        self.assertEqual((self.root / self.HEADER).stat().st_mtime_ns,
                         mtime)

    def test_a_compiled_line_is_run(self) -> None:
        self.preprocesses_to(b'int a(void) { return 1; }',
                             b'int a(void) { return 2; }')
        self.assertEqual(self.precheck(4), ('', ''))

    def test_a_macro_line_is_run_without_preprocessing(self) -> None:
        make = self.preprocesses_to()
        self.assertEqual(self.precheck(13), ('', ''))
        self.assertEqual(make.call_count, 0)

    def test_the_patched_text_is_made_once_per_tree(self) -> None:
        make = self.preprocesses_to(b'x', b'y', b'z')
        self.precheck(4)
        self.precheck(9)
        self.assertEqual(make.call_count, 3)


class JudgeHeaderTest(unittest.TestCase):
    """mutate.judge() of a header mutant, its precheck and its build
    mocked."""

    def setUp(self) -> None:
        results = Path(tempfile.mkdtemp())
        self.enterContext(mock.patch.object(project, 'RESULTS', results))
        self.enterContext(mock.patch.object(
            mutate.project, 'git',
            return_value=mock.Mock(stdout='\tif (a < b)\nb\n')))
        self.steps: list = []
        self.build_lane = self.enterContext(mock.patch.object(
            mutate.mutants, 'build_lane',
            side_effect=lambda *a: self.steps.append('build')))
        self.tree = Path('/x')

    def judge(self, precheck: tuple = ('', ''), built: object = None,
              **kwargs: object) -> 'mutate.Result':
        """The verdict when the precheck says precheck and the narrowed
        build gives built (outcomes, or an exception it raises)."""
        def checked(*args: object) -> tuple:
            self.steps.append('precheck')
            return precheck
        self.enterContext(mock.patch.object(
            mutate, 'header_precheck', side_effect=checked))
        self.enterContext(mock.patch.object(
            mutate.mutants, 'outcomes_narrowed_first',
            **({'side_effect': built} if isinstance(built, Exception)
               else {'return_value': built})))
        return mutate.judge(Tree('mutant', self.tree), '0008', 1,
                            mutation('include/linux/a.h', 1),
                            mutate.Target('0008', 'ptc', ('s',)),
                            Path('/c'), 't1', {}, **kwargs)

    def test_a_lane_with_no_kernel_is_built_before_the_precheck(
            self) -> None:
        # On a machine new to the mutant tree, 0005-001 (a line of the
        # !CONFIG_SPARSEMEM stub) skipped its precheck, was built whole
        # and survived: the precheck needs the lane's unmutated build.
        self.judge((mutate.SAME_OBJECT, 'compiled out'))
        self.assertEqual(self.steps, ['build', 'precheck'])
        self.assertEqual(self.build_lane.call_args.args[1], 'ptc')

    def test_a_lane_with_a_kernel_is_not_built_again(self) -> None:
        self.tree = Path(tempfile.mkdtemp())
        build = self.tree / mutate.kunit_run.build_dir_name('ptc')
        build.mkdir()
        (build / 'vmlinux').write_bytes(b'')
        self.judge((mutate.SAME_OBJECT, 'compiled out'))
        self.assertEqual(self.steps, ['precheck'])

    def test_a_header_mutant_is_only_applied_by_its_precheck(self) -> None:
        apply = self.enterContext(mock.patch.object(mutate.mutants, 'apply'))
        got = self.judge((mutate.SAME_OBJECT, 'compiled out'))
        self.assertEqual(got.verdict, mutate.SAME_OBJECT)
        # Applying and resetting the header outside the precheck would
        # give it a new mtime, and the narrowed build would rebuild all.
        apply.assert_not_called()

    def test_a_patch_that_does_not_apply_is_not_judged(self) -> None:
        # git apply's own message says "error:", as a compiler's does.
        got = self.judge(built=mutate.mutants.NotApplied(
            'mutant 0008-009 does not apply to the patched tree: '
            'error: include/linux/a.h: patch does not apply'))
        self.assertEqual(got.verdict, mutate.NOT_JUDGED)

    def test_a_kernel_that_does_not_link_is_not_built(self) -> None:
        # The message kunit_run.execute() gives, with first_error()'s line.
        got = self.judge(built=SeriesError(
            'mutant tree, mutant 0018-158: kunit.py failed (exit 1, see '
            "x.failed): vmalloc.c:(.text+0x8c00): multiple definition of "
            "`kvfree'; mm/util.o:util.c:(.text+0x3c8): first defined here"))
        self.assertEqual(got.verdict, mutate.NO_BUILD)

    def test_a_kernel_that_fails_after_its_build_is_not_judged(
            self) -> None:
        got = self.judge(built=SeriesError(
            'kunit.py failed (exit 1): ERROR:root:qemu-system-aarch64: '
            'cannot set up guest memory'))
        self.assertEqual(got.verdict, mutate.NOT_JUDGED)

    def test_the_run_s_manifest_judges_not_the_file(self) -> None:
        # A case added to kunit/manifest.tsv while the run goes on is not
        # in the kernels the run built: it must not count as a kill.
        load = self.enterContext(mock.patch.object(mutate.manifest, 'load'))
        got = self.judge(built={'s.old': 'pass'}, expected={})
        self.assertEqual(got.verdict, mutate.SURVIVED)
        load.assert_not_called()

    def test_a_kernel_that_reported_no_case_is_not_a_kill(self) -> None:
        got = self.judge(built=mutate.mutants.NoCaseReported(
            'mutant 0009-004: the kernel reported no case',
            stopped_boot=False), expected={})
        self.assertEqual(got.verdict, mutate.NOT_JUDGED)

    def test_a_mutant_that_stops_the_boot_is_killed(self) -> None:
        # 0019-003 (nr_allocated <= nr_pages): the kernel printed nothing
        # within the boot limit; any suite on any lane tells it apart.
        got = self.judge(built=mutate.mutants.NoCaseReported(
            'mutant 0019-003: the kernel reported no case (the kernel '
            'printed nothing for 45 s after QEMU started: QEMU stopped)',
            stopped_boot=True), expected={})
        self.assertEqual((got.verdict, got.kills), (mutate.KILLED,
                                                     ('(boot)',)))
        self.assertIn('printed nothing', got.detail)


class KeptVerdictsTest(unittest.TestCase):
    TARGET = mutate.Target('0018', 'ptc', ('vmalloc_bulk_free',))

    def setUp(self) -> None:
        self.results = Path(tempfile.mkdtemp())
        self.enterContext(mock.patch.object(project, 'RESULTS',
                                            self.results))
        self.table = self.results / 'verdicts.tsv'
        self.spot: set = set()
        self.chosen = [mutation('mm/a.c', 1),
                       mutate.mutate_gen.Mutation('mm/a.c', 2, 'neg',
                                                  '\tif (a < b)',
                                                  '\tif (!(a < b))', 'neg')]

    def judge_patch(self, verdicts: list, keys: tuple = ('a' * 24,
                                                         'b' * 24),
                    equivalents: dict = {}, day: str = '2026-12-05'
                    ) -> list:
        def judge(tree, patch, i, m, target, cache, tid, eq,  # noqa: ANN001
                  expected=None):  # noqa: ANN001
            verdict = verdicts.pop(0)
            return mutate.Result(patch, m, verdict, kills=(
                ('s.c',) if verdict == mutate.KILLED else ()))
        table = mutate.verdicts.Table(self.table)
        with mock.patch.object(mutate, 'judge', side_effect=judge) as j, \
                mock.patch.object(mutate.verdicts, 'spot_checked',
                                  side_effect=lambda k, d: k in self.spot):
            got = mutate.judge_patch(Tree('mutant', Path('/x')), Path('/c'),
                                     '0018', self.TARGET,
                                     list(zip(keys, self.chosen)), table,
                                     't1', equivalents, day=day)
        self.calls = j.call_count
        return [r.verdict for r in got]

    def test_a_run_cut_short_goes_on_where_it_stopped(self) -> None:
        self.assertEqual(self.judge_patch([mutate.KILLED,
                                           mutate.NOT_JUDGED]),
                         [mutate.KILLED, mutate.NOT_JUDGED])
        # The kill is in the table; what could not be judged is not.
        self.assertEqual(len(mutate.verdicts.load(self.table)), 1)
        self.assertEqual(self.judge_patch([mutate.SURVIVED]),
                         [mutate.KILLED, mutate.SURVIVED])
        self.assertEqual(self.calls, 1)

    def test_a_kept_row_says_its_day_and_its_kills(self) -> None:
        self.judge_patch([mutate.KILLED, mutate.SURVIVED], day='2026-11-30')
        rows = mutate.verdicts.load(self.table)
        self.assertEqual([(r.verdict, r.killed_by, r.day)
                          for r in rows.values()],
                         [(mutate.KILLED, ('s.c',), '2026-11-30'),
                          (mutate.SURVIVED, (), '2026-11-30')])
        with mock.patch('sys.stdout', new=io.StringIO()) as out:
            self.judge_patch([])
        self.assertIn('killed (kept, 2026-11-30)', out.getvalue())

    def test_another_key_judges_again(self) -> None:
        self.judge_patch([mutate.KILLED, mutate.KILLED])
        self.assertEqual(self.judge_patch([mutate.SURVIVED, mutate.KILLED],
                                          keys=('c' * 24, 'd' * 24)),
                         [mutate.SURVIVED, mutate.KILLED])
        self.assertEqual(self.calls, 2)

    def test_the_spot_check_judges_again_and_agrees(self) -> None:
        self.judge_patch([mutate.KILLED, mutate.SURVIVED])
        self.spot = {'b' * 24}
        self.assertEqual(self.judge_patch([mutate.SURVIVED]),
                         [mutate.KILLED, mutate.SURVIVED])
        self.assertEqual(self.calls, 1)

    def test_a_spot_check_that_disagrees_stops_the_run(self) -> None:
        self.judge_patch([mutate.KILLED, mutate.SURVIVED], day='2026-11-30')
        before = self.table.read_text()
        self.spot = {'b' * 24}
        with self.assertRaisesRegex(SeriesError, r'^spot check: 0018-002 '
                                    r'mm/a\.c:2 neg was survived '
                                    r'\(2026-11-30\), is killed now'):
            self.judge_patch([mutate.KILLED])
        self.assertEqual(self.table.read_text(), before)

    def test_a_reviewed_equivalent_wins_over_a_kept_survivor(self) -> None:
        self.judge_patch([mutate.SURVIVED, mutate.KILLED])
        eq = {mutate.equivalent_key('0018', self.chosen[0]): 'same code'}
        self.assertEqual(self.judge_patch([], equivalents=eq),
                         [mutate.EQUIVALENT, mutate.KILLED])
        self.assertEqual(self.calls, 0)

    def test_deferred_mutants_wait_for_their_own_builds(self) -> None:
        # The schema kernel takes the second mutant, not the first: the
        # first pass judges only the second and defers the first under
        # its index; the second pass (only) judges the first by a build.
        def on_schema(patch, i, m, target):  # noqa: ANN001
            return mutate.Result(patch, m, mutate.KILLED, ('s.c',)) \
                if i == 2 else None
        table = mutate.verdicts.Table(self.table)
        chosen = list(zip(('a' * 24, 'b' * 24), self.chosen))
        later: list = []
        timings: list = []
        with mock.patch.object(mutate, 'judge', side_effect=lambda *a, **k:
                               mutate.Result('0018', a[3],
                                             mutate.SURVIVED)) as j:
            first = mutate.judged_items(
                Tree('mutant', Path('/x')), Path('/c'), '0018', self.TARGET,
                chosen, table, 't1', {}, day='2026-12-06',
                on_schema=on_schema, deferred=later, timings=timings)
            self.assertEqual((list(first), later, j.call_count),
                             ([2], [1], 0))
            second = mutate.judged_items(
                Tree('mutant', Path('/x')), Path('/c'), '0018', self.TARGET,
                chosen, table, 't1', {}, day='2026-12-06', only={1},
                timings=timings)
        self.assertEqual({i: r.verdict for i, r in second.items()},
                         {1: mutate.SURVIVED})
        self.assertEqual([how for how, _ in timings], ['schema', 'separate'])
        self.assertEqual(len(mutate.verdicts.load(self.table)), 2)

    def test_a_schema_survivor_compiled_like_patched_is_same_object(
            self) -> None:
        # 0003-010's VM_WARN_ON() is compiled out without DEBUG_VM: no
        # case reaches its guard, and a build of its own finds the
        # patched object. Only survivors and uncovered mutants are
        # checked; a kill stands as the schema kernel found it.
        schema_says = {1: mutate.NOT_COVERED, 2: mutate.SURVIVED,
                       3: mutate.KILLED}

        def on_schema(patch, i, m, target):  # noqa: ANN001
            return mutate.Result(patch, m, schema_says[i])

        def prechecked(tree, patch, i, m, *rest):  # noqa: ANN001
            checked.append(i)
            return (mutate.Result(patch, m, mutate.SAME_OBJECT,
                                  detail='compiles to the patched object')
                    if i == 1 else None), None
        checked: list = []
        table = mutate.verdicts.Table(self.table)
        chosen = list(zip(('a' * 24, 'b' * 24, 'c' * 24),
                          self.chosen + [mutation('mm/a.c', 3)]))
        with mock.patch.object(mutate, 'prechecked', side_effect=prechecked):
            got = mutate.judged_items(
                Tree('mutant', Path('/x')), Path('/c'), '0018', self.TARGET,
                chosen, table, 't1', {}, day='2026-12-06',
                on_schema=on_schema)
        self.assertEqual({i: r.verdict for i, r in got.items()},
                         {1: mutate.SAME_OBJECT, 2: mutate.SURVIVED,
                          3: mutate.KILLED})
        self.assertEqual(checked, [1, 2])
        self.assertEqual(got[1].detail, 'compiles to the patched object '
                         '(not covered on the schema kernel)')

    def test_the_report_covers_every_patch_run_so_far(self) -> None:
        for patch, verdicts, sample in (('0018', (mutate.KILLED,
                                                  mutate.SURVIVED), 0),
                                        ('0019', (mutate.KILLED,), 10)):
            results = tuple(mutate.Result(patch, mutation('mm/a.c', i), v,
                                          seconds=30.0)
                            for i, v in enumerate(verdicts, 1))
            run = mutate.PatchRun(patch, 5, 40 if sample else 2, sample, 1,
                                  results)
            d = self.results / 'mutate' / patch
            d.mkdir(parents=True)
            (d / 'run.json').write_text(json.dumps(run.as_dict()))
        targets = {p: mutate.Target(p, 'ptc', ('s',)) for p in ('0018',
                                                                '0019')}
        explained = self.results / 'survivors.tsv'
        explained.write_text('0018\tmm/a.c\tif (a < b)\tif (a <= b)\t'
                             'a and b are never equal on these machines\n')
        with mock.patch.object(mutate, 'EXPLAINED', explained):
            text = mutate.write_report(targets)
        self.assertIn('| 0018 | full (added) | - | - | 0 | 1 min |', text)
        self.assertIn('| 0019 | sample of 10 a scope (seed 1) (added) | - | - '
                      '| 0 | 20 min |', text)
        self.assertIn('on ptc; explained: a and b are never equal on these '
                      'machines', text)
        self.assertTrue(text.endswith('mutate: 2 of 3 mutants killed over '
                                      '2 patches (equivalent, same object '
                                      'and unbuilt left out); 0 survivors '
                                      'unexplained'))
        data = json.loads((self.results / 'mutate' / 'report.json')
                          .read_text())
        self.assertEqual([m['explained'] != '' for m in data['mutants']],
                         [False, True, False])
        self.assertEqual([p['full_run_seconds'] for p in data['patches']],
                         [60.0, 1200.0])
        # The explained survivor is reviewed already: nothing to review.
        self.assertEqual(
            [line for line in (self.results / 'mutate' / 'to-review.tsv')
             .read_text().splitlines() if not line.startswith('#')], [])

    def test_to_review_lists_unexplained_survivors_and_uncovered(self
                                                                 ) -> None:
        results = [mutate.Result('0018', mutate.mutate_gen.Mutation(
            'mm/a.c', i, 'ror', f'\tif (a{i} < b)', f'\tif (a{i} <= b)',
            '`<` to `<=`'), v)
                   for i, v in enumerate((mutate.KILLED, mutate.SURVIVED,
                                          mutate.NOT_COVERED,
                                          mutate.SURVIVED), 1)]
        # A move spans two lines: its row keeps to one.
        results[2] = replace(results[2], mutation=replace(
            results[2].mutation, original='\ta3();\n\tb();',
            mutated='\tb();\n\ta3();'))
        m = results[3].mutation
        explained = {mutate.equivalent_key('0018', m): 'reviewed'}
        # A reviewed uncovered mutant is not listed either.
        self.assertNotIn('a3();', mutate.to_review(results, {
            **explained, mutate.equivalent_key('0018', results[2].mutation):
            'no lane runs it'}))
        lines = mutate.to_review(results, explained).splitlines()
        rows = [line.split('\t') for line in lines
                if not line.startswith('#')]
        self.assertEqual([(r[0], r[1], r[-1]) for r in rows],
                         [('0018', 'mm/a.c', '')] * 2)
        self.assertEqual([r[2:4] for r in rows],
                         [['if (a2 < b)', 'if (a2 <= b)'],
                          ['a3(); b();', 'b(); a3();']])
        self.assertIn('# survived (added): mm/a.c:2 ', lines[2])
        self.assertIn('# not-covered (added): mm/a.c:3 ', lines[4])


class SchemaJudgeTest(unittest.TestCase):
    """Which mutants the schema kernel judges, from what id 0's boot says
    it reached: a case, the boot before the suites, or code that ran
    before mm_mutant= was read."""
    TARGET = mutate.Target('0017', 'main', ('arm64_lazy_mmu',))

    def judge(self, zero: 'reach.Reach',
              booted: 'schemata.Boot') -> tuple:
        m = mutation('arch/arm64/include/asm/pgtable.h', 9)
        where = {4: schema.Placement(4, m, schema.EXPRESSION)}
        built = schemata.Built(Tree('schema', Path('/x')), where, 4,
                                      1.0, 1)
        judge = mutate.SchemaJudge(Path('/c'), built, {m: 4}, {})
        zero_boot = schemata.Boot({}, zero, Path('/r'), 1.0)
        globs: list = []

        def boot(built, cache, lane, n, glob, name):  # noqa: ANN001
            globs.append((n, glob))
            return zero_boot if n == 0 else booted
        with mock.patch.object(mutate.schemata, 'boot', side_effect=boot), \
                mock.patch.object(mutate.schemata, 'id0_rows',
                                  return_value=[]):
            got = judge('0017', 1, m, self.TARGET)
        return got, globs[1:], judge.left

    def test_a_mutant_only_the_boot_reaches_is_judged_by_its_suites(
            self) -> None:
        # The early fixmap's pte writes: run mutated (the id is set
        # before C code), reached by no case again.
        outcomes = {'arm64_lazy_mmu.nested_sections_test': 'pass'}
        got, globs, _ = self.judge(
            reach.Reach(mutant=0, carried=4, boot={4}),
            schemata.Boot(outcomes, reach.Reach(mutant=4),
                                 Path('/r'), 1.0))
        self.assertEqual(globs, [(4, 'arm64_lazy_mmu')])
        self.assertEqual(got.verdict, mutate.SURVIVED)

    def test_reached_by_nothing_is_not_covered_without_a_boot(self) -> None:
        got, globs, _ = self.judge(
            reach.Reach(mutant=0, carried=4), None)
        self.assertEqual((got.verdict, globs), (mutate.NOT_COVERED, []))

    def test_code_run_before_the_id_was_read_goes_to_a_build(self) -> None:
        # A kernel whose early code did not set the id: what ran before
        # the early parameter ran unmutated.
        got, globs, left = self.judge(
            reach.Reach(mutant=0, carried=4, early={4}, boot={4}),
            None)
        self.assertEqual((got, globs), (None, []))
        self.assertEqual(left, {'runs before mm_mutant= is parsed': 1})


class CasesReportedTest(unittest.TestCase):
    def test_an_oops_before_any_case_is_no_case(self) -> None:
        """The boot crashed before the schema kernel named its mutant:
        the caller judges the stopped boot, as for a silent one."""
        self.assertEqual(kernel_log.cases_reported(
            {kernel_log.AFTER_SUITES: 'fail'}), {})
        self.assertEqual(kernel_log.cases_reported({}), {})

    def test_cases_keep_the_oops_after_them(self) -> None:
        got = {'a.b': 'pass', kernel_log.AFTER_SUITES: 'fail'}
        self.assertEqual(kernel_log.cases_reported(got), got)


class StandingTest(unittest.TestCase):
    def test_only_rows_whose_keys_hold_count_and_the_rest_is_named(
            self) -> None:
        ms = [mutate.mutate_gen.Mutation('mm/a.c', i, 'ror', f'\tx = {i};',
                                         f'\tx = {i + 1};', 'constant')
              for i in range(1, 5)]
        with tempfile.TemporaryDirectory() as d:
            table = mutate.verdicts.Table(Path(d) / 'v.tsv')
            for key, verdict, day in (('k1', mutate.KILLED, '2026-12-01'),
                                      ('k2', mutate.NOT_COVERED,
                                       '2026-12-03'),
                                      ('old', mutate.KILLED, '2026-11-01')):
                table.put(mutate.verdicts.Row(key, '0018', 'added',
                                              'mm/a.c:1', verdict, day=day))
            equivalent = {mutate.equivalent_key('0018', ms[2]): 'same'}
            g = mutate.Generated('0018', 7, ms, mutate.Touched((), 0, ()),
                                 {'added': dict(zip(ms, ('k1', 'k2', 'k3',
                                                         'k4')))})
            (s, unjudged, day, open_), = mutate.standing([g], table,
                                                         equivalent)
            reviewed = {mutate.equivalent_key('0018', ms[1]): 'no lane'}
            (_, _, _, none_open), = mutate.standing([g], table, equivalent,
                                                    reviewed)
        self.assertEqual((s.generated, s.killed, s.not_covered,
                          s.equivalent, unjudged, day),
                         (4, 1, 1, 1, 1, '2026-12-03'))
        self.assertEqual(s.score, 0.5)
        # The uncovered mutant has no reason until a row gives one.
        self.assertEqual((open_, none_open), (1, 0))


class CostSummaryTest(unittest.TestCase):
    def test_medians_and_workers(self) -> None:
        text = mutate.cost_summary([('schema', 2.0), ('schema', 4.0),
                                    ('schema', 60.0), ('separate', 30.0)],
                                   120.0, workers=(1, 2))
        self.assertEqual(text.splitlines(), [
            'cost: 4 mutants judged, median 17.0 s each (schema boots: 3, '
            'median 4.0 s; builds of their own: 1, median 30.0 s); schema '
            'kernel built in 120 s',
            # 120 + 30 + 66 / n seconds
            'cost: with 1 LAVA worker this run takes 3.6 min',
            'cost: with 2 LAVA workers this run takes 3.0 min'])

    def test_no_build_of_its_own(self) -> None:
        self.assertIn('builds of their own: 0, median -',
                      mutate.cost_summary([('schema', 2.0)], 0.0))


class BlameTest(unittest.TestCase):
    def test_porcelain_headers_give_each_lines_commit(self) -> None:
        a, b = 'a' * 40, 'b' * 40
        porcelain = (f'{a} 1 1 2\nauthor x\n\tline one\n{a} 2 2\n\tline two\n'
                     f'{b} 1 3 1\nauthor y\n\tline three\n')
        self.assertEqual(mutate.blame_commits(porcelain),
                         {1: a, 2: a, 3: b})


if __name__ == '__main__':
    unittest.main()


class Id0CheckTest(unittest.TestCase):
    """make mutate ID0=lanes: the schema kernel built for each lane with
    that lane's configuration and booted with mutant 0, its matrix
    against the patched tree's."""

    def setUp(self) -> None:
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.manifest = Path(tmp.name) / 'manifest.tsv'
        self.manifest.write_text('s.a\tfail\tpass\tF1\tx\n'
                                 's.b\tpass\tpass\tF1\t-\n')
        added = mutation('mm/a.c', 1)
        touched = mutation('mm/a.c', 2, 'neg')
        self.generated = [mutate.Generated(
            '0018', 1, [added], mutate.Touched(('mm/a.c:f',), 3,
                                               (touched,)),
            {mutate.ADDED: {added: 'k1'}, mutate.TOUCHED: {touched: 'k2'}})]

    def check(self, outcomes: dict, lanes: tuple) -> tuple:
        built = schemata.Built(Tree('schema', Path('/x')), {}, 2, 1.0, 1)
        out = io.StringIO()
        with mock.patch.object(mutate, 'generated_mutants',
                               return_value=self.generated), \
                mock.patch.object(mutate, 'load_targets', return_value={
                    '0018': mutate.Target('0018', 'ptc', ('s',))}), \
                mock.patch.object(mutate, 'load_equivalents',
                                  return_value={}), \
                mock.patch.object(project, 'MANIFEST', self.manifest), \
                mock.patch.object(schemata, 'build',
                                  return_value=built) as build, \
                mock.patch.object(schemata, 'boot', return_value=
                                  schemata.Boot(outcomes, reach.Reach(),
                                                Path('/r'), 2.0)) as boot, \
                mock.patch('sys.stdout', out):
            differ = mutate.id0_check(Path('/cache'), [], lanes)
        return differ, build, boot, out.getvalue()

    def test_each_lane_builds_its_own_kernel_and_boots_mutant_0(self
                                                                 ) -> None:
        differ, build, boot, out = self.check({'s.a': 'pass', 's.b': 'pass'},
                                              ('16k', '64k'))
        self.assertEqual(differ, 0)
        self.assertEqual([c.args[2] for c in build.call_args_list],
                         ['16k', '64k'])
        # Every generated mutant is carried, ids 1 up.
        self.assertEqual([n for n, _ in build.call_args.args[1]], [1, 2])
        self.assertEqual([c.args[2:4] for c in boot.call_args_list],
                         [('16k', 0), ('64k', 0)])
        self.assertIn('mutant 0, lane 16k: 2 cells as the patched tree\'s, '
                      '0 differ', out)

    def test_a_cell_that_differs_is_counted_and_named(self) -> None:
        differ, _, _, out = self.check({'s.a': 'fail', 's.b': 'pass'},
                                       ('16k',))
        self.assertEqual(differ, 1)
        self.assertIn('differs: s.a pass/fail', out)

    def test_an_unknown_lane_is_refused_before_any_build(self) -> None:
        with mock.patch.object(schemata, 'build') as build, \
                self.assertRaisesRegex(SeriesError, 'unknown lane 32k'):
            mutate.id0_check(Path('/cache'), [], ('32k',))
        build.assert_not_called()
