# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path
from typing import Dict

import mutate
import mutate_gen
import project
from mutation import verdicts
from project import SeriesError

SOURCE = '''static int f(int a, int b)
{
	if (a < b)
		return b;
	if (a < b)
		return a;
	return a + b;
}

static int g(int a, int b)
{
	if (a < b)
		return b;
	return 0;
}
'''


def lines(text: str = SOURCE) -> list:
    return mutate_gen.lines_of(text)


def lt_to_le(line: int) -> mutate_gen.Mutation:
    return mutate_gen.Mutation('mm/f.c', line, 'ror', '\tif (a < b)',
                               '\tif (a <= b)', '`<` to `<=`')


def row(key: str = 'a' * 24, **fields: object) -> verdicts.Row:
    base: Dict[str, object] = dict(patch='0018', scope='added',
                                   mutant='mm/f.c:3 ror: `<` to `<=`',
                                   verdict='killed',
                                   killed_by=('s.c_test',),
                                   assertions=('kunit/s.c:10',),
                                   seconds=31.5, day='2026-12-05')
    base.update(fields)
    return verdicts.Row(key, **base)  # type: ignore[arg-type]


class IdentityTest(unittest.TestCase):
    def test_lines_moving_keep_the_identity(self) -> None:
        moved = lines('/* a comment above */\n\n' + SOURCE)
        self.assertEqual(verdicts.identity(lt_to_le(3), lines()),
                         verdicts.identity(lt_to_le(5), moved))

    def test_the_same_text_twice_in_a_definition_is_two_mutants(
            self) -> None:
        first = verdicts.identity(lt_to_le(3), lines())
        second = verdicts.identity(lt_to_le(5), lines())
        self.assertNotEqual(first, second)
        self.assertIn('\0f\x000\0', first)
        self.assertIn('\0f\x001\0', second)

    def test_another_definition_is_another_mutant(self) -> None:
        self.assertIn('\0g\x000\0', verdicts.identity(lt_to_le(12),
                                                      lines()))

    def test_a_mutant_not_at_its_line_fails(self) -> None:
        with self.assertRaisesRegex(ValueError, 'mm/f.c:4 is not the line'):
            verdicts.identity(lt_to_le(4), lines())


class TableTest(unittest.TestCase):
    def test_rows_come_back_as_written(self) -> None:
        rows = [row(), row('b' * 24, verdict='survived', killed_by=(),
                           assertions=(), detail='a\ttab and\na newline')]
        got = verdicts.parse(verdicts.render(rows), 't.tsv')
        self.assertEqual(got['a' * 24], rows[0])
        self.assertEqual(got['b' * 24].detail, 'a tab and a newline')

    def test_a_duplicate_row_is_named(self) -> None:
        text = verdicts.render([row()])
        with self.assertRaisesRegex(SeriesError, r'^t\.tsv:7: key a{24} is '
                                    'already a row'):
            verdicts.parse(text + text.splitlines(True)[-1], 't.tsv')

    def test_a_malformed_row_is_named(self) -> None:
        good = '\t'.join(row().fields())
        for bad, said in (
                (good.replace('killed\t', 'dead\t', 1), "verdict 'dead'"),
                (good.replace('2026-12-05', 'today'), "day 'today'"),
                (good.replace('a' * 24, 'xyz'), "key 'xyz'"),
                (good.replace('31.5', 'long'), "seconds 'long'"),
                (good.replace('s.c_test', '-'), 'names the cases'),
                ('\t'.join(row().fields()[:5]), 'want "key<TAB>')):
            with self.subTest(said=said), \
                    self.assertRaisesRegex(SeriesError,
                                           '^t.tsv:2: .*' + said):
                verdicts.parse('# header\n' + bad + '\n', 't.tsv')

    def test_saving_leaves_no_half_table(self) -> None:
        d = Path(tempfile.mkdtemp())
        table = verdicts.Table(d / 'v.tsv')
        table.put(row())
        self.assertEqual(sorted(p.name for p in d.iterdir()), ['v.tsv'])
        self.assertEqual(verdicts.load(d / 'v.tsv'), {'a' * 24: row()})

    def test_rows_of_mutants_no_longer_generated_go(self) -> None:
        kept = {r.key: r for r in (row('a' * 24), row('b' * 24),
                                   row('c' * 24, patch='0019'),
                                   row('d' * 24, scope='touched'))}
        got = verdicts.merged(kept, '0018', 'added', ['a' * 24], ())
        self.assertEqual(sorted(got), ['a' * 24, 'c' * 24, 'd' * 24])


class SpotCheckTest(unittest.TestCase):
    def test_about_one_in_twenty_a_day_and_the_same_all_day(self) -> None:
        keys = [f'{i:024x}' for i in range(4000)]
        picked = [k for k in keys if verdicts.spot_checked(k, '2026-12-05')]
        self.assertTrue(150 < len(picked) < 250, len(picked))
        self.assertEqual(picked, [k for k in keys if verdicts.spot_checked(
            k, '2026-12-05')])
        other = {k for k in keys if verdicts.spot_checked(k, '2026-12-06')}
        self.assertLess(len(other & set(picked)), 40)


class SuiteFilesTest(unittest.TestCase):
    FILES = {
        'a_test.c': '#include "fix.h"\nstatic struct kunit_suite s = '
                    '{ .name = "suite_a", };\n',
        'b_test.c': '#include "other.h"\n.name = "suite_b",\n',
        'fix.h': '#include "deeper.h"\n', 'fix.c': '', 'deeper.h': '',
        'other.h': '', 'other.c': '', 'Kconfig': '', 'Makefile': '',
    }

    def test_a_suite_brings_its_fixtures_and_their_c_files(self) -> None:
        self.assertEqual(verdicts.suite_files(self.FILES, ('suite_a',)),
                         ['a_test.c', 'deeper.h', 'fix.c', 'fix.h'])

    def test_a_suite_nothing_defines_fails(self) -> None:
        with self.assertRaisesRegex(SeriesError, 'defines suite suite_c'):
            verdicts.suite_files(self.FILES, ('suite_c',))

    def test_table_rows_of_the_suites_only(self) -> None:
        text = ('# case\tbase\n suite_a.x\tfail\nsuite_a.y.p\tpass\n'
                'suite_ab.z\tpass\nsuite_b.w\tpass\n')
        self.assertEqual(verdicts.table_rows(text, ('suite_a',)),
                         ['suite_a.y.p\tpass'])


class BuildPartsTest(unittest.TestCase):
    """A suite's key holds its own lines of the suites' Makefile and
    Kconfig, and what every suite is built with, not another suite's."""
    FILES = {
        'a_test.c': '#include "fix.h"\n.name = "suite_a",\n',
        'b_test.c': '.name = "suite_b",\n', 'fix.h': '', 'fix.c': '',
        'first.c': '/* runs before every suite */\n',
    }
    MAKEFILE = ('# link order is run order\n'
                'obj-$(CONFIG_FIRST) += first.o\n'
                'obj-$(CONFIG_FIX) += fix.o\n'
                'obj-$(CONFIG_A_TEST) += a_test.o\n'
                'obj-$(CONFIG_B_TEST) += b_test.o\n')
    KCONFIG = ('menuconfig SUITES\n\tbool "suites"\n\nif SUITES\n\n'
               'config FIX\n\tbool\n\n'
               'config A_TEST\n\tbool "a"\n\tselect FIX\n\thelp\n'
               '\t  Checks a.\n\n'
               'config B_TEST\n\tbool "b"\n\tdepends on MMU\n\n'
               'config FIRST\n\tbool\n\nendif\n')

    def parts(self, makefile: str = MAKEFILE, kconfig: str = KCONFIG
              ) -> str:
        files = verdicts.suite_files(self.FILES, ('suite_a',))
        return verdicts.build_parts(makefile, kconfig, files, self.FILES)

    def test_blocks_are_cut_at_the_first_column(self) -> None:
        blocks, frame = verdicts.kconfig_blocks(self.KCONFIG)
        self.assertEqual(sorted(blocks), ['A_TEST', 'B_TEST', 'FIRST',
                                          'FIX', 'SUITES'])
        self.assertIn('\t  Checks a.', blocks['A_TEST'])
        self.assertIn('if SUITES', frame)
        self.assertIn('endif', frame)

    def test_another_suites_lines_leave_it(self) -> None:
        self.assertEqual(self.parts(), self.parts(
            kconfig=self.KCONFIG.replace('depends on MMU',
                                         'depends on MMU && SYSFS')))
        self.assertEqual(self.parts(), self.parts(
            makefile=self.MAKEFILE.replace('b_test.o', 'b_test.o  ')))

    def test_its_own_lines_and_its_fixtures_move_it(self) -> None:
        for old, new in (('Checks a.', 'Checks a and b.'),
                         ('config FIX\n\tbool', 'config FIX\n\tbool "f"')):
            with self.subTest(new=new):
                self.assertNotEqual(self.parts(), self.parts(
                    kconfig=self.KCONFIG.replace(old, new)))
        self.assertNotEqual(self.parts(), self.parts(
            makefile=self.MAKEFILE.replace('fix.o', 'fix.o fix2.o')))

    def test_what_every_suite_is_built_with_moves_it(self) -> None:
        """A kernel option another suite selects, an object linked for
        every suite, the frame."""
        for kconfig in (self.KCONFIG.replace('depends on MMU',
                                             'select DEBUG_VM'),
                        self.KCONFIG.replace('if SUITES', 'if SUITES && X')):
            with self.subTest(kconfig=kconfig):
                self.assertNotEqual(self.parts(), self.parts(
                    kconfig=kconfig))
        self.assertNotEqual(self.parts(), self.parts(
            makefile=self.MAKEFILE.replace('CONFIG_FIRST', 'CONFIG_FIRS')))


def git(repo: Path, *args: str) -> str:
    return project.git(repo, *args).stdout.strip()


class ContextTest(unittest.TestCase):
    """judging_context() on a small tree laid out as the patched one."""
    TARGET = mutate.Target('0018', 'ptc', ('vmalloc_bulk_free',))

    def setUp(self) -> None:
        self.repo = Path(tempfile.mkdtemp())
        git(self.repo, 'init', '-q')
        suites = self.repo / 'mm' / 'series-kunit'
        suites.mkdir(parents=True)
        (self.repo / 'mm' / 'vmalloc.c').write_text('int v;\n')
        (self.repo / 'Makefile').write_text('all:\n')
        (suites / 'vmalloc_pages_test.c').write_text(
            '#include "page_events.h"\n.name = "vmalloc_bulk_free",\n')
        (suites / 'page_events.h').write_text('int e(void);\n')
        (suites / 'page_events.c').write_text('int e(void) { return 0; }\n')
        (suites / 'arm64_lazy_mmu_test.c').write_text(
            '.name = "arm64_lazy_mmu",\n')
        (suites / 'Makefile').write_text(
            'obj-y += x.o\n'
            'obj-$(CONFIG_VMALLOC_PAGES_KUNIT_TEST) += vmalloc_pages_test.o\n'
            'obj-$(CONFIG_ARM64_LAZY_MMU_KUNIT_TEST) += '
            'arm64_lazy_mmu_test.o\n')
        self.commit()

    def commit(self) -> str:
        git(self.repo, 'add', '-A')
        git(self.repo, 'commit', '-qm', 'x', '--allow-empty')
        git(self.repo, 'branch', '-f', 'patched')
        return mutate.judging_context(self.repo, self.TARGET,
                                      ('gcc 12', 'qemu 7')).digest()

    def changed(self, path: str, text: str) -> bool:
        """Whether text added to path moves the context's digest."""
        before = self.commit()
        with open(self.repo / path, 'a') as f:
            f.write(text)
        return self.commit() != before

    def test_what_the_verdict_depends_on_moves_the_key(self) -> None:
        for path in ('mm/vmalloc.c', 'Makefile',
                     'mm/series-kunit/vmalloc_pages_test.c',
                     'mm/series-kunit/page_events.c',
                     'mm/series-kunit/Makefile'):
            with self.subTest(path=path):
                self.assertTrue(self.changed(path, '/* changed */\n'))

    def test_another_suite_changed_keeps_the_key(self) -> None:
        self.assertFalse(self.changed('mm/series-kunit/arm64_lazy_mmu_test.c',
                                      '/* a comment */\n'))
        self.assertFalse(self.changed(
            'mm/series-kunit/Kconfig',
            'config ARM64_LAZY_MMU_KUNIT_TEST\n\tbool "lazy"\n'))
        self.assertTrue(self.changed(
            'mm/series-kunit/Kconfig',
            'config VMALLOC_PAGES_KUNIT_TEST\n\tbool "pages"\n'))

    def test_the_tools_and_the_lane_are_in_it(self) -> None:
        here = mutate.judging_context(self.repo, self.TARGET, ('gcc 12',
                                                               'qemu 7'))
        self.assertNotEqual(here.digest(), mutate.judging_context(
            self.repo, self.TARGET, ('gcc 13', 'qemu 7')).digest())
        self.assertNotEqual(here.digest(), mutate.judging_context(
            self.repo, mutate.Target('0018', 'main', self.TARGET.suites),
            ('gcc 12', 'qemu 7')).digest())
        self.assertIn('page_table_check=on', here.text())
        self.assertIn('vmalloc_bulk_free.', ''.join(
            here.manifest_rows[:1]))


if __name__ == '__main__':
    unittest.main()
