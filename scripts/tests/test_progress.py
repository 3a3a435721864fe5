# SPDX-License-Identifier: GPL-2.0
import io
import os
import tempfile
import time
import unittest
from pathlib import Path

import progress


class StatusTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.build = Path(self.tmp.name) / '.kunit'
        (self.build / 'mm').mkdir(parents=True)
        # Three objects of an earlier build, two of this run.
        for name, mtime in (('a.o', 100), ('b.o', 100), ('mm/c.o', 100),
                            ('mm/d.o', 2000), ('e.o', 2000), ('f.c', 2000)):
            (self.build / name).write_text('')
            os.utime(self.build / name, (mtime, mtime))

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_configuring_until_kunit_py_builds(self) -> None:
        self.assertEqual(progress.status('[18:00:00] Configuring KUnit '
                                         'Kernel ...\n', self.build, 1000,
                                         1090), 'configuring, 1m30s')

    def test_building_against_the_last_complete_build(self) -> None:
        (self.build / progress.OBJECTS_FILE).write_text('10\n')
        self.assertEqual(
            progress.status('Building KUnit Kernel ...\n', self.build, 1000,
                            1421),
            'building, 50% (5 of about 10 objects, 2 compiled in this run), '
            '7m01s')

    def test_an_incremental_build_counts_what_it_compiled(self) -> None:
        (self.build / progress.OBJECTS_FILE).write_text('6\n')
        self.assertEqual(
            progress.status('Building KUnit Kernel ...\n', self.build, 1000,
                            1060, at_start=5),
            'rebuilding, 2 of 6 objects compiled so far, 1m00s')

    def test_first_build_has_no_estimate(self) -> None:
        self.assertEqual(
            progress.status('Building KUnit Kernel ...\n', self.build, 1000,
                            1060),
            'building, 5 objects (2 compiled), 1m00s')

    def test_record_then_estimate(self) -> None:
        progress.record_objects(self.build)
        self.assertEqual(progress.expected_objects(self.build), 5)

    def test_booted_counts_reported_cases(self) -> None:
        out = ('Building KUnit Kernel ...\nStarting KUnit Kernel (1/1)...\n'
               '[18:01:00] [PASSED] a_test\n[18:01:01] [SKIPPED] b_test\n'
               '[18:01:01] [FAILED] 64K_contpte\n'
               '[18:01:01] ====== [FAILED] c_test ======\n'
               '[18:01:02] ===== [PASSED] suite =====\n')
        self.assertEqual(progress.status(out, self.build, 1000, 1600),
                         'running the suites, 3 cases reported, 10m00s')


class ReporterTest(unittest.TestCase):
    def test_a_line_per_interval_with_the_label(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / 'kunit.out'
            out.write_text('Building KUnit Kernel ...\n')
            stream = io.StringIO()
            with progress.Reporter('base tree, lane main', out, Path(tmp),
                                   interval_s=0.02, stream=stream):
                time.sleep(0.1)
        lines = stream.getvalue().splitlines()
        self.assertGreaterEqual(len(lines), 2)
        self.assertTrue(all(line.startswith('base tree, lane main: '
                                            'building, 0 objects')
                            for line in lines), lines)

    def test_a_short_step_prints_nothing(self) -> None:
        stream = io.StringIO()
        with progress.Reporter('x', Path('/nonexistent'), Path('/nonexistent'),
                               interval_s=60, stream=stream):
            pass
        self.assertEqual(stream.getvalue(), '')


if __name__ == '__main__':
    unittest.main()
