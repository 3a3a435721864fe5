# SPDX-License-Identifier: GPL-2.0
"""Shared bits of the host tests: fixture paths and a scratch git repo."""

import subprocess
from pathlib import Path

DATA = Path(__file__).parent / 'data'

GIT_ENV = {
    'GIT_CONFIG_GLOBAL': '/dev/null', 'GIT_CONFIG_NOSYSTEM': '1',
    'GIT_AUTHOR_NAME': 'test', 'GIT_AUTHOR_EMAIL': 'test@example.invalid',
    'GIT_COMMITTER_NAME': 'test',
    'GIT_COMMITTER_EMAIL': 'test@example.invalid',
}


def git(cwd: Path, *args: str) -> str:
    import os
    return subprocess.run(['git', *args], cwd=cwd, check=True, text=True,
                          capture_output=True,
                          env=dict(os.environ, **GIT_ENV)).stdout


def scratch_repo(path: Path, files: dict) -> None:
    path.mkdir(parents=True, exist_ok=True)
    git(path, 'init', '-q')
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, 'add', '-A')
    git(path, 'commit', '-q', '-m', 'initial')
