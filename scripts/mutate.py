# SPDX-License-Identifier: GPL-2.0
"""Mutation testing of each patch of the series, in two scopes.

added: the lines a patch adds, which are the lines of the patched tree
that `git blame` of the patched branch attributes to the patch's commit
(what a later patch rewrote is that patch's to answer for).

touched: the rest of every function and macro the patch changes, as the
patched tree has it: the lines blame gives to the pristine tree. A
backport breaks the code around its lines as easily as its own, so the
base lines of a changed function are as much the patch's behaviour. A
definition is the patch's when the patch is the first of the series to
change its text (by name, in the files the patch touches).

mutate_gen.py makes the mutants of both; kunit/mutate.tsv says, per
patch, on which lane and by which suites they are judged. Each kept
verdict of a killed mutant names the assertions that failed (file:line
of the suites), so that the report can say, per suite file, which of
its assertions some mutant has failed.
"""

import fnmatch
import hashlib
import json
import os
import re
import statistics
import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import hunks
import kunit_run
import manifest
import mutants
import mutate_gen
import project
import reasons
import series
import tsv
import verify
from mutation import schema, schemata, verdicts
from project import SeriesError
from trees import Tree

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


ADDED, TOUCHED = 'added', 'touched'
SCOPES = (ADDED, TOUCHED)


def first_touchers(repo: Path, changes: Sequence[Tuple[str, str]],
                   texts: Dict[str, str]) -> Dict[Tuple[str, str], str]:
    """(file, definition name) -> the patch of changes ((patch, commit)
    in series order) that first changes that definition's text."""
    found: Dict[Tuple[str, str], str] = {}
    for patch, commit in changes:
        for file in touched_sources(texts[patch]):
            before = project.git(repo, 'show', f'{commit}^:{file}',
                                 check=False)
            after = project.git(repo, 'show', f'{commit}:{file}',
                                check=False)
            old = mutate_gen.definition_texts(
                mutate_gen.lines_of(before.stdout)) if not before.returncode \
                else {}
            new = mutate_gen.definition_texts(
                mutate_gen.lines_of(after.stdout)) if not after.returncode \
                else {}
            for name, text in new.items():
                if old.get(name) != text:
                    found.setdefault((file, name), patch)
    return found


@dataclass(frozen=True)
class Touched:
    """What a patch's touched scope covers on the patched tree."""
    definitions: Tuple[str, ...]    # "file:name"
    base_lines: int
    mutations: Tuple[mutate_gen.Mutation, ...]


def generate_touched(repo: Path, rev: str, patch: str, pristine: str,
                     owners: Dict[Tuple[str, str], str]) -> Touched:
    """The mutants of the pristine lines of every definition the patch
    first changes, as they stand in rev."""
    names: List[str] = []
    base_lines = 0
    found: List[mutate_gen.Mutation] = []
    for file in sorted({f for (f, _), p in owners.items() if p == patch}):
        shown = project.git(repo, 'show', f'{rev}:{file}', check=False)
        if shown.returncode:
            continue            # a file the series later removes
        lines = mutate_gen.lines_of(shown.stdout)
        blame = blame_commits(project.git(repo, 'blame', '--porcelain', rev,
                                          '--', file).stdout)
        wanted: List[int] = []
        for d in mutate_gen.definitions(lines):
            if owners.get((file, d.name)) != patch:
                continue
            names.append(f'{file}:{d.name}')
            wanted += [n for n in range(d.first, d.last + 1)
                       if blame.get(n) == pristine]
        base_lines += len(wanted)
        found += mutate_gen.mutations(file, lines, sorted(set(wanted)))
    return Touched(tuple(names), base_lines, tuple(found))


def generate(repo: Path, rev: str, commit: str, patch_text: str
             ) -> Tuple[int, List[mutate_gen.Mutation]]:
    """How many lines the patch's commit wrote in rev's C files, and every
    mutant of them."""
    lines_added = 0
    found: List[mutate_gen.Mutation] = []
    for file, numbers in added_lines(repo, rev, commit,
                                     touched_sources(patch_text)).items():
        text = mutate_gen.lines_of(project.git(repo, 'show',
                                               f'{rev}:{file}').stdout)
        lines_added += len(numbers)
        found += mutate_gen.mutations(file, text, numbers)
    return lines_added, found


# What became of one generated mutant.
KILLED, SURVIVED, EQUIVALENT = 'killed', 'survived', 'equivalent'
NO_BUILD, WARNS, NOT_JUDGED = 'no-build', 'warns', 'not-judged'
# The mutated file compiled to the same object as the patched one (the
# lane's configuration compiles the line out, e.g. a VM_WARN_ON() without
# CONFIG_DEBUG_VM), or, for a header, a unit that includes it preprocesses
# to the patched text (the line is in an #ifdef branch the lane does not
# build): no case of that kernel can tell them apart, so it is left out
# of the score, like a mutant that does not build.
SAME_OBJECT = 'same-object'
# A mutant of the schema kernel whose guard no case of its suites ran on
# its lane: a survivor, counted apart (the lines no case covers).
NOT_COVERED = 'not-covered'
EQUIVALENTS = project.KUNIT_DIR / 'mutate-equivalent.tsv'
# Reviewed survivors: mutants that change behaviour, but only where no
# lane of this project can reach (e.g. a zone boundary that is not
# MAX_PAGE_ORDER aligned); they stay survivors in the score.
EXPLAINED = project.KUNIT_DIR / 'mutate-survivors.tsv'


@dataclass(frozen=True)
class Result:
    patch: str
    mutation: mutate_gen.Mutation
    verdict: str
    kills: Tuple[str, ...] = ()
    detail: str = ''
    seconds: float = 0.0        # what judging it took (build and boot)
    scope: str = 'added'
    # The suites' assertions that failed ("kunit/file.c:line"), for a kill.
    assertions: Tuple[str, ...] = ()

    def as_dict(self) -> Dict:
        return {'patch': self.patch, 'mutation': self.mutation.__dict__,
                'verdict': self.verdict, 'kills': list(self.kills),
                'detail': self.detail, 'seconds': self.seconds,
                'scope': self.scope, 'assertions': list(self.assertions)}

    @staticmethod
    def from_dict(d: Dict) -> 'Result':
        return Result(d['patch'], mutate_gen.Mutation(**d['mutation']),
                      d['verdict'], tuple(d['kills']), d['detail'],
                      d['seconds'], d.get('scope', ADDED),
                      tuple(d.get('assertions', ())))


def code_key(text: str) -> str:
    """text with every run of white space made one space and none at the
    ends: a row's original and mutated text match a mutant's whatever the
    indentation, and a mutant of two lines (a move) fits in a row."""
    return ' '.join(text.split())


def load_equivalents(path: Path = EQUIVALENTS
                     ) -> Dict[Tuple[str, str, str, str], str]:
    """Reviewed mutants (equivalent ones, or explained survivors), keyed
    by (patch, file, original text, mutated text), both as code_key()
    has them, so that a row survives lines moving; the value is the
    reason."""
    found: Dict[Tuple[str, str, str, str], str] = {}
    if not path.exists():
        return found
    for where, (patch, file, original, mutated, why) in tsv.read(
            path, ('patch', 'file', 'original', 'mutated', 'why')):
        if not why.strip():
            raise SeriesError(f'{where}: an equivalent mutant needs its '
                              'reason')
        found[(patch, file, code_key(original), code_key(mutated))] = why
    return found


def equivalent_key(patch: str, m: mutate_gen.Mutation
                   ) -> Tuple[str, str, str, str]:
    return (patch, m.file, code_key(m.original), code_key(m.mutated))


def compiler_warnings(output: str, file: str) -> List[str]:
    """The compiler's warnings and errors about file in make's output."""
    pattern = re.compile(r'^(?:\S*/)?' + re.escape(file) +
                         r':\d+:\d+: (?:warning|error): .*$', re.M)
    return pattern.findall(output)


@dataclass(frozen=True)
class Score:
    patch: str
    lines_added: int            # for the touched scope: its base lines
    generated: int
    tried: int
    no_build: int
    killed: int
    survived: int
    equivalent: int
    same_object: int = 0
    scope: str = ADDED
    not_covered: int = 0

    @property
    def score(self) -> float:
        """Killed over the mutants that built and can change behaviour
        (a mutant no case reaches is one that survives)."""
        judged = self.killed + self.survived + self.not_covered
        return self.killed / judged if judged else 1.0


def score(patch: str, lines_added: int, generated: int,
          results: Sequence[Result], scope: str = ADDED) -> Score:
    results = [r for r in results if r.scope == scope]
    count = {v: sum(r.verdict == v for r in results)
             for v in (KILLED, SURVIVED, EQUIVALENT, NO_BUILD, WARNS,
                       NOT_JUDGED, SAME_OBJECT, NOT_COVERED)}
    return Score(patch, lines_added, generated, len(results),
                 count[NO_BUILD] + count[WARNS], count[KILLED],
                 count[SURVIVED], count[EQUIVALENT], count[SAME_OBJECT],
                 scope, count[NOT_COVERED])


_FAILED_AT = re.compile(r'(?:EXPECTATION|ASSERTION) FAILED at '
                        r'(?:\S*/)?mm/series-kunit/(\S+\.c):(\d+)')


def failed_assertions(log: str, cases: Sequence[str]) -> Tuple[str, ...]:
    """The suites' assertions ("kunit/file.c:line") that failed in the
    named cases of a KTAP log."""
    found = set()
    for case, texts in reasons.reports_by_case(log).items():
        if not any(case == c or case.startswith(c + '.') for c in cases):
            continue
        for text in texts:
            found.update(f'kunit/{m.group(1)}:{m.group(2)}'
                         for m in _FAILED_AT.finditer(text))
    return tuple(sorted(found))


_ASSERTION = re.compile(r'\bKUNIT_(?:EXPECT|ASSERT)_\w+\s*\(|'
                        r'\bKUNIT_FAIL(?:_AND_ABORT)?\s*\(')


def suite_assertions(kunit_dir: Path = project.KUNIT_DIR
                     ) -> Dict[str, List[str]]:
    """Per suite source (and fixture) of kunit/, the lines that hold an
    assertion, as "kunit/file.c:line"."""
    found: Dict[str, List[str]] = {}
    for path in sorted(kunit_dir.glob('*.c')):
        for number, line in enumerate(path.read_text().split('\n'), 1):
            if _ASSERTION.search(line) and '#define' not in line:
                found.setdefault(path.name, []).append(
                    f'kunit/{path.name}:{number}')
    return found


def oracle_table(results: Sequence[Result],
                 assertions: Dict[str, List[str]]) -> str:
    """Per suite file: its assertions some killed mutant failed, of all."""
    failed = {a for r in results if r.verdict == KILLED
              for a in r.assertions}
    lines = ['| suite file | assertions failed by a mutant | never failed |',
             '|---|---|---|']
    for name, held in assertions.items():
        hit = [a for a in held if a in failed]
        never = [a.rpartition(':')[2] for a in held if a not in failed]
        lines.append(f'| {name} | {len(hit)} of {len(held)} | '
                     + (', '.join(never[:12]) +
                        (f' (+{len(never) - 12})' if len(never) > 12
                         else '') if never else '-') + ' |')
    return '\n'.join(lines)


def render(scores: Sequence[Score], results: Sequence[Result],
           targets: Dict[str, Target],
           explained: Optional[Dict[Tuple[str, str, str, str], str]] = None
           ) -> str:
    lines = ['| patch | scope | lines | mutants | tried | not built '
             '(or warn) | same object | killed | survived | not covered '
             '| equivalent | score |',
             '|---|---|---|---|---|---|---|---|---|---|---|---|']
    for s in scores:
        lines.append(f'| {s.patch} | {s.scope} | {s.lines_added} | '
                     f'{s.generated} | '
                     f'{s.tried} | {s.no_build} | {s.same_object} | '
                     f'{s.killed} | {s.survived} | {s.not_covered} | '
                     f'{s.equivalent} | '
                     + (f'{100 * s.score:.0f}% |' if s.tried else '- |'))
    survivors = [r for r in results if r.verdict == SURVIVED]
    why = explained if explained is not None else {}
    if survivors:
        lines.append('')
        lines.append('Survivors (kill with a case; list one that cannot '
                     'change behaviour in kunit/mutate-equivalent.tsv, '
                     'one no lane can reach in kunit/mutate-survivors.tsv, '
                     'each with the reason):')
        for r in survivors:
            m = r.mutation
            reason = why.get(equivalent_key(r.patch, m))
            lines.append(f'- {r.patch} ({r.scope}) {m.file}:{m.line} '
                         f'{m.operator}: {m.what}; suites '
                         f'{", ".join(targets[r.patch].suites)} on '
                         f'{targets[r.patch].lane}'
                         + (f'; explained: {reason}' if reason
                            else '; unexplained'))
    uncovered = [r for r in results if r.verdict == NOT_COVERED]
    if uncovered:
        lines.append('')
        lines.append('Not covered (no case of the suites runs the line on '
                     'its lane):')
        lines += [f'- {r.patch} ({r.scope}) {r.mutation.file}:'
                  f'{r.mutation.line} {r.mutation.operator}: '
                  f'{r.mutation.what}' for r in uncovered]
    not_judged = [r for r in results if r.verdict == NOT_JUDGED]
    for r in not_judged:
        lines.append(f'- not judged: {r.patch} {r.mutation.file}:'
                     f'{r.mutation.line} {r.mutation.what}: {r.detail}')
    return '\n'.join(lines)


def as_json(scores: Sequence[Score], results: Sequence[Result],
            explained: Optional[Dict[Tuple[str, str, str, str], str]] = None
            ) -> Dict:
    why = explained if explained is not None else {}
    return {
        'patches': [dict(s.__dict__, score=s.score) for s in scores],
        'mutants': [{'patch': r.patch, 'file': r.mutation.file,
                     'line': r.mutation.line,
                     'operator': r.mutation.operator,
                     'what': r.mutation.what,
                     'mutated': r.mutation.mutated,
                     'verdict': r.verdict, 'killed_by': list(r.kills),
                     'detail': r.detail,
                     'explained': why.get(equivalent_key(r.patch,
                                                         r.mutation), '')
                     if r.verdict == SURVIVED else ''} for r in results],
    }


def order_for_builds(found: Sequence[mutate_gen.Mutation]
                     ) -> List[mutate_gen.Mutation]:
    """Mutants of .c files first (one object each to rebuild), then those
    of headers, one header after the other (each rebuilds what includes
    it, and the tree going back to patched rebuilds it again)."""
    return sorted(found, key=lambda m: (m.file.endswith('.h'), m.file,
                                        m.line))


def make_single(tree: Tree, target: str, lane: str, cache: Path
                ) -> subprocess.CompletedProcess:
    """Make one Kbuild single target (an object, a preprocessed source) in
    the lane's build directory, as kunit.py's make would."""
    return subprocess.run(
        ['make', 'ARCH=arm64', f'O={kunit_run.build_dir_name(lane)}',
         f'CC=ccache {kunit_run.CROSS_COMPILE}gcc',
         f'CROSS_COMPILE={kunit_run.CROSS_COMPILE}', target],
        cwd=tree.path, env=kunit_run.build_env(cache),
        capture_output=True, text=True)


def compile_object(tree: Tree, file: str, lane: str, cache: Path
                   ) -> subprocess.CompletedProcess:
    """Make the object of one .c file in the lane's build directory."""
    return make_single(tree, file[:-2] + '.o', lane, cache)


def object_digest(tree: Tree, file: str, lane: str) -> str:
    """What of file's object can change what the kernel does: its code,
    data, relocations and symbols, not its debug information (which
    records columns and so moves with swapped arguments)."""
    build = tree.path / kunit_run.build_dir_name(lane)
    obj = build / (file[:-2] + '.o')
    stripped = obj.with_suffix('.o.stripped')
    try:
        project.run([f'{kunit_run.CROSS_COMPILE}objcopy', '--strip-debug',
                     str(obj), str(stripped)], f'objcopy of {obj.name}')
        return hashlib.sha256(stripped.read_bytes()).hexdigest()
    finally:
        stripped.unlink(missing_ok=True)


# Per (tree, lane, file, patched tree id): the digest of the patched
# file's object, made once per run before its first mutant.
_PATCHED_OBJECTS: Dict[Tuple[str, str, str, str], str] = {}


def patched_object(tree: Tree, file: str, lane: str, cache: Path,
                   tree_id: str) -> str:
    """The digest of file's object in the (unmutated) patched tree, or ''
    when it cannot be made alone (a header, or a lane not built yet)."""
    if not file.endswith('.c') or not (
            tree.path / kunit_run.build_dir_name(lane) / '.config').exists():
        return ''
    key = (str(tree.path), lane, file, tree_id)
    if key not in _PATCHED_OBJECTS:
        proc = compile_object(tree, file, lane, cache)
        if proc.returncode:
            raise SeriesError(f'the patched tree does not build {file}: '
                              + project.last_line(proc.stderr,
                                                  'make failed'))
        _PATCHED_OBJECTS[key] = object_digest(tree, file, lane)
    return _PATCHED_OBJECTS[key]


def precheck(tree: Tree, m: mutate_gen.Mutation, lane: str, cache: Path,
             patched: str) -> Tuple[str, str]:
    """Compile the mutated .c file's object alone: (NO_BUILD or WARNS,
    the compiler's line), (SAME_OBJECT, why) when it is the patched
    object (digest patched), or ('', '') when it must be run."""
    if not patched:
        return '', ''
    proc = compile_object(tree, m.file, lane, cache)
    said = compiler_warnings(proc.stdout + proc.stderr, m.file)
    if proc.returncode:
        return NO_BUILD, said[0] if said else project.last_line(
            proc.stderr, 'make failed')
    if said:
        return WARNS, said[0]
    if object_digest(tree, m.file, lane) == patched:
        return SAME_OBJECT, ('compiles to the object the patched '
                             f'{m.file} does on the {lane} lane')
    return '', ''


def in_macro(lines: Sequence[str], line: int) -> bool:
    """Whether the 1-based line is part of a #define, continuation lines
    included: a macro's text reaches a translation unit only where it is
    used, so a unit's preprocessed text cannot tell whether it is
    compiled."""
    i = line - 1
    while i > 0 and lines[i - 1].rstrip().endswith('\\'):
        i -= 1
    return bool(re.match(r'\s*#\s*define\b', lines[i]))


def header_unit(tree: Tree, header: str, lane: str) -> str:
    """A source the lane's build compiles that includes the header (from
    Kbuild's dependency files), or '' when none does."""
    build = tree.path / kunit_run.build_dir_name(lane)
    dep = re.compile(r'^\s+(?:\.\./|\$\(srctree\)/)?' + re.escape(header)
                     + r' \\$', re.M)
    for cmd in sorted(build.rglob('.*.o.cmd')):
        text = cmd.read_text(errors='replace')
        source = re.search(r'^source_\S+ := (?:\.\./)?(\S+\.c)$', text, re.M)
        if source and dep.search(text):
            return source.group(1)
    return ''


def preprocessed(tree: Tree, unit: str, lane: str, cache: Path) -> str:
    """The digest of a source's preprocessed text in the lane's build
    directory, or '' when it cannot be made."""
    target = unit[:-2] + '.i'
    proc = make_single(tree, target, lane, cache)
    out = tree.path / kunit_run.build_dir_name(lane) / target
    if proc.returncode or not out.exists():
        return ''
    try:
        return hashlib.sha256(out.read_bytes()).hexdigest()
    finally:
        out.unlink()


# Per (tree, lane, header, patched tree id): a unit that includes the
# header and the digest of its patched preprocessed text.
_PATCHED_UNITS: Dict[Tuple[str, str, str, str], Tuple[str, str]] = {}


def header_precheck(tree: Tree, m: mutate_gen.Mutation,
                    mutant: mutants.Mutant, lane: str, cache: Path,
                    tree_id: str, text: str) -> Tuple[str, str]:
    """(SAME_OBJECT, why) for a header mutant the lane's configuration
    preprocesses away (a line of an #ifdef branch the lane does not
    build, such as a !CONFIG_TRANSPARENT_HUGEPAGE stub), so that it is
    not built whole for nothing; ('', '') when it must be run. The
    header keeps its mtime, so that the builds after do not recompile
    what includes it."""
    header = tree.path / m.file
    if (not m.file.endswith('.h') or in_macro(text.split('\n'), m.line) or
            not (tree.path / kunit_run.build_dir_name(lane) /
                 '.config').exists()):
        return '', ''
    key = (str(tree.path), lane, m.file, tree_id)
    if key not in _PATCHED_UNITS:
        unit = header_unit(tree, m.file, lane)
        _PATCHED_UNITS[key] = (unit, preprocessed(tree, unit, lane, cache)
                               if unit else '')
    unit, patched = _PATCHED_UNITS[key]
    if not patched:
        return '', ''
    st = os.stat(header)
    mutants.apply(tree, mutant)
    try:
        got = preprocessed(tree, unit, lane, cache)
    finally:
        mutants.reset(tree.path, (m.file,))
        os.utime(header, ns=(st.st_atime_ns, st.st_mtime_ns))
        project.git(tree.path, 'update-index', '-q', '--refresh',
                    check=False)
    if got == patched:
        return SAME_OBJECT, (f'the {lane} lane compiles the line out: '
                             f'{unit} preprocesses to the patched text')
    return '', ''


def lane_built(tree: Tree, lane: str, cache: Path) -> None:
    """The mutant tree built unmutated on the lane, when its build
    directory has no kernel yet (a machine new to the mutant tree): the
    prechecks compare each mutant with that build, and without one the
    lane's first mutant skipped them and was judged, a line the lane
    compiles out too (0005-001, in page_ext.h's !CONFIG_SPARSEMEM stub,
    was built whole and survived instead of counting as same object)."""
    if (tree.path / kunit_run.build_dir_name(lane) / 'vmlinux').exists():
        return
    print(f'mutant tree: building lane {lane} unmutated first, to compare '
          'each mutant with', flush=True)
    mutants.build_lane(tree, lane, cache,
                       f'the patched tree does not build on lane {lane}')


def prechecked(tree: Tree, patch: str, index: int, m: mutate_gen.Mutation,
               target: Target, cache: Path, tree_id: str
               ) -> Tuple[Optional[Result], mutants.Mutant]:
    """The mutant written out as a patch, and its verdict when the
    mutated object alone decides it (does not build, warns, or is the
    patched object: a .c file's object compared, a header's line the
    lane preprocesses away), else None: it must be booted."""
    out = project.RESULTS / 'mutate' / patch
    out.mkdir(parents=True, exist_ok=True)
    file = out / f'{index:03d}.patch'
    text = project.git(tree.path, 'show', f'patched:{m.file}').stdout
    file.write_text(f'{patch} {m.file}:{m.line} {m.operator}: {m.what}\n\n'
                    + mutate_gen.as_patch(m, mutate_gen.lines_of(text)))
    mutant = mutants.Mutant(f'{patch}-{index:03d}', target.lane,
                            tuple(f'{s}.*' for s in target.suites), file)
    lane_built(tree, target.lane, cache)
    if m.file.endswith('.h'):
        # Applied and reset with the header's mtime kept: a header
        # rewritten would make the narrowed build recompile everything.
        verdict, said = header_precheck(tree, m, mutant, target.lane, cache,
                                        tree_id, text)
    else:
        patched = patched_object(tree, m.file, target.lane, cache, tree_id)
        mutants.apply(tree, mutant)
        try:
            verdict, said = precheck(tree, m, target.lane, cache, patched)
        finally:
            mutants.reset(tree.path)
    return (Result(patch, m, verdict, detail=said) if verdict else None,
            mutant)


# What a failed kernel build says (kunit_run.first_error()'s line): the
# compiler's "error:", or the linker's, which names no "error:" (0018's
# vfree to kvfree defines kvfree() twice).
KERNEL_NOT_BUILT = re.compile(r': (?:fatal )?error: |(?:multiple definition'
                              r' of|undefined reference to) ')


def judge(tree: Tree, patch: str, index: int, m: mutate_gen.Mutation,
          target: Target, cache: Path, tree_id: str,
          equivalents: Dict[Tuple[str, str, str, str], str],
          expected: Optional[Dict[str, manifest.Expectation]] = None) -> Result:
    """One mutant's verdict; expected is the manifest the trees were
    prepared with (read once per run: one edited while a run goes on
    names cases its kernels do not have, which would count as kills)."""
    why = equivalents.get(equivalent_key(patch, m))
    if why:
        return Result(patch, m, EQUIVALENT, detail=why)
    decided, mutant = prechecked(tree, patch, index, m, target, cache,
                                 tree_id)
    if decided:
        return decided
    if expected is None:
        expected = manifest.load(project.MANIFEST)
    try:
        outcomes = mutants.outcomes_narrowed_first(
            tree, mutant, cache,
            lambda got: bool(mutants.killed_by(mutant, got, expected)))
    except mutants.NoCaseReported as e:
        # A kernel the mutant stops before its suites (a hang or a crash
        # in code every boot runs) is told apart by any run of any suite;
        # one that never ran says nothing.
        return Result(patch, m, KILLED if e.stopped_boot else NOT_JUDGED,
                      ('(boot)',) if e.stopped_boot else (), detail=str(e))
    except SeriesError as e:
        # A patch that does not apply says "error:" too, but was not built.
        built = isinstance(e, mutants.NotApplied) or \
            not KERNEL_NOT_BUILT.search(str(e))
        return Result(patch, m, NOT_JUDGED if built else NO_BUILD,
                      detail=str(e))
    kills = mutants.killed_by(mutant, outcomes, expected)
    log = project.RESULTS / 'runs' / mutants.run_name(mutant) / 'test.log'
    failed = failed_assertions(log.read_text(errors='replace'), kills) \
        if kills and log.exists() else ()
    return Result(patch, m, KILLED if kills else SURVIVED, tuple(kills),
                  assertions=failed)


# Bumped when the way a verdict is reached changes, so that kept verdicts
# of the old way are judged again.
JUDGE_VERSION = ('6: a case that never reported did not pass; '
                 'an object like the patched one is not run, nor a header '
                 'line the lane preprocesses away, and a schema survivor '
                 'or uncovered mutant is checked so too; a kill names the '
                 'assertions that failed')


VERDICTS = project.KUNIT_DIR / 'mutate-verdicts.tsv'


def tool_versions() -> Tuple[str, ...]:
    """The first line of --version of the compiler and of QEMU (a tool
    that is missing says so: make mutate installs both first)."""
    found = []
    for tool in (f'{kunit_run.CROSS_COMPILE}gcc', 'qemu-system-aarch64'):
        try:
            out = subprocess.run([tool, '--version'], capture_output=True,
                                 text=True, check=False).stdout
        except OSError:
            out = f'{tool}: missing'
        found.append(verdicts.first_line(out))
    return tuple(found)


def judging_context(repo: Path, target: Target, tools: Sequence[str],
                    rev: str = 'patched') -> verdicts.Context:
    """What the verdicts of target's mutants depend on besides the mutant
    (mutation/verdicts.py): read from the tree the kernels were built of
    and from the lane's files."""
    suites_dir = project.TREE_SUITE_DIRS[project.KUNIT_DIR]
    top = project.git(repo, 'ls-tree', rev).stdout
    mm = project.git(repo, 'ls-tree', f'{rev}:mm').stdout
    blobs = {}
    for line in project.git(repo, 'ls-tree', '-r',
                            f'{rev}:{suites_dir}').stdout.splitlines():
        meta, name = line.split('\t', 1)
        blobs[name] = meta.split()[2]
    texts = {n: project.git(repo, 'cat-file', 'blob', b).stdout
             for n, b in blobs.items()
             if n.endswith(('.c', '.h')) or n in verdicts.SUITES_BUILD}
    files = verdicts.suite_files(texts, target.suites)
    build = verdicts.build_parts(texts.get('Makefile', ''),
                                 texts.get('Kconfig', ''), files, texts)
    lane = kunit_run.LANES[target.lane]
    parts = [(f'config {c.name}', c.read_text()) for c in lane.configs]
    parts += [(f'qemu {lane.qemu_config.name}',
               lane.qemu_config.read_text()),
              ('boots', f'args={" ".join(lane.kernel_args)} '
                        f'filter={lane.filter} '
                        f'attributes={lane.attributes} '
                        f'kernel_of={lane.kernel_of}'),
              ('suites', ','.join(target.suites))]
    warnings = project.KUNIT_DIR / 'warnings.tsv'
    return verdicts.Context(
        JUDGE_VERSION,
        verdicts.kernel_listing(top, mm, suites_dir.split('/', 1)[1]),
        tuple((f, blobs[f]) for f in files),
        tuple(verdicts.table_rows(project.MANIFEST.read_text(),
                                  target.suites)),
        tuple(verdicts.table_rows(warnings.read_text(), target.suites)),
        tuple(parts), tuple(tools), build)


def keyed(repo: Path, mutations: Sequence[mutate_gen.Mutation],
          context: str, rev: str = 'patched') -> List[str]:
    """Each mutation's verdict key under the context's digest."""
    lines: Dict[str, List[str]] = {}
    found = []
    for m in mutations:
        if m.file not in lines:
            lines[m.file] = mutate_gen.lines_of(project.git(
                repo, 'show', f'{rev}:{m.file}').stdout)
        found.append(verdicts.key(verdicts.identity(m, lines[m.file]),
                                  context))
    return found


def row_of(r: Result, key: str, day: str) -> verdicts.Row:
    m = r.mutation
    return verdicts.Row(key, r.patch, r.scope,
                        f'{m.file}:{m.line} {m.operator}: {m.what}',
                        r.verdict, r.kills, r.assertions, r.seconds, day,
                        r.detail)


def result_of(row: verdicts.Row, m: mutate_gen.Mutation) -> Result:
    return Result(row.patch, m, row.verdict, row.killed_by, row.detail,
                  row.seconds, row.scope, row.assertions)


def patch_dir(patch: str) -> Path:
    return project.RESULTS / 'mutate' / patch


@dataclass(frozen=True)
class PatchRun:
    """What one patch's last run tried (for the report)."""
    patch: str
    lines_added: int
    generated: int
    sample: int                 # 0: every mutant
    seed: int
    results: Tuple[Result, ...]
    # The touched scope: its definitions, base lines and mutants.
    definitions: Tuple[str, ...] = ()
    base_lines: int = 0
    touched_generated: int = 0
    scopes: Tuple[str, ...] = (ADDED,)
    tree: str = ''              # the patched tree's id it ran on
    day: str = ''               # the date it ran

    def as_dict(self) -> Dict:
        return {'patch': self.patch, 'lines_added': self.lines_added,
                'generated': self.generated, 'sample': self.sample,
                'seed': self.seed,
                'results': [r.as_dict() for r in self.results],
                'definitions': list(self.definitions),
                'base_lines': self.base_lines,
                'touched_generated': self.touched_generated,
                'scopes': list(self.scopes), 'tree': self.tree,
                'day': self.day}

    @staticmethod
    def from_dict(d: Dict) -> 'PatchRun':
        return PatchRun(d['patch'], d['lines_added'], d['generated'],
                        d['sample'], d['seed'],
                        tuple(Result.from_dict(r) for r in d['results']),
                        tuple(d.get('definitions', ())),
                        d.get('base_lines', 0),
                        d.get('touched_generated', 0),
                        tuple(d.get('scopes', (ADDED,))), d.get('tree', ''),
                        d.get('day', ''))

    def scores(self) -> List['Score']:
        found = []
        if ADDED in self.scopes:
            found.append(score(self.patch, self.lines_added, self.generated,
                               self.results, ADDED))
        if TOUCHED in self.scopes:
            found.append(score(self.patch, self.base_lines,
                               self.touched_generated, self.results,
                               TOUCHED))
        return found


def judge_patch(tree: Tree, cache: Path, patch: str, target: Target,
                chosen: Sequence[Tuple[str, mutate_gen.Mutation]],
                table: verdicts.Table, tree_id: str,
                equivalents: Dict[Tuple[str, str, str, str], str],
                expected: Optional[Dict[str, manifest.Expectation]] = None,
                scope: str = ADDED, day: str = '',
                on_schema: Optional['SchemaJudge'] = None,
                recheck: Optional[List[str]] = None) -> List[Result]:
    """Each chosen (key, mutant)'s verdict, in order (judged_items())."""
    return list(judged_items(tree, cache, patch, target, chosen, table,
                             tree_id, equivalents, expected, scope, day,
                             on_schema, recheck).values())


def judged_items(tree: Tree, cache: Path, patch: str, target: Target,
                 chosen: Sequence[Tuple[str, mutate_gen.Mutation]],
                 table: verdicts.Table, tree_id: str,
                 equivalents: Dict[Tuple[str, str, str, str], str],
                 expected: Optional[Dict[str, manifest.Expectation]] = None,
                 scope: str = ADDED, day: str = '',
                 on_schema: Optional['SchemaJudge'] = None,
                 recheck: Optional[List[str]] = None,
                 deferred: Optional[List[int]] = None,
                 only: Optional[Set[int]] = None,
                 timings: Optional[List[Tuple[str, float]]] = None
                 ) -> Dict[int, Result]:
    """Each chosen (key, mutant)'s verdict by its index (1 up): a
    committed one whose key holds is kept, and judged again when the
    day's spot check picks it (a disagreement stops the run); any other
    is judged and put in the table as it is reached, so that a run cut
    short goes on where it stopped. on_schema judges on the schema
    kernel what it can; what it cannot is judged by a build of its own
    at once, or, when deferred is given, its index goes there and it is
    left out (a later call with only those indexes judges it). recheck,
    when given, judges every kept verdict again and collects each
    disagreement there instead of stopping; timings, when given, gets
    (how, seconds) of each mutant judged now."""
    day = day or time.strftime('%Y-%m-%d')
    found: Dict[int, Result] = {}
    for i, (key, m) in enumerate(chosen, 1):
        if only is not None and i not in only:
            continue
        why = equivalents.get(equivalent_key(patch, m))
        row = table.rows.get(key)
        if why:
            r = Result(patch, m, EQUIVALENT, detail=why, scope=scope)
            how = ''
        elif row and recheck is None and not verdicts.spot_checked(key, day):
            r = replace(result_of(row, m), scope=scope)
            how = f' (kept, {row.day})'
        else:
            start = time.monotonic()
            r = on_schema(patch, i, m, target) if on_schema else None
            where = ', schema kernel' if r else ''
            if r is None and on_schema and deferred is not None:
                deferred.append(i)
                continue
            if r is not None and r.verdict in (SURVIVED, NOT_COVERED):
                r = object_confirmed(tree, cache, patch, i, m, target,
                                     tree_id, r)
            if r is None:
                r = judge(tree, patch, i, m, target, cache, tree_id,
                          equivalents, expected)
            r = replace(r, seconds=round(time.monotonic() - start, 1),
                        scope=scope)
            if timings is not None and r.verdict != NOT_JUDGED:
                timings.append(('schema' if where else 'separate',
                                r.seconds))
            how = f' ({r.seconds:.0f} s{where})'
            if row and r.verdict != NOT_JUDGED and recheck is not None:
                if not same_verdict(r.verdict, row.verdict):
                    recheck.append(f'{patch}-{i:03d} {m.file}:{m.line} '
                                   f'{m.what}: {row.verdict} ({row.day}), '
                                   f'{r.verdict}{where} now')
                how += f'; kept {row.verdict} ({row.day})'
                r = replace(result_of(row, m), scope=scope)
            elif row and r.verdict != NOT_JUDGED:
                if not same_verdict(r.verdict, row.verdict):
                    raise SeriesError(
                        f'spot check: {patch}-{i:03d} {m.file}:{m.line} '
                        f'{m.what} was {row.verdict} ({row.day}), is '
                        f'{r.verdict} now: a flaky case, or the key misses '
                        'what changed')
                r = replace(result_of(row, m), scope=scope)
                how = f' (kept, {row.day}; spot check agrees)'
            elif r.verdict != NOT_JUDGED:
                table.put(row_of(r, key, day))
        print(f'  {patch}-{i:03d} {m.file}:{m.line} {m.operator} '
              f'{m.what}: {r.verdict}{how}', flush=True)
        found[i] = r
    return found


def object_confirmed(tree: Tree, cache: Path, patch: str, index: int,
                     m: mutate_gen.Mutation, target: Target, tree_id: str,
                     on_schema: Result) -> Result:
    """A schema kernel's survivor or uncovered mutant, checked as a build
    of its own checks it before booting: a mutant the lane compiles to
    the patched object (a VM_WARN_ON() without CONFIG_DEBUG_VM, a line of
    a branch the configuration drops) is not reached, or survives, only
    because its guard was compiled in where its text is not; its verdict
    is the separate build's (same object, or warns), else the schema's."""
    decided, _ = prechecked(tree, patch, index, m, target, cache, tree_id)
    if decided is None:
        return on_schema
    said = on_schema.verdict.replace('-', ' ')
    return replace(decided, detail=f'{decided.detail} ({said} on the '
                   'schema kernel)')


def schema_ids(todo: Sequence[mutate_gen.Mutation]
               ) -> Dict[mutate_gen.Mutation, int]:
    """Each mutant's id in the schema kernel, 1 up, in file and line
    order (a mutant two patches share has one id)."""
    ordered = sorted(set(todo), key=lambda m: (m.file, m.line, m.operator,
                                               m.mutated))
    return {m: n for n, m in enumerate(ordered, 1)}


def id0_check(cache: Path, patches: Sequence[str],
              lanes: Sequence[str]) -> int:
    """The schema kernel of every generated mutant of the patches (all
    when none are named), built for each lane with that lane's own
    configuration (a granule's kernel, e.g. 16k, which the judging runs
    never build) and booted there with mm_mutant=0: each boot's matrix
    against the patched tree's column of the lane. Returns how many cells
    differ; nothing is judged."""
    targets = load_targets()
    unknown = [lane for lane in lanes if lane not in kunit_run.LANES]
    if unknown:
        raise SeriesError(f'unknown lane {unknown[0]} (one of '
                          f'{", ".join(sorted(kunit_run.LANES))})')
    equivalents = load_equivalents()
    expected = manifest.load(project.MANIFEST)
    judgeable = [m for g in generated_mutants(cache / 'linux.git',
                                              patches or sorted(targets),
                                              targets)
                 for key_of in g.keys.values() for m in key_of
                 if equivalent_key(g.patch, m) not in equivalents]
    ids = schema_ids(judgeable)
    chosen = sorted((n, m) for m, n in ids.items())
    differ = 0
    for lane in lanes:
        built = schemata.build(cache, chosen, lane)
        b = schemata.boot(built, cache, lane, 0, None, f'schema-0-{lane}')
        rows = schemata.id0_rows(b.outcomes, lane, expected)
        good, bad = verify.counts(rows)
        off = sum(p.form == schema.SEPARATE for p in built.where.values())
        print(f'schema kernel of {len(ids)} mutants ({off} not carried), '
              f'mutant 0, lane {lane}: {good} cells as the patched '
              f"tree's, {bad} differ ({built.passes} build passes, "
              f'{built.seconds:.0f} s; boot {b.seconds:.0f} s)', flush=True)
        for r in rows:
            for c in r.cells.values():
                if not c.ok:
                    print(f'  differs: {r.case} {c.expected}/{c.actual}')
        differ += bad
    return differ


def same_verdict(now: str, kept: str) -> bool:
    """Whether two verdicts of one mutant agree: a mutant the schema
    kernel finds no case reaching is a survivor of a build of its own."""
    return now == kept or {now, kept} == {SURVIVED, NOT_COVERED}


class SchemaJudge:
    """Judges mutants on the one schema kernel of the run: None for one
    it cannot judge there (left to a build of its own: a form the schema
    has not, a guarded text that does not compile, a line that runs
    before mm_mutant= is parsed)."""

    def __init__(self, cache: Path, built: schemata.Built,
                 ids: Dict[mutate_gen.Mutation, int],
                 expected: Dict[str, manifest.Expectation]) -> None:
        self.cache = cache
        self.built = built
        self.ids = ids
        self.expected = expected
        self.zero: Dict[str, schemata.Boot] = {}
        self.left: Dict[str, int] = {}      # why -> how many left

    def id0(self, lane: str) -> schemata.Boot:
        """The lane's boot with mm_mutant=0: its matrix must be the
        patched tree's (else the schema changed what the kernel does and
        no verdict of it holds), and it says what each case reaches."""
        if lane not in self.zero:
            b = schemata.boot(self.built, self.cache, lane, 0, None,
                              f'schema-0-{lane}')
            rows = schemata.id0_rows(b.outcomes, lane, self.expected)
            good, bad = verify.counts(rows)
            print(f'schema kernel, mutant 0, lane {lane}: {good} cells as '
                  f'the patched tree\'s, {bad} differ; '
                  f'{len(b.reach.reached())} mutants reached by a case, '
                  f'{len(b.reach.boot)} by the boot before the suites, '
                  f'{len(b.reach.early)} before mm_mutant= is parsed '
                  f'({b.seconds:.0f} s)', flush=True)
            if bad:
                differ = [f'{r.case} {c.expected}/{c.actual}' for r in rows
                          for c in r.cells.values() if not c.ok]
                raise SeriesError(f'the schema kernel with mutant 0 is not '
                                  f'the patched kernel on lane {lane}: '
                                  + ', '.join(differ[:5]))
            self.zero[lane] = b
        return self.zero[lane]

    def __call__(self, patch: str, index: int, m: mutate_gen.Mutation,
                 target: Target) -> Optional[Result]:
        n = self.ids.get(m)
        placed = self.built.where.get(n) if n else None
        if placed is None or placed.form == schema.SEPARATE:
            why = placed.why if placed else 'not in the schema'
            self.left[why] = self.left.get(why, 0) + 1
            return None
        zero = self.id0(target.lane)
        if n in zero.reach.early:
            why = 'runs before mm_mutant= is parsed'
            self.left[why] = self.left.get(why, 0) + 1
            return None
        patterns = [f'{s}.*' for s in target.suites]
        reaching = [c for c in zero.reach.cases_reaching(n)
                    if any(fnmatch.fnmatchcase(c, p) for p in patterns)]
        if not reaching and n not in zero.reach.boot:
            return Result(patch, m, NOT_COVERED, detail=(
                f'schema mutant {n}: no case of '
                f'{", ".join(target.suites)} reaches it on lane '
                f'{target.lane}'))
        # Reached by the boot alone, it ran mutated before every suite:
        # a boot of each judging suite judges it, as its own build would.
        suites = sorted({c.split('.')[0] for c in reaching}) if reaching \
            else list(target.suites)
        for suite in suites:
            b = schemata.boot(self.built, self.cache, target.lane, n, suite,
                              f'schema-mutant-{target.lane}')
            if not b.outcomes:
                how = mutants.stopped_before_suites(b.final)
                if how:
                    return Result(patch, m, KILLED, ('(boot)',),
                                  detail=f'schema mutant {n}: {how}')
                return Result(patch, m, NOT_JUDGED, detail=(
                    f'schema mutant {n}: the kernel reported no case'))
            seen = mutants.Mutant(f'{patch}-{index:03d}', target.lane,
                                  (f'{suite}.*',), Path('-'))
            kills = mutants.killed_by(seen, b.outcomes, self.expected)
            if kills:
                log = b.final / 'test.log'
                failed = failed_assertions(
                    log.read_text(errors='replace'), kills) \
                    if log.exists() else ()
                return Result(patch, m, KILLED, tuple(kills),
                              detail=f'schema mutant {n}',
                              assertions=failed)
        return Result(patch, m, SURVIVED, detail=(
            f'schema mutant {n}: every case of {", ".join(suites)} as '
            'the patched kernel\'s'))


LAVA_WORKERS = (1, 4, 16)


def cost_summary(timings: Sequence[Tuple[str, float]],
                 build_seconds: float,
                 workers: Sequence[int] = LAVA_WORKERS) -> str:
    """What judging cost this run: the median seconds per mutant judged
    (all, schema boots, builds of their own), and the run's time again
    with its schema boots spread over N LAVA workers (the schema build
    and the separate builds stay on one machine: each is a kernel
    build)."""
    def median(xs: Sequence[float]) -> str:
        return f'{statistics.median(xs):.1f} s' if xs else '-'
    boots = [t for how, t in timings if how == 'schema']
    builds = [t for how, t in timings if how == 'separate']
    lines = [f'cost: {len(timings)} mutants judged, median '
             f'{median([t for _, t in timings])} each (schema boots: '
             f'{len(boots)}, median {median(boots)}; builds of their own: '
             f'{len(builds)}, median {median(builds)}); schema kernel '
             f'built in {build_seconds:.0f} s']
    for n in workers:
        total = build_seconds + sum(builds) + sum(boots) / n
        lines.append(f'cost: with {n} LAVA worker{"s" if n > 1 else ""} '
                     f'this run takes {total / 60:.1f} min')
    return '\n'.join(lines)


def full_run_estimate(run: PatchRun) -> Optional[float]:
    """Seconds a run of every mutant of the patch (both scopes) would
    take, from the mean of those judged (None when none was)."""
    timed = [r.seconds for r in run.results if r.seconds > 0]
    if not timed:
        return None
    return sum(timed) / len(timed) * (run.generated + run.touched_generated)


def unexplained(results: Sequence[Result],
                explained: Dict[Tuple[str, str, str, str], str]) -> int:
    """How many of results survived with no reviewed reason."""
    return sum(r.verdict == SURVIVED and
               equivalent_key(r.patch, r.mutation) not in explained
               for r in results)


def unreviewed(r: Result,
               explained: Dict[Tuple[str, str, str, str], str]) -> bool:
    """Whether r survived or is not covered, with no reviewed reason."""
    return r.verdict in (SURVIVED, NOT_COVERED) and \
        equivalent_key(r.patch, r.mutation) not in explained


def to_review(results: Sequence[Result],
              explained: Dict[Tuple[str, str, str, str], str]) -> str:
    """The survivors with no reviewed reason and the mutants no case
    covers, as rows of kunit/mutate-survivors.tsv (or, for one that cannot
    change behaviour, kunit/mutate-equivalent.tsv) with the reason left
    to the reviewer: each under a comment that says what became of it."""
    lines = ['# Mutants to review: copy a row into kunit/mutate-'
             'survivors.tsv or kunit/mutate-equivalent.tsv with its reason.',
             '# patch\tfile\toriginal\tmutated\twhy']
    for r in results:
        m = r.mutation
        if unreviewed(r, explained):
            lines.append(f'# {r.verdict} ({r.scope}): {m.file}:{m.line} '
                         f'{m.operator}: {m.what}')
            lines.append('\t'.join((r.patch, m.file, code_key(m.original),
                                    code_key(m.mutated), '')))
    return '\n'.join(lines) + '\n'


def report(runs: Sequence[PatchRun], targets: Dict[str, Target],
           explained: Dict[Tuple[str, str, str, str], str],
           assertions: Optional[Dict[str, List[str]]] = None) -> str:
    scores = [s for r in runs for s in r.scores()]
    results = [x for r in runs for x in r.results]
    text = render(scores, results, targets, explained)
    lines = ['', '', '| patch | run | tree | day | touched definitions | '
             'full run (estimated) |', '|---|---|---|---|---|---|']
    for r in runs:
        est = full_run_estimate(r)
        total = r.generated + r.touched_generated
        lines.append(f'| {r.patch} | '
                     + (f'sample of {r.sample} a scope (seed {r.seed})'
                        if r.sample and r.sample < total else 'full')
                     + f' ({", ".join(r.scopes)}) | {r.tree[:12] or "-"} | '
                     f'{r.day or "-"} | {len(r.definitions)} | '
                     + (f'{est / 60:.0f} min' if est is not None
                        else '-') + ' |')
    if assertions:
        lines += ['', 'Assertions of the suites that a killed mutant '
                  'failed (kept verdicts of this report):',
                  oracle_table(results, assertions)]
    total = sum(s.killed for s in scores), sum(s.killed + s.survived
                                               for s in scores)
    lines.append('')
    lines.append(f'mutate: {total[0]} of {total[1]} mutants killed over '
                 f'{len(runs)} patches (equivalent, same object and '
                 f'unbuilt left out); {unexplained(results, explained)} '
                 'survivors unexplained')
    return text + '\n'.join(lines)


def write_report(targets: Dict[str, Target]) -> str:
    """The report of every patch run so far (each patch's last run), in
    build/mutate/report.txt and report.json; the mutants left to review in
    to-review.tsv."""
    out = project.RESULTS / 'mutate'
    runs = [PatchRun.from_dict(json.loads(p.read_text()))
            for p in sorted(out.glob('[0-9]*/run.json'))]
    explained = load_equivalents(EXPLAINED)
    text = report(runs, targets, explained, suite_assertions())
    (out / 'report.txt').write_text(text + '\n')
    (out / 'to-review.tsv').write_text(
        to_review([x for r in runs for x in r.results], explained))
    scores = [s for r in runs for s in r.scores()]
    data = as_json(scores, [x for r in runs for x in r.results], explained)
    by_patch = {r.patch: r for r in runs}
    for entry in data['patches']:
        r = by_patch[entry['patch']]
        entry.update(sample=r.sample, seed=r.seed, tree=r.tree, day=r.day,
                     full_run_seconds=full_run_estimate(r))
    (out / 'report.json').write_text(json.dumps(data, indent=1) + '\n')
    return text


@dataclass
class Generated:
    """One patch's mutants as make mutate generates them, each scope's
    with its verdict key."""
    patch: str
    lines_added: int
    found: List[mutate_gen.Mutation]
    touched: Touched
    keys: Dict[str, Dict[mutate_gen.Mutation, str]]


def generated_mutants(repo: Path, patches: Sequence[str],
                      targets: Dict[str, Target],
                      scopes: Sequence[str] = SCOPES) -> List[Generated]:
    """Every mutant of the patches in the scopes, keyed (no kernel is
    built: git's view of the cache repository and the lanes' files)."""
    commit_of = {patch: commit for commit, patch in
                 hunks.commits_to_patches(repo, project.PATCHES).items()}
    texts = {p.name[:4]: p.read_text()
             for p in project.PATCHES.glob('0*.patch')
             if p.name != series.COVER_LETTER}
    owners = first_touchers(repo, sorted(((p, c) for p, c in
                                          commit_of.items()
                                          if p in targets)), texts)
    pristine = project.git(repo, 'rev-parse',
                           f'{project.BASE_TAG}^{{commit}}').stdout.strip()
    tools = tool_versions()
    out = []
    for patch in patches:
        lines_added, found = generate(repo, 'patched', commit_of[patch],
                                      texts[patch])
        touched = generate_touched(repo, 'patched', patch, pristine, owners)
        context = judging_context(repo, targets[patch], tools).digest()
        keys = {}
        for scope, mutations in ((ADDED, found),
                                 (TOUCHED, list(touched.mutations))):
            if scope in scopes:
                keys[scope] = dict(zip(mutations, keyed(repo, mutations,
                                                        context)))
        out.append(Generated(patch, lines_added, found, touched, keys))
    return out


def standing(generated: Sequence[Generated], table: verdicts.Table,
             equivalents: Dict[Tuple[str, str, str, str], str],
             explained: Optional[Dict[Tuple[str, str, str, str], str]] = None
             ) -> List[Tuple[Score, int, str, int]]:
    """What the committed verdicts say of each patch and scope: its score
    over the verdicts whose keys still hold (and the reviewed equivalent
    mutants), how many generated mutants have neither, the latest day of
    those verdicts, and how many of its survivors and uncovered mutants
    have no reviewed reason in explained."""
    why = explained if explained is not None else {}
    out = []
    for g in generated:
        for scope, key_of in g.keys.items():
            results = []
            days = []
            for m, key in key_of.items():
                row = table.rows.get(key)
                if equivalent_key(g.patch, m) in equivalents:
                    results.append(Result(g.patch, m, EQUIVALENT,
                                          scope=scope))
                elif row is not None:
                    results.append(Result(g.patch, m, row.verdict,
                                          scope=scope))
                    days.append(row.day)
            s = score(g.patch, g.lines_added if scope == ADDED else
                      g.touched.base_lines, len(key_of), results, scope)
            open_ = sum(unreviewed(r, why) for r in results)
            out.append((s, len(key_of) - len(results),
                        max(days, default=''), open_))
    return out


def run(cache: Path, patches: Sequence[str], size: int, seed: int,
        scopes: Sequence[str] = SCOPES, separate: bool = False,
        recheck: bool = False) -> int:
    """Generate, build and judge the mutants of each patch in each scope
    (a sample of size with the seed a scope, or all when size is 0);
    write the report of every patch run so far; return how many of these
    patches' mutants survived unexplained (kunit/mutate-survivors.tsv
    explains the others). The mutants to judge go into one schema kernel
    unless separate; recheck judges the kept verdicts again."""
    targets = load_targets()
    unknown = [p for p in patches if p not in targets]
    if unknown:
        raise SeriesError(f'unknown patch {unknown[0]} (one of '
                          f'{", ".join(sorted(targets))})')
    repo = cache / 'linux.git'
    equivalents = load_equivalents()
    explained = load_equivalents(EXPLAINED)
    expected = manifest.load(project.MANIFEST)
    tree_id = project.git(repo, 'rev-parse', 'patched^{tree}').stdout.strip()
    tree = mutants.worktree(cache)
    table = verdicts.Table(VERDICTS)
    day = time.strftime('%Y-%m-%d')
    # Each patch's scopes and chosen (key, mutant)s, planned first: the
    # schema kernel carries what every patch of the run has to judge.
    plans = []
    for g in generated_mutants(repo, patches or sorted(targets), targets,
                               scopes):
        scoped = []
        for scope, key_of in g.keys.items():
            mutations = list(key_of)
            gone = table.prune(g.patch, scope, key_of.values())
            chosen = order_for_builds(mutate_gen.sample(mutations, size,
                                                        seed))
            kept = sum(key_of[m] in table.rows for m in chosen)
            print(f'patch {g.patch}, {scope}: '
                  + (f'{g.lines_added} lines' if scope == ADDED else
                     f'{len(g.touched.definitions)} definitions, '
                     f'{g.touched.base_lines} base lines')
                  + f', {len(mutations)} mutants, trying {len(chosen)} '
                  f'({kept} kept in {VERDICTS.name}'
                  + (f', {gone} rows of changed mutants dropped' if gone
                     else '') + ')', flush=True)
            scoped.append((scope, [(key_of[m], m) for m in chosen]))
        plans.append((g.patch, g.lines_added, g.found, g.touched, scoped))
    on_schema = None
    if not separate:
        judgeable = [m for patch, _, _, _, scoped in plans
                     for _, chosen in scoped for _, m in chosen
                     if equivalent_key(patch, m) not in equivalents]
        todo = [m for patch, _, _, _, scoped in plans
                for _, chosen in scoped for key, m in chosen
                if equivalent_key(patch, m) not in equivalents and
                (recheck or key not in table.rows or
                 verdicts.spot_checked(key, day))]
        if todo:
            # Ids over every mutant of the run, judged before or not: a
            # resumed run writes the same schema, and make finds it built.
            ids = schema_ids(judgeable)
            built = schemata.build(cache, sorted((n, m) for m, n in
                                                 ids.items()))
            forms = {f: sum(p.form == f for p in built.where.values())
                     for f in (schema.EXPRESSION, schema.STATEMENT,
                               schema.SEPARATE)}
            print(f'schema kernel: {len(ids)} mutants, '
                  f'{forms[schema.EXPRESSION]} as expressions, '
                  f'{forms[schema.STATEMENT]} as statements, '
                  f'{forms[schema.SEPARATE]} left to builds of their own; '
                  f'built in {built.seconds:.0f} s ({built.passes} '
                  'passes)', flush=True)
            on_schema = SchemaJudge(cache, built, ids, expected)
    disagree: Optional[List[str]] = [] if recheck else None
    timings: List[Tuple[str, float]] = []
    # First every mutant the schema kernel judges, a boot each; then
    # those it cannot, a build each, under the indexes they had.
    judged: Dict[Tuple[str, str], Dict[int, Result]] = {}
    later: Dict[Tuple[str, str], List[int]] = {}
    for patch, _, _, _, scoped in plans:
        for scope, chosen in scoped:
            later[patch, scope] = []
            judged[patch, scope] = judged_items(
                tree, cache, patch, targets[patch], chosen, table, tree_id,
                equivalents, expected, scope, day, on_schema, disagree,
                later[patch, scope], timings=timings)
    left = sum(len(v) for v in later.values())
    if left:
        print(f'separate builds: {left} mutants the schema kernel cannot '
              'judge', flush=True)
    for patch, _, _, _, scoped in plans:
        for scope, chosen in scoped:
            if later[patch, scope]:
                judged[patch, scope].update(judged_items(
                    tree, cache, patch, targets[patch], chosen, table,
                    tree_id, equivalents, expected, scope, day, None,
                    disagree, only=set(later[patch, scope]),
                    timings=timings))
    survived = 0
    for patch, lines_added, found, touched, scoped in plans:
        results = [judged[patch, scope][i] for scope, _ in scoped
                   for i in sorted(judged[patch, scope])]
        survived += unexplained(results, explained)
        done = PatchRun(patch, lines_added, len(found), size, seed,
                        tuple(results), touched.definitions,
                        touched.base_lines, len(touched.mutations),
                        tuple(s for s in SCOPES if s in scopes), tree_id,
                        day)
        path = patch_dir(patch) / 'run.json'
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(done.as_dict(), indent=1) + '\n')
    if on_schema:
        for why, count in sorted(on_schema.left.items()):
            print(f'schema kernel: {count} judged by builds of their own: '
                  f'{why}')
    if timings:
        print(cost_summary(timings, on_schema.built.seconds if on_schema
                           else 0.0))
    if disagree is not None:
        print(f'recheck: {len(disagree)} verdicts differ from the kept '
              'ones' + ''.join(f'\n  {d}' for d in disagree))
        if disagree:
            raise SeriesError(f'recheck: {len(disagree)} verdicts differ '
                              'from the kept ones')
    print(write_report(targets))
    return survived
