# SPDX-License-Identifier: GPL-2.0
import subprocess
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List

import mutate_gen

# Lines 0018 and 0019 add (free_prepared_run(), vm_area_alloc_pages_large()),
# as the patched tree has them, with a comment and a directive around.
FILE = '''#include <linux/mm.h>
/*
 * if (a < b) in a comment is no code.
 */
static void free_prepared_run(unsigned long pfn, unsigned long end)
{
	while (pfn < end) {
		unsigned int order = min_t(unsigned int, MAX_PAGE_ORDER,
					   ilog2(end - pfn));

		if (pfn)
			order = min_t(unsigned int, order, __ffs(pfn));
		while (order &&
		       !zone_spans_pfn(page_zone(page), pfn + (1UL << order) - 1))
			order--;
		__free_unref_page(page, order, FPI_PREPARED);
		pfn += 1UL << order;
	}
	if (nr_allocated >= nr_pages || order <= area_order)
		return nr_allocated;
	split_page(page, order); /* as for order 0 */
	return 0;
}
'''.split('\n')


# Two conditions in a row, as free_pages_prepare() and vfree() have them,
# and two macros and a prototype around a function of several lines.
NESTED = '''#define one(x) \\
	f(x, 1)
static void g(struct page *page);
static inline void
vfree_run(struct vm_struct *vm,
	  unsigned int nr)
{
	if (vm->flags & VM_FLUSH_RESET_PERMS)
		vm_reset_perms(vm);
	if (!(vm->flags & VM_MAP_PUT_PAGES))
		mod_memcg_page_state(vm->pages[0], MEMCG_VMALLOC, -nr);
	kvfree(vm->pages);
	in_hardirq();
}
#define two 2
'''.split('\n')


def of_line(number: int) -> Dict[str, List[str]]:
    """The mutants of one line of FILE, by operator."""
    found: Dict[str, List[str]] = {}
    for m in mutate_gen.mutations('mm/x.c', FILE, [number]):
        found.setdefault(m.operator, []).append(m.mutated.strip())
    return found


class OperatorTest(unittest.TestCase):
    def test_relational_boundary(self) -> None:
        self.assertEqual(of_line(7)['ror'], ['while (pfn <= end) {'])

    def test_negated_condition(self) -> None:
        self.assertEqual(of_line(7)['neg'], ['while (!(pfn < end)) {'])
        self.assertEqual(of_line(11)['neg'], ['if (!(pfn))'])

    def test_a_condition_that_goes_on_to_the_next_line_is_not_negated(
            self) -> None:
        self.assertNotIn('neg', of_line(13))

    def test_and_or(self) -> None:
        found = of_line(19)
        self.assertIn('if (nr_allocated >= nr_pages && order <= area_order)',
                      found['lcr'])
        self.assertEqual(sorted(found['ror']), sorted([
            'if (nr_allocated > nr_pages || order <= area_order)',
            'if (nr_allocated >= nr_pages || order < area_order)']))

    def test_constants_plus_and_minus_one_keep_their_suffix(self) -> None:
        self.assertEqual(sorted(of_line(14)['const']), sorted([
            '!zone_spans_pfn(page_zone(page), pfn + (2UL << order) - 1))',
            '!zone_spans_pfn(page_zone(page), pfn + (0UL << order) - 1))',
            '!zone_spans_pfn(page_zone(page), pfn + (1UL << order) - 2))',
            '!zone_spans_pfn(page_zone(page), pfn + (1UL << order) - 0))']))

    def test_a_call_statement_is_deleted(self) -> None:
        self.assertEqual(of_line(16)['del'], ['do { } while (0);'])
        # A trailing comment does not keep a call from being one.
        self.assertEqual(of_line(21)['del'], ['do { } while (0);'])
        # An assignment that calls is deleted as an assignment.
        self.assertEqual(of_line(12)['del'], ['do { } while (0);'])
        # A step of a counter goes too.
        self.assertEqual(of_line(15)['del'], ['do { } while (0);'])

    def test_a_call_over_several_lines_is_deleted(self) -> None:
        self.assertEqual(of_line(8)['del'] if 'del' in of_line(8) else [],
                         [])
        found = mutate_gen.mutations('mm/x.c', [
            '\tmod_memcg_page_state(area->pages[0], MEMCG_VMALLOC,',
            '\t\t\t     area->nr_pages);'], [1])
        self.assertIn('\tif (0) mod_memcg_page_state(area->pages[0], '
                      'MEMCG_VMALLOC,', [m.mutated for m in found
                                         if m.operator == 'del'])
        # A definition whose parameters go on: no call to delete.
        self.assertNotIn('del', [m.operator for m in
                                 mutate_gen.mutations_of_line(
                                     'mm/x.c', 1, 'vm_area_alloc_pages_large('
                                     'gfp_t gfp, int nid,')])

    def test_an_assignment_is_deleted_a_declaration_is_not(self) -> None:
        self.assertEqual(of_line(17)['del'], ['do { } while (0);'])
        for line in ('\tunsigned long stop = min(end, pfn);',
                     '\tstruct page *p = pfn_to_page(pfn);',
                     '\tint i = 0;', '\tif (a) b = c;', '\treturn a = b;'):
            self.assertNotIn('del', [m.operator for m in
                                     mutate_gen.mutations_of_line(
                                         'mm/x.c', 1, line)], line)
        self.assertIn('del', [m.operator for m in mutate_gen.mutations_of_line(
            'mm/x.c', 1, '\tvm->pages[i] = page;')])

    def test_a_case_label_is_taken_out_and_booleans_swapped(self) -> None:
        found = {m.operator: m for m in mutate_gen.mutations_of_line(
            'x.h', 1, '\tcase CONT_PMD_SIZE:')}
        self.assertEqual(found['del'].mutated, '')
        line = '\t\t__flush_tlb_range(vma, start, end, PMD_SIZE, false, 2);'
        mutated = [m.mutated for m in mutate_gen.mutations_of_line(
            'x.h', 1, line) if m.operator == 'const']
        self.assertIn(line.replace('false', 'true'), mutated)
        self.assertIn(line.replace(', 2)', ', 3)'), mutated)

    def test_returned_value(self) -> None:
        self.assertEqual(of_line(20)['ret'], ['return 0;'])
        self.assertNotIn('ret', of_line(22))

    def test_adjacent_arguments_swapped(self) -> None:
        self.assertEqual(sorted(of_line(16)['swap']), sorted([
            '__free_unref_page(order, page, FPI_PREPARED);',
            '__free_unref_page(page, FPI_PREPARED, order);']))
        self.assertNotIn('swap', of_line(12))

    def test_the_arguments_of_min_and_max_are_not_swapped(self) -> None:
        self.assertNotIn('swap', [m.operator for m in
                                  mutate_gen.mutations_of_line(
                                      'x.c', 1, '\tx = min(end, stop);')])

    def test_types_and_parameter_declarations_are_not_swapped(self) -> None:
        # min_t()'s type stays first; a definition's parameters stay put.
        self.assertNotIn('swap', of_line(5))
        swaps = [m.mutated for m in mutate_gen.mutations_of_line(
            'x.c', 1, '\tx = clamp_t(unsigned int, a, lo);')
                 if m.operator == 'swap']
        self.assertEqual(swaps, ['\tx = clamp_t(unsigned int, lo, a);'])

    def test_comments_and_directives_are_not_code(self) -> None:
        for number in (1, 2, 3, 4):
            self.assertEqual(of_line(number), {}, number)
        self.assertEqual(mutate_gen.tokens('x = 1; // y < z')[0][-1].text,
                         ';')
        toks, still_open = mutate_gen.tokens('a < b /* c <')
        self.assertTrue(still_open)
        self.assertEqual([t.text for t in toks], ['a', '<', 'b'])

    def test_every_operator_is_exercised(self) -> None:
        seen = {m.operator for text in (FILE, NESTED)
                for m in mutate_gen.mutations('mm/x.c', text,
                                              range(1, len(text) + 1))}
        self.assertEqual(seen, set(mutate_gen.OPERATORS))

    def test_sibling_calls_and_sizes(self) -> None:
        found = {m.mutated.strip() for m in mutate_gen.mutations(
            'mm/x.c', NESTED, [12, 13]) if m.operator == 'sib'}
        self.assertEqual(found, {'kfree(vm->pages);', 'vfree(vm->pages);',
                                 'in_interrupt();',
                                 'in_serving_softirq();'})

    def test_range_ends_move_by_one_entry_where_they_are_read(self) -> None:
        self.assertEqual(sorted(of_line(7)['range']), [
            'while (pfn < (end + 1)) {', 'while (pfn < (end - 1)) {'])
        # Written, declared or a member: no range mutant.
        self.assertNotIn('range', of_line(5))
        self.assertEqual([m.mutated for m in mutate_gen.mutations_of_line(
            'x.c', 1, '\tflush(addr, end);') if m.operator == 'range'], [
            '\tflush((addr + PAGE_SIZE), end);',
            '\tflush((addr - PAGE_SIZE), end);',
            '\tflush(addr, (end + PAGE_SIZE));',
            '\tflush(addr, (end - PAGE_SIZE));'])

    def test_a_condition_is_nested_under_the_one_before(self) -> None:
        found = [m for m in mutate_gen.mutations(
            'mm/x.c', NESTED, range(1, len(NESTED) + 1))
            if m.operator == 'nest']
        self.assertEqual(len(found), 1)
        self.assertEqual(found[0].line, 8)
        self.assertEqual(found[0].mutated.split('\n'), [
            '\tif (vm->flags & VM_FLUSH_RESET_PERMS) {',
            '\t\tvm_reset_perms(vm);',
            '\t\tif (!(vm->flags & VM_MAP_PUT_PAGES))',
            '\t\t\tmod_memcg_page_state(vm->pages[0], MEMCG_VMALLOC, -nr);',
            '\t}'])

    def test_a_statement_moves_across_its_neighbour(self) -> None:
        found = [m for m in mutate_gen.mutations('mm/x.c', FILE, [16, 17])
                 if m.operator == 'move']
        self.assertEqual([m.mutated.split('\n') for m in found], [[
            '\t\tpfn += 1UL << order;',
            '\t\t__free_unref_page(page, order, FPI_PREPARED);']])
        # Only when both lines are among the chosen ones.
        self.assertFalse([m for m in mutate_gen.mutations('mm/x.c', FILE,
                                                          [16])
                          if m.operator == 'move'])


class DefinitionsTest(unittest.TestCase):
    def test_functions_and_macros_with_their_lines(self) -> None:
        self.assertEqual(mutate_gen.definitions(NESTED), [
            mutate_gen.Definition('one', 1, 2),
            mutate_gen.Definition('vfree_run', 4, 14),
            mutate_gen.Definition('two', 15, 15)])
        self.assertEqual(mutate_gen.definitions(FILE), [
            mutate_gen.Definition('free_prepared_run', 5, 23)])

    def test_texts_by_name(self) -> None:
        texts = mutate_gen.definition_texts(NESTED)
        self.assertEqual(sorted(texts), ['one', 'two', 'vfree_run'])
        self.assertTrue(texts['vfree_run'].startswith('static inline void'))
        self.assertTrue(texts['vfree_run'].endswith('}'))


class SampleTest(unittest.TestCase):
    def test_the_same_seed_picks_the_same_mutants(self) -> None:
        found = mutate_gen.mutations('mm/x.c', FILE, range(1, len(FILE) + 1))
        a = mutate_gen.sample(found, 5, 7)
        self.assertEqual(a, mutate_gen.sample(found, 5, 7))
        self.assertEqual(len(a), 5)
        self.assertEqual(len(mutate_gen.sample(found, 0, 7)), len(found))
        self.assertEqual([m.line for m in a], sorted(m.line for m in a))


class PatchTest(unittest.TestCase):
    def test_git_applies_each_mutant_and_changes_one_line(self) -> None:
        found = mutate_gen.mutations('mm/x.c', FILE, [7, 16, 20])
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            (repo / 'mm').mkdir()
            (repo / 'mm' / 'x.c').write_text('\n'.join(FILE))
            subprocess.run(['git', 'init', '-q', str(repo)], check=True)
            for m in found:
                patch = repo / 'm.patch'
                patch.write_text(mutate_gen.as_patch(m, FILE))
                subprocess.run(['git', 'apply', str(patch)], cwd=repo,
                               check=True)
                after = (repo / 'mm' / 'x.c').read_text().split('\n')
                self.assertEqual(after[m.line - 1], m.mutated)
                changed = [i for i, (x, y) in enumerate(zip(FILE, after))
                           if x != y]
                self.assertEqual(changed, [m.line - 1])
                (repo / 'mm' / 'x.c').write_text('\n'.join(FILE))

    def test_a_mutant_near_the_end_of_a_file_applies(self) -> None:
        # The file ends in a newline; the mutant's trailing context reaches
        # past its last line.
        text = '#define one(x) f(x, 1)\n\n#endif\n'
        m = mutate_gen.Mutation('x.h', 1, 'const', '#define one(x) f(x, 1)',
                                '#define one(x) f(x, 2)', '`1` to `2`')
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            (repo / 'x.h').write_text(text)
            subprocess.run(['git', 'init', '-q', str(repo)], check=True)
            (repo / 'm.patch').write_text(
                mutate_gen.as_patch(m, mutate_gen.lines_of(text)))
            subprocess.run(['git', 'apply', 'm.patch'], cwd=repo,
                           check=True, capture_output=True)
            self.assertEqual((repo / 'x.h').read_text(),
                             text.replace('1)', '2)'))

    def test_git_applies_a_multi_line_mutant(self) -> None:
        text = '\n'.join(NESTED)
        lines = mutate_gen.lines_of(text)
        nest = [m for m in mutate_gen.mutations(
            'mm/x.c', lines, range(1, len(lines) + 1))
            if m.operator in ('nest', 'move')]
        self.assertEqual(len(nest), 2)
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            (repo / 'mm').mkdir()
            subprocess.run(['git', 'init', '-q', str(repo)], check=True)
            for m in nest:
                (repo / 'mm' / 'x.c').write_text(text)
                (repo / 'm.patch').write_text(mutate_gen.as_patch(m, lines))
                subprocess.run(['git', 'apply', 'm.patch'], cwd=repo,
                               check=True)
                want = (lines[:m.line - 1] + m.mutated.split('\n') +
                        lines[m.line - 1 + len(m.original.split('\n')):])
                self.assertEqual((repo / 'mm' / 'x.c').read_text(),
                                 '\n'.join(want) + '\n')

    def test_a_stale_line_is_refused(self) -> None:
        m = mutate_gen.mutations('mm/x.c', FILE, [7])[0]
        moved = ['/* new */'] + FILE
        with self.assertRaises(ValueError):
            mutate_gen.as_patch(m, moved)


if __name__ == '__main__':
    unittest.main()
