// SPDX-License-Identifier: GPL-2.0
/*
 * TLB invalidation and barrier recorder shared by the series' arm64
 * suites; see mm_recorder.h.
 */
#include "mm_recorder.h"

/* The recording of the running case; one case runs at a time. */
static struct mm_recorder *mm_recorder_active;

/*
 * The recording of @test, if the running task is the one that started it.
 * Another task may carry the same struct kunit: the thread of an earlier
 * case, still exiting (KUnit stops waiting for it at its vfork_done, before
 * mmput() tears its mm down), with a struct kunit at the address KUnit
 * reuses for every case. What that thread does is not the case's.
 */
static struct mm_recorder *recorder_of(struct kunit *test)
{
	struct mm_recorder *rec = READ_ONCE(mm_recorder_active);

	return rec && rec->test == test && rec->task == current ? rec : NULL;
}

static void mm_recorder_tlbflush(struct kunit *test,
				 const struct arm64_tlbflush_event *event)
{
	struct mm_recorder *rec = recorder_of(test);
	unsigned long flags;

	if (!rec || (event->mm != rec->mm &&
		     event->kind != ARM64_TLBFLUSH_ALL))
		return;

	if (rec->on_tlbflush)
		rec->on_tlbflush(rec->on_tlbflush_data);
	spin_lock_irqsave(&rec->lock, flags);
	if (rec->nr_events < MM_RECORDER_MAX_EVENTS)
		rec->events[rec->nr_events] = *event;
	rec->nr_events++;
	spin_unlock_irqrestore(&rec->lock, flags);
}

static void mm_recorder_barrier(struct kunit *test,
				enum arm64_mm_context context)
{
	struct mm_recorder *rec = recorder_of(test);
	unsigned long flags;

	if (!rec)
		return;
	/* An interrupt on the case's task may count while it counts. */
	spin_lock_irqsave(&rec->lock, flags);
	if (context == ARM64_MM_HARDIRQ)
		rec->nr_irq_barriers++;
	else if (context == ARM64_MM_SOFTIRQ)
		rec->nr_softirq_barriers++;
	else
		rec->nr_barriers++;
	spin_unlock_irqrestore(&rec->lock, flags);
}

static const struct arm64_mm_kunit_hook mm_recorder_hook = {
	.tlbflush = mm_recorder_tlbflush,
	.pgtable_barrier = mm_recorder_barrier,
};

int mm_recorder_register(void)
{
	return arm64_mm_kunit_hook_register(&mm_recorder_hook);
}

void mm_recorder_unregister(void)
{
	arm64_mm_kunit_hook_unregister(&mm_recorder_hook);
}

void mm_recorder_stop(struct mm_recorder *rec)
{
	cmpxchg(&mm_recorder_active, rec, NULL);
}

static void mm_recorder_stop_action(void *rec)
{
	mm_recorder_stop(rec);
}

struct mm_recorder *mm_recorder_start(struct kunit *test, struct mm_struct *mm)
{
	struct mm_recorder *rec;

	rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	spin_lock_init(&rec->lock);
	rec->test = test;
	rec->task = current;
	rec->mm = mm;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			mm_recorder_stop_action, rec), 0);
	KUNIT_ASSERT_NULL_MSG(test, cmpxchg(&mm_recorder_active, NULL, rec),
			      "a recording is already running");
	return rec;
}

const struct arm64_tlbflush_event *
mm_recorder_last(struct kunit *test, struct mm_recorder *rec)
{
	KUNIT_ASSERT_GT_MSG(test, rec->nr_events, 0, "no TLB invalidation");
	KUNIT_ASSERT_LE_MSG(test, rec->nr_events, MM_RECORDER_MAX_EVENTS,
			    "more invalidations than the recorder keeps");
	return &rec->events[rec->nr_events - 1];
}
