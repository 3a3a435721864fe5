/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records, while a KUnit case runs, the blocks its own task takes from and
 * returns to the buddy allocator, through the mm_page_alloc and
 * mm_page_free tracepoints: which pfn, which order, with which gfp. A page
 * freed twice, or one freed that should not be, shows as a count per pfn.
 */
#ifndef _MM_SERIES_KUNIT_PAGE_EVENTS_H
#define _MM_SERIES_KUNIT_PAGE_EVENTS_H

#include <kunit/test.h>
#include <linux/gfp.h>

#define PAGE_EVENTS_MAX		4096

struct page_event {
	unsigned long pfn;
	unsigned int order;
	gfp_t gfp;		/* allocations only */
};

struct page_events {
	struct task_struct *task;
	bool recording;
	unsigned int nr_allocs;		/* may exceed the events kept */
	unsigned int nr_frees;
	struct page_event allocs[PAGE_EVENTS_MAX];
	struct page_event frees[PAGE_EVENTS_MAX];
};

/* Starts recording; stops at the latest when the case ends. */
struct page_events *page_events_start(struct kunit *test);
void page_events_stop(struct page_events *ev);
/* Forgets what was recorded, to record a next step. */
void page_events_reset(struct page_events *ev);

/* How many recorded frees returned @pfn; fails the case on overflow. */
unsigned int page_events_frees_of(struct kunit *test,
				  const struct page_events *ev,
				  unsigned long pfn);
/* The recorded allocation that returned a block starting at @pfn. */
const struct page_event *page_events_alloc_at(const struct page_events *ev,
					      unsigned long pfn);

#endif
