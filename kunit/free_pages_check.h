/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Free pages before the first and after the last suite of a run (the
 * sanitizer lane): what the suites took from the buddy allocator and did
 * not give back.
 */
#ifndef _MM_SERIES_KUNIT_FREE_PAGES_CHECK_H
#define _MM_SERIES_KUNIT_FREE_PAGES_CHECK_H

/* Set by the first suite; -1 until then. */
extern long mm_series_free_pages_before;

long mm_series_free_pages_now(void);

#endif
