// SPDX-License-Identifier: GPL-2.0
/*
 * The switch of make mutate's schema kernel (see <linux/mm_mutant.h>):
 * mm_mutant=N on the command line, and the reach of each KUnit case
 * printed as a KTAP diagnostic line, "# reached: 3 7-9", before the
 * case's result.
 *
 * On arm64 the position-independent early code reads mm_mutant=N from
 * the boot arguments before any C code of the kernel proper runs
 * (mm_mutant_early_option() in the schema tree's pi/idreg-override.c),
 * so that the early fixmap, the first page-table writes and the barrier
 * helpers run mutant N as well; the early parameter below then only
 * checks that both readings agree.
 */
#include <linux/cache.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "mm_mutant_count.h"

unsigned int mm_mutant_id;
EXPORT_SYMBOL(mm_mutant_id);
/* Set by the early code when it has read mm_mutant= itself. */
bool mm_mutant_preset;
unsigned char mm_mutant_reached[MM_MUTANTS + 1];
EXPORT_SYMBOL(mm_mutant_reached);

static unsigned char mm_mutant_early[MM_MUTANTS + 1] __initdata;
static bool mm_mutant_given __initdata;
static bool mm_mutant_bad __initdata;

static int __init mm_mutant_setup(char *arg)
{
	unsigned int id;

	/*
	 * Unless the early code set the id, what ran so far ran unmutated:
	 * those mutants need their own build.
	 */
	if (!mm_mutant_preset)
		memcpy(mm_mutant_early, mm_mutant_reached,
		       sizeof(mm_mutant_early));
	mm_mutant_given = true;
	if (!arg || kstrtouint(arg, 0, &id) || id > MM_MUTANTS ||
	    (mm_mutant_preset && id != mm_mutant_id)) {
		mm_mutant_bad = true;
		WRITE_ONCE(mm_mutant_id, 0);
		return 0;
	}
	WRITE_ONCE(mm_mutant_id, id);
	return 0;
}
early_param("mm_mutant", mm_mutant_setup);

/* Each id whose byte is set, as ranges, on lines of at most 160 chars. */
static void mm_mutant_print(const char *what, const unsigned char *bytes)
{
	char line[192];
	int len = 0;
	unsigned int id, last;

	for (id = 1; id <= MM_MUTANTS; id++) {
		if (!bytes[id])
			continue;
		for (last = id; last < MM_MUTANTS && bytes[last + 1]; last++)
			;
		if (len > 160) {
			pr_info("    # %s:%s\n", what, line);
			len = 0;
		}
		if (last == id)
			len += scnprintf(line + len, sizeof(line) - len, " %u", id);
		else
			len += scnprintf(line + len, sizeof(line) - len, " %u-%u",
					 id, last);
		id = last;
	}
	if (len)
		pr_info("    # %s:%s\n", what, line);
}

static int __init mm_mutant_report(void)
{
	if (mm_mutant_bad) {
		pr_err("mm_mutant: no such mutant in this kernel (it carries 1 to %u)\n",
		       MM_MUTANTS);
		return 0;
	}
	pr_info("mm_mutant: mutant %u of %u%s\n", mm_mutant_id, MM_MUTANTS,
		!mm_mutant_given ? " (mm_mutant= not given)" :
		mm_mutant_preset ? " (set before C code ran)" : "");
	if (mm_mutant_given)
		mm_mutant_print("mm_mutant reached before mm_mutant= was parsed",
				mm_mutant_early);
	/*
	 * What boot ran (mutated, when set early) that no case may reach
	 * again: such a mutant is judged by a boot of its suites, not
	 * called uncovered.
	 */
	mm_mutant_print("mm_mutant reached before the suites ran",
			mm_mutant_reached);
	return 0;
}
/* The last initcalls: KUnit's built-in suites run right after them. */
late_initcall_sync(mm_mutant_report);

void mm_mutant_reach_clear(void)
{
	memset(mm_mutant_reached, 0, sizeof(mm_mutant_reached));
}
EXPORT_SYMBOL(mm_mutant_reach_clear);

void mm_mutant_reach_print(void)
{
	mm_mutant_print("reached", mm_mutant_reached);
	mm_mutant_reach_clear();
}
EXPORT_SYMBOL(mm_mutant_reach_print);
