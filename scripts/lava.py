# SPDX-License-Identifier: GPL-2.0
"""Every cell of the proof as a LAVA job (Linaro Automated Validation
Architecture, the engine of KernelCI and LKFT labs): one job per (tree,
lane) cell, written from the same lane definition that drives kunit.py
(kunit_run.LANES: its kernel, its QEMU config, its kernel arguments and
filters), never a second copy of the QEMU setup.

Two deploy targets come from one job: `qemu` (a lab's QEMU workers, or
lava-run here) and an arm64 board booted by U-Boot over TFTP. The job
carries no test shell: the kernel runs the suites as it boots, and one
`monitors` test action per suite reads the KTAP lines off the console.
LAVA keeps case-level results (its monitors lowercase the ids, and
parameters repeat); the project's param-level outcomes come from the
console, which LAVA keeps in its log, through the tree's own `kunit.py
parse`, and are judged by kunit_run.outcomes_of() exactly as a kunit.py
run is.

YAML is written as JSON, which every YAML reader takes, so that this
module needs nothing beyond Python's standard library.
"""

import ast
import json
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import kunit_run
import manifest
import project
from project import SeriesError
from trees import Tree

OUT = project.RESULTS / 'lava'
DEVICE_TYPES = ('qemu', 'board')
# How long a job may take: the boot action's timeout is also the gap LAVA
# allows between two matched lines of the console.
JOB_MINUTES = 40
BOOT_MINUTES = kunit_run.RUN_TIMEOUT_S // 60
# The pty of LAVA's serial connection doubles a carriage return: "\r\r\n"
# ends each line, so a pattern must take any number of them.
EOL = r'\r*\n'


@dataclass(frozen=True)
class QemuConfig:
    """What a kunit.py QEMU config (scripts/qemu_configs/*.py) sets."""
    kernel_path: str
    kernel_command_line: str
    extra_qemu_params: Tuple[str, ...]
    qemu_arch: str = 'aarch64'
    serial: str = 'stdio'


def load_qemu_config(path: Path) -> QemuConfig:
    """Evaluate a kunit.py QEMU config as kunit.py does, with its
    QemuArchParams taken for ours (the file imports it relatively)."""
    text = path.read_text()
    tree = ast.parse(text, str(path))
    tree.body = [n for n in tree.body if not (
        isinstance(n, ast.ImportFrom) and n.module == 'qemu_config')]
    found: Dict[str, object] = {}

    def params(**kw: object) -> Dict[str, object]:
        return kw

    scope: Dict[str, object] = {'QemuArchParams': params}
    exec(compile(tree, str(path), 'exec'), scope)  # our own config files
    found = scope.get('QEMU_ARCH')  # type: ignore[assignment]
    if not isinstance(found, dict):
        raise SeriesError(f'{path}: no QEMU_ARCH')
    return QemuConfig(str(found['kernel_path']),
                      str(found['kernel_command_line']),
                      tuple(str(x) for x in found.get('extra_qemu_params',
                                                      ())),
                      str(found.get('qemu_arch', 'aarch64')),
                      str(found.get('serial', 'stdio')))


@dataclass(frozen=True)
class Cell:
    """One (tree, lane) cell of the matrix, as a LAVA job boots it."""
    tree: str
    lane: str
    kernel: Path                # the kernel image kunit.py boots
    config: Path                # its .config
    qemu: QemuConfig
    command_line: str           # what kunit.py's -append would be
    suites: Tuple[str, ...]     # the suites the kernel runs, in order
    cases: Tuple[str, ...] = field(default=())  # the manifest's, in scope
    minutes: int = BOOT_MINUTES  # the boot's and the test's timeout


def command_line(lane: str, qemu: QemuConfig,
                 glob: Optional[str] = None, extra: Sequence[str] = ()
                 ) -> str:
    """kunit.py's kernel command line for a lane (kunit_kernel.py: its
    arguments, the filters, kunit.enable=1, then the config's line and
    kunit_shutdown), with kunit_shutdown=halt: LAVA ends the job when the
    last monitor has matched, and a rebooting guest would start again."""
    known = kunit_run.LANES[lane]
    args = list(known.kernel_args) + list(extra)
    if glob or known.filter:
        args.append(f'kunit.filter_glob={glob or known.filter}')
    if known.attributes:
        # kunit.py quotes it; with no space in it the kernel needs no
        # quotes, and the job's -append keeps one level of quoting.
        args.append(f'kunit.filter={known.attributes}'
                    if ' ' not in known.attributes
                    else f'kunit.filter="{known.attributes}"')
    args.append('kunit.enable=1')
    return ' '.join(args + [qemu.kernel_command_line, 'kunit_shutdown=halt'])


def suites_of(cases: Sequence[str]) -> Tuple[str, ...]:
    seen: List[str] = []
    for case in cases:
        suite = case.split('.', 1)[0]
        if suite not in seen:
            seen.append(suite)
    return tuple(seen)


def cell(tree: Tree, lane: str,
         expected: Dict[str, manifest.Expectation],
         glob: Optional[str] = None, minutes: int = 0,
         extra: Sequence[str] = ()) -> Cell:
    """A cell; glob narrows the suites the kernel runs (a mutant's),
    minutes the boot's timeout (default BOOT_MINUTES), extra goes after
    the lane's kernel arguments (a schema kernel's mm_mutant=N)."""
    known = kunit_run.LANES[lane]
    qemu = load_qemu_config(known.qemu_config)
    build = tree.path / kunit_run.build_dir_name(lane)
    cases = tuple(c for c in expected if kunit_run.in_scope(lane, c))
    return Cell(tree.name, lane, build / qemu.kernel_path, build / '.config',
                qemu, command_line(lane, qemu, glob, extra),
                suites_of(cases), cases,
                minutes or BOOT_MINUTES)


def _qemu_options(qemu: QemuConfig) -> Tuple[Dict[str, str], List[str]]:
    """The machine, cpu and memory of the config's QEMU arguments (the
    device dictionary's own variables), and the rest, as LAVA options."""
    known: Dict[str, str] = {}
    rest: List[str] = []
    args = list(qemu.extra_qemu_params)
    i = 0
    while i < len(args):
        name = args[i].lstrip('-')
        value = args[i + 1] if i + 1 < len(args) else ''
        if name in ('machine', 'cpu', 'm') and value:
            known[{'m': 'memory'}.get(name, name)] = value
            i += 2
            continue
        if value and not value.startswith('-'):
            rest.append(f'{args[i]} {value}')
            i += 2
        else:
            rest.append(args[i])
            i += 1
    return known, rest


def monitors(name: str) -> List[Dict[str, object]]:
    """One monitors test action over the whole KTAP output, from its
    first line to the kernel halting (kunit_shutdown=halt): every result
    line, a suite's or a case's. Monitors run one after the other, each
    waiting for its start line, so one per suite would need the suites
    the kernel runs, in their order, which its config and filters decide.
    A skipped case ("ok N case # SKIP ...") is an "ok" to the pattern, as
    LAVA maps the result group whole; its skip is in the console, from
    which the project's outcomes come."""
    return [{
        'name': name,
        'start': 'KTAP version 1',
        'end': f'reboot: System halted{EOL}',
        'pattern': (r'(?P<result>not ok|ok) \d+ '
                    r'(?P<test_case_id>[^\s#]+)[^\r\n]*' + EOL),
        'fixupdict': {'ok': 'pass', 'not ok': 'fail'},
    }]


def _timeouts(minutes: int = BOOT_MINUTES) -> Dict[str, object]:
    return {'job': {'minutes': 2 * minutes + 10},
            'action': {'minutes': minutes},
            'connection': {'minutes': 2}}


def qemu_job(c: Cell, kernel_url: str) -> Dict[str, object]:
    """The cell as a job of device type qemu."""
    known, rest = _qemu_options(c.qemu)
    append = c.command_line.replace('"', '\\"')
    return {
        'device_type': 'qemu',
        'job_name': f'arm64-mm-series {c.tree} {c.lane}',
        'timeouts': _timeouts(c.minutes),
        'priority': 'medium',
        'visibility': 'public',
        'context': {'arch': 'arm64', **known, 'extra_options': rest},
        'metadata': {'tree': c.tree, 'lane': c.lane},
        'actions': [
            {'deploy': {'to': 'tmpfs', 'timeout': {'minutes': 5},
                        'images': {'kernel': {
                            'image_arg': f'-kernel {{kernel}} -append '
                                         f'"{append}"',
                            'url': kernel_url}}}},
            {'boot': {'method': 'qemu', 'media': 'tmpfs',
                      'timeout': {'minutes': c.minutes}}},
            {'test': {'timeout': {'minutes': c.minutes},
                      'monitors': monitors(f'kunit-{c.lane}')}},
        ],
    }


# What a board cell cannot do, by lane: the reason a board job is not
# written for it.
BOARD_LIMITS = {
    'numa': 'needs a second, CPU-less memory node (QEMU -numa); a board '
            'has the nodes it has',
}
BOARD_NOTES = ('the 52-bit VA lanes need FEAT_LPA2 (4K/16K) or FEAT_LVA '
               '(64K), which -cpu max has and most boards do not: the '
               'kernel then runs with 48-bit VA and the 5-level cases skip',
               'the hugetlb pools of the command line need the memory: '
               '8 GiB for the 4K lanes, 12 GiB for 16k')


# The arm64 boards of LAVA's device types (lava-server's device-types/)
# that boot with U-Boot over TFTP, and their consoles.
BOARDS = {
    'bcm2711-rpi-4-b': 'ttyS1,115200',
    'juno-r2': 'ttyAMA0,115200',
    'rk3399-rock-pi-4b': 'ttyS2,1500000',
    'imx8mp-evk': 'ttymxc1,115200',
    'meson-g12b-odroid-n2': 'ttyAML0,115200',
}


def board_job(c: Cell, kernel_url: str, dtb_url: str,
              device_type: str) -> Dict[str, object]:
    """The cell as a job for an arm64 board booted by U-Boot over TFTP:
    the kernel is the lane's fragments over defconfig (board drivers),
    the command line the lane's, the console the board's."""
    if device_type not in BOARDS:
        raise SeriesError(f'no board template for device type '
                          f'{device_type!r} (one of {", ".join(BOARDS)})')
    if c.lane in BOARD_LIMITS:
        raise SeriesError(f'lane {c.lane} cannot run on a board: '
                          f'{BOARD_LIMITS[c.lane]}')
    line = c.command_line.replace('console=ttyAMA0 ', '')
    return {
        'device_type': device_type,
        'job_name': f'arm64-mm-series {c.tree} {c.lane} on {device_type}',
        'timeouts': _timeouts(),
        'priority': 'medium',
        'visibility': 'public',
        'context': {'extra_kernel_args': line},
        'metadata': {'tree': c.tree, 'lane': c.lane,
                     'kernel': 'the lane\'s fragments over arm64 '
                               'defconfig, for the board\'s drivers',
                     'notes': '; '.join(BOARD_NOTES)},
        'actions': [
            {'deploy': {'to': 'tftp', 'timeout': {'minutes': 10},
                        'kernel': {'url': kernel_url, 'type': 'image'},
                        'dtb': {'url': dtb_url}}},
            {'boot': {'method': 'u-boot', 'commands': [
                'setenv autoload no', 'dhcp',
                "setenv serverip '{SERVER_IP}'",
                "tftp {KERNEL_ADDR} '{KERNEL}'",
                "tftp {DTB_ADDR} '{DTB}'",
                f"setenv bootargs 'console={BOARDS[device_type]} {line}'",
                '{BOOTX}'],
                'timeout': {'minutes': BOOT_MINUTES}}},
            {'test': {'timeout': {'minutes': BOOT_MINUTES},
                      'monitors': monitors(f'kunit-{c.lane}')}},
        ],
    }


def qemu_device(c: Cell) -> Dict[str, object]:
    """A rendered device dictionary of type qemu for lava-run here: what
    a lab's qemu device-type template renders from the job's context."""
    known, rest = _qemu_options(c.qemu)
    options = ['-nodefaults', '-nographic', '-no-reboot',
               f'-serial {c.qemu.serial}', '-monitor none',
               f'-machine {known.get("machine", "virt")}',
               f'-cpu {known.get("cpu", "max")}',
               f'-m {known.get("memory", "1024")}', *rest]
    return {
        'device_type': 'qemu',
        'available_architectures': ['arm64', 'aarch64'],
        'actions': {
            'deploy': {'methods': {'image': {'parameters': {'guest': {
                'size': 512, 'interface': 'ide', 'driveid': 'lavatest'}}}},
                'connections': {'serial': None}},
            'boot': {'connections': {'serial': None}, 'methods': {
                'qemu': {'parameters': {
                    'command': f'qemu-system-{c.qemu.qemu_arch}',
                    'boot_options': {},
                    'options': options}}}},
        },
        'timeouts': {'actions': {}, 'connections': {}},
        'constants': {'shutdown-message': 'reboot: System halted',
                      'kernel-start-message': 'Linux version [0-9]',
                      'default-shell-prompt': 'lava-test: # ',
                      'spawn_maxread': '4092', 'failure_retry': 1,
                      'boot_retry': None,
                      'posix': {'lava_test_sh_cmd': '/bin/sh',
                                'lava_test_results_dir': '/lava-%s',
                                'lava_test_shell_file': '~/.bashrc'}},
        'parameters': {},
    }


def dump(data: object) -> str:
    """YAML, written as JSON."""
    return json.dumps(data, indent=1) + '\n'


# -- a job's log ------------------------------------------------------------

_YAML_ESCAPES = {'0': '\\u0000', 'a': '\\u0007', 'e': '\\u001b',
                 'v': '\\u000b', 'N': '\\u0085', '_': '\\u00a0',
                 'L': '\\u2028', 'P': '\\u2029', ' ': ' ', '\t': '\\t'}


def _yaml_string_to_json(line: str) -> str:
    """A LAVA log line (a YAML flow mapping whose strings are all
    double-quoted, on one line) as JSON: YAML's own escapes rewritten."""
    out = []
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == '\\' and i + 1 < len(line):
            nxt = line[i + 1]
            if nxt == 'x' and i + 3 < len(line):
                out.append('\\u00' + line[i + 2:i + 4])
                i += 4
                continue
            if nxt == 'U' and i + 9 < len(line):
                code = int(line[i + 2:i + 10], 16)
                out.append(json.dumps(chr(code))[1:-1])
                i += 10
                continue
            out.append(_YAML_ESCAPES.get(nxt, '\\' + nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return ''.join(out)


def log_records(text: str) -> List[Dict[str, object]]:
    """The records of a lava-run log ("- {...}" or "{...}" lines)."""
    records = []
    for raw in text.splitlines():
        line = raw[2:] if raw.startswith('- ') else raw
        if not line.startswith('{'):
            continue
        try:
            records.append(json.loads(_yaml_string_to_json(line)))
        except ValueError:
            continue
    return records


def console(records: Sequence[Dict[str, object]]) -> str:
    """What the kernel printed: the log's target lines, one per line,
    without the pty's carriage returns."""
    return ''.join(str(r.get('msg', '')).rstrip('\r') + '\n'
                   for r in records if r.get('lvl') == 'target')


def job_result(records: Sequence[Dict[str, object]]) -> Tuple[str, str]:
    """LAVA's verdict on the job (its "lava"/"job" result): (pass or
    fail, the error message when failed)."""
    for r in records:
        msg = r.get('msg')
        if r.get('lvl') == 'results' and isinstance(msg, dict) and \
                msg.get('definition') == 'lava' and msg.get('case') == 'job':
            return str(msg.get('result', '')), str(msg.get('error_msg', ''))
    return '', 'the log has no job result'


def monitor_results(records: Sequence[Dict[str, object]]
                    ) -> Dict[str, str]:
    """LAVA's own case results: "suite.case" (lowercased by LAVA) ->
    pass/fail; parameters of one case repeat its id, the last wins."""
    found: Dict[str, str] = {}
    for r in records:
        msg = r.get('msg')
        if r.get('lvl') == 'results' and isinstance(msg, dict) and \
                msg.get('definition') not in ('lava', None):
            found[f'{msg["definition"]}.{msg["case"]}'] = str(msg['result'])
    return found


# -- jobs on disk ---------------------------------------------------------

def cell_dir(c: Cell, out: Path = OUT) -> Path:
    return out / f'{c.tree}-{c.lane}'


def write_cell(c: Cell, out: Path = OUT, url_base: str = '',
               board: str = '', dtb_url: str = '') -> Path:
    """The cell's artifacts (the kernel, its .config, the lane's slice of
    the manifest) and its jobs: job.yaml (qemu), device.yaml (a qemu
    device for lava-run here) and, for a board device type, board.yaml.
    url_base: where a lab fetches the artifacts (file:// of this
    directory by default)."""
    if not c.kernel.exists():
        raise SeriesError(f'{c.tree} tree, lane {c.lane}: no kernel at '
                          f'{c.kernel} (make lava builds it first)')
    d = cell_dir(c, out)
    tmp = d.with_name(f'.{d.name}.tmp')
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    shutil.copyfile(c.kernel, tmp / c.kernel.name)
    if c.config.exists():
        shutil.copyfile(c.config, tmp / 'config')
    expected = manifest.load(project.MANIFEST)
    (tmp / 'manifest.tsv').write_text(''.join(
        f'{case}\t{expected[case].on(column_of(c))}\n' for case in c.cases))
    base = url_base.rstrip('/') + f'/{d.name}' if url_base \
        else f'file://{d.resolve()}'
    kernel_url = f'{base}/{c.kernel.name}'
    (tmp / 'job.yaml').write_text(dump(qemu_job(c, kernel_url)))
    (tmp / 'device.yaml').write_text(dump(qemu_device(c)))
    if board:
        (tmp / 'board.yaml').write_text(dump(board_job(
            c, kernel_url, dtb_url or f'{base}/board.dtb', board)))
    shutil.rmtree(d, ignore_errors=True)
    tmp.replace(d)
    return d


def write_artifact(c: Cell, out: Path, url_base: str = '') -> Path:
    """One kernel that many jobs boot (make mutate's schema kernel, each
    job with its own mm_mutant=N): the kernel, its .config and a qemu
    device for lava-run, in out/<tree>-<lane>/, each job then written
    into its jobs/ by write_job(). An artifact of the same kernel image
    is kept, with the jobs written so far."""
    if not c.kernel.exists():
        raise SeriesError(f'{c.tree} tree, lane {c.lane}: no kernel at '
                          f'{c.kernel}')
    d = cell_dir(c, out)
    image = d / c.kernel.name
    if image.exists() and image.read_bytes() == c.kernel.read_bytes():
        return d
    tmp = d.with_name(f'.{d.name}.tmp')
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / 'jobs').mkdir(parents=True)
    shutil.copyfile(c.kernel, tmp / c.kernel.name)
    if c.config.exists():
        shutil.copyfile(c.config, tmp / 'config')
    (tmp / 'device.yaml').write_text(dump(qemu_device(c)))
    (tmp / 'url').write_text(url_base.rstrip('/') + f'/{d.name}\n'
                             if url_base else f'file://{d.resolve()}\n')
    shutil.rmtree(d, ignore_errors=True)
    tmp.replace(d)
    return d


def write_job(d: Path, name: str, c: Cell) -> Path:
    """The job of cell c (its command line and filter) that boots the
    artifact d's kernel, as d/jobs/<name>.yaml."""
    base = (d / 'url').read_text().strip()
    job = qemu_job(c, f'{base}/{c.kernel.name}')
    job['job_name'] = f'arm64-mm-series {c.tree} {c.lane} {name}'
    path = d / 'jobs' / f'{name}.yaml'
    tmp = path.with_suffix('.tmp')
    tmp.write_text(dump(job))
    tmp.replace(path)
    return path


def column_of(c: Cell) -> str:
    """The matrix column of the cell (mmseries.column_name)."""
    return c.tree if c.lane == manifest.MAIN_LANE else f'{c.tree}+{c.lane}'


# -- running a job here -----------------------------------------------------

def lava_run(d: Path, job_id: int, timeout_s: int = JOB_MINUTES * 60,
             job: Optional[Path] = None) -> Tuple[Path, float]:
    """lava-run the cell's qemu job (as root, no server), or the given
    job of the artifact d, keeping its log (job.log) in run/; (run dir,
    seconds)."""
    import time
    job = job or d / 'job.yaml'
    run = d / 'run'
    shutil.rmtree(run, ignore_errors=True)
    run.mkdir()
    start = time.monotonic()
    try:
        proc = subprocess.run(
            ['lava-run', '--job-id', str(job_id), '--output-dir',
             str(run / 'output'), '--device', str(d / 'device.yaml'),
             str(job)], capture_output=True, text=True,
            timeout=timeout_s, check=False)
        log = proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as e:
        log = (e.stdout or b'').decode(errors='replace') + \
            (e.stderr or b'').decode(errors='replace')
        (run / 'job.log').write_text(log)
        raise SeriesError(f'{d.name}: lava-run did not finish in '
                          f'{timeout_s} s (log: {run / "job.log"})') from None
    except FileNotFoundError:
        raise SeriesError('lava-run not found: Debian package '
                          'lava-dispatcher (make deps installs it)') from None
    (run / 'job.log').write_text(log)
    return run, time.monotonic() - start


def results_dir(tree: Tree, run: Path, name: str,
                failed_job_counts: bool = False) -> Path:
    """The job's console as a kunit.py run directory (test.log and the
    tree's own kunit.py parse --json), under build/runs/lava-<name>/, so
    that kunit_run.outcomes_of() judges it as it judges a kunit.py run.
    Refuses a job that did not pass, so that nothing of a half-finished
    job is merged into a matrix, unless failed_job_counts (a mutant's
    kernel that crashes or hangs is killed, as in a kunit.py run), and a
    console that has no KTAP."""
    records = log_records((run / 'job.log').read_text(errors='replace'))
    result, error = job_result(records)
    text = console(records)
    if result != 'pass' and not (failed_job_counts and result):
        raise SeriesError(f'{run.parent.name}: the LAVA job failed: '
                          f'{error or "no job result in its log"}')
    if 'KTAP version' not in text and 'TAP version' not in text:
        raise SeriesError(f'{run.parent.name}: the job\'s console has no '
                          'KTAP output')
    final = project.RESULTS / 'runs' / f'lava-{name}'
    tmp = final.with_name(f'.{final.name}.tmp')
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    (tmp / 'test.log').write_text(text)
    proc = subprocess.run(
        ['python3', 'tools/testing/kunit/kunit.py', 'parse',
         f'--json={tmp / "results.json"}', str(tmp / 'test.log')],
        cwd=tree.path, capture_output=True, text=True, check=False)
    if not (tmp / 'results.json').exists():
        shutil.rmtree(tmp, ignore_errors=True)
        raise SeriesError(f'{run.parent.name}: kunit.py parse of the job\'s '
                          'console failed: ' + project.last_line(
                              proc.stdout + proc.stderr, 'no output'))
    shutil.rmtree(final, ignore_errors=True)
    tmp.replace(final)
    return final


def differences(lava: Dict[str, str], kunit: Dict[str, str]) -> List[str]:
    """Cells where the LAVA job's outcome is not kunit.py's."""
    return [f'{case}: LAVA {lava.get(case, "missing")}, kunit.py '
            f'{kunit.get(case, "missing")}'
            for case in sorted(set(lava) | set(kunit))
            if lava.get(case) != kunit.get(case)]


# -- the cells, here and in a lab -------------------------------------------

def cells(the_trees: Dict[str, Tree], lanes: Sequence[str]
          ) -> List[Cell]:
    """The (tree, lane) cells of the lanes, in matrix order."""
    expected = manifest.load(project.MANIFEST)
    found = []
    for lane in lanes:
        if lane not in kunit_run.LANES:
            raise SeriesError(f'unknown lane {lane!r} (one of '
                              f'{", ".join(kunit_run.LANES)})')
        for name, tree in the_trees.items():
            if name in kunit_run.LANES[lane].trees:
                found.append(cell(tree, lane, expected))
    return found


def outcomes(tree: Tree, lane: str, final: Path) -> Dict[str, str]:
    """A run directory's outcomes, judged as make test judges them."""
    got, _ = kunit_run.outcomes_of(final, tree.path,
                                   kunit_run.build_dir_name(lane))
    return got


def run_cell(tree: Tree, c: Cell, job_id: int, out: Path = OUT
             ) -> Tuple[Dict[str, str], float]:
    """lava-run the cell's job and judge its console: (outcomes, s)."""
    run, seconds = lava_run(cell_dir(c, out), job_id)
    final = results_dir(tree, run, f'{c.tree}-{c.lane}')
    return outcomes(tree, c.lane, final), seconds


# lavacli against a lab: the identity is one of ~/.config/lavacli.yaml's
# (lavacli identities add ...); nothing here reaches a lab by itself.
SUBMITTED = 'submitted.json'


def lavacli(identity: str, *args: str, runner=subprocess.run
            ) -> str:
    proc = runner(['lavacli', '--identity', identity, *args],
                  capture_output=True, text=True, check=False)
    if proc.returncode:
        raise SeriesError(f'lavacli {args[0]} {args[1]}: ' + project.last_line(
            proc.stderr or proc.stdout, f'exit {proc.returncode}'))
    return proc.stdout


def submit(identity: str, dirs: Sequence[Path], job: str = 'job.yaml',
           out: Path = OUT, runner=subprocess.run) -> Dict[str, str]:
    """Submit each cell's job; the job ids, kept in out/submitted.json."""
    ids: Dict[str, str] = {}
    for d in dirs:
        said = lavacli(identity, 'jobs', 'submit', str(d / job),
                       runner=runner).split()
        if not said or not said[0].isdigit():
            raise SeriesError(f'{d.name}: the lab gave no job id '
                              f'({" ".join(said) or "no output"})')
        ids[d.name] = said[0]
    (out / SUBMITTED).write_text(json.dumps(ids, indent=1) + '\n')
    return ids


def collect(identity: str, out: Path = OUT, runner=subprocess.run
            ) -> Dict[str, Path]:
    """Wait for each submitted job and keep its raw log as the cell's
    run/job.log; the run dirs by cell name."""
    path = out / SUBMITTED
    if not path.exists():
        raise SeriesError(f'{path}: nothing submitted (make lava-submit)')
    runs: Dict[str, Path] = {}
    for name, job_id in json.loads(path.read_text()).items():
        lavacli(identity, 'jobs', 'wait', job_id, runner=runner)
        log = lavacli(identity, 'jobs', 'logs', '--raw', job_id,
                      runner=runner)
        run = out / name / 'run'
        run.mkdir(parents=True, exist_ok=True)
        (run / 'job.log').write_text(log)
        runs[name] = run
    return runs
