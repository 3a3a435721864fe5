// SPDX-License-Identifier: GPL-2.0
/*
 * TLB invalidation recorder shared by the series' arm64 suites; see
 * tlbflush_recorder.h.
 */
#include "tlbflush_recorder.h"

static void tlbflush_recorder_record(struct arm64_tlbflush_hook *hook,
				     const struct arm64_tlbflush_event *event)
{
	struct tlbflush_recorder *rec =
		container_of(hook, struct tlbflush_recorder, hook);
	unsigned long flags;

	/* Other CPUs flush other mms concurrently: keep only ours. */
	if (event->mm != rec->mm)
		return;

	spin_lock_irqsave(&rec->lock, flags);
	if (rec->nr_events < TLBFLUSH_RECORDER_MAX_EVENTS)
		rec->events[rec->nr_events] = *event;
	rec->nr_events++;
	spin_unlock_irqrestore(&rec->lock, flags);
}

void tlbflush_recorder_stop(struct tlbflush_recorder *rec)
{
	arm64_tlbflush_hook_unregister(&rec->hook);
}

static void tlbflush_recorder_stop_action(void *rec)
{
	tlbflush_recorder_stop(rec);
}

struct tlbflush_recorder *tlbflush_recorder_start(struct kunit *test,
						  struct mm_struct *mm)
{
	struct tlbflush_recorder *rec;

	rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	spin_lock_init(&rec->lock);
	rec->mm = mm;
	rec->hook.record = tlbflush_recorder_record;

	KUNIT_ASSERT_EQ(test, arm64_tlbflush_hook_register(&rec->hook), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			tlbflush_recorder_stop_action, rec), 0);
	return rec;
}

const struct arm64_tlbflush_event *
tlbflush_recorder_last(struct kunit *test, struct tlbflush_recorder *rec)
{
	KUNIT_ASSERT_GT_MSG(test, rec->nr_events, 0, "no TLB invalidation");
	KUNIT_ASSERT_LE_MSG(test, rec->nr_events, TLBFLUSH_RECORDER_MAX_EVENTS,
			    "more invalidations than the recorder keeps");
	return &rec->events[rec->nr_events - 1];
}
