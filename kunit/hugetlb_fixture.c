// SPDX-License-Identifier: GPL-2.0
/* Fixtures shared by the series' hugetlb suites; see hugetlb_fixture.h. */
#include <linux/file.h>
#include <linux/mm.h>

#include "hugetlb_fixture.h"

KUNIT_DEFINE_ACTION_WRAPPER(fput_wrapper, fput, struct file *);

struct file *hugetlb_test_file(struct kunit *test, unsigned long size,
			       unsigned long len, vm_flags_t acct)
{
	struct hstate *h = size_to_hstate(size);
	struct file *file;

	KUNIT_ASSERT_NOT_NULL_MSG(test, h,
		"no %luK hstate: boot with hugepagesz=%luK", size >> 10,
		size >> 10);
	file = hugetlb_file_setup(HUGETLB_ANON_FILE, len, acct,
				  HUGETLB_ANONHUGE_INODE, huge_page_shift(h));
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(file), "hugetlb_file_setup: %ld",
			       PTR_ERR(file));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fput_wrapper,
							file), 0);
	return file;
}

void hugetlb_test_need_size(struct kunit *test, const char *role,
			    unsigned long size)
{
	unsigned long ram = totalram_pages() << PAGE_SHIFT;

	/* arm64 registers every size its granule supports at boot. */
	if (!size_to_hstate(size))
		kunit_skip(test, "%s: needs a %luM hugetlb size, which %luK pages do not have",
			   role, size >> 20, PAGE_SIZE >> 10);
	if (size > ram / 4)
		kunit_skip(test, "%s: needs a %luM block, more than a quarter of this guest's %luM",
			   role, size >> 20, ram >> 20);
	kunit_info(test, "%s: %luK, %lu pages of %luK\n", role, size >> 10,
		   size >> PAGE_SHIFT, PAGE_SIZE >> 10);
}
