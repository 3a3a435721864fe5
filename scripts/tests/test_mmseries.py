# SPDX-License-Identifier: GPL-2.0
import contextlib
import io
import sys
import time
import unittest
from pathlib import Path
from unittest import mock

import hunks
import mmseries
from project import SeriesError


class MainTest(unittest.TestCase):
    def test_a_failure_is_one_line_and_exit_1(self) -> None:
        err = io.StringIO()
        boom = mock.Mock(side_effect=SeriesError('patch 0002-x.patch does '
                                                 'not apply: hunk at a.c:3 '
                                                 'failed'))
        with mock.patch.dict(mmseries.COMMANDS, {'trees': (boom, 'x')}), \
                contextlib.redirect_stderr(err):
            self.assertEqual(mmseries.main(['trees']), 1)
        self.assertEqual(err.getvalue(), 'error: patch 0002-x.patch does not '
                         'apply: hunk at a.c:3 failed\n')

    def test_main_lane_columns_are_plain_tree_names(self) -> None:
        self.assertEqual(mmseries.column_name('base', 'main'), 'base')
        self.assertEqual(mmseries.column_name('patched', 'ptc'),
                         'patched+ptc')

    def test_unknown_command_is_refused(self) -> None:
        with contextlib.redirect_stderr(io.StringIO()), \
                self.assertRaises(SystemExit) as ctx:
            mmseries.main(['no-such-command'])
        self.assertEqual(ctx.exception.code, 2)

    def test_test_command_sums_host_tests_and_matrix_cells(self) -> None:
        out = io.StringIO()
        unit = contextlib.nullcontext(lambda: (30, 1))
        with mock.patch.object(mmseries, 'unit_alongside',
                               return_value=unit), \
                mock.patch.object(mmseries, 'run_verify',
                                  return_value=(15, 1)), \
                mock.patch.object(mmseries, 'run_checkpatch',
                                  return_value=(18, 1)), \
                mock.patch.object(mmseries, 'print_hunks',
                                  return_value=hunks.Coverage(
                                      5, {('0002', 'a.c', 1): ['m']},
                                      {('0002', 'a.c', 2): 'doc'},
                                      [], ['0002 a.c#9: no such hunk'])), \
                mock.patch.object(mmseries, 'run_bench',
                                  return_value=(7, 0)) as smoke, \
                mock.patch.object(mmseries, 'run_cover_check',
                                  return_value=(0, 1)), \
                mock.patch.object(mmseries, 'run_lava_check',
                                  return_value=(4, 1)), \
                contextlib.redirect_stdout(out):
            self.assertEqual(mmseries.main(['test']), 1)
        smoke.assert_called_once_with('smoke', 1, 'host')
        self.assertEqual(out.getvalue().splitlines()[-1],
                         '76 passed, 6 failed')

    def test_unknown_names_are_refused_before_the_build_lock(self) -> None:
        lock = mock.Mock(side_effect=AssertionError('took the lock'))
        for argv, message in ((['mutants', 'no-such-mutant'],
                               'no-such-mutant'),
                              (['walk', '--bench=no_such_bench'],
                               'no benchmark suite matches')):
            err = io.StringIO()
            with mock.patch.object(mmseries.project, 'build_lock', lock), \
                    contextlib.redirect_stderr(err):
                self.assertEqual(mmseries.main(argv), 1)
            self.assertEqual(len(err.getvalue().splitlines()), 1)
            self.assertIn(message, err.getvalue())
        lock.assert_not_called()

    def test_bench_options_are_checked(self) -> None:
        err = io.StringIO()
        with contextlib.redirect_stderr(err), \
                self.assertRaises(SystemExit) as ctx:
            mmseries.main(['bench', '--profile=huge'])
        self.assertEqual(ctx.exception.code, 2)
        self.assertIn('invalid choice', err.getvalue())
        with contextlib.redirect_stderr(io.StringIO()), \
                self.assertRaises(SystemExit):
            mmseries.main(['verify', '--boots=3'])
        for command in ('bench', 'report'):
            err = io.StringIO()
            with contextlib.redirect_stderr(err), \
                    self.assertRaises(SystemExit) as ctx:
                mmseries.main([command, '--boots=0'])
            self.assertEqual(ctx.exception.code, 2)
            self.assertIn("'0' is not a number >= 1", err.getvalue())

    def test_report_takes_the_benchmark_options(self) -> None:
        with mock.patch.object(mmseries, 'run_verify',
                               return_value=(10, 0)), \
                mock.patch.object(mmseries, 'run_checkpatch',
                                  return_value=(19, 0)), \
                mock.patch.object(mmseries, 'run_bench',
                                  return_value=(3, 0)) as bench, \
                mock.patch.object(mmseries.cover, 'write',
                                  return_value='build/cover-letter.txt'), \
                mock.patch.object(mmseries, 'print_attribution'), \
                contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(mmseries.main(['report', '--profile=smoke',
                                            '--boots=2', '--clock=icount']),
                             0)
            self.assertEqual(mmseries.main(['report']), 0)
        self.assertEqual(bench.call_args_list,
                         [mock.call('smoke', 2, 'icount'),
                          mock.call('quick', 3, 'both')])

    def test_every_subcommand_has_help_and_a_make_target(self) -> None:
        make = (mmseries.project.REPO / 'Makefile').read_text()
        for name, (_, text) in mmseries.COMMANDS.items():
            self.assertTrue(text)
            self.assertRegex(make, rf'(?m)^[^#\n]*\b{name}\b[^\n]*:',
                             f'no make target for {name}')

    def test_unit_counts_come_from_the_hermetic_runner(self) -> None:
        out = io.StringIO()
        done = mock.Mock(returncode=1, stdout='..F\n2 passed, 1 failed\n')
        with mock.patch.object(mmseries.subprocess, 'run',
                               return_value=done) as run, \
                contextlib.redirect_stdout(out):
            self.assertEqual(mmseries.run_unit(), (2, 1))
        self.assertEqual(run.call_args.args[0][1:], ['-m', 'tests'])
        self.assertIn('2 passed, 1 failed', out.getvalue())

    def test_unit_alongside_runs_while_the_caller_goes_on(self) -> None:
        script = ('import time; time.sleep(0.2); '
                  'print("....\\n4 passed, 0 failed")')
        out = io.StringIO()
        with mock.patch.object(mmseries, 'unit_command',
                               return_value=([sys.executable, '-c', script],
                                             Path('.'))), \
                contextlib.redirect_stdout(out):
            start = time.monotonic()
            with mmseries.unit_alongside() as counts:
                self.assertLess(time.monotonic() - start, 0.2)
                self.assertEqual(counts(), (4, 0))
        self.assertIn('4 passed, 0 failed', out.getvalue())

    def test_unit_alongside_stops_them_when_the_caller_fails(self) -> None:
        script = 'import time; time.sleep(60)'
        started = []
        real_popen = mmseries.subprocess.Popen

        def popen(*args, **kwargs):  # type: ignore[no-untyped-def]
            started.append(real_popen(*args, **kwargs))
            return started[-1]
        with mock.patch.object(mmseries, 'unit_command',
                               return_value=([sys.executable, '-c', script],
                                             Path('.'))), \
                mock.patch.object(mmseries.subprocess, 'Popen',
                                  side_effect=popen), \
                self.assertRaises(SeriesError):
            with mmseries.unit_alongside():
                raise SeriesError('the base tree did not build')
        self.assertEqual(len(started), 1)
        self.assertIsNotNone(started[0].poll())

    def test_unit_runner_without_counts_is_an_error(self) -> None:
        done = mock.Mock(returncode=1, stdout='Traceback ...\nImportError\n')
        with mock.patch.object(mmseries.subprocess, 'run',
                               return_value=done), \
                contextlib.redirect_stdout(io.StringIO()), \
                self.assertRaisesRegex(SeriesError, 'without their counts'):
            mmseries.run_unit()


class BenchBothClocksTest(unittest.TestCase):
    KEY = mmseries.bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0',
                             'ns')
    TV = mmseries.bench.Key('test_vmalloc', 'fix_size_alloc_test',
                            'p=1 h=0', 'us')

    def measured(self, trees, profile, boots, clock, plugin
                 ) -> 'mmseries.Measured':
        self.calls.append((clock, plugin))
        exact = clock == 'icount'
        base = {self.KEY: [100.0] * 3 if exact else [90.0, 100.0, 130.0]}
        patched = {self.KEY: [106.0] * 3 if exact else [95.0, 80.0, 120.0]}
        counts = {t: {self.KEY: {c: [1.0] for c in
                                 mmseries.tcg_counts.COLUMNS}}
                  for t in ('base', 'patched')} if plugin else {}
        return mmseries.Measured(clock, base, patched,
                                 {self.TV: [7.0, 7.0]}, {self.TV: [8.0, 8.0]},
                                 counts, {})

    def test_host_then_icount_side_by_side(self) -> None:
        import tempfile
        from pathlib import Path
        self.calls: list = []
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(mmseries.project, 'RESULTS', Path(tmp)), \
                mock.patch.object(mmseries.project, 'build_lock'), \
                mock.patch.object(mmseries, 'prepare_trees',
                                  return_value={}), \
                mock.patch.object(mmseries.tcg_counts, 'try_build',
                                  return_value=(Path('/p.so'), '')), \
                mock.patch.object(mmseries.packages, 'try_optional',
                                  return_value=''), \
                mock.patch.object(mmseries.bench_report, 'draw_chart',
                                  return_value='chart: none'), \
                mock.patch.object(mmseries, 'measure',
                                  side_effect=self.measured), \
                contextlib.redirect_stdout(out):
            mmseries.run_bench('quick', 3, 'both')
            # Each clock's whole report is kept apart.
            for clock in ('host', 'icount'):
                self.assertTrue((Path(tmp) / 'bench' / clock /
                                 'report.txt').exists())
        # The plugin only on icount's boots.
        self.assertEqual(self.calls, [('host', None),
                                      ('icount', Path('/p.so'))])
        text = out.getvalue()
        self.assertIn('| fix_size_alloc_test: p:1, h:0 (ns) | -7.81% +-', text)
        self.assertIn('| (R) +6.00% +-0.00 (p 0.000) | (R) |', text)
        self.assertIn('icount: max half-width 0.00% over 1 cases', text)
        self.assertIn('host: max half-width', text)
        self.assertIn('seed rows: ', text)
        self.assertIn('What each operation executed', text)
        self.assertTrue(text.rstrip().endswith(
            'icount: max half-width 0.00% over 1 cases '
            '(fix_size_alloc_test: p:1, h:0 (ns))'), text[-200:])

    def test_an_unknown_clock_is_refused_before_any_boot(self) -> None:
        with mock.patch.object(mmseries, 'measure') as measure, \
                self.assertRaisesRegex(SeriesError, "unknown clock 'tsc'"):
            mmseries.run_bench('quick', 3, 'tsc')
        measure.assert_not_called()


class AttributionTest(unittest.TestCase):
    def test_the_walk_kept_in_the_cache_for_the_series_as_it_is(self
                                                                 ) -> None:
        import tempfile
        from pathlib import Path
        with tempfile.TemporaryDirectory() as tmp:
            cache, results = Path(tmp) / 'cache', Path(tmp) / 'build'
            cache.mkdir()
            (cache / mmseries.walk.ATTRIBUTION).write_text(
                'Which patch moved each benchmark (walk of patched '
                '0123456789ab):\n| x | y | z |\n')
            git = mock.Mock(return_value=mock.Mock(stdout=''))
            for patched, expected in (('0123456789ab', '| x | y | z |'),
                                      ('fedcba987654', 'not measured')):
                git.return_value.stdout = patched + 'cdef\n'
                out = io.StringIO()
                with mock.patch.object(mmseries.project, 'CACHE', cache), \
                        mock.patch.object(mmseries.project, 'RESULTS',
                                          results), \
                        mock.patch.object(mmseries.project, 'git', git), \
                        contextlib.redirect_stdout(out):
                    mmseries.print_attribution()
                self.assertIn(expected, out.getvalue())


if __name__ == '__main__':
    unittest.main()
