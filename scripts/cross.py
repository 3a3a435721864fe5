# SPDX-License-Identifier: GPL-2.0
"""Other architectures: the generic patches of the series (mm/, include/)
must not break them.

Every prefix of the series is built for x86_64 (the host's gcc) and
riscv64 (Debian's riscv64-linux-gnu cross compiler) with kunit.py and the
generic suites' config (kunit/generic.kunitconfig), in a worktree of its
own (trees/cross). Then the suites that are not arm64-specific run on
x86_64 QEMU on the base and the patched tree, under KVM when /dev/kvm
works and TCG otherwise, against the manifest's expectations.
"""

import fcntl
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import kunit_run
import manifest
import packages
import progress
import project
import trees
import walk
from project import SeriesError
from trees import Tree

TREE_NAME = 'cross'
CONFIG = project.KUNIT_DIR / 'generic.kunitconfig'
PACKAGES = ('gcc-riscv64-linux-gnu', 'qemu-system-x86')
# kunit.py filter for the generic suites: vmalloc_bulk_free,
# vmalloc_large_order, vmalloc_page_array.
GENERIC_GLOB = 'vmalloc_*'
KVM_CREATE_VM = 0xAE01


@dataclass(frozen=True)
class Arch:
    name: str
    kunit_arch: str
    cross_compile: str

    @property
    def compiler(self) -> str:
        return f'{self.cross_compile}gcc'


ARCHES = (Arch('x86_64', 'x86_64', ''),
          Arch('riscv64', 'riscv', 'riscv64-linux-gnu-'))


def kvm_works(device: str = '/dev/kvm') -> bool:
    """Whether this machine can create a KVM guest (not only open the
    device: nested setups may refuse KVM_CREATE_VM)."""
    try:
        fd = os.open(device, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        vm = fcntl.ioctl(fd, KVM_CREATE_VM, 0)
    except OSError:
        return False
    finally:
        os.close(fd)
    os.close(vm)
    return True


def qemu_refused(final: Path) -> Optional[str]:
    """QEMU's own first error when it stopped before the kernel printed a
    line (a run's test.log holds QEMU's output), else None."""
    path = final / 'test.log'
    log = path.read_text(errors='replace') if path.exists() else ''
    if 'Linux version' in log or 'TAP version' in log:
        return None
    errors = [line.strip() for line in log.splitlines()
              if line.startswith('qemu-system-')]
    return errors[0] if errors else None


def build_dir_name(arch: Arch) -> str:
    return f'.kunit-{arch.name}'


def command(action: str, arch: Arch, jobs: int, kvm: bool) -> List[str]:
    cmd = [sys.executable, 'tools/testing/kunit/kunit.py', action,
           f'--arch={arch.kunit_arch}', f'--build_dir={build_dir_name(arch)}']
    if arch.cross_compile:
        cmd.append(f'--cross_compile={arch.cross_compile}')
    if action in ('build', 'run'):
        cmd += [f'--kunitconfig={CONFIG}', '--make_options',
                f'CC=ccache {arch.compiler}', f'--jobs={jobs}']
    if action in ('run', 'exec'):
        cmd.append(f'--timeout={kunit_run.RUN_TIMEOUT_S}')
        if kvm:
            cmd.append('--qemu_args=-enable-kvm -cpu host')
    return cmd


def arm64_only(repo: Path, before: str, after: str) -> bool:
    """Whether after changes nothing outside arch/arm64 since before: kbuild
    for x86_64 or riscv64 never reads arch/arm64, so such a prefix compiles
    to the same objects as the one before it there."""
    paths = trees.git(repo, 'diff', '--name-only', before, after
                      ).stdout.split()
    return bool(paths) and all(p.startswith('arch/arm64/') for p in paths)


def build(tree: Tree, arch: Arch, cache: Path, log: Path) -> str:
    """Build the tree's current commit; '' or the compiler's first
    error."""
    build_dir = tree.path / build_dir_name(arch)
    with open(log, 'w') as out, \
            progress.Reporter(f'cross {arch.name}', log, build_dir):
        proc = subprocess.run(command('build', arch, os.cpu_count() or 1,
                                      False),
                              cwd=tree.path, env=kunit_run.build_env(cache),
                              stdout=out, stderr=subprocess.STDOUT,
                              check=False)
    if proc.returncode == 0:
        progress.record_objects(build_dir)
        return ''
    return kunit_run.first_error(log.read_text(errors='replace'))


def generic_expectations(tree: str) -> Dict[str, str]:
    """The manifest's expectation on tree for the generic suites."""
    return {case: getattr(e, tree) for case, e in
            manifest.load(project.MANIFEST).items()
            if kunit_run.matching({case: ''}, [GENERIC_GLOB + '.*'])}


def differences(expected: Dict[str, str], got: Dict[str, str]
                ) -> List[str]:
    return [f'{case}: expected {want}, got {got.get(case, "missing")}'
            for case, want in sorted(expected.items())
            if got.get(case, 'missing') != want]


def render_builds(rows: Sequence[Tuple[str, Dict[str, str]]]) -> str:
    lines = ['| prefix | ' + ' | '.join(a.name for a in ARCHES) + ' |',
             '|---|' + '---|' * len(ARCHES)]
    for subject, errors in rows:
        cells = [errors[a.name] or 'builds' for a in ARCHES]
        lines.append(f'| {subject} | ' + ' | '.join(cells) + ' |')
    broken = sum(bool(e) for _, errs in rows for e in errs.values())
    lines.append(f'{len(rows)} prefixes x {len(ARCHES)} architectures: '
                 f'{broken} do not build')
    return '\n'.join(lines)


def run(cache: Path, the_trees: Dict[str, Tree],
        kvm: Optional[bool] = None) -> int:
    """Returns the number of failures (builds and suite differences)."""
    packages.ensure(PACKAGES)
    out = project.RESULTS / 'cross'
    out.mkdir(parents=True, exist_ok=True)
    tree = trees.scratch_worktree(cache, TREE_NAME, 'base')
    rows = []
    previous: Optional[Tuple[str, Dict[str, str]]] = None
    for commit, subject in walk.prefixes(cache / 'linux.git'):
        if previous and arm64_only(cache / 'linux.git', previous[0], commit):
            print(f'cross: {commit[:12]} {subject}: arch/arm64 only, '
                  'same objects as the prefix above', flush=True)
            rows.append((f'{subject} (arch/arm64 only: as above)',
                         dict(previous[1])))
            previous = (commit, previous[1])
            continue
        trees.git(tree.path, 'checkout', '-q', '--detach', commit)
        errors = {}
        for arch in ARCHES:
            print(f'cross: {commit[:12]} {subject}: {arch.name}', flush=True)
            errors[arch.name] = build(tree, arch, cache,
                                      out / f'{arch.name}-{commit[:12]}.log')
        rows.append((subject, errors))
        previous = (commit, errors)
    failures = sum(bool(e) for _, errs in rows for e in errs.values())
    text = [render_builds(rows)]

    kvm = kvm_works() if kvm is None else kvm
    accel = 'KVM' if kvm else 'TCG'
    x86 = ARCHES[0]
    for name in ('base', 'patched'):
        def run_suites(use_kvm: bool) -> Path:
            return kunit_run.execute(
                the_trees[name], f'{x86.name} suites', f'{name}-{x86.name}',
                command('run', x86, os.cpu_count() or 1, use_kvm)
                + [GENERIC_GLOB], cache, f'.kunit-{x86.name}')

        final = run_suites(kvm)
        refused = qemu_refused(final) if kvm else None
        if refused:
            # A KVM guest can be created but not run (nested setups).
            kvm, accel = False, f'TCG, as KVM failed: {refused}'
            print(f'cross: x86_64 QEMU under KVM failed ({refused}); '
                  'running under TCG', flush=True)
            final = run_suites(False)
        got, _ = kunit_run.outcomes_of(final, the_trees[name].path,
                                       f'.kunit-{x86.name}')
        diff = differences(generic_expectations(name), got)
        failures += len(diff)
        text.append(f'{name} tree on x86_64 QEMU ({accel})'
                    f': {len(got)} generic cases, {len(diff)} differ from '
                    'the manifest' + ''.join(f'\n  {d}' for d in diff))
    report = '\n'.join(text)
    (out / 'report.txt').write_text(report + '\n')
    print(report)
    if failures:
        raise SeriesError(f'other architectures: {failures} failure(s), '
                          f'see {out / "report.txt"}')
    return 0
