// SPDX-License-Identifier: GPL-2.0
/*
 * The test_vmalloc cases (lib/test_vmalloc.c) as benchmarks of the series'
 * harness, with test_vmalloc's parameters: p (nr_pages), h (use_huge) and
 * the loop count, scaled by the profile; and the vfree-heavy loads of the
 * seeds 001 and 004. Each body is test_vmalloc's, so that the two can be
 * compared directly; only the timing and the reporting differ, and two
 * things that make a sample repeat from boot to boot under QEMU's icount
 * clock: the random sizes come from a PRNG seeded the same way in every
 * sample (test_vmalloc draws them from get_random_*()), and the cases
 * whose frees are deferred settle them before the sample ends (the lazy
 * vmap purge of vfree() and vm_unmap_ram(), the batches of kvfree_rcu()),
 * so that each sample pays for its own deferred work, not for a share of
 * it that depends on when a worker or a grace period happened to run.
 */
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "mm_bench.h"

/* The seeds' loop count (seed 000: 500000 loops per test). */
#define SEED_LOOPS	500000

/* The same pseudo-random sizes in every sample, boot and tree. */
#define BENCH_RND_SEED	0x6d6d5f62656e6368ULL

static u32 bench_rnd_inclusive(struct rnd_state *rnd, u32 lo, u32 hi)
{
	return lo + prandom_u32_state(rnd) % (hi - lo + 1);
}

struct vmalloc_bench {
	const char *name;
	int (*fn)(unsigned int p, bool h, unsigned int loops);
	unsigned int p;
	bool h;
	unsigned int full_loops;
};

static int fix_size_alloc(unsigned int p, bool h, unsigned int loops)
{
	void *ptr;

	while (loops--) {
		ptr = h ? vmalloc_huge(p * PAGE_SIZE, GFP_KERNEL) :
			  vmalloc(p * PAGE_SIZE);
		if (!ptr)
			return -ENOMEM;
		vfree(ptr);
	}
	return 0;
}

static int fix_align_alloc(unsigned int p, bool h, unsigned int loops)
{
	void *ptr;

	while (loops--) {
		ptr = __vmalloc_node(5 * PAGE_SIZE, THREAD_ALIGN << 1,
				     GFP_KERNEL | __GFP_ZERO, 0,
				     __builtin_return_address(0));
		if (!ptr)
			return -ENOMEM;
		vfree(ptr);
	}
	return 0;
}

static int random_size_alloc(unsigned int p, bool h, unsigned int loops)
{
	struct rnd_state rnd;
	void *ptr;

	prandom_seed_state(&rnd, BENCH_RND_SEED);
	while (loops--) {
		ptr = vmalloc(bench_rnd_inclusive(&rnd, 1, 100) * PAGE_SIZE);
		if (!ptr)
			return -ENOMEM;
		vfree(ptr);
	}
	return 0;
}

static int random_size_align_alloc(unsigned int p, bool h, unsigned int loops)
{
	struct rnd_state state;
	unsigned int rnd;
	void *ptr;

	prandom_seed_state(&state, BENCH_RND_SEED);
	while (loops--) {
		rnd = (u8)prandom_u32_state(&state);
		ptr = __vmalloc_node(((rnd % 10) + 1) * PAGE_SIZE,
				     1UL << (rnd % 23), GFP_KERNEL | __GFP_ZERO,
				     0, __builtin_return_address(0));
		if (!ptr)
			return -ENOMEM;
		vfree(ptr);
	}
	return 0;
}

/* Allocation among 15000 busy one-page areas. */
static int long_busy_list_alloc(unsigned int p, bool h, unsigned int loops)
{
	const unsigned int nr_busy = 15000;
	void **busy, *ptr_1, *ptr_2;
	int ret = -ENOMEM;
	unsigned int i;

	busy = vmalloc(array_size(nr_busy, sizeof(*busy)));
	if (!busy)
		return -ENOMEM;
	for (i = 0; i < nr_busy; i++)
		busy[i] = vmalloc(PAGE_SIZE);

	while (loops--) {
		ptr_1 = vmalloc(100 * PAGE_SIZE);
		ptr_2 = vmalloc(PAGE_SIZE);
		vfree(ptr_1);
		vfree(ptr_2);
		if (!ptr_1 || !ptr_2)
			goto out;
	}
	ret = 0;
out:
	for (i = 0; i < nr_busy; i++)
		vfree(busy[i]);
	vfree(busy);
	return ret;
}

/* Allocation into the holes of a fragmented vmalloc space. */
static int full_fit_alloc(unsigned int p, bool h, unsigned int loops)
{
	unsigned int i, nr = fls(num_online_cpus()) * (SZ_32M / PAGE_SIZE);
	void **keep, **junk, *ptr;
	int ret = -ENOMEM;

	keep = vmalloc(array_size(nr, sizeof(*keep)));
	junk = vmalloc(array_size(nr, sizeof(*junk)));
	if (!keep || !junk)
		goto out_arrays;
	for (i = 0; i < nr; i++) {
		keep[i] = vmalloc(PAGE_SIZE);
		junk[i] = vmalloc(PAGE_SIZE);
	}
	for (i = 0; i < nr; i++)
		vfree(junk[i]);

	while (loops--) {
		ptr = vmalloc(PAGE_SIZE);
		if (!ptr)
			goto out;
		vfree(ptr);
	}
	ret = 0;
out:
	for (i = 0; i < nr; i++)
		vfree(keep[i]);
out_arrays:
	vfree(keep);
	vfree(junk);
	return ret;
}

/* 35000 per-cpu allocations and frees; test_vmalloc ignores loops here. */
static int pcpu_alloc(unsigned int p, bool h, unsigned int loops)
{
	const unsigned int nr = 35000;
	void __percpu **pcpu;
	struct rnd_state rnd;
	unsigned int i;
	int ret = 0;

	pcpu = vmalloc(array_size(nr, sizeof(*pcpu)));
	if (!pcpu)
		return -ENOMEM;
	prandom_seed_state(&rnd, BENCH_RND_SEED);
	for (i = 0; i < nr; i++) {
		pcpu[i] = __alloc_percpu(bench_rnd_inclusive(&rnd, 1,
							     PAGE_SIZE / 4),
					 1 << bench_rnd_inclusive(&rnd, 1, 11));
		if (!pcpu[i])
			ret = -ENOMEM;
	}
	for (i = 0; i < nr; i++)
		free_percpu(pcpu[i]);
	vfree(pcpu);
	return ret;
}

struct rcu_freed {
	struct rcu_head rcu;
	unsigned char array[20];
};

static int kvfree_rcu_1_arg(unsigned int p, bool h, unsigned int loops)
{
	struct rcu_freed *ptr;

	while (loops--) {
		ptr = vmalloc(PAGE_SIZE);
		if (!ptr)
			return -ENOMEM;
		ptr->array[0] = 'a';
		kvfree_rcu_mightsleep(ptr);
	}
	/* The frees this sample queued, done before it ends. */
	kvfree_rcu_barrier();
	return 0;
}

static int kvfree_rcu_2_arg(unsigned int p, bool h, unsigned int loops)
{
	struct rcu_freed *ptr;

	while (loops--) {
		ptr = vmalloc(PAGE_SIZE);
		if (!ptr)
			return -ENOMEM;
		ptr->array[0] = 'a';
		kvfree_rcu(ptr, rcu);
	}
	kvfree_rcu_barrier();
	return 0;
}

static int vm_map_ram_loop(unsigned int p, bool h, unsigned int loops)
{
	unsigned long nr_allocated;
	struct page **pages;
	void *ptr;
	int ret = -ENOMEM;

	pages = kcalloc(p, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	nr_allocated = alloc_pages_bulk_array(GFP_KERNEL, p, pages);
	if (nr_allocated != p)
		goto out;
	while (loops--) {
		ptr = vm_map_ram(pages, p, NUMA_NO_NODE);
		if (!ptr)
			goto out;
		vm_unmap_ram(ptr, p);
	}
	/* The lazily unmapped blocks, purged before the sample ends. */
	vm_unmap_aliases();
	ret = 0;
out:
	while (nr_allocated--)
		__free_page(pages[nr_allocated]);
	kfree(pages);
	return ret;
}

/* Seeds 001 and 004: vmalloc and vfree of 4 MiB and of 100 pages. */
static int vfree_heavy(unsigned int p, bool h, unsigned int loops)
{
	int ret = fix_size_alloc(p, false, loops);

	/* The lazy purge of the areas this sample freed, before it ends. */
	vm_unmap_aliases();
	return ret;
}

static const struct vmalloc_bench vmalloc_benches[] = {
	{ "fix_size_alloc_test", fix_size_alloc, 1, false, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 1, true, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 2, false, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 2, true, SEED_LOOPS },
	/* Seed 001 (Rezki): 3 pages, served from the per-cpu lists. */
	{ "fix_size_alloc_test", fix_size_alloc, 3, false, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 4, false, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 4, true, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 8, false, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 8, true, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 16, false, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 16, true, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 32, false, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 32, true, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 64, false, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 64, true, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 128, false, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 128, true, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 256, false, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 256, true, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 512, false, SEED_LOOPS },
	{ "fix_size_alloc_test", fix_size_alloc, 512, true, SEED_LOOPS },
	{ "fix_align_alloc_test", fix_align_alloc, 1, false, SEED_LOOPS },
	{ "full_fit_alloc_test", full_fit_alloc, 1, false, SEED_LOOPS },
	{ "long_busy_list_alloc_test", long_busy_list_alloc, 1, false,
	  SEED_LOOPS },
	{ "random_size_alloc_test", random_size_alloc, 1, false, SEED_LOOPS },
	{ "random_size_align_alloc_test", random_size_align_alloc, 1, false,
	  SEED_LOOPS },
	{ "pcpu_alloc_test", pcpu_alloc, 1, false, 1 },
	{ "kvfree_rcu_1_arg_vmalloc_test", kvfree_rcu_1_arg, 1, false,
	  SEED_LOOPS },
	{ "kvfree_rcu_2_arg_vmalloc_test", kvfree_rcu_2_arg, 1, false,
	  SEED_LOOPS },
	{ "vm_map_ram_test", vm_map_ram_loop, 1, false, SEED_LOOPS },
	/* Seed 001 (Rezki): 1M loops of 100 pages; seed 004: 4 MiB. */
	{ "vfree_heavy_100_pages", vfree_heavy, 100, false, 1000000 },
	{ "vfree_heavy_4M", vfree_heavy, SZ_4M / PAGE_SIZE, false, 100000 },
};

static void vmalloc_bench_desc(const struct vmalloc_bench *b, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s_p%u_h%d", b->name, b->p,
		 b->h);
}

KUNIT_ARRAY_PARAM(vmalloc_bench, vmalloc_benches, vmalloc_bench_desc);

static int vmalloc_bench_body(void *arg, unsigned int loops)
{
	const struct vmalloc_bench *b = arg;

	return b->fn(b->p, b->h, loops);
}

static void vmalloc_bench_test(struct kunit *test)
{
	const struct vmalloc_bench *b = test->param_value;
	struct mm_bench bench = {
		.suite = "vmalloc", .name = b->name,
		.full_loops = b->full_loops,
	};

	snprintf(bench.params, sizeof(bench.params), "p=%u h=%d", b->p, b->h);
	mm_bench_time(test, &bench, vmalloc_bench_body, (void *)b);
}

static struct kunit_case vmalloc_bench_cases[] = {
	KUNIT_CASE_PARAM_ATTR(vmalloc_bench_test, vmalloc_bench_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite vmalloc_bench_suite = {
	.name = "mm_bench_vmalloc",
	.test_cases = vmalloc_bench_cases,
};
kunit_test_suites(&vmalloc_bench_suite);

MODULE_DESCRIPTION("test_vmalloc's cases as benchmarks of the series");
MODULE_LICENSE("GPL");
