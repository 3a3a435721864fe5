/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records the arm64 range TLB invalidations one mm receives while a KUnit
 * case runs, through the ARM64_TLBFLUSH_KUNIT_HOOK seam.
 */
#ifndef _MM_SERIES_KUNIT_TLBFLUSH_RECORDER_H
#define _MM_SERIES_KUNIT_TLBFLUSH_RECORDER_H

#include <kunit/test.h>
#include <linux/spinlock.h>
#include <asm/tlbflush.h>

#define TLBFLUSH_RECORDER_MAX_EVENTS	64

struct tlbflush_recorder {
	struct arm64_tlbflush_hook hook;
	struct mm_struct *mm;
	spinlock_t lock;
	unsigned int nr_events;		/* may exceed the events kept */
	struct arm64_tlbflush_event events[TLBFLUSH_RECORDER_MAX_EVENTS];
};

/* Starts recording mm's invalidations; stops at the latest on cleanup. */
struct tlbflush_recorder *tlbflush_recorder_start(struct kunit *test,
						  struct mm_struct *mm);
void tlbflush_recorder_stop(struct tlbflush_recorder *rec);
/* The last invalidation recorded; fails the case if there is none. */
const struct arm64_tlbflush_event *
tlbflush_recorder_last(struct kunit *test, struct tlbflush_recorder *rec);

#endif
