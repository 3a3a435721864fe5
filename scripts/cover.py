# SPDX-License-Identifier: GPL-2.0
"""The series' cover letter, kernel-patches/0000-cover-letter.patch.

It has the form `git format-patch --cover-letter` gives it: the header,
[PATCH 00/NN] and the subject, the letter, then git's shortlog and
diffstat of the whole series. The letter is a summary kept by hand,
then the results, which `make report` writes from its run, in the form
seed 000 has them (per benchmark and machine, the change with (I)/(R)
marks, the legend; the seeds' rows beside ours), into
build/cover-letter.txt. The skeleton comes from git itself: the series
applied with `git am` onto the pristine tree in trees/cover, and
format-patch run there, so the shortlog and diffstat are git's own;
`make test` checks that the committed letter's match it.
"""

import email.utils
import json
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import bench
import mutate
import project
import seed_rows
import series
import stats
import trees
from mutation import verdicts
from project import SeriesError

COVER = project.PATCHES / '0000-cover-letter.patch'
# The first line of what make report writes; everything of the letter
# before it is the summary kept by hand.
RESULTS_HEADING = 'Results (written by make report)'
_SHORTLOG = re.compile(r'^\S.* \(\d+\):$', re.M)
_PLACEHOLDER_SUBJECT = '*** SUBJECT HERE ***'
_PLACEHOLDER_BLURB = '*** BLURB HERE ***'


@dataclass(frozen=True)
class Letter:
    head: str       # the mail header up to and with the Subject lines
    body: str       # the letter: summary, then results
    tail: str       # git's shortlog, diffstat and signature

    @property
    def text(self) -> str:
        return f'{self.head}\n{self.body.strip()}\n\n{self.tail}'


def parse(text: str, where: str = 'cover letter') -> Letter:
    """The three parts of a cover letter."""
    head, sep, rest = text.partition('\n\n')
    if not sep or 'Subject: ' not in head:
        raise SeriesError(f'{where}: no mail header with a Subject')
    tail = _SHORTLOG.search(rest)
    if not tail:
        raise SeriesError(f'{where}: no shortlog ("Name (N):")')
    return Letter(head + '\n', rest[:tail.start()], rest[tail.start():])


def subject(letter: Letter) -> str:
    """The subject after [PATCH 00/NN], unfolded."""
    m = re.search(r'^Subject: (.*(?:\n .*)*)', letter.head, re.M)
    text = ' '.join(m.group(1).split()) if m else ''
    return re.sub(r'^\[PATCH [^\]]*\] ?', '', text)


def summary(letter: Letter) -> str:
    """The hand-kept part of the letter."""
    return letter.body.split(RESULTS_HEADING, 1)[0].strip()


def skeleton(cache: Path, the_series: series.Series) -> Letter:
    """git format-patch --cover-letter of the series applied to the
    pristine tree, in trees/cover (made once, kept)."""
    tree = trees.scratch_worktree(cache, 'cover', project.BASE_TAG)
    project.git(tree.path, 'am', '--abort', check=False)
    project.git(tree.path, 'checkout', '-q', '--force', '--detach',
                project.BASE_TAG)
    first = (project.PATCHES / the_series.all[0]).read_text()
    author = re.search(r'^From: (.*(?:\n .*)*)\n', first, re.M)
    name, _, address = ' '.join((author.group(1) if author else '').split()
                                ).partition(' <')
    dates = [m.group(1) for m in (
        re.search(r'^Date: (.*)$', (project.PATCHES / p).read_text(), re.M)
        for p in the_series.all) if m]
    date = max(dates, key=email.utils.parsedate_to_datetime) if dates else ''
    # The letter is the series author's, dated like its newest patch.
    ident = {'GIT_COMMITTER_NAME': name, 'GIT_COMMITTER_EMAIL':
             address.rstrip('>'), 'GIT_COMMITTER_DATE': date}
    trees.apply_patches(tree.path, project.PATCHES, the_series.all)
    out = Path(tempfile.mkdtemp(prefix='cover-'))
    try:
        project.git(tree.path, 'format-patch', '-q', '--cover-letter',
                    '-n', '-o', str(out), f'{project.BASE_TAG}..HEAD',
                    env=ident)
        text = (out / '0000-cover-letter.patch').read_text()
    finally:
        shutil.rmtree(out, ignore_errors=True)
    text = re.sub(r'^Date: .*$', f'Date: {date}', text, count=1, flags=re.M)
    return parse(text, 'git format-patch --cover-letter')


def compose(skel: Letter, kept: Optional[Letter], results: str) -> Letter:
    """The letter: skeleton's header and tail, the kept subject and
    summary, the results."""
    head = skel.head
    if kept is not None:
        head = head.replace(_PLACEHOLDER_SUBJECT, subject(kept))
    keep = summary(kept) if kept is not None else _PLACEHOLDER_BLURB
    return Letter(head, f'{keep}\n\n{RESULTS_HEADING}\n\n{results.strip()}\n',
                  skel.tail)


def check(committed: Letter, skel: Letter) -> List[str]:
    """Where the committed letter does not match the series: the patch
    count of its subject, the shortlog and the diffstat."""
    problems = []
    want = re.search(r'\[PATCH 00/\d+\]', skel.head)
    if want and want.group(0) not in committed.head:
        problems.append(f'its subject does not say {want.group(0)}')
    if _PLACEHOLDER_SUBJECT in committed.head:
        problems.append('its subject is the placeholder')
    if committed.tail.split('\n-- \n')[0] != skel.tail.split('\n-- \n')[0]:
        problems.append('its shortlog or diffstat is not the series\' '
                        '(make report writes build/cover-letter.txt)')
    return problems


# -- the results ----------------------------------------------------------

def _rows(path: Path) -> List[bench.Row]:
    """The rows of one clock's report.json."""
    rows = []
    for r in json.loads(path.read_text())['rows']:
        def summary_of(d: Dict) -> stats.Summary:
            return stats.Summary(d['n'], d['mean'], d['sd'],
                                 d['half_width'] if d['half_width']
                                 is not None else float('nan'))
        c = stats.Comparison(summary_of(r['base']), summary_of(r['patched']),
                             r['change_pct'] if r['change_pct'] is not None
                             else float('nan'),
                             r['p_value'] if r['p_value'] is not None
                             else float('nan'), r['mark'],
                             r['change_hw_pct'] if r['change_hw_pct']
                             is not None else float('nan'))
        rows.append(bench.Row(bench.Key(r['suite'], r['bench'], r['params'],
                                        r['unit']), c))
    return rows


def bench_rows(out: Path) -> Dict[str, List[bench.Row]]:
    """Each clock's rows of the last make bench/report in out (build/bench):
    host/ and icount/ for both clocks, else the one report.json."""
    found: Dict[str, List[bench.Row]] = {}
    for clock in ('host', 'icount'):
        if (out / clock / 'report.json').exists():
            found[clock] = _rows(out / clock / 'report.json')
    if not found and (out / 'report.json').exists():
        meta = json.loads((out / 'report.json').read_text())['meta']
        found[str(meta.get('clock', 'host'))] = _rows(out / 'report.json')
    return found


SEED_COLUMNS = (('000', 'M2', 'Apple M2 (seed 000)'),
                ('000', 'Altra', 'Ampere Altra (seed 000)'))
CLOCK_COLUMNS = (('host', 'TCG, host clock'), ('icount', 'TCG, icount'))
LEGEND = '''legend:
  - p: nr_pages (pages to allocate)
  - h: use_huge (vmalloc() vs vmalloc_huge())
  - (I): statistically significant improvement (95% CI does not overlap)
  - (R): statistically significant regression (95% CI does not overlap)
  - TCG, host clock: elapsed time under QEMU TCG (2 vCPUs, this shared
    2-core machine), one observation per boot, 3 boots a tree,
    alternating; smaller is better
  - TCG, icount: instructions executed under QEMU's -icount (one vCPU):
    they repeat from boot to boot, but TCG charges nothing for a barrier
    and models no TLB, so what barrier batching and contiguous ptes save
    on hardware shows in the exact counts below, not here
  - the seeds' columns are seed 000's published times, for comparison'''


def _cell(text: str, width: int) -> str:
    return f' {text:>{width}} '


def seed_table(rows: Dict[str, List[bench.Row]],
               seeds: Sequence[seed_rows.SeedRow]) -> str:
    """The harness's vmalloc rows in seed 000's form: per benchmark, the
    seed's two machines and our two clocks."""
    timed = {clock: {(r.key.bench, r.key.params): r.comparison
                     for r in bench.split_counts(found)[0]
                     if r.key.suite == 'vmalloc'}
             for clock, found in rows.items()}
    keys = sorted({k for per in timed.values() for k in per},
                  key=lambda k: bench._natural(bench.Key('vmalloc', k[0],
                                                         k[1], 'ns')))
    seed_of = {(s.seed, s.column, s.bench, s.params): s for s in seeds}
    heads = [title for _, _, title in SEED_COLUMNS] + \
        [title for clock, title in CLOCK_COLUMNS if clock in timed]
    labels = [bench.case_label(b, p) for b, p in keys]
    width = max([len('micromm/vmalloc (harness)')] +
                [len(label) + 2 for label in labels])
    widths = [max(len(h), 11) for h in heads]
    rule = '+' + '-' * (width + 2) + ''.join(
        '+' + '-' * (w + 2) for w in widths) + '+'
    lines = [rule, '| ' + 'Benchmark'.ljust(width) + ' |' + '|'.join(
        _cell(h, w) for h, w in zip(heads, widths)) + '|',
        rule.replace('-', '='),
        '| ' + 'micromm/vmalloc (harness)'.ljust(width) + ' |' + '|'.join(
            _cell('', w) for w in widths) + '|']
    for key, label in zip(keys, labels):
        cells = []
        for seed, column, _ in SEED_COLUMNS:
            s = seed_of.get((seed, column, key[0], key[1]))
            cells.append(f'{s.mark} {s.change_pct:.2f}%'.strip() if s
                         else '-')
        for clock, _ in CLOCK_COLUMNS:
            if clock in timed:
                c = timed[clock].get(key)
                cells.append(bench.change_cell(c) if c else '-')
        lines.append('|   ' + label.ljust(width - 2) + ' |' + '|'.join(
            _cell(c, w) for c, w in zip(cells, widths)) + '|')
    lines.append(rule)
    return '\n'.join([LEGEND, '', *lines])


def count_table(rows: Dict[str, List[bench.Row]]) -> str:
    """The exact counts (entries per MiB, barrier pairs, folio shares)
    from the icount run (or the only one)."""
    found = rows.get('icount') or next(iter(rows.values()), [])
    counts = bench.split_counts(found)[1]
    if not counts:
        return ''
    width = max(len(r.key.label()) for r in counts)
    lines = [f'  {"count (one per boot)":<{width}}  {"base":>10}  '
             f'{"patched":>10}']
    for r in counts:
        lines.append(f'  {r.key.label():<{width}}  '
                     f'{r.comparison.base.mean:>10.1f}  '
                     f'{r.comparison.patched.mean:>10.1f}')
    return '\n'.join(lines)


def verification(results: Path, mutations: str = '') -> str:
    """The matrix's summary lines from the last run's files in results
    (build/), and make mutate's table (mutation_table())."""
    parts = []
    matrix = results / 'matrix.txt'
    if matrix.exists():
        summary_lines = [line for line in matrix.read_text().splitlines()
                         if re.match(r'^\S+: \d+ cells, \d+ differ', line) or
                         re.match(r'^\d+ cells as expected', line)]
        parts.append('The verification matrix (kunit.py, every suite, base '
                     'and patched, per lane):\n'
                     + '\n'.join('  ' + line for line in summary_lines))
    if mutations:
        parts.append('make mutate, from the committed verdicts whose '
                     'keys hold (per change and scope: mutants; killed, '
                     'survived, not covered, not built or built as the '
                     'patched object, equivalent; score = killed of '
                     'killed, survived and not covered; survivors without '
                     'a reviewed reason in kunit/mutate-survivors.tsv):\n'
                     + mutations)
    return '\n\n'.join(parts)


def mutation_table(cache: Path) -> str:
    """Per change and scope, what kunit/mutate-verdicts.tsv says today of
    the mutants make mutate generates ('' without the cache repository):
    a row is counted only where its key still holds, so a change to a
    patch or its suites empties its line until it is judged again."""
    repo = cache / 'linux.git'
    if not repo.exists():
        return ''
    targets = mutate.load_targets()
    generated = mutate.generated_mutants(repo, sorted(targets), targets)
    lines = []
    for s, unjudged, day, unexplained in mutate.standing(
            generated, verdicts.Table(mutate.VERDICTS),
            mutate.load_equivalents(),
            mutate.load_equivalents(mutate.EXPLAINED)):
        judged = s.killed + s.survived + s.not_covered
        lines.append(
            f'  {s.patch} {s.scope:8} {s.generated:4}: {s.killed:3} '
            f'{s.survived:3} {s.not_covered:3} '
            f'{s.no_build + s.same_object:3} {s.equivalent:3}  '
            + (f'{100 * s.killed / judged:3.0f}%' if judged else '   -')
            + (' no mutants' if not s.generated else ' full'
               if not unjudged else f' {unjudged} not judged')
            + (f', {day}' if day else '')
            + (f', {unexplained} unexplained' if unexplained else
               ', every survivor explained' if s.survived + s.not_covered
               else ''))
    return '\n'.join(lines)


def results_text(results: Path, extra: Sequence[str] = ()) -> str:
    """The generated part of the letter; extra: further sections (the
    benchmark walk's attribution)."""
    rows = bench_rows(results / 'bench')
    parts = [verification(results, mutation_table(project.CACHE))]
    if rows:
        parts += ['vmalloc() performance, the harness (lib/vmalloc_bench.c, '
                  "test_vmalloc.c's cases), base against patched:",
                  seed_table(rows, seed_rows.load())]
        counts = count_table(rows)
        if counts:
            parts += ['Exact counts (lib/structural_bench.c, '
                      'lib/file_exec_bench.c):', counts]
    counted = results / 'bench' / 'counts.txt'
    if counted.exists():
        parts += ['What each operation executed (TCG plugin, icount):',
                  counted.read_text().strip()]
    model = results / 'bench' / 'cost-model.txt'
    if model.exists():
        parts += ["What the counts predict for the seeds' machines (seed "
                  "000's changes, our counts):", model.read_text().strip()]
    parts += list(extra)
    return '\n\n'.join(p for p in parts if p)


def write(cache: Path, the_series: series.Series, extra: Sequence[str] = (),
          out: Path = project.RESULTS / 'cover-letter.txt') -> Path:
    """build/cover-letter.txt from this run's results and the committed
    letter's subject and summary."""
    kept = parse(COVER.read_text(), str(COVER)) if COVER.exists() else None
    letter = compose(skeleton(cache, the_series), kept,
                     results_text(project.RESULTS, extra))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix('.tmp')
    tmp.write_text(letter.text)
    tmp.replace(out)
    return out
