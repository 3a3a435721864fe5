// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for how vmalloc gets and returns its pages.
 *
 * vmalloc_bulk_free: vfree() and free_pages_bulk() drop one reference per
 * page; a page somebody still holds survives with its contents, every other
 * page goes back to the buddy allocator exactly once, in naturally aligned
 * chunks. vmalloc_large_order: vmalloc() takes its pages in naturally
 * aligned blocks, each split into order-0 pages. vmalloc_page_array: where
 * a large area's page-pointer array lives.
 *
 * Pages taken and returned are observed through the mm_page_alloc and
 * mm_page_free tracepoints (page_events.h), only those of the case's task.
 */
#include <kunit/test.h>
#include <kunit/test-bug.h>
#include <linux/alloc_tag.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pgalloc_tag.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>
#include <asm/sections.h>

#include "console_watch.h"
#include "kern_mount_fixture.h"
#include "page_events.h"
#include "vm_area_fixture.h"

/* Which pages of a run a case holds an extra reference to. */
enum hold { HOLD_NONE, HOLD_FIRST, HOLD_LAST, HOLD_MIDDLE, HOLD_EVERY_OTHER,
	    HOLD_ALL, NR_HOLDS };

static const char * const hold_names[] = {
	[HOLD_NONE] = "hold_none",
	[HOLD_FIRST] = "hold_first",
	[HOLD_LAST] = "hold_last",
	[HOLD_MIDDLE] = "hold_middle",
	[HOLD_EVERY_OTHER] = "hold_every_other",
	[HOLD_ALL] = "hold_all",
};

static bool held(enum hold hold, unsigned int i, unsigned int nr)
{
	switch (hold) {
	case HOLD_NONE:
		return false;
	case HOLD_FIRST:
		return i == 0;
	case HOLD_LAST:
		return i == nr - 1;
	case HOLD_MIDDLE:
		return i == nr / 2;
	case HOLD_EVERY_OTHER:
		return i % 2 == 0;
	case HOLD_ALL:
	default:
		return true;
	}
}

static u8 page_pattern(unsigned int i)
{
	return 0x5a ^ (i * 7);
}

/*
 * Each page was released exactly once or, if held, not at all and still
 * has its contents and one reference left. Returns the pages released.
 */
static unsigned int expect_released_once(struct kunit *test,
					 struct page_events *ev,
					 struct page **pages, unsigned int nr,
					 enum hold hold)
{
	unsigned int i, released = 0;

	for (i = 0; i < nr; i++) {
		unsigned int frees = page_events_frees_of(test, ev,
						page_to_pfn(pages[i]));

		if (!held(hold, i, nr)) {
			KUNIT_EXPECT_EQ_MSG(test, frees, 1, "page %u of %u",
					    i, nr);
			released += frees == 1;
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, frees, 0, "held page %u freed", i);
		KUNIT_EXPECT_EQ_MSG(test, page_count(pages[i]), 1,
				    "held page %u", i);
		KUNIT_EXPECT_NULL_MSG(test,
				      memchr_inv(page_address(pages[i]),
						 page_pattern(i), PAGE_SIZE),
				      "held page %u lost its contents", i);
	}
	return released;
}

/* vfree() of n pages while a case holds some of them. */
static const unsigned int vfree_sizes[] = { 1, 3, 16, 100, 256, 1024 };

struct vfree_param {
	unsigned int nr;
	enum hold hold;
};

static struct vfree_param vfree_params[ARRAY_SIZE(vfree_sizes) * NR_HOLDS];

static const void *vfree_gen_params(const void *prev, char *desc)
{
	const struct vfree_param *prev_param = prev;
	size_t i = prev_param ? prev_param - vfree_params + 1 : 0;
	struct vfree_param *p;

	if (i >= ARRAY_SIZE(vfree_params))
		return NULL;
	p = &vfree_params[i];
	p->nr = vfree_sizes[i / NR_HOLDS];
	p->hold = i % NR_HOLDS;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u_pages_%s", p->nr,
		 hold_names[p->hold]);
	return p;
}

static void vfree_refcount_test(struct kunit *test)
{
	const struct vfree_param *p = test->param_value;
	unsigned int i, nr_held = 0, released;
	struct page_events *ev;
	struct vm_struct *area;
	struct page **pages;
	void *addr;

	addr = vmalloc(p->nr * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, addr);
	area = find_vm_area(addr);
	KUNIT_ASSERT_NOT_NULL(test, area);
	KUNIT_ASSERT_EQ(test, area->nr_pages, p->nr);
	pages = kunit_kmalloc_array(test, p->nr, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		vfree(addr);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	memcpy(pages, area->pages, p->nr * sizeof(*pages));

	for (i = 0; i < p->nr; i++) {
		memset(addr + i * PAGE_SIZE, page_pattern(i), PAGE_SIZE);
		if (held(p->hold, i, p->nr)) {
			get_page(pages[i]);
			nr_held++;
		}
	}

	ev = page_events_start(test);
	vfree(addr);
	page_events_stop(ev);
	released = expect_released_once(test, ev, pages, p->nr, p->hold);
	KUNIT_EXPECT_EQ(test, released, p->nr - nr_held);

	/* Dropping the last references frees the rest, once each. */
	page_events_reset(ev);
	for (i = 0; i < p->nr; i++) {
		if (held(p->hold, i, p->nr))
			put_page(pages[i]);
	}
	page_events_stop(ev);
	for (i = 0; i < p->nr; i++) {
		KUNIT_EXPECT_EQ_MSG(test, page_events_frees_of(test, ev,
					page_to_pfn(pages[i])),
				    held(p->hold, i, p->nr) ? 1 : 0,
				    "page %u after the put", i);
	}
	kunit_info(test, "%u pages, %u held: vfree released %u, the puts %u\n",
		   p->nr, nr_held, released, nr_held);
}

/* The chunks free_pages_bulk() must use for the unheld runs of a range. */
struct chunk {
	unsigned long pfn;
	unsigned int order;
};

static unsigned int expected_chunks(unsigned long pfn, unsigned long nr,
				    struct chunk *out)
{
	unsigned int n = 0;

	while (nr) {
		unsigned int order = min_t(unsigned int, ilog2(nr),
					   MAX_PAGE_ORDER);

		if (pfn)
			order = min_t(unsigned int, order, __ffs(pfn));
		out[n++] = (struct chunk){ pfn, order };
		pfn += 1UL << order;
		nr -= 1UL << order;
	}
	return n;
}

/* An order-7 block split to 128 order-0 pages, freed by the case. */
#define BLOCK_ORDER	7
#define BLOCK_PAGES	(1U << BLOCK_ORDER)

struct split_block {
	unsigned long pfn;
	bool freed[BLOCK_PAGES];
};

static void split_block_free(void *data)
{
	struct split_block *b = data;
	unsigned int i;

	for (i = 0; i < BLOCK_PAGES; i++) {
		if (!b->freed[i])
			__free_page(pfn_to_page(b->pfn + i));
	}
}

static struct split_block *split_block_alloc(struct kunit *test)
{
	struct split_block *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct page *page;

	KUNIT_ASSERT_NOT_NULL(test, b);
	page = alloc_pages(GFP_KERNEL, BLOCK_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, page);
	split_page(page, BLOCK_ORDER);
	b->pfn = page_to_pfn(page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			split_block_free, b), 0);
	return b;
}

static void expect_chunks(struct kunit *test, const struct page_events *ev,
			  const struct chunk *want, unsigned int nr_want,
			  const char *what)
{
	unsigned int i;

	KUNIT_ASSERT_EQ_MSG(test, ev->nr_frees, nr_want, "%s", what);
	for (i = 0; i < nr_want; i++) {
		KUNIT_EXPECT_EQ_MSG(test, ev->frees[i].pfn, want[i].pfn,
				    "%s, chunk %u", what, i);
		KUNIT_EXPECT_EQ_MSG(test, ev->frees[i].order, want[i].order,
				    "%s, chunk %u", what, i);
	}
}

/*
 * vfree() returns the pages of an area in runs of consecutive pfns: a run
 * ends where the next page of the area is not the next pfn. The area maps
 * pages of one block out of order and leaves one out (vmap() with
 * VM_MAP_PUT_PAGES hands the pages and the array to vfree()): each page
 * of the area is freed once, and the page left out not at all. The array
 * has one more entry than the area has pages, the page after the last
 * one, so that a run that reads past the area's end grows into it.
 */
static const unsigned int vfree_run_layout[] = { 0, 1, 2, 4, 5, 3, 7 };
#define VFREE_RUN_LEFT_OUT	6
#define VFREE_RUN_PAST_END	8

/*
 * The area of @nr pages of b, page i of the area being page @layout[i] of
 * the block, its array ending with one more entry, page @past_end of the
 * block; vfree() frees the pages and the array.
 */
static void *map_block_pages(struct kunit *test, struct split_block *b,
			     const unsigned int *layout, unsigned int nr,
			     unsigned int past_end)
{
	struct page **pages;
	unsigned int i;
	void *addr;

	pages = kvmalloc_array(nr + 1, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (i = 0; i < nr; i++)
		pages[i] = pfn_to_page(b->pfn + layout[i]);
	pages[nr] = pfn_to_page(b->pfn + past_end);
	addr = vmap(pages, nr, VM_MAP | VM_MAP_PUT_PAGES, PAGE_KERNEL);
	if (!addr)
		kvfree(pages);
	KUNIT_ASSERT_NOT_NULL(test, addr);
	for (i = 0; i < nr; i++)
		b->freed[layout[i]] = true;
	return addr;
}

/* The area of vfree_run_layout over b's pages. */
static void *map_run_layout(struct kunit *test, struct split_block *b)
{
	return map_block_pages(test, b, vfree_run_layout,
			       ARRAY_SIZE(vfree_run_layout),
			       VFREE_RUN_PAST_END);
}

/*
 * Whether vfree() freed page @past_end of the block, past the area: then
 * it is not the cleanup's to free again.
 */
static bool page_past_area_freed(struct kunit *test, struct page_events *ev,
				 struct split_block *b, unsigned int past_end)
{
	if (page_events_frees_of(test, ev, b->pfn + past_end))
		b->freed[past_end] = true;
	return b->freed[past_end];
}

static void vfree_splits_runs_test(struct kunit *test)
{
	const unsigned int nr = ARRAY_SIZE(vfree_run_layout);
	struct split_block *b = split_block_alloc(test);
	struct page_events *ev;
	unsigned int i;
	void *addr;

	addr = map_run_layout(test, b);
	ev = page_events_start(test);
	vfree(addr);
	page_events_stop(ev);

	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, page_events_frees_of(test, ev,
					b->pfn + vfree_run_layout[i]), 1,
				    "page %u of the block, page %u of the area",
				    vfree_run_layout[i], i);
	KUNIT_EXPECT_EQ_MSG(test, page_events_frees_of(test, ev,
				b->pfn + VFREE_RUN_LEFT_OUT), 0,
			    "page %u of the block, not in the area, was freed",
			    VFREE_RUN_LEFT_OUT);
	KUNIT_EXPECT_FALSE_MSG(test, page_past_area_freed(test, ev, b,
							  VFREE_RUN_PAST_END),
			       "page %u of the block, after the area's array end, was freed",
			       VFREE_RUN_PAST_END);
}

/*
 * Each run of the area goes back in the blocks its alignment allows, as
 * free_pages_bulk() would free it: pages 0-2 as an order-1 block and a
 * page, 4-5 as an order-1 block, then 3 and 7 alone (the block is order-7
 * aligned, so the area's pfn offsets are the blocks' alignment).
 */
static void vfree_frees_runs_in_blocks_test(struct kunit *test)
{
	static const struct { unsigned int first, nr; } runs[] = {
		{ 0, 3 }, { 4, 2 }, { 3, 1 }, { 7, 1 },
	};
	struct split_block *b = split_block_alloc(test);
	struct chunk want[ARRAY_SIZE(vfree_run_layout)];
	struct page_events *ev;
	unsigned int i, n = 0;
	void *addr;

	for (i = 0; i < ARRAY_SIZE(runs); i++)
		n += expected_chunks(b->pfn + runs[i].first, runs[i].nr,
				     want + n);
	addr = map_run_layout(test, b);
	ev = page_events_start(test);
	vfree(addr);
	page_events_stop(ev);
	page_past_area_freed(test, ev, b, VFREE_RUN_PAST_END);
	expect_chunks(test, ev, want, n, "vfree() of the area's runs");
}

/*
 * free_pages_bulk() is internal to mm/ and new in the series. On a tree
 * without it, this stand-in is linked instead, and the cases that call it
 * directly skip.
 */
void free_pages_bulk(struct page *page, unsigned long nr_pages);
static bool free_pages_bulk_stand_in_called;

void __weak free_pages_bulk(struct page *page, unsigned long nr_pages)
{
	WRITE_ONCE(free_pages_bulk_stand_in_called, true);
}

static void skip_without_free_pages_bulk(struct kunit *test)
{
	/* Dropping no reference at all is a no-op for the real one. */
	free_pages_bulk(ZERO_PAGE(0), 0);
	if (READ_ONCE(free_pages_bulk_stand_in_called))
		kunit_skip(test, "the tree has no free_pages_bulk()");
}

/* Runs of every length 1..64 starting at several alignments. */
static const unsigned int bulk_offsets[] = { 0, 1, 3, 8, 13, 64 };

static void bulk_offset_desc(const unsigned int *offset, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "pfn_off_%u", *offset);
}

KUNIT_ARRAY_PARAM(bulk_offset, bulk_offsets, bulk_offset_desc);

static void free_pages_bulk_chunks_test(struct kunit *test)
{
	unsigned int offset = *(const unsigned int *)test->param_value;
	struct page_events *ev;
	unsigned int nr, i;
	struct chunk *want;

	skip_without_free_pages_bulk(test);
	want = kunit_kcalloc(test, BLOCK_PAGES, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	ev = page_events_start(test);
	for (nr = 1; nr <= 64; nr++) {
		struct split_block *b = split_block_alloc(test);
		unsigned long start = b->pfn + offset;
		char what[32];

		snprintf(what, sizeof(what), "run of %u", nr);
		page_events_reset(ev);
		free_pages_bulk(pfn_to_page(start), nr);
		page_events_stop(ev);
		for (i = 0; i < nr; i++)
			b->freed[offset + i] = true;
		expect_chunks(test, ev, want, expected_chunks(start, nr, want),
			      what);
	}
}

/*
 * Traced is not freed: free_prepared_run() traces each chunk before it
 * hands it to the allocator's free path, so the chunk cases cannot tell a
 * chunk that never reaches the free lists. Here the pages of a run must be
 * free pages of the buddy allocator once the per-cpu lists are drained: 8
 * pages go to a per-cpu list as one order-3 chunk, 128 pages straight to
 * the buddy free lists as one order-7 chunk (above the orders the per-cpu
 * lists take).
 */
static const unsigned int bulk_free_runs[] = { 8, BLOCK_PAGES };

static void bulk_free_run_desc(const unsigned int *nr, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u_pages", *nr);
}

KUNIT_ARRAY_PARAM(bulk_free_run, bulk_free_runs, bulk_free_run_desc);

static void free_pages_bulk_frees_to_buddy_test(struct kunit *test)
{
	unsigned int nr = *(const unsigned int *)test->param_value;
	struct split_block *b;
	unsigned int i, not_free = 0;

	skip_without_free_pages_bulk(test);
	b = split_block_alloc(test);
	free_pages_bulk(pfn_to_page(b->pfn), nr);
	for (i = 0; i < nr; i++)
		b->freed[i] = true;
	drain_all_pages(NULL);
	for (i = 0; i < nr; i++)
		not_free += !is_free_buddy_page(pfn_to_page(b->pfn + i));
	KUNIT_EXPECT_EQ_MSG(test, not_free, 0U,
			    "%u of the run's %u pages are not free pages of the buddy allocator",
			    not_free, nr);
}

/* A 64-page run with held pages: they split it and survive. */
static const enum hold bulk_holds[] = { HOLD_FIRST, HOLD_LAST, HOLD_MIDDLE,
					HOLD_EVERY_OTHER, HOLD_ALL };

static void bulk_hold_desc(const enum hold *hold, char *desc)
{
	strscpy(desc, hold_names[*hold], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bulk_hold, bulk_holds, bulk_hold_desc);

static void free_pages_bulk_held_test(struct kunit *test)
{
	enum hold hold = *(const enum hold *)test->param_value;
	const unsigned int nr = 64;
	unsigned int nr_want = 0, i, run = 0, released;
	struct split_block *b;
	struct page_events *ev;
	struct page **pages;
	struct chunk *want;

	skip_without_free_pages_bulk(test);
	want = kunit_kcalloc(test, BLOCK_PAGES, sizeof(*want), GFP_KERNEL);
	pages = kunit_kcalloc(test, nr, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	b = split_block_alloc(test);
	for (i = 0; i < nr; i++) {
		pages[i] = pfn_to_page(b->pfn + i);
		memset(page_address(pages[i]), page_pattern(i), PAGE_SIZE);
	}
	/* The unheld runs, each cut in chunks by alignment. */
	for (i = 0; i <= nr; i++) {
		if (i < nr && !held(hold, i, nr))
			continue;
		nr_want += expected_chunks(b->pfn + run, i - run,
					   want + nr_want);
		run = i + 1;
	}
	for (i = 0; i < nr; i++) {
		if (held(hold, i, nr))
			get_page(pages[i]);
	}

	ev = page_events_start(test);
	free_pages_bulk(pages[0], nr);
	page_events_stop(ev);
	for (i = 0; i < nr; i++)
		b->freed[i] = !held(hold, i, nr);
	expect_chunks(test, ev, want, nr_want, hold_names[hold]);
	released = expect_released_once(test, ev, pages, nr, hold);

	page_events_reset(ev);
	for (i = 0; i < nr; i++) {
		if (held(hold, i, nr)) {
			put_page(pages[i]);
			b->freed[i] = true;
		}
	}
	page_events_stop(ev);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ(test, page_events_frees_of(test, ev,
					b->pfn + i), held(hold, i, nr) ? 1 : 0);
	kunit_info(test, "%s: free_pages_bulk released %u of %u\n",
		   hold_names[hold], released, nr);
}

/* The page of a 64-page run that a case poisons. */
#define POISONED_PAGE	21

struct poisoned_page {
	struct split_block *b;
	struct page_events *ev;
};

/*
 * The poisoned page goes back to its block's owner unpoisoned: freed by
 * split_block_free() if free_pages_bulk() took it out of circulation
 * (refcount 0, never freed), otherwise left to the buddy allocator that
 * has it.
 */
static void poisoned_page_restore(void *data)
{
	struct poisoned_page *pp = data;
	unsigned long pfn = pp->b->pfn + POISONED_PAGE;
	struct page *page = pfn_to_page(pfn);

	ClearPageHWPoison(page);
	if (!page_events_frees_of(kunit_get_current_test(), pp->ev, pfn)) {
		set_page_count(page, 1);
		pp->b->freed[POISONED_PAGE] = false;
	}
}

/*
 * A hardware-poisoned page must not go back to the buddy allocator, alone
 * or inside a block: free_pages_prepare() takes it out of circulation only
 * when it prepares it as the order-0 page it is. It splits the run like a
 * held page; every other page is freed once.
 */
static void free_pages_bulk_poisoned_test(struct kunit *test)
{
	const unsigned long bad = POISONED_PAGE;
	const unsigned int nr = 64;
	struct poisoned_page *pp;
	unsigned int i;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		kunit_skip(test, "needs CONFIG_MEMORY_FAILURE");
	skip_without_free_pages_bulk(test);
	pp = kunit_kzalloc(test, sizeof(*pp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pp);
	pp->b = split_block_alloc(test);
	pp->ev = page_events_start(test);
	page_events_stop(pp->ev);
	SetPageHWPoison(pfn_to_page(pp->b->pfn + bad));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			poisoned_page_restore, pp), 0);

	page_events_reset(pp->ev);
	free_pages_bulk(pfn_to_page(pp->b->pfn), nr);
	page_events_stop(pp->ev);
	for (i = 0; i < nr; i++)
		pp->b->freed[i] = true;

	for (i = 0; i < pp->ev->nr_frees && i < PAGE_EVENTS_MAX; i++) {
		const struct page_event *e = &pp->ev->frees[i];

		KUNIT_EXPECT_FALSE_MSG(test, e->pfn <= pp->b->pfn + bad &&
				       pp->b->pfn + bad < e->pfn + (1UL << e->order),
				       "the poisoned page %lu went back in the order-%u block at page %lu",
				       bad, e->order, e->pfn - pp->b->pfn);
	}
	for (i = 0; i < nr; i++) {
		if (i == bad)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, page_events_frees_of(test, pp->ev,
					pp->b->pfn + i), 1, "page %u", i);
	}
	/*
	 * Out of circulation, but its reference dropped like every other
	 * page's: the bulk free puts each page once, as __free_page() would
	 * (the cleanup hands the page back with a count of its own).
	 */
	KUNIT_EXPECT_EQ_MSG(test, page_ref_count(pfn_to_page(pp->b->pfn + bad)),
			    0, "the bulk free kept its reference to the poisoned page %lu",
			    bad);
}

/*
 * Every page is prepared for freeing once, as the order-0 page it was
 * tagged as. Preparing a block again subtracts its first page's allocation
 * tag a second time, which CONFIG_MEM_ALLOC_PROFILING_DEBUG reports with a
 * WARN_ONCE "alloc_tag was not set".
 */
static void free_pages_bulk_prepared_once_test(struct kunit *test)
{
	struct split_block *b;
	unsigned int i;

	if (!IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG))
		kunit_skip(test, "needs CONFIG_MEM_ALLOC_PROFILING_DEBUG");
	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "needs allocation profiling on (vm.mem_profiling)");
	skip_without_free_pages_bulk(test);
	b = split_block_alloc(test);

	/* Rearm the WARN_ONCE as debugfs' clear_warn_once does. */
	memset(__start_once, 0, __end_once - __start_once);
	console_watch_start(test, "alloc_tag was not set", NULL);
	free_pages_bulk(pfn_to_page(b->pfn), BLOCK_PAGES);
	console_watch_stop();
	for (i = 0; i < BLOCK_PAGES; i++)
		b->freed[i] = true;

	KUNIT_EXPECT_STREQ_MSG(test, console_watch_line(), "",
			       "freeing %u tagged pages warned", BLOCK_PAGES);
}

/* A task of a higher priority that wants the case's CPU. */
struct yield_watch {
	struct task_struct *task;
	struct page_events *ev;
	unsigned int frees_seen;	/* when it got the CPU */
	unsigned int allocs_seen;
	bool ran;
};

static int yield_watch_fn(void *data)
{
	struct yield_watch *w = data;

	WRITE_ONCE(w->frees_seen, READ_ONCE(w->ev->nr_frees));
	WRITE_ONCE(w->allocs_seen, READ_ONCE(w->ev->nr_allocs));
	WRITE_ONCE(w->ran, true);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void yield_watch_stop(void *data)
{
	struct yield_watch *w = data;

	kthread_stop(w->task);
	migrate_enable();
}

/*
 * A SCHED_FIFO kthread bound to the case's CPU, which stays on it until
 * the case ends; woken (wake_up_process(w->task)) just before the work
 * that should yield, it gets the CPU at the first cond_resched() and
 * notes how many page events the case had recorded by then.
 */
static struct yield_watch *yield_watch_start(struct kunit *test,
					     struct page_events *ev)
{
	struct yield_watch *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	if (IS_ENABLED(CONFIG_PREEMPTION))
		kunit_skip(test, "needs a kernel without full preemption, where cond_resched() yields");
	KUNIT_ASSERT_NOT_NULL(test, w);
	w->ev = ev;
	migrate_disable();
	w->task = kthread_create(yield_watch_fn, w, "mm_series_yield");
	if (IS_ERR(w->task)) {
		migrate_enable();
		KUNIT_FAIL_AND_ABORT(test, "no kthread: %ld", PTR_ERR(w->task));
	}
	kthread_bind(w->task, raw_smp_processor_id());
	sched_set_fifo(w->task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			yield_watch_stop, w), 0);
	return w;
}

/*
 * Two MAX_PAGE_ORDER blocks; the case frees [first, end) with
 * free_pages_bulk(), the cleanup the rest.
 */
struct two_blocks {
	struct page *page;
	unsigned long first;
	bool freed;
};

static void two_blocks_free(void *data)
{
	struct two_blocks *t = data;
	unsigned long nr = t->freed ? t->first : 2 * MAX_ORDER_NR_PAGES;

	if (nr)
		free_contig_range(page_to_pfn(t->page), nr);
}

/*
 * Where the run starts: at a block boundary, or on the last page of the
 * first block, so that its first MAX_PAGE_ORDER block's worth is that one
 * page (the yield comes at each block boundary, not every so many pages).
 */
struct bulk_yield_run {
	const char *desc;
	unsigned long first;
};

static const struct bulk_yield_run bulk_yield_runs[] = {
	{ "from_a_block_boundary", 0 },
	{ "from_the_last_page_of_a_block", MAX_ORDER_NR_PAGES - 1 },
};
KUNIT_ARRAY_PARAM_DESC(bulk_yield_run, bulk_yield_runs, desc);

/*
 * A run can be many megabytes long: free_pages_bulk() yields the CPU
 * at each MAX_PAGE_ORDER block boundary the run crosses. A SCHED_FIFO
 * task woken on the case's CPU just before a run that spans two such
 * blocks is freed gets the CPU at the first cond_resched(), and sees the
 * first block's part freed: one chunk, a whole block or its last page.
 */
static void free_pages_bulk_yields_test(struct kunit *test)
{
	const struct bulk_yield_run *r = test->param_value;
	unsigned int frees_seen;
	struct yield_watch *w;
	struct two_blocks *t;

	if (IS_ENABLED(CONFIG_PREEMPTION))
		kunit_skip(test, "needs a kernel without full preemption, where cond_resched() yields");
	if (!IS_ENABLED(CONFIG_CONTIG_ALLOC))
		kunit_skip(test, "needs CONFIG_CONTIG_ALLOC for the run of two blocks");
	skip_without_free_pages_bulk(test);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
#ifdef CONFIG_CONTIG_ALLOC
	t->page = alloc_contig_pages(2 * MAX_ORDER_NR_PAGES, GFP_KERNEL,
				     first_online_node, NULL);
#endif
	KUNIT_ASSERT_NOT_NULL_MSG(test, t->page, "no %lu contiguous pages",
				  2UL * MAX_ORDER_NR_PAGES);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			two_blocks_free, t), 0);
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(page_to_pfn(t->page),
					   MAX_ORDER_NR_PAGES));

	t->first = r->first;

	w = yield_watch_start(test, page_events_start(test));
	page_events_reset(w->ev);
	wake_up_process(w->task);
	free_pages_bulk(t->page + t->first,
			2 * MAX_ORDER_NR_PAGES - t->first);
	t->freed = true;
	page_events_stop(w->ev);

	/* Without a yield inside, the woken task gets the CPU here. */
	while (!READ_ONCE(w->ran))
		cond_resched();
	/* The chunks: each block's part, whole or its last page. */
	KUNIT_ASSERT_EQ(test, w->ev->nr_frees, 2);
	frees_seen = READ_ONCE(w->frees_seen);
	KUNIT_EXPECT_EQ_MSG(test, frees_seen, 1,
			    "the woken task got the CPU after %u of 2 chunks were freed",
			    frees_seen);
}

/*
 * A run that ends with the area ends with the area's last page: an area
 * of one order-2 aligned run of four pages goes back as one order-2
 * block, not as a block of the first pages and the last page alone (nor
 * with the next page, which the array's entry past the area holds).
 */
static void vfree_frees_last_run_whole_test(struct kunit *test)
{
	static const unsigned int layout[] = { 0, 1, 2, 3 };
	struct split_block *b = split_block_alloc(test);
	struct chunk want[1];
	struct page_events *ev;
	void *addr;

	KUNIT_ASSERT_EQ(test, expected_chunks(b->pfn, ARRAY_SIZE(layout),
					      want), 1);
	addr = map_block_pages(test, b, layout, ARRAY_SIZE(layout),
			       ARRAY_SIZE(layout));
	ev = page_events_start(test);
	vfree(addr);
	page_events_stop(ev);
	page_past_area_freed(test, ev, b, ARRAY_SIZE(layout));
	expect_chunks(test, ev, want, 1, "vfree() of an area of one run");
}

/*
 * free_unref_page(), through which __free_page() returns an order-0 page,
 * reports the free to the mm_page_free tracepoint, as the frees that do
 * not go through free_pages_bulk() always did.
 */
static void free_unref_page_traced_test(struct kunit *test)
{
	struct page *page = alloc_page(GFP_KERNEL);
	struct page_events *ev;
	unsigned long pfn;

	KUNIT_ASSERT_NOT_NULL(test, page);
	pfn = page_to_pfn(page);
	ev = page_events_start(test);
	__free_page(page);
	page_events_stop(ev);
	KUNIT_EXPECT_EQ_MSG(test, page_events_frees_of(test, ev, pfn), 1,
			    "frees of an order-0 page the tracepoint saw");
}

/*
 * The pages vmalloc() takes count in vmalloc_nr_pages() (VmallocUsed)
 * until vfree() returns them. The counter is global: a free deferred by
 * another task (vfree_atomic()) may land inside the window, so a case
 * takes the first of a few tries whose counts nothing else moved.
 */
static void vmalloc_counts_its_pages_test(struct kunit *test)
{
	const unsigned long nr = 16;
	unsigned long taken = 0, returned = 0;
	unsigned int try;

	for (try = 0; try < 3; try++) {
		unsigned long before = vmalloc_nr_pages(), during;
		void *addr = vmalloc(nr * PAGE_SIZE);

		KUNIT_ASSERT_NOT_NULL(test, addr);
		during = vmalloc_nr_pages();
		vfree(addr);
		taken = during - before;
		returned = during - vmalloc_nr_pages();
		if (taken == nr && returned == nr)
			break;
	}
	KUNIT_EXPECT_EQ_MSG(test, taken, nr,
			    "pages vmalloc() of %lu pages added to vmalloc_nr_pages()",
			    nr);
	KUNIT_EXPECT_EQ_MSG(test, returned, nr,
			    "pages vfree() of %lu pages took off vmalloc_nr_pages()",
			    nr);
}

/* vfree(NULL) does nothing: no "nonexistent vm area" warning. */
static void vfree_null_test(struct kunit *test)
{
	console_watch_start(test, "nonexistent vm area", NULL);
	vfree(NULL);
	console_watch_stop();
	KUNIT_EXPECT_STREQ_MSG(test, console_watch_line(), "",
			       "vfree(NULL) warned");
}

/*
 * Freeing a block takes its pages off the allocation tag of the call that
 * took it: its bytes, and the one call. The tag is the case's own call
 * site, which nothing else uses.
 */
#ifdef CONFIG_MEM_ALLOC_PROFILING
static void free_takes_block_off_its_tag_test(struct kunit *test)
{
	const unsigned int order = 2;
	struct alloc_tag_counters taken, freed;
	struct alloc_tag *tag;
	struct page *page;

	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "needs allocation profiling on (vm.mem_profiling)");
	page = alloc_pages(GFP_KERNEL, order);
	KUNIT_ASSERT_NOT_NULL(test, page);
	tag = pgalloc_tag_get(page);
	if (!tag)
		__free_pages(page, order);
	KUNIT_ASSERT_NOT_NULL_MSG(test, tag, "the block has no allocation tag");
	taken = alloc_tag_read(tag);
	__free_pages(page, order);
	freed = alloc_tag_read(tag);
	KUNIT_EXPECT_EQ_MSG(test, taken.bytes - freed.bytes,
			    (u64)PAGE_SIZE << order,
			    "bytes the free of an order-%u block took off its tag",
			    order);
	KUNIT_EXPECT_EQ_MSG(test, taken.calls - freed.calls, 1ULL,
			    "calls the free of an order-%u block took off its tag",
			    order);
}
#else
static void free_takes_block_off_its_tag_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_MEM_ALLOC_PROFILING");
}
#endif

static int vmalloc_bulk_free_suite_init(struct kunit_suite *suite)
{
	return console_watch_register();
}

static void vmalloc_bulk_free_suite_exit(struct kunit_suite *suite)
{
	console_watch_unregister();
}

static struct kunit_case vmalloc_bulk_free_cases[] = {
	KUNIT_CASE_PARAM(vfree_refcount_test, vfree_gen_params),
	KUNIT_CASE(vfree_splits_runs_test),
	KUNIT_CASE(vfree_frees_runs_in_blocks_test),
	KUNIT_CASE(vfree_frees_last_run_whole_test),
	KUNIT_CASE(vfree_null_test),
	KUNIT_CASE(vmalloc_counts_its_pages_test),
	KUNIT_CASE(free_unref_page_traced_test),
	KUNIT_CASE(free_takes_block_off_its_tag_test),
	KUNIT_CASE_PARAM(free_pages_bulk_chunks_test, bulk_offset_gen_params),
	KUNIT_CASE_PARAM(free_pages_bulk_frees_to_buddy_test,
			 bulk_free_run_gen_params),
	KUNIT_CASE_PARAM(free_pages_bulk_held_test, bulk_hold_gen_params),
	KUNIT_CASE(free_pages_bulk_poisoned_test),
	KUNIT_CASE(free_pages_bulk_prepared_once_test),
	KUNIT_CASE_PARAM(free_pages_bulk_yields_test, bulk_yield_run_gen_params),
	{}
};

static struct kunit_suite vmalloc_bulk_free_suite = {
	.name = "vmalloc_bulk_free",
	.suite_init = vmalloc_bulk_free_suite_init,
	.suite_exit = vmalloc_bulk_free_suite_exit,
	.test_cases = vmalloc_bulk_free_cases,
};

/*
 * vmalloc() of each size takes its pages in blocks of order
 * min(MAX_PAGE_ORDER, ilog2(remaining)), down to order 1, each split to
 * order 0: 10 pages are an order-3 and an order-1 block. Sizes are in
 * pages, so that they mean the same on every page size.
 */
struct large_size {
	const char *desc;
	unsigned long size;
};

static const struct large_size large_sizes[] = {
	{ "10_pages", 10 * PAGE_SIZE },
	{ "16_pages", 16 * PAGE_SIZE },
	{ "256_pages", 256 * PAGE_SIZE },
	{ "1024_pages", 1024 * PAGE_SIZE },
};

KUNIT_ARRAY_PARAM_DESC(large_size, large_sizes, desc);

static struct vm_struct *vmalloc_area(struct kunit *test, unsigned long size,
				      gfp_t gfp)
{
	struct vm_struct *area = kunit_vm_area(test, __vmalloc(size, gfp));

	KUNIT_ASSERT_EQ(test, area->nr_pages, size >> PAGE_SHIFT);
	return area;
}

/* Every page is an independent order-0 page of refcount 1. */
static void expect_order0_pages(struct kunit *test, struct vm_struct *area)
{
	unsigned int i;

	for (i = 0; i < area->nr_pages; i++) {
		struct page *page = area->pages[i];

		KUNIT_ASSERT_EQ_MSG(test, page_count(page), 1, "page %u", i);
		KUNIT_ASSERT_FALSE_MSG(test, PageCompound(page), "page %u", i);
	}
}

/*
 * From the area's first page on: blocks taken whole from the buddy
 * allocator, naturally aligned and in the area in pfn order, each split to
 * order 0, for as long as the order tried is above @floor_order. The order
 * tried first is min(@top_order, ilog2(pages left)); a block the buddy
 * allocator cannot give makes vmalloc try the next order down and keep to
 * it, so a block may be smaller than tried (fragmentation), and the orders
 * after it are no larger. Returns how many blocks it checked; the order of
 * the first in @first_order (-1 if none).
 */
static unsigned int expect_large_blocks(struct kunit *test,
					const struct page_events *ev,
					const struct vm_struct *area,
					unsigned int floor_order,
					unsigned int top_order, int *first_order)
{
	unsigned int i = 0, j, blocks = 0;

	*first_order = -1;
	while (i < area->nr_pages) {
		unsigned int order = min_t(unsigned int, top_order,
					   ilog2(area->nr_pages - i));
		unsigned long pfn = page_to_pfn(area->pages[i]);
		const struct page_event *alloc;

		if (order <= floor_order)
			break;
		alloc = page_events_alloc_at(ev, pfn);
		KUNIT_ASSERT_TRUE_MSG(test, alloc && alloc->order > floor_order &&
				      alloc->order <= order,
				      "page %u not taken whole at order %u (floor %u, got %d)",
				      i, order, floor_order,
				      alloc ? (int)alloc->order : -1);
		/* The fallback: smaller blocks from here on. */
		order = alloc->order;
		top_order = order;
		if (*first_order < 0)
			*first_order = order;
		KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(pfn, 1UL << order),
				      "block at page %u: pfn %#lx, order %u",
				      i, pfn, order);
		for (j = 1; j < (1U << order); j++) {
			KUNIT_ASSERT_EQ_MSG(test,
					    page_to_pfn(area->pages[i + j]),
					    pfn + j, "block at page %u", i);
		}
		blocks++;
		i += 1U << order;
	}
	return blocks;
}

static void large_order_blocks_test(struct kunit *test)
{
	const struct large_size *s = test->param_value;
	struct page_events *ev = page_events_start(test);
	struct vm_struct *area = vmalloc_area(test, s->size, GFP_KERNEL);
	int first_order;

	page_events_stop(ev);
	expect_order0_pages(test, area);
	expect_large_blocks(test, ev, area, 0, MAX_PAGE_ORDER, &first_order);
}

/*
 * The large blocks are only tried: no direct reclaim, no __GFP_NOFAIL (not
 * even when the caller passes it), no __GFP_COMP, no warning.
 */
static void large_order_gfp_test(struct kunit *test)
{
	struct page_events *ev = page_events_start(test);
	unsigned int i, large = 0;

	vmalloc_area(test, 256 * PAGE_SIZE, GFP_KERNEL | __GFP_NOFAIL);
	page_events_stop(ev);
	KUNIT_ASSERT_LE(test, ev->nr_allocs, PAGE_EVENTS_MAX);
	for (i = 0; i < ev->nr_allocs; i++) {
		gfp_t gfp = ev->allocs[i].gfp;

		/* The page array and page tables are not vmalloc's pages. */
		if (ev->allocs[i].order < 4)
			continue;
		large++;
		KUNIT_EXPECT_FALSE(test, gfp & __GFP_DIRECT_RECLAIM);
		KUNIT_EXPECT_FALSE(test, gfp & __GFP_NOFAIL);
		KUNIT_EXPECT_FALSE(test, gfp & __GFP_COMP);
		KUNIT_EXPECT_TRUE(test, gfp & __GFP_NOWARN);
	}
	KUNIT_EXPECT_GT_MSG(test, large, 0, "no large-order allocation");
}

/* __GFP_NOFAIL callers still get every page, order 0, refcount 1. */
static void nofail_test(struct kunit *test)
{
	expect_order0_pages(test, vmalloc_area(test, 256 * PAGE_SIZE,
					       GFP_KERNEL | __GFP_NOFAIL));
}

/*
 * When the buddy allocator cannot give a block, vmalloc tries the next
 * order down, and keeps to it: with every order from @fail_order up made
 * to fail, the area is blocks of order @fail_order - 1 (if above 0), then
 * order-0 pages. The failures are injected at run time through
 * fail_page_alloc's debugfs attributes, for the case's own task only
 * (task-filter, make-it-fail), and only for allocations that may not
 * reclaim, as the large blocks may not (ignore-gfp-wait): order-0 pages,
 * the page array and page tables are left alone.
 */
struct large_fallback {
	const char *desc;
	unsigned int nr_pages;
	unsigned int fail_order;
};

static const struct large_fallback large_fallbacks[] = {
	{ "1024_pages_order_8_up_fail", 1024, 8 },
	{ "64_pages_order_2_up_fail", 64, 2 },
	{ "64_pages_order_1_up_fail", 64, 1 },
};

KUNIT_ARRAY_PARAM_DESC(large_fallback, large_fallbacks, desc);

#if defined(CONFIG_FAIL_PAGE_ALLOC) && defined(CONFIG_FAULT_INJECTION_DEBUG_FS)
struct fail_attr {
	const char *file;
	const char *value;
	char saved[32];
	bool set;
};

/*
 * Probability last: nothing fails before the filter and bounds are set.
 * vmalloc's pages are __GFP_HIGHMEM, which fail_page_alloc ignores by
 * default.
 */
static const char * const fail_attr_files[] = {
	"task-filter", "ignore-gfp-wait", "ignore-gfp-highmem", "verbose",
	"space", "interval", "times", "min-order", "probability",
};

static void fail_attrs_restore(struct kunit *test, struct vfsmount *dbg,
			       struct fail_attr *attrs, unsigned int nr)
{
	char path[64];

	while (nr--) {
		if (!attrs[nr].set)
			continue;
		snprintf(path, sizeof(path), "fail_page_alloc/%s",
			 attrs[nr].file);
		KUNIT_EXPECT_GT_MSG(test, kern_mount_write_user(test, dbg, path,
						attrs[nr].saved), 0,
				    "cannot restore %s to %s", path,
				    attrs[nr].saved);
	}
}

/*
 * __vmalloc(@size) with every allocation of @fail_order or more that may
 * not reclaim failing for this task, and with @reclaiming_too those that
 * may as well. The attributes are saved first and restored before any
 * assertion, so that a failing case leaves fail_page_alloc as it found it.
 */
static void *vmalloc_failing_from(struct kunit *test, unsigned long size,
				  unsigned int fail_order, bool reclaiming_too)
{
	const gfp_t probe_gfp = (reclaiming_too ? GFP_KERNEL | __GFP_NORETRY :
				 GFP_NOWAIT) | __GFP_HIGHMEM | __GFP_NOWARN;
	struct vfsmount *dbg = kunit_kern_mount(test, "debugfs");
	struct fail_attr attrs[ARRAY_SIZE(fail_attr_files)];
	char min_order[16], path[64];
	unsigned int i, nr_set = 0;
	struct page *probe = NULL;
	ssize_t err = 0;
	void *p = NULL;

	snprintf(min_order, sizeof(min_order), "%u", fail_order);
	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		attrs[i].file = fail_attr_files[i];
		attrs[i].set = false;
	}
	attrs[0].value = "Y";		/* task-filter */
	attrs[1].value = reclaiming_too ? "N" : "Y";	/* ignore-gfp-wait */
	attrs[2].value = "N";		/* ignore-gfp-highmem */
	attrs[3].value = "0";		/* verbose */
	attrs[4].value = "0";		/* space */
	attrs[5].value = "1";		/* interval */
	attrs[6].value = "-1";		/* times */
	attrs[7].value = min_order;	/* min-order */
	attrs[8].value = "100";		/* probability */

	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		snprintf(path, sizeof(path), "fail_page_alloc/%s",
			 attrs[i].file);
		err = kern_mount_read_user(test, dbg, path, attrs[i].saved,
					   sizeof(attrs[i].saved));
		if (err <= 0)
			break;
		err = kern_mount_write_user(test, dbg, path, attrs[i].value);
		if (err <= 0)
			break;
		attrs[i].set = true;
		nr_set++;
	}
	if (nr_set == ARRAY_SIZE(attrs)) {
		current->make_it_fail = 1;
		/* A block of @fail_order as vmalloc asks for one must fail. */
		probe = alloc_pages(probe_gfp, fail_order);
		if (!probe)
			p = __vmalloc(size, GFP_KERNEL);
		current->make_it_fail = 0;
	}
	fail_attrs_restore(test, dbg, attrs, nr_set);
	KUNIT_ASSERT_EQ_MSG(test, nr_set, ARRAY_SIZE(attrs),
			    "cannot set fail_page_alloc/%s: %zd",
			    attrs[nr_set].file, err);
	if (probe)
		__free_pages(probe, fail_order);
	KUNIT_ASSERT_NULL_MSG(test, probe,
			      "fail_page_alloc let an order-%u block through",
			      fail_order);
	return p;
}
#else
static void *vmalloc_failing_from(struct kunit *test, unsigned long size,
				  unsigned int fail_order, bool reclaiming_too)
{
	kunit_skip(test, "needs CONFIG_FAIL_PAGE_ALLOC and CONFIG_FAULT_INJECTION_DEBUG_FS (the ptc lane)");
	return NULL;
}
#endif

static void large_order_fallback_test(struct kunit *test)
{
	const struct large_fallback *f = test->param_value;
	unsigned long size = (unsigned long)f->nr_pages << PAGE_SHIFT;
	struct page_events *ev = page_events_start(test);
	struct vm_struct *area;
	unsigned int want;
	int first_order;

	area = kunit_vm_area(test, vmalloc_failing_from(test, size,
							f->fail_order, false));
	page_events_stop(ev);
	KUNIT_ASSERT_EQ(test, area->nr_pages, f->nr_pages);
	expect_order0_pages(test, area);
	/* Every order failing: the area is whole all the same, order 0. */
	want = min_t(unsigned int, f->fail_order - 1, ilog2(f->nr_pages));
	if (!want)
		return;
	expect_large_blocks(test, ev, area, 0, want, &first_order);
	KUNIT_EXPECT_EQ_MSG(test, first_order, (int)want,
			    "orders from %u failed: the first block is not of order %u",
			    f->fail_order, want);
}

/*
 * A memory node the case does not run on, so that memory taken from the
 * local node instead shows; skips where there is none.
 */
static int other_memory_node(struct kunit *test)
{
	int node;

	for_each_node_state(node, N_MEMORY) {
		if (node != numa_node_id())
			return node;
	}
	kunit_skip(test, "needs a second memory node (CONFIG_NUMA and a two-node guest: the numa lane)");
	return NUMA_NO_NODE;
}

/*
 * vmalloc on a given node: its large blocks come from that node too, as
 * its order-0 pages always have. Asks for the node the case does not run
 * on, so that a block taken from the local node shows.
 */
static void large_order_node_test(struct kunit *test)
{
	int nid = numa_node_id(), other = other_memory_node(test), first_order;
	struct page_events *ev = page_events_start(test);
	unsigned long size = 256 * PAGE_SIZE;
	struct vm_struct *area;
	unsigned int i;

	area = kunit_vm_area(test, __vmalloc_node(size, 1, GFP_KERNEL, other,
						  __builtin_return_address(0)));
	page_events_stop(ev);
	KUNIT_ASSERT_EQ(test, area->nr_pages, size >> PAGE_SHIFT);
	for (i = 0; i < area->nr_pages; i++)
		KUNIT_ASSERT_EQ_MSG(test, page_to_nid(area->pages[i]), other,
				    "page %u is not of node %d (the case runs on %d)",
				    i, other, nid);
	expect_order0_pages(test, area);
	expect_large_blocks(test, ev, area, 0, MAX_PAGE_ORDER, &first_order);
}

/*
 * An area too small for a large block takes its order-0 pages through the
 * bulk allocator, from the node asked for, not from the local one.
 */
static void small_area_node_test(struct kunit *test)
{
	int nid = numa_node_id(), other = other_memory_node(test);
	unsigned long size = 3 * PAGE_SIZE;
	struct vm_struct *area;
	unsigned int i;

	area = kunit_vm_area(test, __vmalloc_node(size, 1, GFP_KERNEL, other,
						  __builtin_return_address(0)));
	KUNIT_ASSERT_EQ(test, area->nr_pages, size >> PAGE_SHIFT);
	for (i = 0; i < area->nr_pages; i++)
		KUNIT_EXPECT_EQ_MSG(test, page_to_nid(area->pages[i]), other,
				    "page %u is not of node %d (the case runs on %d)",
				    i, other, nid);
}

/*
 * vmalloc_huge() areas that are mapped in blocks of a higher order (contpte
 * blocks, PMD leaves) take larger blocks first too, down to just above
 * their own order, as upstream's a06157804399 does: on 4K pages an area of
 * 8 contpte blocks (512K) is one order-7 block, one of two PMD leaves (4M)
 * one order-10 block. Eight blocks stay below PMD_SIZE on every granule.
 * Where the area's order is already MAX_PAGE_ORDER (PMD leaves on 16K and
 * 64K pages) there is no larger block to take.
 */
#ifdef CONT_PTE_SIZE
#define HUGE_CONTPTE_AREA	(8 * CONT_PTE_SIZE)
#else
#define HUGE_CONTPTE_AREA	(128 * PAGE_SIZE)
#endif

static const struct large_size huge_sizes[] = {
	{ "8_contpte_blocks", HUGE_CONTPTE_AREA },
	{ "2_pmds", 2 * PMD_SIZE },
};

KUNIT_ARRAY_PARAM_DESC(huge_size, huge_sizes, desc);

static unsigned int area_page_order(const struct vm_struct *area)
{
#ifdef CONFIG_HAVE_ARCH_HUGE_VMALLOC
	return area->page_order;
#else
	return 0;
#endif
}

static void huge_area_blocks_test(struct kunit *test)
{
	const struct large_size *s = test->param_value;
	struct page_events *ev = page_events_start(test);
	struct vm_struct *area = kunit_vm_area(test,
					       vmalloc_huge(s->size, GFP_KERNEL));
	unsigned int area_order = area_page_order(area);
	int first_order;

	page_events_stop(ev);
	if (area_order >= MAX_PAGE_ORDER)
		kunit_skip(test, "needs an area order below MAX_PAGE_ORDER (%u), this area's is %u",
			   MAX_PAGE_ORDER, area_order);
	KUNIT_ASSERT_EQ(test, area->nr_pages, s->size >> PAGE_SHIFT);
	expect_order0_pages(test, area);
	KUNIT_EXPECT_GT_MSG(test, expect_large_blocks(test, ev, area,
						      area_order, MAX_PAGE_ORDER,
						      &first_order), 0U,
			    "no block above the area's order %u", area_order);
}

/*
 * What is left at the area's own order or below is the caller's to
 * allocate, with the caller's gfp (direct reclaim allowed), never a large
 * block tried with the large path's opportunistic one: 7 pages are a block
 * of 4 and one of 2, and the 7th page the caller's; 3 contpte blocks
 * (mapped as such where vmap maps contpte blocks) are a block of 2 and the
 * third the caller's. Base takes everything the caller's way, so this
 * holds on both trees; it pins the bound of the large path's loop.
 */
static const struct large_size remainder_sizes[] = {
	{ "7_pages", 7 * PAGE_SIZE },
#ifdef CONT_PTE_SIZE
	{ "3_contpte_blocks", 3 * CONT_PTE_SIZE },
#else
	{ "3_contpte_blocks", 48 * PAGE_SIZE },
#endif
};

KUNIT_ARRAY_PARAM_DESC(remainder_size, remainder_sizes, desc);

static void large_order_leaves_area_order_test(struct kunit *test)
{
	const struct large_size *s = test->param_value;
	struct page_events *ev = page_events_start(test);
	struct vm_struct *area = kunit_vm_area(test,
					       vmalloc_huge(s->size, GFP_KERNEL));
	unsigned int area_order = area_page_order(area);
	const struct page_event *alloc;
	unsigned int i;

	page_events_stop(ev);
	KUNIT_ASSERT_EQ(test, area->nr_pages, s->size >> PAGE_SHIFT);
	KUNIT_ASSERT_LE(test, ev->nr_allocs, PAGE_EVENTS_MAX);
	kunit_info(test, "%s: %u pages, area order %u\n", s->desc,
		   area->nr_pages, area_order);
	for (i = 0; i < area->nr_pages; i++) {
		alloc = page_events_alloc_at(ev, page_to_pfn(area->pages[i]));
		if (!alloc || alloc->order > area_order)
			continue;
		KUNIT_EXPECT_TRUE_MSG(test, alloc->gfp & __GFP_DIRECT_RECLAIM,
				      "page %u: a block of order %u, the area's order %u or below, taken with the large blocks' gfp %pGg",
				      i, alloc->order, area_order, &alloc->gfp);
	}
}

/*
 * What is left at the area's own order the caller's path allocates at that
 * order: of an area of 3 contpte blocks, the last block is one allocation
 * of the area's order, naturally aligned and split into independent
 * order-0 pages, on the node asked for. Had that path given up, vmalloc
 * would have fallen back to an area of order 0; had it taken order-0
 * pages, the block would not be one allocation. The base tree maps no
 * vmalloc area in contpte blocks, so its area is of order 0.
 */
struct remainder_node {
	const char *desc;
	bool other;		/* the node the case does not run on */
};

static const struct remainder_node remainder_nodes[] = {
	{ "any_node", false },
	{ "other_node", true },
};

KUNIT_ARRAY_PARAM_DESC(remainder_node, remainder_nodes, desc);

static void huge_area_remainder_at_area_order_test(struct kunit *test)
{
	const struct remainder_node *n = test->param_value;
	const unsigned int want = CONT_PTE_SHIFT - PAGE_SHIFT;
	int nid = n->other ? other_memory_node(test) : NUMA_NO_NODE;
	struct page_events *ev = page_events_start(test);
	const struct page_event *alloc;
	struct vm_struct *area;
	unsigned int last, i;
	unsigned long pfn;

	area = kunit_vm_area(test, __vmalloc_node_range(3 * CONT_PTE_SIZE, 1,
				VMALLOC_START, VMALLOC_END, GFP_KERNEL,
				PAGE_KERNEL, VM_ALLOW_HUGE_VMAP, nid,
				__builtin_return_address(0)));
	page_events_stop(ev);
	KUNIT_ASSERT_EQ(test, area->nr_pages, 3U << want);
	KUNIT_ASSERT_EQ_MSG(test, area_page_order(area), want,
			    "the area is not mapped in contpte blocks");
	expect_order0_pages(test, area);
	for (i = 0; nid != NUMA_NO_NODE && i < area->nr_pages; i++)
		KUNIT_ASSERT_EQ_MSG(test, page_to_nid(area->pages[i]), nid,
				    "page %u is not of node %d", i, nid);

	last = area->nr_pages - (1U << want);
	pfn = page_to_pfn(area->pages[last]);
	alloc = page_events_alloc_at(ev, pfn);
	KUNIT_ASSERT_NOT_NULL_MSG(test, alloc,
				  "page %u was not allocated as a block's first",
				  last);
	KUNIT_EXPECT_EQ(test, alloc->order, want);
	KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(pfn, 1UL << want),
			      "block at page %u: pfn %#lx", last, pfn);
	for (i = 1; i < (1U << want); i++)
		KUNIT_EXPECT_EQ_MSG(test, page_to_pfn(area->pages[last + i]),
				    pfn + i, "page %u", last + i);
}

/* Whether @pfn is one of the area's pages. */
static bool area_has_pfn(const struct vm_struct *area, unsigned long pfn)
{
	unsigned int i;

	for (i = 0; i < area->nr_pages; i++)
		if (page_to_pfn(area->pages[i]) == pfn)
			return true;
	return false;
}

/*
 * The large blocks of one area can add up to many megabytes:
 * vm_area_alloc_pages_large() yields after each. A SCHED_FIFO task woken
 * on the case's CPU just before vmalloc() of two MAX_PAGE_ORDER blocks'
 * worth of pages gets the CPU at the first cond_resched(), so it sees at
 * most one block of the area taken (whatever its order, should the buddy
 * allocator have no MAX_PAGE_ORDER block to give). It may see none: a
 * page array that comes from vmalloc() (before "allocate the page array
 * from the slab first") is allocated with a yield of its own, first.
 */
static void large_order_yields_test(struct kunit *test)
{
	unsigned long nr_pages = 2 * MAX_ORDER_NR_PAGES;
	unsigned int i, seen, blocks = 0;
	struct yield_watch *w;
	struct vm_struct *area;

	w = yield_watch_start(test, page_events_start(test));
	page_events_reset(w->ev);
	wake_up_process(w->task);
	area = vmalloc_area(test, nr_pages * PAGE_SIZE, GFP_KERNEL);
	page_events_stop(w->ev);

	while (!READ_ONCE(w->ran))
		cond_resched();
	KUNIT_ASSERT_LE(test, w->ev->nr_allocs, PAGE_EVENTS_MAX);
	for (i = 0; i < w->ev->nr_allocs; i++)
		if (w->ev->allocs[i].order &&
		    area_has_pfn(area, w->ev->allocs[i].pfn))
			blocks++;
	KUNIT_ASSERT_GT_MSG(test, blocks, 1U,
			    "the area's pages were not taken in large blocks");
	seen = 0;
	for (i = 0; i < READ_ONCE(w->allocs_seen); i++)
		if (w->ev->allocs[i].order &&
		    area_has_pfn(area, w->ev->allocs[i].pfn))
			seen++;
	KUNIT_EXPECT_LE_MSG(test, seen, 1U,
			    "the woken task got the CPU after %u of the area's %u large blocks were taken",
			    seen, blocks);
}

static struct kunit_case vmalloc_large_order_cases[] = {
	KUNIT_CASE_PARAM(large_order_blocks_test, large_size_gen_params),
	KUNIT_CASE_PARAM(huge_area_blocks_test, huge_size_gen_params),
	KUNIT_CASE_PARAM(large_order_leaves_area_order_test,
			 remainder_size_gen_params),
	KUNIT_CASE_PARAM(huge_area_remainder_at_area_order_test,
			 remainder_node_gen_params),
	KUNIT_CASE(large_order_yields_test),
	KUNIT_CASE(large_order_gfp_test),
	KUNIT_CASE(nofail_test),
	KUNIT_CASE_PARAM(large_order_fallback_test, large_fallback_gen_params),
	KUNIT_CASE(large_order_node_test),
	KUNIT_CASE(small_area_node_test),
	{}
};

static struct kunit_suite vmalloc_large_order_suite = {
	.name = "vmalloc_large_order",
	.test_cases = vmalloc_large_order_cases,
};

/*
 * One entry more than a page holds: 6.12 takes a page array larger than a
 * page from vmalloc() itself; it need not be a vmalloc area. On 4K pages
 * that is an area of 513 pages, on 64K pages one of 8193.
 */
#define PAGE_ARRAY_PAGES	(PAGE_SIZE / sizeof(struct page *) + 1)

static void page_array_not_vmalloc_test(struct kunit *test)
{
	struct vm_struct *area = vmalloc_area(test,
					      PAGE_ARRAY_PAGES * PAGE_SIZE,
					      GFP_KERNEL);

	KUNIT_EXPECT_FALSE(test, is_vmalloc_addr(area->pages));
}

/* Either way, exactly 1024 pages, each mapped where the array says. */
static void page_array_maps_every_page_test(struct kunit *test)
{
	struct vm_struct *area = vmalloc_area(test, 1024 * PAGE_SIZE, GFP_KERNEL);
	unsigned int i;

	KUNIT_EXPECT_EQ(test, area->nr_pages, 1024);
	for (i = 0; i < area->nr_pages; i++)
		KUNIT_ASSERT_PTR_EQ_MSG(test,
				vmalloc_to_page(area->addr + i * PAGE_SIZE),
				area->pages[i], "page %u", i);
}

/*
 * An area asked for on a node has its page array on that node too, as its
 * pages are: a small array (from the slab) and one of more than a page of
 * pointers.
 */
struct page_array_size {
	const char *desc;
	unsigned long nr_pages;
};

static const struct page_array_size page_array_sizes[] = {
	{ "64_pages", 64 },
	{ "more_than_a_page_of_pointers", PAGE_ARRAY_PAGES },
};

KUNIT_ARRAY_PARAM_DESC(page_array_size, page_array_sizes, desc);

static void page_array_node_test(struct kunit *test)
{
	const struct page_array_size *a = test->param_value;
	int nid = numa_node_id(), other = other_memory_node(test);
	const void *array;
	struct vm_struct *area;

	area = kunit_vm_area(test, __vmalloc_node(a->nr_pages * PAGE_SIZE, 1,
						  GFP_KERNEL, other,
						  __builtin_return_address(0)));
	array = area->pages;
	KUNIT_EXPECT_EQ_MSG(test,
			    page_to_nid(is_vmalloc_addr(array) ?
					vmalloc_to_page(array) :
					virt_to_page(array)), other,
			    "the page array is not on node %d (the case runs on %d)",
			    other, nid);
}

/*
 * A page array the slab cannot give comes from vmalloc, attributed like
 * the area to the area's caller, so that /proc/vmallocinfo names who asked
 * for it rather than vmalloc's own internals. An array of four pages is
 * beyond kmalloc's caches, an order-2 allocation of the page allocator: it
 * is made to fail by injection, with every allocation of this task of
 * order 2 or more (the area's own large blocks fall back below that).
 */
#define CALLER_ARRAY_PAGES	(4 * PAGE_SIZE / sizeof(struct page *))

static void page_array_caller_test(struct kunit *test)
{
	unsigned long size = CALLER_ARRAY_PAGES << PAGE_SHIFT;
	struct vm_struct *area, *array_area;

	if (size > SZ_256M)
		kunit_skip(test, "needs an area of at most 256M to have a 4-page array; this granule's is %luM",
			   size >> 20);
	area = kunit_vm_area(test, vmalloc_failing_from(test, size, 2, true));
	KUNIT_ASSERT_TRUE_MSG(test, is_vmalloc_addr(area->pages),
			      "the page array came from the slab all the same");
	array_area = find_vm_area(area->pages);
	KUNIT_ASSERT_NOT_NULL(test, array_area);
	KUNIT_EXPECT_PTR_EQ_MSG(test, array_area->caller, area->caller,
				"the page array is attributed to %pS, the area to %pS",
				array_area->caller, area->caller);
}

/*
 * The slab attempt for an array of more than a page is opportunistic, as
 * kvmalloc()'s is: no warning, no retrying hard unless the caller allows
 * failure (__GFP_RETRY_MAYFAIL), never __GFP_NOFAIL, since vmalloc is
 * there to fall back to. Its gfp is read off the kmalloc tracepoint, for
 * the allocation of the array's size made by this task.
 */
struct page_array_gfp {
	const char *desc;
	gfp_t caller;
	gfp_t set;
	gfp_t clear;
};

static const struct page_array_gfp page_array_gfps[] = {
	{ "gfp_kernel", GFP_KERNEL, __GFP_NOWARN | __GFP_NORETRY,
	  __GFP_NOFAIL },
	{ "retry_mayfail", GFP_KERNEL | __GFP_RETRY_MAYFAIL,
	  __GFP_NOWARN | __GFP_RETRY_MAYFAIL, __GFP_NORETRY | __GFP_NOFAIL },
	{ "nofail", GFP_KERNEL | __GFP_NOFAIL, __GFP_NOWARN | __GFP_NORETRY,
	  __GFP_NOFAIL },
};

KUNIT_ARRAY_PARAM_DESC(page_array_gfp, page_array_gfps, desc);

struct slab_request {
	struct task_struct *task;
	size_t size;
	unsigned int seen;
	gfp_t gfp;
};

static void slab_request_probe(void *data, unsigned long call_site,
			       const void *ptr, size_t bytes_req,
			       size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	struct slab_request *r = data;

	if (current != r->task || bytes_req != r->size)
		return;
	r->seen++;
	r->gfp = gfp_flags;
}

static void slab_request_unregister(void *data)
{
	unregister_trace_kmalloc(slab_request_probe, data);
	tracepoint_synchronize_unregister();
}

static void page_array_slab_gfp_test(struct kunit *test)
{
	const struct page_array_gfp *g = test->param_value;
	struct slab_request *r;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->task = current;
	r->size = PAGE_ARRAY_PAGES * sizeof(struct page *);
	KUNIT_ASSERT_EQ(test, register_trace_kmalloc(slab_request_probe, r), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
				slab_request_unregister, r), 0);
	vmalloc_area(test, PAGE_ARRAY_PAGES * PAGE_SIZE, g->caller);
	kunit_release_action(test, slab_request_unregister, r);

	KUNIT_ASSERT_EQ_MSG(test, r->seen, 1,
			    "the page array of %zu bytes was asked of the slab %u times",
			    r->size, r->seen);
	KUNIT_EXPECT_EQ_MSG(test, r->gfp & g->set, g->set,
			    "gfp %pGg lacks %pGg", &r->gfp, &g->set);
	KUNIT_EXPECT_EQ_MSG(test, r->gfp & g->clear, 0,
			    "gfp %pGg has one of %pGg", &r->gfp, &g->clear);
}

static struct kunit_case vmalloc_page_array_cases[] = {
	KUNIT_CASE(page_array_not_vmalloc_test),
	KUNIT_CASE_PARAM(page_array_slab_gfp_test, page_array_gfp_gen_params),
	KUNIT_CASE(page_array_caller_test),
	KUNIT_CASE(page_array_maps_every_page_test),
	KUNIT_CASE_PARAM(page_array_node_test, page_array_size_gen_params),
	{}
};

static struct kunit_suite vmalloc_page_array_suite = {
	.name = "vmalloc_page_array",
	.test_cases = vmalloc_page_array_cases,
};

kunit_test_suites(&vmalloc_bulk_free_suite, &vmalloc_large_order_suite,
		  &vmalloc_page_array_suite);

MODULE_DESCRIPTION("KUnit tests for how vmalloc gets and returns its pages");
MODULE_LICENSE("GPL");
