/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make mutate's schema kernel (scripts/mutation/schema.py): every mutant
 * of the chosen patches is compiled in behind mm_mutant_on(id), and the
 * kernel booted with mm_mutant=N runs mutant N, with N=0 the patched
 * kernel. Written into the schema tree only; never part of the series.
 */
#ifndef _LINUX_MM_MUTANT_H
#define _LINUX_MM_MUTANT_H

#if defined(__DISABLE_EXPORTS) || defined(BUILD_VDSO)
/*
 * Code that cannot reach a kernel global runs the original text: the
 * position-independent early code (arch/arm64/kernel/pi), the nVHE
 * hypervisor and the EFI stub (all built with __DISABLE_EXPORTS) and the
 * vDSO. mutate's schema pass judges by separate builds the mutants of the
 * lines such objects compile.
 */
#define mm_mutant_on(id) 0
#else
extern unsigned int mm_mutant_id;
extern unsigned char mm_mutant_reached[];

void mm_mutant_reach_clear(void);
void mm_mutant_reach_print(void);

/*
 * A plain load and a byte store, no call: safe in noinstr code and in
 * early code that runs before mm_mutant= is parsed (which sees id 0 and
 * marks what it ran, so that those mutants go to separate builds). The
 * byte records that the guard of id ran: the reach of each case.
 */
static __always_inline int mm_mutant_on(unsigned int id)
{
	mm_mutant_reached[id] = 1;
	return *(volatile unsigned int *)&mm_mutant_id == id;
}
#endif

#endif /* _LINUX_MM_MUTANT_H */
