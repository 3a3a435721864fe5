/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records, while a KUnit case runs, the arm64 range TLB invalidations one
 * mm receives and the dsb/isb pairs the case's own task issues for kernel
 * page-table writes, through the ARM64_MM_KUNIT_HOOK seam.
 */
#ifndef _MM_SERIES_KUNIT_MM_RECORDER_H
#define _MM_SERIES_KUNIT_MM_RECORDER_H

#include <kunit/test.h>
#include <linux/spinlock.h>
#include <asm/tlbflush.h>

#define MM_RECORDER_MAX_EVENTS	64

struct mm_recorder {
	struct arm64_mm_kunit_hook hook;
	struct mm_struct *mm;
	struct task_struct *task;
	spinlock_t lock;
	/*
	 * Set once registration is over and cleared before unregistering:
	 * enabling and disabling the hook's static key patches kernel text
	 * through the fixmap, and under lockdep or DEBUG_PAGEALLOC may map
	 * pages, all from the case's task, none of it the case's own.
	 */
	bool armed;
	unsigned int nr_events;		/* may exceed the events kept */
	struct arm64_tlbflush_event events[MM_RECORDER_MAX_EVENTS];
	unsigned int nr_barriers;	/* by the task, outside interrupts */
	/* By hard interrupts on irq_cpu, while a case's handler sets it. */
	int irq_cpu;
	unsigned int nr_irq_barriers;
};

/* Starts recording; stops at the latest when the case ends. */
struct mm_recorder *mm_recorder_start(struct kunit *test,
				      struct mm_struct *mm);
void mm_recorder_stop(struct mm_recorder *rec);
/* The last invalidation recorded; fails the case if there is none. */
const struct arm64_tlbflush_event *
mm_recorder_last(struct kunit *test, struct mm_recorder *rec);

#endif
