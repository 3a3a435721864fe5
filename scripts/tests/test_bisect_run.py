# SPDX-License-Identifier: GPL-2.0
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import bisect_run

from tests.helpers import git, scratch_repo

SCRIPTS = Path(__file__).resolve().parent.parent

# Stands in for tools/testing/kunit/kunit.py: the commit's "state" file
# says whether the kernel builds and whether the case passes.
FAKE_KUNIT = '''import json, sys
from pathlib import Path
state = Path('state').read_text().strip()
if state == 'broken':
    print('mm/vmalloc.c:12:3: error: expected ";" before "}" token')
    sys.exit(1)
out = [a.split('=', 1)[1] for a in sys.argv if a.startswith('--json=')][0]
status = {'good': 'PASS', 'bad': 'FAIL'}[state]
Path(out).write_text(json.dumps({'name': 'KUnit Test Group', 'sub_groups': [
    {'name': 'vmalloc_bulk_free', 'test_cases': [
        {'name': 'vfree_refcount_test', 'status': status},
        {'name': 'other_test', 'status': 'PASS'}]}]}))
'''


class VerdictTest(unittest.TestCase):
    def test_codes(self) -> None:
        outcomes = {'s.a.1': 'pass', 's.a.2': 'crash', 's.b': 'pass'}
        self.assertEqual(bisect_run.verdict(outcomes, ['s.b']), 0)
        self.assertEqual(bisect_run.verdict(outcomes, ['s.a.*']), 1)
        with self.assertRaises(bisect_run.Untestable):
            bisect_run.verdict(outcomes, ['t.*'])

    def test_usage_errors_stop_git_bisect(self) -> None:
        import contextlib
        import io
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(bisect_run.main([]), 128)
            self.assertEqual(bisect_run.main(['--cases', ' , ']), 128)
            self.assertEqual(bisect_run.main(['--cases', 'a',
                                              '--lane', 'kasan']), 128)
            # An unknown suite would make every commit "skip".
            self.assertEqual(bisect_run.main(['--cases', 'no_such_suite.*']),
                             128)
            self.assertEqual(bisect_run.main(['--cases', 'vmalloc_bulk_free.*',
                                              '--tree', '/nonexistent']),
                             128)


class PlantedRegressionTest(unittest.TestCase):
    """git bisect run with the helper finds the commit that plants the
    regression in a small series, skipping one that does not build."""

    def test_finds_the_planted_commit(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / 'linux'
            scratch_repo(tree, {'state': 'good\n'})
            kunit = tree / 'tools/testing/kunit'
            kunit.mkdir(parents=True)
            (kunit / 'kunit.py').write_text(FAKE_KUNIT)
            git(tree, 'add', '-A')
            git(tree, 'commit', '-q', '-m', 'add the runner')
            good = git(tree, 'rev-parse', 'HEAD').strip()
            commits = {}
            for name, state in (('p1', 'good'), ('p2', 'good'),
                                ('p3', 'bad'), ('p4', 'broken'),
                                ('p5', 'bad')):
                (tree / 'state').write_text(state + '\n')
                (tree / name).write_text(name)
                git(tree, 'add', '-A')
                git(tree, 'commit', '-q', '-m', name)
                commits[name] = git(tree, 'rev-parse', 'HEAD').strip()
            # A cache of its own: the helper takes the cache's build lock,
            # which a real build may hold while the host tests run.
            env = dict(os.environ, MMSERIES_RESULTS=str(Path(tmp) / 'out'),
                       MMSERIES_CACHE=str(Path(tmp) / 'cache'))
            helper = [sys.executable, str(SCRIPTS / 'bisect_run.py'),
                      '--cases', 'vmalloc_bulk_free.vfree_refcount_test*']

            # A commit that does not build is skipped, with the error.
            git(tree, 'checkout', '-q', commits['p4'])
            proc = subprocess.run(helper, cwd=tree, env=env,
                                  capture_output=True, text=True,
                                  check=False)
            self.assertEqual(proc.returncode, 125)
            self.assertRegex(proc.stdout, r'bisect: skip: .*error: expected')

            git(tree, 'checkout', '-q', commits['p5'])
            git(tree, 'bisect', 'start', commits['p5'], good)
            proc = subprocess.run(['git', 'bisect', 'run', *helper],
                                  cwd=tree, env=env, capture_output=True,
                                  text=True, check=False)
            log = proc.stdout + proc.stderr
            self.assertEqual(proc.returncode, 0, log)
            self.assertIn(f'{commits["p3"]} is the first bad commit', log)


if __name__ == '__main__':
    unittest.main()
