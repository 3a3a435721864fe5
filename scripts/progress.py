# SPDX-License-Identifier: GPL-2.0
"""Progress of a long kunit.py step, one line a minute.

kunit.py prints nothing while make runs (it keeps make's output) and one
line per case once the kernel boots. So the build is followed in the build
directory: the objects there now, against what the last complete build of
that directory had, and the objects this run compiled. Once the kernel
boots, the cases reported so far are counted in kunit.py's output. A step
shorter than the interval prints nothing.
"""

import os
import re
import sys
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Callable, Optional, TextIO, Type

from crash import BOOTED

INTERVAL_S = 60.0
BUILDING = 'Building KUnit Kernel'
# kunit.py's line for a case or a parameter that ended; a suite's, or a
# parameterised case's, is framed in "=====" and is not counted.
_CASE = re.compile(r'^\[[\d:]+\] \[(PASSED|FAILED|SKIPPED|CRASHED)\] ',
                   re.M)
# Where a complete build's object count is kept, in the build directory.
OBJECTS_FILE = '.mmseries-objects'


def count_objects(build_dir: Path, since: float = 0.0) -> int:
    """Object files under build_dir modified at or after since."""
    found = 0
    for root, _, files in os.walk(build_dir):
        for name in files:
            if name.endswith('.o'):
                try:
                    if os.stat(os.path.join(root, name)).st_mtime >= since:
                        found += 1
                except FileNotFoundError:
                    pass
    return found


# When this command started (the module is imported at its start).
_COMMAND_STARTED = time.monotonic()


def elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f'{minutes}m{secs:02d}s'


def since_start(now: Optional[float] = None) -> str:
    """How long this command has run: what each lane's start line says, so
    that a log shows what each lane cost."""
    return elapsed((time.monotonic() if now is None else now)
                   - _COMMAND_STARTED)


def expected_objects(build_dir: Path) -> Optional[int]:
    try:
        return int((build_dir / OBJECTS_FILE).read_text())
    except (OSError, ValueError):
        return None


def record_objects(build_dir: Path) -> None:
    """After a complete build: its object count, for the next run's
    estimate."""
    if build_dir.is_dir():
        (build_dir / OBJECTS_FILE).write_text(f'{count_objects(build_dir)}\n')


def status(output: str, build_dir: Path, started: float, now: float,
           at_start: int = 0) -> str:
    """What the step is doing, from kunit.py's output so far. at_start:
    the objects the build directory held when the step began; a build
    that starts from most of them is incremental, and how far along it is
    cannot be told from the objects present."""
    took = elapsed(now - started)
    if BOOTED in output:
        cases = len(_CASE.findall(output))
        return f'running the suites, {cases} cases reported, {took}'
    if BUILDING not in output:
        return f'configuring, {took}'
    present = count_objects(build_dir)
    compiled = count_objects(build_dir, started)
    total = expected_objects(build_dir)
    if total and at_start * 2 < total:
        share = min(99, 100 * present // total)
        return (f'building, {share}% ({present} of about {total} objects, '
                f'{compiled} compiled in this run), {took}')
    if total:
        return (f'rebuilding, {compiled} of {total} objects compiled so '
                f'far, {took}')
    return f'building, {present} objects ({compiled} compiled), {took}'


class Reporter:
    """A thread printing "<label>: <status>" every interval while the
    step runs; use as a context manager around it."""

    def __init__(self, label: str, output: Path, build_dir: Path,
                 interval_s: float = INTERVAL_S,
                 stream: Optional[TextIO] = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.label, self.output, self.build_dir = label, output, build_dir
        self.interval_s = interval_s
        self.stream = stream or sys.stdout
        self.clock = clock
        self.started = clock()
        self.at_start = count_objects(build_dir) if build_dir.is_dir() else 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                text = self.output.read_text(errors='replace')
            except OSError:
                text = ''
            line = status(text, self.build_dir, self.started, self.clock(),
                          self.at_start)
            print(f'{self.label}: {line}', file=self.stream, flush=True)

    def __enter__(self) -> 'Reporter':
        self._thread.start()
        return self

    def __exit__(self, kind: Optional[Type[BaseException]],
                 value: Optional[BaseException],
                 trace: Optional[TracebackType]) -> None:
        self._stop.set()
        self._thread.join()
