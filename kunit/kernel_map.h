/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads the kernel page tables (init_mm) for a virtual address the way the
 * MMU would: which level maps it, with what descriptor, and how many
 * translation entries a range needs once contiguous blocks count as one.
 */
#ifndef _MM_SERIES_KUNIT_KERNEL_MAP_H
#define _MM_SERIES_KUNIT_KERNEL_MAP_H

#include <linux/pgtable.h>

enum kmap_level { KMAP_NONE, KMAP_PUD, KMAP_PMD, KMAP_PTE };

struct kmap_entry {
	enum kmap_level level;
	u64 desc;		/* the raw descriptor; 0 for KMAP_NONE */
	unsigned long size;	/* what one entry of this level maps */
	pte_t *ptep;		/* the entry itself, for KMAP_PTE */
};

void kmap_lookup(unsigned long addr, struct kmap_entry *e);

static inline bool kmap_valid(const struct kmap_entry *e)
{
	return e->level != KMAP_NONE && (e->desc & PTE_VALID);
}

static inline bool kmap_cont(const struct kmap_entry *e)
{
	return kmap_valid(e) && (e->desc & PTE_CONT);
}

static inline unsigned long kmap_pfn(const struct kmap_entry *e)
{
	return pte_pfn(__pte(e->desc));
}

/*
 * The TLB entries [start, end) needs: one per valid entry, except that a
 * contiguous block of entries needs one for the whole block.
 */
unsigned long kmap_translation_entries(unsigned long start, unsigned long end);

/* True when every entry of [start, end) is none (zero), not just invalid. */
bool kmap_range_unmapped(unsigned long start, unsigned long end);

#endif
