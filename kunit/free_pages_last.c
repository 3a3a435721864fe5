// SPDX-License-Identifier: GPL-2.0
/*
 * The last suite of a sanitizer-lane run (last in the link order, see the
 * Makefile): the free pages after every suite must be those before, within
 * a tolerance for what the kernel keeps cached on its own account (slab
 * pages of caches the suites grew, page tables of the vmalloc space, the
 * KASAN quarantine and kmemleak's metadata).
 */
#include <kunit/test.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "free_pages_check.h"
#include "kern_mount_fixture.h"

/* 16 MiB with 4K pages: about 0.2% of the guest's 8 GiB. */
#define FREE_PAGES_TOLERANCE	4096L

static void free_pages_after_test(struct kunit *test)
{
	long after = mm_series_free_pages_now();
	long before = mm_series_free_pages_before;

	KUNIT_ASSERT_GE_MSG(test, before, 0, "the first suite did not run");
	kunit_info(test, "free pages before %ld, after %ld, lost %ld (tolerance %ld)\n",
		   before, after, before - after, FREE_PAGES_TOLERANCE);
	KUNIT_EXPECT_LE(test, before - after, FREE_PAGES_TOLERANCE);
}

/*
 * kmemleak scans on its own only every ten minutes: ask for a scan now,
 * through its debugfs file (debugfs mounted in the kernel, as nothing is
 * mounted under kunit.py), and count what it reports as unreferenced.
 */
static void kmemleak_scan_test(struct kunit *test)
{
	const size_t size = 64 * 1024;
	unsigned int leaks = 0;
	struct vfsmount *mnt;
	struct file *file;
	loff_t pos = 0;
	ssize_t len;
	char *buf, *p;

	if (!IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		kunit_skip(test, "CONFIG_DEBUG_KMEMLEAK is off");
	mnt = kunit_kern_mount(test, "debugfs");

	file = file_open_root_mnt(mnt, "kmemleak", O_WRONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	len = kernel_write(file, "scan", 4, &pos);
	fput(file);
	KUNIT_ASSERT_EQ(test, len, 4);

	buf = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	file = file_open_root_mnt(mnt, "kmemleak", O_RDONLY, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	pos = 0;
	len = kernel_read(file, buf, size - 1, &pos);
	fput(file);
	KUNIT_ASSERT_GE(test, len, 0);

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
