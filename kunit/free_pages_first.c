// SPDX-License-Identifier: GPL-2.0
/*
 * The first suite of a sanitizer-lane run (first in the link order, see
 * the Makefile): records the free pages before any other suite runs.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>

#include "free_pages_check.h"

long mm_series_free_pages_before = -1;

long mm_series_free_pages_now(void)
{
	/*
	 * Pages freed through RCU (kvfree_rcu) and pages sitting on per-cpu
	 * lists are free, but not counted as such until these run.
	 */
	rcu_barrier();
	drain_all_pages(NULL);
	return global_zone_page_state(NR_FREE_PAGES);
}

static void free_pages_before_test(struct kunit *test)
{
	mm_series_free_pages_before = mm_series_free_pages_now();
	kunit_info(test, "free pages before the suites: %ld\n",
		   mm_series_free_pages_before);
	KUNIT_EXPECT_GT(test, mm_series_free_pages_before, 0);
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
