// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for gigantic folios (orders above MAX_PAGE_ORDER), which
 * hugetlb takes from the contiguous allocator as compound __GFP_COMP
 * allocations: folio_alloc_gigantic() at the orders of the contiguous-PMD
 * block (32M on 4K pages, 1G on 16K, 16G on 64K) and of the PUD block (1G,
 * 4K pages only), what it refuses, how folio_put() returns them, and a
 * grow and shrink of the contiguous-PMD hugetlb pool through its sysfs
 * control.
 *
 * Pages returned to the buddy allocator are observed through the
 * mm_page_free tracepoint (page_events.h). Cases that WARN on purpose are
 * listed in kunit/warnings.tsv.
 */
#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/hugetlb.h>
#include <linux/migrate_mode.h>
#include <linux/mount.h>
#include <linux/page_ext.h>
#include <linux/page_owner.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/stackdepot.h>

#include "console_watch.h"
#include "hugetlb_fixture.h"
#include "kern_mount_fixture.h"
#include "page_events.h"
#include "page_ext_fixture.h"

struct gigantic_order {
	const char *desc;
	unsigned int order;
};

static const struct gigantic_order gigantic_orders[] = {
	{ "contpmd", CONT_PMD_SHIFT - PAGE_SHIFT },
	{ "pud", PUD_SHIFT - PAGE_SHIFT },
};

KUNIT_ARRAY_PARAM_DESC(gigantic_order, gigantic_orders, desc);

/* Pages of [pfn, pfn + nr) the recorded frees returned, each exactly once. */
static void expect_returned_once(struct kunit *test,
				 const struct page_events *ev,
				 unsigned long pfn, unsigned long nr)
{
	unsigned long returned = 0;
	unsigned int i;

	KUNIT_ASSERT_LE(test, ev->nr_frees, PAGE_EVENTS_MAX);
	for (i = 0; i < ev->nr_frees; i++) {
		const struct page_event *e = &ev->frees[i];
		unsigned long end = e->pfn + (1UL << e->order);

		if (end <= pfn || e->pfn >= pfn + nr)
			continue;
		KUNIT_EXPECT_TRUE_MSG(test, e->pfn >= pfn && end <= pfn + nr,
				      "free of %#lx order %u overlaps the folio",
				      e->pfn, e->order);
		returned += 1UL << e->order;
	}
	KUNIT_EXPECT_EQ(test, returned, nr);
}

static void folio_alloc_gigantic_test(struct kunit *test)
{
	const struct gigantic_order *o = test->param_value;
	unsigned long nr = 1UL << o->order, pfn, i;
	struct page_events *ev;
	struct folio *folio;

	hugetlb_test_need_size(test, o->desc, PAGE_SIZE << o->order);
	folio = folio_alloc_gigantic(o->order, GFP_KERNEL | __GFP_COMP |
				     __GFP_NOWARN, numa_node_id(), NULL);
	KUNIT_ASSERT_NOT_NULL_MSG(test, folio, "no free %s range", o->desc);
	pfn = folio_pfn(folio);

	KUNIT_EXPECT_TRUE(test, folio_test_large(folio));
	KUNIT_EXPECT_EQ(test, folio_order(folio), o->order);
	KUNIT_EXPECT_EQ(test, folio_ref_count(folio), 1);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(pfn, nr));
	for (i = 1; i < nr; i++) {
		struct page *page = pfn_to_page(pfn + i);

		if (compound_head(page) != &folio->page) {
			KUNIT_FAIL(test, "tail %lu does not point at the head",
				   i);
			break;
		}
	}

	ev = page_events_start(test);
	folio_put(folio);
	page_events_stop(ev);
	expect_returned_once(test, ev, pfn, nr);
}

/* Order 0 and allocations without __GFP_COMP are refused with a WARN. */
struct refused_case {
	const char *desc;
	unsigned int order;
	gfp_t gfp;
};

static const struct refused_case refused_cases[] = {
	{ "order_0", 0, GFP_KERNEL | __GFP_COMP },
	{ "contpmd_without_GFP_COMP", CONT_PMD_SHIFT - PAGE_SHIFT, GFP_KERNEL },
};

KUNIT_ARRAY_PARAM_DESC(refused, refused_cases, desc);

static void folio_alloc_gigantic_refuses_test(struct kunit *test)
{
	const struct refused_case *c = test->param_value;
	struct folio *folio;

	warn_watch_start(test, " at include/linux/gfp.h:",
			 "folio_alloc_gigantic");
	folio = folio_alloc_gigantic(c->order, c->gfp, numa_node_id(), NULL);
	console_watch_stop();
	KUNIT_EXPECT_STRNEQ_MSG(test, console_watch_line(), "",
				"folio_alloc_gigantic() did not warn");
	KUNIT_EXPECT_NULL(test, folio);
	if (folio)
		folio_put(folio);
}

/*
 * The contiguous-PMD pool (gigantic on every granule) grown by up to two
 * folios and shrunk back through
 * /sys/kernel/mm/hugepages/hugepages-<size>kB/nr_hugepages, the kernel's
 * own resize path: the shrink returns exactly the folios it grew by, each
 * whole. Growing needs free aligned ranges of the size (1G on 16K pages)
 * that the contiguous allocator can empty; a 12G guest of 16K pages has
 * one such range after the other suites, so the case takes what it gets
 * and skips only if memory gives none. (Shrinking the pages
 * the boot reserved instead is no way round it: memblock pages carry no
 * allocation tag, and freeing them warns under
 * CONFIG_MEM_ALLOC_PROFILING_DEBUG.)
 */
static int write_nr_hugepages(struct vfsmount *mnt, unsigned long nr)
{
	char buf[24], control[64];
	ssize_t ret;
	int len;

	snprintf(control, sizeof(control),
		 "kernel/mm/hugepages/hugepages-%lukB/nr_hugepages",
		 CONT_PMD_SIZE >> 10);
	len = snprintf(buf, sizeof(buf), "%lu\n", nr);
	ret = kern_mount_write(mnt, control, buf);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -EIO;
}

static void hugetlb_pool_resize_test(struct kunit *test)
{
	unsigned long before, grown, returned = 0;
	unsigned long nr = CONT_PMD_SIZE >> PAGE_SHIFT;
	struct page_events *ev;
	struct vfsmount *mnt;
	struct hstate *h;
	unsigned int i;

	hugetlb_test_need_size(test, "contpmd", CONT_PMD_SIZE);
	h = size_to_hstate(CONT_PMD_SIZE);
	mnt = kunit_kern_mount(test, "sysfs");

	before = h->nr_huge_pages;
	/* A pool that cannot grow as far as asked stops short, no error. */
	KUNIT_ASSERT_EQ(test, write_nr_hugepages(mnt, before + 2), 0);
	grown = h->nr_huge_pages - before;
	KUNIT_ASSERT_LE(test, grown, 2);
	if (!grown)
		kunit_skip(test, "needs a free aligned %luK range to grow the pool into; memory has none",
			   CONT_PMD_SIZE >> 10);

	ev = page_events_start(test);
	KUNIT_EXPECT_EQ(test, write_nr_hugepages(mnt, before), 0);
	page_events_stop(ev);
	KUNIT_EXPECT_EQ(test, h->nr_huge_pages, before);

	/*
	 * The folios grown, returned whole, once each. Only frees of the
	 * pool's order count: what the sysfs write itself frees (its buffer,
	 * restored vmemmap) is not the pool's.
	 */
	KUNIT_ASSERT_LE(test, ev->nr_frees, PAGE_EVENTS_MAX);
	for (i = 0; i < ev->nr_frees; i++) {
		if (ev->frees[i].order != huge_page_order(h))
			continue;
		expect_returned_once(test, ev, ev->frees[i].pfn, nr);
		returned++;
	}
	KUNIT_EXPECT_EQ(test, returned, grown);
}

static struct kunit_case gigantic_folio_cases[] = {
	KUNIT_CASE_PARAM(folio_alloc_gigantic_test, gigantic_order_gen_params),
	KUNIT_CASE_PARAM(folio_alloc_gigantic_refuses_test,
			 refused_gen_params),
	KUNIT_CASE(hugetlb_pool_resize_test),
	{}
};

static int gigantic_folio_suite_init(struct kunit_suite *suite)
{
	return console_watch_register();
}

static void gigantic_folio_suite_exit(struct kunit_suite *suite)
{
	console_watch_unregister();
}

static struct kunit_suite gigantic_folio_suite = {
	.name = "gigantic_folio",
	.suite_init = gigantic_folio_suite_init,
	.suite_exit = gigantic_folio_suite_exit,
	.test_cases = gigantic_folio_cases,
};
/*
 * gigantic_page_owner: page_owner records the allocation and the free of
 * a folio in the page_ext record of each of its pages, also past the
 * first memory section (a 1G folio on 4K pages spans eight; the case
 * takes the smallest gigantic size that spans several). The case finds a
 * free range, moves its records away from where the boot put them, and
 * takes the range as one gigantic folio and frees it: a walk that steps
 * into the next section by pointer arithmetic misses the moved records. Only where page_owner is booted on: with it, 6.12's own walk
 * (before 0005-0007) writes past a section's array into whatever memory
 * follows, so no tree without the fix boots this way (the owner lane is
 * patched only; the mutants of each walk show the case failing).
 */
#ifdef CONFIG_PAGE_OWNER
/* The record mm/page_owner.c keeps in the page_ext of each page. */
struct page_owner_record {
	unsigned short order;
	short last_migrate_reason;
	gfp_t gfp_mask;
	depot_stack_handle_t handle;
	depot_stack_handle_t free_handle;
	u64 ts_nsec;
	u64 free_ts_nsec;
	char comm[TASK_COMM_LEN];
	pid_t pid;
	pid_t tgid;
	pid_t free_pid;
	pid_t free_tgid;
};

static struct page_owner_record *owner_record(struct page_ext *page_ext)
{
	return page_ext_data(page_ext, &page_owner_ops);
}

/* What no writer of a page_owner record leaves in it. */
#define OWNER_POISON_ID		(-2)
#define OWNER_POISON_TS		U64_MAX

/*
 * Overwrites the allocation (@freed false) or the free fields of the
 * records of [pfn, pfn + nr) with values no writer leaves, so that a
 * field the next writer skips shows. The case holds the pages.
 */
static void poison_owner_records(struct kunit *test, unsigned long pfn,
				 unsigned long nr, bool freed)
{
	unsigned long i;

	for (i = 0; i < nr; i++) {
		struct page_ext *page_ext = page_ext_get(pfn_to_page(pfn + i));
		struct page_owner_record *r;

		KUNIT_ASSERT_NOT_NULL(test, page_ext);
		r = owner_record(page_ext);
		if (freed) {
			r->free_handle = 0;
			r->free_ts_nsec = OWNER_POISON_TS;
			r->free_pid = OWNER_POISON_ID;
			r->free_tgid = OWNER_POISON_ID;
		} else {
			r->handle = 0;
			r->order = U16_MAX;
			r->gfp_mask = 0;
			r->last_migrate_reason = OWNER_POISON_ID;
			r->ts_nsec = OWNER_POISON_TS;
			r->pid = OWNER_POISON_ID;
			r->tgid = OWNER_POISON_ID;
			strscpy(r->comm, "poison", sizeof(r->comm));
		}
		page_ext_put(page_ext);
	}
}

static void need_page_owner(struct kunit *test)
{
	if (!static_branch_unlikely(&page_owner_inited))
		kunit_skip(test, "needs page_owner on (page_owner=on)");
}

/*
 * A copy of a page's page_owner record, and of its page_ext flags (the
 * PAGE_EXT_OWNER bits) where @flags is not NULL.
 */
static struct page_owner_record owner_record_of(struct kunit *test,
						struct page *page,
						unsigned long *flags)
{
	struct page_ext *page_ext = page_ext_get(page);
	struct page_owner_record r;

	KUNIT_ASSERT_NOT_NULL(test, page_ext);
	r = *owner_record(page_ext);
	if (flags)
		*flags = READ_ONCE(page_ext->flags);
	page_ext_put(page_ext);
	return r;
}

/*
 * Whether @r is the record of the free (@freed) or of the allocation that
 * @want describes: made by the case's task, with @want's stack and time
 * stamp, and of an allocation also @want's order and gfp mask, never
 * migrated.
 */
static bool owner_record_is(const struct page_owner_record *r,
			    const struct page_owner_record *want, bool freed)
{
	if (freed)
		return r->free_handle == want->free_handle &&
		       r->free_ts_nsec == want->free_ts_nsec &&
		       r->free_pid == current->pid &&
		       r->free_tgid == current->tgid;
	return r->handle == want->handle && r->ts_nsec == want->ts_nsec &&
	       r->order == want->order && r->gfp_mask == want->gfp_mask &&
	       r->last_migrate_reason == -1 && r->pid == current->pid &&
	       r->tgid == current->tgid && !strcmp(r->comm, current->comm);
}

/*
 * Every page of [pfn, pfn + nr) has page 0's record of the allocation
 * (@freed false), of @order and @gfp, or of the free, by the case's
 * task (owner_record_is()), section by section; returns page 0's time
 * stamp. The case poisons the fields first (poison_owner_records()).
 */
static u64 expect_owner_records(struct kunit *test, unsigned long pfn,
				unsigned long nr, unsigned int order, gfp_t gfp,
				bool freed)
{
	struct page_owner_record want = { .order = order, .gfp_mask = gfp };
	unsigned long i, bad = 0, first_bad = 0;

	for (i = 0; i < nr; i++) {
		unsigned long flags;
		struct page_owner_record r = owner_record_of(test,
						pfn_to_page(pfn + i), &flags);
		bool allocated = test_bit(PAGE_EXT_OWNER_ALLOCATED, &flags);
		bool same;

		if (!i) {
			want.handle = r.handle;
			want.free_handle = r.free_handle;
			want.ts_nsec = r.ts_nsec;
			want.free_ts_nsec = r.free_ts_nsec;
			KUNIT_EXPECT_NE_MSG(test, freed ? want.free_handle :
					    want.handle, 0,
					    "page 0 has no stack of the %s",
					    freed ? "free" : "allocation");
			KUNIT_EXPECT_NE_MSG(test, freed ? want.free_ts_nsec :
					    want.ts_nsec, OWNER_POISON_TS,
					    "page 0 has no time stamp of the %s",
					    freed ? "free" : "allocation");
		}
		same = owner_record_is(&r, &want, freed);
		if (!same || allocated == freed) {
			if (!bad++)
				first_bad = i;
		}
		if ((i + 1) % PAGES_PER_SECTION && i + 1 < nr)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, bad, 0,
				    "section %lu of the folio: %lu pages without the %s's record, the first is page %lu",
				    i / PAGES_PER_SECTION, bad,
				    freed ? "free" : "allocation", first_bad);
		bad = 0;
	}
	return freed ? want.free_ts_nsec : want.ts_nsec;
}

/*
 * The page after the folio does not have the folio's record of the
 * allocation or of the free (time stamp @ts): a walk of more records
 * than the folio's pages would write it.
 */
static void expect_record_after_untouched(struct kunit *test,
					  unsigned long pfn, u64 ts,
					  bool freed)
{
	struct page_owner_record r;

	KUNIT_ASSERT_TRUE_MSG(test, pfn_valid(pfn),
			      "the case needs memory after the folio");
	r = owner_record_of(test, pfn_to_page(pfn), NULL);
	KUNIT_EXPECT_NE_MSG(test, freed ? r.free_ts_nsec : r.ts_nsec, ts,
			    "the page after the folio has the folio's record of the %s",
			    freed ? "free" : "allocation");
}

/* The smallest gigantic order that spans several memory sections. */
static const struct gigantic_order *owner_order(void)
{
	const struct gigantic_order *contpmd = &gigantic_orders[0];

	if ((1UL << contpmd->order) > PAGES_PER_SECTION)
		return contpmd;
	return &gigantic_orders[1];
}

static void page_owner_records_test(struct kunit *test)
{
	const struct gigantic_order *o = owner_order();
	unsigned long nr = 1UL << o->order, pfn;
	gfp_t gfp = GFP_KERNEL | __GFP_COMP | __GFP_NOWARN;
	struct folio *folio;
	struct page *page;
	u64 ts;
	int err;

	need_page_owner(test);
	hugetlb_test_need_size(test, o->desc, PAGE_SIZE << o->order);
	kunit_info(test, "%s: %luM, %lu memory sections\n", o->desc,
		   (PAGE_SIZE << o->order) >> 20, nr / PAGES_PER_SECTION);
	/*
	 * Find a free range without a gigantic allocation: taken as order-0
	 * pages, whose records are written one MAX_PAGE_ORDER block at a
	 * time and never across a section, and given back page by page.
	 * Its records are moved while the range is held, so that the copies
	 * are not of its pages.
	 */
	page = alloc_contig_pages(nr, GFP_KERNEL | __GFP_NOWARN, numa_node_id(),
				  NULL);
	KUNIT_ASSERT_NOT_NULL_MSG(test, page, "no free %s range", o->desc);
	pfn = page_to_pfn(page);
	kunit_move_section_records(test, pfn, nr);
	poison_owner_records(test, pfn, nr, false);
	free_contig_range(pfn, nr);

	err = alloc_contig_range(pfn, pfn + nr, MIGRATE_MOVABLE, gfp);
	KUNIT_ASSERT_EQ_MSG(test, err, 0,
			    "the %s range at pfn %#lx was not free again",
			    o->desc, pfn);
	folio = pfn_folio(pfn);
	KUNIT_EXPECT_EQ(test, folio_order(folio), o->order);
	/* The allocator records the mask of the task's scope. */
	ts = expect_owner_records(test, pfn, nr, o->order,
				  current_gfp_context(gfp), false);
	expect_record_after_untouched(test, pfn + nr, ts, false);
	poison_owner_records(test, pfn, nr, true);
	folio_put(folio);
	ts = expect_owner_records(test, pfn, nr, o->order, 0, true);
	expect_record_after_untouched(test, pfn + nr, ts, true);
}

/*
 * split_page_owner() gives the new order to the records of the block it
 * splits, 1 << old_order pages, and to no other: of an order-3
 * allocation, splitting the first order-2 half leaves the second half's
 * records at order 3.
 */
static void split_page_owner_test(struct kunit *test)
{
	struct page *page;
	unsigned int i;

	need_page_owner(test);
	page = alloc_pages(GFP_KERNEL, 3);
	KUNIT_ASSERT_NOT_NULL(test, page);
	split_page_owner(page, 2, 0);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ_MSG(test, owner_record_of(test, page + i, NULL).order,
				    i < 4 ? 0 : 3, "page %u of the order-3 block",
				    i);
	__free_pages(page, 3);
}

/*
 * Migration hands the old folio's allocation record (its page 0's) to
 * each page of the new folio, and of its free record the time stamp,
 * leaving the new folio allocated; it hands the new folio's allocation
 * stack to each page of the old one, so that freeing either takes its
 * pages off the stack that counted them. The old folio's record is made
 * unlike the new one's in every field the copy carries: another gfp mask,
 * a migration reason, a free time stamp no free writes.
 */
static void folio_copy_owner_test(struct kunit *test)
{
	struct page_owner_record from;
	struct folio *old, *new;
	depot_stack_handle_t new_handle;
	unsigned int i;

	need_page_owner(test);
	/* Two call sites: two allocation stacks. */
	old = folio_alloc(GFP_KERNEL | __GFP_ZERO, 2);
	KUNIT_ASSERT_NOT_NULL(test, old);
	new = folio_alloc(GFP_KERNEL, 2);
	if (!new)
		folio_put(old);
	KUNIT_ASSERT_NOT_NULL(test, new);
	set_page_owner_migrate_reason(&old->page, MR_COMPACTION);
	poison_owner_records(test, folio_pfn(old), 1, true);
	from = owner_record_of(test, &old->page, NULL);
	new_handle = owner_record_of(test, &new->page, NULL).handle;
	KUNIT_EXPECT_NE_MSG(test, from.handle, new_handle,
			    "the two allocations need stacks of their own");

	folio_copy_owner(new, old);
	for (i = 0; i < 4; i++) {
		unsigned long flags;
		struct page_owner_record r = owner_record_of(test,
							     folio_page(new, i),
							     &flags);

		KUNIT_EXPECT_TRUE_MSG(test, r.handle == from.handle &&
				      r.order == from.order &&
				      r.gfp_mask == from.gfp_mask &&
				      r.ts_nsec == from.ts_nsec &&
				      r.last_migrate_reason == MR_COMPACTION,
				      "page %u of the new folio has not the old folio's record of the allocation",
				      i);
		KUNIT_EXPECT_EQ_MSG(test, r.free_ts_nsec, OWNER_POISON_TS,
				    "page %u of the new folio has not the old folio's free time stamp",
				    i);
		KUNIT_EXPECT_TRUE_MSG(test, test_bit(PAGE_EXT_OWNER_ALLOCATED, &flags),
				      "page %u of the new folio is no longer allocated",
				      i);
		KUNIT_EXPECT_EQ_MSG(test,
				    owner_record_of(test, folio_page(old, i), NULL).handle,
				    new_handle, "page %u of the old folio", i);
	}
	folio_put(old);
	folio_put(new);
}

/*
 * The stack that made an allocation counts the pages it holds: a second
 * order-3 allocation from the same call adds eight pages to its count, and
 * freeing one of the two takes eight off.
 */
static void page_owner_stack_count_test(struct kunit *test)
{
	struct stack_record *stack[2] = {};
	struct page *pages[2] = {};
	unsigned int count[3] = {};
	unsigned int i;
	bool counted;

	need_page_owner(test);
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[i] = alloc_pages(GFP_KERNEL, 3);
		if (!pages[i])
			break;
		stack[i] = __stack_depot_get_stack_record(owner_record_of(test,
							  pages[i], NULL).handle);
		if (!stack[i])
			break;
		count[i] = refcount_read(&stack[i]->count);
	}
	counted = i == ARRAY_SIZE(pages) && stack[0] == stack[1];
	if (counted) {
		__free_pages(pages[1], 3);
		pages[1] = NULL;
		count[2] = refcount_read(&stack[0]->count);
	}
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		if (pages[i])
			__free_pages(pages[i], 3);
	KUNIT_ASSERT_TRUE_MSG(test, counted,
			      "the case needs two order-3 blocks allocated by one stack");
	KUNIT_EXPECT_EQ_MSG(test, count[1] - count[0], 8U,
			    "pages the second allocation added to the stack's count");
	KUNIT_EXPECT_EQ_MSG(test, count[1] - count[2], 8U,
			    "pages the free took off the stack's count");
}

/*
 * Pages allocated before page_owner was on get a record at its start, of
 * order 0, without a gfp mask, never migrated: the page of a kmalloc
 * cache's descriptor, which slab allocates at boot and never frees, has
 * it.
 */
static void early_page_owner_record_test(struct kunit *test)
{
	struct kmem_cache *s = kmalloc_caches[KMALLOC_NORMAL][kmalloc_index(64)];
	struct page_owner_record r;
	unsigned long flags;

	need_page_owner(test);
	KUNIT_ASSERT_NOT_NULL(test, s);
	r = owner_record_of(test, virt_to_page(s), &flags);
	KUNIT_ASSERT_TRUE_MSG(test, test_bit(PAGE_EXT_OWNER, &flags) &&
			      test_bit(PAGE_EXT_OWNER_ALLOCATED, &flags),
			      "the page of kmalloc-64's descriptor has no record of its allocation");
	KUNIT_EXPECT_NE(test, r.handle, 0);
	KUNIT_EXPECT_EQ_MSG(test, r.gfp_mask, 0,
			    "not the record the boot gives an early allocation");
	KUNIT_EXPECT_EQ(test, r.order, 0);
	KUNIT_EXPECT_EQ(test, r.last_migrate_reason, -1);
}

/*
 * Free blocks looked at per order and migrate type: enough to cover the
 * boot's free memory, few enough to hold the zone lock briefly.
 */
#define FREE_BLOCKS_PER_LIST	16

/* The pages of a block of @order at @page recorded as allocated. */
static unsigned long owned_pages(struct page *page, unsigned int order,
				 unsigned long *first_pfn)
{
	unsigned long i, owned = 0;

	for (i = 0; i < (1UL << order); i++) {
		struct page_ext *page_ext = page_ext_get(page + i);

		if (!page_ext)
			continue;
		if (test_bit(PAGE_EXT_OWNER_ALLOCATED, &page_ext->flags) &&
		    !owned++)
			*first_pfn = page_to_pfn(page + i);
		page_ext_put(page_ext);
	}
	return owned;
}

/*
 * No page of a free block has a record of an allocation: the boot's walk
 * of the early allocations (init_pages_in_zone()) steps over each free
 * block whole, and a free clears the flag on every page of its block.
 * The zone's lock keeps the free lists still while the case reads them.
 */
static void free_blocks_not_owned_test(struct kunit *test)
{
	unsigned long blocks = 0, owned = 0, first_pfn = 0;
	struct zone *zone;

	need_page_owner(test);
	for_each_populated_zone(zone) {
		unsigned int order, mt;
		unsigned long flags;

		spin_lock_irqsave(&zone->lock, flags);
		for (order = 1; order < NR_PAGE_ORDERS; order++) {
			for (mt = 0; mt < MIGRATE_TYPES; mt++) {
				struct free_area *area = &zone->free_area[order];
				unsigned int seen = 0;
				struct page *page;

				list_for_each_entry(page, &area->free_list[mt],
						    buddy_list) {
					unsigned long pfn = 0, n;

					if (seen++ == FREE_BLOCKS_PER_LIST)
						break;
					n = owned_pages(page, order, &pfn);
					if (n && !owned)
						first_pfn = pfn;
					owned += n;
					blocks++;
				}
			}
		}
		spin_unlock_irqrestore(&zone->lock, flags);
	}
	KUNIT_ASSERT_GT_MSG(test, blocks, 0,
			    "the case needs free blocks of order 1 or more");
	KUNIT_EXPECT_EQ_MSG(test, owned, 0,
			    "pages of %lu free blocks recorded as allocated, the first pfn %#lx",
			    blocks, first_pfn);
}

#else
static void page_owner_records_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_OWNER");
}

static void split_page_owner_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_OWNER");
}

static void folio_copy_owner_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_OWNER");
}

static void page_owner_stack_count_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_OWNER");
}

static void early_page_owner_record_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_OWNER");
}

static void free_blocks_not_owned_test(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_PAGE_OWNER");
}
#endif

static struct kunit_case gigantic_page_owner_cases[] = {
	KUNIT_CASE(page_owner_records_test),
	KUNIT_CASE(split_page_owner_test),
	KUNIT_CASE(folio_copy_owner_test),
	KUNIT_CASE(page_owner_stack_count_test),
	KUNIT_CASE(early_page_owner_record_test),
	KUNIT_CASE(free_blocks_not_owned_test),
	{}
};

static struct kunit_suite gigantic_page_owner_suite = {
	.name = "gigantic_page_owner",
	.test_cases = gigantic_page_owner_cases,
};

kunit_test_suites(&gigantic_folio_suite, &gigantic_page_owner_suite);

MODULE_DESCRIPTION("KUnit tests for gigantic folios");
MODULE_LICENSE("GPL");
