/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the console says while a case's own task acts, seen through the
 * console tracepoint as mm/kfence/kfence_test.c sees its reports: a suite
 * registers the probe once (suite_init/suite_exit); a case watches for a
 * line of its own task that holds one or two texts, e.g. " at mm/vmalloc.c:"
 * and "vunmap_" for a WARN of that file and function, and
 * reads the first such line. Lines of other tasks and other cases are never
 * kept.
 */
#ifndef _MM_SERIES_KUNIT_CONSOLE_WATCH_H
#define _MM_SERIES_KUNIT_CONSOLE_WATCH_H

#include <kunit/test.h>

int console_watch_register(void);
void console_watch_unregister(void);

/* Watches until console_watch_stop() or the end of the case. */
void console_watch_start(struct kunit *test, const char *text,
			 const char *also);
void console_watch_stop(void);
/* The first line seen that holds the texts; "" if none. */
const char *console_watch_line(void);

/*
 * A WARN by the case's task from @at (" at mm/vmalloc.c:") in @function:
 * the two texts of its "WARNING: CPU: ... at FILE:LINE FUNC+OFF" line.
 * Whether the compiler inlines a helper changes FUNC (vunmap_pmd_range()
 * is inlined into __vunmap_range_noflush() in one build and not in
 * another), so @function is a text the helper's name and its callers'
 * share ("vunmap_"), not one of them.
 */
static inline void warn_watch_start(struct kunit *test, const char *at,
				    const char *function)
{
	console_watch_start(test, at, function);
}

#endif
