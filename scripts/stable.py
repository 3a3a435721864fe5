# SPDX-License-Identifier: GPL-2.0
"""make stable: the series on the newest linux-source-6.12 that Debian's
archive offers. The question a stable backport's maintainer asks after
each stable release: does the series still apply, has stable taken one of
its changes, and does every case still prove what it proves on the pin?

The newer package is fetched as the pinned one is (apt, its checksum from
the archive's own metadata, apt-cache show), imported into the same cache
repository as a root commit of its own under its own tag, and the series
applied patch by patch in scratch worktrees (trees/stable-*): the pinned
trees are never touched, and make test stays on the pin.
"""

import functools
import gzip
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import base_source
import kunit_run
import manifest
import project
import series
import trees
import verify
from project import SeriesError

Runner = Callable[..., subprocess.CompletedProcess]
CHANGELOG_MEMBER = (f'./usr/share/doc/{project.BASE_PACKAGE}/'
                    'changelog.Debian.gz')


# -- Debian versions (Debian Policy 5.6.12) -----------------------------------

def _order(c: str) -> int:
    if c == '~':
        return -1
    if c.isdigit():
        return 0
    if c.isalpha():
        return ord(c)
    return ord(c) + 256


def _compare_part(a: str, b: str) -> int:
    while a or b:
        na = re.match(r'\D*', a).group(0)   # type: ignore[union-attr]
        nb = re.match(r'\D*', b).group(0)   # type: ignore[union-attr]
        for i in range(max(len(na), len(nb))):
            ca = _order(na[i]) if i < len(na) else 0
            cb = _order(nb[i]) if i < len(nb) else 0
            if ca != cb:
                return -1 if ca < cb else 1
        a, b = a[len(na):], b[len(nb):]
        da = re.match(r'\d*', a).group(0)   # type: ignore[union-attr]
        db = re.match(r'\d*', b).group(0)   # type: ignore[union-attr]
        if int(da or 0) != int(db or 0):
            return -1 if int(da or 0) < int(db or 0) else 1
        a, b = a[len(da):], b[len(db):]
    return 0


def compare_versions(a: str, b: str) -> int:
    """-1, 0 or 1 as Debian orders the versions a and b (epoch, upstream
    version, revision; "~" sorts before anything)."""
    def split(v: str) -> Tuple[int, str, str]:
        epoch, _, rest = v.rpartition(':') if ':' in v else ('0', '', v)
        upstream, _, revision = rest.rpartition('-') if '-' in rest \
            else (rest, '', '')
        return int(epoch or 0), upstream, revision
    ea, ua, ra = split(a)
    eb, ub, rb = split(b)
    if ea != eb:
        return -1 if ea < eb else 1
    return _compare_part(ua, ub) or _compare_part(ra, rb)


def offered(madison: str, package: str = project.BASE_PACKAGE) -> List[str]:
    """The versions apt-cache madison lists for the package, newest
    first."""
    found = {parts[1] for line in madison.splitlines()
             if len(parts := [p.strip() for p in line.split('|')]) >= 3
             and parts[0] == package}
    return sorted(found, key=functools.cmp_to_key(compare_versions),
                  reverse=True)


def choose(versions: Sequence[str], pinned: str, wanted: str = ''
           ) -> Optional[str]:
    """The version to try: wanted when given (it must be offered), else
    the newest offered if it is newer than the pin, else None."""
    if wanted:
        if wanted not in versions:
            raise SeriesError(f'{project.BASE_PACKAGE} {wanted} is not in '
                              'the archive (apt-cache madison offers '
                              + (', '.join(versions) or 'nothing') + ')')
        return wanted
    newer = [v for v in versions if compare_versions(v, pinned) > 0]
    return newer[0] if newer else None


@dataclass(frozen=True)
class Offer:
    version: str
    sha256: str
    size: int
    filename: str


def offer_of(show: str, version: str,
             package: str = project.BASE_PACKAGE) -> Offer:
    """The archive's record of one version (apt-cache show): what the
    downloaded .deb must match."""
    for para in re.split(r'\n\s*\n', show):
        fields = dict(re.findall(r'^([A-Za-z0-9-]+): ?(.*)$', para, re.M))
        if fields.get('Package') == package and \
                fields.get('Version') == version:
            if not re.fullmatch(r'[0-9a-f]{64}', fields.get('SHA256', '')):
                raise SeriesError(f'{package} {version}: the archive\'s '
                                  'record has no SHA256')
            return Offer(version, fields['SHA256'],
                         int(fields.get('Size', '0')),
                         fields.get('Filename', ''))
    raise SeriesError(f'{package} {version}: no record in apt-cache show')


def tag_of(version: str) -> str:
    """The cache repository's tag of an imported version (git refuses
    "~" in a ref)."""
    return 'debian/' + version.replace('~', '_').replace(':', '%')


def deb_file(cache: Path, version: str) -> Path:
    return cache / 'debs' / f'{project.BASE_PACKAGE}_{version}_all.deb'


def fetch(cache: Path, offer: Offer, runner: Runner = subprocess.run
          ) -> Path:
    """apt-get download of the offered version, checked against the
    archive's SHA256 before it is kept in the cache."""
    deb = deb_file(cache, offer.version)
    if deb.exists():
        base_source.check_sha256(deb, offer.sha256, 'cached package')
        return deb
    deb.parent.mkdir(parents=True, exist_ok=True)
    spec = f'{project.BASE_PACKAGE}={offer.version}'
    with tempfile.TemporaryDirectory(dir=deb.parent) as tmp:
        proc = runner(['apt-get', 'download', spec], cwd=tmp,
                      capture_output=True, text=True, check=False)
        debs = list(Path(tmp).glob('*.deb'))
        if proc.returncode or len(debs) != 1:
            raise SeriesError(f'cannot download {spec} with apt: '
                              + project.last_line(proc.stderr,
                                                  'no .deb produced'))
        base_source.check_sha256(debs[0], offer.sha256, 'downloaded package')
        debs[0].replace(deb)
    return deb


def changelog(deb: Path) -> str:
    """The package's Debian changelog (it lists the upstream stable
    changes each release takes)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / 'changelog.gz'
        with open(out, 'wb') as f:
            dpkg = subprocess.Popen(['dpkg-deb', '--fsys-tarfile', str(deb)],
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL)
            tar = subprocess.run(['tar', '-xO', CHANGELOG_MEMBER],
                                 stdin=dpkg.stdout, stdout=f,
                                 stderr=subprocess.PIPE, check=False)
            assert dpkg.stdout is not None
            dpkg.stdout.close()
            dpkg.wait()
        if tar.returncode:
            return ''
        return gzip.decompress(out.read_bytes()).decode(errors='replace')


def newer_entries(text: str, pinned: str) -> str:
    """The changelog's entries above the pinned version's."""
    at = re.search(r'^\S+ \(' + re.escape(pinned) + r'\) ', text, re.M)
    return text[:at.start()] if at else text


def import_version(cache: Path, deb: Path, version: str) -> str:
    """The version's tree as a root commit of its own in the cache
    repository, tagged tag_of(version) once it is complete; the tag."""
    repo = cache / 'linux.git'
    tag = tag_of(version)
    if project.git(repo, 'rev-parse', '-q', '--verify', f'refs/tags/{tag}',
                   check=False).returncode == 0:
        return tag
    with tempfile.TemporaryDirectory(dir=cache, prefix='.stable-') as tmp_s:
        tmp = Path(tmp_s)
        src = tmp / 'src'
        src.mkdir()
        print(f'extracting {deb.name}', flush=True)
        tarball = tmp / 'linux.tar.xz'
        base_source.extract_tarball(deb, tarball, sha256='')
        project.run(['tar', '-xJf', str(tarball), '-C', str(src)],
                    'extracting the kernel tarball')
        tarball.unlink()
        work = src / project.BASE_TOPDIR
        if not (work / 'Makefile').is_file():
            raise SeriesError(f'{deb.name}: its tarball has no '
                              f'{project.BASE_TOPDIR}/Makefile')
        print(f'importing {version} into git', flush=True)
        env = dict(base_source.PRISTINE_ENV, GIT_DIR=str(repo),
                   GIT_WORK_TREE=str(work), GIT_INDEX_FILE=str(tmp / 'index'))
        project.git(None, 'add', '-f', '-A', env=env)
        tree = project.git(None, 'write-tree', env=env).stdout.strip()
        commit = project.git(None, 'commit-tree', tree, '-m',
                             f'Debian {project.BASE_PACKAGE} {version}',
                             env=env).stdout.strip()
        project.git(repo, 'tag', tag, commit)
    return tag


# -- the series on the new base --------------------------------------------

@dataclass(frozen=True)
class Applied:
    patch: str
    how: str                    # CLEAN ... NOT_TRIED below
    detail: str = ''
    commit: str = ''             # MERGED: the merged commit


CLEAN, OFFSET, FUZZ = 'applies cleanly', 'applies with offset', \
    'applies with fuzz'
CARRIED, CONFLICT, NOT_TRIED = 'already in stable', 'conflicts', 'not tried'
# patch(1) rejects a hunk, but git's 3-way merge of the patch (from the
# blobs its index lines name, which the cache repository holds) applies
# it: stable changed lines the hunk only carries as context. The series
# needs a refreshed patch for this base; the run goes on with the merged
# one so that the matrix still answers, and the refreshed patch is
# written out, but the run fails.
MERGED = 'needs a refresh'

_HUNK = re.compile(r'^Hunk #(\d+) (succeeded|FAILED) at (\d+)'
                   r'(?: with fuzz (\d+))?(?: \(offset (-?\d+) lines?\))?',
                   re.M)
_FILE = re.compile(r'^(?:checking|patching) file (\S+)', re.M)


def hunk_headings(patch_text: str) -> Dict[Tuple[str, int], str]:
    """(file, hunk number) -> the function its @@ line names."""
    found: Dict[Tuple[str, int], str] = {}
    file, n = '', 0
    for line in patch_text.splitlines():
        if line.startswith('+++ '):
            file = re.sub(r'^b/', '', line[4:].split('\t')[0])
            n = 0
        elif line.startswith('@@ ') and file:
            n += 1
            found[file, n] = line.split('@@', 2)[2].strip() if \
                line.count('@@') >= 2 else ''
    return found


def classify(dry_run: str, rc: int, reverse_rc: int, patch: str,
             patch_text: str) -> Applied:
    """One patch's fate from patch(1)'s --dry-run output (forward) and
    the return code of a reverse dry run."""
    if rc and not reverse_rc:
        return Applied(patch, CARRIED, 'its reverse applies: the new base '
                       'has the change')
    headings = hunk_headings(patch_text)
    notes, failed = [], []
    file = ''
    for m in sorted([*_FILE.finditer(dry_run), *_HUNK.finditer(dry_run)],
                    key=lambda x: x.start()):
        if m.re is _FILE:
            file = m.group(1)
            continue
        n = int(m.group(1))
        where = f'{file} hunk #{n}'
        heading = headings.get((file, n), '')
        if m.group(2) == 'FAILED':
            failed.append(where + (f' ({heading})' if heading else ''))
            continue
        fuzz, offset = m.group(4), m.group(5)
        if fuzz:
            notes.append(f'{where} fuzz {fuzz}')
        if offset:
            notes.append(f'{where} offset {offset}')
    if rc or failed:
        return Applied(patch, CONFLICT, 'rejected: ' + (
            ', '.join(failed) or project.last_line(dry_run, 'patch failed')))
    how = FUZZ if any(' fuzz ' in n for n in notes) else \
        OFFSET if notes else CLEAN
    return Applied(patch, how, ', '.join(notes))


def upstream_refs(patch_text: str) -> List[Tuple[str, str]]:
    """(commit id, subject) of each upstream commit the patch's message
    says it ports ("upstream commit <id> ("<subject>")")."""
    message = patch_text.split('\n---\n', 1)[0]
    flat = re.sub(r'\s+', ' ', message)
    return re.findall(r'[Uu]pstream commit ([0-9a-f]{12,40}) \("(.+?)"\)',
                      flat)


def carried_by(entries: str, refs: Sequence[Tuple[str, str]]) -> str:
    """Which upstream commit the newer changelog entries name, by its
    subject, or ''."""
    flat = re.sub(r'\s+', ' ', entries)
    for commit, subject in refs:
        if subject in flat:
            return f'{commit} ("{subject}"), in the changelog'
    return ''


def entries_touching(entries: str, detail: str) -> List[str]:
    """The changelog's entries whose subject names a file of the detail
    (its path without the suffix, as "mm/page_table_check: ..." names
    mm/page_table_check.c): where to look first for what moved a hunk."""
    items = [re.sub(r'\s+', ' ', m.group(1)) for m in
             re.finditer(r'^ +- (.+(?:\n {6,}\S.*)*)', entries, re.M)]
    stems = {f.rsplit('.', 1)[0] for f in re.findall(r'(\S+) hunk #', detail)}
    return [i for i in items if any(i.startswith(stem + ':') or
                                    i.startswith(stem + ' ')
                                    for stem in stems)]


def _commit(tree: Path, text: str, name: str) -> None:
    subject = re.search(r'^Subject: (?:\[PATCH[^\]]*\] )?(.*)$', text, re.M)
    project.git(tree, 'add', '-A')
    project.git(tree, 'commit', '-q', '--no-verify', '-m',
                subject.group(1) if subject else name,
                env=dict(base_source.PRISTINE_ENV))


def _reset(tree: Path) -> None:
    project.git(tree, 'reset', '-q', '--hard', 'HEAD')
    project.git(tree, 'clean', '-q', '-fd')


def three_way(tree: Path, patch: Path, conflict: Applied) -> Applied:
    """A rejected patch merged by git am --3way, message and author kept;
    committed when the merge leaves no conflict, else the tree as it was
    and the conflict."""
    committer = {k: v for k, v in base_source.PRISTINE_ENV.items()
                 if k.startswith('GIT_COMMITTER_')}
    merge = project.git(tree, 'am', '-q', '--3way', str(patch),
                        env=committer, check=False)
    if merge.returncode:
        project.git(tree, 'am', '--abort', env=committer, check=False)
        _reset(tree)
        return conflict
    commit = project.git(tree, 'rev-parse', 'HEAD').stdout.strip()
    return Applied(patch.name, MERGED, conflict.detail.replace(
        'rejected: ', 'stable changed the context of ', 1) +
        '; git am --3way merges it', commit)


def apply_one(tree: Path, patch: Path, runner: Runner = subprocess.run
              ) -> Applied:
    """Try the patch on tree's HEAD; apply and commit it unless it
    conflicts or is already there."""
    text = patch.read_text()
    base = ['patch', '-p1', '--forward', '--batch', '--no-backup-if-mismatch']
    dry = runner([*base, '--dry-run', '-i', str(patch)], cwd=tree,
                 capture_output=True, text=True, check=False)
    reverse = runner(['patch', '-p1', '-R', '--batch', '--dry-run', '-s',
                      '-i', str(patch)], cwd=tree, capture_output=True,
                     text=True, check=False) if dry.returncode else dry
    got = classify(dry.stdout + dry.stderr, dry.returncode,
                   reverse.returncode if dry.returncode else 1, patch.name,
                   text)
    if got.how == CONFLICT:
        return three_way(tree, patch, got)
    if got.how == CARRIED:
        return got
    real = runner([*base, '-s', '-i', str(patch)], cwd=tree,
                  capture_output=True, text=True, check=False)
    if real.returncode:
        _reset(tree)
        return Applied(patch.name, CONFLICT, project.last_line(
            real.stdout + real.stderr, 'patch failed'))
    _commit(tree, text, patch.name)
    return got


def refresh(tree: Path, done: Sequence[Applied], out: Path) -> List[Path]:
    """The patches that needed a 3-way merge, refreshed: git format-patch
    of the merged commits, under the series' names and subject numbers."""
    shutil.rmtree(out, ignore_errors=True)
    written = []
    for a in done:
        if a.how != MERGED:
            continue
        out.mkdir(parents=True, exist_ok=True)
        made = Path(project.git(tree, 'format-patch', '-1', '--no-signature',
                                '-o', str(out), a.commit).stdout.strip())
        old = (project.PATCHES / a.patch).read_text()
        prefix = re.search(r'^Subject: (\[PATCH[^\]]*\])', old, re.M)
        text = made.read_text()
        if prefix:
            text = text.replace('Subject: [PATCH]', 'Subject: ' +
                                prefix.group(1), 1)
        made.unlink()
        target = out / a.patch
        target.write_text(text)
        written.append(target)
    return written


def _worktree(cache: Path, name: str, commit: str) -> Path:
    """trees/<name> detached at commit, whatever it held before."""
    tree = trees.scratch_worktree(cache, name, commit).path
    project.git(tree, 'checkout', '-q', '-f', '--detach', commit)
    project.git(tree, 'clean', '-q', '-fdx', '-e', '.kunit-*')
    return tree


def apply_series(cache: Path, tag: str, the_series: series.Series,
                 entries: str) -> Tuple[List[Applied], str, str]:
    """The series on the tag in trees/stable-check: each patch's fate,
    and the base (seams + suites) and patched commits; the patched one
    is '' when a patch conflicts (those after it are not tried)."""
    tree = _worktree(cache, 'stable-check', tag)
    done: List[Applied] = []
    base = ''
    for name in [*the_series.seams, None, *the_series.changes]:
        if name is None:
            trees.commit_suites(tree)
            base = project.git(tree, 'rev-parse', 'HEAD').stdout.strip()
            continue
        if done and done[-1].how in (CONFLICT, NOT_TRIED):
            done.append(Applied(name, NOT_TRIED, 'after a conflict'))
            continue
        got = apply_one(tree, project.PATCHES / name)
        if got.how == CARRIED:
            text = (project.PATCHES / name).read_text()
            named = carried_by(entries, upstream_refs(text))
            got = Applied(name, CARRIED, named or got.detail)
        elif got.how in (MERGED, CONFLICT):
            near = entries_touching(entries, got.detail)
            if near:
                got = Applied(name, got.how, got.detail + '; the changelog '
                              'has ' + ', '.join(f'"{n}"' for n in near),
                              got.commit)
        done.append(got)
    if any(a.how in (CONFLICT, NOT_TRIED) for a in done) or not base:
        return done, base, ''
    return done, base, project.git(tree, 'rev-parse', 'HEAD').stdout.strip()


def column_runs(column: str, case: str) -> bool:
    return kunit_run.in_scope(column.partition('+')[2] or manifest.MAIN_LANE,
                              case)


def explain(row: verify.Row, column: str, cell: verify.Cell,
            carried: Sequence[Applied]) -> str:
    """Why a cell of the new base differs from the pinned base's."""
    took = ', '.join(f'{a.patch[:4]} ({a.detail})' for a in carried)
    if column.startswith('base') and cell.expected.startswith('fail') and \
            cell.actual == 'pass':
        return ('passes without the series: stable took the fix' +
                (f' ({took})' if took else ', by a change none of the '
                 'patches names: find it in the changelog'))
    if column.startswith('patched') and cell.actual.startswith('fail'):
        return 'a change of stable breaks what the series proves here'
    return f'was {cell.expected} on the pinned base'


def run(cache: Path, version: str = '', lanes: Sequence[str] = ('main',),
        runner: Runner = subprocess.run) -> int:
    """make stable; 0 when the series applies and proves the same (or
    stable offers nothing newer), else 1."""
    start = time.monotonic()
    pkg, pinned = project.BASE_PACKAGE, project.BASE_VERSION
    for lane in lanes:
        if lane not in kunit_run.LANES:
            raise SeriesError(f'unknown lane {lane!r} (one of '
                              f'{", ".join(kunit_run.LANES)})')
    madison = runner(['apt-cache', 'madison', pkg], capture_output=True,
                     text=True, check=False)
    versions = offered(madison.stdout)
    if not versions:
        raise SeriesError(f'apt-cache madison lists no {pkg}: '
                          + project.last_line(madison.stderr,
                                              'no package lists (make deps '
                                              'runs apt-get update)'))
    chosen = choose(versions, pinned, version)
    if chosen is None or chosen == pinned:
        print(f'{pkg}: the archive offers nothing newer than the pinned '
              f'{pinned} (it has {", ".join(versions)})')
        return 0
    show = runner(['apt-cache', 'show', f'{pkg}={chosen}'],
                  capture_output=True, text=True, check=False)
    offer = offer_of(show.stdout, chosen)
    print(f'{pkg} {chosen}: sha256 {offer.sha256}, {offer.size} bytes '
          f'(the archive\'s record; pinned: {pinned})', flush=True)
    deb = fetch(cache, offer, runner)
    tag = import_version(cache, deb, chosen)
    entries = newer_entries(changelog(deb), pinned)
    the_series = series.load(project.PATCHES)
    done, base, patched = apply_series(cache, tag, the_series, entries)
    width = max(len(a.patch) for a in done)
    lines = [f'  {a.patch:<{width}}  {a.how}' + (f': {a.detail}'
                                                 if a.detail else '')
             for a in done]
    print(f'the series on {chosen}:\n' + '\n'.join(lines), flush=True)
    out = project.RESULTS / 'stable' / chosen
    out.mkdir(parents=True, exist_ok=True)
    conflict = next((a for a in done if a.how == CONFLICT), None)
    refreshed = refresh(trees.tree_path(cache, 'stable-check'), done,
                        out / 'refreshed')
    if refreshed:
        lines.append(f'  refreshed for {chosen}: ' + ', '.join(
            str(p) for p in refreshed))
        print(lines[-1], flush=True)
    (out / 'report.txt').unlink(missing_ok=True)
    if conflict:
        (out / 'patches.txt').write_text('\n'.join(lines) + '\n')
        raise SeriesError(f'patch {conflict.patch} does not apply to '
                          f'{chosen}: {conflict.detail}')
    expected = manifest.load(project.MANIFEST)
    actual: Dict[str, Dict[str, str]] = {}
    for name, commit in (('base', base), ('patched', patched)):
        path = _worktree(cache, f'stable-{name}', commit)
        for lane in lanes:
            if name in kunit_run.LANES[lane].trees:
                column = name if lane == manifest.MAIN_LANE \
                    else f'{name}+{lane}'
                actual[column] = kunit_run.run(
                    trees.Tree(f'stable-{name}', path), lane, cache,
                    expected=list(expected))
    columns = list(actual)
    rows = verify.compare(expected, actual, columns, column_runs)
    good, bad = verify.counts(rows)
    carried = [a for a in done if a.how == CARRIED]
    differ = [f'  {r.case} [{column}] {c.expected}/{c.actual}: '
              + explain(r, column, c, carried)
              for r in rows for column, c in r.cells.items() if not c.ok]
    minutes = (time.monotonic() - start) / 60
    text = (f'the series on {chosen}:\n' + '\n'.join(lines) + '\n'
            f'matrix on {chosen} ({", ".join(columns)}): {good} cells as '
            f'on the pinned {pinned}, {bad} differ' +
            ''.join('\n' + d for d in differ) +
            f'\nmake stable: {minutes:.0f} min\n')
    if refreshed:
        text += (f'make stable: the series does not apply to {chosen} as it '
                 f'is: {len(refreshed)} patch(es) need the refresh above\n')
    (out / 'patches.txt').write_text('\n'.join(lines) + '\n')
    (out / 'report.txt').write_text(text)
    print(text.split('\n', len(lines) + 1)[-1], end='')
    return 1 if bad or refreshed else 0
