#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A `git bisect run` helper for any kernel git tree with the series'
suites: builds the commit under test with kunit.py for arm64 QEMU, boots
it, and answers git bisect with its exit code:

    0    every chosen case passed
    1    a chosen case failed, crashed or was skipped
    125  the kernel did not build, the boot did not reach KUnit, or no
         chosen case ran (git bisect skips the commit)
    128  bad usage or a broken setup (git bisect run stops)

    cd linux && git bisect start BAD GOOD
    git bisect run /path/to/repo/scripts/bisect_run.py \\
        --cases 'vmalloc_bulk_free.*hold_*' [--lane main] [--glue]

--glue copies the suites (kunit/, lib/) into the tree before the build and
takes them out again afterwards, for trees whose history does not carry
them; without it the commit under test must have them (our trees do, from
the suites commit on). The chosen cases are fnmatch patterns of
suite.case.param; the kernel-log checks of kunit/warnings.tsv apply.
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Sequence

import kunit_run
import manifest
import project
import trees
from project import SeriesError
from trees import Tree

GOOD, BAD, SKIP, ABORT = 0, 1, 125, 128


class Untestable(Exception):
    """The commit cannot be judged: git bisect should skip it."""


def verdict(outcomes: Dict[str, str], patterns: Sequence[str]) -> int:
    chosen = kunit_run.matching(outcomes, patterns)
    if not chosen:
        raise Untestable('no chosen case ran')
    return GOOD if all(o == 'pass' for o in chosen.values()) else BAD


def unglue(tree: Path) -> None:
    """Put the tree back as the commit has it."""
    paths = [*trees.SUITES_HOOKS, *project.TREE_SUITE_DIRS.values()]
    tracked = [p for p in paths if trees.git(
        tree, 'ls-tree', '--name-only', 'HEAD', '--', p).stdout.strip()]
    if tracked:
        trees.git(tree, 'checkout', '-q', 'HEAD', '--', *tracked)
    trees.git(tree, 'clean', '-fdq', '--', *project.TREE_SUITE_DIRS.values())


def test_commit(tree: Path, lane: str, patterns: Sequence[str],
                glue: bool) -> int:
    head = trees.git(tree, 'rev-parse', '--short=12', 'HEAD').stdout.strip()
    cmd = kunit_run.kunit_command(lane, os.cpu_count() or 1)
    glob = kunit_run.suite_filter(patterns)
    if glob:
        cmd.append(glob)
    if glue:
        trees.glue_suites(tree)
    try:
        final = kunit_run.execute(Tree('bisect', tree), f'commit {head}',
                                  f'bisect-{head}', cmd, project.CACHE,
                                  kunit_run.build_dir_name(lane))
    except SeriesError as e:
        raise Untestable(str(e)) from None
    finally:
        if glue:
            unglue(tree)
    outcomes, _ = kunit_run.outcomes_of(final, tree,
                                        kunit_run.build_dir_name(lane))
    code = verdict(outcomes, patterns)
    failed = sorted(c for c, o in kunit_run.matching(outcomes,
                                                     patterns).items()
                    if o != 'pass')
    print(f'bisect: {head}: ' + (f'bad ({len(failed)} failed, first '
                                 f'{failed[0]})' if failed else 'good'))
    return code


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--cases', required=True,
                        help='comma-separated fnmatch patterns of '
                             'suite.case.param')
    parser.add_argument('--lane', default='main',
                        choices=sorted(kunit_run.LANES))
    parser.add_argument('--tree', type=Path, default=Path.cwd(),
                        help='the kernel tree (default: the current dir)')
    parser.add_argument('--glue', action='store_true',
                        help="copy the suites in for the run")
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        # argparse's exit code 2 would read as "bad" to git bisect.
        return ABORT
    patterns = [p.strip() for p in args.cases.split(',') if p.strip()]
    if not patterns:
        print('error: --cases names no case', file=sys.stderr)
        return ABORT
    known = manifest.load(project.MANIFEST)
    if not kunit_run.matching(dict.fromkeys(known, ''), patterns):
        print(f'error: no case of {project.MANIFEST.name} matches '
              f'{args.cases!r}', file=sys.stderr)
        return ABORT
    try:
        if not (args.tree / 'tools/testing/kunit/kunit.py').exists():
            raise SeriesError(f'{args.tree}: not a kernel tree (no '
                              'tools/testing/kunit/kunit.py)')
        # Never two kernel builds at once: wait for any other run.
        with project.build_lock(project.CACHE):
            return test_commit(args.tree.resolve(), args.lane, patterns,
                               args.glue)
    except Untestable as e:
        print(f'bisect: skip: {e}')
        return SKIP
    except (SeriesError, subprocess.SubprocessError, OSError) as e:
        print(f'error: {e}', file=sys.stderr)
        return ABORT


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
