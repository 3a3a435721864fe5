# SPDX-License-Identifier: GPL-2.0
"""The A/B benchmark driver: boots the bench kernel of base and patched
alternately (A B A B ...), K boots each. The samples of one boot are not
independent of each other (the boot's placement, the host's load at the
time), so each boot contributes one observation per case, the mean of its
samples, as each of the seeds' ten loads did.

The bench kernel is the main lane's kernel, which holds the harness
(lib/); only the benchmark suites run here. The first boot of a tree
builds it (nothing to do after the main lane ran); later boots only boot
it again (kunit.py exec).
"""

import fnmatch
import os
import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import bench
import kunit_run
import project
import results
import tcg_counts
from project import SeriesError
from trees import Tree

LANE = 'main'
CONFIGS = kunit_run.MAIN_CONFIGS
SUITES = 'mm_bench*'
# Cases that measure only in the full profile, and skip (saying so) in the
# others: kswapd's wakeups need all free memory fragmented first, seconds
# of every boot under TCG.
FULL_PROFILE_ONLY = ('mm_bench_structural.kswapd_wakeups_bench',
                     'mm_bench_structural.kswapd_page_cache_bench')
PROFILES = ('smoke', 'quick', 'full')
# Clocks: the guest's own clock as QEMU's TCG runs it (wall time of the
# emulation), or QEMU counting instructions (-icount), blind to TLB and
# barrier cost either way. The QEMU arguments of each clock; kunit.py
# takes them as --qemu_args.
#
# icount alone did not repeat: two boots of one kernel differed by up to
# 50% in a case. Two inputs made them differ: QEMU's random seed (the
# device tree's rng-seed and kaslr-seed, the RNDR instruction), drawn from
# the host at each start, and the second vCPU, whose work interleaves with
# the measuring one as that randomness has it. With one vCPU and a given
# -seed, a boot's counts repeat bit for bit. Boot i of each tree gets seed
# i + 1, so the two trees see the same seeds and the boots still sample
# what the seed changes (random sizes, allocation order).
CLOCKS = {'host': (), 'icount': ('-icount', 'shift=0,sleep=off', '-smp', '1')}
# make report and make bench by default: the two clocks side by side.
BOTH = ('host', 'icount')
CLOCK_NOTES = {
    'host': 'guest time under TCG: real elapsed time, noisy on a shared '
            'machine; TCG models neither TLB nor barrier cost',
    'icount': 'QEMU counts guest instructions, one vCPU, QEMU seed = boot '
              'number + 1 on both trees: a boot repeats exactly; shows '
              'only instruction-count differences, no TLB, cache or '
              'barrier cost'}


# Every benchmark boot, on either clock: QEMU allocates and touches the
# guest's RAM before the guest starts. Without it the first use of a
# guest page in a boot costs the host a page fault and a zeroed page that
# no guest instruction shows: test_vmalloc.ko's full_fit_alloc_test ran
# 2.3 times as long on patched as in its next run (host clock) because
# the fix_size grid before it had left it pages the guest had not used
# yet, with its instruction count 1% above the next run's.
PREALLOC = ('-mem-prealloc',)


def qemu_args(clock: str, boot: int) -> List[str]:
    """The QEMU arguments of a clock for the boot numbered boot (from 0)."""
    seed = ['-seed', str(boot + 1)] if clock == 'icount' else []
    return [*PREALLOC, *CLOCKS[clock], *seed]


def suite_names(bench_dir: Path = project.BENCH_DIR) -> List[str]:
    """The harness's suites, as its sources name them."""
    return sorted(set(re.findall(r'\.name = "(mm_bench_\w+)"',
                                 ''.join(p.read_text() for p in
                                         sorted(bench_dir.glob('*.c'))))))


def matching_suites(glob: str, bench_dir: Path = project.BENCH_DIR
                    ) -> List[str]:
    """The suites a kunit.py filter glob (suite or suite.case) selects."""
    suite = glob.split('.', 1)[0]
    return [s for s in suite_names(bench_dir) if fnmatch.fnmatchcase(s, suite)]


def command(action: str, profile: str, clock: str, jobs: int,
            boot: int = 0, extra_qemu: Sequence[str] = ()) -> List[str]:
    return [*kunit_run.tool_command(action, kunit_run.build_dir_name(LANE),
                                    CONFIGS, jobs),
            f'--kernel_args=mm_series_bench.profile={profile}',
            *[f'--kernel_args={a}' for a in kunit_run.MAIN_ARGS],
            *kunit_qemu_args(clock, boot, extra_qemu), SUITES]


def kunit_qemu_args(clock: str, boot: int = 0,
                    extra: Sequence[str] = ()) -> List[str]:
    args = [*qemu_args(clock, boot), *extra]
    return [f'--qemu_args={" ".join(args)}'] if args else []


def plugin_log(tree: Tree, number: int) -> Path:
    return project.RESULTS / 'bench' / f'plugin-{tree.name}-{number}.log'


def boot(tree: Tree, cache: Path, profile: str, clock: str, number: int,
         build: bool, plugin: Optional[Path] = None
         ) -> Tuple[Dict[str, str], str]:
    """One boot: each benchmark case's outcome, and the console log; with
    the TCG plugin, its windows go to plugin_log()."""
    print(f'{tree.name} tree: bench boot {number} ({profile}, {clock} clock)'
          f'{", building" if build else ""}', flush=True)
    extra: List[str] = []
    if plugin:
        log_path = plugin_log(tree, number)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.unlink(missing_ok=True)
        extra = tcg_counts.qemu_args(plugin, log_path, tcg_counts.vectors_address(
            tree.path / kunit_run.build_dir_name(LANE)))
    final = kunit_run.execute(
        tree, f'bench boot {number}',
        f'bench-{clock}-{tree.name}-{number}',
        command('run' if build else 'exec', profile, clock,
                os.cpu_count() or 1, number, extra),
        cache, kunit_run.build_dir_name(LANE))
    log = (final / 'test.log').read_text(errors='replace')
    return results.load(final / 'results.json'), log


def ab(the_trees: Dict[str, Tree], cache: Path, profile: str, clock: str,
       boots: int, plugin: Optional[Path] = None,
       counts: Optional[Dict[str, tcg_counts.Counts]] = None
       ) -> Tuple[bench.Samples, bench.Samples]:
    """K boots of each tree, alternating; every case must pass each time.
    With the TCG plugin (icount only: its counters are exact on the one
    vCPU), each boot's counts per operation go to counts[tree]."""
    if profile not in PROFILES:
        raise SeriesError(f'unknown profile {profile!r} '
                          f'(one of {", ".join(PROFILES)})')
    if clock not in CLOCKS:
        raise SeriesError(f'unknown clock {clock!r} '
                          f'(one of {", ".join(CLOCKS)})')
    pooled: Dict[str, bench.Samples] = {'base': {}, 'patched': {}}
    for number in range(boots):
        for name in ('base', 'patched'):
            outcomes, log = boot(the_trees[name], cache, profile, clock,
                                 number, build=number == 0, plugin=plugin)
            failed = sorted(c for c, o in outcomes.items() if o != 'pass'
                            and not (o == 'skip' and profile != 'full' and
                                     c in FULL_PROFILE_ONLY))
            where = f'{name} tree, bench boot {number}'
            if not outcomes:
                raise SeriesError(f'{where}: no benchmark ran')
            if failed:
                raise SeriesError(f'{where}: {len(failed)} benchmark case(s) '
                                  f'failed, first {failed[0]}')
            bench.merge(pooled[name], bench.per_boot(bench.parse(log)))
            if plugin and counts is not None:
                windows = tcg_counts.parse_windows(
                    plugin_log(the_trees[name], number).read_text(
                        errors='replace'))
                try:
                    tcg_counts.merge(counts.setdefault(name, {}),
                                     tcg_counts.per_operation(log, windows))
                except SeriesError as e:
                    raise SeriesError(f'{where}: {e}') from None
    return pooled['base'], pooled['patched']


def cases_ran(samples: Sequence[bench.Samples]) -> int:
    return len(set().union(*samples))
