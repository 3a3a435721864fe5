#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The project's one entry point: packages, trees, suites, verification,
benchmarks. Each subcommand's --help says what it takes; the Makefile
names the usual ones."""

import argparse
import contextlib
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import (Callable, Dict, Iterator, List, Optional, Sequence,
                    Tuple)

import base_source
import bench
import bench_report
import bench_run
import checkpatch
import cost_model
import cover
import cross
import hunks
import kunit_run
import lava
import manifest
import mutants
import mutate
import packages
import project
import sanitizers
import seed_rows
import series
import stable
import trees
import tcg_counts
import verify
import vmalloc_module_run
import walk
from project import SeriesError


def prepare_trees() -> Dict[str, trees.Tree]:
    packages.ensure()
    the_series = series.load(project.PATCHES)
    repo = base_source.import_base(project.CACHE)
    return trees.prepare(repo, the_series, project.CACHE)


def column_name(tree: str, lane: str) -> str:
    """Matrix columns: "base", "patched", then "base+ptc" and so on."""
    return tree if lane == manifest.MAIN_LANE else f'{tree}+{lane}'


def column_runs(column: str, case: str) -> bool:
    """Whether a matrix column's lane runs a case."""
    return kunit_run.in_scope(column.partition('+')[2] or manifest.MAIN_LANE,
                              case)


# What each phase of this command took: (phase, seconds), for make test's
# last lines (where a cold run's time goes).
PHASES: List[Tuple[str, float]] = []


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    start = time.monotonic()
    try:
        yield
    finally:
        PHASES.append((name, time.monotonic() - start))


def phases_line() -> str:
    def shown(s: float) -> str:
        return f'{int(s // 60)}m{int(s % 60):02d}s'
    return 'phases: ' + '; '.join(f'{name} {shown(s)}' for name, s in PHASES)


def run_verify(lanes: Sequence[str] = kunit_run.CI_LANES,
               matrix_name: str = 'matrix.txt',
               later: Sequence[str] = ()) -> Tuple[int, int]:
    """Build and run both trees on each lane; print the matrix; return its
    counts."""
    expected = manifest.load(project.MANIFEST)
    actual: Dict[str, Dict[str, str]] = {}
    with project.build_lock(project.CACHE):
        with phase('packages, kernel package and trees'):
            the_trees = prepare_trees()
        # Packages a later step needs (later) install while the kernels
        # build; that step's ensure() waits for them. Not before: apt's
        # update would race the kernel package's download.
        packages.prefetch(later, project.CACHE / 'apt-later.log')
        for lane in lanes:
            for name, tree in the_trees.items():
                if name not in kunit_run.LANES[lane].trees:
                    continue
                with phase(column_name(name, lane)):
                    actual[column_name(name, lane)] = kunit_run.run(
                        tree, lane, project.CACHE, expected=list(expected))
    columns = list(actual)
    rows = verify.compare(expected, actual, columns, column_runs)
    text = verify.render(rows, columns)
    project.RESULTS.mkdir(exist_ok=True)
    (project.RESULTS / matrix_name).write_text(text + '\n')
    extra = ''.join(f', +{lane} = {kunit_run.LANES[lane].what}'
                    for lane in lanes if lane != manifest.MAIN_LANE)
    print(f'\nVerification matrix (expected/actual; base = pristine 6.12.117 '
          f'+ test seams + suites; lane main = '
          f'{kunit_run.LANES[manifest.MAIN_LANE].what}{extra})')
    print(text)
    return verify.counts(rows)


def run_checkpatch() -> Tuple[int, int]:
    """Every patch through checkpatch.pl (of the base tree, which
    run_verify() prepared); patches clean and not."""
    the_series = series.load(project.PATCHES)
    tree = trees.tree_path(project.CACHE, 'base')
    if not (tree / 'scripts' / 'checkpatch.pl').is_file():
        raise SeriesError(f'no checkpatch.pl in {tree}: run make trees')
    found = checkpatch.check(tree, project.PATCHES, the_series.all)
    bad = {name: lines for name, lines in found.items() if lines}
    for name, lines in bad.items():
        for line in lines:
            print(f'checkpatch: {name}: {line}')
    print(f'checkpatch: {len(found) - len(bad)} of {len(found)} patches '
          f'clean (ignoring {", ".join(checkpatch.IGNORED)})')
    return len(found) - len(bad), len(bad)


def unit_command() -> Tuple[List[str], Path]:
    """The host tests' command line and directory: a process of their own
    with a hermetic environment (scripts/tests/__main__.py)."""
    return [sys.executable, '-m', 'tests'], Path(__file__).resolve().parent


def unit_counts(returncode: int, output: str) -> Tuple[int, int]:
    """The host tests' counts, from their output (echoed)."""
    sys.stdout.write(output)
    sys.stdout.flush()
    counts = re.search(r'^(\d+) passed, (\d+) failed$', output, re.M)
    if not counts:
        raise SeriesError(f'host tests ended without their counts (exit '
                          f'{returncode}): '
                          f'{project.last_line(output, "no output")}')
    good, bad = int(counts.group(1)), int(counts.group(2))
    if returncode != 0 and not bad:
        bad = 1  # died after its summary
    return good, bad


def run_unit() -> Tuple[int, int]:
    """The host tests' counts."""
    argv, cwd = unit_command()
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=False)
    return unit_counts(proc.returncode, proc.stdout)


@contextlib.contextmanager
def unit_alongside() -> Iterator[Callable[[], Tuple[int, int]]]:
    """The host tests, run while the caller goes on (they need none of the
    packages or trees a cold run spends its first minutes on): yields what
    waits for their counts; a caller that fails stops them."""
    argv, cwd = unit_command()
    with tempfile.TemporaryFile('w+') as out:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out,
                                stderr=subprocess.STDOUT, text=True)

        def counts() -> Tuple[int, int]:
            returncode = proc.wait()
            out.seek(0)
            return unit_counts(returncode, out.read())
        try:
            yield counts
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@dataclass
class Measured:
    """One clock's A/B boots: the harness's and test_vmalloc.ko's samples
    per tree and, under icount with the plugin, their counts."""
    clock: str
    base: bench.Samples
    patched: bench.Samples
    tv_base: bench.Samples
    tv_patched: bench.Samples
    counts: Dict[str, tcg_counts.Counts]
    tv_counts: Dict[str, tcg_counts.Counts]


def measure(the_trees: Dict[str, trees.Tree], profile: str, boots: int,
            clock: str, plugin: Optional[Path]) -> Measured:
    counts: Dict[str, tcg_counts.Counts] = {}
    tv_counts: Dict[str, tcg_counts.Counts] = {}
    base, patched = bench_run.ab(the_trees, project.CACHE, profile, clock,
                                 boots, plugin, counts)
    tv_base, tv_patched = vmalloc_module_run.ab(
        the_trees, project.CACHE, profile, clock, boots, plugin, tv_counts)
    return Measured(clock, base, patched, tv_base, tv_patched, counts,
                    tv_counts)


def counts_table(m: Measured, boots: int) -> str:
    return ('\nWhat each operation executed (TCG plugin, icount, mean '
            f'over {boots} boot(s) a tree), harness:\n'
            + tcg_counts.render(m.counts.get('base', {}),
                                m.counts.get('patched', {}))
            + '\n\ntest_vmalloc.ko, each single-test load less a load '
            'that runs no test, per loop of each run:\n'
            + tcg_counts.render(m.tv_counts.get('base', {}),
                                m.tv_counts.get('patched', {})))


def run_bench(profile: str, boots: int, clock: str) -> Tuple[int, int]:
    """The A/B benchmark report (harness and test_vmalloc.ko) on one clock
    or, with clock "both", on the host clock and on icount, side by side;
    returns (benchmarks ran or compared, 0)."""
    clocks = bench_run.BOTH if clock == 'both' else (clock,)
    for c in clocks:
        if c not in bench_run.CLOCKS:
            raise SeriesError(f'unknown clock {c!r} (one of '
                              f'{", ".join((*bench_run.CLOCKS, "both"))})')
    plugin, plugin_note = None, ''
    if 'icount' in clocks and profile != 'smoke':
        # Its counters are exact only on icount's one vCPU.
        plugin, plugin_note = tcg_counts.try_build(project.CACHE)
        if plugin_note:
            print(plugin_note, flush=True)
    with project.build_lock(project.CACHE):
        the_trees = prepare_trees()
        runs = [measure(the_trees, profile, boots, c,
                        plugin if c == 'icount' else None) for c in clocks]
    if profile == 'smoke':
        ran = bench_run.cases_ran([s for m in runs for s in (m.base,
                                                              m.patched)])
        tv_ran = bench_run.cases_ran([s for m in runs
                                      for s in (m.tv_base, m.tv_patched)])
        print(f'\nbench smoke: {ran} benchmarks of the harness and '
              f'{tv_ran} test_vmalloc.ko tests ran on base and patched, '
              'every case passed')
        return ran + tv_ran, 0
    note = packages.try_optional()
    if note:
        print(note)
    out = project.RESULTS / 'bench'
    rows: Dict[str, List[bench.Row]] = {}
    for m in runs:
        meta = {'profile': profile, 'boots_per_tree': boots,
                'clock': m.clock,
                'base': f'{project.BASE_PACKAGE} {project.BASE_VERSION}',
                'series': list(series.load(project.PATCHES).changes),
                'configs': [str(c.relative_to(project.REPO))
                            for c in bench_run.CONFIGS],
                'command': bench_run.command('run', profile, m.clock, 0),
                'test_vmalloc_loops': vmalloc_module_run.LOOPS[profile],
                'test_vmalloc_qemu': vmalloc_module_run.qemu_command(
                    Path('Image.gz'), Path('initrd.cpio'), m.clock)}
        header = (f'\nBenchmarks: {boots} boot(s) per tree, alternating, '
                  f'profile {profile}, {m.clock} clock '
                  f'({bench_run.CLOCK_NOTES[m.clock]})')
        rows[m.clock] = bench_report.write(
            m.base, m.patched, m.tv_base, m.tv_patched, meta, header,
            out / m.clock if len(runs) > 1 else out, echo=len(runs) == 1)
        rows[f'tv-{m.clock}'] = bench.compare(m.tv_base, m.tv_patched)
    if len(runs) > 1:
        print(f'\nBenchmarks on both clocks: {boots} boot(s) per tree and '
              f'clock, alternating, profile {profile}; each clock\'s whole '
              f'report (tables, JSON, CSV, chart) in {out}/host and '
              f'{out}/icount.\nChange: (patched - base) / base, with the '
              '95% half-width of the change and Welch\'s p; smaller is '
              'better.\nharness:\n'
              + bench.render_clocks(rows['host'], rows['icount'])
              + '\n\ntest_vmalloc.ko (the seeds\' tool):\n'
              + bench.render_clocks(rows['tv-host'], rows['tv-icount']))
        icount = next(m for m in runs if m.clock == 'icount')
        _, count_rows = bench.split_counts(bench.compare(icount.base,
                                                         icount.patched))
        if count_rows:
            print('\nExact counts (icount boots):\n' + bench.render_counts(
                count_rows, icount.base, icount.patched))
        print('\nHarness and test_vmalloc.ko on their shared cases '
              '(icount):\n' + bench.render_agreement(
                  bench.agreement(rows['icount'], rows['tv-icount'])))
    print('\nThe seeds\' rows against ours (the harness):\n'
          + seed_rows.render(seed_rows.compare(seed_rows.load(), rows)))
    counted = [m for m in runs if m.counts]
    if counted:
        table = counts_table(counted[0], boots)
        (out / 'counts.txt').write_text(table + '\n')
        print(table)
        model = cost_model.render(cost_model.fits(
            seed_rows.load(), counted[0].counts.get('base', {}),
            counted[0].counts.get('patched', {})))
        (out / 'cost-model.txt').write_text(model + '\n')
        print('\nWhat the counts predict for the seeds\' machines:\n'
              + model)
    elif 'icount' in clocks:
        print(plugin_note or 'TCG plugin: no window counted')
    print()
    for m in runs:
        improved, regressed = bench.marks(rows[m.clock])
        print(f'{m.clock}: {len(rows[m.clock])} timed benchmarks compared: '
              f'{improved} (I), {regressed} (R)')
    print(f'text, JSON, CSV in {out}')
    # Last, the spread of each clock: what a reader checks first.
    for m in runs:
        print(bench.spread_line(m.clock, rows[m.clock]))
    return sum(len(rows[m.clock]) for m in runs), 0


def cmd_bench(args: argparse.Namespace) -> int:
    run_bench(args.profile, args.boots, args.clock)
    return 0


def boot_with_lava(on: bool) -> None:
    """LAVA=1: each mutant's boot becomes a LAVA job run with lava-run."""
    if on:
        packages.ensure(packages.LAVA)
        mutants.BOOT_WITH_LAVA = True


def cmd_mutants(args: argparse.Namespace) -> int:
    boot_with_lava(args.lava)
    # Refuse an unknown name before waiting for the build lock.
    chosen = mutants.select(mutants.load(), args.names)
    if args.granule:
        mutants.on_granule(chosen, args.granule)
    with project.build_lock(project.CACHE):
        prepare_trees()
        survived = mutants.run(project.CACHE, args.names, args.granule)
        print_hunks()
    return 1 if survived else 0


def cmd_mutate(args: argparse.Namespace) -> int:
    boot_with_lava(args.lava)
    patches = args.patch or []
    # Refuse an unknown patch before waiting for the build lock.
    targets = mutate.load_targets()
    for patch in patches:
        if patch not in targets:
            raise SeriesError(f'unknown patch {patch} (one of '
                              f'{", ".join(sorted(targets))})')
    with project.build_lock(project.CACHE):
        prepare_trees()
        if args.id0:
            return 1 if mutate.id0_check(project.CACHE, patches,
                                         args.id0.split()) else 0
        survived = mutate.run(project.CACHE, patches, args.sample, args.seed,
                              mutate.SCOPES if args.scope == 'both'
                              else (args.scope,), separate=args.separate,
                              recheck=args.recheck)
    return 1 if survived else 0


def print_hunks() -> hunks.Coverage:
    """Which hunks of the series a mutant pins (hunks.py), into
    build/hunks.txt; the summary line on stdout."""
    cov = hunks.measure(project.CACHE / 'linux.git')
    text = hunks.render(cov, hunks.series_hunks(project.PATCHES))
    project.RESULTS.mkdir(parents=True, exist_ok=True)
    (project.RESULTS / 'hunks.txt').write_text(text + '\n')
    for stale in cov.stale:
        print(f'kunit/hunks.tsv: {stale}')
    print(f'{cov.line()} (every hunk: {project.RESULTS / "hunks.txt"})')
    return cov


def cmd_hunks(_: argparse.Namespace) -> int:
    with project.build_lock(project.CACHE):
        prepare_trees()
    cov = print_hunks()
    return 1 if cov.stale or cov.holes else 0


def cmd_walk(args: argparse.Namespace) -> int:
    if args.boots < 2:
        raise SeriesError('--boots must be at least 2 to compare')
    if args.bench is not None and not bench_run.matching_suites(args.bench):
        raise SeriesError(f'--bench={args.bench}: no benchmark suite '
                          f'matches (suites: '
                          f'{", ".join(bench_run.suite_names())})')
    with project.build_lock(project.CACHE):
        prepare_trees()
        broken = walk.run(project.CACHE, args.bench, args.boots,
                          args.granule, args.clock)
    return 1 if broken else 0


def cmd_sanitize(_: argparse.Namespace) -> int:
    with project.build_lock(project.CACHE):
        the_trees = prepare_trees()
        found = sanitizers.run(the_trees['patched'], project.CACHE)
    return 1 if found else 0


def cmd_cross(_: argparse.Namespace) -> int:
    with project.build_lock(project.CACHE):
        the_trees = prepare_trees()
        return cross.run(project.CACHE, the_trees)


def cmd_deps(_: argparse.Namespace) -> int:
    packages.ensure()
    # busybox-static for test_vmalloc's initramfs is fetched, not
    # installed: apt needs the arm64 package lists.
    packages.ensure_foreign_arch('arm64')
    note = packages.try_optional()
    if note:
        print(note)
    plugin, note = tcg_counts.try_build(project.CACHE)
    print(note or f'TCG plugin: {plugin}')
    print('all packages present')
    return 0


def cmd_trees(_: argparse.Namespace) -> int:
    with project.build_lock(project.CACHE):
        prepare_trees()
    return 0


def cmd_verify(_: argparse.Namespace) -> int:
    _, bad = run_verify()
    return 1 if bad else 0


def cmd_granules(_: argparse.Namespace) -> int:
    _, bad = run_verify(kunit_run.GRANULE_LANES, 'granules-matrix.txt')
    return 1 if bad else 0


def cmd_stable(args: argparse.Namespace) -> int:
    lanes = lava_lanes(args.lanes or 'main')
    with project.build_lock(project.CACHE):
        packages.ensure()
        packages.ensure(packages.STABLE)
        base_source.import_base(project.CACHE)
        return stable.run(project.CACHE, args.version or '', lanes)


def cmd_report(args: argparse.Namespace) -> int:
    print(f'base kernel: Debian {project.BASE_PACKAGE} '
          f'{project.BASE_VERSION} (tarball sha256 '
          f'{project.BASE_TARBALL_SHA256[:16]}...)')
    the_series = series.load(project.PATCHES)
    print(f'series: {len(the_series.seams)} seam patch(es), '
          f'{len(the_series.changes)} change(s)')
    _, bad = run_verify()
    _, unclean = run_checkpatch()
    run_bench(args.profile, args.boots, args.clock)
    print_attribution()
    with project.build_lock(project.CACHE):
        letter = cover.write(project.CACHE, the_series, [attribution()])
    print(f'\ncover letter: {letter} (kernel-patches/'
          f'{series.COVER_LETTER} is kept in its form; copy it there)')
    return 1 if bad or unclean else 0


def run_cover_check() -> Tuple[int, int]:
    """The committed cover letter against git's own of the series: (1, 0)
    when its patch count, shortlog and diffstat match, else (0, 1)."""
    the_series = series.load(project.PATCHES)
    if not cover.COVER.exists():
        print(f'cover letter: {cover.COVER} is missing (make report '
              'writes build/cover-letter.txt)')
        return 0, 1
    with project.build_lock(project.CACHE):
        skel = cover.skeleton(project.CACHE, the_series)
    problems = cover.check(cover.parse(cover.COVER.read_text(),
                                       str(cover.COVER)), skel)
    for problem in problems:
        print(f'cover letter: {problem}')
    if not problems:
        print('cover letter: its shortlog and diffstat are the series\'')
    return (0, 1) if problems else (1, 0)


def attribution() -> str:
    """The last make walk BENCH=...'s table of which patch moved which
    benchmark (this clone's, else the one kept in the cache by a walk
    from any clone), when it walked the series as it is now; else the
    line that says how to get it (a walk is too long for every report)."""
    kept = [p for p in (project.RESULTS / 'walk' / 'attribution.md',
                        project.CACHE / walk.ATTRIBUTION) if p.exists()]
    patched = project.git(project.CACHE / 'linux.git', 'rev-parse',
                          'patched', check=False).stdout.strip() \
        if kept else ''
    for path in kept:
        if patched and f'walk of patched {patched[:12]}' in path.read_text():
            return path.read_text().rstrip()
    return ('per-patch attribution: not measured for this series; make '
            'walk BENCH=mm_bench_vmalloc BOOTS=2 walks it (icount clock; '
            'an incremental build and two boots a prefix)')


def print_attribution() -> None:
    print('\n' + attribution())


def lava_lanes(arg: Optional[str]) -> List[str]:
    return [x for x in (arg or '').split(',') if x] or list(
        dict.fromkeys((*kunit_run.CI_LANES, *kunit_run.GRANULE_LANES)))


def cmd_lava(args: argparse.Namespace) -> int:
    """Write every cell's LAVA jobs (building the kernels it lacks)."""
    lanes = lava_lanes(args.lanes)
    with project.build_lock(project.CACHE):
        the_trees = prepare_trees()
        for c in lava.cells(the_trees, lanes):
            known = kunit_run.LANES[c.lane]
            if not c.kernel.exists():
                build = known.kernel_of or c.lane
                print(f'{c.tree} tree, lane {build}: building for its job',
                      flush=True)
                mutants.build_lane(the_trees[c.tree], build, project.CACHE,
                                   f'{c.tree} tree, lane {build} does not '
                                   'build')
            d = lava.write_cell(c, url_base=args.url, board=args.board,
                                dtb_url=args.dtb)
            print(f'{c.tree}+{c.lane}: {d / "job.yaml"}'
                  + (f', {d / "board.yaml"}' if args.board else ''))
    return 0


def run_lava_cells(the_trees: Dict[str, trees.Tree], lanes: Sequence[str],
                   ) -> Tuple[int, int]:
    """lava-run each built cell's qemu job, judge its console and hold it
    against the kunit.py run of the same cell (build/runs/); the matrix
    of the LAVA outcomes, and (cells equal, cells differing)."""
    packages.ensure(packages.LAVA)
    expected = manifest.load(project.MANIFEST)
    actual: Dict[str, Dict[str, str]] = {}
    same = differ = 0
    total_s = 0.0
    for number, c in enumerate(lava.cells(the_trees, lanes), 1):
        column = column_name(c.tree, c.lane)
        kunit_dir = project.RESULTS / 'runs' / f'{c.tree}-{c.lane}'
        if not (kunit_dir / 'results.json').exists():
            raise SeriesError(f'{column}: no kunit.py run of this cell in '
                              f'{kunit_dir} to hold the job against (make '
                              'verify)')
        lava.write_cell(c)
        got, seconds = lava.run_cell(the_trees[c.tree], c, number)
        total_s += seconds
        want = lava.outcomes(the_trees[c.tree], c.lane, kunit_dir)
        diff = lava.differences(got, want)
        for line in diff:
            print(f'lava: {column}: {line}')
        print(f'lava: {column}: job {number} in {seconds:.0f} s, '
              f'{len(got)} cases, {len(diff)} differ from kunit.py',
              flush=True)
        same += len(got) - len(diff)
        differ += len(diff)
        actual[column] = got
    columns = list(actual)
    rows = verify.compare(expected, actual, columns, column_runs)
    text = verify.render(rows, columns)
    project.RESULTS.mkdir(exist_ok=True)
    (project.RESULTS / 'lava-matrix.txt').write_text(text + '\n')
    print('\nVerification matrix from the LAVA jobs (expected/actual):')
    print(text)
    print(f'lava: {len(actual)} jobs in {total_s:.0f} s; {same} cells as '
          f'kunit.py has them, {differ} differ')
    good, bad = verify.counts(rows)
    return same, differ + bad


def cmd_lava_run(args: argparse.Namespace) -> int:
    lanes = lava_lanes(args.lanes or 'main,ptc,16k')
    with project.build_lock(project.CACHE):
        the_trees = prepare_trees()
    _, bad = run_lava_cells(the_trees, lanes)
    return 1 if bad else 0


def cmd_lava_submit(args: argparse.Namespace) -> int:
    packages.ensure(packages.LAVA[1:])
    dirs = sorted(p for p in lava.OUT.glob('*-*') if (p / 'job.yaml').exists())
    if not dirs:
        raise SeriesError(f'no jobs in {lava.OUT}: run make lava first')
    ids = lava.submit(args.lab, dirs, 'board.yaml' if args.board else
                      'job.yaml')
    for name, job_id in ids.items():
        print(f'{name}: job {job_id} on {args.lab}')
    return 0


def cmd_lava_collect(args: argparse.Namespace) -> int:
    packages.ensure(packages.LAVA[1:])
    with project.build_lock(project.CACHE):
        the_trees = prepare_trees()
    expected = manifest.load(project.MANIFEST)
    actual: Dict[str, Dict[str, str]] = {}
    for name, run in lava.collect(args.lab).items():
        tree, _, lane = name.partition('-')
        final = lava.results_dir(the_trees[tree], run, name)
        actual[column_name(tree, lane)] = lava.outcomes(the_trees[tree], lane,
                                                        final)
    columns = list(actual)
    rows = verify.compare(expected, actual, columns, column_runs)
    print(verify.render(rows, columns))
    _, bad = verify.counts(rows)
    return 1 if bad else 0


def cmd_unit(_: argparse.Namespace) -> int:
    _, bad = run_unit()
    return 1 if bad else 0


def run_lava_check() -> Tuple[int, int]:
    """The main lane's cells of both trees once more as LAVA jobs, run here
    with lava-run: their matrix must be kunit.py's, cell for cell, so that
    the path to a lab cannot rot."""
    with project.build_lock(project.CACHE):
        the_trees = prepare_trees()
    return run_lava_cells(the_trees, [manifest.MAIN_LANE])


def cmd_test(_: argparse.Namespace) -> int:
    with unit_alongside() as unit:
        kunit_good, kunit_bad = run_verify(later=packages.LAVA)
        # What the host tests took beyond the packages, trees and kernels.
        with phase('host tests (after the matrix)'):
            unit_good, unit_bad = unit()
    with phase('LAVA jobs'):
        lava_good, lava_bad = run_lava_check()
    with phase('checkpatch and hunks'):
        clean, unclean = run_checkpatch()
        cov = print_hunks()
    accounted = len(cov.pinned) + len(cov.listed)
    unaccounted = len(cov.holes) + len(cov.stale)
    with phase('benchmark smoke'):
        smoke, _ = run_bench('smoke', 1, 'host')
    with phase('cover letter'):
        letter_good, letter_bad = run_cover_check()
    print('\n' + phases_line())
    print(f'\nhost tests: {unit_good} passed, {unit_bad} failed; '
          f'KUnit matrix cells: {kunit_good} as expected, {kunit_bad} differ; '
          f'checkpatch: {clean} patches clean, {unclean} not; '
          f'hunks: {accounted} pinned or listed, {unaccounted} holes or '
          f'stale rows; benchmark smoke: {smoke} ran on both trees; '
          f'LAVA jobs: {lava_good} cells as kunit.py\'s, {lava_bad} differ; '
          f'cover letter: {"matches" if letter_good else "differs"}')
    bad = (unit_bad + kunit_bad + unclean + unaccounted + letter_bad +
           lava_bad)
    good = (unit_good + kunit_good + clean + accounted + smoke +
            letter_good + lava_good)
    print(f'{good} passed, {bad} failed')
    return 1 if bad else 0


# Subcommand: (function, one-line help).
COMMANDS: Dict[str, Tuple[Callable[[argparse.Namespace], int], str]] = {
    'deps': (cmd_deps, 'install the Debian packages the project needs '
                       '(as root)'),
    'trees': (cmd_trees, 'make the base and patched worktrees'),
    'verify': (cmd_verify, 'build both trees, run the suites, print the '
                           'matrix'),
    'granules': (cmd_granules, 'both trees on the 4K, 16K and 64K '
                               'granules and without THP; the matrix'),
    'report': (cmd_report, 'the main job: versions, the matrix, '
                           'checkpatch, the A/B benchmark report'),
    'unit': (cmd_unit, "the host scripts' own tests (no kernel needed)"),
    'test': (cmd_test, 'unit, verify, checkpatch and a smoke run of every '
                       'benchmark; ends with "N passed, N failed"'),
    'bench': (cmd_bench, 'the A/B benchmark report'),
    'mutants': (cmd_mutants, 'apply each mutant alone to the patched tree; '
                             'each must be killed'),
    'mutate': (cmd_mutate, "mutants of each patch's added C lines and of "
                           'the rest of every function it changes, '
                           'generated, built and judged; the score per '
                           'patch and scope'),
    'hunks': (cmd_hunks, 'which hunks of the series a mutant pins, and '
                         'why the others are not (kunit/hunks.tsv)'),
    'lava': (cmd_lava, 'write every (tree, lane) cell as a LAVA job, with '
                       'its kernel, config and manifest slice'),
    'lava-run': (cmd_lava_run, 'run the cells\' qemu jobs here with '
                               'lava-run; the matrix, held against '
                               'kunit.py\'s'),
    'lava-submit': (cmd_lava_submit, 'submit the written jobs to a lab with '
                                     'lavacli'),
    'lava-collect': (cmd_lava_collect, 'wait for the submitted jobs, fetch '
                                       'their logs, print the matrix'),
    'sanitize': (cmd_sanitize, "the patched tree's suites under KASAN, "
                               'lockdep, kmemleak and co.'),
    'stable': (cmd_stable, 'the series on the newest linux-source-6.12 '
                           'the archive offers: per patch, and the matrix '
                           'against the pinned base\'s'),
    'cross': (cmd_cross, 'every prefix built for x86_64 and riscv64; '
                         'generic suites on x86_64 QEMU'),
    'walk': (cmd_walk, 'build and run the suites at every prefix of the '
                       'series'),
}


def positive(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f'{text!r} is not a number >= 1')
    return value


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='mmseries.py', description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    subparsers = parser.add_subparsers(dest='command', metavar='command',
                                       required=True)
    sub = {name: subparsers.add_parser(name, help=text)
           for name, (_, text) in COMMANDS.items()}
    for name in ('report', 'bench'):
        sub[name].add_argument('--profile', default='quick',
                               choices=bench_run.PROFILES)
        sub[name].add_argument('--boots', type=positive, default=3,
                               help='benchmark boots per tree (default 3)')
        sub[name].add_argument('--clock', default='both',
                               choices=sorted((*bench_run.CLOCKS, 'both')))
    sub['mutants'].add_argument('names', nargs='*',
                                help='mutants of kunit/mutants/ (default: '
                                     'all)')
    for name in ('mutants', 'walk'):
        sub[name].add_argument('--granule', default=None if name == 'mutants'
                               else 'main',
                               choices=kunit_run.GRANULE_LANES,
                               help='the lane to run on: main (4K), 16k, '
                                    '64k or nothp')
    sub['mutate'].add_argument('--patch', default=None, nargs='+',
                               help='patch numbers, e.g. 0018 0019 '
                                    '(default: every change)')
    sub['mutate'].add_argument('--sample', type=int, default=0,
                               help='mutants per patch, picked with the '
                                    'seed (default 0: all)')
    sub['mutate'].add_argument('--seed', type=int, default=1,
                               help='the sample\'s seed (default 1)')
    sub['mutate'].add_argument('--separate', action='store_true',
                               help='judge each mutant by a build of its '
                               'own, not on the schema kernel')
    sub['mutate'].add_argument('--recheck', action='store_true',
                               help='judge the kept verdicts again and '
                               'list those that differ')
    sub['mutate'].add_argument('--id0', default=None, metavar='LANES',
                               help='judge nothing: build the schema '
                               'kernel for each lane named (e.g. "16k '
                               '64k") and check that mutant 0 gives the '
                               "patched tree's matrix there")
    sub['mutate'].add_argument('--scope', default='both',
                               choices=('added', 'touched', 'both'),
                               help='the lines a patch adds, the base '
                                    'lines of the functions it changes, '
                                    'or both (default)')
    for name in ('mutants', 'mutate'):
        sub[name].add_argument('--lava', action='store_true',
                               help='boot each mutant as a LAVA job '
                                    '(lava-run here)')
    for name in ('lava', 'lava-run'):
        sub[name].add_argument('--lanes', default=None,
                               help='comma-separated lanes (lava: every lane '
                                    'of make test and make granules; '
                                    'lava-run: main,ptc,16k)')
    sub['lava'].add_argument('--url', default='',
                             help='where a lab fetches the artifacts '
                                  '(default: file:// of build/lava)')
    sub['lava'].add_argument('--board', default='',
                             help='also write board.yaml for this device '
                                  'type (U-Boot, TFTP)')
    sub['lava'].add_argument('--dtb', default='',
                             help='the board\'s device tree URL')
    for name in ('lava-submit', 'lava-collect'):
        sub[name].add_argument('--lab', required=True,
                               help='the lavacli identity of the lab')
    sub['lava-submit'].add_argument('--board', action='store_true',
                                    help='submit board.yaml, not job.yaml')
    sub['stable'].add_argument('--version', default='',
                               help='a version of the archive (default: '
                                    'the newest)')
    sub['stable'].add_argument('--lanes', default=None,
                               help='comma-separated lanes (default main)')
    sub['walk'].add_argument('--bench', default=None,
                             help='kunit.py filter of benchmark suites, '
                                  'e.g. mm_bench_vmalloc')
    sub['walk'].add_argument('--boots', type=int, default=3,
                             help='bench boots per prefix (default 3)')
    sub['walk'].add_argument('--clock', default='icount',
                             choices=tuple(bench_run.CLOCKS),
                             help='the benchmarks\' clock (default icount)')
    return parser


def main(argv: List[str]) -> int:
    args = make_parser().parse_args(argv)
    try:
        return COMMANDS[args.command][0](args)
    except SeriesError as e:
        print(f'error: {e}', file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print('error: interrupted', file=sys.stderr)
        return 130


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
