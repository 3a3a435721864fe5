// SPDX-License-Identifier: GPL-2.0
/*
 * Gigantic folios (seed 003): allocate N folios of 32M with
 * folio_alloc_gigantic(), then free them all with folio_put(), timing the
 * two phases apart, as the seed reports allocation and freeing apart.
 * N is the loop count of the profile; a sample reports each phase's time
 * for all N folios.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "mm_bench.h"

/* 32M on arm64 with 4K pages: a CONT_PMD block, the smallest gigantic. */
#define GIGANTIC_BENCH_ORDER	(CONT_PMD_SHIFT - PAGE_SHIFT)
/* The seed allocated 500 folios of 1G; 64 of 32M fit the guest's 8G. */
#define GIGANTIC_BENCH_FULL	64

static void free_folios(struct folio **folios, unsigned int nr)
{
	while (nr--)
		folio_put(folios[nr]);
}

static void gigantic_bench(struct kunit *test)
{
	struct mm_bench alloc = { .suite = "gigantic", .name = "alloc_32M" };
	struct mm_bench release = { .suite = "gigantic", .name = "free_32M" };
	unsigned int n = mm_bench_loops(GIGANTIC_BENCH_FULL);
	unsigned int got, samples = mm_bench_nr_samples();
	struct folio **folios;
	u64 start, alloc_ns, free_ns;
	int sample;

	folios = kunit_kcalloc(test, n, sizeof(*folios), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, folios);
	snprintf(alloc.params, sizeof(alloc.params), "n=%u", n);
	snprintf(release.params, sizeof(release.params), "n=%u", n);

	/* Sample -1 is the warm-up: it runs but is not reported. */
	for (sample = -1; sample < (int)samples; sample++) {
		start = ktime_get_ns();
		if (sample >= 0)
			mm_bench_window_open();
		for (got = 0; got < n; got++) {
			folios[got] = folio_alloc_gigantic(GIGANTIC_BENCH_ORDER,
					GFP_KERNEL | __GFP_COMP | __GFP_NOWARN,
					numa_node_id(), NULL);
			if (!folios[got])
				break;
		}
		if (sample >= 0)
			mm_bench_window_close();
		alloc_ns = ktime_get_ns() - start;
		start = ktime_get_ns();
		if (sample >= 0)
			mm_bench_window_open();
		free_folios(folios, got);
		if (sample >= 0)
			mm_bench_window_close();
		free_ns = ktime_get_ns() - start;
		if (sample >= 0) {
			mm_bench_report(test, &alloc, n, sample, "ns",
					alloc_ns);
			mm_bench_report(test, &release, n, sample, "ns",
					free_ns);
		}
		KUNIT_ASSERT_EQ_MSG(test, got, n,
				    "only %u of %u 32M folios", got, n);
		cond_resched();
	}
}

static struct kunit_case gigantic_bench_cases[] = {
	KUNIT_CASE_ATTR(gigantic_bench, { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite gigantic_bench_suite = {
	.name = "mm_bench_gigantic",
	.test_cases = gigantic_bench_cases,
};
kunit_test_suites(&gigantic_bench_suite);

MODULE_DESCRIPTION("Gigantic folio allocation and freeing times");
MODULE_LICENSE("GPL");
