// SPDX-License-Identifier: GPL-2.0
/*
 * The first suite of a sanitizer-lane run (first in the link order, see
 * the Makefile): records the free pages before any other suite runs.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>

#include "free_pages_check.h"

struct free_pages_snapshot mm_series_free_pages_before;
bool mm_series_free_pages_taken;

const char *const free_pages_counter_names[NR_FREE_PAGES_COUNTERS] = {
	[FPC_FREE] = "free",
	[FPC_SLAB] = "slab",
	[FPC_VMALLOC] = "vmalloc",
	[FPC_PERCPU] = "percpu",
	[FPC_STACK] = "kernel stacks",
	[FPC_PAGETABLE] = "page tables",
	[FPC_FILE] = "page cache",
	[FPC_HUGETLB] = "hugetlb pools",
};

void mm_series_free_pages_now(struct free_pages_snapshot *snap)
{
	long *pages = snap->pages;

	/*
	 * Pages freed through RCU (kvfree_rcu) and pages sitting on per-cpu
	 * lists are free, but not counted as such until these run.
	 */
	rcu_barrier();
	drain_all_pages(NULL);
	pages[FPC_FREE] = global_zone_page_state(NR_FREE_PAGES);
	pages[FPC_SLAB] = global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
			  global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B);
	pages[FPC_VMALLOC] = vmalloc_nr_pages();
	pages[FPC_PERCPU] = pcpu_nr_pages();
	pages[FPC_STACK] = global_node_page_state(NR_KERNEL_STACK_KB) /
			   (PAGE_SIZE / SZ_1K);
	pages[FPC_PAGETABLE] = global_node_page_state(NR_PAGETABLE) +
			       global_node_page_state(NR_SECONDARY_PAGETABLE);
	pages[FPC_FILE] = global_node_page_state(NR_FILE_PAGES);
	pages[FPC_HUGETLB] = hugetlb_total_pages();
}

/*
 * The baseline is worth comparing with only if nothing still moves it
 * (struct pages initialised late, boot-time frees in flight, per-cpu
 * lists): a second snapshot right after the first agrees with it to within
 * the last suite's tolerance. Else the last suite's verdict would measure
 * the boot, not the suites.
 */
static void free_pages_before_test(struct kunit *test)
{
	struct free_pages_snapshot again;
	long moved;

	mm_series_free_pages_now(&mm_series_free_pages_before);
	mm_series_free_pages_now(&again);
	moved = again.pages[FPC_FREE] -
		mm_series_free_pages_before.pages[FPC_FREE];
	kunit_info(test, "free pages before the suites: %ld (%+ld a moment later)\n",
		   mm_series_free_pages_before.pages[FPC_FREE], moved);
	KUNIT_ASSERT_LE_MSG(test, abs(moved), FREE_PAGES_TOLERANCE,
			    "free pages still moving: no baseline");
	mm_series_free_pages_taken = true;
}

static struct kunit_case free_pages_first_cases[] = {
	KUNIT_CASE(free_pages_before_test),
	{}
};

static struct kunit_suite free_pages_first_suite = {
	.name = "mm_series_free_pages_first",
	.test_cases = free_pages_first_cases,
};
kunit_test_suites(&free_pages_first_suite);

MODULE_DESCRIPTION("Free pages before the series' suites");
MODULE_LICENSE("GPL");
