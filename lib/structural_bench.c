// SPDX-License-Identifier: GPL-2.0
/*
 * Structural benchmarks: exact counts, not timings, of what the series
 * changes in the kernel's page tables and in the work of writing them.
 *
 * - translation entries a 1 MiB vmalloc area needs in the TLB: one per
 *   valid entry, one per contiguous block (read from init_mm the way the
 *   MMU reads it);
 * - dsb/isb pairs the calling task issues for the kernel page-table
 *   writes of one vmalloc() of p pages (counted through the arm64 seam);
 * - kswapd wakeups one vmalloc() of 4M makes on fragmented memory, and
 *   the reclaim and compaction work they set off, without and with clean
 *   page cache to reclaim (full profile only).
 *
 * TCG does not model TLB or barrier cost, so these counts are what shows
 * the effect of contpte and lazy MMU mode under QEMU; the counts are
 * exact, one sample per boot.
 */
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>
#include <trace/events/vmscan.h>

#include "../series-kunit/kern_mount_fixture.h"
#include "../series-kunit/kernel_map.h"
#include "../series-kunit/mm_recorder.h"
#include "../series-kunit/page_cache_file.h"
#include "../series-kunit/vm_area_fixture.h"
#include "mm_bench.h"

struct entries_bench {
	const char *alloc;
	bool huge;
	unsigned long size;
};

static const struct entries_bench entries_benches[] = {
	{ "vmalloc_huge", true, SZ_64K },
	{ "vmalloc_huge", true, SZ_1M },
	{ "vmalloc", false, SZ_1M },
};

static void entries_bench_desc(const struct entries_bench *b, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s of %luK", b->alloc,
		 b->size / SZ_1K);
}

KUNIT_ARRAY_PARAM(entries_bench, entries_benches, entries_bench_desc);

/* Translation entries per MiB of the area, scaled from its size. */
static void translation_entries_bench(struct kunit *test)
{
	const struct entries_bench *b = test->param_value;
	struct mm_bench bench = { .suite = "structural",
				  .name = "translation_entries_per_mib" };
	struct vm_struct *area;
	unsigned long start, entries;

	area = kunit_vm_area(test, b->huge ?
			     vmalloc_huge(b->size, GFP_KERNEL) :
			     vmalloc(b->size));
	start = (unsigned long)area->addr;
	entries = kmap_translation_entries(start, start + b->size);
	snprintf(bench.params, sizeof(bench.params), "alloc=%s size=%luK",
		 b->alloc, b->size / SZ_1K);
	mm_bench_count(test, &bench, "entries", entries * (SZ_1M / b->size));
}

static const unsigned int barrier_bench_pages[] = { 1, 16, 256, 512 };

static void barrier_bench_desc(const unsigned int *pages, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "vmalloc of %u pages", *pages);
}

KUNIT_ARRAY_PARAM(barrier_bench, barrier_bench_pages, barrier_bench_desc);

static void barrier_pairs_bench(struct kunit *test)
{
	unsigned int nr = *(const unsigned int *)test->param_value;
	struct mm_bench bench = { .suite = "structural",
				  .name = "barrier_pairs_per_vmalloc" };
	struct mm_recorder *rec;
	void *addr;

	rec = mm_recorder_start(test, &init_mm);
	addr = vmalloc(nr * PAGE_SIZE);
	mm_recorder_stop(rec);
	kunit_vm_area(test, addr);
	snprintf(bench.params, sizeof(bench.params), "p=%u", nr);
	mm_bench_count(test, &bench, "pairs", rec->nr_barriers);
}

/*
 * Free memory with no block above order 0 left: every free block of order
 * 1 and up is taken (no reclaim, no kswapd), split, and every other page
 * given back. The pages kept are on @held.
 */
static void fragment_free_memory(struct list_head *held)
{
	const gfp_t gfp = (GFP_KERNEL & ~__GFP_RECLAIM) | __GFP_NOWARN;
	int order;

	for (order = MAX_PAGE_ORDER; order >= 1; order--) {
		struct page *page;

		while ((page = alloc_pages(gfp, order))) {
			unsigned int i;

			split_page(page, order);
			for (i = 0; i < 1U << order; i++) {
				if (i & 1)
					__free_page(page + i);
				else
					list_add(&page[i].lru, held);
			}
			cond_resched();
		}
	}
}

static void free_held(struct list_head *held)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, held, lru) {
		list_del(&page->lru);
		__free_page(page);
		cond_resched();
	}
}

struct kswapd_wakeups {
	struct task_struct *task;
	unsigned int total;
	int highest_order;
};

static void kswapd_wakeup_probe(void *data, int nid, int zid, int order,
				gfp_t gfp_flags)
{
	struct kswapd_wakeups *w = data;

	if (current != w->task)
		return;
	w->total++;
	w->highest_order = max(w->highest_order, order);
}

/* The vm events one vmalloc(SZ_4M) on fragmented memory sets off. */
struct kswapd_run {
	unsigned int wakeups;
	int highest_order;
	unsigned long scanned, reclaimed, kcompactd_wakeups;
};

/*
 * 0019 keeps __GFP_KSWAPD_RECLAIM in its large-order attempts, as upstream
 * does: on memory with no large free block, each attempt fails its fast
 * path and wakes kswapd for its order (from MAX_PAGE_ORDER down), where
 * the order-0 bulk path of 6.12 wakes none while memory is above the
 * watermarks. Counted per vmalloc() of 4M: the wakeups the task made (the
 * tracepoint fires only when kswapd is asleep and the node unbalanced for
 * the order), the highest order, and what kswapd and kcompactd did over
 * the next second. Fragmenting all free memory takes seconds under TCG:
 * the full profile only.
 */
static void kswapd_run(struct kunit *test, struct kswapd_run *run)
{
	struct kswapd_wakeups w = { .task = current, .highest_order = -1 };
	unsigned long *before, *after;
	LIST_HEAD(held);
	void *addr;

	if (!mm_bench_profile_is("full"))
		kunit_skip(test, "fragments all free memory: the full profile only (mm_series_bench.profile=full)");
	before = kunit_kcalloc(test, NR_VM_EVENT_ITEMS, sizeof(*before),
			       GFP_KERNEL);
	after = kunit_kcalloc(test, NR_VM_EVENT_ITEMS, sizeof(*after),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, after);
	fragment_free_memory(&held);
	KUNIT_ASSERT_EQ(test, register_trace_mm_vmscan_wakeup_kswapd(
				kswapd_wakeup_probe, &w), 0);
	all_vm_events(before);
	addr = vmalloc(SZ_4M);
	unregister_trace_mm_vmscan_wakeup_kswapd(kswapd_wakeup_probe, &w);
	tracepoint_synchronize_unregister();
	msleep(1000);
	all_vm_events(after);
	vfree(addr);
	free_held(&held);
	KUNIT_ASSERT_NOT_NULL(test, addr);

	run->wakeups = w.total;
	run->highest_order = w.highest_order;
	run->scanned = after[PGSCAN_KSWAPD] - before[PGSCAN_KSWAPD];
	run->reclaimed = after[PGSTEAL_KSWAPD] - before[PGSTEAL_KSWAPD];
	run->kcompactd_wakeups = after[KCOMPACTD_WAKE] - before[KCOMPACTD_WAKE];
}

static void kswapd_report(struct kunit *test, const char *params,
			  const struct kswapd_run *run)
{
	struct mm_bench bench = { .suite = "structural" };

	strscpy(bench.params, params, sizeof(bench.params));
	bench.name = "kswapd_wakeups_per_vmalloc";
	mm_bench_count(test, &bench, "wakeups", run->wakeups);
	bench.name = "kswapd_highest_order_per_vmalloc";
	mm_bench_count(test, &bench, "order", run->highest_order + 1);
	bench.name = "kswapd_pages_scanned_after_vmalloc";
	mm_bench_count(test, &bench, "pages", run->scanned);
	bench.name = "kswapd_pages_reclaimed_after_vmalloc";
	mm_bench_count(test, &bench, "pages", run->reclaimed);
	bench.name = "kcompactd_wakeups_after_vmalloc";
	mm_bench_count(test, &bench, "wakeups", run->kcompactd_wakeups);
}

/* Free memory fragmented, nothing reclaimable but what the boot left. */
static void kswapd_wakeups_bench(struct kunit *test)
{
	struct kswapd_run run;

	kswapd_run(test, &run);
	kswapd_report(test, "size=4M fragmented", &run);
}

#define KSWAPD_PAGE_CACHE	SZ_256M

/*
 * The same with clean page cache kswapd can reclaim: a sparse ramfs file
 * of 256M read once before memory is fragmented. ramfs marks its mappings
 * unevictable because it has nowhere to write pages back; this file is
 * only ever read, its pages are clean zero-filled holes, so it is made
 * evictable and its pages are what a clean file read from disk leaves on
 * the file LRU. Order-0 folios, so that the two trees' page cache (0021,
 * 0022 change folio sizes) is the same. The pages the file lost are
 * counted too.
 */
static void kswapd_page_cache_bench(struct kunit *test)
{
	struct page_cache_file *f;
	struct mm_bench bench = { .suite = "structural",
				  .name = "page_cache_pages_dropped_after_vmalloc",
				  .params = "size=4M fragmented page_cache=256M" };
	unsigned long cached;
	struct kswapd_run run;

	if (!mm_bench_profile_is("full"))
		kunit_skip(test, "fragments all free memory: the full profile only (mm_series_bench.profile=full)");
	f = page_cache_file_create(test, kunit_kern_mount(test, "ramfs"),
				   KSWAPD_PAGE_CACHE >> PAGE_SHIFT, false,
				   0, 0, PAGE_SIZE);
	mapping_set_folio_order_range(f->mapping, 0, 0);
	mapping_clear_unevictable(f->mapping);
	page_cache_file_read(test, f);
	cached = f->mapping->nrpages;
	KUNIT_ASSERT_EQ_MSG(test, cached, f->nr_pages,
			    "the file's page cache holds %lu of its %lu pages",
			    cached, f->nr_pages);
	kswapd_run(test, &run);
	kswapd_report(test, bench.params, &run);
	mm_bench_count(test, &bench, "pages", cached - f->mapping->nrpages);
}

static struct kunit_case structural_bench_cases[] = {
	KUNIT_CASE_PARAM_ATTR(translation_entries_bench,
			      entries_bench_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(barrier_pairs_bench, barrier_bench_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_ATTR(kswapd_wakeups_bench, { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_ATTR(kswapd_page_cache_bench,
			{ .speed = KUNIT_SPEED_SLOW }),
	{}
};

static int structural_bench_suite_init(struct kunit_suite *suite)
{
	return mm_recorder_register();
}

static void structural_bench_suite_exit(struct kunit_suite *suite)
{
	mm_recorder_unregister();
}

static struct kunit_suite structural_bench_suite = {
	.name = "mm_bench_structural",
	.suite_init = structural_bench_suite_init,
	.suite_exit = structural_bench_suite_exit,
	.test_cases = structural_bench_cases,
};
kunit_test_suites(&structural_bench_suite);

MODULE_DESCRIPTION("Translation entries and barrier pairs of the series");
MODULE_LICENSE("GPL");
