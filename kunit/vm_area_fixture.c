// SPDX-License-Identifier: GPL-2.0
/* vmalloc area fixture shared by the series' suites; see vm_area_fixture.h. */
#include "vm_area_fixture.h"

static void vfree_action(void *addr)
{
	vfree(addr);
}

struct vm_struct *kunit_vm_area(struct kunit *test, void *addr)
{
	struct vm_struct *area;

	KUNIT_ASSERT_NOT_NULL(test, addr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vfree_action,
							addr), 0);
	area = find_vm_area(addr);
	KUNIT_ASSERT_NOT_NULL(test, area);
	return area;
}
