// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel page-table reader shared by the series' vmalloc suites; see
 * kernel_map.h.
 */
#include <linux/mm.h>

#include "kernel_map.h"

void kmap_lookup(unsigned long addr, struct kmap_entry *e)
{
	pgd_t *pgdp = pgd_offset_k(addr);
	p4d_t *p4dp;
	pud_t *pudp, pud;
	pmd_t *pmdp, pmd;

	*e = (struct kmap_entry){ .level = KMAP_NONE, .size = PAGE_SIZE };

	if (pgd_none(READ_ONCE(*pgdp)))
		return;
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none(READ_ONCE(*p4dp)))
		return;

	pudp = pud_offset(p4dp, addr);
	pud = READ_ONCE(*pudp);
	if (pud_none(pud)) {
		e->size = PUD_SIZE;
		return;
	}
	if (pud_leaf(pud)) {
		*e = (struct kmap_entry){ KMAP_PUD, pud_val(pud), PUD_SIZE };
		return;
	}

	pmdp = pmd_offset(pudp, addr);
	pmd = READ_ONCE(*pmdp);
	if (pmd_none(pmd)) {
		e->size = PMD_SIZE;
		return;
	}
	if (pmd_leaf(pmd)) {
		*e = (struct kmap_entry){ KMAP_PMD, pmd_val(pmd), PMD_SIZE };
		return;
	}

	e->ptep = pte_offset_kernel(pmdp, addr);
	e->desc = pte_val(__ptep_get(e->ptep));
	e->level = e->desc ? KMAP_PTE : KMAP_NONE;
}

unsigned long kmap_translation_entries(unsigned long start, unsigned long end)
{
	unsigned long addr = start, entries = 0;
	struct kmap_entry e;

	while (addr < end) {
		unsigned long size;

		kmap_lookup(addr, &e);
		size = e.size;
		if (kmap_cont(&e))
			size *= e.level == KMAP_PTE ? CONT_PTES : CONT_PMDS;
		if (kmap_valid(&e))
			entries++;
		addr = ALIGN_DOWN(addr, size) + size;
	}
	return entries;
}

bool kmap_range_unmapped(unsigned long start, unsigned long end)
{
	unsigned long addr = start;
	struct kmap_entry e;

	while (addr < end) {
		kmap_lookup(addr, &e);
		if (e.level != KMAP_NONE)
			return false;
		addr = ALIGN_DOWN(addr, e.size) + e.size;
	}
	return true;
}
