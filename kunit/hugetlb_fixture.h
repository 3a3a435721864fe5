/* SPDX-License-Identifier: GPL-2.0 */
/* Fixtures shared by the series' hugetlb suites. */
#ifndef _MM_SERIES_KUNIT_HUGETLB_FIXTURE_H
#define _MM_SERIES_KUNIT_HUGETLB_FIXTURE_H

#include <kunit/test.h>
#include <linux/hugetlb.h>

/*
 * An anonymous hugetlbfs file of len bytes in pages of size bytes, put
 * when the case ends. acct is VM_NORESERVE to reserve no pool pages.
 * A missing hstate is a broken setup, not a missing feature: the case
 * fails.
 */
struct file *hugetlb_test_file(struct kunit *test, unsigned long size,
			       unsigned long len, vm_flags_t acct);

/*
 * Skip a case whose hugetlb size this granule does not have (no hstate: a
 * PUD block exists with 4K pages only) or this machine cannot host (more than a
 * quarter of the guest's memory: the 64K granule's 16G contpmd block),
 * saying what it needs; otherwise log the size the role has here. role
 * names the size as the cases do (contpte, pmd, contpmd, pud).
 */
void hugetlb_test_need_size(struct kunit *test, const char *role,
			    unsigned long size);

#endif
