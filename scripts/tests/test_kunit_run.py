# SPDX-License-Identifier: GPL-2.0
import shutil
import tempfile
import unittest
from pathlib import Path

import kunit_run
import project


class CommandTest(unittest.TestCase):
    def test_uses_the_trees_kunit_py_for_arm64(self) -> None:
        cmd = kunit_run.kunit_command('main', 2)
        self.assertEqual(cmd[1:3], ['tools/testing/kunit/kunit.py', 'run'])
        self.assertIn('--arch=arm64', cmd)
        self.assertIn('--cross_compile=aarch64-linux-gnu-', cmd)
        self.assertIn(f'--kunitconfig={project.KUNITCONFIG}', cmd)
        self.assertIn(f'--qemu_config={project.QEMU_CONFIG}', cmd)
        i = cmd.index('--make_options')
        self.assertEqual(cmd[i + 1], 'CC=ccache aarch64-linux-gnu-gcc')

    def test_page_table_check_lane_boots_the_main_kernel_checked(self) -> None:
        # One kernel for the 4K lanes: same fragments, same build
        # directory; the ptc lane differs only in what it boots on.
        cmd = kunit_run.kunit_command('ptc', 2)
        configs = [a for a in cmd if a.startswith('--kunitconfig=')]
        self.assertEqual(configs, [a for a in kunit_run.kunit_command(
            'main', 2) if a.startswith('--kunitconfig=')])
        self.assertTrue(configs[1].endswith('page_table_check.kunitconfig'))
        self.assertIn('--build_dir=.kunit-main', cmd)
        self.assertIn('--kernel_args=page_table_check=on', cmd)
        self.assertNotIn('--kernel_args=sysctl.vm.mem_profiling=never', cmd)
        main = kunit_run.kunit_command('main', 2)
        self.assertNotIn('--kernel_args=page_table_check=on', main)
        self.assertIn('--kernel_args=sysctl.vm.mem_profiling=never', main)
        # Both leave the benchmarks out.
        self.assertIn('--filter=speed>slow', cmd)
        # A check the main lane could not switch off at boot would run in
        # the benchmarks and in the main lane.
        fragment = (project.KUNIT_DIR /
                    'page_table_check.kunitconfig').read_text()
        self.assertNotIn('CONFIG_PAGE_TABLE_CHECK_ENFORCED=y', fragment)
        self.assertNotIn('CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT=n',
                         fragment)

    def test_granule_lanes_boot_their_own_qemu_config(self) -> None:
        for lane, fragment, qemu in (
                ('16k', 'granule-16k.kunitconfig', 'arm64_mm_16k.py'),
                ('64k', 'granule-64k.kunitconfig', 'arm64_mm_64k.py'),
                ('nothp', 'no-thp.kunitconfig', 'arm64_mm.py')):
            cmd = kunit_run.kunit_command(lane, 2)
            configs = [a for a in cmd if a.startswith('--kunitconfig=')]
            if lane != 'nothp':
                self.assertEqual(configs[0],
                                 f'--kunitconfig={project.KUNITCONFIG}')
            self.assertTrue(configs[-1].endswith('/' + fragment), lane)
            self.assertTrue(kunit_run.LANES[lane].qemu_config.is_file())
            self.assertIn(f'--qemu_config={kunit_run.QEMU_CONFIGS / qemu}',
                          cmd)
            self.assertIn(f'--build_dir=.kunit-{lane}', cmd)
        for lane in (*kunit_run.CI_LANES, *kunit_run.GRANULE_LANES):
            self.assertIn(lane, kunit_run.LANES)
            for config in kunit_run.LANES[lane].configs:
                self.assertTrue(config.is_file(), config)

    def test_numa_lane_boots_the_ptc_kernel_on_two_nodes(self) -> None:
        cmd = kunit_run.kunit_command('numa', 2)
        self.assertIn('--build_dir=.kunit-main', cmd)
        self.assertEqual(
            [a for a in cmd if a.startswith('--kunitconfig=')],
            [a for a in kunit_run.kunit_command('ptc', 2)
             if a.startswith('--kunitconfig=')])
        self.assertIn('--qemu_config='
                      f'{kunit_run.QEMU_CONFIGS / "arm64_mm_two_nodes.py"}',
                      cmd)
        self.assertEqual(cmd[-1], 'vmalloc_[lp]a*')
        # A narrower glob (a mutant's case) replaces the lane's filter.
        narrowed = kunit_run.kunit_command('numa', 2, 'vmalloc_large_order.x')
        self.assertEqual(narrowed[-1], 'vmalloc_large_order.x')
        self.assertNotIn('vmalloc_[lp]a*', narrowed)

    def test_owner_lane_boots_the_ptc_kernel_with_page_owner_on(self) -> None:
        cmd = kunit_run.kunit_command('owner', 2)
        self.assertIn('--build_dir=.kunit-main', cmd)
        self.assertIn('--kernel_args=page_owner=on', cmd)
        self.assertEqual(cmd[-1], 'gigantic_page_owner')
        self.assertNotIn('--kernel_args=page_owner=on',
                         kunit_run.kunit_command('ptc', 2))
        # The ptc kernel's lanes check slab redzones.
        for lane in ('ptc', 'numa', 'owner'):
            self.assertIn('--kernel_args=slub_debug=FZ',
                          kunit_run.kunit_command(lane, 2), lane)
        self.assertNotIn('--kernel_args=slub_debug=FZ',
                         kunit_run.kunit_command('main', 2))
        # 6.12 without 0005-0007 corrupts memory with page_owner on.
        self.assertEqual(tuple(kunit_run.LANES['owner'].trees), ('patched',))
        self.assertIn('base', kunit_run.LANES['numa'].trees)

    def test_a_lane_with_a_filter_runs_only_its_suite(self) -> None:
        self.assertTrue(kunit_run.in_scope(
            'numa', 'vmalloc_large_order.large_order_node_test'))
        self.assertTrue(kunit_run.in_scope(
            'numa', 'vmalloc_page_array.page_array_node_test.64_pages'))
        self.assertFalse(kunit_run.in_scope(
            'numa', 'vmalloc_bulk_free.vfree_refcount_test.1_pages'))
        self.assertTrue(kunit_run.in_scope(
            'main', 'vmalloc_bulk_free.vfree_refcount_test.1_pages'))
        # The main lane's kernel holds the benchmarks: left out by speed.
        self.assertEqual(kunit_run.kunit_command('main', 2)[-1],
                         '--filter=speed>slow')
        self.assertEqual(kunit_run.kunit_command('ptc', 2)[-1],
                         '--filter=speed>slow')
        self.assertEqual(kunit_run.kunit_command('16k', 2)[-1], '--jobs=2')

    def test_only_the_benchmarks_are_marked_slow(self) -> None:
        # A correctness case marked slow would silently drop out of the
        # main lane's runs.
        import re
        for source in sorted(project.KUNIT_DIR.glob('*.c')):
            self.assertNotRegex(source.read_text(), r'KUNIT_SPEED|CASE_SLOW',
                                source.name)
        for source in sorted(project.BENCH_DIR.glob('*_bench.c')):
            text = source.read_text()
            cases = re.findall(r'KUNIT_CASE\w*\(', text)
            slow = re.findall(r'KUNIT_SPEED_SLOW', text)
            self.assertEqual(len(cases), len(slow), source.name)

    def test_build_dir_is_a_direct_child_of_the_tree(self) -> None:
        # Kbuild then uses srctree "..", which is what lets ccache share
        # objects between the base and patched worktrees.
        self.assertNotIn('/', kunit_run.build_dir_name('main'))


class NoThpConfigTest(unittest.TestCase):
    @staticmethod
    def options(path: Path) -> dict:
        found = {}
        for line in path.read_text().splitlines():
            line = line.strip()
            if line.startswith('CONFIG_'):
                name, _, value = line.partition('=')
                found[name] = value
            elif line.startswith('# CONFIG_') and line.endswith(' is not set'):
                found[line[2:-len(' is not set')]] = 'n'
        return found

    def test_no_thp_config_is_the_main_one_without_thp(self) -> None:
        # kunit.py refuses conflicting fragments, so the !THP lane has a
        # whole config; it must not drift from the main lane's.
        main = self.options(project.KUNITCONFIG)
        nothp = self.options(kunit_run.LANES['nothp'].configs[0])
        self.assertEqual(nothp.pop('CONFIG_TRANSPARENT_HUGEPAGE'), 'n')
        self.assertEqual(main.pop('CONFIG_TRANSPARENT_HUGEPAGE'), 'y')
        main.pop('CONFIG_TRANSPARENT_HUGEPAGE_MADVISE')
        self.assertEqual(nothp, main)


class FirstErrorTest(unittest.TestCase):
    def test_compiler_error_comes_first(self) -> None:
        output = (
            "[10:00:00] Building KUnit Kernel ...\n"
            "ERROR:root:make[3]: Entering directory '/t/.kunit-main'\n"
            "../mm/series-kunit/x.c: In function 'f':\n"
            "../mm/series-kunit/x.c:3:16: error: 'y' undeclared "
            "(first use in this function)\n"
            "make[4]: *** [../scripts/Makefile.build:229: x.o] Error 1\n")
        self.assertEqual(kunit_run.first_error(output),
                         "../mm/series-kunit/x.c:3:16: error: 'y' "
                         "undeclared (first use in this function)")

    def test_the_linker_s_line_comes_before_kunit_py_s(self) -> None:
        # kunit.out of mutant 0018-158 (vfree to kvfree): ld names the
        # function on one line and what is wrong with it on the next.
        output = (
            "$ make all compile_commands.json ARCH=arm64 O=.kunit-main\n"
            "ERROR:root:aarch64-linux-gnu-ld: mm/vmalloc.o: in function "
            "`kvfree':\n"
            "vmalloc.c:(.text+0x8c00): multiple definition of `kvfree'; "
            "mm/util.o:util.c:(.text+0x3c8): first defined here\n"
            "make[4]: *** [../scripts/Makefile.vmlinux_o:65: vmlinux.o] "
            "Error 1\n")
        self.assertEqual(kunit_run.first_error(output),
                         "vmalloc.c:(.text+0x8c00): multiple definition of "
                         "`kvfree'; mm/util.o:util.c:(.text+0x3c8): first "
                         "defined here")

    def test_falls_back_to_the_last_line(self) -> None:
        self.assertEqual(kunit_run.first_error('a\nb\n'), 'b')


class QemuConfigTest(unittest.TestCase):
    def test_hugetlb_pools_memory_and_cpus(self) -> None:
        # Each granule's hugetlb sizes that the guest can host.
        for name, sizes in (('arm64_mm.py', ('64K', '2M', '32M', '1G')),
                            ('arm64_mm_16k.py', ('2M', '32M', '1G')),
                            ('arm64_mm_64k.py', ('2M', '512M'))):
            text = (kunit_run.QEMU_CONFIGS / name).read_text()
            for size in sizes:
                self.assertIn(f'hugepagesz={size} hugepages=', text)
            self.assertIn("'-cpu', 'max,pauth-impdef=on'", text)
            self.assertIn("'-smp', '2', '-m', ", text)



class PatternsTest(unittest.TestCase):
    def test_suite_filter(self) -> None:
        self.assertEqual(kunit_run.suite_filter(['s.t.64K*', 's.u']), 's')
        self.assertIsNone(kunit_run.suite_filter(['s.a', 't.b']))
        self.assertIsNone(kunit_run.suite_filter(['s*.a']))
        # One case: only it boots, so an earlier case's crash cannot hide it.
        self.assertEqual(kunit_run.suite_filter(['s.t.*']), 's.t')
        self.assertEqual(kunit_run.suite_filter(['s.t.contpte',
                                                 's.t.contpmd']), 's.t')
        self.assertEqual(kunit_run.suite_filter(['s.*hold_*']), 's')
        self.assertEqual(kunit_run.suite_filter(['s']), 's')

    def test_matching(self) -> None:
        self.assertEqual(kunit_run.matching({'s.a.1': 'pass', 's.b': 'fail',
                                             't.a.1': 'fail'}, ['s.a.*']),
                         {'s.a.1': 'pass'})


class IsolationGlobsTest(unittest.TestCase):
    def test_isolation_globs(self) -> None:
        self.assertEqual(kunit_run.isolation_globs(
            ['a.c2.p1', 'a.c2.p2', 'a.c3', 'b.x.p', 'b.y'],
            {'a.c1': 'crash'}), ['a.c2', 'a.c3', 'b'])


class RunTest(unittest.TestCase):
    """run() against a stand-in kunit.py, so no kernel is needed."""

    def run_with(self, script: str, expected: tuple = ()) -> tuple:
        import tempfile
        from unittest import mock
        from project import SeriesError
        from trees import Tree
        self.tmp = tempfile.TemporaryDirectory()
        root = Path(self.tmp.name)
        tool = root / 'tree' / 'tools' / 'testing' / 'kunit' / 'kunit.py'
        tool.parent.mkdir(parents=True)
        tool.write_text(script)
        with mock.patch.object(project, 'RESULTS', root / 'build'):
            try:
                got = kunit_run.run(Tree('base', root / 'tree'), 'main',
                                    root / 'cache', jobs=1,
                                    expected=expected)
                return got, None, root / 'build' / 'runs'
            except SeriesError as e:
                return None, str(e), root / 'build' / 'runs'

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_build_failure_is_one_line_and_keeps_the_output(self) -> None:
        _, err, runs = self.run_with(
            'import sys\n'
            'print("ERROR:root:../mm/x.c:3:16: error: \'y\' undeclared")\n'
            'sys.exit(1)\n')
        self.assertRegex(err, r"^base tree, lane main: kunit.py failed "
                         r"\(exit 1, see .*base-main.failed\): "
                         r"ERROR:root:../mm/x.c:3:16: error: 'y' undeclared$")
        self.assertEqual(sorted(p.name for p in runs.iterdir()),
                         ['base-main.failed'])

    def test_results_and_artifacts_are_kept(self) -> None:
        recorded = (Path(__file__).parent / 'data' /
                    'kunit-results-patched-early.json')
        got, err, runs = self.run_with(
            'import shutil, sys, os\n'
            'json = [a for a in sys.argv if a.startswith("--json=")][0][7:]\n'
            f'shutil.copyfile({str(recorded)!r}, json)\n'
            'os.makedirs(".kunit-main", exist_ok=True)\n'
            'open(".kunit-main/test.log", "w").write("KTAP version 1\\n")\n'
            'open(".kunit-main/.config", "w").write("CONFIG_KUNIT=y\\n")\n')
        self.assertIsNone(err)
        self.assertEqual(len(got), 8)
        kept = sorted(p.name for p in (runs / 'base-main').iterdir())
        self.assertEqual(kept, ['config', 'kunit.out', 'log-checks.txt',
                                'reports.txt', 'results.json', 'test.log'])

    def test_a_warn_in_the_log_fails_its_case(self) -> None:
        recorded = (Path(__file__).parent / 'data' /
                    'kunit-results-patched-early.json')
        log = ('    # Subtest: arm64_hugetlb_flush\n'
               '        # Subtest: flush_hugetlb_tlb_range_test\n'
               'WARNING: CPU: 0 PID: 7 at mm/x.c:1 f+0x0/0x4\n'
               '        ok 1 64K_contpte\n')
        got, err, runs = self.run_with(
            'import shutil, sys, os\n'
            'json = [a for a in sys.argv if a.startswith("--json=")][0][7:]\n'
            f'shutil.copyfile({str(recorded)!r}, json)\n'
            'os.makedirs(".kunit-main", exist_ok=True)\n'
            f'open(".kunit-main/test.log", "w").write({log!r})\n')
        self.assertIsNone(err)
        case = 'arm64_hugetlb_flush.flush_hugetlb_tlb_range_test.64K_contpte'
        self.assertEqual(got[case], 'fail')
        self.assertIn(case, (runs / 'base-main' / 'log-checks.txt')
                      .read_text())

    def test_a_crash_is_isolated_and_the_rest_still_runs(self) -> None:
        # The full run dies in suite a's case c1: c2 and suite b never
        # report. Run again, b as a suite and a's c2 alone, they do.
        script = (
            'import json, sys\n'
            'out = [a for a in sys.argv if a.startswith("--json=")][0][7:]\n'
            'glob = sys.argv[-2] if sys.argv[1] == "exec" else "all"\n'
            'suites = {\n'
            '  "all": [("a", [("c1", "ERROR")])],\n'
            '  "b": [("b", [("x", "PASS")])],\n'
            '  "a.c2": [("a", [("c2", "PASS")])]}[glob]\n'
            'json.dump({"name": "KUnit Test Group", "sub_groups": [\n'
            '  {"name": s, "test_cases": [{"name": c, "status": st}\n'
            '   for c, st in cases]} for s, cases in suites],\n'
            '  }, open(out, "w"))\n')
        got, err, runs = self.run_with(script, ('a.c1', 'a.c2', 'b.x'))
        self.assertIsNone(err)
        self.assertEqual(got, {'a.c1': 'crash', 'a.c2': 'pass',
                               'b.x': 'pass'})
        self.assertEqual(sorted(p.name for p in runs.iterdir()),
                         ['base-main', 'base-main-isolated-a.c2',
                          'base-main-isolated-b'])

    def test_a_suite_that_dies_again_goes_case_by_case(self) -> None:
        # Suite a never reports in the full run; run alone it dies after
        # c1, so c2 and c3 are run one by one.
        script = (
            'import json, sys\n'
            'out = [a for a in sys.argv if a.startswith("--json=")][0][7:]\n'
            'glob = sys.argv[-2] if sys.argv[1] == "exec" else "all"\n'
            'suites = {\n'
            '  "all": [("b", [("x", "ERROR")])],\n'
            '  "a": [("a", [("c1", "ERROR")])],\n'
            '  "a.c2": [("a", [("c2", "PASS")])],\n'
            '  "a.c3": [("a", [("c3", "FAIL")])]}[glob]\n'
            'json.dump({"name": "KUnit Test Group", "sub_groups": [\n'
            '  {"name": s, "test_cases": [{"name": c, "status": st}\n'
            '   for c, st in cases]} for s, cases in suites],\n'
            '  }, open(out, "w"))\n')
        got, err, _ = self.run_with(script, ('b.x', 'a.c1', 'a.c2', 'a.c3'))
        self.assertIsNone(err)
        self.assertEqual(got, {'b.x': 'crash', 'a.c1': 'crash',
                               'a.c2': 'pass', 'a.c3': 'fail'})



class RecordedRunsTest(unittest.TestCase):
    """Real runs of the patched tree's main-lane kernel through execute()
    and its watchdog (stall limit lowered to 30 s for the recording), kept
    as they were left in build/runs/, with order.txt: the suite's cases in
    the order the manifest had then, so that a case added later does not
    change which case the recording names:

    run-panic: kunit.py exec arm64_lazy_mmu with panic_on_warn=1; the WARN
      that vmap_error_leaves_mode_test provokes on purpose panics the
      kernel, which then sits there until the watchdog (300 s) stops QEMU.
    run-hang: kunit.py exec arm64_hugetlb_entries; QEMU was sent SIGSTOP
      after 40 passed cases, so the guest stopped mid-case; the watchdog's
      SIGTERM went unheard and its SIGKILL 10 s later ended QEMU.
    """

    DATA = Path(__file__).parent / 'data'

    def outcomes(self, name: str) -> tuple:
        with tempfile.TemporaryDirectory() as tmp:
            final = Path(tmp) / name
            shutil.copytree(self.DATA / name, final)
            # The case order in force when the run was recorded.
            order = (self.DATA / name / 'order.txt').read_text().split()
            got, notes = kunit_run.outcomes_of(final, Path('/nonexistent'),
                                               '.kunit-main', order)
            trace = final / 'crash-trace.txt'
            return got, notes, trace.read_text() if trace.exists() else None

    def test_a_panic_is_named_crashed_with_its_trace(self) -> None:
        got, notes, trace = self.outcomes('run-panic')
        case = 'arm64_lazy_mmu.vmap_error_leaves_mode_test'
        self.assertEqual({c: o for c, o in got.items() if o != 'pass'},
                         {case: 'crash'})
        self.assertEqual(len(got), 11)
        self.assertIn(f'{case}: CRASHED: Kernel panic - not syncing: '
                      'kernel: panic_on_warn set ...', '\n'.join(notes))
        self.assertIn('vmap_error_leaves_mode_test+', trace)
        self.assertIn('Call trace:', trace)
        # The case's own WARN is expected (warnings.tsv); the panic is not.
        self.assertFalse([n for n in notes if n.startswith('(after')])

    def test_a_hang_is_named_timeout(self) -> None:
        got, notes, trace = self.outcomes('run-hang')
        case = 'arm64_hugetlb_entries.huge_ptep_clear_flush_test.32M_contpmd'
        self.assertEqual({c: o for c, o in got.items() if o != 'pass'},
                         {case: 'timeout'})
        self.assertIn(f'{case}: TIMEOUT, no progress for', '\n'.join(notes))
        self.assertIsNone(trace)

    def test_the_interrupted_case_is_named_from_the_manifest(self) -> None:
        order = ['s.a', 's.b', 's.c', 's.p.x', 's.p.y', 't.a']
        self.assertEqual(kunit_run.name_interrupted(
            {'s.a': 'pass', 's.': 'crash'}, order),
            {'s.a': 'pass', 's.b': 'crash'})
        self.assertEqual(kunit_run.name_interrupted(
            {'s.p.x': 'pass', 's.p.': 'crash'}, order),
            {'s.p.x': 'pass', 's.p.y': 'crash'})
        # Not in the manifest: the name kunit.py gave stays.
        self.assertEqual(kunit_run.name_interrupted({'u.': 'crash'}, order),
                         {'u.': 'crash'})


if __name__ == '__main__':
    unittest.main()
