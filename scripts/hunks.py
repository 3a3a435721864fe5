# SPDX-License-Identifier: GPL-2.0
"""Every hunk of the series' changes, and what pins it.

A hunk is pinned when a mutant in kunit/mutants/ changes a line the hunk
added: `git blame` of the patched branch says which commit, and which
line of it, each line a mutant removes comes from, and the patch's hunk
ranges say which hunk that is. `make mutants` then proves that a case
notices the mutant. kunit/hunks.tsv lists the other hunks: either with a
mutant that pins the hunk's behaviour without touching its lines
("mutant NAME: ...", e.g. an error path the hunk's lines steer), or with
the reason no case pins it (nothing observable in these lanes, a comment,
a declaration, or a case still to write). A hunk in neither is a hole,
which the host tests and `make mutants` report.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

import project
import series
import tsv
from project import SeriesError

_FILE = re.compile(r'^\+\+\+ b/(\S+)')
_HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$')
_MUTANT_ROW = re.compile(r'^mutant (\S+):')
COLUMNS = ('patch', 'file', 'hunk', 'context', 'why')

Key = Tuple[str, str, int]      # (patch number, file, hunk index in file)


@dataclass(frozen=True)
class Hunk:
    patch: str              # "0018"
    file: str
    index: int              # 1-based, within the file in that patch
    start: int              # the post-image lines [start, end)
    end: int
    context: str            # the function the @@ line names, or ""

    @property
    def key(self) -> Key:
        return (self.patch, self.file, self.index)

    def label(self) -> str:
        where = f' ({self.context})' if self.context else ''
        return f'{self.patch} {self.file}#{self.index}{where}'


def parse_patch(number: str, text: str) -> List[Hunk]:
    """The hunks of one patch file."""
    hunks: List[Hunk] = []
    per_file: Dict[str, int] = {}
    current = ''
    for line in text.splitlines():
        m = _FILE.match(line)
        if m:
            current = m.group(1)
            continue
        m = _HUNK.match(line)
        if m and current:
            per_file[current] = per_file.get(current, 0) + 1
            start = int(m.group(3))
            count = int(m.group(4)) if m.group(4) is not None else 1
            hunks.append(Hunk(number, current, per_file[current], start,
                              start + count, m.group(5).strip()))
    return hunks


def removed_lines(text: str, read: Callable[[str], List[str]]
                  ) -> List[Tuple[str, int]]:
    """(file, line number in the tree the mutant applies to) of each line
    a mutant patch removes; a hunk that only adds names the line before
    its first addition. git apply takes a hunk at an offset when the tree
    has moved on, so each hunk's pre-image is looked up in the file as
    read() gives it, nearest to where its @@ line says."""
    found: List[Tuple[str, int]] = []
    current = ''
    hunks: List[Tuple[str, int, List[str]]] = []
    for line in text.splitlines():
        if line.startswith('--- a/'):
            current = line[len('--- a/'):].strip()
            continue
        if line.startswith('+++ ') or line.startswith('diff --git'):
            continue
        m = _HUNK.match(line)
        if m and current:
            hunks.append((current, int(m.group(1)), []))
            continue
        if hunks and line[:1] in (' ', '-', '+', ''):
            hunks[-1][2].append(line)
    for file, start, body in hunks:
        pre = [line[1:] for line in body if line[:1] in (' ', '-', '')]
        lines = read(file)
        at = [i + 1 for i in range(len(lines) - len(pre) + 1)
              if lines[i:i + len(pre)] == pre]
        if not at:
            raise SeriesError(f'a mutant hunk of {file} at line {start} '
                              'is not in the tree')
        old = min(at, key=lambda i: abs(i - start))
        removed_here = False
        added_at = None
        for line in body:
            if line.startswith('-'):
                found.append((file, old))
                removed_here = True
                old += 1
            elif line.startswith('+'):
                if added_at is None:
                    added_at = max(old - 1, 1)
            else:
                old += 1
        if not removed_here and added_at is not None:
            found.append((file, added_at))
    return found


# (file, line) in the patched branch -> (commit, line in that commit)
Blame = Callable[[str, int], Tuple[str, int]]


def git_read(repo: Path, rev: str) -> Callable[[str], List[str]]:
    cache: Dict[str, List[str]] = {}

    def read(file: str) -> List[str]:
        if file not in cache:
            cache[file] = project.git(repo, 'show',
                                      f'{rev}:{file}').stdout.split('\n')
        return cache[file]
    return read


def git_blame(repo: Path, rev: str) -> Blame:
    def blame(file: str, line: int) -> Tuple[str, int]:
        out = project.git(repo, 'blame', '--porcelain', '-L',
                          f'{line},{line}', rev, '--', file).stdout
        commit, orig, *_ = out.split('\n', 1)[0].split()
        return commit, int(orig)
    return blame


def pinning(hunks: Sequence[Hunk], mutants: Dict[str, str],
            commit_patch: Dict[str, str], blame: Blame,
            read: Callable[[str], List[str]]) -> Dict[Key, List[str]]:
    """For each hunk, the mutants that change a line it added."""
    pinned: Dict[Key, List[str]] = {}
    for name, text in sorted(mutants.items()):
        for file, line in removed_lines(text, read):
            commit, orig = blame(file, line)
            patch = commit_patch.get(commit)
            for h in hunks:
                if h.patch == patch and h.file == file and \
                        h.start <= orig < h.end:
                    names = pinned.setdefault(h.key, [])
                    if name not in names:
                        names.append(name)
    return pinned


def series_hunks(patch_dir: Path) -> List[Hunk]:
    """The hunks of the changes (the patches after the base marker)."""
    hunks: List[Hunk] = []
    for name in series.load(patch_dir).changes:
        hunks += parse_patch(name[:4], (patch_dir / name).read_text())
    return hunks


def load_table(path: Path) -> Dict[Key, Tuple[str, str]]:
    """kunit/hunks.tsv: (patch, file, hunk) -> (context, why)."""
    rows: Dict[Key, Tuple[str, str]] = {}
    for at, (patch, file, index, context, why) in tsv.read(path, COLUMNS):
        if not index.isdigit():
            raise SeriesError(f'{at}: hunk {index!r} is not a number')
        rows[(patch, file, int(index))] = (context, why)
    return rows


@dataclass
class Coverage:
    total: int
    pinned: Dict[Key, List[str]]       # by blame, or named in the table
    listed: Dict[Key, str]             # unpinned, with the reason
    holes: List[Hunk]
    stale: List[str]                   # table rows that need an edit

    def line(self) -> str:
        return (f'hunks: {len(self.pinned)} of {self.total} pinned by a '
                f'mutant, {len(self.listed)} listed with the reason none '
                f'is (kunit/hunks.tsv), {len(self.holes)} neither')


def coverage(hunks: Sequence[Hunk], pinned: Dict[Key, List[str]],
             table: Dict[Key, Tuple[str, str]], mutant_names: Sequence[str]
             ) -> Coverage:
    by_key = {h.key: h for h in hunks}
    pinned = {k: list(v) for k, v in pinned.items()}
    listed: Dict[Key, str] = {}
    stale: List[str] = []
    for key, (context, why) in sorted(table.items()):
        h = by_key.get(key)
        name = f'{key[0]} {key[1]}#{key[2]}'
        if h is None:
            stale.append(f'{name}: no such hunk')
            continue
        if context != (h.context or '-'):
            stale.append(f'{name}: its context is {h.context or "-"!r}, '
                         f'the table says {context!r}')
            continue
        named = _MUTANT_ROW.match(why)
        if key in pinned and not named:
            stale.append(f'{name}: pinned by {", ".join(pinned[key])}, '
                         'drop its row')
        elif named:
            if named.group(1) not in mutant_names:
                stale.append(f'{name}: no mutant {named.group(1)}')
            else:
                pinned.setdefault(key, []).append(named.group(1))
        else:
            listed[key] = why
    holes = [h for h in hunks if h.key not in pinned and h.key not in listed]
    return Coverage(len(hunks), pinned, listed, holes, stale)


def commits_to_patches(repo: Path, patch_dir: Path) -> Dict[str, str]:
    """The patched branch's change commits, to their patch numbers."""
    commits = project.git(repo, 'log', '--reverse', '--format=%H',
                          'base..patched').stdout.split()
    changes = series.load(patch_dir).changes
    if len(commits) != len(changes):
        raise SeriesError(f'the patched branch has {len(commits)} changes, '
                          f'the series {len(changes)}: run make trees')
    return {c: name[:4] for c, name in zip(commits, changes)}


def measure(repo: Path, patch_dir: Path = project.PATCHES,
            mutant_dir: Path = project.KUNIT_DIR / 'mutants',
            table_path: Path = project.KUNIT_DIR / 'hunks.tsv'
            ) -> Coverage:
    hunks = series_hunks(patch_dir)
    mutants = {p.stem: p.read_text() for p in mutant_dir.glob('*.patch')}
    pinned = pinning(hunks, mutants, commits_to_patches(repo, patch_dir),
                     git_blame(repo, 'patched'), git_read(repo, 'patched'))
    table = load_table(table_path) if table_path.exists() else {}
    return coverage(hunks, pinned, table, sorted(mutants))


def render(cov: Coverage, hunks: Sequence[Hunk]) -> str:
    lines = []
    for h in hunks:
        if h.key in cov.pinned:
            what = 'pinned by ' + ', '.join(cov.pinned[h.key])
        elif h.key in cov.listed:
            what = 'not pinned: ' + cov.listed[h.key]
        else:
            what = 'HOLE: neither pinned nor listed in kunit/hunks.tsv'
        lines.append(f'{h.label()}: {what}')
    lines += [f'kunit/hunks.tsv: {s}' for s in cov.stale]
    lines.append(cov.line())
    return '\n'.join(lines)
