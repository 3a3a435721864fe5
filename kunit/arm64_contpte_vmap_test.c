// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for contiguous pte blocks in the vmalloc space on arm64: the
 * three hooks that let vmalloc map a naturally aligned CONT_PTE_SIZE block
 * (64K on 4K pages, 2M on 16K and 64K) with PTE_CONT, what vmalloc_huge(),
 * vmalloc(), vmap() and ioremap_page_range() leave in init_mm's page
 * tables, how a block is torn down, and how many TLB entries an area needs. Sizes are named by what
 * they are in blocks and pages of the running granule.
 *
 * The page tables are read back with kernel_map.h, the way the MMU walks
 * them; TLB invalidations are observed through the ARM64_MM_KUNIT_HOOK
 * seam. Cases that split a huge mapping on purpose are listed in the
 * project's kunit/warnings.tsv: the runner requires their WARN in the log
 * and fails any other case that logs one.
 */
#include <kunit/test.h>
#include <linux/hugetlb.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <linux/vmalloc.h>
#include <asm/mmu_context.h>

#include "console_watch.h"
#include "kernel_map.h"
#include "mm_recorder.h"
#include "vm_area_fixture.h"

/* An address in the vmalloc area, aligned for every block size. */
#define HOOK_ADDR	(VMALLOC_START + SZ_1G)
#define HOOK_PFN	(SZ_4G >> PAGE_SHIFT)

/* arch_vmap_pte_range_map_size(addr, end, pfn, max_page_shift) */
struct map_size_case {
	const char *desc;
	unsigned long addr_offset;
	unsigned long len;
	unsigned long pfn_offset;
	unsigned int max_page_shift;
	unsigned long expected;
};

/* Sixteen blocks: long enough that only alignment decides. */
#define SIXTEEN_BLOCKS	(16 * CONT_PTE_SIZE)
/*
 * Eight blocks: an area vmalloc_huge() maps with contiguous ptes on every
 * granule (16 blocks are a PMD leaf with 16K pages, 32M).
 */
#define EIGHT_BLOCKS	(8 * CONT_PTE_SIZE)

static const struct map_size_case map_size_cases[] = {
	{ "aligned_block_contpte_shift", 0, CONT_PTE_SIZE, 0, CONT_PTE_SHIFT,
	  CONT_PTE_SIZE },
	{ "aligned_pmd_pmd_shift", 0, PMD_SIZE, 0, PMD_SHIFT, CONT_PTE_SIZE },
	{ "aligned_16_blocks_ioremap_shift", 0, SIXTEEN_BLOCKS, 0,
	  BITS_PER_LONG - 1, CONT_PTE_SIZE },
	{ "aligned_shift_below_contpte", 0, CONT_PTE_SIZE, 0,
	  CONT_PTE_SHIFT - 1, PAGE_SIZE },
	{ "aligned_page_shift", 0, SIXTEEN_BLOCKS, 0, PAGE_SHIFT, PAGE_SIZE },
	{ "range_block_minus_page", 0, CONT_PTE_SIZE - PAGE_SIZE, 0,
	  CONT_PTE_SHIFT, PAGE_SIZE },
	{ "range_block_plus_page", 0, CONT_PTE_SIZE + PAGE_SIZE, 0,
	  CONT_PTE_SHIFT, CONT_PTE_SIZE },
	{ "addr_off_page", PAGE_SIZE, SIXTEEN_BLOCKS, 0, CONT_PTE_SHIFT,
	  PAGE_SIZE },
	{ "addr_off_half_block", CONT_PTE_SIZE / 2, SIXTEEN_BLOCKS, 0,
	  CONT_PTE_SHIFT, PAGE_SIZE },
	/*
	 * The next block's first pfn: HOOK_PFN itself is a multiple of
	 * CONT_PTE_SIZE on 4K pages, so only a pfn that is block aligned but
	 * not such a multiple tells an alignment check of PFN_PHYS(pfn) from
	 * one of the pfn taken as an address.
	 */
	{ "pfn_next_block", 0, SIXTEEN_BLOCKS, CONT_PTES, CONT_PTE_SHIFT,
	  CONT_PTE_SIZE },
	{ "pfn_off_1", 0, SIXTEEN_BLOCKS, 1, CONT_PTE_SHIFT, PAGE_SIZE },
	{ "pfn_off_half_block", 0, SIXTEEN_BLOCKS, CONT_PTES / 2,
	  CONT_PTE_SHIFT, PAGE_SIZE },
	{ "addr_and_pfn_off_page", PAGE_SIZE, SIXTEEN_BLOCKS, 1,
	  CONT_PTE_SHIFT, PAGE_SIZE },
};

KUNIT_ARRAY_PARAM_DESC(map_size, map_size_cases, desc);

static void map_size_test(struct kunit *test)
{
	const struct map_size_case *c = test->param_value;
	unsigned long addr = HOOK_ADDR + c->addr_offset;

	KUNIT_EXPECT_EQ(test, arch_vmap_pte_range_map_size(addr,
				addr + c->len, HOOK_PFN + c->pfn_offset,
				c->max_page_shift), c->expected);
}

/* arch_vmap_pte_supported_shift(size) */
struct supported_shift_case {
	const char *desc;
	unsigned long size;
	int expected;
};

static const struct supported_shift_case supported_shift_cases[] = {
	{ "page", PAGE_SIZE, PAGE_SHIFT },
	{ "block_minus_page", CONT_PTE_SIZE - PAGE_SIZE, PAGE_SHIFT },
	{ "block_minus_byte", CONT_PTE_SIZE - 1, PAGE_SHIFT },
	{ "block", CONT_PTE_SIZE, CONT_PTE_SHIFT },
	{ "block_plus_page", CONT_PTE_SIZE + PAGE_SIZE, CONT_PTE_SHIFT },
	{ "16_blocks", SIXTEEN_BLOCKS, CONT_PTE_SHIFT },
	{ "pmd", PMD_SIZE, CONT_PTE_SHIFT },
	{ "contpmd", CONT_PMD_SIZE, CONT_PTE_SHIFT },
};

KUNIT_ARRAY_PARAM_DESC(supported_shift, supported_shift_cases, desc);

static void supported_shift_test(struct kunit *test)
{
	const struct supported_shift_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, arch_vmap_pte_supported_shift(c->size),
			c->expected);
}

/* arch_vmap_pte_range_unmap_size(addr, ptep) */
enum unmap_entry { ENTRY_NONE, ENTRY_KERNEL, ENTRY_KERNEL_RO, ENTRY_INVALID };

struct unmap_size_case {
	const char *desc;
	enum unmap_entry entry;
	bool cont;
	unsigned long expected;
};

static const struct unmap_size_case unmap_size_cases[] = {
	{ "valid_cont", ENTRY_KERNEL, true, CONT_PTE_SIZE },
	{ "valid_cont_readonly", ENTRY_KERNEL_RO, true, CONT_PTE_SIZE },
	{ "valid_not_cont", ENTRY_KERNEL, false, PAGE_SIZE },
	{ "none", ENTRY_NONE, false, PAGE_SIZE },
	{ "invalid_cont", ENTRY_INVALID, true, PAGE_SIZE },
};

KUNIT_ARRAY_PARAM_DESC(unmap_size, unmap_size_cases, desc);

static pte_t unmap_size_entry(const struct unmap_size_case *c)
{
	pte_t pte = __pte(0);

	switch (c->entry) {
	case ENTRY_NONE:
		break;
	case ENTRY_KERNEL:
		pte = pfn_pte(HOOK_PFN, PAGE_KERNEL);
		break;
	case ENTRY_KERNEL_RO:
		pte = pfn_pte(HOOK_PFN, PAGE_KERNEL_RO);
		break;
	case ENTRY_INVALID:
		pte = __pte(pte_val(pfn_pte(HOOK_PFN, PAGE_KERNEL)) &
			    ~PTE_VALID);
		break;
	}
	return c->cont ? __pte(pte_val(pte) | PTE_CONT) : pte;
}

static void unmap_size_test(struct kunit *test)
{
	const struct unmap_size_case *c = test->param_value;
	pte_t pte = unmap_size_entry(c);

#ifdef arch_vmap_pte_range_unmap_size
	KUNIT_EXPECT_EQ(test, arch_vmap_pte_range_unmap_size(HOOK_ADDR, &pte),
			c->expected);
#else
	KUNIT_FAIL(test, "arm64 has no arch_vmap_pte_range_unmap_size(): %#llx",
		   (u64)pte_val(pte));
#endif
}

/* vmalloc_huge() of each size, the area and its pages. */
struct huge_size {
	const char *desc;
	unsigned long size;
};

static const struct huge_size huge_sizes[] = {
	{ "block", CONT_PTE_SIZE },
	{ "2_blocks", 2 * CONT_PTE_SIZE },
	{ "8_blocks", EIGHT_BLOCKS },
	{ "pmd_minus_block", PMD_SIZE - CONT_PTE_SIZE },
	{ "pmd", PMD_SIZE },
	{ "pmd_plus_block", PMD_SIZE + CONT_PTE_SIZE },
	{ "9_blocks_plus_page", 9 * CONT_PTE_SIZE + PAGE_SIZE },
};

KUNIT_ARRAY_PARAM_DESC(huge_size, huge_sizes, desc);

static struct vm_struct *vmalloc_huge_area(struct kunit *test,
					   unsigned long size)
{
	struct vm_struct *area = kunit_vm_area(test,
					       vmalloc_huge(size, GFP_KERNEL));

	KUNIT_ASSERT_GE(test, (unsigned long)area->nr_pages << PAGE_SHIFT,
			size);
	return area;
}

static unsigned long area_start(const struct vm_struct *area)
{
	return (unsigned long)area->addr;
}

static unsigned long area_end(const struct vm_struct *area)
{
	return area_start(area) + ((unsigned long)area->nr_pages << PAGE_SHIFT);
}

/*
 * Every CONT_PTE_SIZE-aligned block of [start, end) must be one contiguous
 * block: CONT_PTES valid pte entries with PTE_CONT, mapping as many
 * consecutive pfns from a block-aligned one.
 */
static void expect_contpte_blocks(struct kunit *test, unsigned long start,
				  unsigned long end, unsigned int nr_blocks)
{
	unsigned long block = ALIGN(start, CONT_PTE_SIZE);
	unsigned int n = 0;

	for (; block + CONT_PTE_SIZE <= end && n < nr_blocks;
	     block += CONT_PTE_SIZE, n++) {
		struct kmap_entry first, e;
		unsigned int i;

		kmap_lookup(block, &first);
		KUNIT_ASSERT_EQ_MSG(test, first.level, KMAP_PTE,
				    "block %u not pte-mapped", n);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(kmap_pfn(&first),
						       CONT_PTES),
				      "block %u pfn %#lx not block-aligned", n,
				      kmap_pfn(&first));
		for (i = 0; i < CONT_PTES; i++) {
			kmap_lookup(block + i * PAGE_SIZE, &e);
			KUNIT_ASSERT_TRUE_MSG(test, kmap_cont(&e),
				"block %u entry %u: %#llx has no PTE_CONT",
				n, i, e.desc);
			KUNIT_ASSERT_EQ_MSG(test, kmap_pfn(&e),
					    kmap_pfn(&first) + i,
					    "block %u entry %u", n, i);
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, n, nr_blocks, "too few whole blocks");
}

/* No entry of [start, end) has PTE_CONT. */
static void expect_no_cont(struct kunit *test, unsigned long start,
			   unsigned long end)
{
	unsigned long addr;
	struct kmap_entry e;

	for (addr = start; addr < end; addr += PAGE_SIZE) {
		kmap_lookup(addr, &e);
		KUNIT_ASSERT_TRUE(test, kmap_valid(&e));
		KUNIT_ASSERT_FALSE_MSG(test, kmap_cont(&e),
				       "entry at +%#lx: %#llx has PTE_CONT",
				       addr - start, e.desc);
	}
}

static void vmalloc_huge_layout_test(struct kunit *test)
{
	const struct huge_size *s = test->param_value;
	struct vm_struct *area = vmalloc_huge_area(test, s->size);
	unsigned long start = area_start(area), end = area_end(area);
	unsigned long addr;
	struct kmap_entry e;

	if (s->size < PMD_SIZE) {
		/* Every page of the area is in a whole contiguous block. */
		KUNIT_EXPECT_EQ(test, area->page_order,
				CONT_PTE_SHIFT - PAGE_SHIFT);
		expect_contpte_blocks(test, start, end,
				      (end - start) / CONT_PTE_SIZE);
		return;
	}

	/* PMD_SIZE and more: PMD leaves, as before, where the buddy had them. */
	if (area->page_order != PMD_SHIFT - PAGE_SHIFT)
		kunit_skip(test, "needs a free block of PMD_SIZE (%luK): page order %u",
			   PMD_SIZE >> 10, area->page_order);
	for (addr = start; addr < end; addr += PMD_SIZE) {
		kmap_lookup(addr, &e);
		KUNIT_EXPECT_EQ(test, e.level, KMAP_PMD);
		KUNIT_EXPECT_TRUE(test, kmap_valid(&e) && !kmap_cont(&e));
	}
}

/* Data written through the mapping is in the pages vmalloc_to_page() sees. */
static void vmalloc_huge_data_test(struct kunit *test)
{
	const struct huge_size *s = test->param_value;
	struct vm_struct *area = vmalloc_huge_area(test, s->size);
	/*
	 * Only what was asked for belongs to the caller: the area may be
	 * rounded up to its mapping size, and KASAN rightly reports a write
	 * past the requested size.
	 */
	unsigned int i, nr = s->size >> PAGE_SHIFT;

	for (i = 0; i < nr; i++)
		memset(area->addr + i * PAGE_SIZE, 0x11 + i % 200, PAGE_SIZE);

	for (i = 0; i < nr; i++) {
		struct page *page = vmalloc_to_page(area->addr + i * PAGE_SIZE);

		KUNIT_ASSERT_PTR_EQ_MSG(test, page, area->pages[i], "page %u",
					i);
		KUNIT_ASSERT_NULL_MSG(test, memchr_inv(page_address(page),
						       0x11 + i % 200,
						       PAGE_SIZE),
				      "page %u", i);
	}
}

/* After vfree() no entry of the area is left valid. */
static void vmalloc_huge_vfree_test(struct kunit *test)
{
	const struct huge_size *s = test->param_value;
	void *addr = vmalloc_huge(s->size, GFP_KERNEL);
	struct vm_struct *area;
	unsigned long start, end;

	KUNIT_ASSERT_NOT_NULL(test, addr);
	area = find_vm_area(addr);
	KUNIT_ASSERT_NOT_NULL(test, area);
	start = area_start(area);
	end = area_end(area);
	KUNIT_EXPECT_FALSE(test, kmap_range_unmapped(start, end));

	vfree(addr);
	/* The range stays reserved until the lazy purge: nothing remaps it. */
	KUNIT_EXPECT_TRUE(test, kmap_range_unmapped(start, end));
}

/* vmalloc() without VM_ALLOW_HUGE_VMAP maps one page per entry. */
static void vmalloc_no_cont_test(struct kunit *test)
{
	struct vm_struct *area = kunit_vm_area(test, vmalloc(SIXTEEN_BLOCKS));

	expect_no_cont(test, area_start(area),
		       area_start(area) + SIXTEEN_BLOCKS);
}

static void free_page_action(void *page)
{
	__free_page(page);
}

static void vunmap_action(void *addr)
{
	vunmap(addr);
}

/*
 * vmap() of pages that are not physically contiguous: even block-aligned
 * runs of them must not be mapped as a block.
 */
static void vmap_scattered_no_cont_test(struct kunit *test)
{
	const unsigned int nr = 2 * CONT_PTES;
	struct page **pages;
	unsigned int i;
	void *addr;

	pages = kunit_kcalloc(test, nr, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (i = 0; i < nr; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
				free_page_action, pages[i]), 0);
	}
	/* Reverse order: never physically contiguous in address order. */
	for (i = 0; i < nr / 2; i++)
		swap(pages[i], pages[nr - 1 - i]);

	addr = vmap(pages, nr, VM_MAP, PAGE_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, addr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vunmap_action,
							addr), 0);
	expect_no_cont(test, (unsigned long)addr,
		       (unsigned long)addr + nr * PAGE_SIZE);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_PTR_EQ(test, vmalloc_to_page(addr + i * PAGE_SIZE),
				    pages[i]);
}

/*
 * ioremap_page_range() of physically contiguous memory (RAM from the buddy
 * stands in for a device) over a whole VM_IOREMAP area.
 */
struct ioremap_case {
	const char *desc;
	unsigned long size;
	unsigned long pa_offset;
	unsigned int cont_blocks;	/* leading whole blocks mapped as such */
};

static const struct ioremap_case ioremap_cases[] = {
	{ "4_blocks_aligned", 4 * CONT_PTE_SIZE, 0, 4 },
	{ "9_blocks_plus_page_aligned", 9 * CONT_PTE_SIZE + PAGE_SIZE, 0, 9 },
	{ "4_blocks_pa_off_page", 4 * CONT_PTE_SIZE, PAGE_SIZE, 0 },
	{ "block_minus_page_aligned", CONT_PTE_SIZE - PAGE_SIZE, 0, 0 },
};

KUNIT_ARRAY_PARAM_DESC(ioremap, ioremap_cases, desc);

struct ioremap_fixture {
	struct page *page;
	unsigned int order;
	struct vm_struct *area;
	unsigned long addr;
	unsigned long pfn;	/* first pfn mapped */
};

static void ioremap_fixture_free(void *data)
{
	struct ioremap_fixture *f = data;

	if (f->area)
		free_vm_area(f->area);
	__free_pages(f->page, f->order);
}

static struct ioremap_fixture *ioremap_fixture(struct kunit *test,
					       unsigned long size,
					       unsigned long pa_offset)
{
	struct ioremap_fixture *f = kunit_kzalloc(test, sizeof(*f),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->order = get_order(size + pa_offset);
	f->page = alloc_pages(GFP_KERNEL, f->order);
	KUNIT_ASSERT_NOT_NULL(test, f->page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			ioremap_fixture_free, f), 0);

	f->area = get_vm_area(size, VM_IOREMAP);
	KUNIT_ASSERT_NOT_NULL(test, f->area);
	f->addr = (unsigned long)f->area->addr;
	/* VM_IOREMAP areas are aligned to their size's power of two. */
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(f->addr, CONT_PTE_SIZE));
	f->pfn = page_to_pfn(f->page) + (pa_offset >> PAGE_SHIFT);
	KUNIT_ASSERT_EQ(test, ioremap_page_range(f->addr, f->addr + size,
						 PFN_PHYS(f->pfn), PAGE_KERNEL),
			0);
	return f;
}

static void ioremap_contpte_test(struct kunit *test)
{
	const struct ioremap_case *c = test->param_value;
	struct ioremap_fixture *f = ioremap_fixture(test, c->size,
						    c->pa_offset);
	unsigned long cont_end = f->addr + c->cont_blocks * CONT_PTE_SIZE;
	unsigned long addr;
	struct kmap_entry e;

	expect_contpte_blocks(test, f->addr, cont_end, c->cont_blocks);
	if (cont_end < f->addr + c->size)
		expect_no_cont(test, cont_end, f->addr + c->size);
	for (addr = f->addr; addr < f->addr + c->size; addr += PAGE_SIZE) {
		kmap_lookup(addr, &e);
		KUNIT_ASSERT_EQ(test, kmap_pfn(&e),
				f->pfn + ((addr - f->addr) >> PAGE_SHIFT));
	}
}

/*
 * Makes each block of [start, end) one contiguous block, as vmap maps them
 * from F10 on, whatever the tree's vmap did: break-before-make by hand, as
 * the architecture does it. A case of vunmap then does not depend on how
 * the area was mapped.
 */
static void make_contpte_blocks(struct kunit *test, unsigned long start,
				unsigned long end)
{
	unsigned long block;
	struct kmap_entry e;
	unsigned int i;

	for (block = start; block < end; block += CONT_PTE_SIZE) {
		pgprot_t prot;
		pte_t *ptep;
		unsigned long pfn;

		kmap_lookup(block, &e);
		KUNIT_ASSERT_EQ(test, e.level, KMAP_PTE);
		KUNIT_ASSERT_TRUE(test, IS_ALIGNED(kmap_pfn(&e), CONT_PTES));
		if (kmap_cont(&e))
			continue;
		ptep = e.ptep;
		pfn = kmap_pfn(&e);
		prot = pte_pgprot(__ptep_get(ptep));
		for (i = 0; i < CONT_PTES; i++)
			__pte_clear(&init_mm, block + i * PAGE_SIZE, ptep + i);
		flush_tlb_kernel_range(block, block + CONT_PTE_SIZE);
		for (i = 0; i < CONT_PTES; i++)
			__set_pte(ptep + i, pte_mkcont(pfn_pte(pfn + i, prot)));
	}
}

/*
 * vunmap_range() of part of a block: a caller bug, which must warn and
 * clear every block the range touches whole, walking each from its own
 * start and stopping at the end of the range's last block; the blocks
 * around them stay mapped (F9, 0013). Offsets are in pages from the start
 * of the second of four blocks, made by hand so that the case does not
 * need F10's mapping.
 */
struct partial_vunmap_case {
	const char *desc;
	const char *what;
	unsigned long first_page;
	unsigned long end_page;
	unsigned int blocks;
};

static const struct partial_vunmap_case partial_vunmap_cases[] = {
	{ "one_page", "of one page of a contiguous block", 1, 2, 1 },
	{ "all_but_first_and_last_page",
	  "inside a contiguous block", 1, CONT_PTES - 1, 1 },
	{ "from_inside_to_next_end",
	  "from inside a contiguous block", 1, 2 * CONT_PTES, 2 },
	{ "from_last_page_to_next_end",
	  "from the last page of a contiguous block",
	  CONT_PTES - 1, 2 * CONT_PTES, 2 },
};

KUNIT_ARRAY_PARAM_DESC(partial_vunmap, partial_vunmap_cases, desc);

static void vunmap_part_of_contpte_block_test(struct kunit *test)
{
	const struct partial_vunmap_case *c = test->param_value;
	struct ioremap_fixture *f = ioremap_fixture(test, 4 * CONT_PTE_SIZE, 0);
	unsigned long victim = f->addr + CONT_PTE_SIZE;
	unsigned long cleared_end = victim + c->blocks * CONT_PTE_SIZE;

	make_contpte_blocks(test, f->addr, f->addr + 4 * CONT_PTE_SIZE);
	expect_contpte_blocks(test, f->addr, f->addr + 4 * CONT_PTE_SIZE, 4);

	warn_watch_start(test, " at mm/vmalloc.c:", "vunmap_");
	vunmap_range(victim + c->first_page * PAGE_SIZE,
		     victim + c->end_page * PAGE_SIZE);
	console_watch_stop();

	KUNIT_EXPECT_STRNEQ_MSG(test, console_watch_line(), "",
				"vunmap_range() %s did not warn", c->what);
	KUNIT_EXPECT_TRUE_MSG(test, kmap_range_unmapped(victim, cleared_end),
			      "vunmap_range() %s: the blocks it touches stayed mapped in part",
			      c->what);
	expect_contpte_blocks(test, f->addr, victim, 1);
	expect_contpte_blocks(test, cleared_end, f->addr + 4 * CONT_PTE_SIZE,
			      3 - c->blocks);
}

/*
 * vunmap_range() of a range mapped one page per entry (a physical start
 * that is not block aligned) clears every entry of it, the last one too.
 */
static void vunmap_range_clears_every_page_test(struct kunit *test)
{
	struct ioremap_fixture *f = ioremap_fixture(test, CONT_PTE_SIZE,
						    PAGE_SIZE);

	expect_no_cont(test, f->addr, f->addr + CONT_PTE_SIZE);
	vunmap_range(f->addr, f->addr + CONT_PTE_SIZE);
	KUNIT_EXPECT_TRUE_MSG(test, kmap_range_unmapped(f->addr,
							f->addr + CONT_PTE_SIZE),
			      "vunmap_range() left entries of the range mapped");
}

/*
 * vunmap_range() of the first @len bytes of a leaf of @size at @start: a
 * caller bug, which must warn (a WARN of __vunmap_range_noflush() in
 * mm/vmalloc.c, seen by the case; kunit/warnings.tsv lets the log scan
 * accept it) and clear the whole leaf.
 */
static void expect_partial_vunmap_warns(struct kunit *test,
					unsigned long start, unsigned long size,
					unsigned long len, const char *leaf)
{
	warn_watch_start(test, " at mm/vmalloc.c:", "vunmap_");
	vunmap_range(start, start + len);
	console_watch_stop();

	KUNIT_EXPECT_STRNEQ_MSG(test, console_watch_line(), "",
				"vunmap_range() of %lu of the %lu pages of a %s did not warn",
				len >> PAGE_SHIFT, size >> PAGE_SHIFT, leaf);
	KUNIT_EXPECT_TRUE_MSG(test, kmap_range_unmapped(start, start + size),
			      "the rest of the %s stayed mapped", leaf);
}

/* A PMD leaf of vmalloc, freed when the case ends. */
static unsigned long pmd_leaf_map(struct kunit *test)
{
	struct vm_struct *area = vmalloc_huge_area(test, PMD_SIZE);
	unsigned long start = area_start(area);
	struct kmap_entry e;

	if (area->page_order != PMD_SHIFT - PAGE_SHIFT)
		kunit_skip(test, "needs a free block of PMD_SIZE (%luK): page order %u",
			   PMD_SIZE >> 10, area->page_order);
	kmap_lookup(start, &e);
	KUNIT_ASSERT_EQ(test, e.level, KMAP_PMD);
	return start;
}

/* The same for one page of a PMD leaf (F9, 0012). */
static void vunmap_part_of_pmd_leaf_test(struct kunit *test)
{
	expect_partial_vunmap_warns(test, pmd_leaf_map(test), PMD_SIZE,
				    PAGE_SIZE, "PMD leaf");
}

/* And for all of a PMD leaf but its last page. */
static void vunmap_most_of_pmd_leaf_test(struct kunit *test)
{
	expect_partial_vunmap_warns(test, pmd_leaf_map(test), PMD_SIZE,
				    PMD_SIZE - PAGE_SIZE, "PMD leaf");
}

/*
 * The same for a PUD leaf: an ioremap of a PUD-aligned physical range to a
 * PUD-aligned area (VM_IOREMAP areas are aligned to their size, up to
 * IOREMAP_MAX_ORDER) is one PUD leaf; unmapping one page of it must warn
 * and clear the whole leaf. Only 4K pages have a PUD size the guest can
 * hold (1G).
 */
struct pud_leaf {
	struct folio *folio;
	struct vm_struct *area;
};

static void pud_leaf_free(void *data)
{
	struct pud_leaf *l = data;

	if (l->area)
		free_vm_area(l->area);
	folio_put(l->folio);
}

/* A PUD leaf of ioremap, unmapped and freed when the case ends. */
static unsigned long pud_leaf_map(struct kunit *test)
{
	struct pud_leaf *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	unsigned long start;
	struct kmap_entry e;

	KUNIT_ASSERT_NOT_NULL(test, l);
	if (IOREMAP_MAX_ORDER < PUD_SHIFT ||
	    !arch_vmap_pud_supported(PAGE_KERNEL))
		kunit_skip(test, "needs PUD leaves in the vmalloc space (IOREMAP_MAX_ORDER %d < PUD_SHIFT %d, or no PUD sections)",
			   IOREMAP_MAX_ORDER, PUD_SHIFT);
	if ((totalram_pages() << PAGE_SHIFT) / 4 < PUD_SIZE)
		kunit_skip(test, "needs a %luM PUD, more than a quarter of this guest's %luM",
			   PUD_SIZE >> 20, (totalram_pages() << PAGE_SHIFT) >> 20);
	l->folio = folio_alloc_gigantic(PUD_SHIFT - PAGE_SHIFT,
					GFP_KERNEL | __GFP_COMP,
					first_online_node, NULL);
	if (!l->folio)
		kunit_skip(test, "needs a free %luM folio, memory has none now",
			   PUD_SIZE >> 20);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pud_leaf_free,
							l), 0);
	l->area = get_vm_area(PUD_SIZE, VM_IOREMAP);
	KUNIT_ASSERT_NOT_NULL(test, l->area);
	start = (unsigned long)l->area->addr;
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(start, PUD_SIZE));
	KUNIT_ASSERT_EQ(test, ioremap_page_range(start, start + PUD_SIZE,
						 folio_pfn(l->folio) << PAGE_SHIFT,
						 PAGE_KERNEL), 0);
	kmap_lookup(start, &e);
	KUNIT_ASSERT_EQ(test, e.level, KMAP_PUD);
	return start;
}

static void vunmap_part_of_pud_leaf_test(struct kunit *test)
{
	expect_partial_vunmap_warns(test, pud_leaf_map(test), PUD_SIZE,
				    PAGE_SIZE, "PUD leaf");
}

/* All of a PUD leaf but its last page: more than a PMD, still a part. */
static void vunmap_most_of_pud_leaf_test(struct kunit *test)
{
	expect_partial_vunmap_warns(test, pud_leaf_map(test), PUD_SIZE,
				    PUD_SIZE - PAGE_SIZE, "PUD leaf");
}

/*
 * vunmap_range() of a whole PUD leaf is no caller bug: no warning, and
 * the leaf is gone.
 */
static void vunmap_whole_pud_leaf_test(struct kunit *test)
{
	unsigned long start = pud_leaf_map(test);

	warn_watch_start(test, " at mm/vmalloc.c:", "vunmap_");
	vunmap_range(start, start + PUD_SIZE);
	console_watch_stop();

	KUNIT_EXPECT_STREQ_MSG(test, console_watch_line(), "",
			       "vunmap_range() of a whole PUD leaf warned");
	KUNIT_EXPECT_TRUE_MSG(test,
			      kmap_range_unmapped(start, start + PUD_SIZE),
			      "the PUD leaf stayed mapped");
}

/*
 * Rewriting a live kernel contiguous block with set_huge_pte_at() breaks it
 * first; the invalidation must be a kernel one, flush_tlb_kernel_range()
 * for every ASID, not one by the ASID of init_mm.
 */
static void kernel_block_rewrite_flush_test(struct kunit *test)
{
	struct ioremap_fixture *f = ioremap_fixture(test, CONT_PTE_SIZE, 0);
	struct mm_recorder *rec;
	struct kmap_entry e;
	pte_t entry;
	unsigned int i;
	bool found = false;

	kmap_lookup(f->addr, &e);
	KUNIT_ASSERT_EQ(test, e.level, KMAP_PTE);
	entry = arch_make_huge_pte(pfn_pte(f->pfn, PAGE_KERNEL_RO),
				   CONT_PTE_SHIFT, 0);

	rec = mm_recorder_start(test, &init_mm);
	set_huge_pte_at(&init_mm, f->addr, e.ptep, entry, CONT_PTE_SIZE);
	mm_recorder_stop(rec);

	for (i = 0; i < min(rec->nr_events, MM_RECORDER_MAX_EVENTS); i++) {
		const struct arm64_tlbflush_event *ev = &rec->events[i];

		if (ev->start != f->addr || ev->end != f->addr + CONT_PTE_SIZE)
			continue;
		found = true;
		KUNIT_EXPECT_EQ_MSG(test, ev->kind, ARM64_TLBFLUSH_ALL_ASIDS,
				    "kernel block flushed by the ASID of init_mm, not for every ASID");
	}
	KUNIT_EXPECT_TRUE_MSG(test, found, "no invalidation of the block");

	expect_contpte_blocks(test, f->addr, f->addr + CONT_PTE_SIZE, 1);
	for (i = 0; i < CONT_PTES; i++) {
		kmap_lookup(f->addr + i * PAGE_SIZE, &e);
		KUNIT_EXPECT_TRUE(test, e.desc & PTE_RDONLY);
	}
}

/*
 * The structural gain: the TLB entries an area of eight blocks needs from
 * vmalloc_huge(), eight contiguous blocks, against 8 * CONT_PTES pages
 * from vmalloc(). Printed for the report.
 */
#define TRANSLATION_AREA	EIGHT_BLOCKS

static void translation_entries_test(struct kunit *test)
{
	struct vm_struct *area = vmalloc_huge_area(test, TRANSLATION_AREA);
	struct vm_struct *small = kunit_vm_area(test, vmalloc(TRANSLATION_AREA));
	unsigned long huge_entries, small_entries;

	huge_entries = kmap_translation_entries(area_start(area),
						area_start(area) +
						TRANSLATION_AREA);
	small_entries = kmap_translation_entries(area_start(small),
						 area_start(small) +
						 TRANSLATION_AREA);
	kunit_info(test, "translation entries for %luK: vmalloc_huge %lu, vmalloc %lu\n",
		   TRANSLATION_AREA >> 10, huge_entries, small_entries);
	KUNIT_EXPECT_EQ(test, small_entries, TRANSLATION_AREA / PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, huge_entries, TRANSLATION_AREA / CONT_PTE_SIZE);
}

/*
 * set_memory_ro() and friends rewrite vmalloc entries one pte at a time
 * through apply_to_page_range(), which would break a contiguous block apart
 * without break-before-make: areas that may hold blocks must be refused,
 * their entries left as they were.
 */
static void set_memory_refused_on_huge_test(struct kunit *test)
{
	struct vm_struct *area = vmalloc_huge_area(test, CONT_PTE_SIZE);
	struct kmap_entry before, after;
	int ret;

	kmap_lookup(area_start(area), &before);
	ret = set_memory_ro(area_start(area), 1);
	kmap_lookup(area_start(area), &after);
	/* Where it was allowed, undo it before the area is freed. */
	if (!ret)
		set_memory_rw(area_start(area), 1);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, after.desc, before.desc);
}

/* Areas of plain vmalloc() keep working with set_memory_*(). */
static void set_memory_plain_vmalloc_test(struct kunit *test)
{
	struct vm_struct *area = kunit_vm_area(test, vmalloc(CONT_PTE_SIZE));
	struct kmap_entry e;

	KUNIT_ASSERT_EQ(test, set_memory_ro(area_start(area), 1), 0);
	kmap_lookup(area_start(area), &e);
	KUNIT_EXPECT_TRUE(test, e.desc & PTE_RDONLY);
	KUNIT_EXPECT_EQ(test, set_memory_rw(area_start(area), 1), 0);
	kmap_lookup(area_start(area), &e);
	KUNIT_EXPECT_FALSE(test, e.desc & PTE_RDONLY);
}

/* Whether the linear map's entry of each of @nr pages is read-only. */
static unsigned int linear_aliases_rdonly(struct page **pages, unsigned int nr)
{
	unsigned int i, rdonly = 0;
	struct kmap_entry e;

	for (i = 0; i < nr; i++) {
		kmap_lookup((unsigned long)page_address(pages[i]), &e);
		rdonly += kmap_valid(&e) && (e.desc & PTE_RDONLY);
	}
	return rdonly;
}

/*
 * With rodata=full, set_memory_ro() of a vmalloc area makes the linear
 * map's alias of each of its pages read-only too, so that the memory
 * cannot be written through the other mapping; set_memory_rw() makes
 * them writable again.
 */
static void set_memory_linear_alias_test(struct kunit *test)
{
	const unsigned int nr = 4;
	struct vm_struct *area = kunit_vm_area(test, vmalloc(nr * PAGE_SIZE));

	if (!rodata_full)
		kunit_skip(test, "needs rodata=full");
	KUNIT_ASSERT_EQ(test, area->nr_pages, nr);
	KUNIT_ASSERT_EQ(test, linear_aliases_rdonly(area->pages, nr), 0);
	KUNIT_ASSERT_EQ(test, set_memory_ro(area_start(area), nr), 0);
	KUNIT_EXPECT_EQ_MSG(test, linear_aliases_rdonly(area->pages, nr), nr,
			    "linear aliases read-only after set_memory_ro()");
	KUNIT_ASSERT_EQ(test, set_memory_rw(area_start(area), nr), 0);
	KUNIT_EXPECT_EQ_MSG(test, linear_aliases_rdonly(area->pages, nr), 0,
			    "linear aliases read-only after set_memory_rw()");
}

static struct kunit_case arm64_contpte_vmap_cases[] = {
	KUNIT_CASE_PARAM(map_size_test, map_size_gen_params),
	KUNIT_CASE_PARAM(supported_shift_test, supported_shift_gen_params),
	KUNIT_CASE_PARAM(unmap_size_test, unmap_size_gen_params),
	KUNIT_CASE_PARAM(vmalloc_huge_layout_test, huge_size_gen_params),
	KUNIT_CASE_PARAM(vmalloc_huge_data_test, huge_size_gen_params),
	KUNIT_CASE_PARAM(vmalloc_huge_vfree_test, huge_size_gen_params),
	KUNIT_CASE(vmalloc_no_cont_test),
	KUNIT_CASE(vmap_scattered_no_cont_test),
	KUNIT_CASE_PARAM(ioremap_contpte_test, ioremap_gen_params),
	KUNIT_CASE_PARAM(vunmap_part_of_contpte_block_test,
			 partial_vunmap_gen_params),
	KUNIT_CASE(vunmap_range_clears_every_page_test),
	KUNIT_CASE(vunmap_part_of_pmd_leaf_test),
	KUNIT_CASE(vunmap_most_of_pmd_leaf_test),
	KUNIT_CASE(vunmap_part_of_pud_leaf_test),
	KUNIT_CASE(vunmap_most_of_pud_leaf_test),
	KUNIT_CASE(vunmap_whole_pud_leaf_test),
	KUNIT_CASE(kernel_block_rewrite_flush_test),
	KUNIT_CASE(translation_entries_test),
	KUNIT_CASE(set_memory_refused_on_huge_test),
	KUNIT_CASE(set_memory_plain_vmalloc_test),
	KUNIT_CASE(set_memory_linear_alias_test),
	{}
};

static int arm64_contpte_vmap_suite_init(struct kunit_suite *suite)
{
	int ret = mm_recorder_register();

	if (ret)
		return ret;
	ret = console_watch_register();
	if (ret)
		mm_recorder_unregister();
	return ret;
}

static void arm64_contpte_vmap_suite_exit(struct kunit_suite *suite)
{
	console_watch_unregister();
	mm_recorder_unregister();
}

static struct kunit_suite arm64_contpte_vmap_suite = {
	.name = "arm64_contpte_vmap",
	.suite_init = arm64_contpte_vmap_suite_init,
	.suite_exit = arm64_contpte_vmap_suite_exit,
	.test_cases = arm64_contpte_vmap_cases,
};
kunit_test_suites(&arm64_contpte_vmap_suite);

MODULE_DESCRIPTION("KUnit tests for arm64 contiguous pte blocks in vmalloc");
MODULE_LICENSE("GPL");
