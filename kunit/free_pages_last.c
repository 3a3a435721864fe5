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
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mount.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "free_pages_check.h"
#include "kern_mount_fixture.h"

/* 16 MiB with 4K pages: about 0.2% of the guest's 8 GiB. */
#define FREE_PAGES_TOLERANCE	4096L

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
 * The file has .write and .read but no _iter methods, so kernel_write()
 * and kernel_read() refuse it: go through vfs_write()/vfs_read() with a
 * buffer in a user mapping of the case's own (kunit_vm_mmap()).
 */
#define KMEMLEAK_REPORT_MAX	(64 * 1024)

static ssize_t kmemleak_file_io(struct kunit *test, struct vfsmount *mnt,
				int flags, char __user *ubuf, size_t len)
{
	struct file *file = file_open_root_mnt(mnt, "kmemleak", flags, 0);
	ssize_t done = 0, ret;
	loff_t pos = 0;

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "open: %ld", PTR_ERR(file));
	do {
		if (flags == O_WRONLY)
			ret = vfs_write(file, ubuf + done, len - done, &pos);
		else
			ret = vfs_read(file, ubuf + done, len - done, &pos);
		if (ret > 0)
			done += ret;
	} while (ret > 0 && done < len);
	fput(file);
	return ret < 0 ? ret : done;
}

static void kmemleak_scan_test(struct kunit *test)
{
	unsigned int leaks = 0;
	struct vfsmount *mnt;
	char __user *ubuf;
	char *buf, *p;
	ssize_t len;

	if (!IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		kunit_skip(test, "CONFIG_DEBUG_KMEMLEAK is off");
	mnt = kunit_kern_mount(test, "debugfs");
	ubuf = (char __user *)kunit_vm_mmap(test, NULL, 0, KMEMLEAK_REPORT_MAX,
					    PROT_READ | PROT_WRITE,
					    MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NOT_NULL_MSG(test, ubuf, "no user mapping");
	buf = kunit_kzalloc(test, KMEMLEAK_REPORT_MAX + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* Synchronous: the write returns once the scan is over. */
	KUNIT_ASSERT_EQ(test, copy_to_user(ubuf, "scan", 4), 0);
	KUNIT_ASSERT_EQ(test, kmemleak_file_io(test, mnt, O_WRONLY, ubuf, 4), 4);

	len = kmemleak_file_io(test, mnt, O_RDONLY, ubuf, KMEMLEAK_REPORT_MAX);
	KUNIT_ASSERT_GE(test, len, 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(buf, ubuf, len), 0);

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
