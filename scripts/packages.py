# SPDX-License-Identifier: GPL-2.0
"""Debian packages the project needs, installed when run as root."""

import os
import shlex
import subprocess
from pathlib import Path
from typing import Callable, List, Optional, Sequence

import project
from project import SeriesError

# Host build of the kernel's scripts, the arm64 cross compiler, QEMU, and
# what kunit.py and the tooling call.
REQUIRED = (
    'bc', 'bison', 'ccache', 'flex', 'gcc', 'gcc-aarch64-linux-gnu', 'git',
    'libc6-dev', 'libelf-dev', 'libssl-dev', 'make', 'python3',
    'qemu-system-arm', 'xz-utils',
)
# LAVA's dispatcher, to run the jobs of make lava here (lava-run), and its
# command-line client, to submit them to a lab.
LAVA = ('lava-dispatcher', 'lavacli')
# make stable applies the series with patch(1), which reports offsets and
# fuzz where git am only refuses.
STABLE = ('patch',)
# Only the benchmark chart needs it; without it the report says so.
OPTIONAL = ('python3-matplotlib',)


def installed_packages(names: Sequence[str]) -> List[str]:
    """Return those of names that dpkg reports as installed."""
    # dpkg-query fails when any name is unknown; it still lists the rest.
    proc = project.run(['dpkg-query', '-W', '-f',
                        '${Package} ${db:Status-Abbrev}\n', *names],
                       'dpkg-query', check=False)
    have = []
    for line in proc.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[1].startswith('ii'):
            have.append(fields[0])
    return have


def missing_packages(names: Sequence[str],
                     query: Optional[Callable[[Sequence[str]], List[str]]]
                     = None) -> List[str]:
    have = set((query or installed_packages)(names))
    return [n for n in names if n not in have]


def install_command(names: Sequence[str]) -> List[str]:
    return ['apt-get', 'install', '-y', '--no-install-recommends', *names]


# A background install of packages needed later in the run (prefetch()),
# so that apt's download and unpacking overlap the first kernel's build.
_PREFETCH: Optional['subprocess.Popen[bytes]'] = None


def prefetch(names: Sequence[str], log: Path,
             is_root: Optional[bool] = None) -> bool:
    """Start installing what of names is missing, in the background, its
    output to log; whether an install started. A failure is not reported
    here: the ensure() that needs the packages installs them again and
    says what went wrong."""
    global _PREFETCH
    missing = missing_packages(names)
    if _PREFETCH is not None or not missing:
        return False
    if not (os.geteuid() == 0 if is_root is None else is_root):
        return False
    log.parent.mkdir(parents=True, exist_ok=True)
    script = ' && '.join(shlex.join(step) for step in
                         (['apt-get', 'update'], install_command(missing)))
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    with open(log, 'wb') as out:
        _PREFETCH = subprocess.Popen(['sh', '-c', script], stdout=out,
                                     stderr=subprocess.STDOUT, env=env,
                                     stdin=subprocess.DEVNULL)
    return True


def wait_prefetch() -> None:
    """Let a background install end (apt holds dpkg's lock meanwhile)."""
    global _PREFETCH
    if _PREFETCH is not None:
        _PREFETCH.wait()
        _PREFETCH = None


def ensure(names: Sequence[str] = REQUIRED,
           is_root: Optional[bool] = None) -> None:
    """Install what is missing, or say exactly how to."""
    missing = missing_packages(names)
    if missing and _PREFETCH is not None:
        wait_prefetch()
        missing = missing_packages(names)
    if not missing:
        return
    if is_root is None:
        is_root = os.geteuid() == 0
    cmd = install_command(missing)
    if not is_root:
        raise SeriesError('missing packages, run as root: '
                          + shlex.join(cmd))
    print('installing: ' + ' '.join(missing), flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    for step in (['apt-get', 'update'], cmd):
        project.run(step, shlex.join(step), env=env)
    still = missing_packages(names)
    if still:
        raise SeriesError('packages still missing after install: '
                          + ' '.join(still))


def try_optional(names: Sequence[str] = OPTIONAL) -> Optional[str]:
    """Install the optional packages if possible; a message if not."""
    try:
        ensure(names)
    except SeriesError as e:
        return f'optional: {e}'
    return None


def foreign_archs() -> List[str]:
    proc = project.run(['dpkg', '--print-foreign-architectures'],
                       'dpkg --print-foreign-architectures')
    return proc.stdout.split()


def ensure_foreign_arch(arch: str, is_root: Optional[bool] = None) -> None:
    """Let apt fetch packages of another architecture (busybox-static for
    the arm64 initramfs); only the package lists change, nothing of that
    architecture is installed."""
    wait_prefetch()
    if arch in foreign_archs():
        return
    if is_root is None:
        is_root = os.geteuid() == 0
    steps = (['dpkg', '--add-architecture', arch], ['apt-get', 'update'])
    if not is_root:
        raise SeriesError(f'apt cannot fetch {arch} packages, run as root: '
                          + ' && '.join(shlex.join(s) for s in steps))
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    for step in steps:
        project.run(step, shlex.join(step), env=env)
