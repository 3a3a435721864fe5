# SPDX-License-Identifier: GPL-2.0
"""The schema kernel of a make mutate run: built once with every mutant
to judge behind its switch, booted once with mm_mutant=0 per lane (the
patched kernel: its matrix must be make test's, cell for cell, and its
reach says which mutants a case runs), then once per reached mutant.
"""

import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

import kernel_log
import kunit_run
import manifest
import mutants
import mutate_gen
import project
import trees
import verify
from mutate_gen import Mutation
from mutation import reach, schema, schema_tree
from project import SeriesError
from trees import Tree

TREE_NAME = 'schema'
LANE = 'main'            # the 4K lanes all boot the main lane's kernel
MAX_PASSES = 4
# The schema kernel's boots hang as a mutant's own kernel does.
BOOT_S = mutants.BOOT_S
STALL_S = mutants.STALL_S


@dataclass
class Built:
    tree: Tree
    where: Dict[int, schema.Placement]
    carried: int                # the highest id in the kernel
    seconds: float
    passes: int


def worktree(cache: Path) -> Tree:
    """trees/schema at the patched branch; files an earlier schema wrote
    stay as they are until written again (an unchanged one keeps its
    mtime, so make rebuilds only what changed)."""
    tree = trees.scratch_worktree(cache, TREE_NAME, 'patched')
    head = project.git(tree.path, 'rev-parse', 'HEAD').stdout.strip()
    want = project.git(tree.path, 'rev-parse', 'patched').stdout.strip()
    if head != want:
        project.git(tree.path, 'checkout', '-q', '--detach', '--force',
                    'patched')
    return tree


def _build(tree: Tree, cache: Path, lane: str = LANE
           ) -> subprocess.CompletedProcess:
    known = kunit_run.LANES[lane]
    cmd = kunit_run.tool_command('build', kunit_run.build_dir_name(lane),
                                 known.configs, os.cpu_count() or 1,
                                 qemu_config=known.qemu_config)
    return subprocess.run(cmd + ['--make_options=-k'], cwd=tree.path,
                          capture_output=True, text=True,
                          env=kunit_run.build_env(cache))


def build(cache: Path, chosen: Sequence[Tuple[int, Mutation]],
          lane: str = LANE) -> Built:
    """The schema tree written and built with the lane's configuration
    (the 4K lanes share the main lane's kernel; a granule lane has its
    own); mutants whose guarded text does not compile (or warns) are
    switched off, pass after pass."""
    tree = worktree(cache)
    files = sorted({m.file for _, m in chosen})
    patched = {f: mutate_gen.lines_of(project.git(
        tree.path, 'show', f'patched:{f}').stdout) for f in files}
    hooked = {f: project.git(tree.path, 'show', f'patched:{f}').stdout
              for f, _, _ in schema_tree.HOOKS}
    # Files an earlier schema changed that this one does not: back.
    stale = [f for f in project.git(tree.path, 'diff', '--name-only',
                                    'patched').stdout.split()
             if f not in files and f not in hooked and f != 'mm/Makefile']
    if stale:
        project.git(tree.path, 'checkout', '-q', 'patched', '--', *stale)
    off: Dict[int, str] = {}
    start = time.monotonic()
    carried = max((n for n, _ in chosen), default=0)
    for attempt in range(1, MAX_PASSES + 1):
        texts, where = schema_tree.placed(chosen, patched, off)
        schema_tree.write(tree.path, texts, carried, hooked)
        guarded = len(schema_tree.guarded_ids(texts))
        print(f'schema: building {guarded} mutants into one kernel '
              + ('' if lane == LANE else f'for lane {lane} ')
              + f'(pass {attempt})', flush=True)
        proc = _build(tree, cache, lane)
        output = proc.stdout + proc.stderr
        log = project.RESULTS / 'mutate' / (
            f'schema-pass-{attempt}.log' if lane == LANE
            else f'schema-{lane}-pass-{attempt}.log')
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(output)
        new, unplaced = schema_tree.failing_ids(output, texts)
        new = {n: why for n, why in new.items() if n not in off}
        if not proc.returncode and not new:
            return Built(tree, {p.id: p for p in where}, carried,
                         time.monotonic() - start, attempt)
        if not new:
            raise SeriesError('the schema tree does not build: ' + (
                unplaced[0] if unplaced else kunit_run.first_error(output)))
        print(f'schema: {len(new)} mutants do not compile guarded (or '
              f'warn), each left to a build of its own (see {log})',
              flush=True)
        off.update(new)
    raise SeriesError(f'the schema tree does not build after {MAX_PASSES} '
                      'passes')


@dataclass
class Boot:
    outcomes: Dict[str, str]
    reach: reach.Reach
    final: Path
    seconds: float


def boot(built: Built, cache: Path, lane: str, n: int,
         glob: Optional[str], run_name: str) -> Boot:
    """One boot of the schema kernel with mm_mutant=n on the lane, its
    filter narrowed to glob when given."""
    if not 0 <= n <= built.carried:
        raise SeriesError(f'mutant {n}: the schema kernel carries 1 to '
                          f'{built.carried}')
    known = kunit_run.LANES[lane]
    build_dir = kunit_run.build_dir_name(lane)
    cmd = kunit_run.tool_command('exec', build_dir, known.configs, 1,
                                 qemu_config=known.qemu_config,
                                 kernel_args=(*known.kernel_args,
                                              f'mm_mutant={n}'))
    if known.attributes:
        cmd.append(f'--filter={known.attributes}')
    glob = glob or known.filter
    if glob:
        cmd.append(glob)
    start = time.monotonic()
    if mutants.BOOT_WITH_LAVA:
        final = lava_boot(built, lane, n, glob, run_name)
    else:
        final = kunit_run.execute(built.tree, f'schema kernel, mutant {n}, '
                                  f'lane {lane}', run_name, cmd, cache,
                                  build_dir, boot_s=BOOT_S, stall_s=STALL_S)
    outcomes = kernel_log.cases_reported(kunit_run.outcomes_of(
        final, built.tree.path, build_dir)[0])
    log = final / 'test.log'
    said = reach.parse(log.read_text(errors='replace')) if log.exists() \
        else reach.Reach()
    if said.refused:
        raise SeriesError(f'mutant {n}: the schema kernel does not carry it')
    if outcomes and said.mutant != n:
        raise SeriesError(f'mutant {n}: the schema kernel did not say it '
                          f'ran mutant {n} (said {said.mutant})')
    return Boot(outcomes, said, final, time.monotonic() - start)


# make mutate LAVA=1: the schema kernel is one artifact, and each boot a
# job of it with its own mm_mutant=N (build/lava/schema/<tree>-<lane>/jobs/),
# run here by lava-run; a lab takes the same files (make lava-submit).
LAVA_OUT = project.RESULTS / 'lava' / 'schema'


def lava_boot(built: Built, lane: str, n: int, glob: Optional[str],
              run_name: str) -> Path:
    """Mutant n's boot as a LAVA job of the schema kernel; the run
    directory of its console (a crash or a hang ends the job, and is
    judged as in a kunit.py run)."""
    import lava
    c = lava.cell(built.tree, lane, manifest.load(project.MANIFEST), glob,
                  mutants.LAVA_MINUTES, extra=(f'mm_mutant={n}',))
    d = lava.write_artifact(c, LAVA_OUT)
    job = lava.write_job(d, f'mutant-{n}' + (
        '-' + re.sub(r'[^\w-]', '_', glob) if glob else ''), c)
    run, _ = lava.lava_run(d, n + 1, (2 * mutants.LAVA_MINUTES + 10) * 60,
                           job)
    return lava.results_dir(built.tree, run, run_name,
                            failed_job_counts=True)


def id0_rows(outcomes: Dict[str, str], lane: str,
             expected: Dict[str, manifest.Expectation]) -> List[verify.Row]:
    """The matrix of a boot with id 0 against the patched column of the
    lane (the cases of the lane's filter)."""
    column = 'patched' + ('' if lane == manifest.MAIN_LANE else f'+{lane}')
    wanted = {c: e for c, e in expected.items()
              if kunit_run.in_scope(lane, c)}
    return verify.compare(wanted, {column: outcomes}, [column])


def not_covered(reached: Set[int], n: int) -> bool:
    return n not in reached
