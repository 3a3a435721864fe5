# SPDX-License-Identifier: GPL-2.0
"""Mutants: proof that the suites bite.

Each patch in kunit/mutants/ reintroduces one realistic bug into the
patched tree (kunit/mutants/mutants.tsv says on which lane and which cases
must catch it). A worktree of its own, trees/mutant, is reset to the
patched branch, gets one mutant, and is rebuilt incrementally (its build
directories stay, ccache serves what base and patched built) and booted;
the mutant is killed when at least one of its named cases does not pass,
the kernel-log checks included (a WARN a case must give, a WARN or BUG it
must not). Every mutant must be killed.

A mutant of a header is built narrowed: only the sources that use what it
changes are recompiled (header_users.py), the header keeping its old
mtime. A mutant that survives such a build is judged again on a full one,
so narrowing can make a run faster, never a survivor out of a kill.
"""

import os
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import (Callable, Dict, Iterator, List, Optional, Sequence,
                    Tuple)

import crash
import header_users
import kernel_log
import kunit_run
import manifest
import project
import trees
import tsv
from project import SeriesError
from trees import Tree

MUTANTS_DIR = project.KUNIT_DIR / 'mutants'
TABLE = MUTANTS_DIR / 'mutants.tsv'
TREE_NAME = 'mutant'
# A mutant of code every boot runs often hangs the kernel before its
# suite: the lanes mutants run on reach their first suite in 1 to 2 s, so
# 15 s of silence is a hang with a margin of seven (hangs are a fifth of a
# run's boots and, at 45 s, two thirds of its time).
BOOT_S = 15
# Or it hangs a case: no case of the suites keeps the console silent for
# more than 3 s here (the 1G folio and pud cases, in the full ptc runs).
STALL_S = 20


@dataclass(frozen=True)
class Mutant:
    name: str
    lane: str
    patterns: Tuple[str, ...]
    # A generated mutant's patch (make mutate); else kunit/mutants/NAME.patch
    file: Optional[Path] = None

    @property
    def patch(self) -> Path:
        return self.file or MUTANTS_DIR / f'{self.name}.patch'

    def what(self) -> str:
        """The patch's first line: the change it undoes."""
        return self.patch.read_text().split('\n', 1)[0]


def load(path: Path = TABLE) -> List[Mutant]:
    mutants: List[Mutant] = []
    for where, (name, lane, cases) in tsv.read(path, ('mutant', 'lane',
                                                      'cases')):
        if lane not in kunit_run.LANES:
            raise SeriesError(f'{where}: unknown lane {lane!r} (one of '
                              f'{", ".join(kunit_run.LANES)})')
        mutant = Mutant(name, lane, tuple(c.strip()
                                          for c in cases.split(',')))
        if not mutant.patch.exists():
            raise SeriesError(f'{where}: no patch {mutant.patch.name}')
        if name in {m.name for m in mutants}:
            raise SeriesError(f'{where}: mutant {name} listed twice')
        mutants.append(mutant)
    return mutants


def select(mutants: Sequence[Mutant], names: Sequence[str]) -> List[Mutant]:
    """The named mutants, in table order; all of them when none is named."""
    known = {m.name for m in mutants}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SeriesError(f'unknown mutant {unknown[0]!r} (see {TABLE})')
    return [m for m in mutants if not names or m.name in names]


def killed_by(mutant: Mutant, outcomes: Dict[str, str],
              expected: Optional[Dict[str, manifest.Expectation]] = None
              ) -> List[str]:
    """The named cases that did not pass, but for those whose outcome is
    what the manifest expects of the patched tree on the mutant's lane (a
    size the granule does not have skips there, mutant or not). A named
    case the manifest expects to pass there and that did not report at
    all (the kernel hung or died before it) did not pass either."""
    column = 'patched' + ('' if mutant.lane == manifest.MAIN_LANE
                          else f'+{mutant.lane}')

    def expected_there(case: str, outcome: str) -> bool:
        e = (expected or {}).get(case)
        return e is not None and e.on(column) == outcome

    failed = {case for case, outcome in
              kunit_run.matching(outcomes, mutant.patterns).items()
              if outcome != 'pass' and not expected_there(case, outcome)}
    missing = {case for case in kunit_run.matching(
        {c: '' for c in expected or {}}, mutant.patterns)
        if case not in outcomes and kunit_run.in_scope(mutant.lane, case)
        and expected_there(case, 'pass')}
    return sorted(failed | missing)


def worktree(cache: Path) -> Tree:
    """trees/mutant, detached at the patched branch, clean."""
    tree = trees.scratch_worktree(cache, TREE_NAME, 'patched')
    # A run stopped inside a narrowed build can leave a mutated header
    # that git's stat data take for clean (see reset()). The index read
    # anew has none, so the refresh compares every file's content once
    # (about 15 s) and keeps the mtimes of those that match.
    project.git(tree.path, 'read-tree', 'patched')
    reset(tree.path)
    return tree


def reset(path: Path, set_back: Sequence[str] = ()) -> None:
    """The tree back at patched. set_back: files a mutant changed whose
    mtime was set back (a header of a narrowed build or of a precheck):
    with the same size as the patched text and a ctime in the second the
    index recorded, git's stat data match and reset --hard would leave
    the mutation in place (0004-005 stayed, and 0004-006 did not apply).
    Touched first, they are compared by content."""
    for f in set_back:
        os.utime(path / f)
    # Only files a mutant touched change, so make rebuilds only those. A
    # file whose mtime alone changed (a header a narrowed build set back
    # in time) is refreshed first: reset --hard would write it anew, and
    # the next build would recompile everything that includes it.
    project.git(path, 'update-index', '-q', '--refresh', check=False)
    trees.git(path, 'reset', '-q', '--hard', 'patched')


class NotApplied(SeriesError):
    """A mutant's patch does not apply: nothing was built or judged."""


class NoCaseReported(SeriesError):
    """The mutant's kernel reported no case. stopped_boot: QEMU ran it and
    it never reached its suites (it crashed, or printed nothing for the
    boot limit), which the mutant did; otherwise nothing says the kernel
    ran at all (0009-004's whole build: kunit.py ran 0.2 s)."""

    def __init__(self, message: str, stopped_boot: bool) -> None:
        super().__init__(message)
        self.stopped_boot = stopped_boot


def stopped_before_suites(final: Path) -> str:
    """How a run that reported no case shows its kernel stopped before
    the suites: its first oops, BUG or panic line, or the watchdog's note
    of a silent boot; '' when it shows neither."""
    log = final / 'test.log'
    headline = crash.headline(log.read_text(errors='replace')) \
        if log.exists() else None
    if headline:
        return headline
    note = final / 'watchdog.txt'
    text = note.read_text().strip() if note.exists() else ''
    return text if text.startswith(crash.SILENT_BOOT_NOTE) else ''


def apply(tree: Tree, mutant: Mutant) -> None:
    proc = project.git(tree.path, 'apply', str(mutant.patch), check=False)
    if proc.returncode:
        raise NotApplied(f'mutant {mutant.name} does not apply to the '
                          'patched tree: '
                          + project.last_line(proc.stderr, 'git apply failed'))


def _grep(tree: Path) -> header_users.Grep:
    def grep(names: Sequence[str], globs: Sequence[str]) -> List[str]:
        args = ['grep', '-l', '-w']
        for name in names:
            args += ['-e', name]
        # git grep answers 1 when nothing matches.
        proc = project.git(tree, *args, '--', *globs, check=False)
        return proc.stdout.split()
    return grep


def _headers(mutant: Mutant) -> Dict[str, List[int]]:
    return {f: lines for f, lines in header_users.changed_lines(
        mutant.patch.read_text()).items() if f.endswith('.h')}


def _touch(tree: Path, files: Sequence[str]) -> None:
    for f in files:
        os.utime(tree / f)


def compiled_since(tree: Path, build: Path, start_ns: int) -> List[str]:
    """The sources (relative to the tree) of the objects the build
    directory got since start_ns."""
    found: List[str] = []
    for obj in build.rglob('*.o'):
        if obj.stat().st_mtime_ns < start_ns:
            continue
        rel = obj.relative_to(build).with_suffix('')
        found += [str(src) for src in (rel.with_suffix('.c'),
                                       rel.with_suffix('.S'))
                  if (tree / src).exists()]
    return found


def linked_since(tree: Path, build: Path, headers: Sequence[str]) -> bool:
    """Whether the build directory's kernel was linked after each header
    was last written. If not, the objects that include a header may hold
    another text of it (a whole build of an earlier mutant, reset since),
    and a narrowed build, the header's mtime kept, would keep them."""
    image = build / 'vmlinux'
    if not image.exists():
        return False
    linked = image.stat().st_mtime_ns
    return all((tree / h).stat().st_mtime_ns <= linked for h in headers)


@contextmanager
def mutated(tree: Tree, mutant: Mutant, narrow: bool
            ) -> Iterator[Optional[List[str]]]:
    """The mutant applied for a build. Narrowed (when asked, and when the
    mutant changes headers only inside definitions header_users.py can
    follow, in a build directory whose kernel was linked after the headers
    were last written): the headers keep
    their mtimes and only the sources using what changed are touched;
    those are yielded (None for a whole build). Either way the tree is
    back at patched afterwards, and those sources are touched again, so
    that the next build recompiles them as they were, with any other
    source whose object make rebuilt meanwhile. The headers get
    their old mtimes back only after the sources are touched, so an
    interruption leaves no mutated object passing for a patched one."""
    headers = _headers(mutant)
    build = tree.path / kunit_run.build_dir_name(mutant.lane)
    start = time.time_ns()
    narrow = narrow and bool(headers) and linked_since(tree.path, build,
                                                       headers)
    times = {h: os.stat(tree.path / h) for h in headers} if narrow else {}
    sources: Optional[List[str]] = None

    def back_in_time() -> None:
        if sources is None:
            return
        # Make may have recompiled more than the users (an object older
        # than another header): each was compiled from the mutated text.
        _touch(tree.path, sorted(set(sources) | set(
            compiled_since(tree.path, build, start))))
        for h, st in times.items():
            os.utime(tree.path / h, ns=(st.st_atime_ns, st.st_mtime_ns))

    apply(tree, mutant)
    try:
        if narrow:
            # The changed lines are numbered as in the mutated headers.
            sources = header_users.users(
                headers, _grep(tree.path),
                lambda f: (tree.path / f).read_text(errors='replace'),
                build)
        back_in_time()
        yield sources
    finally:
        reset(tree.path, list(times))
        back_in_time()


def command(mutant: Mutant, jobs: int) -> List[str]:
    return kunit_run.kunit_command(mutant.lane, jobs,
                                   kunit_run.suite_filter(mutant.patterns))


def run_name(mutant: Mutant) -> str:
    """Where the mutant's last run is kept, under build/runs/."""
    return f'mutant-{mutant.name}' + (
        '' if mutant.lane in ('main', 'ptc') else f'-{mutant.lane}')


# make mutants/mutate LAVA=1: kunit.py builds each mutant's kernel, and
# its boot is a LAVA job run here with lava-run (lava.py), whose console
# is judged as a kunit.py run's is.
BOOT_WITH_LAVA = False
# A mutant's job: its boot and its suites within this (a hang ends it).
LAVA_MINUTES = 5


def lava_boot(tree: Tree, mutant: Mutant, cache: Path) -> Path:
    """Build the mutated tree on the mutant's lane, boot it as a LAVA
    job; the run directory of its console."""
    import lava
    known = kunit_run.LANES[mutant.lane]
    build_lane(tree, known.kernel_of or mutant.lane, cache,
               f'mutant {mutant.name}: kunit.py build failed')
    c = lava.cell(tree, mutant.lane, manifest.load(project.MANIFEST),
                  kunit_run.suite_filter(mutant.patterns), LAVA_MINUTES)
    out = project.RESULTS / 'lava' / 'mutants'
    d = lava.write_cell(c, out)
    run, _ = lava.lava_run(d, 1, (2 * LAVA_MINUTES + 10) * 60)
    return lava.results_dir(tree, run, run_name(mutant),
                            failed_job_counts=True)


def run_one(tree: Tree, mutant: Mutant, cache: Path, narrow: bool = False
            ) -> Tuple[Dict[str, str], bool]:
    """Apply, build (narrowed when asked and possible), boot; each case's
    outcome with the log checks, and whether the build was narrowed."""
    whole = False
    try:
        with mutated(tree, mutant, narrow) as sources:
            whole = sources is None
            how = (f' ({len(sources)} sources recompiled)'
                   if sources is not None else '')
            print(f'mutant {mutant.name}: building and running lane '
                  f'{mutant.lane}{how}', flush=True)
            if BOOT_WITH_LAVA:
                final = lava_boot(tree, mutant, cache)
            else:
                final = kunit_run.execute(
                    tree, f'mutant {mutant.name}', run_name(mutant),
                    command(mutant, os.cpu_count() or 1), cache,
                    kunit_run.build_dir_name(mutant.lane), boot_s=BOOT_S,
                    stall_s=STALL_S)
    finally:
        if whole and _headers(mutant):
            compile_back(tree, mutant, cache)
    outcomes = kernel_log.cases_reported(kunit_run.outcomes_of(
        final, tree.path, kunit_run.build_dir_name(mutant.lane))[0])
    if not outcomes:
        # Every named case "never reported" would count as a kill. Only a
        # kernel QEMU ran and that stopped before its suites says
        # something: the mutant breaks the boot.
        how = stopped_before_suites(final)
        raise NoCaseReported(f'mutant {mutant.name}: the kernel reported no '
                             'case' + (f' ({how})' if how else ''),
                             stopped_boot=bool(how))
    return outcomes, not whole


def build_lane(tree: Tree, lane: str, cache: Path, failure: str) -> None:
    """Build the tree as it is on the lane (kunit.py build, through
    ccache); failure begins the error line when it does not build."""
    known = kunit_run.LANES[lane]
    cmd = kunit_run.tool_command('build', kunit_run.build_dir_name(lane),
                                 known.configs, os.cpu_count() or 1,
                                 qemu_config=known.qemu_config)
    proc = subprocess.run(cmd, cwd=tree.path, capture_output=True,
                          text=True, env=kunit_run.build_env(cache))
    if proc.returncode:
        raise SeriesError(f'{failure}: '
                          + kunit_run.first_error(proc.stdout + proc.stderr))


def compile_back(tree: Tree, mutant: Mutant, cache: Path) -> None:
    """After a whole build of a header mutant, every object that includes
    the header holds the mutated text, and the header, reset, is newer
    than all of them: the next header mutant's narrowed build would
    recompile them all, with its own change, as cold as a whole build.
    Built again from the patched text (ccache has those objects), they
    leave the next narrowed build its few sources."""
    print(f'mutant {mutant.name}: compiling the patched header\'s '
          'includers back', flush=True)
    build_lane(tree, mutant.lane, cache,
               f'mutant {mutant.name}: the patched tree does not build '
               'again after it')


def outcomes_narrowed_first(tree: Tree, mutant: Mutant, cache: Path,
                            killed: Callable[[Dict[str, str]], bool]
                            ) -> Dict[str, str]:
    """The mutant's outcomes from a narrowed build when it kills there,
    else from a full build (a name pasted with ## escapes the narrowing,
    so a survivor of a narrowed build is not yet a survivor)."""
    outcomes, narrowed = run_one(tree, mutant, cache, narrow=True)
    if not narrowed or killed(outcomes):
        return outcomes
    print(f'mutant {mutant.name}: not killed on the narrowed build, '
          'building it whole', flush=True)
    return run_one(tree, mutant, cache)[0]


@dataclass(frozen=True)
class Verdict:
    mutant: Mutant
    kills: Tuple[str, ...] = ()
    error: str = ''         # the mutant could not be judged

    @property
    def killed(self) -> bool:
        return bool(self.kills) and not self.error


def judge(tree: Tree, mutant: Mutant, cache: Path,
          expected: Optional[Dict[str, manifest.Expectation]] = None) -> Verdict:
    """One mutant's verdict; a build or boot failure is not a kill. The
    manifest is the one the trees were prepared with (read once per run)."""
    if expected is None:
        expected = manifest.load(project.MANIFEST)
    try:
        outcomes = outcomes_narrowed_first(
            tree, mutant, cache,
            lambda got: bool(killed_by(mutant, got, expected)))
    except SeriesError as e:
        return Verdict(mutant, error=str(e))
    return Verdict(mutant, tuple(killed_by(mutant, outcomes, expected)))


def render(verdicts: Sequence[Verdict]) -> str:
    lines = ['| mutant | lane | what it undoes | killed by | verdict |',
             '|---|---|---|---|---|']
    for v in verdicts:
        kills = list(v.kills)
        shown = ', '.join(kills[:3]) + (f' (+{len(kills) - 3})'
                                        if len(kills) > 3 else '')
        verdict = ('killed' if v.killed else
                   f'ERROR: {v.error}' if v.error else 'SURVIVED')
        lines.append(f'| {v.mutant.name} | {v.mutant.lane} | '
                     f'{v.mutant.what()} | {shown or "-"} | {verdict} |')
    killed = sum(v.killed for v in verdicts)
    errors = sum(bool(v.error) for v in verdicts)
    lines.append(f'{len(verdicts)} mutants: {killed} killed, '
                 f'{len(verdicts) - killed - errors} survived, '
                 f'{errors} not judged')
    return '\n'.join(lines)


def on_granule(mutants: Sequence[Mutant], lane: str) -> List[Mutant]:
    """The mutants judged on a granule's lane instead of main: those of
    the main lane move to it, those of that lane stay; the others (the
    ptc lane is a 4K one) are not for it."""
    if lane not in kunit_run.GRANULE_LANES:
        raise SeriesError(f'unknown granule lane {lane!r} (one of '
                          f'{", ".join(kunit_run.GRANULE_LANES)})')
    return [replace(m, lane=lane) if m.lane == 'main' else m
            for m in mutants if m.lane in ('main', lane)]


def run(cache: Path, names: Sequence[str] = (),
        lane: Optional[str] = None) -> int:
    """Every (or each named) mutant, on its own lane or moved to a
    granule's (on_granule()); returns how many were not killed."""
    chosen = select(load(), names)
    if lane:
        chosen = on_granule(chosen, lane)
    tree = worktree(cache)
    expected = manifest.load(project.MANIFEST)
    verdicts = []
    for mutant in chosen:
        verdicts.append(judge(tree, mutant, cache, expected))
        v = verdicts[-1]
        print(f'mutant {mutant.name}: '
              + ('killed by ' + ', '.join(v.kills[:3]) if v.killed else
                 f'not judged: {v.error}' if v.error else 'SURVIVED'),
              flush=True)
    table = render(verdicts)
    out = project.RESULTS / ('mutants' if not lane else f'mutants-{lane}')
    out.mkdir(parents=True, exist_ok=True)
    (out / 'kill-table.md').write_text(table + '\n')
    print(table)
    return sum(not v.killed for v in verdicts)
