// SPDX-License-Identifier: GPL-2.0
/*
 * Not a test: a module that is built, never loaded by the suites. Its init
 * makes the calls of asm/pgtable.h and asm/tlbflush.h that inline the
 * ARM64_MM_KUNIT_HOOK seam (the static key and the report calls), so that
 * modpost fails the lane's build when the seam is not exported: any module
 * that writes an entry or flushes the TLB needs those symbols once the
 * option is on. Loading it would be harmless: it writes a scratch word,
 * not a page table, and flushes an empty range.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <asm/tlbflush.h>

static int __init arm64_mm_hook_link_init(void)
{
	pte_t scratch = __pte(0);

	/* A valid kernel entry: its barriers and their report. */
	__set_pte(&scratch, pfn_pte(page_to_pfn(ZERO_PAGE(0)), PAGE_KERNEL_RO));
	/* An empty range: no TLBI, only the report of the flush. */
	flush_tlb_kernel_range(0, 0);
	return 0;
}
module_init(arm64_mm_hook_link_init);

MODULE_DESCRIPTION("Links against the arm64 mm KUnit seam");
MODULE_LICENSE("GPL");
