# SPDX-License-Identifier: GPL-2.0
import subprocess
import tempfile
import unittest
from pathlib import Path

import cross


class CommandTest(unittest.TestCase):
    def test_riscv_build_is_cross_compiled_through_ccache(self) -> None:
        cmd = cross.command('build', cross.ARCHES[1], 2, False)
        self.assertIn('--arch=riscv', cmd)
        self.assertIn('--cross_compile=riscv64-linux-gnu-', cmd)
        self.assertIn('CC=ccache riscv64-linux-gnu-gcc', cmd)
        self.assertIn('--build_dir=.kunit-riscv64', cmd)
        # kunit.py build takes no --timeout.
        self.assertFalse([a for a in cmd if a.startswith('--timeout')])

    def test_x86_run_uses_kvm_when_asked(self) -> None:
        cmd = cross.command('run', cross.ARCHES[0], 2, True)
        self.assertIn('--arch=x86_64', cmd)
        self.assertIn('CC=ccache gcc', cmd)
        self.assertIn('--qemu_args=-enable-kvm -cpu host', cmd)
        self.assertNotIn('--qemu_args=-enable-kvm -cpu host',
                         cross.command('run', cross.ARCHES[0], 2, False))

    def test_kvm_absent(self) -> None:
        self.assertFalse(cross.kvm_works('/nonexistent/kvm'))

    def test_a_kvm_guest_that_cannot_run_is_seen(self) -> None:
        """Recorded on this machine: KVM_CREATE_VM works, but QEMU with
        -enable-kvm -cpu host stops before the kernel prints a line."""
        data = Path(__file__).parent / 'data' / 'test-log-x86-kvm-refused.log'
        with tempfile.TemporaryDirectory() as tmp:
            final = Path(tmp)
            (final / 'test.log').write_text(data.read_text())
            self.assertEqual(cross.qemu_refused(final),
                             'qemu-system-x86_64: error: failed to set MSR '
                             '0x10a to 0x69')
            (final / 'test.log').write_text('Linux version 6.12.57\n'
                                            'KTAP version 1\n')
            self.assertIsNone(cross.qemu_refused(final))


class ExpectationsTest(unittest.TestCase):
    def test_generic_suites_only(self) -> None:
        got = cross.generic_expectations('patched')
        self.assertTrue(got)
        self.assertTrue(all(c.startswith('vmalloc_') for c in got))
        self.assertEqual(
            got['vmalloc_page_array.page_array_not_vmalloc_test'], 'pass')

    def test_differences_and_table(self) -> None:
        self.assertEqual(cross.differences({'a': 'pass', 'b': 'skip'},
                                           {'a': 'fail'}),
                         ['a: expected pass, got fail',
                          'b: expected skip, got missing'])
        text = cross.render_builds([('base', {'x86_64': '',
                                              'riscv64': 'x.c:1: error: e'})])
        self.assertIn('| base | builds | x.c:1: error: e |', text)
        self.assertTrue(text.endswith('1 do not build'))


class Arm64OnlyTest(unittest.TestCase):
    def test_a_change_outside_arch_arm64_is_built(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)

            def commit(path: str) -> str:
                (repo / path).parent.mkdir(parents=True, exist_ok=True)
                (repo / path).write_text(path)
                for cmd in (['add', path], ['commit', '-qm', path]):
                    subprocess.run(['git', '-c', 'user.name=t', '-c',
                                    'user.email=t@t', *cmd], cwd=repo,
                                   check=True)
                return subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=repo,
                                      check=True, capture_output=True,
                                      text=True).stdout.strip()

            subprocess.run(['git', 'init', '-q'], cwd=repo, check=True)
            base = commit('mm/a.c')
            arm64 = commit('arch/arm64/mm/b.c')
            generic = commit('include/linux/c.h')
            self.assertTrue(cross.arm64_only(repo, base, arm64))
            self.assertFalse(cross.arm64_only(repo, arm64, generic))
            self.assertFalse(cross.arm64_only(repo, base, generic))
            self.assertFalse(cross.arm64_only(repo, base, base))


if __name__ == '__main__':
    unittest.main()
