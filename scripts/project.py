# SPDX-License-Identifier: GPL-2.0
"""Paths, pins and the error type shared by the project's host scripts."""

import fcntl
import os
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, Iterator, Optional, Sequence

REPO = Path(__file__).resolve().parent.parent

# Everything large or slow to make lives outside the repo, so a fresh clone
# reuses it: the Debian package, the kernel git repo, worktrees, ccache.
CACHE = Path(os.environ.get('MMSERIES_CACHE',
                            Path.home() / '.cache' / 'arm64-mm-series'))

# The base kernel: Debian's linux-source-6.12, pinned by version and by the
# sha256 of both the .deb and the tarball inside it.
BASE_PACKAGE = 'linux-source-6.12'
BASE_VERSION = '6.12.117-1~deb12u1'
BASE_DEB_SHA256 = ('e849faf31ca3555757f3a8877cb01af9'
                   '2122f744f75d1f3102734651c4e14703')
BASE_TARBALL_MEMBER = './usr/src/linux-source-6.12.tar.xz'
BASE_TARBALL_SHA256 = ('585a4a074597aefa2b1a68ada83a3184'
                       'ba351c127544dea80618bbcceaa3961f')
BASE_TOPDIR = 'linux-source-6.12'
# git refs cannot hold '~'.
BASE_TAG = 'debian/6.12.117-1_deb12u1'

PATCHES = REPO / 'kernel-patches'
KUNIT_DIR = REPO / 'kunit'
BENCH_DIR = REPO / 'lib'
MANIFEST = KUNIT_DIR / 'manifest.tsv'
WARNINGS = KUNIT_DIR / 'warnings.tsv'
KUNITCONFIG = REPO / '.kunitconfig'
QEMU_CONFIG = REPO / 'scripts' / 'qemu_configs' / 'arm64_mm.py'
# Results of runs; MMSERIES_RESULTS moves them (the host tests do).
RESULTS = Path(os.environ.get('MMSERIES_RESULTS', REPO / 'build'))

# Where the generated suites commit puts kunit/ and lib/ inside a kernel
# tree; the same commit hooks them into mm/Kconfig and mm/Makefile.
TREE_SUITE_DIRS = {KUNIT_DIR: 'mm/series-kunit', BENCH_DIR: 'mm/series-bench'}


class SeriesError(Exception):
    """A failure the user must act on; reported as one line."""


def last_line(text: str, default: str = '?') -> str:
    """The line of a command's output that usually says what went wrong."""
    lines = text.strip().splitlines()
    return lines[-1] if lines else default


def run(cmd: Sequence[str], what: str, cwd: Optional[Path] = None,
        env: Optional[Dict[str, str]] = None,
        check: bool = True) -> 'subprocess.CompletedProcess[str]':
    """Run cmd quietly; unless check is False, a failure is a SeriesError
    "<what> failed: <last line of its output>"."""
    proc = subprocess.run(list(cmd), cwd=cwd, env=env, capture_output=True,
                          text=True, check=False)
    if check and proc.returncode != 0:
        raise SeriesError(f'{what} failed: '
                          f'{last_line(proc.stderr or proc.stdout)}')
    return proc


# Every git command of the tooling runs with these: no global or system
# configuration (a user's am.threeWay, commit.gpgSign or a missing identity
# must not change what the tooling does), and a fixed identity, so that a
# commit's content, not the machine, decides its hash, and so that commands
# which write reflogs (am --abort, reset) work where no identity is set.
# No automatic gc either: after the pristine import's commit (90k loose
# objects) git would start a detached `gc --auto` that goes on writing
# into the repository's old path while the import renames it into place,
# so the import's temporary directory could not be removed.
GIT_ENV = {
    'GIT_CONFIG_GLOBAL': os.devnull,
    'GIT_CONFIG_NOSYSTEM': '1',
    'GIT_CONFIG_COUNT': '2',
    'GIT_CONFIG_KEY_0': 'gc.auto',
    'GIT_CONFIG_VALUE_0': '0',
    'GIT_CONFIG_KEY_1': 'maintenance.auto',
    'GIT_CONFIG_VALUE_1': 'false',
    'GIT_AUTHOR_NAME': 'arm64-mm-series tooling',
    'GIT_AUTHOR_EMAIL': 'tooling@arm64-mm-series.invalid',
    'GIT_COMMITTER_NAME': 'arm64-mm-series tooling',
    'GIT_COMMITTER_EMAIL': 'tooling@arm64-mm-series.invalid',
}


def git(cwd: Optional[Path], *args: str,
        env: Optional[Dict[str, str]] = None,
        check: bool = True) -> 'subprocess.CompletedProcess[str]':
    """Run git with GIT_ENV (env may override or add to it)."""
    return run(['git', *args], f'git {args[0]}' + (f' in {cwd}' if cwd
                                                   else ''),
               cwd=cwd, env={**os.environ, **GIT_ENV, **(env or {})},
               check=check)


@contextmanager
def build_lock(cache: Path) -> Iterator[None]:
    """Never two kernel builds at once on this machine."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / 'build.lock', 'w') as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print('waiting for another build to finish', flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield
