# SPDX-License-Identifier: GPL-2.0
"""What each benchmark sample executed, counted by a QEMU TCG plugin.

scripts/tcg_plugin/mm_counts.c counts instructions, DSB, ISB, DMB and TLBI
(by operation) between the two HINTs the harness puts around each timed
sample, and writes one `mm_window` line per sample to QEMU's log. Under
the icount clock (one vCPU, a seed per boot) the counts are exact and
repeat; they show the barrier batching and the TLB maintenance the seeds
describe, which TCG's timing cannot.

The plugin is built against the qemu-plugin.h of the QEMU that runs it:
the header of Debian's source package of the installed qemu-system-arm,
fetched with `apt-get source --download-only` through a deb-src list and
package lists of the cache's own (the machine's apt configuration is left
alone), and glib's flags from pkg-config (libglib2.0-dev). What cannot be
had is said in one line, and the report goes on without the counts.
"""

import hashlib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import bench
import packages
import project
import stats
from project import SeriesError

SOURCE = project.REPO / 'scripts' / 'tcg_plugin' / 'mm_counts.c'
QEMU_PACKAGE = 'qemu-system-arm'
# What building the plugin needs beyond the project's packages.
PACKAGES = ('libglib2.0-dev', 'pkg-config')
APT_SOURCES = Path('/etc/apt/sources.list.d/debian.sources')

_WINDOW = re.compile(r'^mm_window (?P<n>\d+) insns=(?P<insns>\d+) '
                     r'(?:irq_insns=(?P<irq_insns>\d+) irqs=(?P<irqs>\d+) )?'
                     r'dsb=(?P<dsb>\d+) isb=(?P<isb>\d+) dmb=(?P<dmb>\d+) '
                     r'tlbi=(?P<tlbi>\d+) ops=(?P<ops>\S+)$', re.M)
# The columns of the report, per operation of the benchmark: own_insns
# leaves out what ran in interrupt handlers (irq_insns), which moves with
# the kernel's code layout rather than with the operation.
COLUMNS = ('insns', 'own_insns', 'irq_insns', 'irqs', 'dsb', 'isb', 'tlbi',
           'tlbi_range', 'tlbi_asid', 'tlbi_all')


@dataclass(frozen=True)
class Window:
    insns: int
    dsb: int
    isb: int
    dmb: int
    tlbi: int
    ops: Tuple[Tuple[str, int], ...]
    irq_insns: int = 0
    irqs: int = 0

    @property
    def own_insns(self) -> int:
        return self.insns - self.irq_insns

    def kind(self, kind: str) -> int:
        """TLBIs of one form: by range (rva*), by ASID (aside*), of
        everything (vmalle*)."""
        prefix = {'tlbi_range': 'rva', 'tlbi_asid': 'aside',
                  'tlbi_all': 'vmalle'}[kind]
        return sum(n for op, n in self.ops if op.startswith(prefix))

    def value(self, column: str) -> int:
        return self.kind(column) if column.startswith('tlbi_') else \
            getattr(self, column)


def parse_windows(text: str) -> List[Window]:
    """The plugin's windows in the order they closed; a gap in their
    numbers (a lost line) is an error."""
    found: List[Window] = []
    for m in _WINDOW.finditer(text):
        if int(m.group('n')) != len(found):
            raise SeriesError(f'plugin log: window {m.group("n")} where '
                              f'{len(found)} was due')
        ops = () if m.group('ops') == '-' else tuple(
            (op, int(n)) for op, n in
            (item.split(':') for item in m.group('ops').split(',')))
        found.append(Window(*(int(m.group(f)) for f in
                              ('insns', 'dsb', 'isb', 'dmb', 'tlbi')), ops,
                            int(m.group('irq_insns') or 0),
                            int(m.group('irqs') or 0)))
    return found


def timed_samples(log: str) -> List[Tuple[bench.Key, int]]:
    """The harness's timed samples in the order it printed them: each
    one's case and loops."""
    return [(bench.Key(m.group('suite'), m.group('bench'),
                       m.group('params').strip(), m.group('unit')),
             int(m.group('loops')))
            for m in bench.SAMPLE.finditer(log) if m.group('unit') == 'ns']


# Per case and column, one value per boot: the mean over the boot's
# samples of the count per loop (per operation of the benchmark).
Counts = Dict[bench.Key, Dict[str, List[float]]]


def per_operation(log: str, windows: Sequence[Window]) -> Counts:
    """One boot's counts per operation, each window paired with the timed
    sample printed in the same place."""
    samples = timed_samples(log)
    if len(samples) != len(windows):
        raise SeriesError(f'plugin log: {len(windows)} windows for '
                          f'{len(samples)} timed samples')
    per_sample: Dict[bench.Key, Dict[str, List[float]]] = {}
    for (key, loops), w in zip(samples, windows):
        columns = per_sample.setdefault(key, {c: [] for c in COLUMNS})
        for c in COLUMNS:
            columns[c].append(w.value(c) / max(loops, 1))
    return {key: {c: [stats.mean(v)] for c, v in columns.items()}
            for key, columns in per_sample.items()}


def merge(into: Counts, more: Counts) -> None:
    for key, columns in more.items():
        mine = into.setdefault(key, {c: [] for c in COLUMNS})
        for c, values in columns.items():
            mine[c].extend(values)


def _cell(values: Sequence[float]) -> str:
    if not values:
        return '-'
    mean = stats.mean(values)
    return f'{mean:.0f}' if mean >= 100 else f'{mean:.2f}'.rstrip(
        '0').rstrip('.')


def render(base: Counts, patched: Counts) -> str:
    """Per harness case, base and patched: instructions, DSB, ISB and TLBI
    per operation (the TLBIs' range, ASID and all forms in brackets)."""
    lines = ['| case | insns/op base | patched | change | own insns/op '
             'base | patched | change | in IRQs/op base | patched | DSB/op '
             'base | patched | ISB/op base | patched | TLBI/op base (range/'
             'asid/all) | patched |',
             '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|']
    for key in sorted(set(base) | set(patched)):
        b, p = base.get(key, {}), patched.get(key, {})

        def tlbi(c: Dict[str, List[float]]) -> str:
            if not c:
                return '-'
            return (f'{_cell(c["tlbi"])} ({_cell(c["tlbi_range"])}/'
                    f'{_cell(c["tlbi_asid"])}/{_cell(c["tlbi_all"])})')
        def change(column: str) -> str:
            if b and p and b.get(column) and stats.mean(b[column]):
                ratio = stats.mean(p[column]) / stats.mean(b[column])
                return f'{100 * (ratio - 1):+.2f}%'
            return '-'
        lines.append(f'| {key.label()} | {_cell(b.get("insns", []))} | '
                     f'{_cell(p.get("insns", []))} | {change("insns")} | '
                     f'{_cell(b.get("own_insns", []))} | '
                     f'{_cell(p.get("own_insns", []))} | '
                     f'{change("own_insns")} | '
                     f'{_cell(b.get("irq_insns", []))} | '
                     f'{_cell(p.get("irq_insns", []))} | '
                     f'{_cell(b.get("dsb", []))} | {_cell(p.get("dsb", []))} | '
                     f'{_cell(b.get("isb", []))} | {_cell(p.get("isb", []))} | '
                     f'{tlbi(b)} | {tlbi(p)} |')
    return '\n'.join(lines)


def vectors_address(build: Path) -> Optional[int]:
    """The kernel's EL1 vector table (VBAR_EL1) from its System.map: the
    lanes' kernels have no KASLR, so it is where it runs."""
    system_map = build / 'System.map'
    if not system_map.exists():
        return None
    m = re.search(r'^([0-9a-f]+) T vectors$', system_map.read_text(), re.M)
    return int(m.group(1), 16) if m else None


def qemu_args(plugin: Path, log: Path, vectors: Optional[int] = None
              ) -> List[str]:
    arg = str(plugin) + (f',vectors={vectors:#x}' if vectors else '')
    return ['-plugin', arg, '-d', 'plugin', '-D', str(log)]


def deb_src_list(deb822: str) -> str:
    """The deb-src twin of each `Types: deb` stanza of a deb822 file."""
    stanzas = [s for s in re.split(r'\n\s*\n', deb822) if s.strip()]
    out = []
    for s in stanzas:
        if re.search(r'^Types:(?:.*\s)?deb(?:\s|$)', s, re.M) and \
                not re.search(r'^Enabled:\s*no', s, re.M | re.I):
            out.append(re.sub(r'^Types:.*$', 'Types: deb-src', s,
                              flags=re.M).strip())
    return '\n\n'.join(out) + '\n'


def _apt(private: Path, *args: str) -> None:
    options = ['-o', 'Dir::Etc::SourceList=/dev/null',
               '-o', f'Dir::Etc::SourceParts={private / "sources"}',
               '-o', f'Dir::State::Lists={private / "lists"}',
               '-o', f'Dir::Cache={private / "cache"}',
               '-o', 'APT::Sandbox::User=root']
    project.run(['apt-get', '-q', *options, *args],
                f'apt-get {args[0]} (the QEMU source for the TCG plugin)',
                cwd=private)


def plugin_header(cache: Path) -> Path:
    """qemu-plugin.h of the installed QEMU's Debian source package."""
    version = project.run(['dpkg-query', '-W', '-f=${source:Version}',
                           QEMU_PACKAGE],
                          f'dpkg-query {QEMU_PACKAGE}').stdout.strip()
    if not version:
        raise SeriesError(f'{QEMU_PACKAGE} is not installed')
    header = cache / 'qemu-source' / version / 'qemu-plugin.h'
    if header.exists():
        return header
    if not APT_SOURCES.exists():
        raise SeriesError(f'no {APT_SOURCES} to take a deb-src entry from')
    with tempfile.TemporaryDirectory(dir=cache, prefix='.qemu-src-') as tmp:
        private = Path(tmp)
        for d in ('sources', 'lists/partial', 'cache/archives/partial'):
            (private / d).mkdir(parents=True)
        (private / 'sources' / 'debian-src.sources').write_text(
            deb_src_list(APT_SOURCES.read_text()))
        _apt(private, 'update')
        _apt(private, 'source', '--download-only', f'qemu={version}')
        tarballs = sorted(private.glob('qemu_*.orig.tar.*'))
        if not tarballs:
            raise SeriesError(f'apt-get source qemu={version} left no '
                              'orig tarball')
        project.run(['tar', '-xf', str(tarballs[0]), '-C', tmp,
                     '--wildcards', '*/include/qemu/qemu-plugin.h'],
                    'extracting qemu-plugin.h')
        found = sorted(private.glob('*/include/qemu/qemu-plugin.h'))
        if not found:
            raise SeriesError('the QEMU source has no qemu-plugin.h')
        header.parent.mkdir(parents=True, exist_ok=True)
        tmp_header = header.with_suffix('.tmp')
        shutil.copyfile(found[0], tmp_header)
        os.replace(tmp_header, header)
    return header


def build(cache: Path) -> Path:
    """The plugin, built once per version of its source and header."""
    header = plugin_header(cache)
    digest = hashlib.sha256(SOURCE.read_bytes() + header.read_bytes()
                            ).hexdigest()[:16]
    plugin = cache / 'tcg-plugin' / f'mm_counts-{digest}.so'
    if plugin.exists():
        return plugin
    cflags = project.run(['pkg-config', '--cflags', 'glib-2.0'],
                         'pkg-config glib-2.0').stdout.split()
    plugin.parent.mkdir(parents=True, exist_ok=True)
    tmp = plugin.with_suffix('.tmp')
    project.run(['gcc', '-shared', '-fPIC', '-O2', '-Wall', *cflags,
                 f'-I{header.parent}', str(SOURCE), '-o', str(tmp)],
                'building the TCG plugin')
    os.replace(tmp, plugin)
    return plugin


def try_build(cache: Path) -> Tuple[Optional[Path], str]:
    """The plugin, or None and the one line that says why not."""
    try:
        note = packages.try_optional(PACKAGES)
        if note:
            return None, f'TCG plugin: {note}'
        return build(cache), ''
    except SeriesError as e:
        return None, f'TCG plugin not built ({e}); no DSB/ISB/TLBI columns'
    except OSError as e:
        return None, (f'TCG plugin not built ({e.strerror}); no '
                      'DSB/ISB/TLBI columns')
