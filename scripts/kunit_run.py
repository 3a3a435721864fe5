# SPDX-License-Identifier: GPL-2.0
"""Build a tree and run the suites with the tree's own kunit.py on arm64
QEMU, keeping the KTAP log, kunit.py's JSON and the .config of every run."""

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import kernel_log
import project
import results
from project import SeriesError
from trees import Tree

CROSS_COMPILE = 'aarch64-linux-gnu-'
# Kernel config fragments per lane; each lane has its own build directory.
LANES: Dict[str, Sequence[Path]] = {
    'main': (project.KUNITCONFIG,),
    'ptc': (project.KUNITCONFIG,
            project.KUNIT_DIR / 'page_table_check.kunitconfig'),
}
# kunit.py's --timeout covers the boot and the suites, not the build.
RUN_TIMEOUT_S = 900


def build_dir_name(lane: str) -> str:
    # A direct child of the tree: Kbuild then uses srctree "..", so the
    # compiler sees the same relative paths in base and patched and ccache
    # serves one tree's objects to the other.
    return f'.kunit-{lane}'


def tool_command(action: str, build_dir: str, configs: Sequence[Path],
                 jobs: int) -> List[str]:
    """The tree's kunit.py for arm64 QEMU; "run" builds first (with the
    config fragments, through ccache), "exec" only boots what is built."""
    cmd = [sys.executable, 'tools/testing/kunit/kunit.py', action,
           '--arch=arm64', f'--cross_compile={CROSS_COMPILE}',
           f'--build_dir={build_dir}',
           f'--qemu_config={project.QEMU_CONFIG}',
           f'--timeout={RUN_TIMEOUT_S}']
    if action == 'run':
        cmd += [*[f'--kunitconfig={k}' for k in configs],
                '--make_options', f'CC=ccache {CROSS_COMPILE}gcc',
                f'--jobs={jobs}']
    return cmd


def suite_filter(patterns: Sequence[str]) -> Optional[str]:
    """kunit.py's filter glob for case patterns (suite.case.param, fnmatch)
    when they all name one suite: boot only that suite. kunit.filter_glob
    takes a single glob, so patterns of several suites run everything."""
    suites = {p.split('.', 1)[0] for p in patterns}
    if len(suites) == 1:
        suite = suites.pop()
        if not any(c in suite for c in '*?['):
            return suite
    return None


def matching(outcomes: Dict[str, str], patterns: Sequence[str]
             ) -> Dict[str, str]:
    """The outcomes of the cases any of the patterns matches."""
    return {case: outcome for case, outcome in outcomes.items()
            if any(fnmatch.fnmatchcase(case, p) for p in patterns)}


def kunit_command(lane: str, jobs: int) -> List[str]:
    return tool_command('run', build_dir_name(lane), LANES[lane], jobs)


def build_env(cache: Path) -> Dict[str, str]:
    return dict(os.environ,
                CCACHE_DIR=str(cache / 'ccache'), CCACHE_MAXSIZE='10G',
                # Same build identity on both trees: identical objects.
                KBUILD_BUILD_TIMESTAMP='2025-11-10', KBUILD_BUILD_USER='kunit',
                KBUILD_BUILD_HOST='arm64-mm-series')


def first_error(output: str) -> str:
    """The line a user needs first: the compiler's error, else kunit.py's."""
    for pattern in (r'^\S+:\d+:\d+: (?:fatal )?error: .*$',
                    r'^.*\berror\b.*$', r'^ERROR:.*$'):
        found = re.search(pattern, output, re.M | re.I)
        if found:
            return found.group(0).strip()
    return project.last_line(output, 'no output')


def execute(tree: Tree, what: str, run_name: str, cmd: List[str],
            cache: Path, build_dir: str) -> Path:
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
        proc = subprocess.run([*cmd, f'--json={json_path}'], cwd=tree.path,
                              env=build_env(cache), stdout=out,
                              stderr=subprocess.STDOUT, check=False)
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
    shutil.rmtree(final, ignore_errors=True)
    os.replace(tmp, final)
    return final


def run(tree: Tree, lane: str, cache: Path, jobs: int = 0) -> Dict[str, str]:
    """Build and run one lane on one tree; return each case's outcome, with
    the kernel log's verdict folded in (kernel_log.py)."""
    print(f'{tree.name} tree: building and running lane {lane}', flush=True)
    final = execute(tree, f'lane {lane}', f'{tree.name}-{lane}',
                    kunit_command(lane, jobs or os.cpu_count() or 1),
                    cache, build_dir_name(lane))
    log = final / 'test.log'
    outcomes, notes = kernel_log.apply(
        results.load(final / 'results.json'),
        log.read_text(errors='replace') if log.exists() else '',
        kernel_log.load_expected(project.WARNINGS))
    (final / 'log-checks.txt').write_text(''.join(n + '\n' for n in notes))
    for note in notes:
        print(f'{tree.name} tree, lane {lane}: kernel log: {note}')
    return outcomes
