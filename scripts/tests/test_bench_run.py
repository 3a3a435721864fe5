# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import bench
import bench_run
import kunit_run
from project import SeriesError
from trees import Tree

SAMPLE = ('# t: mm_bench suite=vmalloc bench=fix_size_alloc_test p=1 h=0 '
          'loops=5 sample=0 value={} unit=ns\n')


class CommandTest(unittest.TestCase):
    def test_first_boot_builds_the_main_lanes_kernel(self) -> None:
        cmd = bench_run.command('run', 'quick', 'host', 2)
        self.assertEqual(cmd[2], 'run')
        # The same kernel, config for config, as the correctness runs.
        self.assertIn('--build_dir=.kunit-main', cmd)
        main = kunit_run.kunit_command('main', 2)
        self.assertEqual([a for a in cmd if a.startswith('--kunitconfig')],
                         [a for a in main if a.startswith('--kunitconfig')])
        self.assertNotIn('--filter=speed>slow', cmd)
        self.assertTrue(any(a.endswith('bench.kunitconfig') for a in cmd))
        self.assertIn('--kernel_args=mm_series_bench.profile=quick', cmd)
        self.assertEqual(cmd[-1], 'mm_bench*')

    def test_later_boots_only_boot(self) -> None:
        cmd = bench_run.command('exec', 'full', 'icount', 2, boot=2)
        self.assertEqual(cmd[2], 'exec')
        self.assertFalse(any(a.startswith('--kunitconfig') for a in cmd))
        self.assertIn('--qemu_args=-mem-prealloc -icount shift=0,sleep=off '
                      '-smp 1 -seed 3', cmd)

    def test_the_host_clock_only_preallocates_the_guests_memory(self
                                                             ) -> None:
        self.assertEqual([a for a in bench_run.command('exec', 'quick',
                                                       'host', 2, boot=1)
                          if a.startswith('--qemu_args')],
                         ['--qemu_args=-mem-prealloc'])

    def test_icount_boots_are_seeded_alike_on_both_trees(self) -> None:
        seen = []
        with mock.patch.object(bench_run.kunit_run, 'execute',
                               side_effect=lambda tree, what, name, cmd,
                               *rest: seen.append((tree.name, cmd)) or
                               Path('/none')), \
                mock.patch.object(bench_run.results, 'load',
                                  return_value={'s.t': 'pass'}), \
                mock.patch.object(Path, 'read_text', return_value=SAMPLE
                                  .format(5)):
            bench_run.ab(AbTest.TREES, Path('/c'), 'quick', 'icount', 2)
        seeds = [(name, [a for a in cmd if a.startswith('--qemu_args')])
                 for name, cmd in seen]
        icount = '--qemu_args=-mem-prealloc -icount shift=0,sleep=off -smp 1'
        self.assertEqual(seeds, [
            (tree, [f'{icount} -seed {n}'])
            for n in (1, 2) for tree in ('base', 'patched')])


class AbTest(unittest.TestCase):
    TREES = {'base': Tree('base', Path('/b')),
             'patched': Tree('patched', Path('/p'))}

    def test_alternates_and_pools(self) -> None:
        calls = []

        def boot(tree, cache, profile, clock, number, build,  # noqa: ANN001
                 plugin=None):
            calls.append((tree.name, number, build))
            value = 100 if tree.name == 'base' else 70
            # Two samples a boot: the boot counts once, with their mean.
            return {'s.c': 'pass'}, (SAMPLE.format(value + number) +
                                     SAMPLE.format(value + number + 2))

        with mock.patch.object(bench_run, 'boot', side_effect=boot):
            base, patched = bench_run.ab(self.TREES, Path('/c'), 'quick',
                                         'host', 2)
        self.assertEqual(calls, [('base', 0, True), ('patched', 0, True),
                                 ('base', 1, False), ('patched', 1, False)])
        key = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0', 'ns')
        self.assertEqual(base[key], [101.0, 102.0])
        self.assertEqual(patched[key], [71.0, 72.0])

    def test_the_plugins_windows_are_counted_per_tree(self) -> None:
        windows = {'base': 'mm_window 0 insns=1000 dsb=20 isb=10 dmb=0 '
                           'tlbi=4 ops=vale1is:4\n',
                   'patched': 'mm_window 0 insns=800 dsb=2 isb=1 dmb=0 '
                              'tlbi=1 ops=rvale1is:1\n'}
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(bench_run.project, 'RESULTS', Path(tmp)):
            def boot(tree, cache, profile, clock, number, build,  # noqa
                     plugin=None):
                self.assertEqual(plugin, Path('/p.so'))
                path = bench_run.plugin_log(tree, number)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(windows[tree.name])
                return {'s.c': 'pass'}, SAMPLE.format(5)

            counts: dict = {}
            with mock.patch.object(bench_run, 'boot', side_effect=boot):
                bench_run.ab(self.TREES, Path('/c'), 'quick', 'icount', 1,
                             Path('/p.so'), counts)
        key = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0', 'ns')
        # Five loops a sample: per operation.
        self.assertEqual(counts['base'][key]['dsb'], [4.0])
        self.assertEqual(counts['patched'][key]['tlbi_range'], [0.2])
        self.assertEqual(counts['base'][key]['tlbi_range'], [0.0])

    def test_a_failing_benchmark_stops_the_run(self) -> None:
        with mock.patch.object(bench_run, 'boot',
                               return_value=({'s.c': 'fail'}, '')):
            with self.assertRaisesRegex(SeriesError, 'base tree, bench boot '
                                        '0: 1 benchmark case.s. failed'):
                bench_run.ab(self.TREES, Path('/c'), 'quick', 'host', 1)

    def test_no_benchmark_is_an_error(self) -> None:
        with mock.patch.object(bench_run, 'boot', return_value=({}, '')):
            with self.assertRaisesRegex(SeriesError, 'no benchmark ran'):
                bench_run.ab(self.TREES, Path('/c'), 'quick', 'host', 1)

    def test_unknown_profile_or_clock(self) -> None:
        with self.assertRaisesRegex(SeriesError, 'unknown profile'):
            bench_run.ab(self.TREES, Path('/c'), 'huge', 'host', 1)
        with self.assertRaisesRegex(SeriesError, 'unknown clock'):
            bench_run.ab(self.TREES, Path('/c'), 'quick', 'sundial', 1)


class SuiteNamesTest(unittest.TestCase):
    def test_the_harness_suites(self) -> None:
        names = bench_run.suite_names()
        self.assertIn('mm_bench_vmalloc', names)
        self.assertIn('mm_bench_structural', names)
        self.assertEqual(bench_run.matching_suites('mm_bench_vmalloc.fix*'),
                         ['mm_bench_vmalloc'])
        self.assertEqual(bench_run.matching_suites('mm_bench*'), names)
        self.assertEqual(bench_run.matching_suites('vmalloc'), [])


if __name__ == '__main__':
    unittest.main()
