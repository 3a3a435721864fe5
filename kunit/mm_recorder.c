// SPDX-License-Identifier: GPL-2.0
/*
 * TLB invalidation and barrier recorder shared by the series' arm64
 * suites; see mm_recorder.h.
 */
#include "mm_recorder.h"

static void mm_recorder_tlbflush(struct arm64_mm_kunit_hook *hook,
				 const struct arm64_tlbflush_event *event)
{
	struct mm_recorder *rec = container_of(hook, struct mm_recorder, hook);
	unsigned long flags;

	/* Other CPUs flush other mms concurrently: keep only ours. */
	if (!READ_ONCE(rec->armed) || event->mm != rec->mm)
		return;

	spin_lock_irqsave(&rec->lock, flags);
	if (rec->nr_events < MM_RECORDER_MAX_EVENTS)
		rec->events[rec->nr_events] = *event;
	rec->nr_events++;
	spin_unlock_irqrestore(&rec->lock, flags);
}

static void mm_recorder_barrier(struct arm64_mm_kunit_hook *hook)
{
	struct mm_recorder *rec = container_of(hook, struct mm_recorder, hook);

	if (!READ_ONCE(rec->armed))
		return;
	/*
	 * Other tasks map kernel memory concurrently: count only the case's
	 * own task, outside interrupts, so only it writes the counter; and
	 * the hard interrupt handler a case runs on irq_cpu, which nothing
	 * else can interrupt there.
	 */
	if (in_hardirq()) {
		if (smp_processor_id() == READ_ONCE(rec->irq_cpu))
			rec->nr_irq_barriers++;
	} else if (current == rec->task && in_task()) {
		rec->nr_barriers++;
	}
}

void mm_recorder_stop(struct mm_recorder *rec)
{
	WRITE_ONCE(rec->armed, false);
	arm64_mm_kunit_hook_unregister(&rec->hook);
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
	rec->mm = mm;
	rec->task = current;
	rec->irq_cpu = -1;
	rec->hook.tlbflush = mm_recorder_tlbflush;
	rec->hook.pgtable_barrier = mm_recorder_barrier;

	KUNIT_ASSERT_EQ(test, arm64_mm_kunit_hook_register(&rec->hook), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			mm_recorder_stop_action, rec), 0);
	WRITE_ONCE(rec->armed, true);
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
