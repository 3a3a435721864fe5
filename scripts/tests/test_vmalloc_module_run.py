# SPDX-License-Identifier: GPL-2.0
import unittest

import bench
import project
import vmalloc_module_run as tv
from project import SeriesError

SUMMARY = ('[   {t}] Summary: {test} passed: 1 failed: {failed} repeat: 1 '
           'loops: 2000 avg: {avg} usec')


def boot_log(the_loads: list, failed: int = 0, done: bool = True) -> str:
    lines = ['Booting Linux on physical CPU 0x0000000000']
    for n, load in enumerate(the_loads):
        lines.append(f'[    1.0] {tv.MARK} load {n} {load.params}')
        for test, bit in tv.TEST_IDS.items():
            if load.mask & bit:
                lines.append(SUMMARY.format(t='2.0', test=test,
                                            failed=failed, avg=100 + n))
        lines.append('[    2.1] All test took worker0=123 cycles')
    if done:
        lines.append(f'[    3.0] {tv.MARK} done')
    return '\n'.join(lines) + '\n'


class LoadsTest(unittest.TestCase):
    def test_the_seeds_grid(self) -> None:
        got = tv.loads()
        self.assertEqual(len(got), 21)
        self.assertEqual([(x.pages, x.huge) for x in got[:3]],
                         [(1, False), (2, False), (4, False)])
        self.assertEqual(got[19].params, 'p=512 h=1')
        self.assertEqual(got[20].mask, 2 + 4 + 8 + 16 + 32 + 128 + 256 +
                         512 + 1024)

    def test_init_script_marks_every_load(self) -> None:
        script = tv.init_script(tv.loads()[:2], 7)
        self.assertTrue(script.startswith('#!/bin/sh\n'))
        self.assertIn(f'echo "{tv.MARK} load 1 p=2 h=0" > /dev/kmsg\n'
                      'insmod /test_vmalloc.ko nr_threads=1 '
                      'sequential_test_order=1 run_test_mask=1 nr_pages=2 '
                      'use_huge=0 test_loop_count=7', script)
        self.assertTrue(script.endswith(f'{tv.MARK} done" > /dev/kmsg\n'
                                        'poweroff -f\n'))


class InitramfsTest(unittest.TestCase):
    def entries(self, data: bytes) -> list:
        """Parse a newc archive back: (name, mode, size, rdev)."""
        out, pos = [], 0
        while True:
            head = data[pos:pos + 110]
            self.assertEqual(head[:6], b'070701')
            f = [int(head[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
            name = data[pos + 110:pos + 110 + f[11] - 1].decode()
            pos += 110 + f[11]
            pos += -pos % 4
            pos += f[6]
            pos += -pos % 4
            if name == 'TRAILER!!!':
                self.assertEqual(pos, len(data))
                return out
            out.append((name, f[1], f[6], (f[9], f[10])))

    def test_layout(self) -> None:
        got = self.entries(tv.initramfs(b'BB', b'MODULE', 'echo\n'))
        names = {e[0]: e for e in got}
        self.assertEqual(names['dev/console'][1:], (0o20600, 0, (5, 1)))
        self.assertEqual(names['dev/kmsg'][3], (1, 11))
        self.assertEqual(names['bin/busybox'][1:3], (0o100755, 2))
        self.assertEqual(names['test_vmalloc.ko'][2], 6)
        self.assertEqual(names['init'][1:3], (0o100755, 5))
        self.assertEqual(names['bin/insmod'][1], 0o120777)
        self.assertEqual(self.entries(tv.cpio_newc([])), [])


class ElfTest(unittest.TestCase):
    def test_machine(self) -> None:
        head = bytearray(b'\x7fELF\x02\x01' + bytes(58))
        head[18:20] = (183).to_bytes(2, 'little')
        self.assertTrue(tv.is_arm64_elf(bytes(head)))
        head[18:20] = (62).to_bytes(2, 'little')        # x86_64
        self.assertFalse(tv.is_arm64_elf(bytes(head)))
        self.assertFalse(tv.is_arm64_elf(b'#!/bin/sh\n'))


class QemuTest(unittest.TestCase):
    def test_machine_from_the_kunit_config(self) -> None:
        cmd = tv.qemu_command(project.REPO / 'Image.gz',
                              project.REPO / 'initrd', 'icount', 1)
        self.assertEqual(cmd[0], 'qemu-system-aarch64')
        self.assertIn('-icount', cmd)
        # The icount clock's one vCPU comes after the config's, so wins.
        smp = [cmd[i + 1] for i, a in enumerate(cmd) if a == '-smp']
        self.assertEqual(smp, ['2', '1'])
        self.assertEqual(cmd[cmd.index('-seed') + 1], '2')
        self.assertIn('kunit.enable=0', cmd[-1])


class WindowTest(unittest.TestCase):
    def test_the_marker_programs_are_arm64_executables(self) -> None:
        prog = tv.window_program(0x70)
        self.assertTrue(tv.is_arm64_elf(prog))
        entry = int.from_bytes(prog[24:32], 'little')
        code = prog[entry - 0x400000:]
        # hint #0x70, then exit(0).
        self.assertEqual(code[:4], (0xd5032e1f).to_bytes(4, 'little'))
        self.assertEqual(code[-4:], (0xd4000001).to_bytes(4, 'little'))
        self.assertEqual(tv.window_program(0x71)[entry - 0x400000:][:4],
                         (0xd5032e3f).to_bytes(4, 'little'))

    def test_each_load_in_a_window_after_a_baseline(self) -> None:
        loads = tv.loads()[:2]
        script = tv.init_script(loads, 10, windows=True).split('\n')
        opens = [i for i, l in enumerate(script) if l == tv.WINDOW_OPEN]
        self.assertEqual(len(opens), 3)
        self.assertIn('run_test_mask=0 ', script[opens[0] + 1])
        self.assertNotIn(tv.WINDOW_OPEN, tv.init_script(loads, 10))

    def test_counts_per_loop_less_the_baseline(self) -> None:
        import tcg_counts
        loads = [tv.Load(1, 16, False), tv.Load(2 | 4, 1, False)]
        w = [tcg_counts.Window(1000, 10, 10, 0, 2, ()),
             tcg_counts.Window(51000, 60, 60, 0, 2,
                               (('vale1is', 4),)),
             tcg_counts.Window(9000, 10, 10, 0, 2, ())]
        got = tv.load_counts(w, loads, 100, [1, 1])
        key = bench.Key('test_vmalloc', 'fix_size_alloc_test', 'p=16 h=0',
                        'us')
        # The load of two tests has no per-operation count.
        self.assertEqual(list(got), [key])
        self.assertEqual(got[key]['insns'], [500.0])
        self.assertEqual(got[key]['dsb'], [0.5])
        # A load whose tests ran twice (insmod's two tries) holds two
        # runs of 100 loops.
        self.assertEqual(tv.load_counts(w, loads, 100, [2, 2])[key]['insns'],
                         [250.0])
        with self.assertRaises(SeriesError):
            tv.load_counts(w[:2], loads, 100, [1, 1])

    def test_runs_per_load_from_the_summary_lines(self) -> None:
        loads = tv.loads()
        log = boot_log(loads)
        # insmod's second try: the first load's test ran again.
        first = SUMMARY.format(t='2.0', test='fix_size_alloc_test',
                               failed=0, avg=100)
        log = log.replace(first, first + '\n' + first, 1)
        self.assertEqual(tv.runs_per_load(log, loads)[:2], [2, 1])
        self.assertEqual(len(tv.runs_per_load(log, loads)), len(loads))


class ParseBootTest(unittest.TestCase):
    def test_samples_keyed_like_the_harness(self) -> None:
        the_loads = tv.loads()
        got = tv.parse_boot(boot_log(the_loads), the_loads)
        key = bench.Key('test_vmalloc', 'fix_size_alloc_test', 'p=512 h=1',
                        'us')
        self.assertEqual(got[key], [119.0])
        self.assertEqual(got[bench.Key('test_vmalloc', 'vm_map_ram_test',
                                       'p=1 h=0', 'us')], [120.0])
        self.assertEqual(len(got), 20 + 9)

    def test_errors_name_what_went_wrong(self) -> None:
        the_loads = tv.loads()
        with self.assertRaisesRegex(SeriesError, 'did not reach the end'):
            tv.parse_boot(boot_log(the_loads, done=False), the_loads)
        with self.assertRaisesRegex(SeriesError,
                                    r'load 0 \(p=1 h=0\): '
                                    'fix_size_alloc_test failed 1'):
            tv.parse_boot(boot_log(the_loads, failed=1), the_loads)
        log = boot_log(the_loads).replace('Summary: vm_map_ram_test', 'x')
        with self.assertRaisesRegex(SeriesError,
                                    'load 20 .*no Summary for '
                                    'vm_map_ram_test'):
            tv.parse_boot(log, the_loads)
        with self.assertRaisesRegex(SeriesError, '2 load markers'):
            tv.parse_boot(boot_log(the_loads[:2]), the_loads)


if __name__ == '__main__':
    unittest.main()
