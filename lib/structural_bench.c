// SPDX-License-Identifier: GPL-2.0
/*
 * Structural benchmarks: exact counts, not timings, of what the series
 * changes in the kernel's page tables and in the work of writing them.
 *
 * - translation entries a 1 MiB vmalloc area needs in the TLB: one per
 *   valid entry, one per contiguous block (read from init_mm the way the
 *   MMU reads it);
 * - dsb/isb pairs the calling task issues for the kernel page-table
 *   writes of one vmalloc() of p pages (counted through the arm64 seam).
 *
 * TCG does not model TLB or barrier cost, so these counts are what shows
 * the effect of contpte and lazy MMU mode under QEMU; the counts are
 * exact, one sample per boot.
 */
#include <linux/sizes.h>
#include <linux/vmalloc.h>

#include "../series-kunit/kernel_map.h"
#include "../series-kunit/mm_recorder.h"
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

static struct kunit_case structural_bench_cases[] = {
	KUNIT_CASE_PARAM_ATTR(translation_entries_bench,
			      entries_bench_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(barrier_pairs_bench, barrier_bench_gen_params,
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
