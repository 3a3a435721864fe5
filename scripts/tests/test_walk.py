# SPDX-License-Identifier: GPL-2.0
import unittest

import bench
import walk


class WalkTest(unittest.TestCase):
    def test_changed(self) -> None:
        self.assertEqual(walk.changed({'a': 'fail', 'b': 'pass'},
                                      {'a': 'pass', 'b': 'pass',
                                       'c': 'skip'}),
                         [('a', 'fail', 'pass'), ('c', 'missing', 'skip')])

    def test_render(self) -> None:
        key = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0', 'ns')
        steps = [
            walk.Step('c0', 'base', {'a': 'fail', 'b': 'fail'},
                      samples={key: [10.0, 10.1, 9.9]}),
            walk.Step('c1', 'F3', None, error='x.c:1:2: error: boom'),
            walk.Step('c2', 'F4', {'a': 'pass', 'b': 'fail'},
                      samples={key: [5.0, 5.1, 4.9]}),
            walk.Step('c3', 'F5', {'a': 'pass', 'b': 'pass'})]
        text = walk.render(steps)
        self.assertIn('| 00 | base | - | 2 cases, 2 not passing |', text)
        self.assertIn('| 01 | F3 | does not build | x.c:1:2: error: boom |',
                      text)
        # F4 is compared with base, the last prefix that built.
        self.assertIn('| 02 | F4 | 1 | a fail->pass |', text)
        self.assertIn('| bench | fix_size_alloc_test: p:1, h:0 (ns) (I) '
                      '-50.00% |', text)
        self.assertIn('| 03 | F5 | 1 | b fail->pass |', text)

    def test_attribution_names_the_patch_that_moved_each_row(self) -> None:
        fix = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=16 h=0', 'ns')
        ram = bench.Key('vmalloc', 'vm_map_ram_test', 'p=1 h=0', 'ns')
        steps = [
            walk.Step('c0', 'base (seams + suites)', {},
                      samples={fix: [100.0, 100.2, 99.8],
                               ram: [50.0, 50.5, 49.5]}),
            walk.Step('c1', 'arm64/mm: one pair', {},
                      samples={fix: [100.1, 100.0, 99.9],
                               ram: [50.0, 50.5, 49.5]}),
            walk.Step('c2', 'mm/vmalloc: lazy MMU', {},
                      samples={fix: [90.0, 90.2, 89.8],
                               ram: [50.2, 50.1, 49.9]})]
        steps[2].label = '0016'
        text = walk.attribution(steps)
        self.assertIn('| fix_size_alloc_test: p:16, h:0 (ns) | (I) -10.00% '
                      '| 0016 -10.0% (+-0.4) |', text)
        self.assertIn('| vm_map_ram_test: p:1, h:0 (ns) |', text)
        self.assertTrue(text.rstrip().endswith('| none |'))
        # An exact move smaller than the floor is counted, not named.
        exact = [walk.Step('c0', 'base', {}, samples={fix: [100.0] * 2}),
                 walk.Step('c1', 'x', {}, samples={fix: [100.5] * 2},
                           label='0002'),
                 walk.Step('c2', 'y', {}, samples={fix: [80.0] * 2},
                           label='0018')]
        self.assertIn('| 0018 -20.4% (+-0.0); 1 under 1% |',
                      walk.attribution(exact))
        self.assertEqual(walk.attribution(steps[:1]),
                         'no benchmark ran at two prefixes')

    def test_another_reason_is_named_at_its_prefix(self) -> None:
        steps = [walk.Step('c0', 'base', {'a': 'fail', 'b': 'fail'}),
                 walk.Step('c1', 'F9', {'a': 'fail:other', 'b': 'pass'}),
                 walk.Step('c2', 'F10', {'a': 'pass', 'b': 'pass'})]
        text = walk.render(steps)
        self.assertIn('| 01 | F9 | 2 | a fail->fail:other; b fail->pass |',
                      text)
        self.assertIn('|  |  | another reason | 1: a |', text)
        self.assertEqual(walk.other_reasons(steps[1]), ['a'])
        self.assertEqual(walk.other_reasons(steps[2]), [])


class RunStepTest(unittest.TestCase):
    def test_unbuildable_prefix_keeps_the_error(self) -> None:
        from pathlib import Path
        from unittest import mock
        from project import SeriesError
        from trees import Tree
        err = SeriesError('walk tree, prefix 0123: kunit.py failed (exit 1, '
                          'see /b/runs/walk-0123.failed): ../mm/x.c:3:16: '
                          "error: 'y' undeclared")
        with mock.patch.object(walk.trees, 'git'), \
                mock.patch.object(walk.kunit_run, 'execute',
                                  side_effect=err):
            step = walk.run_step(Tree('walk', Path('/t')), '0123abcd',
                                 'F3', Path('/c'), None, 3)
        self.assertIsNone(step.outcomes)
        self.assertEqual(step.error, "../mm/x.c:3:16: error: 'y' undeclared")

    def test_a_benchmark_walk_boots_only_the_benchmarks(self) -> None:
        import tempfile
        from pathlib import Path
        from unittest import mock
        from trees import Tree
        sample = ('# t: mm_bench suite=vmalloc bench=fix_size_alloc_test '
                  'p=1 h=0 loops=5 sample=0 value={} unit=ns\n')
        commands = []
        with tempfile.TemporaryDirectory() as tmp:
            def execute(tree, what, name, cmd, *rest):  # noqa: ANN001
                commands.append(cmd)
                run = Path(tmp) / name
                run.mkdir()
                (run / 'test.log').write_text(sample.format(
                    100 + len(commands)))
                (run / 'results.json').write_text('{}')
                return run

            with mock.patch.object(walk.trees, 'git'), \
                    mock.patch.object(walk.kunit_run, 'execute',
                                      side_effect=execute), \
                    mock.patch.object(walk.results, 'load',
                                      return_value={'b.c': 'pass'}):
                step = walk.run_step(Tree('walk', Path('/t')), '0123abcd',
                                     'F3', Path('/c'), 'mm_bench_vmalloc', 2,
                                     clock='icount')
        # No suites run: the first boot builds, the second only boots.
        self.assertEqual([c[2] for c in commands], ['run', 'exec'])
        self.assertTrue(all(c[-1] == 'mm_bench_vmalloc' for c in commands))
        self.assertIn('-icount', ' '.join(commands[0]))
        self.assertEqual(step.outcomes, {'b.c': 'pass'})
        key = walk.bench.Key('vmalloc', 'fix_size_alloc_test', 'p=1 h=0',
                             'ns')
        self.assertEqual(step.samples[key], [101.0, 102.0])


if __name__ == '__main__':
    unittest.main()
