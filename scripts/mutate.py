# SPDX-License-Identifier: GPL-2.0
"""Mutation testing of one patch's lines (issue 18, in progress).

The lines a patch adds are the lines of the patched tree that `git blame`
of the patched branch attributes to the patch's commit: what a later
patch rewrote is that patch's to answer for. mutate_gen.py makes the
mutants of those lines; kunit/mutate.tsv says, per patch, on which lane
and by which suites its mutants are judged.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import hunks
import mutate_gen
import project
import tsv
import kunit_run
from project import SeriesError

TABLE = project.KUNIT_DIR / 'mutate.tsv'
_BLAME_LINE = re.compile(r'^([0-9a-f]{40}) \d+ (\d+)')
# The files whose lines get mutants: C, not documentation or Kconfig.
_SOURCES = ('.c', '.h')


@dataclass(frozen=True)
class Target:
    """Where a patch's mutants are judged."""
    patch: str                  # "0018"
    lane: str
    suites: Tuple[str, ...]     # suite names (kunit.py filter globs)


def load_targets(path: Path = TABLE) -> Dict[str, Target]:
    targets: Dict[str, Target] = {}
    for where, (patch, lane, suites) in tsv.read(path, ('patch', 'lane',
                                                        'suites')):
        if lane not in kunit_run.LANES:
            raise SeriesError(f'{where}: unknown lane {lane!r}')
        if patch in targets:
            raise SeriesError(f'{where}: patch {patch} listed twice')
        targets[patch] = Target(patch, lane, tuple(
            s.strip() for s in suites.split(',') if s.strip()))
    return targets


def blame_commits(porcelain: str) -> Dict[int, str]:
    """The commit of each line (1-based) of `git blame --porcelain`."""
    found: Dict[int, str] = {}
    for line in porcelain.split('\n'):
        m = _BLAME_LINE.match(line)
        if m:
            found[int(m.group(2))] = m.group(1)
    return found


def touched_sources(patch_text: str) -> List[str]:
    """The C files a patch changes, in its order."""
    files = []
    for h in hunks.parse_patch('', patch_text):
        if h.file.endswith(_SOURCES) and h.file not in files:
            files.append(h.file)
    return files


def added_lines(repo: Path, rev: str, commit: str, files: Sequence[str]
                ) -> Dict[str, List[int]]:
    """Per file, the lines of rev that commit wrote."""
    found: Dict[str, List[int]] = {}
    for file in files:
        out = project.git(repo, 'blame', '--porcelain', rev, '--',
                          file).stdout
        lines = sorted(n for n, c in blame_commits(out).items()
                       if c == commit)
        if lines:
            found[file] = lines
    return found


def generate(repo: Path, rev: str, commit: str, patch_text: str
             ) -> Tuple[int, List[mutate_gen.Mutation]]:
    """How many lines the patch's commit wrote in rev's C files, and every
    mutant of them."""
    lines_added = 0
    found: List[mutate_gen.Mutation] = []
    for file, numbers in added_lines(repo, rev, commit,
                                     touched_sources(patch_text)).items():
        text = project.git(repo, 'show', f'{rev}:{file}').stdout.split('\n')
        lines_added += len(numbers)
        found += mutate_gen.mutations(file, text, numbers)
    return lines_added, found
