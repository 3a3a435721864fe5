// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the TLB maintenance of arm64 hugetlb mappings.
 *
 * flush_hugetlb_tlb_range() must pass __flush_tlb_range() the stride and
 * the TLBI level hint of the page-table level a hugetlb size lives at.
 * A wrong level hint is invisible on QEMU (it invalidates everything
 * anyway), so the cases observe the arguments through the
 * ARM64_MM_KUNIT_HOOK seam instead of the effect.
 *
 * Each case maps a hugetlbfs file of one size into the test's own mm
 * (kunit_vm_mmap() attaches a fresh mm to the test thread), so the VMA,
 * its hstate and its page tables are the real ones.
 */
#include <kunit/test.h>
#include <linux/hugetlb.h>
#include <linux/mman.h>

#include "hugetlb_fixture.h"
#include "mm_recorder.h"

/*
 * What flush_hugetlb_tlb_range() must ask for, per hugetlb size, named by
 * role; the sizes come from the granule's macros and the level hints are
 * the same on every granule (a PUD block is level 1, a PMD one level 2, a
 * page level 3).
 */
struct hugetlb_flush_param {
	const char *desc;
	unsigned long size;
	unsigned long stride;
	int level;
	unsigned int nr_blocks;		/* >1 tells a whole-range flush apart */
};

static const struct hugetlb_flush_param hugetlb_flush_params[] = {
	{ "contpte", CONT_PTE_SIZE, PAGE_SIZE, 3, 2 },
	{ "pmd", PMD_SIZE, PMD_SIZE, 2, 2 },
	{ "contpmd", CONT_PMD_SIZE, PMD_SIZE, 2, 2 },
	{ "pud", PUD_SIZE, PUD_SIZE, 1, 1 },
};

KUNIT_ARRAY_PARAM_DESC(hugetlb_flush, hugetlb_flush_params, desc);

/* A mapping of a hugetlbfs file in the test's mm. */
struct hugetlb_mapping {
	struct vm_area_struct *vma;
	unsigned long start;
	unsigned long end;
};

static void map_hugetlb(struct kunit *test, const struct hugetlb_flush_param *p,
			unsigned long mmap_flags, struct hugetlb_mapping *map)
{
	unsigned long len = p->size * p->nr_blocks;
	struct file *file;
	unsigned long addr;

	hugetlb_test_need_size(test, p->desc, p->size);
	/* Reserve the pool pages now: a short pool fails at mmap time. */
	file = hugetlb_test_file(test, p->size, len, 0);

	addr = kunit_vm_mmap(test, file, 0, len, PROT_READ | PROT_WRITE,
			     MAP_SHARED | mmap_flags, 0);
	/* kunit_vm_mmap() only catches 0; vm_mmap() returns errors too. */
	KUNIT_ASSERT_FALSE_MSG(test, !addr || IS_ERR_VALUE(addr),
			       "mmap of %lu bytes: %ld", len, (long)addr);

	mmap_read_lock(current->mm);
	map->vma = find_vma(current->mm, addr);
	mmap_read_unlock(current->mm);
	KUNIT_ASSERT_NOT_NULL(test, map->vma);
	KUNIT_ASSERT_TRUE(test, is_vm_hugetlb_page(map->vma));
	KUNIT_ASSERT_EQ(test, huge_page_size(hstate_vma(map->vma)), p->size);
	map->start = addr;
	map->end = addr + len;
}

static void expect_hugetlb_flush(struct kunit *test,
				 const struct hugetlb_flush_param *p,
				 const struct hugetlb_mapping *map,
				 const struct arm64_tlbflush_event *event,
				 bool last_level)
{
	KUNIT_EXPECT_EQ(test, event->start, map->start);
	KUNIT_EXPECT_EQ(test, event->end, map->end);
	KUNIT_EXPECT_EQ_MSG(test, event->stride, p->stride,
			    "stride for %s", p->desc);
	KUNIT_EXPECT_EQ_MSG(test, event->tlb_level, p->level,
			    "level hint for %s", p->desc);
	KUNIT_EXPECT_EQ(test, event->last_level, last_level);
}

/* flush_hugetlb_tlb_range() on a real hugetlb VMA issues one right flush. */
static void flush_hugetlb_tlb_range_test(struct kunit *test)
{
	const struct hugetlb_flush_param *p = test->param_value;
	struct mm_recorder *rec;
	struct hugetlb_mapping map;

	map_hugetlb(test, p, 0, &map);
	rec = mm_recorder_start(test, current->mm);

	flush_hugetlb_tlb_range(map.vma, map.start, map.end);

	KUNIT_ASSERT_EQ(test, rec->nr_events, 1);
	expect_hugetlb_flush(test, p, &map, mm_recorder_last(test, rec),
			     false);
}

/*
 * hugetlb_change_protection(), the hugetlb half of mprotect(), makes a
 * populated mapping read-only and ends with one flush of the whole range.
 * In 6.12.117 that flush goes through the mmu_gather (tlb_flush()), which
 * derives stride and level from the entry size it was told about, with
 * last_level set since no table is freed; contiguous sizes also flush each
 * block on the way (break-before-make), so the last invalidation is the
 * whole-range one.  This pins the stride and level of the real path.
 */
static void hugetlb_change_protection_flush_test(struct kunit *test)
{
	const struct hugetlb_flush_param *p = test->param_value;
	unsigned int nr_present = 0, nr_writable = 0;
	struct mm_recorder *rec;
	struct hugetlb_mapping map;
	struct mm_struct *mm;
	unsigned long addr;
	long changed;

	map_hugetlb(test, p, MAP_POPULATE, &map);
	mm = current->mm;
	rec = mm_recorder_start(test, mm);

	/* No assertion may abort the case while mmap_lock is held. */
	mmap_write_lock(mm);
	for (addr = map.start; addr < map.end; addr += p->size) {
		pte_t *ptep = huge_pte_offset(mm, addr, p->size);

		if (ptep && pte_present(huge_ptep_get(mm, addr, ptep)))
			nr_present++;
	}
	changed = hugetlb_change_protection(map.vma, map.start, map.end,
					    vm_get_page_prot(VM_READ | VM_SHARED),
					    0);
	for (addr = map.start; addr < map.end; addr += p->size) {
		pte_t *ptep = huge_pte_offset(mm, addr, p->size);

		if (ptep && pte_write(huge_ptep_get(mm, addr, ptep)))
			nr_writable++;
	}
	mmap_write_unlock(mm);

	KUNIT_ASSERT_EQ_MSG(test, nr_present, p->nr_blocks,
			    "MAP_POPULATE left blocks unmapped");
	KUNIT_ASSERT_EQ(test, changed,
			(long)((map.end - map.start) >> PAGE_SHIFT));
	KUNIT_EXPECT_EQ(test, nr_writable, 0);
	expect_hugetlb_flush(test, p, &map, mm_recorder_last(test, rec),
			     true);
}

static struct kunit_case arm64_hugetlb_flush_cases[] = {
	KUNIT_CASE_PARAM(flush_hugetlb_tlb_range_test, hugetlb_flush_gen_params),
	KUNIT_CASE_PARAM(hugetlb_change_protection_flush_test,
			 hugetlb_flush_gen_params),
	{}
};

static int arm64_hugetlb_flush_suite_init(struct kunit_suite *suite)
{
	return mm_recorder_register();
}

static void arm64_hugetlb_flush_suite_exit(struct kunit_suite *suite)
{
	mm_recorder_unregister();
}

static struct kunit_suite arm64_hugetlb_flush_suite = {
	.name = "arm64_hugetlb_flush",
	.suite_init = arm64_hugetlb_flush_suite_init,
	.suite_exit = arm64_hugetlb_flush_suite_exit,
	.test_cases = arm64_hugetlb_flush_cases,
};

kunit_test_suite(arm64_hugetlb_flush_suite);

MODULE_DESCRIPTION("KUnit tests for arm64 hugetlb TLB flush stride and level");
MODULE_LICENSE("GPL");
