// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for arm64 lazy MMU mode and the barriers of kernel table
 * writes: a write of a valid kernel entry needs a dsb/isb pair before the
 * entry is used; inside lazy MMU mode the pair may be deferred to the exit
 * of the mode, never past it, never for user entries, and never in
 * interrupt context.
 *
 * Barrier pairs are counted through the ARM64_MM_KUNIT_HOOK seam (only
 * those of the case's own task, or of its interrupt handler); the pending
 * state is read from the task's thread flags where the tree has them.
 */
#include <kunit/test.h>
#include <kunit/test-bug.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "console_watch.h"
#include "kernel_map.h"
#include "mm_recorder.h"
#include "vm_area_fixture.h"

/* A live, valid kernel pte the case may rewrite with its own value. */
struct live_pte {
	pte_t *ptep;
	pte_t pte;
};

static void free_page_action(void *page)
{
	__free_page(page);
}

KUNIT_DEFINE_ACTION_WRAPPER(free_vm_area_wrapper, free_vm_area,
			    struct vm_struct *);

static void live_pte_init(struct kunit *test, struct live_pte *k)
{
	struct vm_struct *area = kunit_vm_area(test, vmalloc(PAGE_SIZE));
	struct kmap_entry e;

	kmap_lookup((unsigned long)area->addr, &e);
	KUNIT_ASSERT_EQ(test, e.level, KMAP_PTE);
	k->ptep = e.ptep;
	k->pte = __ptep_get(e.ptep);
	KUNIT_ASSERT_TRUE(test, pte_valid_not_user(k->pte));
}

/* Rewriting a live entry with its own value is always safe. */
static void live_pte_write(struct live_pte *k)
{
	__set_pte(k->ptep, k->pte);
}

/* Whether the tree defers: the flags exist only where it can. */
static bool barriers_pending(void)
{
#ifdef TIF_LAZY_MMU_PENDING
	return test_thread_flag(TIF_LAZY_MMU_PENDING);
#else
	return false;
#endif
}

static bool in_lazy_mode(void)
{
#ifdef TIF_LAZY_MMU
	return test_thread_flag(TIF_LAZY_MMU);
#else
	return false;
#endif
}

/* Outside the mode every valid kernel write has its pair at once. */
static void kernel_write_outside_mode_test(struct kunit *test)
{
	struct live_pte k;
	struct mm_recorder *rec;

	live_pte_init(test, &k);
	rec = mm_recorder_start(test, &init_mm);
	live_pte_write(&k);
	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 1);
	live_pte_write(&k);
	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 2);
	KUNIT_EXPECT_FALSE(test, barriers_pending());
}

/* Inside the mode the pair waits, pending, until the mode is left. */
static void kernel_write_deferred_test(struct kunit *test)
{
	struct live_pte k;
	struct mm_recorder *rec;

	live_pte_init(test, &k);
	rec = mm_recorder_start(test, &init_mm);

	arch_enter_lazy_mmu_mode();
	live_pte_write(&k);
	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 0);
	KUNIT_EXPECT_TRUE(test, barriers_pending());
	arch_leave_lazy_mmu_mode();

	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 1);
	KUNIT_EXPECT_FALSE(test, barriers_pending());
	KUNIT_EXPECT_FALSE(test, in_lazy_mode());
}

/* Any number of writes in one section cost one pair. */
static void kernel_writes_one_pair_test(struct kunit *test)
{
	struct live_pte k;
	struct mm_recorder *rec;
	unsigned int i;

	live_pte_init(test, &k);
	rec = mm_recorder_start(test, &init_mm);

	arch_enter_lazy_mmu_mode();
	for (i = 0; i < 64; i++)
		live_pte_write(&k);
	arch_leave_lazy_mmu_mode();

	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 1);
}

/*
 * A section left with nothing written costs nothing: the exit emits only
 * what is pending. Without the mode there is nothing to defer either, so
 * this holds on every tree; it guards the exit path against an
 * unconditional pair.
 */
static void empty_section_no_pair_test(struct kunit *test)
{
	struct mm_recorder *rec = mm_recorder_start(test, &init_mm);

	arch_enter_lazy_mmu_mode();
	arch_leave_lazy_mmu_mode();
	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 0);
	KUNIT_EXPECT_FALSE(test, in_lazy_mode());
}

/*
 * Nested sections, upstream's rule (1ef3095b1405): the first leave emits
 * what is pending and ends the mode; the rest of the outer section runs as
 * if outside it, each write with its pair at once, and the outer leave has
 * nothing left to emit.
 */
static void nested_sections_test(struct kunit *test)
{
	unsigned int inner, after_inner, outer_write, after_outer;
	bool lazy_after_inner;
	struct live_pte k;
	struct mm_recorder *rec;

	live_pte_init(test, &k);
	rec = mm_recorder_start(test, &init_mm);

	/*
	 * The counts are read into locals and checked once the recorder is
	 * stopped: a failing expectation's own report must not add to the
	 * counts the next one reads.
	 */
	arch_enter_lazy_mmu_mode();
	arch_enter_lazy_mmu_mode();
	live_pte_write(&k);
	inner = rec->nr_barriers;
	arch_leave_lazy_mmu_mode();
	after_inner = rec->nr_barriers;
	lazy_after_inner = in_lazy_mode();
	live_pte_write(&k);
	outer_write = rec->nr_barriers;
	arch_leave_lazy_mmu_mode();
	after_outer = rec->nr_barriers;
	mm_recorder_stop(rec);

	KUNIT_EXPECT_EQ(test, inner, 0);
	KUNIT_EXPECT_EQ(test, after_inner, 1);
	KUNIT_EXPECT_FALSE(test, lazy_after_inner);
	KUNIT_EXPECT_EQ_MSG(test, outer_write, 2,
			    "a write after the inner leave waited for the outer one");
	KUNIT_EXPECT_EQ(test, after_outer, 2);
	KUNIT_EXPECT_FALSE(test, in_lazy_mode());
	KUNIT_EXPECT_FALSE(test, barriers_pending());
}

/*
 * A leave made in interrupt context does nothing, so the outermost leave
 * of a section left with bottom halves disabled leaves the mode on: a
 * kernel write right after it, in task context, still has its barriers
 * deferred. This is upstream's behaviour in v6.16-v6.18 (the generic lazy
 * MMU nesting series changes it later). The next section's leave ends the
 * mode and issues the deferred pair, and a write after it gets its pair at
 * once: a nesting depth that the skipped leave never brought down would
 * keep the mode on, and the write's barriers pending, for good.
 */
static void bh_leave_stays_lazy_until_next_leave_test(struct kunit *test)
{
	struct live_pte k;
	struct mm_recorder *rec;
	unsigned int deferred, after_next_leave, pairs;
	bool in_bh, lazy_after, pending_after;

	live_pte_init(test, &k);
	rec = mm_recorder_start(test, &init_mm);

	arch_enter_lazy_mmu_mode();
	local_bh_disable();
	in_bh = in_interrupt();
	arch_leave_lazy_mmu_mode();
	local_bh_enable();
	lazy_after = in_lazy_mode();
	live_pte_write(&k);
	deferred = rec->nr_barriers;
	pending_after = barriers_pending();
	arch_enter_lazy_mmu_mode();
	arch_leave_lazy_mmu_mode();
	after_next_leave = rec->nr_barriers;

	live_pte_write(&k);
	pairs = rec->nr_barriers;
	mm_recorder_stop(rec);
	KUNIT_ASSERT_TRUE(test, in_bh);
	KUNIT_EXPECT_TRUE_MSG(test, lazy_after,
			      "the leave made with bottom halves disabled ended the mode");
	KUNIT_EXPECT_EQ_MSG(test, deferred, 0,
			    "a write after that leave was not deferred");
	KUNIT_EXPECT_TRUE_MSG(test, pending_after,
			      "a write after that leave was not deferred");
	KUNIT_EXPECT_EQ_MSG(test, after_next_leave, 1,
			    "the next leave did not issue the deferred pair");
	KUNIT_EXPECT_EQ_MSG(test, pairs, 2,
			    "a kernel write after the last leave did not get its pair at once");
	KUNIT_EXPECT_FALSE(test, in_lazy_mode());
	KUNIT_EXPECT_FALSE(test, barriers_pending());
}

/*
 * Bottom halves disabled count as interrupt context, where the mode's
 * hooks do nothing (upstream's in_interrupt() checks, not in_hardirq() or
 * in_serving_softirq()): a section entered there does not turn the mode
 * on, and a write in it gets its pair at once.
 */
static void bh_disabled_enter_does_nothing_test(struct kunit *test)
{
	struct live_pte k;
	struct mm_recorder *rec;
	unsigned int pairs;
	bool in_bh, lazy;

	live_pte_init(test, &k);
	rec = mm_recorder_start(test, &init_mm);

	local_bh_disable();
	in_bh = in_interrupt();
	arch_enter_lazy_mmu_mode();
	lazy = in_lazy_mode();
	live_pte_write(&k);
	pairs = rec->nr_barriers;
	arch_leave_lazy_mmu_mode();
	local_bh_enable();
	/* A leave in task context ends what a wrong enter began. */
	if (lazy)
		arch_leave_lazy_mmu_mode();
	mm_recorder_stop(rec);

	KUNIT_ASSERT_TRUE(test, in_bh);
	KUNIT_EXPECT_FALSE_MSG(test, lazy,
			       "a section entered with bottom halves disabled turned the mode on");
	KUNIT_EXPECT_EQ(test, pairs, 1);
}

/*
 * A flush in interrupt context leaves the task's deferred pair to the
 * task: a flush made with bottom halves disabled inside a section issues
 * nothing, the pair stays pending, and the section's leave issues it.
 */
static void bh_disabled_flush_leaves_pair_pending_test(struct kunit *test)
{
	unsigned int deferred, flushed;
	struct live_pte k;
	struct mm_recorder *rec;
	bool in_bh, pending;

	live_pte_init(test, &k);
	rec = mm_recorder_start(test, &init_mm);

	arch_enter_lazy_mmu_mode();
	live_pte_write(&k);
	deferred = rec->nr_barriers;
	local_bh_disable();
	in_bh = in_interrupt();
	arch_flush_lazy_mmu_mode();
	flushed = rec->nr_barriers;
	pending = barriers_pending();
	local_bh_enable();
	arch_leave_lazy_mmu_mode();
	mm_recorder_stop(rec);

	KUNIT_ASSERT_TRUE(test, in_bh);
	KUNIT_EXPECT_EQ_MSG(test, deferred, 0,
			    "the write in the section was not deferred");
	KUNIT_EXPECT_EQ_MSG(test, flushed, deferred,
			    "a flush with bottom halves disabled issued the section's pair");
	KUNIT_EXPECT_TRUE(test, pending);
	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 1);
}

/*
 * User entries: TLB maintenance and update_mmu_cache() order them, so they
 * neither issue a pair nor leave one pending. The entry is written to a
 * scratch word, not a live table: only the barrier logic is under test.
 */
static void user_write_not_deferred_test(struct kunit *test)
{
	pte_t scratch = __pte(0);
	pte_t user = pfn_pte(page_to_pfn(ZERO_PAGE(0)), PAGE_READONLY);
	struct mm_recorder *rec;

	KUNIT_ASSERT_TRUE(test, pte_valid(user) && pte_user(user));
	rec = mm_recorder_start(test, &init_mm);

	arch_enter_lazy_mmu_mode();
	__set_pte(&scratch, user);
	KUNIT_EXPECT_FALSE(test, barriers_pending());
	arch_leave_lazy_mmu_mode();

	__set_pte(&scratch, user);
	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 0);
}

/*
 * A hard interrupt that writes a kernel entry while its task is in lazy
 * MMU mode: the handler gets its pair before it returns, inside a section
 * of its own or not, and the task's pending state is untouched.
 */
struct irq_probe {
	struct irq_work work;
	struct mm_recorder *rec;
	struct live_pte *k;
	bool hardirq;
	unsigned int pairs_in_section;
	unsigned int pairs_after_section;
};

static void irq_probe_fn(struct irq_work *work)
{
	struct irq_probe *p = container_of(work, struct irq_probe, work);
	struct mm_recorder *rec = p->rec;

	p->hardirq = in_hardirq();
	arch_enter_lazy_mmu_mode();
	live_pte_write(p->k);
	p->pairs_in_section = rec->nr_irq_barriers;
	arch_leave_lazy_mmu_mode();
	p->pairs_after_section = rec->nr_irq_barriers;
}

static void irq_write_immediate_test(struct kunit *test)
{
	struct irq_probe p = { .work = IRQ_WORK_INIT_HARD(irq_probe_fn) };
	struct live_pte k;

	live_pte_init(test, &k);
	p.k = &k;
	p.rec = mm_recorder_start(test, &init_mm);

	arch_enter_lazy_mmu_mode();
	KUNIT_ASSERT_TRUE(test, irq_work_queue(&p.work));
	irq_work_sync(&p.work);
	KUNIT_EXPECT_FALSE(test, barriers_pending());
	arch_leave_lazy_mmu_mode();

	KUNIT_EXPECT_TRUE(test, p.hardirq);
	KUNIT_EXPECT_EQ(test, p.pairs_in_section, 1);
	KUNIT_EXPECT_EQ(test, p.pairs_after_section, 1);
	KUNIT_EXPECT_EQ(test, p.rec->nr_barriers, 0);
}

/*
 * The same from a softirq that runs on the task (at local_bh_enable()): an
 * interrupt too, whose writes must not wait for the task to leave its
 * section.
 */
struct softirq_probe {
	struct tasklet_struct tasklet;
	struct kunit *test;
	struct mm_recorder *rec;
	struct live_pte *k;
	bool on_case_task;
	bool softirq;
	unsigned int pairs_in_section;
	unsigned int pairs_after_section;
};

static void softirq_probe_fn(struct tasklet_struct *t)
{
	struct softirq_probe *p = from_tasklet(p, t, tasklet);

	p->on_case_task = kunit_get_current_test() == p->test;
	p->softirq = in_serving_softirq();
	arch_enter_lazy_mmu_mode();
	live_pte_write(p->k);
	p->pairs_in_section = p->rec->nr_softirq_barriers;
	arch_leave_lazy_mmu_mode();
	p->pairs_after_section = p->rec->nr_softirq_barriers;
}

static void softirq_write_immediate_test(struct kunit *test)
{
	struct softirq_probe p = { .test = test };
	struct live_pte k;

	live_pte_init(test, &k);
	p.k = &k;
	tasklet_setup(&p.tasklet, softirq_probe_fn);
	p.rec = mm_recorder_start(test, &init_mm);

	arch_enter_lazy_mmu_mode();
	local_bh_disable();
	tasklet_schedule(&p.tasklet);
	/* Runs the pending softirq here, on this task. */
	local_bh_enable();
	tasklet_kill(&p.tasklet);
	KUNIT_EXPECT_FALSE(test, barriers_pending());
	arch_leave_lazy_mmu_mode();

	if (!p.on_case_task)
		kunit_skip(test, "needs the tasklet to run on the case's task, it ran in ksoftirqd");
	KUNIT_EXPECT_TRUE(test, p.softirq);
	KUNIT_EXPECT_EQ_MSG(test, p.pairs_in_section, 1,
			    "a softirq's write waited for its section's end");
	KUNIT_EXPECT_EQ(test, p.pairs_after_section, 1);
	KUNIT_EXPECT_EQ(test, p.rec->nr_barriers, 0);
}

/*
 * Table entries above the ptes get the same treatment: set_pmd(),
 * set_pud(), set_p4d() and set_pgd() of a valid entry defer their pair
 * inside the mode. Each case rewrites a live table entry with its own
 * value: the case's own vmalloc page's pmd, pud and p4d in the kernel's
 * tables, and, as every pgd entry of the kernel's is in swapper_pg_dir
 * (written through the fixmap, with its own barriers, on every tree), the
 * pgd entry of the case's own user mapping. A level the running kernel
 * folds has no entry of its own to write.
 */
enum table_level { TABLE_PMD, TABLE_PUD, TABLE_P4D, TABLE_PGD };

struct table_write {
	const char *desc;
	enum table_level level;
};

static const struct table_write table_writes[] = {
	{ "kernel_pmd", TABLE_PMD },
	{ "kernel_pud", TABLE_PUD },
	{ "kernel_p4d", TABLE_P4D },
	{ "user_pgd", TABLE_PGD },
};

KUNIT_ARRAY_PARAM_DESC(table_write, table_writes, desc);

/* A page of the case's user mapping, touched so that its tables exist. */
static unsigned long user_page_mapped(struct kunit *test)
{
	unsigned long addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE,
					   PROT_READ | PROT_WRITE,
					   MAP_ANONYMOUS | MAP_PRIVATE, 0);
	char c = 1;

	KUNIT_ASSERT_FALSE(test, !addr || IS_ERR_VALUE(addr));
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, &c, 1), 0UL);
	return addr;
}

/*
 * Rewrites the entry of @w's level with its own value: the user pgd entry
 * of @uaddr, or the kernel entry of @kaddr at the other levels.
 */
static void table_entry_rewrite(struct kunit *test,
				const struct table_write *w,
				unsigned long kaddr, unsigned long uaddr)
{
	pgd_t *pgdp;
	p4d_t *p4dp;
	pud_t *pudp;
	pmd_t *pmdp;

	if (w->level == TABLE_PGD) {
		pgdp = pgd_offset(current->mm, uaddr);
		KUNIT_ASSERT_TRUE(test, pgd_present(READ_ONCE(*pgdp)) &&
					!pgd_bad(READ_ONCE(*pgdp)));
		KUNIT_ASSERT_FALSE(test, in_swapper_pgdir(pgdp));
		set_pgd(pgdp, READ_ONCE(*pgdp));
		return;
	}
	p4dp = p4d_offset(pgd_offset_k(kaddr), kaddr);
	if (w->level == TABLE_P4D) {
		KUNIT_ASSERT_TRUE(test, p4d_present(READ_ONCE(*p4dp)) &&
					!p4d_bad(READ_ONCE(*p4dp)));
		KUNIT_ASSERT_FALSE(test, in_swapper_pgdir(p4dp));
		set_p4d(p4dp, READ_ONCE(*p4dp));
		return;
	}
	pudp = pud_offset(p4dp, kaddr);
	if (w->level == TABLE_PUD) {
		KUNIT_ASSERT_TRUE(test, pud_table(READ_ONCE(*pudp)));
		KUNIT_ASSERT_FALSE(test, in_swapper_pgdir(pudp));
		set_pud(pudp, READ_ONCE(*pudp));
		return;
	}
	pmdp = pmd_offset(pudp, kaddr);
	KUNIT_ASSERT_TRUE(test, pmd_table(READ_ONCE(*pmdp)));
	set_pmd(pmdp, READ_ONCE(*pmdp));
}

static void table_write_deferred_test(struct kunit *test)
{
	const struct table_write *w = test->param_value;
	struct vm_struct *area = kunit_vm_area(test, vmalloc(PAGE_SIZE));
	unsigned long uaddr = 0;
	struct mm_recorder *rec;

	if (w->level == TABLE_PUD && !pgtable_l4_enabled())
		kunit_skip(test, "needs four page-table levels, the pud is folded");
	if (w->level >= TABLE_P4D && !pgtable_l5_enabled())
		kunit_skip(test, "needs five page-table levels (52-bit VA on 4K pages), the p4d is folded");
	if (w->level == TABLE_PGD)
		uaddr = user_page_mapped(test);

	rec = mm_recorder_start(test, &init_mm);
	arch_enter_lazy_mmu_mode();
	table_entry_rewrite(test, w, (unsigned long)area->addr, uaddr);
	KUNIT_EXPECT_EQ_MSG(test, rec->nr_barriers, 0,
			    "a %s write issued its pair inside the mode", w->desc);
	arch_leave_lazy_mmu_mode();
	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 1);
}

/*
 * A table entry that is present but not valid (pmd_mkinvalid()'s form,
 * as a THP split or NUMA hinting leaves it) is never walked, so its write
 * needs no pair, inside the mode or outside: the pmd and pud writers test
 * the valid bit, not the present one. The entry is written to a scratch
 * word, not a live table.
 */
static const struct table_write invalid_entries[] = {
	{ "pmd", TABLE_PMD },
	{ "pud", TABLE_PUD },
};

KUNIT_ARRAY_PARAM_DESC(invalid_entry, invalid_entries, desc);

static void invalid_entry_write(const struct table_write *w, void *scratch,
				pmd_t entry)
{
	if (w->level == TABLE_PMD)
		set_pmd(scratch, entry);
	else
		set_pud(scratch, __pud(pmd_val(entry)));
}

static void invalid_table_entry_no_pair_test(struct kunit *test)
{
	const struct table_write *w = test->param_value;
	pmd_t entry = pmd_mkinvalid(pfn_pmd(page_to_pfn(ZERO_PAGE(0)),
					    PAGE_KERNEL));
	u64 scratch = 0;
	unsigned int outside, inside;
	struct mm_recorder *rec;
	bool pending;

	KUNIT_ASSERT_TRUE(test, pmd_present(entry) && !pmd_valid(entry));
	rec = mm_recorder_start(test, &init_mm);
	invalid_entry_write(w, &scratch, entry);
	outside = rec->nr_barriers;
	arch_enter_lazy_mmu_mode();
	invalid_entry_write(w, &scratch, entry);
	pending = barriers_pending();
	arch_leave_lazy_mmu_mode();
	inside = rec->nr_barriers - outside;
	mm_recorder_stop(rec);

	KUNIT_EXPECT_EQ_MSG(test, outside, 0,
			    "a %s write of an invalid entry issued a pair", w->desc);
	KUNIT_EXPECT_FALSE(test, pending);
	KUNIT_EXPECT_EQ_MSG(test, inside, 0,
			    "a %s write of an invalid entry left a pair to the leave",
			    w->desc);
}

/*
 * Leaving a section that was never entered changes nothing: nothing is
 * pending, so no pair, and the next section still defers.
 */
static void unbalanced_leave_harmless_test(struct kunit *test)
{
	unsigned int unbalanced, in_section, after;
	bool lazy_after_unbalanced;
	struct live_pte k;
	struct mm_recorder *rec;

	live_pte_init(test, &k);
	rec = mm_recorder_start(test, &init_mm);
	arch_leave_lazy_mmu_mode();
	unbalanced = rec->nr_barriers;
	lazy_after_unbalanced = in_lazy_mode();

	arch_enter_lazy_mmu_mode();
	live_pte_write(&k);
	in_section = rec->nr_barriers;
	arch_leave_lazy_mmu_mode();
	after = rec->nr_barriers;
	mm_recorder_stop(rec);

	KUNIT_EXPECT_EQ(test, unbalanced, 0);
	KUNIT_EXPECT_FALSE(test, lazy_after_unbalanced);
	KUNIT_EXPECT_EQ_MSG(test, in_section, 0,
			    "a section entered after an unbalanced leave did not defer");
	KUNIT_EXPECT_EQ(test, after, 1);
	KUNIT_EXPECT_FALSE(test, in_lazy_mode());
}

/*
 * ioremap_page_range() writes its ptes through vmap_pte_range(), the other
 * pte loop of vmalloc.c: inside the mode too, so a range within one pte
 * table costs one pair, not one per page. The physical range starts a page
 * into a block, so that no contiguous block is made.
 */
#define IOREMAP_PAGES	(2 * CONT_PTES)
#define IOREMAP_ORDER	get_order((IOREMAP_PAGES + 1) * PAGE_SIZE)

static void free_ioremap_pages(void *page)
{
	__free_pages(page, IOREMAP_ORDER);
}

static void ioremap_barrier_pairs_test(struct kunit *test)
{
	const unsigned int nr = IOREMAP_PAGES;
	struct vm_struct *area = get_vm_area(nr * PAGE_SIZE, VM_IOREMAP);
	struct page *page = alloc_pages(GFP_KERNEL, IOREMAP_ORDER);
	unsigned long start, tables;
	struct mm_recorder *rec;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, area);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			free_vm_area_wrapper, area), 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			free_ioremap_pages, page), 0);
	start = (unsigned long)area->addr;

	rec = mm_recorder_start(test, &init_mm);
	ret = ioremap_page_range(start, start + nr * PAGE_SIZE,
				 page_to_phys(page) + PAGE_SIZE, PAGE_KERNEL);
	mm_recorder_stop(rec);
	KUNIT_ASSERT_EQ(test, ret, 0);

	tables = (ALIGN(start + nr * PAGE_SIZE, PMD_SIZE) -
		  ALIGN_DOWN(start, PMD_SIZE)) / PMD_SIZE;
	kunit_info(test, "ioremap of %u pages: %u barrier pairs (%lu pte tables)\n",
		   nr, rec->nr_barriers, tables);
	KUNIT_EXPECT_GE(test, rec->nr_barriers, 1);
	KUNIT_EXPECT_LE_MSG(test, rec->nr_barriers, 2 * tables + 2,
			    "a pair for each page ioremap_page_range() wrote");
	/* It returned: the mode is left and what it deferred was issued. */
	KUNIT_EXPECT_FALSE(test, in_lazy_mode());
	KUNIT_EXPECT_FALSE(test, barriers_pending());
}

/*
 * Barrier pairs one vmalloc() of p pages issues: one per page without
 * batching; with it, one per pte table written, plus one for each table
 * entry vmalloc had to populate first, however many pages.
 */
static const unsigned int vmalloc_page_counts[] = { 1, 16, 256 };

static void vmalloc_page_count_desc(const unsigned int *nr, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u_pages", *nr);
}

KUNIT_ARRAY_PARAM(vmalloc_page_count, vmalloc_page_counts,
		  vmalloc_page_count_desc);

static void vmalloc_barrier_pairs_test(struct kunit *test)
{
	unsigned int nr = *(const unsigned int *)test->param_value;
	unsigned long start, tables;
	struct mm_recorder *rec;
	void *addr;

	/*
	 * Both map kernel memory of their own from inside vmalloc(), on the
	 * case's task: the linear map of every page allocated, the KASAN
	 * shadow of the area. The sanitizer lane has them; the count is
	 * checked where they are off (kunit/sanitizers-deviations.tsv).
	 */
	if (debug_pagealloc_enabled() || IS_ENABLED(CONFIG_KASAN_VMALLOC))
		kunit_skip(test, "DEBUG_PAGEALLOC or KASAN_VMALLOC maps pages of its own");
	rec = mm_recorder_start(test, &init_mm);
	addr = vmalloc(nr * PAGE_SIZE);
	mm_recorder_stop(rec);

	start = (unsigned long)kunit_vm_area(test, addr)->addr;
	tables = (ALIGN(start + nr * PAGE_SIZE, PMD_SIZE) -
		  ALIGN_DOWN(start, PMD_SIZE)) / PMD_SIZE;
	kunit_info(test, "vmalloc of %u pages: %u barrier pairs (%lu pte tables)\n",
		   nr, rec->nr_barriers, tables);
	/*
	 * vmalloc() returned: the mode is left and what it deferred was
	 * issued, at least the pair of the last pte table written.
	 */
	KUNIT_EXPECT_FALSE(test, in_lazy_mode());
	KUNIT_EXPECT_FALSE(test, barriers_pending());
	KUNIT_EXPECT_GE_MSG(test, rec->nr_barriers, 1,
			    "the area's entries were written without a barrier pair");
	/* A pmd and a pud table may be new too: their entries, once each. */
	KUNIT_EXPECT_LE(test, rec->nr_barriers, 2 * tables + 2);
}

/*
 * vmap() of an array with a hole fails half way through the pte loop (with a
 * WARN, see kunit/warnings.tsv): the mode must be left on that path too, so
 * the task's next kernel write gets its pair at once.
 */
static void vmap_error_leaves_mode_test(struct kunit *test)
{
	struct page *pages[4] = {};
	struct live_pte k;
	struct mm_recorder *rec;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pages) - 1; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
				free_page_action, pages[i]), 0);
	}
	live_pte_init(test, &k);

	warn_watch_start(test, " at mm/vmalloc.c:", "vmap_");
	KUNIT_EXPECT_NULL(test, vmap(pages, ARRAY_SIZE(pages), VM_MAP,
				     PAGE_KERNEL));
	console_watch_stop();
	KUNIT_EXPECT_STRNEQ_MSG(test, console_watch_line(), "",
				"vmap() of a page array with a hole did not warn");
	KUNIT_EXPECT_FALSE(test, in_lazy_mode());
	KUNIT_EXPECT_FALSE(test, barriers_pending());

	rec = mm_recorder_start(test, &init_mm);
	live_pte_write(&k);
	KUNIT_EXPECT_EQ(test, rec->nr_barriers, 1);
}

/*
 * Only the case's own task counts, not every task that carries the case's
 * struct kunit (an earlier case's thread still exiting does, see
 * recorder_of() in mm_recorder.c). Here another thread with the case's
 * pointer writes a live kernel pte while the case records.
 */
struct other_task_write {
	struct kunit *test;
	struct live_pte *k;
	struct completion done;
};

static int other_task_write_fn(void *data)
{
	struct other_task_write *w = data;

	current->kunit_test = w->test;
	live_pte_write(w->k);
	current->kunit_test = NULL;
	complete(&w->done);
	return 0;
}

KUNIT_DEFINE_ACTION_WRAPPER(kthread_stop_put_wrapper, kthread_stop_put,
			    struct task_struct *);

static void other_task_pair_not_counted_test(struct kunit *test)
{
	struct other_task_write w = { .test = test };
	struct task_struct *task;
	struct mm_recorder *rec;
	struct live_pte k;

	live_pte_init(test, &k);
	w.k = &k;
	init_completion(&w.done);
	/* Created before recording: only the other thread's write is seen. */
	task = kthread_create(other_task_write_fn, &w, "mm_series_other");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	/* Reaped at the end; never run if the case stops before the wake. */
	get_task_struct(task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			kthread_stop_put_wrapper, task), 0);

	rec = mm_recorder_start(test, &init_mm);
	wake_up_process(task);
	wait_for_completion(&w.done);
	mm_recorder_stop(rec);

	KUNIT_EXPECT_EQ_MSG(test, rec->nr_barriers, 0,
			    "another thread's pair was counted as the case's");
	KUNIT_EXPECT_EQ(test, rec->nr_softirq_barriers, 0);
	KUNIT_EXPECT_EQ(test, rec->nr_irq_barriers, 0);
}

static struct kunit_case arm64_lazy_mmu_cases[] = {
	KUNIT_CASE(kernel_write_outside_mode_test),
	KUNIT_CASE(kernel_write_deferred_test),
	KUNIT_CASE(kernel_writes_one_pair_test),
	KUNIT_CASE(empty_section_no_pair_test),
	KUNIT_CASE(nested_sections_test),
	KUNIT_CASE(bh_leave_stays_lazy_until_next_leave_test),
	KUNIT_CASE(bh_disabled_enter_does_nothing_test),
	KUNIT_CASE(bh_disabled_flush_leaves_pair_pending_test),
	KUNIT_CASE(user_write_not_deferred_test),
	KUNIT_CASE(irq_write_immediate_test),
	KUNIT_CASE(softirq_write_immediate_test),
	KUNIT_CASE_PARAM(table_write_deferred_test, table_write_gen_params),
	KUNIT_CASE_PARAM(invalid_table_entry_no_pair_test,
			 invalid_entry_gen_params),
	KUNIT_CASE(unbalanced_leave_harmless_test),
	KUNIT_CASE(ioremap_barrier_pairs_test),
	KUNIT_CASE_PARAM(vmalloc_barrier_pairs_test,
			 vmalloc_page_count_gen_params),
	KUNIT_CASE(vmap_error_leaves_mode_test),
	KUNIT_CASE(other_task_pair_not_counted_test),
	{}
};

static int arm64_lazy_mmu_suite_init(struct kunit_suite *suite)
{
	int ret = mm_recorder_register();

	if (ret)
		return ret;
	ret = console_watch_register();
	if (ret)
		mm_recorder_unregister();
	return ret;
}

static void arm64_lazy_mmu_suite_exit(struct kunit_suite *suite)
{
	console_watch_unregister();
	mm_recorder_unregister();
}

static struct kunit_suite arm64_lazy_mmu_suite = {
	.name = "arm64_lazy_mmu",
	.suite_init = arm64_lazy_mmu_suite_init,
	.suite_exit = arm64_lazy_mmu_suite_exit,
	.test_cases = arm64_lazy_mmu_cases,
};
kunit_test_suites(&arm64_lazy_mmu_suite);

MODULE_DESCRIPTION("KUnit tests for arm64 lazy MMU mode barriers");
MODULE_LICENSE("GPL");
