/* SPDX-License-Identifier: GPL-2.0 */
/* vmalloc areas for the series' suites, freed when the case ends. */
#ifndef _MM_SERIES_KUNIT_VM_AREA_FIXTURE_H
#define _MM_SERIES_KUNIT_VM_AREA_FIXTURE_H

#include <kunit/test.h>
#include <linux/vmalloc.h>

/*
 * The area of @addr, which the case got from vmalloc() or one of its
 * variants: fails the case if @addr is NULL, vfree()s it when the case
 * ends.
 */
struct vm_struct *kunit_vm_area(struct kunit *test, void *addr);

#endif
