/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Free pages before the first and after the last suite of a run (the
 * sanitizer lane): what the suites took from the buddy allocator and did
 * not give back, and which of the kernel's counters it went to.
 */
#ifndef _MM_SERIES_KUNIT_FREE_PAGES_CHECK_H
#define _MM_SERIES_KUNIT_FREE_PAGES_CHECK_H

enum free_pages_counter {
	FPC_FREE,		/* the buddy allocator's free pages */
	FPC_SLAB,		/* slab pages, reclaimable or not */
	FPC_VMALLOC,		/* pages of live vmalloc areas */
	FPC_PERCPU,		/* percpu chunks */
	FPC_STACK,		/* kernel stacks */
	FPC_PAGETABLE,		/* accounted page tables */
	FPC_FILE,		/* page cache */
	FPC_HUGETLB,		/* hugetlb pools */
	NR_FREE_PAGES_COUNTERS,
};

/*
 * Pages the kernel may keep between two snapshots on its own account,
 * without a counter: page tables of the vmalloc space, the KASAN shadow
 * of vmalloc areas. 16 MiB with 4K pages: about 0.2% of the guest's 8 GiB.
 */
#define FREE_PAGES_TOLERANCE	4096L

struct free_pages_snapshot {
	long pages[NR_FREE_PAGES_COUNTERS];
};

/* Taken by the first suite; valid once taken is set. */
extern struct free_pages_snapshot mm_series_free_pages_before;
extern bool mm_series_free_pages_taken;
extern const char *const free_pages_counter_names[NR_FREE_PAGES_COUNTERS];

void mm_series_free_pages_now(struct free_pages_snapshot *snap);

#endif
