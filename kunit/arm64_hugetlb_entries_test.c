// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for how arm64 writes, reads and clears hugetlb entries of
 * every size the granule has, named by role: contpte (CONT_PTES level-3
 * entries: 64K on 4K pages, 2M on 16K and 64K), pmd (one PMD block), contpmd
 * (CONT_PMDS level-2 blocks) and pud (one PUD block, 4K pages only).
 *
 * Each case gets its own mm and page tables, built the way
 * mm/debug_vm_pgtable.c builds them, and memory of the huge page size
 * from the page allocator; nothing of it is visible to the rest of the
 * kernel, and cleanup actions clear the entries, free the tables, the
 * memory and the mm even when a case fails half way.
 */
#include <kunit/test.h>
#include <linux/hugetlb.h>
#include <linux/mman.h>
#include <linux/page_ext.h>
#include <linux/page_table_check.h>
#include <linux/vmalloc.h>
#include <linux/swapops.h>
#include <asm/tlb.h>

#include "hugetlb_fixture.h"
#include "page_ext_fixture.h"
#include "mm_recorder.h"

/* Far from anything; aligned for every hugetlb size. */
#define FIXTURE_ADDR	(8 * PUD_SIZE)

/* A hugetlb size and what arm64 makes of it, from the granule's macros. */
struct entry_size {
	const char *desc;
	unsigned long size;
	unsigned long pgsize;		/* size of one entry of the block */
	unsigned int ncontig;		/* entries in the block */
	/* What the break-before-make flush of the block must ask for. */
	unsigned long bbm_stride;
	int bbm_level;
};

static const struct entry_size entry_sizes[] = {
	{ "contpte", CONT_PTE_SIZE, PAGE_SIZE, CONT_PTES,
	  PAGE_SIZE, TLBI_TTL_UNKNOWN },
	{ "pmd", PMD_SIZE, PMD_SIZE, 1, PMD_SIZE, 2 },
	{ "contpmd", CONT_PMD_SIZE, PMD_SIZE, CONT_PMDS, PMD_SIZE, 2 },
	{ "pud", PUD_SIZE, PUD_SIZE, 1, PUD_SIZE, 1 },
};

KUNIT_ARRAY_PARAM_DESC(entry_size, entry_sizes, desc);

/* Only the sizes made of several entries. */
static const void *contig_size_gen_params(const void *prev, char *desc)
{
	const struct entry_size *prev_size = prev;
	size_t i = prev_size ? prev_size - entry_sizes + 1 : 0;

	for (; i < ARRAY_SIZE(entry_sizes); i++) {
		if (entry_sizes[i].ncontig > 1) {
			strscpy(desc, entry_sizes[i].desc,
				KUNIT_PARAM_DESC_SIZE);
			return &entry_sizes[i];
		}
	}
	return NULL;
}

enum entry_kind { ENTRY_PRESENT, ENTRY_SWAP, ENTRY_MIGRATION, NR_ENTRY_KINDS };

static const char * const entry_kind_names[] = {
	[ENTRY_PRESENT] = "present",
	[ENTRY_SWAP] = "swap",
	[ENTRY_MIGRATION] = "migration",
};

/* Every size with every kind of entry. */
struct entry_param {
	const struct entry_size *size;
	enum entry_kind kind;
};

static struct entry_param entry_params[ARRAY_SIZE(entry_sizes) *
				       NR_ENTRY_KINDS];

static const void *entry_param_gen(const void *prev, char *desc)
{
	const struct entry_param *prev_param = prev;
	size_t i = prev_param ? prev_param - entry_params + 1 : 0;
	struct entry_param *p;

	if (i >= ARRAY_SIZE(entry_params))
		return NULL;
	p = &entry_params[i];
	p->size = &entry_sizes[i / NR_ENTRY_KINDS];
	p->kind = i % NR_ENTRY_KINDS;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s_%s", p->size->desc,
		 entry_kind_names[p->kind]);
	return p;
}

/* An mm, a hugetlb vma and the page tables for one block at addr. */
struct entry_fixture {
	const struct entry_size *s;
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	unsigned long addr;
	pte_t *ptep;
	unsigned long pfn;		/* first pfn of the block's memory */
	struct page *contig_pages;	/* set when not a compound folio */
};

static void entry_fixture_free_memory(void *data)
{
	struct entry_fixture *f = data;

	if (f->contig_pages)
		free_contig_range(f->pfn, f->s->size >> PAGE_SHIFT);
	else
		folio_put(pfn_folio(f->pfn));
}

static void entry_fixture_free_tables(void *data)
{
	struct entry_fixture *f = data;
	struct mmu_gather tlb;

	/* A case that failed half way may have left entries behind. */
	huge_ptep_get_and_clear(f->mm, f->addr, f->ptep, f->s->size);

	mmap_write_lock(f->mm);
	tlb_gather_mmu(&tlb, f->mm);
	free_pgd_range(&tlb, f->addr, f->addr + f->s->size, 0, 0);
	tlb_finish_mmu(&tlb);
	mmap_write_unlock(f->mm);
}

KUNIT_DEFINE_ACTION_WRAPPER(mmput_wrapper, mmput, struct mm_struct *);
KUNIT_DEFINE_ACTION_WRAPPER(vm_area_free_wrapper, vm_area_free,
			    struct vm_area_struct *);

/*
 * compound: back the block with a folio of its size, as hugetlb does;
 * otherwise with plain contiguous pages, which only the page table (not
 * the struct pages) says are one block.
 */
static struct entry_fixture *entry_fixture_create(struct kunit *test,
						  const struct entry_size *s,
						  bool compound)
{
	const vm_flags_t flags = VM_HUGETLB | VM_READ | VM_WRITE | VM_SHARED;
	unsigned int order = ilog2(s->size >> PAGE_SHIFT);
	struct entry_fixture *f;
	struct file *file;

	hugetlb_test_need_size(test, s->desc, s->size);
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->s = s;
	f->addr = FIXTURE_ADDR;

	/* The vma's hstate comes from its hugetlbfs file. */
	file = hugetlb_test_file(test, s->size, s->size, VM_NORESERVE);

	f->mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, f->mm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mmput_wrapper,
							f->mm), 0);

	f->vma = vm_area_alloc(f->mm);
	KUNIT_ASSERT_NOT_NULL(test, f->vma);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			vm_area_free_wrapper, f->vma), 0);
	f->vma->vm_start = f->addr;
	f->vma->vm_end = f->addr + s->size;
	vm_flags_init(f->vma, flags);
	f->vma->vm_page_prot = vm_get_page_prot(flags);
	f->vma->vm_file = file;

	if (compound) {
		struct folio *folio;

		if (order <= MAX_PAGE_ORDER)
			folio = folio_alloc(GFP_KERNEL, order);
		else
			folio = folio_alloc_gigantic(order,
						     GFP_KERNEL | __GFP_COMP,
						     first_online_node, NULL);
		/* Memory, not the code under test: say what is missing. */
		if (!folio)
			kunit_skip(test, "%s: needs a free %luK folio, memory has none now",
				   s->desc, s->size >> 10);
		f->pfn = folio_pfn(folio);
	} else {
		f->contig_pages = alloc_contig_pages(s->size >> PAGE_SHIFT,
						     GFP_KERNEL,
						     first_online_node, NULL);
		if (!f->contig_pages)
			kunit_skip(test, "%s: needs %luK of free contiguous pages, memory has none now",
				   s->desc, s->size >> 10);
		f->pfn = page_to_pfn(f->contig_pages);
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			entry_fixture_free_memory, f), 0);
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(f->pfn, s->size >> PAGE_SHIFT));

	f->ptep = huge_pte_alloc(f->mm, f->vma, f->addr, s->size);
	KUNIT_ASSERT_NOT_NULL(test, f->ptep);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			entry_fixture_free_tables, f), 0);
	return f;
}

/* A clean, old, writable user entry for the whole block. */
static pte_t present_entry(const struct entry_fixture *f)
{
	pte_t pte = pfn_pte(f->pfn, f->vma->vm_page_prot);

	pte = arch_make_huge_pte(pte, ilog2(f->s->size), f->vma->vm_flags);
	return pte_mkold(pte_mkclean(pte));
}

static pte_t entry_of_kind(const struct entry_fixture *f,
			   enum entry_kind kind)
{
	switch (kind) {
	case ENTRY_SWAP:
		return swp_entry_to_pte(swp_entry(1, 0x1234));
	case ENTRY_MIGRATION:
		return swp_entry_to_pte(make_readable_migration_entry(f->pfn));
	default:
		return present_entry(f);
	}
}

static pte_t entry_at(const struct entry_fixture *f, unsigned int i)
{
	return __ptep_get(f->ptep + i);
}

/*
 * The block's own entries only: the next block's worth of entries of the
 * same table, which no case maps unless it says so, stays none. A write
 * or clear one entry (or one block) too far shows here, not only by
 * chance in a flush range or a page_table_check count. FIXTURE_ADDR is
 * PUD aligned, so these entries are in the block's own table.
 */
static void expect_after_block_none(struct kunit *test,
				    const struct entry_fixture *f)
{
	unsigned int i;

	for (i = f->s->ncontig; i < 2 * f->s->ncontig; i++)
		KUNIT_EXPECT_TRUE_MSG(test, pte_none(entry_at(f, i)),
				      "entry %u, past the block of %u, is not none",
				      i, f->s->ncontig);
}

/* Every entry of the block is what set_huge_pte_at(pte) must write. */
static void expect_block(struct kunit *test, const struct entry_fixture *f,
			 pte_t pte)
{
	unsigned long dpfn = f->s->pgsize >> PAGE_SHIFT;
	unsigned int i;

	for (i = 0; i < f->s->ncontig; i++) {
		pte_t got = entry_at(f, i);

		if (!pte_present(pte)) {
			KUNIT_EXPECT_TRUE_MSG(test, pte_same(got, pte),
					      "entry %u", i);
			continue;
		}
		KUNIT_EXPECT_TRUE_MSG(test, pte_valid(got), "entry %u", i);
		KUNIT_EXPECT_EQ_MSG(test, pte_pfn(got), pte_pfn(pte) + i * dpfn,
				    "entry %u", i);
		KUNIT_EXPECT_EQ_MSG(test, pte_cont(got), f->s->ncontig > 1,
				    "entry %u", i);
		KUNIT_EXPECT_EQ_MSG(test, pte_write(got), pte_write(pte),
				    "write permission of entry %u", i);
	}
	expect_after_block_none(test, f);
}

static void expect_block_none(struct kunit *test,
			      const struct entry_fixture *f)
{
	unsigned int i;

	for (i = 0; i < f->s->ncontig; i++)
		KUNIT_EXPECT_TRUE_MSG(test, pte_none(entry_at(f, i)),
				      "entry %u", i);
	expect_after_block_none(test, f);
}

/* The one break-before-make flush of the block, as refined by F5. */
static void expect_bbm_flush(struct kunit *test, const struct entry_fixture *f,
			     struct mm_recorder *rec)
{
	const struct arm64_tlbflush_event *event;

	KUNIT_ASSERT_EQ(test, rec->nr_events, 1);
	event = mm_recorder_last(test, rec);
	KUNIT_EXPECT_EQ(test, event->start, f->addr);
	KUNIT_EXPECT_EQ(test, event->end, f->addr + f->s->size);
	KUNIT_EXPECT_EQ(test, event->stride, f->s->bbm_stride);
	KUNIT_EXPECT_EQ(test, event->tlb_level, f->s->bbm_level);
	KUNIT_EXPECT_TRUE(test, event->last_level);
}

/* set_huge_pte_at() writes the whole block; a none block needs no flush. */
static void set_huge_pte_at_test(struct kunit *test)
{
	const struct entry_param *p = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, p->size, true);
	pte_t pte = entry_of_kind(f, p->kind);

	set_huge_pte_at(f->mm, f->addr, f->ptep, pte, p->size->size);
	expect_block(test, f, pte);
}

static void set_huge_pte_at_over_none_no_flush_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	struct mm_recorder *rec = mm_recorder_start(test, f->mm);

	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), s->size);
	mm_recorder_stop(rec);

	expect_block(test, f, present_entry(f));
	KUNIT_EXPECT_EQ_MSG(test, rec->nr_events, 0,
			    "flushed a block that had no valid entry");
}

/* Rewriting a valid contiguous block breaks it first, with one flush. */
static void set_huge_pte_at_over_valid_flush_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	struct mm_recorder *rec;
	pte_t pte = present_entry(f);

	set_huge_pte_at(f->mm, f->addr, f->ptep, pte, s->size);
	rec = mm_recorder_start(test, f->mm);
	set_huge_pte_at(f->mm, f->addr, f->ptep, pte_wrprotect(pte), s->size);
	mm_recorder_stop(rec);

	expect_block(test, f, pte_wrprotect(pte));
	expect_bbm_flush(test, f, rec);
}

/*
 * Nor a block whose entries are present but not valid (PROT_NONE's form):
 * no TLB holds them, so there is nothing to break; only a valid to valid
 * change of a contiguous block is broken first.
 */
static void set_huge_pte_at_over_invalid_no_flush_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	pte_t prot_none = pte_modify(present_entry(f), PAGE_NONE);
	struct mm_recorder *rec;

	KUNIT_ASSERT_TRUE(test, pte_present(prot_none) && !pte_valid(prot_none));
	set_huge_pte_at(f->mm, f->addr, f->ptep, prot_none, s->size);
	rec = mm_recorder_start(test, f->mm);
	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), s->size);
	mm_recorder_stop(rec);

	expect_block(test, f, present_entry(f));
	KUNIT_EXPECT_EQ_MSG(test, rec->nr_events, 0,
			    "flushed a block whose entries were not valid");
}

/* Counts, at each flush of the block, the entries still valid. */
struct break_probe {
	const struct entry_fixture *f;
	unsigned int valid_at_flush;
};

static void count_valid_at_flush(void *data)
{
	struct break_probe *p = data;
	unsigned int i;

	for (i = 0; i < p->f->s->ncontig; i++)
		p->valid_at_flush += pte_valid(entry_at(p->f, i));
}

/*
 * The break itself: when the block's one flush is issued, every entry of
 * the block is invalid already, so that no TLB can hold an old entry and
 * a new one of the block at once ("Misprogramming of the Contiguous bit").
 */
static void set_huge_pte_at_breaks_before_flush_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	struct break_probe probe = { .f = f };
	struct mm_recorder *rec;
	pte_t pte = present_entry(f);

	set_huge_pte_at(f->mm, f->addr, f->ptep, pte, s->size);
	rec = mm_recorder_start(test, f->mm);
	rec->on_tlbflush_data = &probe;
	rec->on_tlbflush = count_valid_at_flush;
	set_huge_pte_at(f->mm, f->addr, f->ptep, pte_wrprotect(pte), s->size);
	mm_recorder_stop(rec);

	KUNIT_ASSERT_EQ(test, rec->nr_events, 1);
	KUNIT_EXPECT_EQ_MSG(test, probe.valid_at_flush, 0,
			    "entries of the block were still valid at its flush");
	expect_block(test, f, pte_wrprotect(pte));
}

/* A present block whose only dirty and young entry is the last one. */
static void set_block_dirty_at_end(const struct entry_fixture *f)
{
	unsigned int last = f->s->ncontig - 1;

	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), f->s->size);
	__set_pte(f->ptep + last, pte_mkyoung(pte_mkdirty(entry_at(f, last))));
}

static void expect_huge_ptep_get_merges(struct kunit *test, bool compound)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, compound);
	pte_t got;

	set_block_dirty_at_end(f);
	got = huge_ptep_get(f->mm, f->addr, f->ptep);

	KUNIT_EXPECT_TRUE_MSG(test, pte_dirty(got),
			      "dirty bit of entry %u not merged", s->ncontig - 1);
	KUNIT_EXPECT_TRUE_MSG(test, pte_young(got),
			      "young bit of entry %u not merged", s->ncontig - 1);
	KUNIT_EXPECT_EQ(test, pte_pfn(got), f->pfn);
}

/* huge_ptep_get() ORs dirty and young over the block of a hugetlb folio. */
static void huge_ptep_get_merges_test(struct kunit *test)
{
	expect_huge_ptep_get_merges(test, true);
}

/*
 * The same over plain contiguous pages: the block size must come from the
 * page table (F4), not from page_size() of the page mapped.
 */
static void huge_ptep_get_size_from_table_test(struct kunit *test)
{
	expect_huge_ptep_get_merges(test, false);
}

static void clear_neighbour(void *data)
{
	struct entry_fixture *f = data;
	unsigned int i;

	for (i = f->s->ncontig; i < 2 * f->s->ncontig; i++)
		__pte_clear(f->mm, f->addr + i * f->s->pgsize, f->ptep + i);
}

/*
 * huge_ptep_get() is handed the faulting address, which may lie anywhere
 * in the block, with the block's first entry: it must read that block's
 * entries and no others. The block is clean and old and the block after
 * it, in the same table, dirty and young, so an entry read that strays
 * past the block shows. With 16K pages a contiguous-PMD block has
 * CONT_PMDS = 32 entries and CONT_PTES is 128: comparing ptep with the
 * address's own pmd takes the block for a contiguous-PTE one and reads 96
 * entries too many. 4K and 64K pages have equal counts, so only a 16K
 * kernel can fail this.
 */
static void huge_ptep_get_inside_block_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	const unsigned int at[] = { 0, 1, s->ncontig - 1 };
	pte_t stray = pte_mkyoung(pte_mkdirty(present_entry(f)));
	unsigned int i;

	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), s->size);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, clear_neighbour,
							f), 0);
	for (i = s->ncontig; i < 2 * s->ncontig; i++)
		__set_pte(f->ptep + i, stray);

	for (i = 0; i < ARRAY_SIZE(at); i++) {
		unsigned long addr = f->addr + at[i] * s->pgsize + PAGE_SIZE;
		pte_t got = huge_ptep_get(f->mm, addr, f->ptep);

		KUNIT_EXPECT_FALSE_MSG(test, pte_dirty(got) || pte_young(got),
				       "read at entry %u of %u merged entries past the block",
				       at[i], s->ncontig);
		KUNIT_EXPECT_EQ_MSG(test, pte_pfn(got), f->pfn,
				    "read at entry %u", at[i]);
	}
}

/*
 * Each access bit on its own: the last entry of a clean, old block gets
 * only one of them, so that a read or a clear that takes one bit for the
 * other, or looks at one only under the other, shows.
 */
struct access_bit {
	const char *desc;
	bool dirty, young;
};

static const struct access_bit access_bits[] = {
	{ "dirty", true, false },
	{ "young", false, true },
};

/* Each access bit over each size made of several entries. */
struct bit_param {
	const struct entry_size *size;
	const struct access_bit *bit;
};

static struct bit_param bit_params[ARRAY_SIZE(entry_sizes) *
				   ARRAY_SIZE(access_bits)];

static const void *contig_bit_gen_params(const void *prev, char *desc)
{
	const struct bit_param *prev_param = prev;
	size_t i = prev_param ? prev_param - bit_params + 1 : 0;

	for (; i < ARRAY_SIZE(bit_params); i++) {
		struct bit_param *p = &bit_params[i];

		p->size = &entry_sizes[i / ARRAY_SIZE(access_bits)];
		p->bit = &access_bits[i % ARRAY_SIZE(access_bits)];
		if (p->size->ncontig == 1)
			continue;
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s_%s", p->size->desc,
			 p->bit->desc);
		return p;
	}
	return NULL;
}

static pte_t pte_with_bits(pte_t pte, bool dirty, bool young)
{
	if (dirty)
		pte = pte_mkdirty(pte);
	if (young)
		pte = pte_mkyoung(pte);
	return pte;
}

/* A clean, old block whose last entry has @bit only. */
static void set_block_bit_at_end(const struct entry_fixture *f,
				 const struct access_bit *bit)
{
	unsigned int last = f->s->ncontig - 1;

	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), f->s->size);
	__set_pte(f->ptep + last, pte_with_bits(entry_at(f, last), bit->dirty,
						bit->young));
}

static void expect_bits(struct kunit *test, pte_t got, bool dirty, bool young)
{
	KUNIT_EXPECT_EQ_MSG(test, !!pte_dirty(got), dirty, "dirty bit");
	KUNIT_EXPECT_EQ_MSG(test, !!pte_young(got), young, "young bit");
}

/* huge_ptep_get() merges each bit as itself, and only that bit. */
static void huge_ptep_get_merges_each_bit_test(struct kunit *test)
{
	const struct bit_param *p = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, p->size, true);

	set_block_bit_at_end(f, p->bit);
	expect_bits(test, huge_ptep_get(f->mm, f->addr, f->ptep),
		    p->bit->dirty, p->bit->young);
}

/* So does the break that huge_ptep_get_and_clear() makes. */
static void huge_ptep_get_and_clear_merges_each_bit_test(struct kunit *test)
{
	const struct bit_param *p = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, p->size, true);
	pte_t got;

	set_block_bit_at_end(f, p->bit);
	got = huge_ptep_get_and_clear(f->mm, f->addr, f->ptep, p->size->size);
	expect_block_none(test, f);
	expect_bits(test, got, p->bit->dirty, p->bit->young);
}

/*
 * A PROT_NONE block (mprotect(PROT_NONE) of a hugetlb mapping) is present
 * but not valid: its entries still map the folio, and the dirty bit of
 * any of them is the block's, for huge_ptep_get() and for the break.
 */
static void prot_none_block_merges_dirty_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	pte_t pte = pte_modify(present_entry(f), PAGE_NONE);
	unsigned int last = s->ncontig - 1;
	pte_t got;

	KUNIT_ASSERT_TRUE(test, pte_present(pte) && !pte_valid(pte));
	set_huge_pte_at(f->mm, f->addr, f->ptep, pte, s->size);
	__set_pte(f->ptep + last, pte_mkdirty(entry_at(f, last)));

	got = huge_ptep_get(f->mm, f->addr, f->ptep);
	KUNIT_EXPECT_TRUE_MSG(test, pte_dirty(got),
			      "huge_ptep_get(): dirty bit of entry %u not merged",
			      last);
	got = huge_ptep_get_and_clear(f->mm, f->addr, f->ptep, s->size);
	KUNIT_EXPECT_TRUE_MSG(test, pte_dirty(got),
			      "huge_ptep_get_and_clear(): dirty bit of entry %u not merged",
			      last);
	expect_block_none(test, f);
}

/* Only the sizes of one entry. */
static const void *single_size_gen_params(const void *prev, char *desc)
{
	const struct entry_size *prev_size = prev;
	size_t i = prev_size ? prev_size - entry_sizes + 1 : 0;

	for (; i < ARRAY_SIZE(entry_sizes); i++) {
		if (entry_sizes[i].ncontig == 1) {
			strscpy(desc, entry_sizes[i].desc,
				KUNIT_PARAM_DESC_SIZE);
			return &entry_sizes[i];
		}
	}
	return NULL;
}

/* Entries past a one-entry block, as many as the largest contiguous run. */
#define SINGLE_NEIGHBOURS	max(CONT_PTES, CONT_PMDS)

static void clear_single_neighbours(void *data)
{
	struct entry_fixture *f = data;
	unsigned int i;

	for (i = 1; i <= SINGLE_NEIGHBOURS; i++)
		__pte_clear(f->mm, f->addr + i * f->s->pgsize, f->ptep + i);
}

/*
 * A block of one entry (no contiguous bit) is its own entry only, even
 * when the entries after it in the table are dirty and young.
 */
static void huge_ptep_get_single_entry_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	pte_t stray = pte_mkyoung(pte_mkdirty(present_entry(f)));
	pte_t got;
	unsigned int i;

	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), s->size);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			clear_single_neighbours, f), 0);
	for (i = 1; i <= SINGLE_NEIGHBOURS; i++)
		__set_pte(f->ptep + i, stray);

	got = huge_ptep_get(f->mm, f->addr, f->ptep);
	KUNIT_EXPECT_FALSE_MSG(test, pte_dirty(got) || pte_young(got),
			       "a one-entry block merged the entries after it");
	KUNIT_EXPECT_EQ(test, pte_pfn(got), f->pfn);
}

/*
 * huge_ptep_get_and_clear() clears the block; present entries come back
 * with dirty/young merged, others as the first entry unmodified (F1, F2).
 */
static void huge_ptep_get_and_clear_test(struct kunit *test)
{
	const struct entry_param *p = test->param_value;
	const struct entry_size *s = p->size;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	pte_t pte = entry_of_kind(f, p->kind);
	pte_t got;

	if (p->kind == ENTRY_PRESENT)
		set_block_dirty_at_end(f);
	else
		set_huge_pte_at(f->mm, f->addr, f->ptep, pte, s->size);

	got = huge_ptep_get_and_clear(f->mm, f->addr, f->ptep, s->size);

	expect_block_none(test, f);
	if (p->kind == ENTRY_PRESENT) {
		KUNIT_EXPECT_EQ(test, pte_pfn(got), f->pfn);
		KUNIT_EXPECT_TRUE(test, pte_dirty(got));
		KUNIT_EXPECT_TRUE(test, pte_young(got));
	} else {
		KUNIT_EXPECT_TRUE(test, pte_same(got, pte));
	}
}

/* huge_ptep_clear_flush() clears the block with one narrow flush (F4, F5). */
static void huge_ptep_clear_flush_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	struct mm_recorder *rec;
	pte_t got;

	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), s->size);
	rec = mm_recorder_start(test, f->mm);
	got = huge_ptep_clear_flush(f->vma, f->addr, f->ptep);
	mm_recorder_stop(rec);

	KUNIT_EXPECT_EQ(test, pte_pfn(got), f->pfn);
	expect_block_none(test, f);
	expect_bbm_flush(test, f, rec);
}

/* huge_ptep_set_wrprotect() keeps pfns and dirt; contiguous blocks flush. */
static void huge_ptep_set_wrprotect_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	struct mm_recorder *rec;
	unsigned int i;

	set_huge_pte_at(f->mm, f->addr, f->ptep, pte_mkdirty(present_entry(f)),
			s->size);
	rec = mm_recorder_start(test, f->mm);
	huge_ptep_set_wrprotect(f->mm, f->addr, f->ptep);
	mm_recorder_stop(rec);

	expect_block(test, f, pte_wrprotect(present_entry(f)));
	for (i = 0; i < s->ncontig; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, pte_dirty(entry_at(f, i)),
				      "entry %u", i);
	}
	if (s->ncontig > 1)
		expect_bbm_flush(test, f, rec);
	else
		KUNIT_EXPECT_EQ(test, rec->nr_events, 0);
}

/* huge_ptep_set_access_flags() makes every entry dirty and young. */
static void huge_ptep_set_access_flags_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	struct mm_recorder *rec;
	pte_t pte = present_entry(f);
	unsigned int i;
	int changed;

	set_huge_pte_at(f->mm, f->addr, f->ptep, pte, s->size);
	rec = mm_recorder_start(test, f->mm);
	changed = huge_ptep_set_access_flags(f->vma, f->addr, f->ptep,
					     pte_mkyoung(pte_mkdirty(pte)), 1);
	mm_recorder_stop(rec);

	KUNIT_EXPECT_EQ(test, changed, 1);
	expect_block(test, f, pte);
	for (i = 0; i < s->ncontig; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, pte_dirty(entry_at(f, i)),
				      "entry %u", i);
		KUNIT_EXPECT_TRUE_MSG(test, pte_young(entry_at(f, i)),
				      "entry %u", i);
	}
	if (s->ncontig > 1) {
		expect_bbm_flush(test, f, rec);
	} else {
		/* The one entry's page: a stale read-only TLB entry goes. */
		KUNIT_ASSERT_EQ(test, rec->nr_events, 1);
		KUNIT_EXPECT_EQ(test, mm_recorder_last(test, rec)->start,
				f->addr);
	}
}

static void expect_block_dirty_young(struct kunit *test,
				     const struct entry_fixture *f)
{
	unsigned int i;

	for (i = 0; i < f->s->ncontig; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, pte_dirty(entry_at(f, i)),
				      "entry %u", i);
		KUNIT_EXPECT_TRUE_MSG(test, pte_young(entry_at(f, i)),
				      "entry %u", i);
	}
}

/*
 * A contiguous block whose every entry already has the access flags asked
 * for is left alone: no break, no flush, and the call says so. The entries
 * after the block stay none, and are not read as the block's.
 */
static void huge_ptep_set_access_flags_unchanged_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	pte_t pte = pte_mkyoung(pte_mkdirty(present_entry(f)));
	struct mm_recorder *rec;
	int changed;

	set_huge_pte_at(f->mm, f->addr, f->ptep, pte, s->size);
	rec = mm_recorder_start(test, f->mm);
	changed = huge_ptep_set_access_flags(f->vma, f->addr, f->ptep, pte, 1);
	mm_recorder_stop(rec);

	KUNIT_EXPECT_EQ(test, changed, 0);
	KUNIT_EXPECT_EQ(test, rec->nr_events, 0);
	expect_block(test, f, pte);
	expect_block_dirty_young(test, f);
}

/*
 * Every entry is compared, the last one too: a block that differs from
 * the flags asked for in its last entry only is rewritten.
 */
static void huge_ptep_set_access_flags_last_entry_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	pte_t pte = pte_mkyoung(pte_mkdirty(present_entry(f)));
	unsigned int last = s->ncontig - 1;
	int changed;

	set_huge_pte_at(f->mm, f->addr, f->ptep, pte, s->size);
	__set_pte(f->ptep + last, pte_mkold(pte_mkclean(entry_at(f, last))));
	changed = huge_ptep_set_access_flags(f->vma, f->addr, f->ptep, pte, 1);

	KUNIT_EXPECT_EQ(test, changed, 1);
	expect_block_dirty_young(test, f);
}

/*
 * What the break finds is kept: asked for the other access bit only, a
 * block whose last entry had @bit ends with both on every entry.
 */
static void huge_ptep_set_access_flags_keeps_bit_test(struct kunit *test)
{
	const struct bit_param *p = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, p->size, true);
	pte_t pte = pte_with_bits(present_entry(f), !p->bit->dirty,
				  !p->bit->young);
	int changed;

	set_block_bit_at_end(f, p->bit);
	changed = huge_ptep_set_access_flags(f->vma, f->addr, f->ptep, pte, 0);

	KUNIT_EXPECT_EQ(test, changed, 1);
	expect_block_dirty_young(test, f);
}

/*
 * huge_pte_clear() clears every entry of the block and flushes nothing.
 * hugetlb uses it on non-present entries only (it does not tell
 * page_table_check), so the block holds migration entries here.
 */
static void huge_pte_clear_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	struct mm_recorder *rec;

	set_huge_pte_at(f->mm, f->addr, f->ptep,
			entry_of_kind(f, ENTRY_MIGRATION), s->size);
	rec = mm_recorder_start(test, f->mm);
	huge_pte_clear(f->mm, f->addr, f->ptep, s->size);
	mm_recorder_stop(rec);

	expect_block_none(test, f);
	KUNIT_EXPECT_EQ(test, rec->nr_events, 0);
}

/* A valid kernel entry for the block: the kind that needs barriers. */
static pte_t kernel_entry(const struct entry_fixture *f)
{
	return arch_make_huge_pte(pfn_pte(f->pfn, PAGE_KERNEL),
				  ilog2(f->s->size), 0);
}

/* set_huge_pte_at() of a kernel block: one dsb/isb pair per call (F7, F8). */
static void set_huge_pte_at_kernel_barriers_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, s, true);
	struct mm_recorder *rec = mm_recorder_start(test, f->mm);

	set_huge_pte_at(f->mm, f->addr, f->ptep, kernel_entry(f), s->size);
	mm_recorder_stop(rec);

	expect_block(test, f, kernel_entry(f));
	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 1);
}

static const unsigned int batch_sizes[] = { 1, 4, CONT_PTES };

/* A whole contpte block (CONT_PTES: 16, 128 or 32) is named by role. */
static void batch_size_desc(const unsigned int *nr, char *desc)
{
	if (*nr == CONT_PTES)
		strscpy(desc, "contpte_block", KUNIT_PARAM_DESC_SIZE);
	else
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "nr_%u", *nr);
}

KUNIT_ARRAY_PARAM(batch_size, batch_sizes, batch_size_desc);

/* __set_ptes() of nr valid kernel ptes: one dsb/isb pair (F8). */
static void set_ptes_kernel_barriers_test(struct kunit *test)
{
	const unsigned int *nr = test->param_value;
	struct entry_fixture *f = entry_fixture_create(test, &entry_sizes[0],
						       true);
	struct mm_recorder *rec = mm_recorder_start(test, f->mm);
	unsigned int i;

	__set_ptes(f->mm, f->addr, f->ptep, pfn_pte(f->pfn, PAGE_KERNEL), *nr);
	mm_recorder_stop(rec);

	for (i = 0; i < *nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, pte_pfn(entry_at(f, i)), f->pfn + i,
				    "entry %u", i);
	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 1);
}

/* User entries never need the barriers: TLB maintenance orders them. */
static void set_ptes_user_no_barriers_test(struct kunit *test)
{
	struct entry_fixture *f = entry_fixture_create(test, &entry_sizes[0],
						       true);
	struct mm_recorder *rec = mm_recorder_start(test, f->mm);

	__set_ptes(f->mm, f->addr, f->ptep,
		   pfn_pte(f->pfn, f->vma->vm_page_prot), CONT_PTES);
	mm_recorder_stop(rec);

	KUNIT_EXPECT_EQ(test, pte_pfn(entry_at(f, CONT_PTES - 1)),
			f->pfn + CONT_PTES - 1);
	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 0);
}

/*
 * The sizes that span several memory sections on some granule: contpmd
 * (1G on 16K pages, 16G on 64K) and pud (1G on 4K). The same names on
 * every granule; a size that does not span a section here skips.
 */
static const void *section_size_gen_params(const void *prev, char *desc)
{
	const struct entry_size *prev_size = prev;
	size_t i = prev_size ? prev_size - entry_sizes + 1 : 0;

	for (; i < ARRAY_SIZE(entry_sizes); i++) {
		if (entry_sizes[i].size >= CONT_PMD_SIZE) {
			strscpy(desc, entry_sizes[i].desc,
				KUNIT_PARAM_DESC_SIZE);
			return &entry_sizes[i];
		}
	}
	return NULL;
}

#ifdef CONFIG_PAGE_TABLE_CHECK
/* The record mm/page_table_check.c keeps in the page_ext of each page. */
struct ptc_record {
	atomic_t anon_map_count;
	atomic_t file_map_count;
};

/* Each page of the block is mapped @want times, in its own record. */
static void expect_ptc_records(struct kunit *test,
			       const struct entry_fixture *f, int want)
{
	unsigned long nr = f->s->size >> PAGE_SHIFT, i, bad = 0, first = 0;

	for (i = 0; i < nr; i++) {
		struct page_ext *page_ext = page_ext_get(pfn_to_page(f->pfn + i));
		struct ptc_record *r;

		KUNIT_ASSERT_NOT_NULL(test, page_ext);
		r = page_ext_data(page_ext, &page_table_check_ops);
		if (atomic_read(&r->file_map_count) != want ||
		    atomic_read(&r->anon_map_count)) {
			if (!bad++)
				first = i;
		}
		page_ext_put(page_ext);
		if ((i + 1) % PAGES_PER_SECTION && i + 1 < nr)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, bad, 0,
				    "section %lu of the block: %lu pages not mapped %d time(s) in their record, the first is page %lu",
				    i / PAGES_PER_SECTION, bad, want, first);
		bad = 0;
	}
}

/*
 * page_table_check accounts every page of a block that set_huge_pte_at()
 * maps, and unaccounts it when the block is cleared, in the page_ext
 * record a lookup by pfn finds. A block larger than a memory section spans
 * several record arrays; the case moves them away from where the boot put
 * them, so a walk that steps across a section boundary by pointer
 * arithmetic misses them whether or not the boot happened to allocate the
 * arrays next to each other.
 */
static void page_table_check_across_sections_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f;

	/* A size the granule lacks skips in entry_fixture_create(). */
	if (s->size >> PAGE_SHIFT <= PAGES_PER_SECTION)
		kunit_skip(test, "%s: needs a block larger than a memory section (%luM); this one is %luK",
			   s->desc, (PAGES_PER_SECTION << PAGE_SHIFT) >> 20,
			   s->size >> 10);
	if (static_branch_likely(&page_table_check_disabled))
		kunit_skip(test, "needs page_table_check on (page_table_check=on)");
	f = entry_fixture_create(test, s, true);
	kunit_move_section_records(test, f->pfn, s->size >> PAGE_SHIFT);

	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), s->size);
	expect_ptc_records(test, f, 1);
	huge_ptep_get_and_clear(f->mm, f->addr, f->ptep, s->size);
	expect_ptc_records(test, f, 0);
}

/*
 * The same for a block of every size: each of its entries is accounted
 * and unaccounted at the entry's own size, when the block is mapped, when
 * it is mapped again over itself (break-before-make clears it first) and
 * when it is cleared. An entry cleared as a pte would leave all but one
 * page of its pmd mapped.
 */
static void page_table_check_block_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct entry_fixture *f;

	if (static_branch_likely(&page_table_check_disabled))
		kunit_skip(test, "needs page_table_check on (page_table_check=on)");
	f = entry_fixture_create(test, s, true);
	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), s->size);
	expect_ptc_records(test, f, 1);
	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), s->size);
	expect_ptc_records(test, f, 1);
	huge_ptep_get_and_clear(f->mm, f->addr, f->ptep, s->size);
	expect_ptc_records(test, f, 0);
}

/* The next block of the case: the fixture's block mapped again after it. */
struct next_block {
	struct entry_fixture *f;
	unsigned long addr;
	pte_t *ptep;
};

static void next_block_clear(void *data)
{
	struct next_block *n = data;

	huge_ptep_get_and_clear(n->f->mm, n->addr, n->ptep, n->f->s->size);
}

/*
 * Writing a block checks the entries it replaces, and those only: with the
 * next block of the page table mapping the same pages (a second mapping
 * of the folio, as a shared file has), the block written again over
 * itself leaves the next block's accounting alone. A check of one entry
 * past the block would unaccount the next block's first entry.
 */
static void page_table_check_next_block_test(struct kunit *test)
{
	const struct entry_size *s = test->param_value;
	struct next_block *n;
	struct entry_fixture *f;

	if (static_branch_likely(&page_table_check_disabled))
		kunit_skip(test, "needs page_table_check on (page_table_check=on)");
	f = entry_fixture_create(test, s, true);
	n = kunit_kzalloc(test, sizeof(*n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, n);
	n->f = f;
	n->addr = f->addr + s->size;
	f->vma->vm_end = n->addr + s->size;
	/* FIXTURE_ADDR is PUD aligned: both blocks share the fixture's tables. */
	n->ptep = huge_pte_alloc(f->mm, f->vma, n->addr, s->size);
	KUNIT_ASSERT_NOT_NULL(test, n->ptep);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, next_block_clear,
							n), 0);

	set_huge_pte_at(f->mm, n->addr, n->ptep, present_entry(f), s->size);
	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), s->size);
	expect_ptc_records(test, f, 2);
	set_huge_pte_at(f->mm, f->addr, f->ptep, present_entry(f), s->size);
	expect_ptc_records(test, f, 2);
}

static int ptc_file_map_count(struct page *page)
{
	struct page_ext *page_ext = page_ext_get(page);
	int count;

	if (!page_ext)
		return -1;
	count = atomic_read(&((struct ptc_record *)
			      page_ext_data(page_ext,
					    &page_table_check_ops))->file_map_count);
	page_ext_put(page_ext);
	return count;
}

/*
 * Freeing a page checks that no page table maps it, and it alone: of two
 * neighbouring pages, the second still mapped by a user entry, the first
 * is freed. A check of more records than the freed block's would find the
 * mapping and BUG.
 */
static void page_table_check_free_test(struct kunit *test)
{
	unsigned long addr = FIXTURE_ADDR + PAGE_SIZE;
	struct entry_fixture *f;
	struct page *pages;
	pte_t pte;

	if (static_branch_likely(&page_table_check_disabled))
		kunit_skip(test, "needs page_table_check on (page_table_check=on)");
	/* The fixture's pte table, for an entry of the case's own. */
	f = entry_fixture_create(test, &entry_sizes[0], false);
	pages = alloc_pages(GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	split_page(pages, 1);

	set_pte_at(f->mm, addr, f->ptep + 1,
		   pfn_pte(page_to_pfn(pages + 1), f->vma->vm_page_prot));
	__free_page(pages);
	KUNIT_EXPECT_EQ(test, ptc_file_map_count(pages + 1), 1);
	pte = ptep_get_and_clear(f->mm, addr, f->ptep + 1);
	KUNIT_EXPECT_EQ(test, pte_pfn(pte), page_to_pfn(pages + 1));
	__free_page(pages + 1);
}
#else
static void page_table_check_across_sections_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_TABLE_CHECK");
}

static void page_table_check_free_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_TABLE_CHECK");
}

static void page_table_check_block_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_TABLE_CHECK");
}

static void page_table_check_next_block_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_TABLE_CHECK");
}
#endif

/*
 * Walks of page_ext records around the boundary between two memory
 * sections: where the iteration API differs from stepping by pointer
 * (inside a section the two agree), and where a walk that ends on the
 * boundary must not look up the record of the first pfn past it (upstream's
 * count limit of page_ext_iter_next(): that pfn may start a section with
 * no records, or no mem_section at all).
 */
struct iter_range {
	const char *desc;
	long first;		/* the walk's first pfn, from the boundary */
	unsigned long count;
};

static const struct iter_range iter_ranges[] = {
	{ "inside_a_section", -64, 16 },
	{ "across_the_boundary", -8, 16 },
	{ "from_the_boundary", 0, 16 },
	{ "to_the_boundary", -16, 16 },
};

KUNIT_ARRAY_PARAM_DESC(iter_range, iter_ranges, desc);

#if defined(CONFIG_PAGE_EXTENSION) && defined(for_each_page_ext)
struct contig_range {
	unsigned long pfn;
	unsigned long nr;
};

static void contig_range_free(void *data)
{
	struct contig_range *r = data;

	free_contig_range(r->pfn, r->nr);
}

/* The record a lookup of @pfn finds, as a pointer to compare with. */
static struct page_ext *record_of(unsigned long pfn)
{
	struct page_ext *page_ext = page_ext_get(pfn_to_page(pfn));

	page_ext_put(page_ext);
	return page_ext;
}

/*
 * page_ext_iter_get() is the record the iteration is at: at each page, the
 * one for_each_page_ext() gave, which is the one a lookup of the page
 * finds; and once the walk is done, still the record of its last page. The
 * case owns two whole sections and moves their records apart (see
 * page_ext_fixture.h), so that a step across the boundary by pointer
 * arithmetic lands outside the second section's records.
 */
static void page_ext_iter_get_test(struct kunit *test)
{
	const struct iter_range *r = test->param_value;
	unsigned long i = 0, not_current = 0, not_found = 0, start;
	struct page_ext *page_ext, *last;
	struct page_ext_iter iter;
	struct contig_range *own;
	struct page *pages;

	own = kunit_kzalloc(test, sizeof(*own), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, own);
	own->nr = 2 * PAGES_PER_SECTION;
	pages = alloc_contig_pages(own->nr, GFP_KERNEL, first_online_node,
				   NULL);
	if (!pages)
		kunit_skip(test, "needs two free memory sections (%luM), memory has none now",
			   (own->nr << PAGE_SHIFT) >> 20);
	own->pfn = page_to_pfn(pages);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			contig_range_free, own), 0);
	if (!record_of(own->pfn))
		kunit_skip(test, "needs page extensions in use (page_table_check=on)");
	kunit_move_section_records(test, own->pfn, own->nr);

	start = own->pfn + PAGES_PER_SECTION + r->first;
	last = record_of(start + r->count - 1);
	rcu_read_lock();
	for_each_page_ext(pfn_to_page(start), r->count, page_ext, iter) {
		struct page_ext *found = record_of(start + i);

		not_current += page_ext_iter_get(&iter) != found;
		not_found += page_ext != found;
		i++;
	}
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, i, r->count);
	KUNIT_EXPECT_EQ_MSG(test, not_current, 0,
			    "page_ext_iter_get() is not the record of the page the walk is at");
	KUNIT_EXPECT_EQ_MSG(test, not_found, 0,
			    "%lu records of the walk are not those a lookup of their page finds",
			    not_found);
	KUNIT_EXPECT_PTR_EQ_MSG(test, page_ext_iter_get(&iter), last,
				"the walk went on past its %lu pages, to the record of pfn %lu",
				r->count, start + r->count);
}
#else
static void page_ext_iter_get_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_EXTENSION and for_each_page_ext() (0005)");
}
#endif

#if defined(CONFIG_PAGE_TABLE_CHECK) && defined(CONFIG_TRANSPARENT_HUGEPAGE)
/*
 * THP maps a PMD with set_pmd_at() and takes it down with
 * pmdp_huge_get_and_clear(), which 0009 routes through the any-size
 * helpers: page_table_check must account each page of the PMD once, and
 * unaccount each again.
 */
static void thp_pmd_page_table_check_test(struct kunit *test)
{
	struct entry_fixture *f = entry_fixture_create(test, &entry_sizes[1],
						       true);
	pmd_t pmd = pmd_mkhuge(pfn_pmd(f->pfn, f->vma->vm_page_prot));
	pmd_t *pmdp = (pmd_t *)f->ptep;

	if (static_branch_likely(&page_table_check_disabled))
		kunit_skip(test, "needs page_table_check on (page_table_check=on)");
	set_pmd_at(f->mm, f->addr, pmdp, pmd);
	expect_ptc_records(test, f, 1);
	KUNIT_EXPECT_EQ(test, pmd_pfn(pmdp_huge_get_and_clear(f->mm, f->addr,
							      pmdp)),
			f->pfn);
	expect_ptc_records(test, f, 0);
}

/*
 * pmdp_invalidate() rewrites one PMD through pmdp_establish(), which
 * page_table_check checks as a single entry: with the next PMD mapping the
 * same pages, invalidating the first unaccounts its pages once and leaves
 * the next PMD's accounting alone.
 */
static void thp_pmd_invalidate_page_table_check_test(struct kunit *test)
{
	struct entry_fixture *f = entry_fixture_create(test, &entry_sizes[1],
						       true);
	pmd_t pmd = pmd_mkhuge(pfn_pmd(f->pfn, f->vma->vm_page_prot));
	pmd_t *pmdp = (pmd_t *)f->ptep;
	unsigned long next = f->addr + PMD_SIZE;

	if (static_branch_likely(&page_table_check_disabled))
		kunit_skip(test, "needs page_table_check on (page_table_check=on)");
	/* FIXTURE_ADDR is PUD aligned: the next PMD is in the same table. */
	f->vma->vm_end = next + PMD_SIZE;
	set_pmd_at(f->mm, next, pmdp + 1, pmd);
	set_pmd_at(f->mm, f->addr, pmdp, pmd);
	expect_ptc_records(test, f, 2);
	pmdp_invalidate(f->vma, f->addr, pmdp);
	expect_ptc_records(test, f, 1);
	pmdp_huge_get_and_clear(f->mm, f->addr, pmdp);
	pmdp_huge_get_and_clear(f->mm, next, pmdp + 1);
	expect_ptc_records(test, f, 0);
}
#else
static void thp_pmd_page_table_check_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_TABLE_CHECK and CONFIG_TRANSPARENT_HUGEPAGE");
}

static void thp_pmd_invalidate_page_table_check_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_TABLE_CHECK and CONFIG_TRANSPARENT_HUGEPAGE");
}
#endif

static struct kunit_case arm64_hugetlb_entries_cases[] = {
	KUNIT_CASE_PARAM(set_huge_pte_at_test, entry_param_gen),
	KUNIT_CASE_PARAM(set_huge_pte_at_over_none_no_flush_test,
			 contig_size_gen_params),
	KUNIT_CASE_PARAM(set_huge_pte_at_over_valid_flush_test,
			 contig_size_gen_params),
	KUNIT_CASE_PARAM(set_huge_pte_at_over_invalid_no_flush_test,
			 contig_size_gen_params),
	KUNIT_CASE_PARAM(set_huge_pte_at_breaks_before_flush_test,
			 contig_size_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_get_merges_test, entry_size_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_get_size_from_table_test,
			 contig_size_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_get_inside_block_test,
			 contig_size_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_get_merges_each_bit_test,
			 contig_bit_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_get_single_entry_test,
			 single_size_gen_params),
	KUNIT_CASE_PARAM(prot_none_block_merges_dirty_test,
			 contig_size_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_get_and_clear_test, entry_param_gen),
	KUNIT_CASE_PARAM(huge_ptep_get_and_clear_merges_each_bit_test,
			 contig_bit_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_clear_flush_test, entry_size_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_set_wrprotect_test, entry_size_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_set_access_flags_test,
			 entry_size_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_set_access_flags_unchanged_test,
			 contig_size_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_set_access_flags_last_entry_test,
			 contig_size_gen_params),
	KUNIT_CASE_PARAM(huge_ptep_set_access_flags_keeps_bit_test,
			 contig_bit_gen_params),
	KUNIT_CASE_PARAM(huge_pte_clear_test, entry_size_gen_params),
	KUNIT_CASE_PARAM(set_huge_pte_at_kernel_barriers_test,
			 entry_size_gen_params),
	KUNIT_CASE_PARAM(set_ptes_kernel_barriers_test, batch_size_gen_params),
	KUNIT_CASE(set_ptes_user_no_barriers_test),
	KUNIT_CASE_PARAM(page_table_check_across_sections_test,
			 section_size_gen_params),
	KUNIT_CASE_PARAM(page_table_check_block_test, entry_size_gen_params),
	KUNIT_CASE_PARAM(page_table_check_next_block_test,
			 entry_size_gen_params),
	KUNIT_CASE(page_table_check_free_test),
	KUNIT_CASE_PARAM(page_ext_iter_get_test, iter_range_gen_params),
	KUNIT_CASE(thp_pmd_page_table_check_test),
	KUNIT_CASE(thp_pmd_invalidate_page_table_check_test),
	{}
};

static int arm64_hugetlb_entries_suite_init(struct kunit_suite *suite)
{
	return mm_recorder_register();
}

static void arm64_hugetlb_entries_suite_exit(struct kunit_suite *suite)
{
	mm_recorder_unregister();
}

static struct kunit_suite arm64_hugetlb_entries_suite = {
	.name = "arm64_hugetlb_entries",
	.suite_init = arm64_hugetlb_entries_suite_init,
	.suite_exit = arm64_hugetlb_entries_suite_exit,
	.test_cases = arm64_hugetlb_entries_cases,
};

kunit_test_suite(arm64_hugetlb_entries_suite);

MODULE_DESCRIPTION("KUnit tests for arm64 hugetlb entries of every size");
MODULE_LICENSE("GPL");
