// SPDX-License-Identifier: GPL-2.0
/*
 * The last suite of a sanitizer-lane run (last in the link order, see the
 * Makefile): the free pages after every suite must be those before, but
 * for slab pages, whose objects kmemleak vouches for below (KASAN's
 * quarantine keeps freed objects, and so their slabs, for a while), and a
 * tolerance for what the kernel keeps on its own account without a counter:
 * page tables of the vmalloc space and the KASAN shadow of vmalloc areas.
 * A run of the first and last suites alone loses no page at all.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "free_pages_check.h"
#include "kern_mount_fixture.h"

static void free_pages_after_test(struct kunit *test)
{
	const struct free_pages_snapshot *before = &mm_series_free_pages_before;
	struct free_pages_snapshot after;
	long lost, slab;
	int i;

	KUNIT_ASSERT_TRUE_MSG(test, mm_series_free_pages_taken,
			      "the first suite did not run");
	mm_series_free_pages_now(&after);
	lost = before->pages[FPC_FREE] - after.pages[FPC_FREE];
	slab = after.pages[FPC_SLAB] - before->pages[FPC_SLAB];
	kunit_info(test, "free pages before %ld, after %ld, lost %ld, %ld outside slab (tolerance %ld)\n",
		   before->pages[FPC_FREE], after.pages[FPC_FREE], lost,
		   lost - slab, FREE_PAGES_TOLERANCE);
	/* Where they went, as far as the kernel's counters tell. */
	for (i = FPC_FREE + 1; i < NR_FREE_PAGES_COUNTERS; i++)
		kunit_info(test, "  %s: %+ld pages\n", free_pages_counter_names[i],
			   after.pages[i] - before->pages[i]);
	KUNIT_EXPECT_LE(test, lost - slab, FREE_PAGES_TOLERANCE);
}

/*
 * kmemleak scans on its own only every ten minutes: ask for a scan now,
 * through its debugfs file (debugfs mounted in the kernel, as nothing is
 * mounted under kunit.py), and count what it reports as unreferenced.
 */
#define KMEMLEAK_REPORT_MAX	(64 * 1024)

static void kmemleak_scan_test(struct kunit *test)
{
	unsigned int leaks = 0;
	struct vfsmount *mnt;
	char *buf, *p;

	if (!IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		kunit_skip(test, "CONFIG_DEBUG_KMEMLEAK is off");
	mnt = kunit_kern_mount(test, "debugfs");
	buf = kunit_kzalloc(test, KMEMLEAK_REPORT_MAX + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* Synchronous: the write returns once the scan is over. */
	KUNIT_ASSERT_EQ(test, kern_mount_write_user(test, mnt, "kmemleak",
						    "scan"), 4);
	KUNIT_ASSERT_GE(test, kern_mount_read_user(test, mnt, "kmemleak", buf,
						   KMEMLEAK_REPORT_MAX + 1), 0);

	for (p = buf; (p = strstr(p, "unreferenced object")); p++)
		leaks++;
	if (leaks)
		kunit_info(test, "kmemleak:\n%s\n", buf);
	KUNIT_EXPECT_EQ(test, leaks, 0);
}

static struct kunit_case free_pages_last_cases[] = {
	KUNIT_CASE(free_pages_after_test),
	KUNIT_CASE(kmemleak_scan_test),
	{}
};

static struct kunit_suite free_pages_last_suite = {
	.name = "mm_series_free_pages_last",
	.test_cases = free_pages_last_cases,
};
kunit_test_suites(&free_pages_last_suite);

MODULE_DESCRIPTION("Free pages after the series' suites");
MODULE_LICENSE("GPL");
