# SPDX-License-Identifier: GPL-2.0
import unittest
from typing import List, Sequence
from unittest import mock

import packages
from project import SeriesError


def only(*have: str):
    def query(names: Sequence[str]) -> List[str]:
        return [n for n in names if n in have]
    return query


class PackagesTest(unittest.TestCase):
    def test_missing_keeps_order(self) -> None:
        self.assertEqual(packages.missing_packages(['a', 'b', 'c'], only('b')),
                         ['a', 'c'])

    def test_non_root_gets_the_exact_apt_line(self) -> None:
        with mock.patch.object(packages, 'installed_packages', only('a')):
            with self.assertRaises(SeriesError) as ctx:
                packages.ensure(['a', 'qemu-system-arm'], is_root=False)
        self.assertIn('apt-get install -y --no-install-recommends '
                      'qemu-system-arm', str(ctx.exception))

    def test_nothing_missing_does_nothing(self) -> None:
        with mock.patch.object(packages, 'installed_packages', only('a')), \
                mock.patch('subprocess.run') as run:
            packages.ensure(['a'], is_root=True)
        run.assert_not_called()

    def test_dpkg_query_sees_an_installed_package(self) -> None:
        # dpkg is on every Debian machine; a bogus name is never installed.
        have = packages.installed_packages(['dpkg', 'no-such-package-xyz'])
        self.assertEqual(have, ['dpkg'])


class PrefetchTest(unittest.TestCase):
    def tearDown(self) -> None:
        packages._PREFETCH = None

    def test_a_missing_package_installs_in_the_background(self) -> None:
        import tempfile
        from pathlib import Path
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(packages, 'installed_packages',
                                  only('a')), \
                mock.patch('subprocess.Popen') as popen:
            log = Path(tmp) / 'apt.log'
            self.assertTrue(packages.prefetch(['a', 'lavacli'], log,
                                              is_root=True))
            script = popen.call_args.args[0]
            self.assertEqual(script[:2], ['sh', '-c'])
            self.assertEqual(script[2], 'apt-get update && apt-get install '
                             '-y --no-install-recommends lavacli')
            self.assertTrue(log.exists())
            # One at a time; ensure() of a missing package waits for it.
            self.assertFalse(packages.prefetch(['lavacli'], log,
                                               is_root=True))
            with mock.patch('subprocess.run') as run, \
                    mock.patch.object(packages, 'missing_packages',
                                      side_effect=[['lavacli'], []]):
                packages.ensure(['lavacli'], is_root=True)
            popen.return_value.wait.assert_called_once_with()
            run.assert_not_called()
        self.assertIsNone(packages._PREFETCH)

    def test_nothing_missing_or_not_root_starts_nothing(self) -> None:
        from pathlib import Path
        with mock.patch.object(packages, 'installed_packages', only('a')), \
                mock.patch('subprocess.Popen') as popen:
            self.assertFalse(packages.prefetch(['a'], Path('/nonexistent/l'),
                                               is_root=True))
            self.assertFalse(packages.prefetch(['b'], Path('/nonexistent/l'),
                                               is_root=False))
        popen.assert_not_called()


class ForeignArchTest(unittest.TestCase):
    def test_known_arch_does_nothing(self) -> None:
        with mock.patch.object(packages, 'foreign_archs',
                               return_value=['arm64']), \
                mock.patch('subprocess.run') as run:
            packages.ensure_foreign_arch('arm64', is_root=True)
        run.assert_not_called()

    def test_non_root_gets_the_exact_commands(self) -> None:
        with mock.patch.object(packages, 'foreign_archs', return_value=[]):
            with self.assertRaises(SeriesError) as ctx:
                packages.ensure_foreign_arch('arm64', is_root=False)
        self.assertIn('dpkg --add-architecture arm64 && apt-get update',
                      str(ctx.exception))

    def test_optional_failure_is_a_message(self) -> None:
        with mock.patch.object(packages, 'ensure',
                               side_effect=SeriesError('no root')):
            self.assertEqual(packages.try_optional(), 'optional: no root')
        with mock.patch.object(packages, 'ensure'):
            self.assertIsNone(packages.try_optional())


if __name__ == '__main__':
    unittest.main()
