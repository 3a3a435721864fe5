# SPDX-License-Identifier: GPL-2.0
"""The host tests, hermetic: python3 -m tests (from scripts/).

Like tools/testing/kunit/kunit_tool_test.py, they depend on nothing of the
machine but the programs on PATH: before any project module is imported,
HOME, the temporary directory, the project's cache and results move into a
scratch directory, git reads no global or system configuration and every
variable that steers git, ccache, kbuild or the tooling is dropped. Each
test's output is buffered and shown only if it fails, so a passing run is
one summary. The last line is "N passed, N failed".
"""

import os
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Dict, Mapping

# Variables of the caller that would reach into the host's state.
DROPPED_PREFIXES = ('GIT_', 'MMSERIES_', 'CCACHE_', 'KBUILD_', 'MAKE',
                    'XDG_')
DROPPED = ('CROSS_COMPILE', 'ARCH', 'MFLAGS')


def hermetic_env(scratch: Path, outer: Mapping[str, str]) -> Dict[str, str]:
    """outer without what reaches into the host, pointed at scratch."""
    env = {k: v for k, v in outer.items()
           if not k.startswith(DROPPED_PREFIXES) and k not in DROPPED}
    home = scratch / 'home'
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), TMPDIR=str(scratch),
               GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM='1',
               MMSERIES_CACHE=str(scratch / 'cache'),
               MMSERIES_RESULTS=str(scratch / 'results'),
               LC_ALL='C.UTF-8')
    return env


def main() -> int:
    with tempfile.TemporaryDirectory(prefix='mmseries-tests-') as tmp:
        env = hermetic_env(Path(tmp), os.environ)
        os.environ.clear()
        os.environ.update(env)
        tempfile.tempdir = None  # take TMPDIR from the new environment
        scripts = Path(__file__).resolve().parent.parent
        suite = unittest.defaultTestLoader.discover(
            str(scripts / 'tests'), top_level_dir=str(scripts))
        result = unittest.TextTestRunner(stream=sys.stdout, verbosity=1,
                                         buffer=True).run(suite)
    bad = (len(result.failures) + len(result.errors) +
           len(result.unexpectedSuccesses))
    print(f'{result.testsRun - bad} passed, {bad} failed')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
