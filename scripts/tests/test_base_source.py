# SPDX-License-Identifier: GPL-2.0
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import base_source
import project
from project import SeriesError


def fake_deb(root: Path, payload: bytes | None) -> Path:
    """A .deb shaped like linux-source, holding payload as the tarball."""
    tree = root / 'pkg'
    (tree / 'DEBIAN').mkdir(parents=True)
    (tree / 'DEBIAN' / 'control').write_text(
        'Package: fake-linux-source\nVersion: 1\nArchitecture: all\n'
        'Maintainer: t <t@example.invalid>\nDescription: test\n')
    if payload is not None:
        member = tree / project.BASE_TARBALL_MEMBER
        member.parent.mkdir(parents=True)
        member.write_bytes(payload)
    else:
        (tree / 'usr').mkdir()
    deb = root / 'fake.deb'
    subprocess.run(['dpkg-deb', '--build', '--root-owner-group', str(tree),
                    str(deb)], check=True, capture_output=True)
    return deb


class ChecksumTest(unittest.TestCase):
    def test_mismatch_names_file_and_both_sums(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / 'x.deb'
            f.write_bytes(b'not the kernel')
            with self.assertRaisesRegex(SeriesError,
                                        r'package checksum mismatch: x.deb '
                                        r'has sha256 [0-9a-f]{64}, expected '
                                        + project.BASE_DEB_SHA256):
                base_source.check_sha256(f, project.BASE_DEB_SHA256,
                                         'package')


class ExtractTest(unittest.TestCase):
    def test_wrong_tarball_is_refused(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            deb = fake_deb(Path(tmp), b'tampered tarball')
            with self.assertRaisesRegex(SeriesError,
                                        'kernel tarball checksum mismatch'):
                base_source.extract_tarball(deb, Path(tmp) / 'out.tar.xz')

    def test_missing_tarball_is_one_clear_line(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            deb = fake_deb(Path(tmp), None)
            with self.assertRaisesRegex(SeriesError,
                                        'cannot extract .*linux-source'):
                base_source.extract_tarball(deb, Path(tmp) / 'out.tar.xz')


class FetchTest(unittest.TestCase):
    def test_apt_failure_is_reported_and_leaves_nothing(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp)
            with self.assertRaisesRegex(SeriesError, 'cannot download '
                                        'linux-source-6.12=6.12.117'):
                base_source.fetch_deb(cache, apt_download=[
                    'sh', '-c', 'echo "E: Unable to locate package" >&2; '
                    'exit 100'])
            self.assertEqual(list((cache / 'debs').iterdir()), [])

    def test_wrong_download_is_not_kept(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp)
            with self.assertRaisesRegex(SeriesError, 'downloaded package '
                                        'checksum mismatch'):
                base_source.fetch_deb(cache, apt_download=[
                    'sh', '-c', 'echo junk > x.deb'])
            self.assertEqual(list((cache / 'debs').iterdir()), [])


class ImportTest(unittest.TestCase):
    def test_failed_import_leaves_no_repo_a_rerun_would_trust(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp) / 'cache'
            deb = fake_deb(Path(tmp), b'tampered tarball')
            with mock.patch.object(base_source, 'fetch_deb',
                                   return_value=deb):
                with self.assertRaises(SeriesError):
                    base_source.import_base(cache)
            self.assertEqual(list(cache.iterdir()), [])
            self.assertFalse(base_source.is_imported(
                base_source.repo_path(cache)))


if __name__ == '__main__':
    unittest.main()
