// SPDX-License-Identifier: GPL-2.0
/*
 * Folio sizes of an executable file mapping faulted at random (seed 002):
 * text is touched nearly at random, so read-around leaves it in small
 * folios; with 64K marked always+exec, each fault reads the naturally
 * aligned 64K folio around it, which arm64 maps with contiguous ptes.
 *
 * A sparse 16M ramfs file that takes large folios (the suites' fixture,
 * kunit/page_cache_file.c) is mapped read+exec at a 2M-aligned address
 * and faulted at FAULTS random pages, one fixed sequence; each fault maps
 * what fault-around finds cached near it, as for a program running its
 * text. Then the mapping's page table is walked. Counts, in per mille of
 * the mapped memory (the seed's measure), one sample per boot:
 *
 * - folio_share size=<S>: the share in folios of S (4K..64K, and 128K or
 *   more), like the seed's file-thp rows;
 * - contpte_share ptes=possible: the share in folios of 64K or more, whose
 *   naturally aligned 64K blocks contpte could map;
 * - contpte_share ptes=cont: the share the page table maps with PTE_CONT
 *   (the seed's file-cont-aligned-64kB row).
 *
 * On a tree with file_enabled, 64K is made always+exec for the case; on
 * one without, the kernel reads as it always did.
 */
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pgtable.h>
#include <linux/prandom.h>
#include <linux/sizes.h>

#include "../series-kunit/kern_mount_fixture.h"
#include "../series-kunit/page_cache_file.h"
#include "mm_bench.h"

#define FILE_PAGES	(SZ_16M >> PAGE_SHIFT)
#define FAULTS		512
#define FAULT_SEED	2024
#define FOLIOS_MAX	FILE_PAGES
#define EXEC_CONTROL	\
	"kernel/mm/transparent_hugepage/hugepages-64kB/file_enabled"
#define BLOCK_PAGES	(SZ_64K >> PAGE_SHIFT)

static ssize_t write_control(struct vfsmount *mnt, const char *value)
{
	return kern_mount_write(mnt, EXEC_CONTROL, value);
}

static void clear_exec_action(void *mnt)
{
	write_control(mnt, "always");
}

/* Makes 64K the exec size where the tree has the control. */
static void mark_64k_exec(struct kunit *test)
{
	struct vfsmount *sys = kunit_kern_mount(test, "sysfs");
	ssize_t ret = write_control(sys, "always+exec");

	if (ret == -ENOENT)
		return;
	KUNIT_ASSERT_GT_MSG(test, ret, 0, "always+exec refused: %zd", ret);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			clear_exec_action, sys), 0);
}

/*
 * The pte of @addr in the task's mm, read raw (without contpte folding),
 * and the order of the folio it maps; false if nothing is mapped there.
 */
static bool user_pte(struct mm_struct *mm, unsigned long addr, pte_t *out,
		     unsigned int *order)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	spinlock_t *ptl;
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;
	pte_t *pte;
	bool present;

	if (pgd_none(READ_ONCE(*pgd)))
		return false;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(READ_ONCE(*p4d)))
		return false;
	pud = pud_offset(p4d, addr);
	if (pud_none(READ_ONCE(*pud)) || pud_leaf(READ_ONCE(*pud)))
		return false;
	pmd = pmd_offset(pud, addr);
	if (pmd_none(READ_ONCE(*pmd)) || pmd_leaf(READ_ONCE(*pmd)))
		return false;
	pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
	if (!pte)
		return false;
	*out = __ptep_get(pte);
	present = pte_present(*out);
	/* Under the pte lock the mapping pins the folio. */
	if (present)
		*order = folio_order(page_folio(pte_page(*out)));
	pte_unmap_unlock(pte, ptl);
	return present;
}

static unsigned long permille(unsigned long part, unsigned long whole)
{
	return whole ? DIV_ROUND_CLOSEST(part * 1000, whole) : 0;
}

static void file_exec_bench(struct kunit *test)
{
	static const char * const sizes[] = { "4K", "8K", "16K", "32K", "64K",
					      "128K+" };
	unsigned long by_order[ARRAY_SIZE(sizes)] = {}, mappable = 0;
	unsigned long mapped = 0, cont = 0, cached = 0, addr;
	struct mm_bench bench = { .suite = "file_exec" };
	struct page_cache_folio *folios;
	struct page_cache_file *f;
	struct rnd_state rnd;
	unsigned int nr, i, order;
	pte_t pte;

	mark_64k_exec(test);
	f = page_cache_file_create(test, kunit_kern_mount(test, "ramfs"),
				   FILE_PAGES, true, 0, MAX_PAGECACHE_ORDER,
				   SZ_2M);
	prandom_seed_state(&rnd, FAULT_SEED);
	for (i = 0; i < FAULTS; i++)
		page_cache_file_fault(test, f,
				      prandom_u32_state(&rnd) % FILE_PAGES);

	mmap_read_lock(current->mm);
	for (addr = f->uaddr; addr < f->uaddr + (FILE_PAGES << PAGE_SHIFT);
	     addr += PAGE_SIZE) {
		if (!user_pte(current->mm, addr, &pte, &order))
			continue;
		mapped++;
		by_order[min_t(unsigned int, order, ARRAY_SIZE(sizes) - 1)]++;
		/* Folios are naturally aligned: 64K or more covers blocks. */
		if (order >= ilog2(BLOCK_PAGES))
			mappable++;
		if (pte_cont(pte))
			cont++;
	}
	mmap_read_unlock(current->mm);

	/* For the log only: what the faults read, mapped or not. */
	folios = kunit_kcalloc(test, FOLIOS_MAX, sizeof(*folios), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, folios);
	nr = page_cache_file_folios(f, folios, FOLIOS_MAX);
	for (i = 0; i < nr; i++)
		cached += 1UL << folios[i].order;
	kunit_info(test, "%u faults: %lu pages cached in %u folios, %lu mapped, %lu with PTE_CONT\n",
		   FAULTS, cached, nr, mapped, cont);
	KUNIT_ASSERT_GT(test, mapped, 0);

	bench.name = "folio_share";
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(bench.params, sizeof(bench.params), "size=%s",
			 sizes[i]);
		mm_bench_count(test, &bench, "permille",
			       permille(by_order[i], mapped));
	}
	bench.name = "contpte_share";
	snprintf(bench.params, sizeof(bench.params), "ptes=possible");
	mm_bench_count(test, &bench, "permille", permille(mappable, mapped));
	snprintf(bench.params, sizeof(bench.params), "ptes=cont");
	mm_bench_count(test, &bench, "permille", permille(cont, mapped));
}

static struct kunit_case file_exec_bench_cases[] = {
	KUNIT_CASE_ATTR(file_exec_bench, { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite file_exec_bench_suite = {
	.name = "mm_bench_file_exec",
	.test_cases = file_exec_bench_cases,
};
kunit_test_suites(&file_exec_bench_suite);

MODULE_DESCRIPTION("Folio sizes of executable file mappings");
MODULE_LICENSE("GPL");
