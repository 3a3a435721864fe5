# SPDX-License-Identifier: GPL-2.0
"""Base and patched kernel trees: git worktrees of the pristine repository.

    base    = pristine + seam patches + suites commit
    patched = base + the changes of the series

Each branch is rebuilt only when what it is made of (its recipe) changes,
and files whose content a rebuild did not change keep their old mtime, so
make rebuilds only what a change touched.
"""

import hashlib
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

import project
from project import SeriesError
from series import Series

SUITES_SUBJECT = "mm: add the series' KUnit suites and benchmark harness"
SUITES_HOOKS = {
    'mm/Kconfig': ('source "mm/damon/Kconfig"\n',
                   '\nsource "mm/series-kunit/Kconfig"\n'
                   'source "mm/series-bench/Kconfig"\n'),
    'mm/Makefile': ('obj-$(CONFIG_DEBUG_RODATA_TEST) += rodata_test.o\n',
                    'obj-$(CONFIG_MM_SERIES_KUNIT) += series-kunit/\n'
                    'obj-$(CONFIG_MM_SERIES_BENCH) += series-bench/\n'),
}
SUITE_SUFFIXES = ('.c', '.h')
SUITE_NAMES = ('Kconfig', 'Makefile')
# Commits we make get fixed identities so their content, not the clock,
# decides their hashes.
COMMIT_ENV = {
    'GIT_AUTHOR_NAME': 'arm64-mm-series tooling',
    'GIT_AUTHOR_EMAIL': 'tooling@arm64-mm-series.invalid',
    'GIT_COMMITTER_NAME': 'arm64-mm-series tooling',
    'GIT_COMMITTER_EMAIL': 'tooling@arm64-mm-series.invalid',
}


def git(cwd: Path, *args: str, env: Optional[Dict[str, str]] = None,
        check: bool = True) -> 'subprocess.CompletedProcess[str]':
    return project.run(['git', *args], f'git {args[0]} in {cwd}', cwd=cwd,
                       env=dict(os.environ, **(env or {})), check=check)


def suite_files(src: Path) -> List[Path]:
    """The files of kunit/ or lib/ that belong in a kernel tree."""
    return sorted(p for p in src.iterdir() if p.is_file() and
                  (p.suffix in SUITE_SUFFIXES or p.name in SUITE_NAMES))


def recipe_key(tag_commit: str, patch_dir: Path, seams: Sequence[str],
               changes: Sequence[str]) -> str:
    """Hash of everything a branch is made of, in order."""
    digest = hashlib.sha256(tag_commit.encode())

    def add(name: str, data: bytes) -> None:
        digest.update(f'{len(name)}:{name}:{len(data)}:'.encode() + data)

    for name in seams:
        add(name, (patch_dir / name).read_bytes())
    for src, dst in project.TREE_SUITE_DIRS.items():
        for f in suite_files(src):
            add(f'{dst}/{f.name}', f.read_bytes())
    add('suites-hooks', repr(sorted(SUITES_HOOKS.items())).encode())
    for name in changes:
        add(name, (patch_dir / name).read_bytes())
    return digest.hexdigest()


def am_failure(patch: str, output: str) -> str:
    """One line naming the patch and the first hunk that failed."""
    hunk = re.search(r'^error: patch failed: (\S+)', output, re.M)
    if hunk:
        return f'patch {patch} does not apply: hunk at {hunk.group(1)} failed'
    other = re.search(r'^error: (.*)$', output, re.M)
    why = other.group(1) if other else 'git am failed'
    return f'patch {patch} does not apply: {why}'


def apply_patches(tree: Path, patch_dir: Path, patches: Iterable[str]) -> None:
    for name in patches:
        proc = git(tree, 'am', '--no-3way', '--committer-date-is-author-date',
                   str(patch_dir / name), env=COMMIT_ENV, check=False)
        if proc.returncode != 0:
            git(tree, 'am', '--abort', check=False)
            raise SeriesError(am_failure(name, proc.stdout + proc.stderr))


def write_if_changed(path: Path, data: bytes) -> None:
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def glue_suites(tree: Path) -> None:
    """Copy kunit/ and lib/ into the tree and hook them up."""
    for src, dst in project.TREE_SUITE_DIRS.items():
        wanted = {f.name: f for f in suite_files(src)}
        target = tree / dst
        if target.is_dir():
            for stale in target.iterdir():
                if stale.is_file() and stale.name not in wanted:
                    stale.unlink()
        for name, f in wanted.items():
            write_if_changed(target / name, f.read_bytes())
    for rel, (anchor, hook) in SUITES_HOOKS.items():
        path = tree / rel
        text = path.read_text()
        if anchor not in text:
            raise SeriesError(f'{rel}: cannot hook the suites in, '
                              f'no line {anchor.strip()!r}')
        if hook not in text:
            path.write_text(text.replace(anchor, anchor + hook, 1))


def commit_suites(tree: Path) -> None:
    """Glue the suites in and commit them."""
    glue_suites(tree)
    git(tree, 'add', '-f', *SUITES_HOOKS, *project.TREE_SUITE_DIRS.values())
    git(tree, 'commit', '-q', '-m', SUITES_SUBJECT, '-m',
        'Generated by the project tooling from its kunit/ and lib/.',
        env=dict(COMMIT_ENV, GIT_AUTHOR_DATE='2025-11-10T18:05:00+00:00',
                 GIT_COMMITTER_DATE='2025-11-10T18:05:00+00:00'))


@dataclass(frozen=True)
class Tree:
    name: str
    path: Path


def scratch_worktree(cache: Path, name: str, ref: str) -> Tree:
    """trees/<name>: a detached worktree of its own for walks and mutants,
    made at ref once and kept, with its build directories, between runs."""
    path = cache / 'trees' / name
    repo = cache / 'linux.git'
    if not (path / '.git').exists():
        git(repo, 'worktree', 'prune')
        git(repo, 'worktree', 'add', '--detach', str(path), ref)
    return Tree(name, path)


def _changed_files(tree: Path, old: str, new: str) -> List[str]:
    out = git(tree, 'diff', '--name-only', '--no-renames', old, new).stdout
    return out.splitlines()


def _state_file(tree: Path) -> Path:
    return Path(git(tree, 'rev-parse', '--absolute-git-dir').stdout.strip()) \
        / 'mmseries-recipe'


def is_current(tree: Path, branch: str, key: str) -> bool:
    state = _state_file(tree)
    if not state.exists():
        return False
    want_key, want_commit = (state.read_text().split() + ['', ''])[:2]
    head = git(tree, 'rev-parse', 'HEAD', check=False).stdout.strip()
    ref = git(tree, 'symbolic-ref', '-q', 'HEAD', check=False).stdout.strip()
    clean = git(tree, 'diff', '--quiet', 'HEAD', check=False).returncode == 0
    return (want_key == key and head == want_commit and
            ref == f'refs/heads/{branch}' and clean)


def build_branch(repo: Path, tree: Path, branch: str, seams: Sequence[str],
                 changes: Sequence[str], patch_dir: Path = project.PATCHES,
                 tag: str = project.BASE_TAG) -> bool:
    """Make tree hold branch = tag + seams + suites commit + changes.

    Returns True when the tree had to be rebuilt.
    """
    tag_commit = git(repo, 'rev-parse', f'{tag}^{{commit}}').stdout.strip()
    key = recipe_key(tag_commit, patch_dir, seams, changes)
    if not tree.exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        git(repo, 'worktree', 'prune')
        git(repo, 'worktree', 'add', '-q', '--detach', str(tree), tag_commit)
    elif is_current(tree, branch, key):
        return False
    state = _state_file(tree)
    state.unlink(missing_ok=True)

    git(tree, 'am', '--abort', check=False)
    old_head = git(tree, 'rev-parse', 'HEAD').stdout.strip()
    # Files the checkout below rewrites: remember their mtimes, to give
    # back to those whose content ends up the same as before.
    mtimes = {}
    for rel in _changed_files(tree, old_head, tag_commit):
        try:
            mtimes[rel] = (tree / rel).stat().st_mtime_ns
        except FileNotFoundError:
            pass
    git(tree, 'checkout', '-q', '-f', '--detach', tag_commit)
    apply_patches(tree, patch_dir, seams)
    commit_suites(tree)
    apply_patches(tree, patch_dir, changes)
    new_head = git(tree, 'rev-parse', 'HEAD').stdout.strip()
    changed = set(_changed_files(tree, old_head, new_head))
    for rel, ns in mtimes.items():
        if rel not in changed and (tree / rel).exists():
            os.utime(tree / rel, ns=(ns, ns))
    git(tree, 'checkout', '-q', '-B', branch)
    state.write_text(f'{key} {new_head}\n')
    return True


def prepare(repo: Path, series: Series, cache: Path) -> Dict[str, Tree]:
    """Bring both worktrees up to date with the series and the suites."""
    trees = {}
    for name, changes in (('base', []), ('patched', series.changes)):
        path = cache / 'trees' / name
        rebuilt = build_branch(repo, path, name, series.seams, changes)
        print(f'{name} tree: {"rebuilt" if rebuilt else "up to date"} '
              f'({path})', flush=True)
        trees[name] = Tree(name, path)
    return trees
