/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The series' in-kernel benchmark harness: each case runs a body of work a
 * number of loops per sample, after a warm-up, and prints one KTAP
 * diagnostic line per sample with the raw value, for the host to compute
 * statistics from; nothing is aggregated in the kernel.
 *
 *   # <case>: mm_bench suite=<s> bench=<b> <k=v params> loops=<l> sample=<i> value=<v> unit=<u>
 *
 * The profile (boot parameter mm_series_bench.profile=smoke|quick|full)
 * scales loop counts: full is the seeds' count, quick a fraction of it
 * that keeps a run short, smoke a handful of loops that only prove the
 * case runs.
 */
#ifndef _MM_SERIES_BENCH_H
#define _MM_SERIES_BENCH_H

#include <kunit/test.h>

/* Does @loops loops of a case's work; 0 or a negative error. */
typedef int (*mm_bench_fn)(void *arg, unsigned int loops);

struct mm_bench {
	const char *suite;	/* e.g. "vmalloc" */
	const char *name;	/* e.g. "fix_size_alloc_test" */
	char params[64];	/* e.g. "p=1 h=0" */
	unsigned int full_loops;	/* the seeds' loop count */
};

/* Loops for the current profile, from the seeds' count. */
unsigned int mm_bench_loops(unsigned int full_loops);

/* Whether the boot runs this profile (smoke, quick or full). */
bool mm_bench_profile_is(const char *name);

/* Timed samples per case and boot in the current profile. */
unsigned int mm_bench_nr_samples(void);

/*
 * Each reported timed sample runs between these two: unallocated HINT
 * instructions, which an arm64 CPU executes as NOPs, so that a QEMU TCG
 * plugin (scripts/tcg_plugin/mm_counts.c) can count what the sample
 * executed (instructions, barriers, TLBIs). One pair per reported sample,
 * in the order the samples are reported; a warm-up gets none.
 */
static __always_inline void mm_bench_window_open(void)
{
#ifdef CONFIG_ARM64
	asm volatile("hint #0x70" ::: "memory");
#endif
}

static __always_inline void mm_bench_window_close(void)
{
#ifdef CONFIG_ARM64
	asm volatile("hint #0x71" ::: "memory");
#endif
}

/* Prints one sample; for cases that time their work themselves. */
void mm_bench_report(struct kunit *test, const struct mm_bench *b,
		     unsigned int loops, int sample, const char *unit,
		     u64 value);

/*
 * Warm up, then time mm_bench_nr_samples() samples of @fn.
 * Fails the case if @fn fails.
 */
void mm_bench_time(struct kunit *test, const struct mm_bench *b,
		   mm_bench_fn fn, void *arg);

/* Prints a count (not a time) as one sample, for structural benchmarks. */
void mm_bench_count(struct kunit *test, const struct mm_bench *b,
		    const char *unit, unsigned long value);

#endif
