# SPDX-License-Identifier: GPL-2.0
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from typing import List, Sequence, Tuple

import mutate_gen
from mutate_gen import Mutation
from mutation import reach, schema, schema_tree
from project import SeriesError

SOURCE = '''static int f(int a, int b, int *p)
{
	int x = a + 1;

	if (a < b && b > 2)
		return b;
	x = g(a, b);
	kfree(p);
	call_with(a,
		  b);
	while (a++, b--, a != b)
		x++;
	switch (a) {
	case 3:
		return x;
	}
	if (a > 3)
		kfree(p);
	else
		x--;
	return a + b;
}

static const int table[] = { 1, 2 };

#define TWICE(v) \\
	((v) * 2)
'''


def mutants_of(text: str, numbers: Sequence[int]) -> List[Mutation]:
    lines = mutate_gen.lines_of(text)
    return mutate_gen.mutations('f.c', lines, numbers)


def one(text: str, line: int, operator: str, what: str = '') -> Mutation:
    found = [m for m in mutants_of(text, [line])
             if m.operator == operator and what in m.what and
             m.line == line]
    if not found:
        raise AssertionError(f'no {operator} mutant {what!r} on line {line}')
    return found[0]


def placed(text: str, chosen: Sequence[Tuple[int, Mutation]]):
    return schema.place(mutate_gen.lines_of(text), chosen)


class OperandTest(unittest.TestCase):
    """Which operand of a line holds a change."""

    def line_of(self, text: str) -> schema._Line:
        return schema._parse(text, False)[0]

    def test_a_relational_change_is_its_comparison_not_the_condition(self):
        line = self.line_of('\tif (a < b && b > 2)')
        lt = next(i for i, t in enumerate(line.toks) if t.text == '<')
        first, last = schema.operand(line, lt, lt, None, None)
        self.assertEqual('a < b', line.code[line.toks[first].start:
                                            line.toks[last].end])

    def test_an_and_changed_itself_takes_the_whole_condition(self):
        line = self.line_of('\tif (a < b && b > 2)')
        op = next(i for i, t in enumerate(line.toks) if t.text == '&&')
        first, last = schema.operand(line, op, op, None, None)
        self.assertEqual('a < b && b > 2',
                         line.code[line.toks[first].start:
                                   line.toks[last].end])

    def test_an_assignment_is_not_split_at_an_and_it_does_not_hold(self):
        # x = a && b parses as x = (a && b): the operand of a change to a
        # is a, after the =, never "x = a".
        line = self.line_of('\tx = a && b;')
        a = next(i for i, t in enumerate(line.toks) if t.text == 'a')
        first, last = schema.operand(line, a, a, None, None)
        self.assertEqual((first, last), (a, a))

    def test_a_swap_of_arguments_is_the_call(self):
        line = self.line_of('\tx = g(a, b);')
        a = next(i for i, t in enumerate(line.toks) if t.text == 'a')
        b = next(i for i, t in enumerate(line.toks) if t.text == 'b')
        first, last = schema.operand(line, a, b, None, None)
        self.assertEqual('g(a, b)', line.code[line.toks[first].start:
                                              line.toks[last].end])

    def test_a_run_at_the_line_start_needs_a_separator_before_it(self):
        line = self.line_of('\t\t  b + 1);')
        b = 0
        after_comma = self.line_of('\tcall(a,')
        after_plus = self.line_of('\tcall(a +')
        self.assertIsNotNone(schema.operand(line, b, b, after_comma, None))
        # "a +" then "b + 1": b is not an operand of its own there.
        self.assertIsNone(schema.operand(line, b, b, after_plus, None))

    def test_the_return_keyword_is_left_out(self):
        line = self.line_of('\treturn a + b;')
        a = 1
        first, last = schema.operand(line, a, a, None, None)
        self.assertEqual('a + b', line.code[line.toks[first].start:
                                            line.toks[last].end])


class PlaceTest(unittest.TestCase):
    def test_expression_mutants_chain_over_one_operand(self):
        ror = one(SOURCE, 5, 'ror', '`<` to `<=`')
        lcr = one(SOURCE, 5, 'lcr')
        lines, where = placed(SOURCE, [(1, ror), (2, lcr)])
        self.assertEqual([schema.EXPRESSION] * 2, [p.form for p in where])
        # The lcr mutant's operand holds the ror's: both chain over it.
        self.assertEqual(
            '\tif ((mm_mutant_on(2) ? (a < b || b > 2) : mm_mutant_on(1) ? '
            '(a <= b && b > 2) : (a < b && b > 2)))', lines[4])

    def test_a_deleted_call_is_a_statement(self):
        gone = one(SOURCE, 8, 'del')
        lines, where = placed(SOURCE, [(7, gone)])
        self.assertEqual(schema.STATEMENT, where[0].form)
        self.assertEqual('\t{ if (mm_mutant_on(7)) { do { } while (0); } '
                         'else { kfree(p); } }', lines[7])

    def test_a_call_over_two_lines_is_braced_to_its_end(self):
        gone = one(SOURCE, 9, 'del')
        lines, where = placed(SOURCE, [(4, gone)])
        self.assertEqual(schema.STATEMENT, where[0].form)
        self.assertEqual('\t{ if (!mm_mutant_on(4)) { call_with(a,',
                         lines[8])
        self.assertEqual('\t\t  b); } }', lines[9])

    def test_lines_stay_where_they_were(self):
        chosen = list(enumerate(mutants_of(SOURCE, range(1, 28)), 1))
        lines, where = placed(SOURCE, chosen)
        self.assertEqual(len(mutate_gen.lines_of(SOURCE)), len(lines))
        self.assertEqual(len(chosen), len(where))

    def test_a_comma_condition_is_guarded_whole(self):
        neg = one(SOURCE, 11, 'neg')
        lines, where = placed(SOURCE, [(5, neg)])
        self.assertEqual(schema.EXPRESSION, where[0].form)
        self.assertIn('(mm_mutant_on(5) ? (!(a++, b--, a != b)) : '
                      '(a++, b--, a != b))', lines[10])

    def test_case_labels_and_file_scope_go_to_a_build_of_their_own(self):
        case = one(SOURCE, 14, 'const')
        gone = next(m for m in mutants_of(SOURCE, [14])
                    if m.operator == 'del')
        table = one(SOURCE, 24, 'const')
        _, where = placed(SOURCE, [(1, case), (2, gone), (3, table)])
        self.assertEqual([schema.SEPARATE] * 3, [p.form for p in where])
        self.assertIn('constant', where[0].why)
        self.assertIn('file scope', where[2].why)

    def test_a_macro_line_keeps_its_continuation(self):
        text = SOURCE
        m = one(text, 27, 'const')
        lines, where = placed(text, [(9, m)])
        self.assertEqual(schema.EXPRESSION, where[0].form)
        # * binds tighter than anything a separator is: the product whole.
        self.assertEqual('\t((mm_mutant_on(9) ? ((v) * 3) : ((v) * 2)))',
                         lines[26])
        self.assertTrue(lines[25].endswith('\\'))

    def test_a_multi_line_mutant_keeps_the_original_lines_in_its_else(self):
        text = 'void f(void)\n{\n\ta = 1;\n\tb = 2;\n}\n'
        moved = next(m for m in mutants_of(text, [3, 4])
                     if m.operator == 'move')
        lines, where = placed(text, [(3, moved)])
        self.assertEqual(schema.STATEMENT, where[0].form)
        self.assertEqual(['\t{ if (mm_mutant_on(3)) { b = 2; a = 1; } else '
                          '{ a = 1;', '\tb = 2; } }'], lines[2:4])

    def test_the_wrong_line_is_refused(self):
        m = Mutation('f.c', 3, 'const', 'not this line', 'x', 'w')
        with self.assertRaises(ValueError):
            placed(SOURCE, [(1, m)])


@unittest.skipUnless(shutil.which('gcc'),
                     'needs a host gcc to compile the schema')
class CompiledSchemaTest(unittest.TestCase):
    """The schema compiles, and with every id off computes what the
    original does (the kernel's id-0 matrix check, in small)."""

    PROGRAM = '''unsigned int mm_mutant_id;
unsigned char mm_mutant_reached[64];
static inline int mm_mutant_on(unsigned int id)
{
	mm_mutant_reached[id] = 1;
	return *(volatile unsigned int *)&mm_mutant_id == id;
}
static __attribute__((unused)) int g(int a, int b) { return a * 10 + b; }
static __attribute__((unused)) void kfree(int *p) { *p = 0; }
static __attribute__((unused)) void kvfree(int *p) { *p = 1; }
static __attribute__((unused)) void call_with(int a, int b) { (void)a; (void)b; }
'''

    def run_with(self, text: str, mutant: int) -> str:
        main = '''
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int v = 5;
	mm_mutant_id = atoi(argv[1]);
	printf("%d %d %d\\n", f(1, 2, &v), f(4, 3, &v), v);
	return 0;
}
'''
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / 's.c'
            src.write_text(self.PROGRAM + text.split('static const')[0] +
                           main)
            exe = Path(d) / 's'
            subprocess.run(['gcc', '-Wall', '-Werror', '-o', str(exe),
                            str(src)], check=True, capture_output=True)
            # A mutant may loop for ever (the while loop above).
            try:
                return subprocess.run([str(exe), str(mutant)], check=True,
                                      capture_output=True, text=True,
                                      timeout=1).stdout
            except subprocess.TimeoutExpired:
                return 'loops'

    def test_id_0_is_the_original_and_each_id_its_mutant(self):
        chosen = [(n, m) for n, m in
                  enumerate(mutants_of(SOURCE, range(3, 22)), 1)]
        lines, where = placed(SOURCE, chosen)
        text = '\n'.join(lines) + '\n'
        self.assertEqual(self.run_with(SOURCE, 0), self.run_with(text, 0))
        for p in where:
            if p.form == schema.SEPARATE:
                continue
            i = p.mutation.line - 1
            original = mutate_gen.lines_of(SOURCE)
            alone = original[:i] + p.mutation.mutated.split('\n') + \
                original[i + len(p.mutation.original.split('\n')):]
            with self.subTest(mutant=p.id, what=p.mutation.what):
                try:
                    want = self.run_with('\n'.join(alone) + '\n', 0)
                except subprocess.CalledProcessError:
                    continue    # the mutant alone does not compile
                self.assertEqual(want, self.run_with(text, p.id))


class ReachTest(unittest.TestCase):
    LOG = '''mm_mutant: mutant 7 of 20
    # mm_mutant reached before mm_mutant= was parsed: 2 4-5
KTAP version 1
1..1
    KTAP version 1
    # Subtest: arm64_lazy_mmu
    1..2
    # reached: 1 3-4
    ok 1 nested_test
        KTAP version 1
        # Subtest: param_test
        ok 1 one
        ok 2 two
    # reached: 9
    # reached: 11
    ok 2 param_test
ok 1 arm64_lazy_mmu
'''

    def test_each_case_gets_the_ids_printed_before_its_result(self):
        r = reach.parse(self.LOG)
        self.assertEqual((7, 20), (r.mutant, r.carried))
        self.assertEqual({2, 4, 5}, r.early)
        self.assertEqual({'arm64_lazy_mmu.nested_test': {1, 3, 4},
                          'arm64_lazy_mmu.param_test': {9, 11}},
                         {c: set(v) for c, v in r.cases.items()})
        self.assertEqual(['arm64_lazy_mmu.param_test'], r.cases_reaching(9))

    def test_ranges_round_trip(self):
        self.assertEqual('1 3-5 9', reach.ranges({1, 3, 4, 5, 9}))
        self.assertEqual({1, 3, 4, 5, 9}, reach.ids('1 3-5 9'))
        with self.assertRaises(ValueError):
            reach.ids('3-1')

    def test_an_id_set_before_c_code_leaves_nothing_early(self):
        r = reach.parse('mm_mutant: mutant 3 of 20 (set before C code '
                        'ran)\n    # mm_mutant reached before the suites '
                        'ran: 1 3-4\n')
        self.assertEqual((3, set(), {1, 3, 4}), (r.mutant, r.early, r.boot))

    def test_a_refused_id_is_seen(self):
        r = reach.parse('mm_mutant: no such mutant in this kernel (it '
                        'carries 1 to 20)\n')
        self.assertTrue(r.refused)


class SchemaTreeTest(unittest.TestCase):
    def test_hooks_go_in_once_or_the_anchor_is_named(self):
        text = ('int x;\n\tif (suite->suite_init) {\n\t\tkunit_print_attr('
                '(void *)test_case, true, KUNIT_LEVEL_CASE);\n')
        self.assertIn('\tmm_mutant_reach_clear();\n\tif (suite->suite_init)',
                      schema_tree.hooked('lib/kunit/test.c', text))
        with self.assertRaisesRegex(SeriesError, 'kunit_print_attr'):
            schema_tree.hooked('lib/kunit/test.c',
                               '\tif (suite->suite_init) {\n')

    def test_arm64_early_code_reads_the_id_from_the_command_line(self):
        text = ('static __init void __parse_cmdline(const char *cmdline, '
                'bool parse_aliases)\n{\n\t\tmatch_options(buf);\n}\n')
        got = schema_tree.hooked('arch/arm64/kernel/pi/idreg-override.c',
                                 text)
        self.assertLess(got.index('mm_mutant_early_option(const char'),
                        got.index('__parse_cmdline'))
        self.assertIn('\t\tmm_mutant_early_option(buf);\n\t\tmatch_options',
                      got)
        vars_ = schema_tree.hooked(
            'arch/arm64/kernel/image-vars.h',
            'PROVIDE(__pi_arm64_sw_feature_override\t= '
            'arm64_sw_feature_override);\n')
        self.assertIn('PROVIDE(__pi_mm_mutant_id', vars_)
        self.assertIn('PROVIDE(__pi_mm_mutant_preset', vars_)

    def test_errors_switch_off_the_ids_on_their_lines_and_macro_notes(self):
        texts = {'mm/a.c': ['x', 'y = (mm_mutant_on(3) ? (1) : (2));'],
                 'include/h.h': ['#define M (mm_mutant_on(8) ? 1 : 2)']}
        output = ('../mm/a.c:2:5: error: lvalue required\n'
                  'mm/b.c:9:1: error: case label does not reduce\n'
                  'include/h.h:1:12: note: in expansion of macro \'M\'\n'
                  'mm/c.c:4:1: error: something else\n'
                  'mm/a.c:1:1: warning: unused\n')
        found, unplaced = schema_tree.failing_ids(output, texts)
        self.assertEqual({3, 8}, set(found))
        self.assertIn('lvalue required', found[3])
        self.assertEqual(['mm/c.c:4:1: error: something else'], unplaced)

    def test_written_tree_has_the_switch_and_the_count(self):
        with tempfile.TemporaryDirectory() as d:
            tree = Path(d)
            (tree / 'mm').mkdir()
            (tree / 'mm' / 'Makefile').write_text('obj-y := a.o\n')
            patched = {
                'include/linux/compiler_types.h':
                    '#ifndef __ASSEMBLY__\n#endif /* __ASSEMBLY__ */\n',
                'lib/kunit/test.c':
                    '\tif (suite->suite_init) {\n\t\tkunit_print_attr('
                    '(void *)test_case, true, KUNIT_LEVEL_CASE);\n',
                'arch/arm64/kernel/image-vars.h':
                    'PROVIDE(__pi_arm64_sw_feature_override\t= '
                    'arm64_sw_feature_override);\n',
                'arch/arm64/kernel/pi/idreg-override.c':
                    'static __init void __parse_cmdline(const char '
                    '*cmdline, bool parse_aliases)\n\t\tmatch_options'
                    '(buf);\n'}
            schema_tree.write(tree, {'mm/a.c': ['int a;']}, 12, patched)
            self.assertIn('#define MM_MUTANTS 12',
                          (tree / schema_tree.COUNT).read_text())
            self.assertIn('obj-y += mm_mutant.o',
                          (tree / 'mm' / 'Makefile').read_text())
            self.assertIn('#include <linux/mm_mutant.h>\n#endif',
                          (tree / 'include/linux/compiler_types.h')
                          .read_text())
            self.assertEqual('int a;\n', (tree / 'mm/a.c').read_text())


@unittest.skipUnless(shutil.which('gcc') and shutil.which('nm'),
                     'needs a host gcc and nm to compile the guard')
class GuardHazardTest(unittest.TestCase):
    """The guard where the kernel's hazards are: a plain load and a byte
    store and no call anywhere, and the original text where a kernel
    global cannot be reached."""

    def symbols(self, *defines: str) -> str:
        header = schema_tree.KERNEL / 'mm_mutant.h'
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / 'g.c'
            src.write_text('#define __always_inline inline '
                           '__attribute__((__always_inline__))\n'
                           f'#include "{header}"\n'
                           'int f(int x) { return mm_mutant_on(3) ? x + 1 '
                           ': x; }\n')
            obj = Path(d) / 'g.o'
            subprocess.run(['gcc', '-O2', '-c', *defines, '-o', str(obj),
                            str(src)], check=True, capture_output=True)
            return subprocess.run(['nm', '-u', str(obj)], check=True,
                                  capture_output=True, text=True).stdout

    def test_kernel_code_reads_the_id_and_calls_nothing(self):
        undefined = set(self.symbols().split()) - {'U'}
        self.assertEqual({'mm_mutant_id', 'mm_mutant_reached'}, undefined)

    def test_pi_hyp_efi_stub_and_vdso_run_the_original(self):
        # arch/arm64/kernel/pi, kvm/hyp/nvhe and the EFI stub build with
        # -D__DISABLE_EXPORTS; the vDSO with -DBUILD_VDSO.
        for define in ('-D__DISABLE_EXPORTS', '-DBUILD_VDSO'):
            with self.subTest(define=define):
                self.assertEqual('', self.symbols(define).strip())


if __name__ == '__main__':
    unittest.main()
