# SPDX-License-Identifier: GPL-2.0
"""Build a tree and run the suites with the tree's own kunit.py on arm64
QEMU, keeping the KTAP log, kunit.py's JSON and the .config of every run."""

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import crash
import kernel_log
import manifest
import progress
import project
import reasons
import results
from project import SeriesError
from trees import Tree

CROSS_COMPILE = 'aarch64-linux-gnu-'
QEMU_CONFIGS = project.REPO / 'scripts' / 'qemu_configs'


@dataclass(frozen=True)
class Lane:
    """A kernel configuration the suites run on: kunitconfig fragments
    (merged in order, later ones win) and the QEMU config that boots it
    with the hugetlb pools of its granule."""
    configs: Sequence[Path]
    qemu_config: Path = project.QEMU_CONFIG
    what: str = ''
    # A lane that boots another lane's kernel (its configs, its build
    # directory) on other hardware, running only the suites of filter.
    kernel_of: str = ''
    filter: str = ''
    kernel_args: Sequence[str] = ()
    trees: Sequence[str] = ('base', 'patched')
    # kunit.py --filter on the cases' attributes (the main lane's kernel
    # also holds the benchmarks, which are marked slow).
    attributes: str = ''


# Each lane has its own build directory (build_dir_name()), unless it
# boots another lane's kernel (kernel_of). One kernel per tree serves the
# 4K lanes and the benchmarks (bench_run): it has the checks of the ptc
# lane built in and switched off unless booted on (page_table_check=on;
# page_owner=on; allocation profiling, which MEM_ALLOC_PROFILING_DEBUG
# switches on by default, booted "never" in the main lane), and the
# harness, whose cases are marked slow and which the correctness runs
# leave out by that attribute. A cold run thus builds two kernels for the
# five 4K lanes and the benchmarks. What a distribution kernel builds in
# and leaves off (NUMA, page_owner, MEMORY_FAILURE, allocation profiling)
# costs the benchmarks a static branch or a test of a flag; the two trees
# are measured on the same configuration.
MAIN_CONFIGS = (project.KUNITCONFIG,
                project.KUNIT_DIR / 'page_table_check.kunitconfig',
                project.BENCH_DIR / 'bench.kunitconfig')
NOT_BENCHMARKS = 'speed>slow'
# The main lane and the benchmarks: the checks the kernel has built in
# stay off (page_table_check and page_owner are off unless asked for).
MAIN_ARGS = ('sysctl.vm.mem_profiling=never',)
# The lanes of the ptc checks: every user page-table update accounted and
# checked, allocation tags with their debug checks, and every slab
# object's redzones checked on free (SLUB's sanity checks and red zoning),
# so that a write past an array the series fills (a vmalloc area's page
# array) is reported, as a BUG line.
PTC_ARGS = ('page_table_check=on', 'slub_debug=FZ')
GRANULE_PTC_ARGS = ('page_table_check=on',)
LANES: Dict[str, Lane] = {
    'main': Lane(MAIN_CONFIGS, what='4K pages, 52-bit VA, THP on',
                 attributes=NOT_BENCHMARKS, kernel_args=MAIN_ARGS),
    'ptc': Lane(MAIN_CONFIGS,
                what='the main kernel with page_table_check on, '
                     'allocation profiling with its debug checks, slab '
                     'redzones; MEMORY_FAILURE, page_owner (off), page '
                     'allocation fault injection and NUMA (one node) are '
                     'built in for every 4K lane',
                kernel_of='main', attributes=NOT_BENCHMARKS,
                kernel_args=PTC_ARGS),
    # Two memory nodes change more than the node branch: vmalloc_huge()
    # without a node divides the size by the nodes online before choosing
    # its mapping, so the contpte and PMD cases would test that instead.
    # Hence a lane of its own, for the suites that ask for a node:
    # vmalloc_large_order and vmalloc_page_array (kunit.filter_glob takes
    # one glob, and the kernel's glob_match() knows [...]).
    'numa': Lane(MAIN_CONFIGS, QEMU_CONFIGS / 'arm64_mm_two_nodes.py',
                 what='the ptc lane on two memory nodes, '
                      'vmalloc_large_order and vmalloc_page_array only',
                 kernel_of='main', filter='vmalloc_[lp]a*',
                 kernel_args=PTC_ARGS),
    # page_owner on: with it, 6.12's walk over a gigantic folio's records
    # runs past a memory section's array into whatever memory follows
    # (0005-0007 fix it), so only the patched tree boots this way, and
    # only for the suite that checks that walk; the mutants of each walk
    # show its case failing.
    'owner': Lane(MAIN_CONFIGS,
                  what='the ptc lane with page_owner=on, '
                       'gigantic_page_owner only, patched only',
                  kernel_of='main', filter='gigantic_page_owner',
                  kernel_args=('page_owner=on', *PTC_ARGS),
                  trees=('patched',)),
    # The granule lanes carry page_table_check, booted on as in the ptc
    # lane (not the slab redzones): page_table_check on 16K and 64K pages is a branch of the series of its own (the stride
    # of a PMD block's accounting), and the 16K contpmd block is the one
    # size besides the 4K pud that spans several memory sections.
    '16k': Lane((project.KUNITCONFIG,
                 project.KUNIT_DIR / 'page_table_check.kunitconfig',
                 project.KUNIT_DIR / 'granule-16k.kunitconfig'),
                QEMU_CONFIGS / 'arm64_mm_16k.py',
                what='16K pages, 52-bit VA (LPA2), THP on, ptc checks',
                kernel_args=GRANULE_PTC_ARGS),
    '64k': Lane((project.KUNITCONFIG,
                 project.KUNIT_DIR / 'page_table_check.kunitconfig',
                 project.KUNIT_DIR / 'granule-64k.kunitconfig'),
                QEMU_CONFIGS / 'arm64_mm_64k.py',
                what='64K pages, 52-bit VA (LVA), THP on, ptc checks',
                kernel_args=GRANULE_PTC_ARGS),
    # kunit.py refuses one option set two ways across fragments: the
    # !THP lane's config is whole (a host test keeps it in step).
    'nothp': Lane((project.KUNIT_DIR / 'no-thp.kunitconfig',),
                  what='4K pages, TRANSPARENT_HUGEPAGE=n (no ARM64_CONTPTE)'),
}
# What make test and make report run: the 4K lanes and the 16K one, four
# kernels. Each is a cold compile: the series changes headers every object
# includes (asm/pgtable.h, asm/thread_info.h), so ccache serves nothing of
# one tree or granule to another (README, "Lanes and what they cost").
# make granules runs GRANULE_LANES.
GRANULE_LANES = ('main', '16k', '64k', 'nothp')
CI_LANES = ('main', 'ptc', 'numa', 'owner', '16k')
# kunit.py's --timeout covers the boot and the suites, not the build.
RUN_TIMEOUT_S = 900


def build_dir_name(lane: str) -> str:
    # A direct child of the tree: Kbuild then uses srctree "..", so the
    # compiler sees the same relative paths in base and patched and ccache
    # serves one tree's objects to the other.
    known = LANES.get(lane)
    return f'.kunit-{known.kernel_of if known and known.kernel_of else lane}'


def tool_command(action: str, build_dir: str, configs: Sequence[Path],
                 jobs: int, timeout: int = RUN_TIMEOUT_S,
                 qemu_config: Path = project.QEMU_CONFIG,
                 kernel_args: Sequence[str] = ()) -> List[str]:
    """The tree's kunit.py for arm64 QEMU; "run" builds first (with the
    config fragments, through ccache), "exec" only boots what is built,
    "build" only builds."""
    cmd = [sys.executable, 'tools/testing/kunit/kunit.py', action,
           '--arch=arm64', f'--cross_compile={CROSS_COMPILE}',
           f'--build_dir={build_dir}',
           f'--qemu_config={qemu_config}']
    if action != 'build':
        cmd += [f'--timeout={timeout}',
                *[f'--kernel_args={a}' for a in kernel_args]]
    if action in ('run', 'build'):
        cmd += [*[f'--kunitconfig={k}' for k in configs],
                '--make_options', f'CC=ccache {CROSS_COMPILE}gcc',
                f'--jobs={jobs}']
    return cmd


def suite_filter(patterns: Sequence[str]) -> Optional[str]:
    """kunit.py's filter glob for case patterns (suite.case.param, fnmatch)
    when they all name one suite: boot only that suite, or only that case
    when they all name one case (so that a crash in an earlier case of the
    suite cannot keep it from running). kunit.filter_glob takes a single
    glob, so patterns of several suites run everything."""
    def plain(name: str) -> bool:
        return bool(name) and not any(c in name for c in '*?[')

    suites = {p.split('.', 1)[0] for p in patterns}
    if len(suites) != 1 or not plain(next(iter(suites))):
        return None
    suite = suites.pop()
    cases = {(p.split('.') + [''])[1] for p in patterns}
    if len(cases) == 1 and plain(next(iter(cases))):
        return f'{suite}.{cases.pop()}'
    return suite


def matching(outcomes: Dict[str, str], patterns: Sequence[str]
             ) -> Dict[str, str]:
    """The outcomes of the cases any of the patterns matches."""
    return {case: outcome for case, outcome in outcomes.items()
            if any(fnmatch.fnmatchcase(case, p) for p in patterns)}


def kunit_command(lane: str, jobs: int, glob: Optional[str] = None
                  ) -> List[str]:
    """kunit.py run for a lane: builds (a lane booting another's kernel
    finds it built, so make has nothing to do) and boots it, with the
    lane's filter unless glob narrows it further."""
    cmd = tool_command('run', build_dir_name(lane), LANES[lane].configs,
                       jobs, qemu_config=LANES[lane].qemu_config,
                       kernel_args=LANES[lane].kernel_args)
    if LANES[lane].attributes:
        cmd.append(f'--filter={LANES[lane].attributes}')
    glob = glob or LANES[lane].filter
    return cmd + [glob] if glob else cmd


def in_scope(lane: str, case: str) -> bool:
    """Whether a lane runs a case (suite.case.param)."""
    known = LANES.get(lane)
    return not (known and known.filter) or \
        fnmatch.fnmatchcase(case, known.filter + '.*')


def build_env(cache: Path) -> Dict[str, str]:
    return dict(os.environ,
                CCACHE_DIR=str(cache / 'ccache'), CCACHE_MAXSIZE='10G',
                # Same build identity on both trees: identical objects.
                KBUILD_BUILD_TIMESTAMP='2025-11-10', KBUILD_BUILD_USER='kunit',
                KBUILD_BUILD_HOST='arm64-mm-series')


def first_error(output: str) -> str:
    """The line a user needs first: the compiler's error, the linker's
    (which says no "error", and follows ld's "in function" line), else
    kunit.py's."""
    for pattern in (r'^\S+:\d+:\d+: (?:fatal )?error: .*$',
                    r'^.*(?:multiple definition of|undefined reference to)'
                    r' .*$',
                    r'^.*\berror\b.*$', r'^ERROR:.*$'):
        found = re.search(pattern, output, re.M | re.I)
        if found:
            return found.group(0).strip()
    return project.last_line(output, 'no output')


def execute(tree: Tree, what: str, run_name: str, cmd: List[str],
            cache: Path, build_dir: str,
            boot_s: Optional[float] = None,
            stall_s: Optional[float] = None) -> Path:
    """Run one kunit.py command in a tree and keep what it leaves (KTAP
    log, JSON, .config, output) in build/runs/<run_name>/, written whole or
    not at all; a failed run stops with one line."""
    runs = project.RESULTS / 'runs'
    final = runs / run_name
    tmp = runs / f'.{run_name}.tmp'
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    json_path = tmp / 'results.json'
    with open(tmp / 'kunit.out', 'w') as out:
        # Unbuffered, so that the watchdog sees each case as it ends.
        proc = subprocess.Popen([*cmd, f'--json={json_path}'],
                                cwd=tree.path, stdout=out,
                                stderr=subprocess.STDOUT,
                                env=dict(build_env(cache),
                                         PYTHONUNBUFFERED='1'))
        with progress.Reporter(f'{tree.name} tree, {what}', tmp / 'kunit.out',
                               tree.path / build_dir):
            why = crash.watch(proc, tmp / 'kunit.out', stall_s=stall_s,
                              boot_s=boot_s)
        if why:
            (tmp / 'watchdog.txt').write_text(
                crash.watchdog_note(why, boot_s, stall_s) + '\n')
    build = tree.path / build_dir
    for name, keep in (('test.log', 'test.log'), ('.config', 'config')):
        if (build / name).exists():
            shutil.copyfile(build / name, tmp / keep)
    if not json_path.exists():
        # Keep what the failed run printed, under a name no reader of
        # results would take for a finished run.
        failed = runs / f'{run_name}.failed'
        shutil.rmtree(failed, ignore_errors=True)
        os.replace(tmp, failed)
        output = (failed / 'kunit.out').read_text(errors='replace')
        raise SeriesError(f'{tree.name} tree, {what}: kunit.py failed '
                          f'(exit {proc.returncode}, see {failed}): '
                          f'{first_error(output)}')
    # What the build directory holds now is the next build's estimate.
    progress.record_objects(build)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(tmp, final)
    return final


def name_interrupted(outcomes: Dict[str, str], order: Sequence[str]
                     ) -> Dict[str, str]:
    """kunit.py files the case a crash or a hang interrupted under an empty
    name, "suite." ("suite.case." for a parameterised case, whose name
    KUnit prints as it starts): KUnit prints a case's name only when it
    ends. It is the first case under that prefix, in the suites' own order
    (the manifest's), that has no result."""
    named: Dict[str, str] = {}
    for case, outcome in outcomes.items():
        if case.endswith('.'):
            case = next((c for c in order
                         if c.startswith(case) and c not in outcomes), case)
        named[case] = outcome
    return named


def outcomes_of(final: Path, tree: Path, build_dir: str,
                order: Optional[Sequence[str]] = None
                ) -> Tuple[Dict[str, str], List[str]]:
    """A finished run's outcome per case, the kernel-log checks folded in
    (kernel_log.py), and notes. A case the watchdog stopped is "timeout";
    a crash's decoded call trace is kept in crash-trace.txt. order: the
    suites' cases in run order, which names the case a crash or a hang
    interrupted; by default the manifest's."""
    log_path = final / 'test.log'
    log = log_path.read_text(errors='replace') if log_path.exists() else ''
    expected = manifest.load(project.MANIFEST)
    if order is None:
        order = list(expected)
    raw = name_interrupted(results.load(final / 'results.json'), order)
    broken = [c for c, o in raw.items() if o == 'crash']
    outcomes, notes = kernel_log.apply(
        raw, log, kernel_log.load_expected(project.WARNINGS),
        broken[0] if broken else None)
    if broken and (final / 'watchdog.txt').exists() and \
            not crash.crashed(log):
        outcomes[broken[0]] = 'timeout'
        notes.append(f'{broken[0]}: TIMEOUT, no progress for '
                     f'{crash.STALL_S} s')
    trace = crash.trace_of(log)
    if trace and crash.crashed(log):
        decoded = crash.decode(tree, build_dir, trace, CROSS_COMPILE)
        (final / 'crash-trace.txt').write_text(decoded)
        where = (broken[0] if broken else
                 crash.crashed_case(kernel_log.splats_by_case(log)) or
                 'the run')
        notes.append(f'{where}: CRASHED: {crash.headline(log)}'
                     f' (decoded trace: {final / "crash-trace.txt"})')
    return judge_reasons(final, log, outcomes, notes, expected)


def judge_reasons(final: Path, log: str, outcomes: Dict[str, str],
                  notes: List[str],
                  expected: Dict[str, manifest.Expectation]
                  ) -> Tuple[Dict[str, str], List[str]]:
    """A fail or skip that does not carry the manifest's reason becomes
    "fail:other"/"skip:other" (reasons.py). Each case's reports are kept
    in reports.txt. The log checks' notes ("case: text") are reports of
    their case too."""
    reports = reasons.reports_by_case(log)
    for note in notes:
        case, _, text = note.partition(': ')
        reports.setdefault(case, []).append(text)
    (final / 'reports.txt').write_text(''.join(
        f'{case} [{outcomes.get(case, "?")}]\n' +
        ''.join('    ' + t.replace('\n', '\n    ') + '\n' for t in texts)
        for case, texts in sorted(reports.items())))
    judged = reasons.judge(outcomes, reports,
                           {c: e.reason for c, e in expected.items()})
    for case in sorted(judged):
        if judged[case] != outcomes[case]:
            notes.append(f'{case}: {outcomes[case]} for another reason than '
                         f'the manifest\'s ({expected[case].reason!r}): '
                         f'{reasons.first_line(reports.get(case, []))}')
    return judged, notes


def isolate(tree: Tree, lane: str, cache: Path, outcomes: Dict[str, str],
            expected: Sequence[str]) -> Tuple[Dict[str, str], List[str]]:
    """After a crash or a hang, run what did not report again, suite by
    suite (kunit.py exec, no build), and within a suite that dies again
    case by case, so that one bad case costs only its own result."""
    notes: List[str] = []
    merged = dict(outcomes)
    build_dir = build_dir_name(lane)
    queue = isolation_globs([c for c in expected if c not in merged], merged)
    tried = set()
    while queue:
        glob = queue.pop(0)
        if glob in tried:
            continue
        tried.add(glob)
        print(f'{tree.name} tree, lane {lane}: isolating {glob}', flush=True)
        cmd = [*tool_command('exec', build_dir, LANES[lane].configs, 1,
                             qemu_config=LANES[lane].qemu_config,
                             kernel_args=LANES[lane].kernel_args), glob]
        name = f'{tree.name}-{lane}-isolated-{glob}'
        try:
            final = execute(tree, f'lane {lane} ({glob})', name, cmd, cache,
                            build_dir)
        except SeriesError as e:
            notes.append(f'{glob}: not run again: {e}')
            continue
        more, more_notes = outcomes_of(final, tree.path, build_dir)
        for case, outcome in more.items():
            merged.setdefault(case, outcome)
        notes += more_notes
        # A suite that died again: its cases still missing, one by one.
        still = [c for c in expected
                 if c not in merged and c.startswith(glob + '.')]
        queue += isolation_globs(still, merged)
    return merged, notes


def isolation_globs(missing: Sequence[str], have: Dict[str, str]
                    ) -> List[str]:
    """Filters for the missing cases: a whole suite when none of it
    reported, else each missing case of it (its parameters included)."""
    globs: List[str] = []
    for case in missing:
        suite, name = case.split('.')[:2]
        reported = any(c.startswith(suite + '.') for c in have)
        glob = f'{suite}.{name}' if reported else suite
        if glob not in globs:
            globs.append(glob)
    return globs


def run(tree: Tree, lane: str, cache: Path, jobs: int = 0,
        expected: Sequence[str] = ()) -> Dict[str, str]:
    """Build and run one lane on one tree; return each case's outcome.
    Cases of expected that a crash or a hang kept from reporting are run
    again in isolation."""
    print(f'{tree.name} tree: building and running lane {lane} '
          f'({progress.since_start()} into this command)', flush=True)
    build_dir = build_dir_name(lane)
    expected = [c for c in expected if in_scope(lane, c)]
    final = execute(tree, f'lane {lane}', f'{tree.name}-{lane}',
                    kunit_command(lane, jobs or os.cpu_count() or 1),
                    cache, build_dir)
    outcomes, notes = outcomes_of(final, tree.path, build_dir)
    if any(o in ('crash', 'timeout') for o in outcomes.values()):
        outcomes, more = isolate(tree, lane, cache, outcomes, expected)
        notes += more
    (final / 'log-checks.txt').write_text(''.join(n + '\n' for n in notes))
    for note in notes:
        print(f'{tree.name} tree, lane {lane}: kernel log: {note}')
    return outcomes
