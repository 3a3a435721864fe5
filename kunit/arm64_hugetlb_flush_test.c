// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the TLB maintenance of arm64 hugetlb mappings.
 *
 * flush_hugetlb_tlb_range() must pass __flush_tlb_range() the stride and
 * the TLBI level hint of the page-table level a hugetlb size lives at.
 * A wrong level hint is invisible on QEMU (it invalidates everything
 * anyway), so the cases observe the arguments through the
 * ARM64_TLBFLUSH_KUNIT_HOOK seam instead of the effect.
 *
 * Each case maps a hugetlbfs file of one size into the test's own mm
 * (kunit_vm_mmap() attaches a fresh mm to the test thread), so the VMA,
 * its hstate and its page tables are the real ones.
 */
#include <kunit/test.h>
#include <linux/file.h>
#include <linux/hugetlb.h>
#include <linux/mman.h>
#include <linux/spinlock.h>
#include <asm/tlbflush.h>

#define MAX_EVENTS	64

/* Collects the range invalidations one mm receives while a case runs. */
struct tlbflush_recorder {
	struct arm64_tlbflush_hook hook;
	struct mm_struct *mm;
	spinlock_t lock;
	unsigned int nr_events;		/* may exceed MAX_EVENTS */
	struct arm64_tlbflush_event events[MAX_EVENTS];
};

static void tlbflush_recorder_record(struct arm64_tlbflush_hook *hook,
				     const struct arm64_tlbflush_event *event)
{
	struct tlbflush_recorder *rec =
		container_of(hook, struct tlbflush_recorder, hook);
	unsigned long flags;

	/* Other CPUs flush other mms concurrently: keep only ours. */
	if (event->mm != rec->mm)
		return;

	spin_lock_irqsave(&rec->lock, flags);
	if (rec->nr_events < MAX_EVENTS)
		rec->events[rec->nr_events] = *event;
	rec->nr_events++;
	spin_unlock_irqrestore(&rec->lock, flags);
}

static void tlbflush_recorder_stop(void *data)
{
	arm64_tlbflush_hook_unregister(data);
}

static struct tlbflush_recorder *tlbflush_recorder_start(struct kunit *test,
							 struct mm_struct *mm)
{
	struct tlbflush_recorder *rec;

	rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	spin_lock_init(&rec->lock);
	rec->mm = mm;
	rec->hook.record = tlbflush_recorder_record;

	KUNIT_ASSERT_EQ(test, arm64_tlbflush_hook_register(&rec->hook), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			tlbflush_recorder_stop, &rec->hook), 0);
	return rec;
}

static const struct arm64_tlbflush_event *
tlbflush_recorder_last(struct kunit *test, struct tlbflush_recorder *rec)
{
	KUNIT_ASSERT_GT(test, rec->nr_events, 0);
	KUNIT_ASSERT_LE_MSG(test, rec->nr_events, MAX_EVENTS,
			    "more invalidations than the recorder keeps");
	return &rec->events[rec->nr_events - 1];
}

/* What flush_hugetlb_tlb_range() must ask for, per hugetlb size (4K pages). */
struct hugetlb_flush_param {
	const char *desc;
	unsigned long size;
	unsigned long stride;
	int level;
	unsigned int nr_blocks;		/* >1 tells a whole-range flush apart */
};

static const struct hugetlb_flush_param hugetlb_flush_params[] = {
	{ "64K_contpte", CONT_PTE_SIZE, PAGE_SIZE, 3, 2 },
	{ "2M_pmd", PMD_SIZE, PMD_SIZE, 2, 2 },
	{ "32M_contpmd", CONT_PMD_SIZE, PMD_SIZE, 2, 2 },
	{ "1G_pud", PUD_SIZE, PUD_SIZE, 1, 1 },
};

static void hugetlb_flush_param_desc(const struct hugetlb_flush_param *p,
				     char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hugetlb_flush, hugetlb_flush_params, hugetlb_flush_param_desc);

KUNIT_DEFINE_ACTION_WRAPPER(fput_wrapper, fput, struct file *);

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
	struct hstate *h = size_to_hstate(p->size);
	struct file *file;
	unsigned long addr;

	/* A missing pool is a broken setup, not a missing feature: fail. */
	KUNIT_ASSERT_NOT_NULL_MSG(test, h,
		"no %luK hugetlb pool: boot with hugepagesz=/hugepages=",
		p->size >> 10);

	file = hugetlb_file_setup(HUGETLB_ANON_FILE, len, 0,
				  HUGETLB_ANONHUGE_INODE, huge_page_shift(h));
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "hugetlb_file_setup: %ld",
			       PTR_ERR(file));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fput_wrapper,
							file), 0);

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
	struct tlbflush_recorder *rec;
	struct hugetlb_mapping map;

	map_hugetlb(test, p, 0, &map);
	rec = tlbflush_recorder_start(test, current->mm);

	flush_hugetlb_tlb_range(map.vma, map.start, map.end);

	KUNIT_ASSERT_EQ(test, rec->nr_events, 1);
	expect_hugetlb_flush(test, p, &map, tlbflush_recorder_last(test, rec),
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
	struct tlbflush_recorder *rec;
	struct hugetlb_mapping map;
	struct mm_struct *mm;
	unsigned long addr;
	long changed;

	map_hugetlb(test, p, MAP_POPULATE, &map);
	mm = current->mm;
	rec = tlbflush_recorder_start(test, mm);

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
	expect_hugetlb_flush(test, p, &map, tlbflush_recorder_last(test, rec),
			     true);
}

static struct kunit_case arm64_hugetlb_flush_cases[] = {
	KUNIT_CASE_PARAM(flush_hugetlb_tlb_range_test, hugetlb_flush_gen_params),
	KUNIT_CASE_PARAM(hugetlb_change_protection_flush_test,
			 hugetlb_flush_gen_params),
	{}
};

static struct kunit_suite arm64_hugetlb_flush_suite = {
	.name = "arm64_hugetlb_flush",
	.test_cases = arm64_hugetlb_flush_cases,
};

kunit_test_suite(arm64_hugetlb_flush_suite);

MODULE_DESCRIPTION("KUnit tests for arm64 hugetlb TLB flush stride and level");
MODULE_LICENSE("GPL");
