# SPDX-License-Identifier: GPL-2.0
import unittest

import vmalloc_module_log

# As 6.12's lib/test_vmalloc.c prints them, with and without timestamps,
# and as a later format with an extra field and nsec might.
LOG = '''[   12.345678] Summary: fix_size_alloc_test passed: 1 failed: 0 repeat: 1 loops: 1000000 avg: 1020310 usec
Summary: full_fit_alloc_test passed: 1 failed: 0 repeat: 1 loops: 1000 avg: 37 usec
[   13.000001] test_vmalloc: Summary: vm_map_ram_test passed: 1 failed: 0 xfail: 0 repeat: 1 loops: 500 avg: 1500000 nsec
[   13.100000] All test took worker0=123456789 cycles
Summary: broken_line passed: 1
'''


class ParseTest(unittest.TestCase):
    def test_formats(self) -> None:
        got = vmalloc_module_log.parse(LOG)
        self.assertEqual([s.test for s in got],
                         ['fix_size_alloc_test', 'full_fit_alloc_test',
                          'vm_map_ram_test'])
        self.assertEqual(got[0].avg_usec, 1020310)
        self.assertEqual(got[0].loops, 1000000)
        self.assertEqual(got[1].passed, 1)
        self.assertAlmostEqual(got[2].avg_usec, 1500.0)
        self.assertEqual(got[2].failed, 0)

    def test_nothing_to_parse(self) -> None:
        self.assertEqual(vmalloc_module_log.parse('no summary here\n'), [])


if __name__ == '__main__':
    unittest.main()
