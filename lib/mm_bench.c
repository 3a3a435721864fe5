// SPDX-License-Identifier: GPL-2.0
/* The core of the series' benchmark harness; see mm_bench.h. */
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "mm_bench.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "mm_series_bench."

static char *profile = "quick";
module_param(profile, charp, 0444);
MODULE_PARM_DESC(profile, "smoke, quick or full: how many loops per sample");

static unsigned int samples = 5;
module_param(samples, uint, 0444);
MODULE_PARM_DESC(samples, "timed samples per case and boot (quick, full)");

unsigned int mm_bench_loops(unsigned int full_loops)
{
	if (!strcmp(profile, "full"))
		return full_loops;
	if (!strcmp(profile, "smoke"))
		return min(full_loops, 2U);
	/* quick: a hundredth of the seeds' count, at least a few loops. */
	return max(full_loops / 100, min(full_loops, 10U));
}

bool mm_bench_profile_is(const char *name)
{
	return !strcmp(profile, name);
}

unsigned int mm_bench_nr_samples(void)
{
	return strcmp(profile, "smoke") ? max(samples, 1U) : 1;
}

void mm_bench_report(struct kunit *test, const struct mm_bench *b,
		     unsigned int loops, int sample, const char *unit,
		     u64 value)
{
	kunit_info(test, "mm_bench suite=%s bench=%s %s loops=%u sample=%d value=%llu unit=%s\n",
		   b->suite, b->name, b->params, loops, sample, value, unit);
}

void mm_bench_time(struct kunit *test, const struct mm_bench *b,
		   mm_bench_fn fn, void *arg)
{
	unsigned int loops = mm_bench_loops(b->full_loops);
	unsigned int i, n = mm_bench_nr_samples();
	u64 start, elapsed;
	int ret;

	/* The warm-up fills caches and per-cpu lists; it is not reported. */
	ret = fn(arg, loops);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s %s: warm-up failed", b->name,
			    b->params);
	for (i = 0; i < n; i++) {
		start = ktime_get_ns();
		mm_bench_window_open();
		ret = fn(arg, loops);
		mm_bench_window_close();
		elapsed = ktime_get_ns() - start;
		mm_bench_report(test, b, loops, i, "ns", elapsed);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s %s: sample %u failed",
				    b->name, b->params, i);
		cond_resched();
	}
}

void mm_bench_count(struct kunit *test, const struct mm_bench *b,
		    const char *unit, unsigned long value)
{
	mm_bench_report(test, b, 1, 0, unit, value);
}
