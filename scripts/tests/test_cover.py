# SPDX-License-Identifier: GPL-2.0
import json
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import cover
import seed_rows

# What git format-patch --cover-letter writes (shortened).
SKELETON = '''From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001
From: Seed maintainers
 <maintainers@example.invalid>
Date: Mon, 30 Nov 2026 22:19:30 +0000
Subject: [PATCH 00/02] *** SUBJECT HERE ***

*** BLURB HERE ***

Seed maintainers (2):
  arm64: one
  mm: two

 mm/a.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

-- 
2.39.5
'''


def letter(subject: str, body: str, tail: str) -> str:
    return (SKELETON.replace('*** SUBJECT HERE ***', subject)
            .replace('*** BLURB HERE ***', body)
            .replace(cover.parse(SKELETON).tail, tail))


class ParseTest(unittest.TestCase):
    def test_the_three_parts(self) -> None:
        skel = cover.parse(SKELETON)
        self.assertTrue(skel.head.rstrip().endswith('*** SUBJECT HERE ***'))
        self.assertEqual(skel.body.strip(), '*** BLURB HERE ***')
        self.assertTrue(skel.tail.startswith('Seed maintainers (2):'))
        self.assertEqual(skel.text, SKELETON)

    def test_a_letter_without_a_shortlog_is_refused(self) -> None:
        with self.assertRaises(cover.SeriesError):
            cover.parse('Subject: x\n\nno shortlog here\n')


class ComposeTest(unittest.TestCase):
    def test_the_kept_subject_and_summary_with_new_results(self) -> None:
        kept = cover.parse(letter(
            'arm64/mm: the series', 'What it does.\n\n'
            + cover.RESULTS_HEADING + '\n\nold figures\n',
            cover.parse(SKELETON).tail))
        got = cover.compose(cover.parse(SKELETON), kept, 'new figures')
        self.assertIn('Subject: [PATCH 00/02] arm64/mm: the series',
                      got.head)
        self.assertEqual(cover.subject(got), 'arm64/mm: the series')
        self.assertEqual(got.body, 'What it does.\n\n'
                         + cover.RESULTS_HEADING + '\n\nnew figures\n')
        self.assertEqual(got.tail, cover.parse(SKELETON).tail)
        self.assertEqual(cover.check(cover.parse(got.text),
                                     cover.parse(SKELETON)), [])


class CheckTest(unittest.TestCase):
    def test_a_stale_shortlog_or_count_is_reported(self) -> None:
        skel = cover.parse(SKELETON)
        stale = cover.parse(letter('x', 'y', skel.tail.replace(
            '  mm: two\n', '  mm: two, as it was\n')).replace(
            '[PATCH 00/02]', '[PATCH 00/03]'))
        problems = cover.check(stale, skel)
        self.assertEqual(len(problems), 2)
        self.assertIn('[PATCH 00/02]', problems[0])
        self.assertIn('shortlog or diffstat', problems[1])

    def test_the_placeholder_subject_is_reported(self) -> None:
        self.assertEqual(cover.check(cover.parse(SKELETON),
                                     cover.parse(SKELETON)),
                         ['its subject is the placeholder'])


def row(bench: str, params: str, change: float, mark: str,
        unit: str = 'ns') -> dict:
    side = {'n': 3, 'mean': 100.0, 'sd': 1.0, 'half_width': 2.0}
    return {'suite': 'vmalloc' if unit == 'ns' else 'structural',
            'bench': bench, 'params': params, 'unit': unit, 'base': side,
            'patched': dict(side, mean=100.0 + change),
            'change_pct': change, 'change_hw_pct': 1.0, 'p_value': 0.01,
            'mark': mark}


class ResultsTest(unittest.TestCase):
    def test_the_seed_form_table_and_the_counts(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / 'bench'
            for clock, change in (('host', -20.0), ('icount', -30.0)):
                (out / clock).mkdir(parents=True)
                (out / clock / 'report.json').write_text(json.dumps({
                    'meta': {'clock': clock}, 'rows': [
                        row('fix_size_alloc_test', 'p=16 h=0', change,
                            '(I)'),
                        row('fix_size_alloc_test', 'p=2 h=0', 1.5, ''),
                        row('barrier_pairs_per_vmalloc', 'pages=16', -90,
                            '(I)', 'pairs')]}))
            rows = cover.bench_rows(out)
        self.assertEqual(sorted(rows), ['host', 'icount'])
        seeds = [seed_rows.SeedRow('000', 'M2', 'fix_size_alloc_test',
                                   'p=16 h=0', -24.89, '(I)', '')]
        table = cover.seed_table(rows, seeds)
        lines = table.splitlines()
        at = [i for i, line in enumerate(lines)
              if 'fix_size_alloc_test: p:16, h:0' in line]
        self.assertEqual(len(at), 1)
        self.assertIn('(I) -24.89%', lines[at[0]])
        self.assertIn('(I) -20.00%', lines[at[0]])
        self.assertIn('(I) -30.00%', lines[at[0]])
        # p:2 before p:16, as in the seeds' tables.
        self.assertLess([i for i, line in enumerate(lines)
                         if 'p:2, h:0' in line][0], at[0])
        self.assertIn('legend:', table)
        self.assertIn('barrier_pairs_per_vmalloc: pages:16 (pairs)',
                      cover.count_table(rows))

    def test_the_verification_lines_of_a_run(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            results = Path(tmp)
            (results / 'matrix.txt').write_text(
                'case feature\nx.y F1 pass/pass ok\n'
                'base: 293 cells, 0 differ (fail 69)\n'
                '1799 cells as expected, 0 differ\n')
            text = cover.verification(results, '  0005 touched ...')
        self.assertIn('  base: 293 cells, 0 differ (fail 69)', text)
        self.assertIn('  1799 cells as expected, 0 differ', text)
        self.assertIn('committed verdicts whose keys hold', text)
        self.assertIn('\n  0005 touched ...', text)
        self.assertNotIn('x.y', text)


if __name__ == '__main__':
    unittest.main()


class MutationTableTest(unittest.TestCase):
    def test_each_line_says_whether_its_survivors_are_explained(self
                                                                ) -> None:
        def line(patch: str, scope: str, killed: int, survived: int,
                 covered: int) -> 'cover.mutate.Score':
            return cover.mutate.Score(patch, 5, 10, 10, 0, killed, survived,
                                      0, scope=scope, not_covered=covered)
        standing = [(line('0018', 'added', 8, 2, 0), 0, '2026-12-07', 0),
                    (line('0018', 'touched', 5, 3, 2), 0, '2026-12-07', 4),
                    (line('0019', 'added', 10, 0, 0), 0, '2026-12-07', 0)]
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / 'linux.git').mkdir()
            with mock.patch.object(cover.mutate, 'load_targets',
                                   return_value={}), \
                    mock.patch.object(cover.mutate, 'generated_mutants',
                                      return_value=[]), \
                    mock.patch.object(cover.mutate, 'standing',
                                      return_value=standing):
                lines = cover.mutation_table(Path(d)).splitlines()
        self.assertTrue(lines[0].endswith('every survivor explained'))
        self.assertTrue(lines[1].endswith('2026-12-07, 4 unexplained'))
        self.assertTrue(lines[2].endswith('full, 2026-12-07'))
