# SPDX-License-Identifier: GPL-2.0
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

import crash

# A kunit.py stand-in: boots (prints crash.BOOTED), starts a "QEMU" child
# that hangs, and, once that child is gone, finishes as kunit.py does after
# QEMU stops.
HANGING = f'''import subprocess, sys
print({crash.BOOTED!r}, flush=True)
print('[PASSED] first_case', flush=True)
subprocess.run([sys.executable, '-c', 'import time; time.sleep(60)'])
print('[CRASHED] second_case', flush=True)
'''
# The same, but its "QEMU" ignores SIGTERM, as a stopped or wedged one does.
DEAF = HANGING.replace(
    "'import time; time.sleep(60)'",
    "'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "time.sleep(60)'")
# Boots but hangs before any KTAP line, as a kernel that dies early does.
SILENT_BOOT = f'''import subprocess, sys
print({crash.BOOTED!r}, flush=True)
print('Running tests with:', flush=True)
print('$ qemu-system-aarch64 -nodefaults -kernel Image.gz', flush=True)
subprocess.run([sys.executable, '-c', 'import time; time.sleep(60)'])
print('[ERROR] no KTAP', flush=True)
'''
BUILDING = '''import time
time.sleep(1.0)
print('build done', flush=True)
'''


def run_watched(script: str, stall_s: float,
                kill_after_s: float = 10, boot_s: float = 30) -> tuple:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / 'kunit.out'
        with open(out, 'w') as f:
            proc = subprocess.Popen([sys.executable, '-c', script],
                                    stdout=f, stderr=subprocess.STDOUT)
            start = time.monotonic()
            fired = crash.watch(proc, out, stall_s=stall_s, poll_s=0.1,
                                kill_after_s=kill_after_s, boot_s=boot_s)
        return fired, time.monotonic() - start, out.read_text()


class WatchTest(unittest.TestCase):
    def test_a_hang_stops_qemu_not_kunit(self) -> None:
        fired, took, output = run_watched(HANGING, 0.5)
        self.assertEqual(fired, crash.STALLED)
        self.assertLess(took, 30)
        # kunit.py itself lived on to report the case in progress.
        self.assertIn('[CRASHED] second_case', output)

    def test_a_qemu_deaf_to_sigterm_is_killed(self) -> None:
        fired, took, output = run_watched(DEAF, 0.5, kill_after_s=1)
        self.assertTrue(fired)
        self.assertLess(took, 30)
        self.assertIn('[CRASHED] second_case', output)

    def test_a_kernel_silent_after_qemu_starts_gets_the_boot_limit(
            self) -> None:
        fired, took, output = run_watched(SILENT_BOOT, 30, boot_s=0.5)
        self.assertEqual(fired, crash.SILENT_BOOT)
        self.assertLess(took, 20)
        self.assertIn('[ERROR] no KTAP', output)

    def test_the_boot_limit_ends_with_the_first_ktap_line(self) -> None:
        self.assertTrue(crash.booting(
            f'{crash.BOOTED}\nRunning tests with:\n$ qemu-system-aarch64 '
            '-m 8\n'))
        self.assertFalse(crash.booting(
            f'{crash.BOOTED}\n$ qemu-system-aarch64 -m 8\n'
            '[10:00:01] ==== suite (2 subtests) ====\n'))
        self.assertFalse(crash.booting('building\n'))

    def test_no_limit_while_building(self) -> None:
        fired, _, output = run_watched(BUILDING, 0.3)
        self.assertIsNone(fired)
        self.assertIn('build done', output)

    def test_the_note_names_the_limit_that_fired(self) -> None:
        # A mutant's boot limit is 45 s, not the default stall limit.
        self.assertEqual(
            crash.watchdog_note(crash.SILENT_BOOT, 45, 60),
            f'{crash.SILENT_BOOT_NOTE} 45 s after QEMU started: QEMU '
            'stopped')
        self.assertEqual(crash.watchdog_note(crash.STALLED, 45, 60),
                         'no progress for 60 s: QEMU stopped')
        self.assertEqual(crash.watchdog_note(crash.STALLED, None, None),
                         f'no progress for {crash.STALL_S} s: QEMU stopped')


class ChildrenTest(unittest.TestCase):
    def test_descendants_from_proc(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for pid, ppid, comm in ((10, 1, 'python3'), (11, 10, 'qemu (x)'),
                                    (12, 11, 'helper'), (13, 1, 'other')):
                (root / str(pid)).mkdir()
                (root / str(pid) / 'stat').write_text(
                    f'{pid} ({comm}) S {ppid} 0 0\n')
            self.assertEqual(sorted(crash.children(10, root)), [11, 12])



class RecordedOopsTest(unittest.TestCase):
    """A real log: the page_table_check mutant (kunit/mutants/) hits a
    BUG_ON in the ptc lane; KUnit's try-catch survives it."""

    LOG = (Path(__file__).parent / 'data' /
           'test-log-ptc-mutant-oops.log').read_text()

    def test_classified_and_attributed(self) -> None:
        import kernel_log
        self.assertTrue(crash.crashed(self.LOG))
        self.assertEqual(crash.crashed_case(
            kernel_log.splats_by_case(self.LOG)),
            'arm64_hugetlb_entries.set_huge_pte_at_test.32M_contpmd_present')

    def test_trace_cut_from_the_log(self) -> None:
        trace = crash.trace_of(self.LOG)
        self.assertIn('kernel BUG at mm/page_table_check.c:90!', trace)
        self.assertIn('Call trace:', trace)
        self.assertIn('---[ end trace', trace.splitlines()[-1])
        self.assertNotIn('not ok 7', trace)

    def test_decode_falls_back_to_the_raw_trace(self) -> None:
        # No vmlinux there: the raw trace is kept.
        trace = crash.trace_of(self.LOG)
        self.assertEqual(crash.decode(Path('/nonexistent'), '.kunit-main',
                                      trace, 'aarch64-linux-gnu-'), trace)

    def test_a_warn_is_not_a_crash(self) -> None:
        self.assertFalse(crash.crashed(
            'WARNING: CPU: 0 PID: 7 at mm/vmalloc.c:1 f+0x0/0x4\nok 1 a\n'))


if __name__ == '__main__':
    unittest.main()
