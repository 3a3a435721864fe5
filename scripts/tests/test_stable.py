# SPDX-License-Identifier: GPL-2.0
import hashlib
import io
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from typing import List
from unittest import mock

import project
import stable
from project import SeriesError

# apt-cache madison and apt-cache show as bookworm-security printed them.
MADISON = '\n'.join(
    f'linux-source-6.12 | {v} | http://deb.debian.org/debian-security '
    'bookworm-security/main amd64 Packages'
    for v in ('6.12.118-1~deb12u1', '6.12.117-1~deb12u1',
              '6.12.115-2~deb12u1', '6.12.107-1~deb12u1')) + '\n'
SHOW = '''Package: linux-source-6.12
Source: linux-signed-amd64 (6.12.118+1~deb12u1)
Version: 6.12.118-1~deb12u1
Filename: pool/updates/main/l/linux-6.12/linux-source-6.12_6.12.118-1~deb12u1_all.deb
Size: 153531472
SHA256: 896aff3b39299fa0dd36fef4f5db56ab189182e39abbbb1227dafdc7fcfe3fc3

Package: linux-source-6.12
Version: 6.12.117-1~deb12u1
Size: 153417920
SHA256: e849faf31ca3555757f3a8877cb01af92122f744f75d1f3102734651c4e14703
'''
CHANGELOG = '''linux (6.12.118-1~deb12u1) bookworm-security; urgency=high

  * New upstream stable update:
    https://www.kernel.org/pub/linux/kernel/v6.x/ChangeLog-6.12.118
    - arm64: hugetlb: Fix flush_hugetlb_tlb_range() invalidation
      level
    - mm: fix a typo

 -- Debian Kernel Team <debian-kernel@lists.debian.org>  Sat, 29 Nov 2025

linux (6.12.117-1~deb12u1) bookworm-security; urgency=high

    - arm64: mm: something older
'''
PATCH_MESSAGE = '''Subject: [PATCH 02/22] arm64: hugetlb: use the right level

Based on upstream commit eed6bfa8b282 ("arm64: hugetlb: Fix
flush_hugetlb_tlb_range() invalidation level"), v6.14-rc5.
---
'''


class VersionTest(unittest.TestCase):
    def test_debian_order(self) -> None:
        for older, newer in (('6.12.117-1~deb12u1', '6.12.118-1~deb12u1'),
                             ('6.12.115-2~deb12u1', '6.12.117-1~deb12u1'),
                             ('6.12.9-1', '6.12.10-1'),
                             ('1.0~rc1-1', '1.0-1'),
                             ('6.12.117-1~deb12u1', '6.12.117-1'),
                             ('9.0-1', '1:0.1-1')):
            self.assertEqual(stable.compare_versions(older, newer), -1,
                             (older, newer))
            self.assertEqual(stable.compare_versions(newer, older), 1)
        self.assertEqual(stable.compare_versions('6.12.117-1~deb12u1',
                                                 '6.12.117-1~deb12u1'), 0)

    def test_the_newest_offered_newer_than_the_pin(self) -> None:
        versions = stable.offered(MADISON)
        self.assertEqual(versions[0], '6.12.118-1~deb12u1')
        self.assertEqual(stable.choose(versions, '6.12.117-1~deb12u1'),
                         '6.12.118-1~deb12u1')

    def test_nothing_newer(self) -> None:
        versions = stable.offered(MADISON)
        self.assertIsNone(stable.choose(versions, '6.12.118-1~deb12u1'))
        self.assertIsNone(stable.choose([], '6.12.117-1~deb12u1'))

    def test_a_version_the_archive_does_not_have(self) -> None:
        with self.assertRaisesRegex(SeriesError, r'6\.12\.200-1 is not in '
                                    r'the archive \(apt-cache madison '
                                    r'offers 6\.12\.118'):
            stable.choose(stable.offered(MADISON), '6.12.117-1~deb12u1',
                          '6.12.200-1')

    def test_the_archives_record(self) -> None:
        offer = stable.offer_of(SHOW, '6.12.118-1~deb12u1')
        self.assertEqual((offer.sha256[:8], offer.size),
                         ('896aff3b', 153531472))
        with self.assertRaisesRegex(SeriesError, 'no record'):
            stable.offer_of(SHOW, '6.12.200-1')
        with self.assertRaisesRegex(SeriesError, 'no SHA256'):
            stable.offer_of(SHOW.replace('SHA256: 896', 'MD5sum: 896'),
                            '6.12.118-1~deb12u1')

    def test_a_tag_git_takes(self) -> None:
        self.assertEqual(stable.tag_of('6.12.118-1~deb12u1'),
                         'debian/6.12.118-1_deb12u1')


class FetchTest(unittest.TestCase):
    def test_a_checksum_mismatch_keeps_nothing(self) -> None:
        def download(cmd: List[str], cwd: str, **_: object
                     ) -> subprocess.CompletedProcess:
            Path(cwd, 'linux-source-6.12_6.12.118-1~deb12u1_all.deb'
                 ).write_bytes(b'not the archive\'s')
            return subprocess.CompletedProcess(cmd, 0, '', '')
        offer = stable.offer_of(SHOW, '6.12.118-1~deb12u1')
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaisesRegex(SeriesError, 'downloaded package '
                                        'checksum mismatch'):
                stable.fetch(Path(tmp), offer, download)
            self.assertEqual(list((Path(tmp) / 'debs').iterdir()), [])

    def test_a_download_that_matches_is_kept(self) -> None:
        data = b'a package'
        offer = stable.Offer('6.12.118-1~deb12u1',
                             hashlib.sha256(data).hexdigest(), len(data), '')

        def download(cmd: List[str], cwd: str, **_: object
                     ) -> subprocess.CompletedProcess:
            Path(cwd, 'x.deb').write_bytes(data)
            return subprocess.CompletedProcess(cmd, 0, '', '')
        with tempfile.TemporaryDirectory() as tmp:
            deb = stable.fetch(Path(tmp), offer, download)
            self.assertEqual(deb.read_bytes(), data)
            self.assertEqual(stable.fetch(Path(tmp), offer, None), deb)


class ChangelogTest(unittest.TestCase):
    def test_a_carried_fix_is_named_by_its_upstream_commit(self) -> None:
        refs = stable.upstream_refs(PATCH_MESSAGE)
        self.assertEqual(refs, [('eed6bfa8b282', 'arm64: hugetlb: Fix '
                                 'flush_hugetlb_tlb_range() invalidation '
                                 'level')])
        entries = stable.newer_entries(CHANGELOG, '6.12.117-1~deb12u1')
        self.assertNotIn('something older', entries)
        self.assertEqual(stable.carried_by(entries, refs),
                         'eed6bfa8b282 ("arm64: hugetlb: Fix '
                         'flush_hugetlb_tlb_range() invalidation level"), '
                         'in the changelog')
        self.assertEqual(stable.carried_by(stable.newer_entries(
            CHANGELOG, '6.12.118-1~deb12u1'), refs), '')


ORIGINAL = ''.join(f'line {i}\n' for i in range(1, 31))


def diff(old: str, new: str, heading: str = 'int f(void)') -> str:
    """A unified diff of a.c, as git format-patch writes one."""
    import difflib
    body = ''.join(difflib.unified_diff(old.splitlines(True),
                                        new.splitlines(True), 'a/a.c',
                                        'b/a.c'))
    body = body.replace(' @@\n', f' @@ {heading}\n')
    return ('Subject: [PATCH 03/22] mm: change a line\n\n'
            'Based on upstream commit 0123456789ab ("mm: x").\n---\n'
            'diff --git a/a.c b/a.c\n' + body)


@unittest.skipUnless(shutil.which('patch'),
                     'needs patch(1), Debian package patch')
class ApplyTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.tree = Path(self.tmp.name) / 'tree'
        self.tree.mkdir()
        self.patch = Path(self.tmp.name) / '0003-x.patch'
        self.patch.write_text(diff(ORIGINAL,
                                   ORIGINAL.replace('line 15\n', 'LINE 15\n')))

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def tree_with(self, text: str) -> None:
        (self.tree / 'a.c').write_text(text)
        project.git(self.tree, 'init', '-q')
        project.git(self.tree, 'add', 'a.c')
        project.git(self.tree, 'commit', '-q', '-m', 'base',
                    env=dict(stable.base_source.PRISTINE_ENV))

    def test_a_clean_patch_is_applied_and_committed(self) -> None:
        self.tree_with(ORIGINAL)
        got = stable.apply_one(self.tree, self.patch)
        self.assertEqual((got.how, got.detail), (stable.CLEAN, ''))
        self.assertIn('LINE 15', (self.tree / 'a.c').read_text())
        log = project.git(self.tree, 'log', '--format=%s').stdout
        self.assertEqual(log.split('\n')[0], 'mm: change a line')

    def test_an_offset_is_reported(self) -> None:
        self.tree_with('new 1\nnew 2\n' + ORIGINAL)
        got = stable.apply_one(self.tree, self.patch)
        self.assertEqual((got.how, got.detail),
                         (stable.OFFSET, 'a.c hunk #1 offset 2'))

    def test_fuzz_is_reported(self) -> None:
        self.tree_with(ORIGINAL.replace('line 12\n', 'line twelve\n'))
        got = stable.apply_one(self.tree, self.patch)
        self.assertEqual(got.how, stable.FUZZ)
        self.assertRegex(got.detail, r'^a\.c hunk #1 fuzz \d$')

    def test_a_patch_already_applied_is_carried(self) -> None:
        self.tree_with(ORIGINAL.replace('line 15\n', 'LINE 15\n'))
        got = stable.apply_one(self.tree, self.patch)
        self.assertEqual(got.how, stable.CARRIED)
        self.assertEqual(project.git(self.tree, 'status', '--porcelain'
                                     ).stdout, '')

    def test_a_conflict_names_the_file_the_hunk_and_its_function(
            self) -> None:
        self.tree_with(ORIGINAL.replace('line 14\nline 15\nline 16\n',
                                        'other\n'))
        got = stable.apply_one(self.tree, self.patch)
        self.assertEqual((got.how, got.detail),
                         (stable.CONFLICT,
                          'rejected: a.c hunk #1 (int f(void))'))
        self.assertEqual(project.git(self.tree, 'status', '--porcelain'
                                     ).stdout, '')


    def test_the_changelog_entry_that_names_a_rejected_file(self) -> None:
        entries = (CHANGELOG.replace('    - mm: fix a typo\n',
                                     '    - mm/page_table_check: skip zero\n'
                                     '      pages\n    - mm: fix a typo\n'))
        self.assertEqual(stable.entries_touching(
            entries, 'rejected: mm/page_table_check.c hunk #1 (f), '
            'a.c hunk #2'), ['mm/page_table_check: skip zero pages'])
        self.assertEqual(stable.entries_touching(entries, 'patch failed'),
                         [])

    def test_a_context_change_merges_three_way_and_is_refreshed(
            self) -> None:
        # The patch changes lines 13 and 17; stable changed line 15, the
        # context between them: patch(1) rejects the hunk, git's 3-way
        # merge of the patch's blobs applies it.
        self.tree_with(ORIGINAL)
        new = ORIGINAL.replace('line 13\n', 'LINE 13\n').replace(
            'line 17\n', 'LINE 17\n')
        blob = {name: subprocess.run(
                    ['git', 'hash-object', '-w', '--stdin'], input=text,
                    cwd=self.tree, capture_output=True, text=True,
                    check=True, env={**os.environ, **project.GIT_ENV}
                    ).stdout.strip()[:12]
                for name, text in (('old', ORIGINAL), ('new', new))}
        self.patch.write_text(
            'From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 '
            '00:00:00 2001\nFrom: A Developer <a@example.org>\n'
            'Date: Sun, 29 Nov 2026 23:40:14 +0000\n' +
            diff(ORIGINAL, new).replace(
                'diff --git a/a.c b/a.c\n',
                f'diff --git a/a.c b/a.c\nindex {blob["old"]}..'
                f'{blob["new"]} 100644\n'))
        (self.tree / 'a.c').write_text(
            ORIGINAL.replace('line 15\n', 'stable 15\n'))
        project.git(self.tree, 'commit', '-q', '-am', 'stable',
                    env=dict(stable.base_source.PRISTINE_ENV))
        got = stable.apply_one(self.tree, self.patch)
        self.assertEqual((got.how, got.detail),
                         (stable.MERGED, 'stable changed the context of '
                          'a.c hunk #1 (int f(void)); git am --3way '
                          'merges it'))
        self.assertEqual((self.tree / 'a.c').read_text(),
                         new.replace('line 15\n', 'stable 15\n'))
        out = Path(self.tmp.name) / 'refreshed'
        with mock.patch.object(project, 'PATCHES', Path(self.tmp.name)):
            written = stable.refresh(self.tree, [got], out)
        self.assertEqual(written, [out / self.patch.name])
        text = written[0].read_text()
        self.assertIn('Subject: [PATCH 03/22] mm: change a line', text)
        self.assertIn('From: A Developer <a@example.org>', text)
        self.assertIn('upstream commit 0123456789ab', text)
        self.assertIn(' stable 15\n', text)

    def test_a_conflict_the_merge_cannot_solve_leaves_the_tree(
            self) -> None:
        self.tree_with(ORIGINAL.replace('line 15\n', 'other 15\n'))
        got = stable.apply_one(self.tree, self.patch)
        self.assertEqual(got.how, stable.CONFLICT)
        self.assertEqual(project.git(self.tree, 'status', '--porcelain'
                                     ).stdout, '')


class RunTest(unittest.TestCase):
    def test_nothing_newer_is_one_line_and_success(self) -> None:
        def apt(cmd: List[str], **_: object) -> subprocess.CompletedProcess:
            return subprocess.CompletedProcess(
                cmd, 0, MADISON.replace('6.12.118', '6.12.100'), '')
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch('sys.stdout', new=io.StringIO()) as out:
            self.assertEqual(stable.run(Path(tmp), runner=apt), 0)
        self.assertEqual(out.getvalue(),
                         'linux-source-6.12: the archive offers nothing '
                         'newer than the pinned 6.12.117-1~deb12u1 (it has '
                         '6.12.117-1~deb12u1, 6.12.115-2~deb12u1, '
                         '6.12.107-1~deb12u1, 6.12.100-1~deb12u1)\n')

    def test_an_unknown_lane_is_refused_before_anything(self) -> None:
        with self.assertRaisesRegex(SeriesError, "unknown lane 'x'"):
            stable.run(Path('/nonexistent'), lanes=('x',), runner=None)


if __name__ == '__main__':
    unittest.main()
