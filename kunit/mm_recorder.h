/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records, while a KUnit case runs, the arm64 TLB invalidations one mm
 * receives and the dsb/isb pairs issued after kernel table writes, through
 * the ARM64_MM_KUNIT_HOOK seam. A suite registers the recorder once
 * (mm_recorder_register() in suite_init, as mm/kfence/kfence_test.c does
 * with its tracepoint). The seam reports what every task running with the
 * case's struct kunit does, each with its context; the recorder keeps what
 * the case's own task does, or an interrupt taken on it.
 */
#ifndef _MM_SERIES_KUNIT_MM_RECORDER_H
#define _MM_SERIES_KUNIT_MM_RECORDER_H

#include <kunit/test.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <asm/tlbflush.h>

#define MM_RECORDER_MAX_EVENTS	64

struct mm_recorder {
	struct kunit *test;
	struct task_struct *task;	/* the case's own, which started it */
	struct mm_struct *mm;
	spinlock_t lock;
	unsigned int nr_events;		/* may exceed the events kept */
	struct arm64_tlbflush_event events[MM_RECORDER_MAX_EVENTS];
	unsigned int nr_barriers;	/* by the case's task */
	unsigned int nr_softirq_barriers;
	unsigned int nr_irq_barriers;	/* by hard interrupts on the task */
	/*
	 * If set, called with on_tlbflush_data at each invalidation recorded,
	 * as it is issued: what a case checks at that moment, such as the
	 * break of break-before-make having cleared the entries already.
	 */
	void (*on_tlbflush)(void *data);
	void *on_tlbflush_data;
};

int mm_recorder_register(void);
void mm_recorder_unregister(void);

/*
 * Starts recording what reaches @mm (and whole-TLB invalidations); stops
 * at the latest when the case ends.
 */
struct mm_recorder *mm_recorder_start(struct kunit *test,
				      struct mm_struct *mm);
void mm_recorder_stop(struct mm_recorder *rec);
/* The last invalidation recorded; fails the case if there is none. */
const struct arm64_tlbflush_event *
mm_recorder_last(struct kunit *test, struct mm_recorder *rec);

#endif
