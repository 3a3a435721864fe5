// SPDX-License-Identifier: GPL-2.0
/*
 * make mutate's schema kernel: mm_mutant=N read by arm64's
 * position-independent early code (inserted into pi/idreg-override.c,
 * called for each word of the command line), before any C code of the
 * kernel proper runs. Only a decimal number without leading zeros, which
 * the early parameter (kstrtouint) reads the same; any other text leaves
 * the id to the early parameter. The pi code includes no header of the
 * kernel proper, so the two kernel globals are declared here.
 */
extern unsigned int mm_mutant_id;
extern bool mm_mutant_preset;

static void __init mm_mutant_early_option(const char *opt)
{
	static const char name[] __initconst = "mm_mutant=";
	unsigned int id = 0;
	int i;

	for (i = 0; name[i]; i++)
		if (opt[i] != name[i])
			return;
	if (!opt[i] || (opt[i] == '0' && opt[i + 1]))
		return;
	for (; opt[i]; i++) {
		if (opt[i] < '0' || opt[i] > '9' || id > 99999999)
			return;
		id = id * 10 + opt[i] - '0';
	}
	mm_mutant_id = id;
	mm_mutant_preset = true;
}

