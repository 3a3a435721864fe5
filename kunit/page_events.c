// SPDX-License-Identifier: GPL-2.0
/*
 * Page allocation and free recorder shared by the series' page suites; see
 * page_events.h.
 */
#include <linux/mm.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>

#include "page_events.h"

static void page_events_record(struct page_events *ev, struct page_event *log,
			       unsigned int *nr, struct page *page,
			       unsigned int order, gfp_t gfp)
{
	/* Only the case's own task: only it writes the log. */
	if (!READ_ONCE(ev->recording) || current != ev->task || !in_task())
		return;
	if (*nr < PAGE_EVENTS_MAX)
		log[*nr] = (struct page_event){ page_to_pfn(page), order, gfp };
	(*nr)++;
}

static void page_events_free_probe(void *data, struct page *page,
				   unsigned int order)
{
	struct page_events *ev = data;

	page_events_record(ev, ev->frees, &ev->nr_frees, page, order, 0);
}

static void page_events_alloc_probe(void *data, struct page *page,
				    unsigned int order, gfp_t gfp,
				    int migratetype)
{
	struct page_events *ev = data;

	if (page)
		page_events_record(ev, ev->allocs, &ev->nr_allocs, page, order,
				   gfp);
}

void page_events_stop(struct page_events *ev)
{
	WRITE_ONCE(ev->recording, false);
}

void page_events_reset(struct page_events *ev)
{
	ev->nr_allocs = 0;
	ev->nr_frees = 0;
	WRITE_ONCE(ev->recording, true);
}

static void page_events_unregister(void *data)
{
	struct page_events *ev = data;

	unregister_trace_mm_page_free(page_events_free_probe, ev);
	unregister_trace_mm_page_alloc(page_events_alloc_probe, ev);
	/* No probe may still be running when the recorder is freed. */
	tracepoint_synchronize_unregister();
	kvfree(ev);
}

struct page_events *page_events_start(struct kunit *test)
{
	struct page_events *ev = kvzalloc(sizeof(*ev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ev);
	ev->task = current;
	if (register_trace_mm_page_free(page_events_free_probe, ev)) {
		kvfree(ev);
		KUNIT_FAIL_AND_ABORT(test, "cannot probe mm_page_free");
	}
	if (register_trace_mm_page_alloc(page_events_alloc_probe, ev)) {
		unregister_trace_mm_page_free(page_events_free_probe, ev);
		tracepoint_synchronize_unregister();
		kvfree(ev);
		KUNIT_FAIL_AND_ABORT(test, "cannot probe mm_page_alloc");
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			page_events_unregister, ev), 0);
	page_events_reset(ev);
	return ev;
}

unsigned int page_events_frees_of(struct kunit *test,
				  const struct page_events *ev,
				  unsigned long pfn)
{
	unsigned int i, count = 0;

	KUNIT_ASSERT_LE_MSG(test, ev->nr_frees, PAGE_EVENTS_MAX,
			    "more frees than the recorder keeps");
	for (i = 0; i < ev->nr_frees; i++) {
		const struct page_event *e = &ev->frees[i];

		if (pfn >= e->pfn && pfn < e->pfn + (1UL << e->order))
			count++;
	}
	return count;
}

const struct page_event *page_events_alloc_at(const struct page_events *ev,
					      unsigned long pfn)
{
	unsigned int i;

	for (i = 0; i < min(ev->nr_allocs, PAGE_EVENTS_MAX); i++) {
		if (ev->allocs[i].pfn == pfn)
			return &ev->allocs[i];
	}
	return NULL;
}
