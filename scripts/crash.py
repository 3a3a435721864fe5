# SPDX-License-Identifier: GPL-2.0
"""Crashes and hangs of a kernel under kunit.py.

A hang: once the kernel boots, kunit.py prints a line per case as the
KTAP output streams in; no new line for STALL_S seconds means the running
suite hangs. The watchdog then stops QEMU (not kunit.py), so that kunit.py
parses what came, marks the case in progress as crashed and writes its
JSON as after any crash; the run records that it was a timeout.

A crash: the kernel log has an oops, a BUG or a panic; its call trace is
decoded with the tree's own scripts/decode_stacktrace.sh.
"""

import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Optional

# No KTAP progress for this long, once booted: the suite hangs. The
# slowest case (the 1G gigantic folio under TCG) takes about a minute.
STALL_S = 300
# No KTAP at all this long after QEMU started: the kernel hangs before the
# suites (a mutant of code every boot runs). The kernels here reach their
# first suite 1 to 2 s after QEMU starts.
BOOT_S = 120
BOOTED = 'Starting KUnit Kernel'
# kunit.py's last line before the kernel's own output.
_QEMU_LINE = re.compile(r'^\$ qemu-system-\S+ .*$', re.M)
# Why the watchdog stopped QEMU: the kernel printed nothing for the boot
# limit after QEMU started, or a case ran past the stall limit.
SILENT_BOOT, STALLED = 'boot', 'stall'
SILENT_BOOT_NOTE = 'the kernel printed nothing for'
# After SIGTERM, how long QEMU gets before SIGKILL.
KILL_AFTER_S = 10
POLL_S = 2.0

_CRASH = re.compile(r'(Internal error: Oops|Unable to handle kernel |'
                    r'kernel BUG at |Kernel panic - not syncing|'
                    r'BUG: (?:unable|kernel|soft lockup|scheduling))')
_TRACE_START = re.compile(r'(Call trace:|Internal error:|'
                          r'Unable to handle kernel |kernel BUG at )')
_TRACE_END = re.compile(r'(---\[ end trace|Kernel panic|^\s*(?:not )?ok \d)')


def children(pid: int, proc_root: Path = Path('/proc')) -> List[int]:
    """Every descendant of pid (QEMU is kunit.py's child)."""
    parents = {}
    for stat in proc_root.glob('[0-9]*/stat'):
        try:
            fields = stat.read_text().rsplit(')', 1)[1].split()
        except (OSError, IndexError):
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        kids = [p for p, pp in parents.items() if pp == parent]
        found += kids
        frontier += kids
    return found


def _signal_children(pid: int, sig: int) -> None:
    for child in children(pid):
        try:
            os.kill(child, sig)
        except ProcessLookupError:
            pass


def watch(proc: 'subprocess.Popen[bytes]', output: Path,
          stall_s: Optional[float] = None, poll_s: float = POLL_S,
          kill_after_s: float = KILL_AFTER_S,
          boot_s: Optional[float] = None) -> Optional[str]:
    """Wait for proc; stop its children (QEMU) when its output, once the
    kernel booted, stays still for stall_s (boot_s while no KTAP came
    yet): SIGTERM, then SIGKILL if they are still there kill_after_s later
    (a stopped or wedged QEMU does not act on SIGTERM). Why it had to
    (SILENT_BOOT or STALLED), None if it did not."""
    limit = STALL_S if stall_s is None else stall_s
    first_limit = BOOT_S if boot_s is None else boot_s
    fired_at: Optional[float] = None
    why: Optional[str] = None
    killed = False
    size, still_since = -1, time.monotonic()
    nap = 0.05
    while proc.poll() is None:
        # Short naps first: most commands of the host tests end at once.
        time.sleep(nap)
        nap = min(nap * 2, poll_s)
        if fired_at is not None:
            if not killed and time.monotonic() - fired_at >= kill_after_s:
                killed = True
                _signal_children(proc.pid, signal.SIGKILL)
            continue
        now_size = output.stat().st_size if output.exists() else 0
        if now_size != size:
            size, still_since = now_size, time.monotonic()
            continue
        still = time.monotonic() - still_since
        if still < min(limit, first_limit):
            continue
        text = output.read_text(errors='replace')
        if BOOTED not in text:
            continue        # still building: no limit there
        silent = booting(text)
        if still < (first_limit if silent else limit):
            continue
        why = SILENT_BOOT if silent else STALLED
        fired_at = time.monotonic()
        _signal_children(proc.pid, signal.SIGTERM)
    return why


def watchdog_note(why: str, boot_s: Optional[float],
                  stall_s: Optional[float]) -> str:
    """What watch() stopping QEMU for why says in a run's watchdog.txt."""
    if why == SILENT_BOOT:
        return (f'{SILENT_BOOT_NOTE} '
                f'{BOOT_S if boot_s is None else boot_s:g} s after QEMU '
                'started: QEMU stopped')
    return (f'no progress for {STALL_S if stall_s is None else stall_s:g} '
            's: QEMU stopped')


def booting(text: str) -> bool:
    """Whether kunit.py started QEMU and nothing came from the kernel."""
    started = list(_QEMU_LINE.finditer(text.split(BOOTED, 1)[-1]))
    return bool(started) and not \
        text.split(BOOTED, 1)[-1][started[-1].end():].strip()


def crashed(log: str) -> bool:
    return bool(_CRASH.search(log))


def headline(log: str) -> Optional[str]:
    """The log's first oops, BUG or panic line."""
    for line in log.splitlines():
        if _CRASH.search(line):
            return line.strip()
    return None


def crashed_case(splats: Dict[str, List[str]]) -> Optional[str]:
    """The first case (in log order) under which an oops, BUG or panic was
    filed, from kernel_log.splats_by_case()."""
    for case, lines in splats.items():
        if any(_CRASH.search(line) for line in lines):
            return case
    return None


def trace_of(log: str) -> Optional[str]:
    """The first oops/BUG/panic report of the log, up to its end."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if _TRACE_START.search(line):
            out = []
            for following in lines[max(0, i - 2):]:
                out.append(following)
                if len(out) > 3 and _TRACE_END.search(following):
                    break
            return '\n'.join(out) + '\n'
    return None


def decode(tree: Path, build_dir: str, trace: str,
           cross_compile: str) -> str:
    """The trace through the tree's scripts/decode_stacktrace.sh, with
    file:line where the kernel has debug info; the raw trace if the
    script is missing or fails."""
    script = tree / 'scripts' / 'decode_stacktrace.sh'
    vmlinux = tree / build_dir / 'vmlinux'
    if not script.exists() or not vmlinux.exists():
        return trace
    proc = subprocess.run(['bash', str(script), str(vmlinux), str(tree)],
                          input=trace, capture_output=True, text=True,
                          env=dict(os.environ, CROSS_COMPILE=cross_compile),
                          check=False)
    return proc.stdout if proc.returncode == 0 and proc.stdout else trace
