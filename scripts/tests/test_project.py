# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path

import project
from project import SeriesError


class RunTest(unittest.TestCase):
    def test_failure_is_one_line_from_the_end_of_stderr(self) -> None:
        with self.assertRaises(SeriesError) as ctx:
            project.run(['sh', '-c', 'echo noise >&2; echo "E: the reason" '
                         '>&2; exit 3'], 'fetching')
        self.assertEqual(str(ctx.exception), 'fetching failed: E: the reason')

    def test_stdout_speaks_when_stderr_is_silent(self) -> None:
        with self.assertRaisesRegex(SeriesError, '^x failed: out$'):
            project.run(['sh', '-c', 'echo out; exit 1'], 'x')

    def test_unchecked_failure_is_returned(self) -> None:
        proc = project.run(['sh', '-c', 'exit 5'], 'x', check=False)
        self.assertEqual(proc.returncode, 5)


class GitTest(unittest.TestCase):
    def test_env_overrides_the_fixed_identity(self) -> None:
        # The pristine import commits as Debian, over GIT_ENV's identity.
        proc = project.git(None, 'var', 'GIT_AUTHOR_IDENT',
                           env={'GIT_AUTHOR_NAME': 'Debian',
                                'GIT_AUTHOR_EMAIL': 'd@example.invalid'})
        self.assertTrue(proc.stdout.startswith('Debian <d@example.invalid>'))

    def test_fixed_identity_without_env(self) -> None:
        proc = project.git(None, 'var', 'GIT_COMMITTER_IDENT')
        self.assertIn(project.GIT_ENV['GIT_COMMITTER_EMAIL'], proc.stdout)

    def test_no_automatic_gc_even_where_the_repository_asks(self) -> None:
        # A detached gc --auto outlives the command that started it and
        # writes into a repository the import is moving (base_source).
        with tempfile.TemporaryDirectory() as tmp:
            project.git(None, 'init', '-q', tmp)
            project.git(Path(tmp), 'config', 'gc.auto', '1')
            proc = project.git(Path(tmp), 'config', '--get', 'gc.auto')
            self.assertEqual(proc.stdout.strip(), '0')


class LastLineTest(unittest.TestCase):
    def test_last_non_blank_line_or_default(self) -> None:
        self.assertEqual(project.last_line('a\nb\n\n'), 'b')
        self.assertEqual(project.last_line('  \n', 'none'), 'none')


if __name__ == '__main__':
    unittest.main()
