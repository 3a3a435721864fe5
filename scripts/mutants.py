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
"""

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import kernel_log
import kunit_run
import project
import results
import trees
from project import SeriesError
from trees import Tree

MUTANTS_DIR = project.KUNIT_DIR / 'mutants'
TABLE = MUTANTS_DIR / 'mutants.tsv'
TREE_NAME = 'mutant'


@dataclass(frozen=True)
class Mutant:
    name: str
    lane: str
    patterns: Tuple[str, ...]

    @property
    def patch(self) -> Path:
        return MUTANTS_DIR / f'{self.name}.patch'

    def what(self) -> str:
        """The patch's first line: the change it undoes."""
        return self.patch.read_text().split('\n', 1)[0]


def load(path: Path = TABLE) -> List[Mutant]:
    mutants: List[Mutant] = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith('#'):
            continue
        fields = line.split('\t')
        where = f'{path.name}:{number}'
        if len(fields) != 3 or not all(f.strip() for f in fields):
            raise SeriesError(f'{where}: expected "mutant<TAB>lane<TAB>'
                              f'cases", got {line!r}')
        name, lane, cases = fields
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


def killed_by(mutant: Mutant, outcomes: Dict[str, str]) -> List[str]:
    """The named cases that did not pass."""
    return sorted(case for case, outcome in
                  kunit_run.matching(outcomes, mutant.patterns).items()
                  if outcome != 'pass')


def worktree(cache: Path) -> Tree:
    """trees/mutant, detached at the patched branch, clean."""
    path = cache / 'trees' / TREE_NAME
    repo = cache / 'linux.git'
    if not (path / '.git').exists():
        trees.git(repo, 'worktree', 'prune')
        trees.git(repo, 'worktree', 'add', '--detach', str(path), 'patched')
    reset(path)
    return Tree(TREE_NAME, path)


def reset(path: Path) -> None:
    # Only files a mutant touched change, so make rebuilds only those.
    trees.git(path, 'reset', '-q', '--hard', 'patched')


def apply(tree: Tree, mutant: Mutant) -> None:
    proc = subprocess.run(['git', 'apply', str(mutant.patch)], cwd=tree.path,
                          capture_output=True, text=True, check=False)
    if proc.returncode:
        raise SeriesError(f'mutant {mutant.name} does not apply to the '
                          'patched tree: '
                          + project.last_line(proc.stderr, 'git apply failed'))


def command(mutant: Mutant, jobs: int) -> List[str]:
    cmd = kunit_run.kunit_command(mutant.lane, jobs)
    glob = kunit_run.suite_filter(mutant.patterns)
    return cmd + [glob] if glob else cmd


def run_one(tree: Tree, mutant: Mutant, cache: Path) -> Dict[str, str]:
    """Apply, build, boot; each case's outcome with the log checks."""
    apply(tree, mutant)
    try:
        print(f'mutant {mutant.name}: building and running lane '
              f'{mutant.lane}', flush=True)
        final = kunit_run.execute(
            tree, f'mutant {mutant.name}', f'mutant-{mutant.name}',
            command(mutant, os.cpu_count() or 1), cache,
            kunit_run.build_dir_name(mutant.lane))
    finally:
        reset(tree.path)
    log = final / 'test.log'
    outcomes, _ = kernel_log.apply(
        results.load(final / 'results.json'),
        log.read_text(errors='replace') if log.exists() else '',
        kernel_log.load_expected(project.WARNINGS))
    return outcomes


def render(rows: Sequence[Tuple[Mutant, List[str]]]) -> str:
    lines = ['| mutant | lane | what it undoes | killed by | verdict |',
             '|---|---|---|---|---|']
    for mutant, kills in rows:
        shown = ', '.join(kills[:3]) + (f' (+{len(kills) - 3})'
                                        if len(kills) > 3 else '')
        lines.append(f'| {mutant.name} | {mutant.lane} | {mutant.what()} | '
                     f'{shown or "-"} | {"killed" if kills else "SURVIVED"} |')
    killed = sum(bool(k) for _, k in rows)
    lines.append(f'{len(rows)} mutants: {killed} killed, '
                 f'{len(rows) - killed} survived')
    return '\n'.join(lines)


def run(cache: Path, names: Sequence[str] = ()) -> int:
    """Every (or each named) mutant; returns the number that survived."""
    chosen = select(load(), names)
    tree = worktree(cache)
    rows = [(m, killed_by(m, run_one(tree, m, cache))) for m in chosen]
    table = render(rows)
    out = project.RESULTS / 'mutants'
    out.mkdir(parents=True, exist_ok=True)
    (out / 'kill-table.md').write_text(table + '\n')
    print(table)
    return sum(not k for _, k in rows)
