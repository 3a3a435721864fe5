// SPDX-License-Identifier: GPL-2.0
/* Moved page_ext records for the series' suites; see page_ext_fixture.h. */
#include <linux/mmzone.h>
#include <linux/page_ext.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "page_ext_fixture.h"

#ifdef CONFIG_PAGE_EXTENSION
/*
 * The page_ext records of memory sections, moved to copies of their own.
 * SPARSEMEM allocates the records one section at a time and keeps, in
 * each mem_section, the address the section's first pfn would have in an
 * array that started at pfn 0.
 */
struct moved_sections {
	unsigned long first_pfn;
	unsigned int nr;
	/* The largest hugetlb size of any granule is 16G (64K pages). */
	void *stored[SZ_16G / (PAGES_PER_SECTION << PAGE_SHIFT)];
	void *copy[SZ_16G / (PAGES_PER_SECTION << PAGE_SHIFT)];
};

static size_t section_records_size(void)
{
	return page_ext_size * PAGES_PER_SECTION;
}

static void moved_sections_restore(void *data)
{
	struct moved_sections *m = data;
	unsigned int i;

	for (i = 0; i < m->nr; i++) {
		unsigned long pfn = m->first_pfn + i * PAGES_PER_SECTION;

		memcpy(m->stored[i] + page_ext_size * pfn, m->copy[i],
		       section_records_size());
		WRITE_ONCE(__pfn_to_section(pfn)->page_ext, m->stored[i]);
	}
	/* Lookups run under RCU: let them finish before the copies go. */
	synchronize_rcu();
	for (i = 0; i < m->nr; i++)
		vfree(m->copy[i]);
}

void kunit_move_section_records(struct kunit *test, unsigned long pfn,
				unsigned long nr_pages)
{
	struct moved_sections *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(pfn | nr_pages, PAGES_PER_SECTION));
	KUNIT_ASSERT_LE(test, nr_pages / PAGES_PER_SECTION,
			ARRAY_SIZE(m->copy));
	m->first_pfn = pfn;
	for (i = 0; i < nr_pages / PAGES_PER_SECTION; i++) {
		/*
		 * The first copy has room after it for the records of all
		 * the others: a walk that steps out of it by pointer
		 * arithmetic writes there, not into the next section's
		 * records and not past the copy.
		 */
		m->copy[i] = vzalloc(i ? section_records_size() :
				     page_ext_size * nr_pages);
		if (!m->copy[i])
			break;
	}
	if (i < nr_pages / PAGES_PER_SECTION) {
		while (i--)
			vfree(m->copy[i]);
		KUNIT_FAIL_AND_ABORT(test, "no memory for the moved records");
	}
	for (i = 0; i < nr_pages / PAGES_PER_SECTION; i++) {
		unsigned long spfn = pfn + i * PAGES_PER_SECTION;
		struct mem_section *ms = __pfn_to_section(spfn);

		m->stored[i] = READ_ONCE(ms->page_ext);
		memcpy(m->copy[i], m->stored[i] + page_ext_size * spfn,
		       section_records_size());
		WRITE_ONCE(ms->page_ext, m->copy[i] - page_ext_size * spfn);
		m->nr = i + 1;
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			moved_sections_restore, m), 0);
}
#endif
