# SPDX-License-Identifier: GPL-2.0
"""Every patch of the series through the base tree's scripts/checkpatch.pl.

One type is ignored: UNKNOWN_COMMIT_ID. The patches cite the upstream
commits they port by id, and checkpatch looks ids up in the git
repository it runs in; ours holds Debian's tarball as one commit, with no
upstream history, so every id would be "unknown". Everything else,
warnings included, counts.
"""

import re
from pathlib import Path
from typing import Dict, List, Sequence

import project

IGNORED = ('UNKNOWN_COMMIT_ID',)
_FINDING = re.compile(r'^(ERROR|WARNING|CHECK):')


def command(tree: Path, patch: Path) -> List[str]:
    return ['perl', str(tree / 'scripts' / 'checkpatch.pl'), '--quiet',
            '--show-types', f'--ignore={",".join(IGNORED)}', str(patch)]


def findings(output: str) -> List[str]:
    """checkpatch's ERROR/WARNING/CHECK lines."""
    return [line.strip() for line in output.splitlines()
            if _FINDING.match(line)]


def check(tree: Path, patch_dir: Path, names: Sequence[str]
          ) -> Dict[str, List[str]]:
    """Each patch's findings; an empty list for a clean patch."""
    found: Dict[str, List[str]] = {}
    for name in names:
        proc = project.run(command(tree, patch_dir / name),
                           f'checkpatch.pl {name}', cwd=tree, check=False)
        lines = findings(proc.stdout + proc.stderr)
        if proc.returncode != 0 and not lines:
            lines = ['checkpatch.pl failed: '
                     + project.last_line(proc.stderr or proc.stdout)]
        found[name] = lines
    return found
