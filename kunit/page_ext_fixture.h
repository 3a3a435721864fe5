/* SPDX-License-Identifier: GPL-2.0 */
/*
 * page_ext records moved away from where the boot put them, for cases
 * that check a walk over the records of a block larger than a memory
 * section: SPARSEMEM allocates the records one section at a time, and
 * the boot may put consecutive sections' arrays next to each other, so
 * a walk that steps across a section boundary by pointer arithmetic may
 * find the right records by luck, or write into whatever follows the
 * array. Moved, only a lookup by pfn finds them, and such a walk lands in
 * room kept after the first section's copy.
 */
#ifndef _MM_SERIES_KUNIT_PAGE_EXT_FIXTURE_H
#define _MM_SERIES_KUNIT_PAGE_EXT_FIXTURE_H

#include <kunit/test.h>

/*
 * Moves the records of the @nr_pages from @pfn (whole sections) to copies
 * in vmalloc space, which guard pages keep apart from any other array,
 * the first followed by room for @nr_pages records; moved back, with what
 * was written to them, when the case ends.
 */
void kunit_move_section_records(struct kunit *test, unsigned long pfn,
				unsigned long nr_pages);

#endif
