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
#include <linux/mount.h>

#include "console_watch.h"
#include "hugetlb_fixture.h"
#include "kern_mount_fixture.h"
#include "page_events.h"

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
			 "folio_alloc_gigantic_refuses_test+");
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
	unsigned long before, grown, nr = CONT_PMD_SIZE >> PAGE_SHIFT;
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

	/* The folios grown, returned whole, once each. */
	KUNIT_ASSERT_LE(test, ev->nr_frees, PAGE_EVENTS_MAX);
	for (i = 0; i < ev->nr_frees; i++) {
		if (ev->frees[i].order == huge_page_order(h))
			expect_returned_once(test, ev, ev->frees[i].pfn, nr);
	}
	KUNIT_EXPECT_EQ(test, ev->nr_frees, grown);
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
kunit_test_suites(&gigantic_folio_suite);

MODULE_DESCRIPTION("KUnit tests for gigantic folios");
MODULE_LICENSE("GPL");
