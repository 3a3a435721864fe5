# SPDX-License-Identifier: GPL-2.0
"""The series walk: build and run the suites at every prefix of the series
and say which patch changed which case's outcome.

A worktree of its own, trees/walk, steps through the patched branch one
commit at a time from the base branch (base = seams + suites commit, then
one commit per change), rebuilding incrementally. A prefix that does not
build is reported with the compiler's first error, and the walk goes on
comparing the next prefix with the last one that ran. With a benchmark
filter, the walk runs only the benchmarks it selects at each prefix (the
suites' walk is make walk without one), booting each prefix's kernel K
times, and names the patches that moved a benchmark significantly (the
95% intervals of the two prefixes do not overlap).
"""

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import bench
import bench_run
import kunit_run
import project
import reasons
import results
import series
import stats
import trees
from project import SeriesError
from trees import Tree

TREE_NAME = 'walk'
# The main lane's last benchmark walk, in the cache.
ATTRIBUTION = 'walk-attribution.md'


@dataclass
class Step:
    commit: str
    subject: str
    outcomes: Optional[Dict[str, str]] = None      # None: did not build
    error: str = ''
    samples: bench.Samples = field(default_factory=dict)
    label: str = ''     # the patch's number, e.g. 0018


def prefixes(repo: Path) -> List[Tuple[str, str]]:
    """(commit, subject) of base, then of each change, in order."""
    base = trees.git(repo, 'rev-parse', 'base').stdout.strip()
    out = trees.git(repo, 'log', '--reverse', '--format=%H %s',
                    'base..patched').stdout
    changes = [tuple(line.split(' ', 1)) for line in out.splitlines()]
    return [(base, 'base (seams + suites)')] + [(c, s) for c, s in changes]


def changed(before: Dict[str, str], after: Dict[str, str]
            ) -> List[Tuple[str, str, str]]:
    """(case, outcome before, outcome after) where they differ."""
    return [(case, before.get(case, 'missing'), after.get(case, 'missing'))
            for case in sorted(set(before) | set(after))
            if before.get(case, 'missing') != after.get(case, 'missing')]


def moved(before: bench.Samples, after: bench.Samples
          ) -> List[Tuple[bench.Key, stats.Comparison]]:
    return [(r.key, r.comparison) for r in bench.compare(before, after)
            if r.comparison.mark]


def other_reasons(step: Step) -> List[str]:
    """Cases of a prefix that fail or skip for another reason than the
    manifest's: a precondition another patch provides, or a broken
    observer, which a bisection would take for the change itself."""
    return sorted(c for c, o in (step.outcomes or {}).items()
                  if o.endswith(reasons.OTHER))


# A move smaller than this share of the row is not named: under icount
# every prefix's count is exact, and a patch that touches none of the
# benchmark's code still shifts it (timer interrupts land at other
# instructions when the kernel's code moves): most rows by under 1%, a
# few by up to about 2% (0004 and 0022 moved long_busy_list by -1.6% and
# -2.1% on 2026-12-02), the kvfree_rcu rows, whose grace periods follow
# the timer, by up to about 5%. A named move under 2% may be such a shift.
MIN_MOVE_PCT = 1.0


def attribution(steps: Sequence[Step],
                min_move_pct: float = MIN_MOVE_PCT) -> str:
    """Per benchmark row: its change from base to the whole series, and
    each patch whose prefix moved it (the 95% intervals of the prefix and
    the one before it do not overlap) by at least min_move_pct, by how
    much; the smaller significant moves are counted."""
    ran = [s for s in steps if s.outcomes is not None and s.samples]
    if len(ran) < 2:
        return 'no benchmark ran at two prefixes'
    lines = ['| benchmark | base -> series | moved by (change, 95% '
             f'half-width of the change; moves under {min_move_pct:g}% '
             'counted) |', '|---|---|---|']
    first, last = ran[0], ran[-1]
    whole = {r.key: r.comparison for r in bench.compare(first.samples,
                                                         last.samples)}
    by_key: Dict[bench.Key, List[str]] = {}
    small: Dict[bench.Key, int] = {}
    for before, after in zip(ran, ran[1:]):
        for key, c in moved(before.samples, after.samples):
            if abs(c.change_pct) < min_move_pct:
                small[key] = small.get(key, 0) + 1
                continue
            by_key.setdefault(key, []).append(
                f'{after.label or after.subject} {c.change_pct:+.1f}% '
                f'(+-{c.change_hw_pct:.1f})')
    for key in sorted(whole):
        c = whole[key]
        named = '; '.join(by_key.get(key, [])) or 'none'
        if small.get(key):
            named += f'; {small[key]} under {min_move_pct:g}%'
        lines.append(f'| {key.label()} | {bench.change_cell(c)} | '
                     f'{named} |')
    return '\n'.join(lines)


def render(steps: Sequence[Step]) -> str:
    lines = ['| prefix | patch | cases changed | first changes |',
             '|---|---|---|---|']
    last: Optional[Step] = None
    for n, step in enumerate(steps):
        label = f'{n:02d}'
        if step.outcomes is None:
            lines.append(f'| {label} | {step.subject} | does not build | '
                         f'{step.error} |')
            continue
        if last is None:
            failing = sum(o != 'pass' for o in step.outcomes.values())
            lines.append(f'| {label} | {step.subject} | - | '
                         f'{len(step.outcomes)} cases, {failing} not '
                         'passing |')
        else:
            diff = changed(last.outcomes or {}, step.outcomes)
            shown = '; '.join(f'{c} {a}->{b}' for c, a, b in diff[:3])
            more = f' (+{len(diff) - 3})' if len(diff) > 3 else ''
            lines.append(f'| {label} | {step.subject} | {len(diff)} | '
                         f'{shown}{more} |')
        others = other_reasons(step)
        if others:
            more = f' (+{len(others) - 3})' if len(others) > 3 else ''
            lines.append(f'|  |  | another reason | {len(others)}: '
                         f'{", ".join(others[:3])}{more} |')
        if last is not None:
            for key, c in moved(last.samples, step.samples):
                lines.append(f'|  |  | bench | {key.label()} '
                             f'{bench.change_cell(c)} |')
        last = step
    return '\n'.join(lines)


def run_step(tree: Tree, commit: str, subject: str, cache: Path,
             bench_filter: Optional[str], boots: int,
             lane: str = 'main', clock: str = 'host') -> Step:
    """The suites at one prefix or, with a benchmark filter, only the
    benchmarks it selects, booted K times (the first boot builds)."""
    trees.git(tree.path, 'checkout', '-q', '--detach', commit)
    step = Step(commit, subject)
    short = commit[:12]
    print(f'walk: {short} {subject}', flush=True)
    jobs = os.cpu_count() or 1
    try:
        if not bench_filter:
            final = kunit_run.execute(
                tree, f'prefix {short}, lane {lane}', f'walk-{lane}-{short}',
                kunit_run.kunit_command(lane, jobs), cache,
                kunit_run.build_dir_name(lane))
            step.outcomes, _ = kunit_run.outcomes_of(
                final, tree.path, kunit_run.build_dir_name(lane))
            return step
        outcomes: Dict[str, str] = {}
        for number in range(boots):
            cmd = bench_run.command('run' if number == 0 else 'exec',
                                    'quick', clock, jobs, number)
            cmd[-1] = bench_filter
            run = kunit_run.execute(
                tree, f'prefix {short}, bench boot {number}',
                f'walk-{short}-bench-{number}', cmd, cache,
                kunit_run.build_dir_name(bench_run.LANE))
            outcomes.update(results.load(run / 'results.json'))
            bench.merge(step.samples, bench.per_boot(bench.parse(
                (run / 'test.log').read_text(errors='replace'))))
        step.outcomes = outcomes
    except SeriesError as e:
        # kunit_run's message ends "(exit N, see DIR): <first error>".
        step.error = str(e).split('): ', 1)[-1]
    return step


def label_steps(steps: Sequence[Step]) -> None:
    """Each change's step takes its patch's number (the series' order)."""
    changes = list(series.load(project.PATCHES).changes)
    for step, name in zip(steps[1:], changes):
        step.label = name[:4]


def run(cache: Path, bench_filter: Optional[str] = None,
        boots: int = 3, lane: str = 'main', clock: str = 'icount') -> int:
    """Walk the series on one lane (a granule's: main, 16k, 64k, nothp);
    returns the number of prefixes that do not build or have a case that
    fails for another reason than the manifest's."""
    tree = trees.scratch_worktree(cache, TREE_NAME, 'base')
    steps = [run_step(tree, commit, subject, cache, bench_filter, boots,
                      lane, clock)
             for commit, subject in prefixes(cache / 'linux.git')]
    label_steps(steps)
    table = render(steps)
    out = project.RESULTS / ('walk' if lane == 'main' else f'walk-{lane}')
    out.mkdir(parents=True, exist_ok=True)
    (out / 'walk.md').write_text(table + '\n')
    if bench_filter:
        patched = trees.git(cache / 'linux.git', 'rev-parse',
                            'patched').stdout.strip()
        text = (f'Which patch moved each benchmark ({bench_filter}, '
                f'{clock} clock, {boots} boots a prefix; walk of patched '
                f'{patched[:12]}):\n' + attribution(steps))
        (out / 'attribution.md').write_text(text + '\n')
        if lane == 'main':
            # Beside the trees it measured, for make report in any clone.
            (cache / ATTRIBUTION).write_text(text + '\n')
        print(text)
    details = []
    last: Optional[Step] = None
    for step in steps:
        if step.outcomes is None:
            continue
        if last is not None:
            details += [f'{step.subject}: {c} {a} -> {b}'
                        for c, a, b in changed(last.outcomes or {},
                                               step.outcomes)]
        last = step
    (out / 'changes.txt').write_text(''.join(d + '\n' for d in details))
    print(table)
    print(f'every change listed in {out / "changes.txt"}')
    wrong = [s for s in steps if other_reasons(s)]
    if wrong:
        print(f'walk: {len(wrong)} prefix(es) with a case that fails for '
              f'another reason than the manifest\'s (see the table)')
    return sum(s.outcomes is None for s in steps) + len(wrong)
