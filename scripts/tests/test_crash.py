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
BUILDING = '''import time
time.sleep(1.0)
print('build done', flush=True)
'''


def run_watched(script: str, stall_s: float) -> tuple:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / 'kunit.out'
        with open(out, 'w') as f:
            proc = subprocess.Popen([sys.executable, '-c', script],
                                    stdout=f, stderr=subprocess.STDOUT)
            start = time.monotonic()
            fired = crash.watch(proc, out, stall_s=stall_s, poll_s=0.1)
        return fired, time.monotonic() - start, out.read_text()


class WatchTest(unittest.TestCase):
    def test_a_hang_stops_qemu_not_kunit(self) -> None:
        fired, took, output = run_watched(HANGING, 0.5)
        self.assertTrue(fired)
        self.assertLess(took, 30)
        # kunit.py itself lived on to report the case in progress.
        self.assertIn('[CRASHED] second_case', output)

    def test_no_limit_while_building(self) -> None:
        fired, _, output = run_watched(BUILDING, 0.3)
        self.assertFalse(fired)
        self.assertIn('build done', output)


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


if __name__ == '__main__':
    unittest.main()
