# SPDX-License-Identifier: GPL-2.0
import contextlib
import io
import unittest
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
        with mock.patch.object(mmseries, 'run_unit',
                                  return_value=(30, 1)), \
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
                contextlib.redirect_stdout(out):
            self.assertEqual(mmseries.main(['test']), 1)
        smoke.assert_called_once_with('smoke', 1, 'host')
        self.assertEqual(out.getvalue().splitlines()[-1],
                         '72 passed, 4 failed')

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
                contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(mmseries.main(['report', '--profile=smoke',
                                            '--boots=2', '--clock=icount']),
                             0)
            self.assertEqual(mmseries.main(['report']), 0)
        self.assertEqual(bench.call_args_list,
                         [mock.call('smoke', 2, 'icount'),
                          mock.call('quick', 4, 'host')])

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

    def test_unit_runner_without_counts_is_an_error(self) -> None:
        done = mock.Mock(returncode=1, stdout='Traceback ...\nImportError\n')
        with mock.patch.object(mmseries.subprocess, 'run',
                               return_value=done), \
                contextlib.redirect_stdout(io.StringIO()), \
                self.assertRaisesRegex(SeriesError, 'without their counts'):
            mmseries.run_unit()


if __name__ == '__main__':
    unittest.main()
