# SPDX-License-Identifier: GPL-2.0
"""The pinned base kernel: Debian's linux-source .deb, checked and imported
once into a bare git repository as a single tagged commit.

Every step works in a temporary directory and is moved into place only when
complete, so an interrupted or failed run leaves nothing a re-run would
trust.
"""

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import project
from project import SeriesError

# The pristine commit is made with fixed identities and dates so that its
# hash is the same on every machine.
PRISTINE_ENV = {
    'GIT_AUTHOR_NAME': 'Debian linux-source-6.12',
    'GIT_AUTHOR_EMAIL': 'debian-kernel@lists.debian.org',
    'GIT_AUTHOR_DATE': '2025-11-10T18:05:00+00:00',
    'GIT_COMMITTER_NAME': 'Debian linux-source-6.12',
    'GIT_COMMITTER_EMAIL': 'debian-kernel@lists.debian.org',
    'GIT_COMMITTER_DATE': '2025-11-10T18:05:00+00:00',
}


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            digest.update(block)
    return digest.hexdigest()


def check_sha256(path: Path, expected: str, what: str) -> None:
    got = sha256_of(path)
    if got != expected:
        raise SeriesError(f'{what} checksum mismatch: {path.name} has sha256 '
                          f'{got}, expected {expected}')


def deb_path(cache: Path) -> Path:
    return cache / 'debs' / f'{project.BASE_PACKAGE}_{project.BASE_VERSION}_all.deb'


def fetch_deb(cache: Path, apt_download: list[str] | None = None) -> Path:
    """Download the pinned package with apt, unless a verified copy exists."""
    deb = deb_path(cache)
    if deb.exists():
        check_sha256(deb, project.BASE_DEB_SHA256, 'cached package')
        return deb
    deb.parent.mkdir(parents=True, exist_ok=True)
    spec = f'{project.BASE_PACKAGE}={project.BASE_VERSION}'
    cmd = apt_download or ['apt-get', 'download', spec]
    with tempfile.TemporaryDirectory(dir=deb.parent) as tmp:
        proc = project.run(cmd, 'apt', cwd=Path(tmp), check=False)
        if proc.returncode != 0 and os.geteuid() == 0 and not apt_download:
            # A fresh machine may have no package lists yet.
            project.run(['apt-get', 'update'], 'apt-get update', check=False)
            proc = project.run(cmd, 'apt', cwd=Path(tmp), check=False)
        debs = list(Path(tmp).glob('*.deb'))
        if proc.returncode != 0 or len(debs) != 1:
            why = project.last_line(proc.stderr, 'no .deb produced')
            raise SeriesError(f'cannot download {spec} with apt: {why}')
        check_sha256(debs[0], project.BASE_DEB_SHA256, 'downloaded package')
        os.replace(debs[0], deb)
    return deb


def extract_tarball(deb: Path, dest: Path,
                    sha256: str = project.BASE_TARBALL_SHA256) -> None:
    """Write the kernel tarball held in deb to dest and check it against
    sha256 ('' for a version whose .deb alone the archive vouches for)."""
    with open(dest, 'wb') as out:
        dpkg = subprocess.Popen(['dpkg-deb', '--fsys-tarfile', str(deb)],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        tar = subprocess.run(['tar', '-xO', project.BASE_TARBALL_MEMBER],
                             stdin=dpkg.stdout, stdout=out,
                             stderr=subprocess.PIPE, check=False)
        assert dpkg.stdout is not None and dpkg.stderr is not None
        dpkg.stdout.close()
        with dpkg.stderr:
            dpkg_err = dpkg.stderr.read().decode()
        if dpkg.wait() != 0 or tar.returncode != 0:
            why = project.last_line(dpkg_err or tar.stderr.decode())
            raise SeriesError(f'cannot extract {project.BASE_TARBALL_MEMBER} '
                              f'from {deb.name}: {why}')
    if sha256:
        check_sha256(dest, sha256, 'kernel tarball')


def repo_path(cache: Path) -> Path:
    return cache / 'linux.git'


def is_imported(repo: Path) -> bool:
    proc = project.git(None, '--git-dir', str(repo), 'rev-parse', '-q',
                       '--verify', f'refs/tags/{project.BASE_TAG}',
                       check=False)
    return repo.is_dir() and proc.returncode == 0


def import_base(cache: Path) -> Path:
    """Return the bare repository holding the pristine tagged commit."""
    repo = repo_path(cache)
    if is_imported(repo):
        return repo
    deb = fetch_deb(cache)
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix='.import-') as tmp_s:
        tmp = Path(tmp_s)
        tarball = tmp / 'linux.tar.xz'
        print(f'extracting {deb.name}', flush=True)
        extract_tarball(deb, tarball)
        src = tmp / 'src'
        src.mkdir()
        project.run(['tar', '-xJf', str(tarball), '-C', str(src)],
                    'extracting the kernel tarball')
        tarball.unlink()
        worktree = src / project.BASE_TOPDIR
        if not (worktree / 'Makefile').is_file():
            raise SeriesError(f'kernel tarball has no {project.BASE_TOPDIR}/'
                              'Makefile')
        new_repo = tmp / 'linux.git'
        print('importing the pristine tree into git', flush=True)
        env = dict(PRISTINE_ENV, GIT_DIR=str(new_repo),
                   GIT_WORK_TREE=str(worktree))
        project.git(None, 'init', '-q', '--bare', str(new_repo))
        # Debian's top-level .gitignore ignores everything at the top: force.
        for args in (['-c', 'core.looseCompression=1', 'add', '-f', '-A'],
                     ['commit', '-q', '-m',
                      f'Debian {project.BASE_PACKAGE} {project.BASE_VERSION}'],
                     ['tag', project.BASE_TAG]):
            project.git(None, *args, env=env)
        if repo.exists():
            shutil.rmtree(repo)
        os.replace(new_repo, repo)
    return repo
