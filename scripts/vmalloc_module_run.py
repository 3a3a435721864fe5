# SPDX-License-Identifier: GPL-2.0
"""The reference: the kernel's own lib/test_vmalloc.ko, as the seeds ran
it, on base and patched.

The main lane's kernel of each tree (which lib/bench.kunitconfig gives
CONFIG_MODULES and CONFIG_TEST_VMALLOC=m) is booted by QEMU directly, not by kunit.py,
with kunit.enable=0 and an initramfs made of Debian's arm64 busybox-static
and the tree's test_vmalloc.ko. Its /init loads the module once per
parameter set (the seeds' fix_size p x h grid, then the other tests in one
load), writing a marker to the kernel log before each load so that each
"Summary:" line can be tied to its parameters. busybox's insmod runs each
load twice: it tries finit_module() and, when the module's init fails (as
test_vmalloc's always does, with -EAGAIN, to unload itself), init_module().
Boots alternate A B A B, as for the harness; each boot gives one
observation per test, the mean of its runs.
"""

import ast
import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import bench
import bench_run
import kunit_run
import packages
import project
import tcg_counts
import vmalloc_module_log
from project import SeriesError
from trees import Tree

BUSYBOX = 'busybox-static:arm64'
BUSYBOX_APPLETS = ('sh', 'mount', 'insmod', 'poweroff', 'cat')
QEMU = 'qemu-system-aarch64'
MARK = 'mm_series_tv:'
# test_vmalloc's run_test_mask bits (lib/test_vmalloc.c in 6.12).
TEST_IDS = {
    'fix_size_alloc_test': 1, 'full_fit_alloc_test': 2,
    'long_busy_list_alloc_test': 4, 'random_size_alloc_test': 8,
    'fix_align_alloc_test': 16, 'random_size_align_alloc_test': 32,
    'pcpu_alloc_test': 128, 'kvfree_rcu_1_arg_vmalloc_test': 256,
    'kvfree_rcu_2_arg_vmalloc_test': 512, 'vm_map_ram_test': 1024,
}
# align_shift_alloc_test (64) is left out: it is meant to fail.
FIX_SIZE_PAGES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
# Loops per test: the seeds' 500000 in full; quick and smoke as small as
# still gives a run well above the clock's resolution under TCG.
LOOPS = {'smoke': 2, 'quick': 5000, 'full': 500000}
TIMEOUT_S = {'smoke': 300, 'quick': 900, 'full': 6 * 3600}


@dataclass(frozen=True)
class Load:
    """One insmod: a run_test_mask with nr_pages and use_huge."""
    mask: int
    pages: int
    huge: bool

    @property
    def params(self) -> str:
        # The harness's parameter spelling, so that the rows match.
        return f'p={self.pages} h={int(self.huge)}'

    def args(self, loops: int) -> str:
        return (f'nr_threads=1 sequential_test_order=1 '
                f'run_test_mask={self.mask} nr_pages={self.pages} '
                f'use_huge={int(self.huge)} test_loop_count={loops}')


def loads() -> List[Load]:
    """The seeds' grid: fix_size at p x h, then every other test once."""
    fix = [Load(TEST_IDS['fix_size_alloc_test'], p, h)
           for h in (False, True) for p in FIX_SIZE_PAGES]
    others = sum(v for k, v in TEST_IDS.items()
                 if k != 'fix_size_alloc_test')
    return fix + [Load(others, 1, False)]


# The TCG plugin's window markers (scripts/tcg_plugin/mm_counts.c), run
# around each insmod by two programs of the initramfs.
WINDOW_OPEN, WINDOW_CLOSE = '/bin/mm_window_open', '/bin/mm_window_close'


def window_program(hint: int) -> bytes:
    """A static arm64 ELF program that executes HINT #hint (a NOP to the
    CPU, a window marker to the plugin) and exits 0: made here, so that
    no arm64 libc or assembler is needed."""
    code = b''.join(i.to_bytes(4, 'little') for i in (
        0xd503201f | (hint << 5),       # hint #hint
        0xd2800000,                     # mov x0, #0
        0xd2800ba8,                     # mov x8, #93 (exit)
        0xd4000001))                    # svc #0
    base, header = 0x400000, 64 + 56
    ehdr = (b'\x7fELF\x02\x01\x01' + b'\0' * 9 +
            (2).to_bytes(2, 'little') + (183).to_bytes(2, 'little') +
            (1).to_bytes(4, 'little') +
            (base + header).to_bytes(8, 'little') +     # e_entry
            (64).to_bytes(8, 'little') +                # e_phoff
            (0).to_bytes(8, 'little') +                 # e_shoff
            (0).to_bytes(4, 'little') +                 # e_flags
            (64).to_bytes(2, 'little') + (56).to_bytes(2, 'little') +
            (1).to_bytes(2, 'little') + (0).to_bytes(2, 'little') +
            (0).to_bytes(2, 'little') + (0).to_bytes(2, 'little'))
    size = header + len(code)
    phdr = ((1).to_bytes(4, 'little') + (5).to_bytes(4, 'little') +  # LOAD, R+X
            (0).to_bytes(8, 'little') + base.to_bytes(8, 'little') +
            base.to_bytes(8, 'little') + size.to_bytes(8, 'little') +
            size.to_bytes(8, 'little') + (0x10000).to_bytes(8, 'little'))
    return ehdr + phdr + code


def init_script(the_loads: Sequence[Load], loops: int,
                windows: bool = False) -> str:
    """The initramfs' /init: one insmod per load; with windows, each in a
    plugin window, after one of a load that runs no test (the cost of
    loading and unloading the module, which each load's window also
    holds)."""
    lines = ['#!/bin/sh', 'mount -t proc proc /proc']

    def insmod(args: str) -> List[str]:
        # test_vmalloc's init returns -EAGAIN on purpose, hence insmod's
        # failure is expected.
        run = f'insmod /test_vmalloc.ko {args} 2>/dev/null'
        return [WINDOW_OPEN, run, WINDOW_CLOSE] if windows else [run]

    if windows:
        lines += insmod(Load(0, 1, False).args(loops))
    for n, load in enumerate(the_loads):
        # The marker goes through printk, so it is ordered with the
        # module's own lines.
        lines += [f'echo "{MARK} load {n} {load.params}" > /dev/kmsg',
                  *insmod(load.args(loops))]
    lines += [f'echo "{MARK} done" > /dev/kmsg', 'poweroff -f']
    return '\n'.join(lines) + '\n'


def cpio_newc(entries: Sequence[Tuple[str, int, bytes, Tuple[int, int]]]
              ) -> bytes:
    """An uncompressed newc archive of (name, mode, data, rdev) entries."""
    out = bytearray()

    def add(name: str, mode: int, data: bytes, rdev: Tuple[int, int],
            ino: int) -> None:
        raw = name.encode() + b'\0'
        fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
                  len(raw), 0)
        out.extend(b'070701' + b''.join(b'%08X' % f for f in fields) + raw)
        out.extend(b'\0' * (-len(out) % 4))
        out.extend(data)
        out.extend(b'\0' * (-len(out) % 4))

    for ino, (name, mode, data, rdev) in enumerate(entries, 1):
        add(name, mode, data, rdev, ino)
    add('TRAILER!!!', 0, b'', (0, 0), 0)
    return bytes(out)


def initramfs(busybox: bytes, module: bytes, script: str) -> bytes:
    dirs = [(d, 0o40755, b'', (0, 0)) for d in ('bin', 'dev', 'proc')]
    links = [(f'bin/{a}', 0o120777, b'busybox', (0, 0))
             for a in BUSYBOX_APPLETS]
    # The kernel opens /dev/console for init; /dev/kmsg takes the markers.
    nodes = [('dev/console', 0o20600, b'', (5, 1)),
             ('dev/kmsg', 0o20644, b'', (1, 11))]
    return cpio_newc(dirs + nodes + links + [
        ('bin/busybox', 0o100755, busybox, (0, 0)),
        (WINDOW_OPEN[1:], 0o100755, window_program(0x70), (0, 0)),
        (WINDOW_CLOSE[1:], 0o100755, window_program(0x71), (0, 0)),
        ('test_vmalloc.ko', 0o100644, module, (0, 0)),
        ('init', 0o100755, script.encode(), (0, 0))])


def is_arm64_elf(data: bytes) -> bool:
    # ELF magic, 64-bit, little endian, e_machine EM_AARCH64 (183).
    return (data[:4] == b'\x7fELF' and data[4] == 2 and data[5] == 1 and
            int.from_bytes(data[18:20], 'little') == 183)


def busybox(cache: Path) -> bytes:
    """Debian's static arm64 busybox, fetched once with apt (which checks
    it against the archive's signed indexes) into the cache."""
    binary = cache / 'busybox-arm64' / 'bin' / 'busybox'
    if not binary.exists():
        packages.ensure_foreign_arch('arm64')
        tmp = Path(tempfile.mkdtemp(prefix='.busybox-', dir=cache))
        try:
            project.run(['apt-get', 'download', BUSYBOX],
                        f'apt-get download {BUSYBOX}', cwd=tmp)
            debs = list(tmp.glob('busybox-static_*_arm64.deb'))
            if len(debs) != 1:
                raise SeriesError(f'apt-get download {BUSYBOX}: no .deb')
            project.run(['dpkg-deb', '-x', str(debs[0]), str(tmp / 'root')],
                        'dpkg-deb -x busybox-static')
            if not is_arm64_elf((tmp / 'root/bin/busybox').read_bytes()):
                raise SeriesError(f'{BUSYBOX}: bin/busybox is not an '
                                  'arm64 ELF binary')
            shutil.rmtree(binary.parent.parent, ignore_errors=True)
            os.replace(tmp / 'root', binary.parent.parent)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    data = binary.read_bytes()
    if not is_arm64_elf(data):
        raise SeriesError(f'corrupted cache: {binary} is not an arm64 ELF '
                          'binary; delete it to fetch it again')
    return data


def machine_args() -> List[str]:
    """-machine, -cpu, -smp and -m as the project's kunit.py QEMU config
    gives them, read from that file so that the two cannot drift."""
    tree = ast.parse(project.QEMU_CONFIG.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == 'extra_qemu_params':
            return [str(a) for a in ast.literal_eval(node.value)]
    raise SeriesError(f'{project.QEMU_CONFIG}: no extra_qemu_params')


def qemu_command(image: Path, initrd: Path, clock: str, boot: int = 0
                 ) -> List[str]:
    # As kunit.py starts QEMU: no default devices, the console on stdio;
    # the clock's arguments last, as kunit.py puts --qemu_args (QEMU takes
    # the last -smp).
    return [QEMU, '-nodefaults', '-nographic', '-serial', 'stdio',
            '-no-reboot', *machine_args(),
            *bench_run.qemu_args(clock, boot),
            '-kernel', str(image), '-initrd', str(initrd),
            '-append', ' '.join(('console=ttyAMA0 kunit.enable=0',
                                 'rdinit=/init panic=-1 oops=panic',
                                 *kunit_run.MAIN_ARGS))]


def parse_boot(log: str, the_loads: Sequence[Load]) -> bench.Samples:
    """Each load's Summary lines, keyed as the harness keys its rows; an
    error names the first load that did not report, or a failed test."""
    if f'{MARK} done' not in log:
        raise SeriesError('the boot did not reach the end of its loads: '
                          + project.last_line(log, 'no console output'))
    samples: bench.Samples = {}
    chunks = log.split(f'{MARK} load ')[1:]
    if len(chunks) != len(the_loads):
        raise SeriesError(f'{len(chunks)} load markers, expected '
                          f'{len(the_loads)}')
    for n, (chunk, load) in enumerate(zip(chunks, the_loads)):
        found = vmalloc_module_log.parse(chunk)
        expected = {k for k, v in TEST_IDS.items() if load.mask & v}
        missing = sorted(expected - {s.test for s in found})
        if missing:
            raise SeriesError(f'load {n} ({load.params}): no Summary for '
                              f'{missing[0]}')
        for s in found:
            if s.failed or not s.passed:
                raise SeriesError(f'load {n} ({load.params}): {s.test} '
                                  f'failed {s.failed} time(s)')
            key = bench.Key('test_vmalloc', s.test, load.params, 'us')
            samples.setdefault(key, []).append(s.avg_usec)
    return samples


def runs_per_load(log: str, the_loads: Sequence[Load]) -> List[int]:
    """How many times each load ran its tests: the Summary lines of its
    first test (busybox's insmod runs the module's init twice)."""
    chunks = log.split(f'{MARK} load ')[1:]
    runs = []
    for chunk, load in zip(chunks, the_loads):
        first = next(t for t, bit in TEST_IDS.items() if load.mask & bit)
        runs.append(sum(s.test == first
                        for s in vmalloc_module_log.parse(chunk)))
    return runs


def load_counts(windows: Sequence['tcg_counts.Window'],
                the_loads: Sequence[Load], loops: int,
                runs: Sequence[int]) -> 'tcg_counts.Counts':
    """Per single-test load, its window less the module's own load and
    unload (the first window, which loads it as often), per loop of each
    run (runs_per_load()): what one operation executed."""
    if len(windows) != len(the_loads) + 1:
        raise SeriesError(f'plugin log: {len(windows)} windows for '
                          f'{len(the_loads)} loads and the baseline')
    base, counts = windows[0], {}
    for w, load, n in zip(windows[1:], the_loads, runs):
        tests = [t for t, bit in TEST_IDS.items() if load.mask & bit]
        if len(tests) != 1:
            continue            # several tests in one window: no per-op
        key = bench.Key('test_vmalloc', tests[0], load.params, 'us')
        counts[key] = {c: [max(w.value(c) - base.value(c), 0) /
                           (loops * n)] for c in tcg_counts.COLUMNS}
    return counts


def boot(tree: Tree, cache: Path, profile: str, clock: str,
         number: int, plugin: Optional[Path] = None,
         counts: Optional['tcg_counts.Counts'] = None) -> bench.Samples:
    build = tree.path / kunit_run.build_dir_name(bench_run.LANE)
    image = build / 'arch/arm64/boot/Image.gz'
    module = build / 'lib/test_vmalloc.ko'
    for path in (image, module):
        if not path.exists():
            raise SeriesError(f'{tree.name} tree: {path} missing; the bench '
                              'lane builds it')
    the_loads = loads()
    out = project.RESULTS / 'bench'
    out.mkdir(parents=True, exist_ok=True)
    print(f'{tree.name} tree: test_vmalloc boot {number} ({profile}, '
          f'{clock} clock)', flush=True)
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        initrd = Path(tmp) / 'initrd.cpio'
        initrd.write_bytes(initramfs(
            busybox(cache), module.read_bytes(),
            init_script(the_loads, LOOPS[profile], windows=bool(plugin))))
        cmd = qemu_command(image, initrd, clock, number)
        plugin_log = out / f'plugin-test_vmalloc-{tree.name}-{number}.log'
        if plugin:
            plugin_log.unlink(missing_ok=True)
            cmd[1:1] = tcg_counts.qemu_args(
                plugin, plugin_log, tcg_counts.vectors_address(build))
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT,
                                  timeout=TIMEOUT_S[profile], check=False)
            log = proc.stdout.decode(errors='replace')
        except subprocess.TimeoutExpired as e:
            log = (e.output or b'').decode(errors='replace')
            log += f'\n{MARK} timeout after {TIMEOUT_S[profile]} s\n'
    log_path = out / f'test_vmalloc-{clock}-{tree.name}-{number}.log'
    log_path.write_text(log)
    try:
        samples = parse_boot(log, the_loads)
        if plugin and counts is not None:
            tcg_counts.merge(counts, load_counts(
                tcg_counts.parse_windows(plugin_log.read_text(
                    errors='replace')), the_loads, LOOPS[profile],
                runs_per_load(log, the_loads)))
        return samples
    except SeriesError as e:
        raise SeriesError(f'{tree.name} tree, test_vmalloc boot {number}: '
                          f'{e} (log: {log_path}; QEMU: '
                          f'{shlex.join(cmd)})') from None


def ab(the_trees: Dict[str, Tree], cache: Path, profile: str, clock: str,
       boots: int, plugin: Optional[Path] = None,
       counts: Optional[Dict[str, 'tcg_counts.Counts']] = None
       ) -> Tuple[bench.Samples, bench.Samples]:
    """K boots of each tree, alternating; one observation per boot. With
    the TCG plugin, each single-test load's counts per operation go to
    counts[tree]."""
    pooled: Dict[str, bench.Samples] = {'base': {}, 'patched': {}}
    for number in range(boots):
        for name in ('base', 'patched'):
            mine = None if counts is None else counts.setdefault(name, {})
            bench.merge(pooled[name], bench.per_boot(boot(
                the_trees[name], cache, profile, clock, number, plugin,
                mine)))
    return pooled['base'], pooled['patched']
