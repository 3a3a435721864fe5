# SPDX-License-Identifier: GPL-2.0
"""The committed verdicts of make mutate (kunit/mutate-verdicts.tsv).

One row per judged mutant. A row is kept under a key that hashes what
its verdict depends on and nothing else, so that a verdict is reused
exactly where it still holds: on another machine, after a comment
changed in a suite that does not judge it, after lines moved.

  mutant: its file, the definition it is in, its occurrence there (the
    n-th place of that definition with the same original text), the
    operator, the original and the mutated text; not its line number.
  context: the judge's version; the patched tree's kernel sources (git
    object ids, which are content hashes, of everything but the suites'
    directory); the judging suites' files, with the local headers they
    include and those headers' .c files, their lines of Kconfig and
    Makefile (build_parts()); their
    rows of kunit/manifest.tsv and kunit/warnings.tsv; the lane's
    configuration fragments, QEMU configuration, kernel arguments,
    filters; the first line of gcc's and QEMU's --version.

A change to one suite thus re-judges only the mutants of the patches
that suite judges; a change to the kernel sources (the series, the
seams) re-judges all of them.
"""

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import (Callable, Dict, Iterable, List, Mapping, Optional,
                    Sequence, Set, Tuple)

import mutate_gen
import tsv
from project import SeriesError

COLUMNS = ('key', 'patch', 'scope', 'mutant', 'verdict', 'killed_by',
           'assertions', 'seconds', 'day', 'detail')
# What a row may hold: a verdict a boot or a build reached. An equivalent
# mutant is a reviewed row of kunit/mutate-equivalent.tsv instead, and a
# mutant that was not judged (a boot that said nothing) has no row.
KEPT = ('killed', 'survived', 'not-covered', 'no-build', 'warns',
        'same-object')
NONE = '-'
HEADER = '''\
# make mutate's verdicts, one row per judged mutant (scripts/mutation/
# verdicts.py): kept under a key of what the verdict depends on, reused
# only where every part of that key still holds, re-judged otherwise.
# Written by make mutate; do not edit by hand.
# key	patch	scope	mutant	verdict	killed_by	assertions	seconds	day	detail
'''
# The share of kept verdicts each run judges again (per mille of the key
# space), with the day as the seed: a kept verdict that no longer holds
# (a flaky case, a key that misses an input) shows up within weeks.
SPOT_CHECK_PER_MILLE = 50


@dataclass(frozen=True)
class Row:
    key: str
    patch: str
    scope: str
    mutant: str                     # file:line operator: what (for people)
    verdict: str
    killed_by: Tuple[str, ...] = ()
    assertions: Tuple[str, ...] = ()
    seconds: float = 0.0
    day: str = ''
    detail: str = ''

    def fields(self) -> List[str]:
        return [self.key, self.patch, self.scope, one_line(self.mutant),
                self.verdict, ','.join(self.killed_by) or NONE,
                ','.join(self.assertions) or NONE, f'{self.seconds:.1f}',
                self.day, one_line(self.detail) or NONE]


def one_line(text: str, limit: int = 200) -> str:
    """text as one field: no tabs or newlines, at most limit characters."""
    flat = ' '.join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 3] + '...'


def _listed(field: str) -> Tuple[str, ...]:
    return () if field == NONE else tuple(field.split(','))


def parse(text: str, where: str) -> Dict[str, Row]:
    """The rows of a verdict table by key; a malformed or duplicate row
    fails, named."""
    rows: Dict[str, Row] = {}
    for at, f in tsv.parse(text, COLUMNS, where):
        key, patch, scope, mutant, verdict, kills, asserted, sec, day, \
            detail = f
        if not re.fullmatch(r'[0-9a-f]{24}', key):
            raise SeriesError(f'{at}: key {key!r} is not 24 hex digits')
        if verdict not in KEPT:
            raise SeriesError(f'{at}: verdict {verdict!r} is not one of '
                              f'{", ".join(KEPT)}')
        if not re.fullmatch(r'\d{4}-\d\d-\d\d', day):
            raise SeriesError(f'{at}: day {day!r} is not YYYY-MM-DD')
        try:
            seconds = float(sec)
        except ValueError:
            raise SeriesError(f'{at}: seconds {sec!r} is not a number')
        if (verdict == 'killed') != (kills != NONE):
            raise SeriesError(f'{at}: a killed mutant, and only one, names '
                              'the cases that killed it')
        if key in rows:
            raise SeriesError(f'{at}: key {key} is already a row')
        rows[key] = Row(key, patch, scope, mutant, verdict, _listed(kills),
                        _listed(asserted), seconds, day,
                        '' if detail == NONE else detail)
    return rows


def load(path: Path) -> Dict[str, Row]:
    if not path.exists():
        return {}
    return parse(path.read_text(), path.name)


def render(rows: Iterable[Row]) -> str:
    ordered = sorted(rows, key=lambda r: (r.patch, r.scope, r.mutant, r.key))
    return HEADER + ''.join('\t'.join(r.fields()) + '\n' for r in ordered)


def save(path: Path, rows: Iterable[Row]) -> None:
    """Written whole, then moved into place: a run stopped half-way
    leaves the last complete table."""
    tmp = path.with_name(path.name + '.tmp')
    tmp.write_text(render(rows))
    os.replace(tmp, path)


def merged(kept: Mapping[str, Row], patch: str, scope: str,
           current: Iterable[str], judged: Iterable[Row]) -> Dict[str, Row]:
    """kept with the rows of (patch, scope) whose key is no longer among
    current (the keys of every mutant generated now) dropped, and judged
    put in."""
    live = set(current)
    rows = {k: r for k, r in kept.items()
            if (r.patch, r.scope) != (patch, scope) or k in live}
    rows.update((r.key, r) for r in judged)
    return rows


class Table:
    """The verdict table of one run: rows by key, written whole after
    each change, so that a run cut short keeps every verdict it
    reached."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows = load(path)

    def put(self, row: Row) -> None:
        self.rows[row.key] = row
        save(self.path, self.rows.values())

    def prune(self, patch: str, scope: str, current: Iterable[str]) -> int:
        """Drop the rows of (patch, scope) no mutant generated now has;
        how many went."""
        before = len(self.rows)
        self.rows = merged(self.rows, patch, scope, current, ())
        if len(self.rows) != before:
            save(self.path, self.rows.values())
        return before - len(self.rows)


def spot_checked(key: str, day: str,
                 per_mille: int = SPOT_CHECK_PER_MILLE) -> bool:
    """Whether a kept verdict is judged again today."""
    digest = hashlib.sha256(f'{day}\n{key}'.encode()).digest()
    return int.from_bytes(digest[:4], 'big') % 1000 < per_mille


# The mutant's part of the key.

def identity(m: mutate_gen.Mutation, lines: Sequence[str]) -> str:
    """What names a mutant without its line number: file, enclosing
    definition ('' at file scope), the occurrence of its original text
    in that definition (0 for the first), operator, texts. lines: the
    file as the mutant's tree has it (mutate_gen.lines_of())."""
    original = m.original.split('\n')
    start = m.line - 1
    if lines[start:start + len(original)] != original:
        raise ValueError(f'{m.file}:{m.line} is not the line the mutant '
                         'was made of')
    spans = mutate_gen.definitions(lines)
    name = next((d.name for d in spans if d.first <= m.line <= d.last), '')
    # The ranges of lines the name covers: every definition of that name
    # (#ifdef alternatives), or for file scope what no definition covers.
    if name:
        inside = [range(d.first - 1, d.last) for d in spans
                  if d.name == name]
    else:
        covered = {i for d in spans for i in range(d.first - 1, d.last)}
        inside = [range(i, i + 1) for i in range(len(lines))
                  if i not in covered]
    occurrence = sum(1 for r in inside for i in r
                     if i < start and lines[i:i + len(original)] == original)
    return '\0'.join((m.file, name, str(occurrence), m.operator,
                      m.original, m.mutated))


def key(mutant_identity: str, context: str) -> str:
    return hashlib.sha256(f'{context}\n{mutant_identity}'.encode()
                          ).hexdigest()[:24]


# The context's part: what a verdict of a lane and its suites depends on.

_SUITE_NAME = re.compile(r'\.name\s*=\s*"(\w+)"')
_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Files of the suites' directory every suite is built with; only their
# parts about the suite's own files go in its key (build_parts()).
SUITES_BUILD = ('Kconfig', 'Makefile')
_OBJ_LINE = re.compile(r'^obj-\$\(CONFIG_(\w+)\)\s*\+=\s*(\S+)\.o\s*$')
_CONFIG_START = re.compile(r'^(?:menu)?config\s+(\w+)\s*$')
_REFERENCES = re.compile(r'^\s*(select|imply|depends on)\s+(.*)$')
_SYMBOL = re.compile(r'\b[A-Z][A-Z0-9_]*\b')


def suite_files(files: Mapping[str, str], suites: Sequence[str]
                ) -> List[str]:
    """The files of the suites' directory (name -> text) that the given
    suites are built from: the files that define them, the local headers
    they include (transitively) and each header's .c (their part of
    SUITES_BUILD is build_parts()'s). A suite no file defines fails: its
    verdicts would hang on nothing."""
    wanted: List[str] = []
    for suite in suites:
        found = [n for n, t in sorted(files.items()) if n.endswith('.c')
                 and suite in _SUITE_NAME.findall(t)]
        if not found:
            raise SeriesError(f'no file of the suites defines suite {suite}')
        wanted += found

    def needs(name: str) -> List[str]:
        more = _LOCAL_INCLUDE.findall(files[name])
        return more + [name[:-2] + '.c'] if name.endswith('.h') else more
    return sorted(closure(wanted, files, needs))


def closure(start: Iterable[str], known: Iterable[str],
            follow: Callable[[str], Iterable[str]]) -> Set[str]:
    """Every name of known reached from start through follow()."""
    known = set(known)
    wanted, chosen = list(start), set()
    while wanted:
        name = wanted.pop()
        if name in chosen or name not in known:
            continue
        chosen.add(name)
        wanted += follow(name)
    return chosen


def kconfig_blocks(text: str) -> Tuple[Dict[str, List[str]], List[str]]:
    """A Kconfig file as its config blocks (symbol -> lines, from its
    `config` line up to the next line that starts in the first column)
    and the lines outside them (the menu, if and endif frame)."""
    blocks: Dict[str, List[str]] = {}
    frame: List[str] = []
    current: Optional[List[str]] = None
    for line in text.splitlines():
        start = _CONFIG_START.match(line)
        if start:
            current = blocks.setdefault(start.group(1), [])
        elif line[:1] not in ('', ' ', '\t'):
            current = None
        (frame if current is None else current).append(line)
    return blocks, frame


def build_parts(makefile: str, kconfig: str, files: Sequence[str],
                everything: Mapping[str, str]) -> str:
    """What of the suites' Makefile and Kconfig the given suite files are
    built with. everything: the suites' directory (name -> text).

    The Makefile's lines, but those that build another suite or another
    fixture (a .c beside its .h); the Kconfig's frame, the blocks of the
    files' symbols and of the symbols those select, imply or depend on,
    and every select or imply of a symbol defined outside this Kconfig
    (the kernel's: it changes the kernel every suite runs on). A change
    to another suite's Makefile line or Kconfig block leaves the key."""
    local = {f[:-2] for f in files if f.endswith('.c')}

    def someone_elses(obj: str) -> bool:
        text = everything.get(obj + '.c', '')
        return obj not in local and (bool(_SUITE_NAME.search(text)) or
                                     obj + '.h' in everything)

    objects: Dict[str, str] = {}
    kept: List[str] = []
    for line in makefile.splitlines():
        obj = _OBJ_LINE.match(line)
        if obj:
            objects[obj.group(2)] = obj.group(1)
        if not obj or not someone_elses(obj.group(2)):
            kept.append(line)
    blocks, frame = kconfig_blocks(kconfig)

    def referenced(symbol: str) -> List[str]:
        return [s for line in blocks[symbol]
                for ref in [_REFERENCES.match(line)] if ref
                for s in _SYMBOL.findall(ref.group(2))]
    chosen = closure((objects[o] for o in sorted(local) if o in objects),
                     blocks, referenced)
    parts = ['makefile ' + line for line in kept]
    parts += ['kconfig ' + line for line in frame]
    for symbol in sorted(chosen):
        parts += [f'kconfig {symbol}: {line}' for line in blocks[symbol]]
    for symbol in sorted(set(blocks) - chosen):
        for line in blocks[symbol]:
            ref = _REFERENCES.match(line)
            if ref and ref.group(1) != 'depends on' and any(
                    s not in blocks for s in _SYMBOL.findall(ref.group(2))):
                parts.append(f'kconfig {symbol}: {line}')
    return '\n'.join(parts)


def table_rows(text: str, suites: Sequence[str]) -> List[str]:
    """The rows of a kunit/*.tsv table about the suites' cases (first
    field suite.case...), as they are written."""
    return [line for line in text.splitlines()
            if line.split('\t', 1)[0].split('.', 1)[0] in suites
            and not line.startswith('#')]


@dataclass(frozen=True)
class Context:
    """Everything but the mutant that a verdict depends on, as text; its
    digest is the context part of every key of one (lane, suites)."""
    judge_version: str
    kernel: str                 # ls-tree lines of the kernel sources
    suites: Tuple[Tuple[str, str], ...]     # (file, blob id)
    manifest_rows: Tuple[str, ...]
    warnings_rows: Tuple[str, ...]
    lane: Tuple[Tuple[str, str], ...]       # (what, its text)
    tools: Tuple[str, ...]
    build: str = ''             # build_parts() of the suites' files

    def text(self) -> str:
        parts = [f'judge {self.judge_version}', self.kernel]
        parts += [f'suite {f} {b}' for f, b in self.suites]
        parts += [self.build]
        parts += [f'manifest {r}' for r in self.manifest_rows]
        parts += [f'warnings {r}' for r in self.warnings_rows]
        parts += [f'lane {w}\n{t}' for w, t in self.lane]
        parts += [f'tool {t}' for t in self.tools]
        return '\n'.join(parts)

    def digest(self) -> str:
        return hashlib.sha256(self.text().encode()).hexdigest()


def kernel_listing(top: str, mm: str, suites_dir: str = 'series-kunit'
                   ) -> str:
    """The kernel sources of a tree from `git ls-tree` of its top and of
    its mm/: every entry's object id but mm's (which holds the suites)
    and the suites' own directory."""
    entries = [line for line in top.splitlines()
               if line.split('\t', 1)[-1] != 'mm']
    entries += ['mm/' + line for line in mm.splitlines()
                if line.split('\t', 1)[-1] != suites_dir]
    return '\n'.join(entries)


def first_line(text: Optional[str]) -> str:
    return (text or '').strip().split('\n', 1)[0]
