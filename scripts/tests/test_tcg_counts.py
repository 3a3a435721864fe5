# SPDX-License-Identifier: GPL-2.0
import unittest
from pathlib import Path
from unittest import mock

import bench
import tcg_counts
from project import SeriesError

from tests.helpers import DATA

KEY = bench.Key('vmalloc', 'fix_size_alloc_test', 'p=16 h=0', 'ns')


class WindowsTest(unittest.TestCase):
    def test_a_recorded_plugin_log(self) -> None:
        windows = tcg_counts.parse_windows(
            (DATA / 'tcg_plugin.log').read_text())
        self.assertEqual(len(windows), 4)
        first = windows[0]
        self.assertEqual((first.insns, first.dsb, first.isb, first.tlbi),
                         (1000, 40, 20, 16))
        self.assertEqual(first.ops, (('vale1is', 12), ('rvale1is', 2),
                                     ('aside1is', 1), ('vmalle1is', 1)))
        self.assertEqual([first.value(c) for c in tcg_counts.COLUMNS],
                         [1000, 1000, 0, 0, 40, 20, 16, 2, 1, 1])
        self.assertEqual(windows[3].ops, ())

    def test_what_ran_in_interrupt_handlers_is_apart(self) -> None:
        w = tcg_counts.parse_windows(
            'mm_window 0 insns=1000 irq_insns=120 irqs=2 dsb=1 isb=1 dmb=0 '
            'tlbi=0 ops=-\n')[0]
        self.assertEqual((w.insns, w.irq_insns, w.irqs, w.own_insns),
                         (1000, 120, 2, 880))

    def test_the_vector_table_from_system_map(self) -> None:
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            self.assertIsNone(tcg_counts.vectors_address(Path(tmp)))
            (Path(tmp) / 'System.map').write_text(
                'ffff800080010000 T _text\nffff800080010800 T vectors\n')
            self.assertEqual(tcg_counts.vectors_address(Path(tmp)),
                             0xffff800080010800)
        self.assertEqual(tcg_counts.qemu_args(Path('p.so'), Path('l'),
                                              0x800)[1], 'p.so,vectors=0x800')

    def test_a_lost_window_is_an_error(self) -> None:
        with self.assertRaisesRegex(SeriesError, 'window 2 where 1 was due'):
            tcg_counts.parse_windows(
                'mm_window 0 insns=1 dsb=0 isb=0 dmb=0 tlbi=0 ops=-\n'
                'mm_window 2 insns=1 dsb=0 isb=0 dmb=0 tlbi=0 ops=-\n')


class PairingTest(unittest.TestCase):
    LOG = ''.join(
        f'    # t: mm_bench suite=vmalloc bench={b} {p} loops={loops} '
        f'sample={s} value=9 unit={u}\n'
        for b, p, loops, s, u in (
            ('fix_size_alloc_test', 'p=16 h=0', 10, 0, 'ns'),
            ('translation_entries_per_mib', 'size=2M', 1, 0, 'entries'),
            ('fix_size_alloc_test', 'p=16 h=0', 10, 1, 'ns'),
            ('vm_map_ram_test', 'p=1 h=0', 4, 0, 'ns')))

    def windows(self, *insns: int) -> list:
        return [tcg_counts.Window(n, n // 10, 0, 0, 0, ()) for n in insns]

    def test_each_timed_sample_gets_the_window_in_its_place(self) -> None:
        counts = tcg_counts.per_operation(self.LOG,
                                          self.windows(100, 300, 40))
        # A count is not timed and has no window; per loop, then the mean
        # of the boot's samples.
        self.assertEqual(counts[KEY]['insns'], [20.0])
        self.assertEqual(counts[KEY]['dsb'], [2.0])
        ram = bench.Key('vmalloc', 'vm_map_ram_test', 'p=1 h=0', 'ns')
        self.assertEqual(counts[ram]['insns'], [10.0])

    def test_windows_and_samples_must_tally(self) -> None:
        with self.assertRaisesRegex(SeriesError, '2 windows for 3 timed'):
            tcg_counts.per_operation(self.LOG, self.windows(1, 2))

    def test_boots_merge_and_render(self) -> None:
        base: tcg_counts.Counts = {}
        patched: tcg_counts.Counts = {}
        for boot in range(2):
            tcg_counts.merge(base, tcg_counts.per_operation(
                self.LOG, self.windows(1000, 1000, 400)))
            tcg_counts.merge(patched, tcg_counts.per_operation(
                self.LOG, self.windows(900, 900, 400)))
        self.assertEqual(base[KEY]['insns'], [100.0, 100.0])
        text = tcg_counts.render(base, patched)
        self.assertIn('| fix_size_alloc_test: p:16, h:0 (ns) | 100 | 90 | '
                      '-10.00% | 100 | 90 | -10.00% | 0 | 0 | 10 | 9 |', text)


class BuildTest(unittest.TestCase):
    def test_the_deb_src_twin_of_each_deb_stanza(self) -> None:
        deb822 = ('Types: deb\nURIs: http://deb.debian.org/debian\n'
                  'Suites: bookworm\nComponents: main\n\n'
                  'Types: deb\nURIs: http://x\nSuites: y\nEnabled: no\n\n'
                  'Types: deb-src\nURIs: http://z\nSuites: y\n')
        self.assertEqual(tcg_counts.deb_src_list(deb822),
                         'Types: deb-src\nURIs: http://deb.debian.org/debian'
                         '\nSuites: bookworm\nComponents: main\n')

    def test_what_cannot_be_built_is_one_line(self) -> None:
        with mock.patch.object(tcg_counts.packages, 'try_optional',
                               return_value=None), \
                mock.patch.object(tcg_counts, 'build',
                                  side_effect=SeriesError(
                                      'apt-get source failed: E: no')):
            plugin, note = tcg_counts.try_build(Path('/c'))
        self.assertIsNone(plugin)
        self.assertEqual(note, 'TCG plugin not built (apt-get source failed: '
                               'E: no); no DSB/ISB/TLBI columns')
        self.assertNotIn('\n', note)

    def test_qemu_logs_the_plugin_to_a_file(self) -> None:
        self.assertEqual(tcg_counts.qemu_args(Path('/p.so'), Path('/l')),
                         ['-plugin', '/p.so', '-d', 'plugin', '-D', '/l'])


if __name__ == '__main__':
    unittest.main()
