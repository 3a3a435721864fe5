// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the page cache's folio sizes (seed 002, F15):
 *
 * thp_file_enabled: /sys/kernel/mm/transparent_hugepage/hugepages-<size>kB/
 *   file_enabled through its store and show handlers (sysfs mounted in
 *   the kernel): every transition between always, always+exec and never,
 *   bad input refused with -EINVAL and no change, and concurrent writers
 *   leaving at most one exec size.
 *
 * file_exec_readahead: what a fault reads into the page cache of a mapped
 *   file (a sparse ramfs file that takes large folios): with a size marked
 *   always+exec, a fault in an executable mapping reads exactly the
 *   naturally aligned folio of that size (within the mapping's folio
 *   orders, EOF and the VMA), unless readahead's guards say not to read
 *   ahead at all (readahead off, MADV_RANDOM, a thrashing file), where it
 *   reads just the faulting page; file_enabled keeps read-around to the
 *   allowed sizes;
 *   with no exec size, or in a mapping that is not executable, the folios
 *   are those of the unpatched kernel.
 *
 * On a tree without the control, the cases that need it skip; the ones
 * that compare with the unpatched behaviour pass there too.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pagemap.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "kern_mount_fixture.h"
#include "page_cache_file.h"
#include "page_events.h"

#define THP_DIR		"kernel/mm/transparent_hugepage"
#define SHOW_MAX	64
#define FOLIOS_MAX	64

/*
 * Sizes with a file_enabled control: order 1 up to the page cache's max,
 * which is at most PMD_ORDER (and not a constant expression).
 */
#define FILE_ORDER_MIN	1
#define FILE_ORDER_MAX	MAX_PAGECACHE_ORDER
#define ORDERS_SPACE	(PMD_ORDER + 1)

#define SHOW_ALWAYS	"[always] always+exec never"
#define SHOW_EXEC	"always [always+exec] never"
#define SHOW_NEVER	"always always+exec [never]"

static unsigned int order_kb(unsigned int order)
{
	return (PAGE_SIZE << order) / SZ_1K;
}

/*
 * The sizes the cases use, in pages, so that they mean the same on every
 * granule: 16 pages is 64K on 4K pages, the size arm64 maps with
 * contiguous ptes there; on 16K and 64K pages it is 256K and 1M.
 */
#define ORDER_16_PAGES	4
#define ORDER_4_PAGES	2

static struct file *control_open(struct vfsmount *mnt, unsigned int order,
				 int flags)
{
	char path[96];

	snprintf(path, sizeof(path), THP_DIR "/hugepages-%ukB/file_enabled",
		 order_kb(order));
	return file_open_root_mnt(mnt, path, flags, 0);
}

/* The handler's return: bytes taken, or the error. */
static ssize_t control_write(struct vfsmount *mnt, unsigned int order,
			     const char *value)
{
	char path[96];

	snprintf(path, sizeof(path), THP_DIR "/hugepages-%ukB/file_enabled",
		 order_kb(order));
	return kern_mount_write(mnt, path, value);
}

/* What show prints, without the newline; "" if it cannot be read. */
static void control_show(struct vfsmount *mnt, unsigned int order,
			 char buf[SHOW_MAX])
{
	struct file *file = control_open(mnt, order, O_RDONLY);
	loff_t pos = 0;
	ssize_t len;

	buf[0] = '\0';
	if (IS_ERR(file))
		return;
	len = kernel_read(file, buf, SHOW_MAX - 1, &pos);
	fput(file);
	if (len <= 0)
		return;
	buf[len] = '\0';
	if (buf[len - 1] == '\n')
		buf[len - 1] = '\0';
}

/* Every size's setting when the case started, put back when it ends. */
struct file_enabled_state {
	struct vfsmount *mnt;
	char shows[ORDERS_SPACE][SHOW_MAX];	/* by order */
};

static const char *shown_value(const char *show)
{
	if (!strcmp(show, SHOW_EXEC))
		return "always+exec";
	if (!strcmp(show, SHOW_NEVER))
		return "never";
	return "always";
}

static void file_enabled_restore(void *data)
{
	struct file_enabled_state *state = data;
	unsigned int order;

	/* The exec size last: writing always+exec takes it from others. */
	for (order = FILE_ORDER_MIN; order <= FILE_ORDER_MAX; order++)
		control_write(state->mnt, order, shown_value(state->shows[order]));
	for (order = FILE_ORDER_MIN; order <= FILE_ORDER_MAX; order++)
		if (!strcmp(state->shows[order], SHOW_EXEC))
			control_write(state->mnt, order, "always+exec");
}

/*
 * Mounts sysfs and saves every size's setting, restored when the case
 * ends; skips on a tree without the control.
 */
static struct vfsmount *file_enabled_begin(struct kunit *test)
{
	struct file_enabled_state *state;
	unsigned int order;
	struct file *file;

	state = kunit_kzalloc(test, sizeof(*state), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, state);
	state->mnt = kunit_kern_mount(test, "sysfs");

	file = control_open(state->mnt, ORDER_16_PAGES, O_RDONLY);
	if (IS_ERR(file))
		kunit_skip(test, IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) ?
			   "the tree has no file_enabled control" :
			   "needs CONFIG_TRANSPARENT_HUGEPAGE (the file_enabled controls are THP's)");
	fput(file);

	for (order = FILE_ORDER_MIN; order <= FILE_ORDER_MAX; order++) {
		control_show(state->mnt, order, state->shows[order]);
		KUNIT_ASSERT_STRNEQ(test, state->shows[order], "");
	}
	/* The cases are written against the control 0022 completes. */
	if (!strstr(state->shows[ORDER_16_PAGES], "always+exec"))
		kunit_skip(test, "the tree's file_enabled has no always+exec: %s",
			   state->shows[ORDER_16_PAGES]);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			file_enabled_restore, state), 0);
	return state->mnt;
}

/* The sizes whose show has always+exec bracketed. */
static unsigned int exec_sizes(struct vfsmount *mnt, unsigned int *exec_order)
{
	unsigned int order, nr = 0;
	char show[SHOW_MAX];

	for (order = FILE_ORDER_MIN; order <= FILE_ORDER_MAX; order++) {
		control_show(mnt, order, show);
		if (!strcmp(show, SHOW_EXEC)) {
			*exec_order = order;
			nr++;
		}
	}
	return nr;
}

static void expect_show(struct kunit *test, struct vfsmount *mnt,
			unsigned int order, const char *want)
{
	char show[SHOW_MAX];

	control_show(mnt, order, show);
	KUNIT_EXPECT_STREQ_MSG(test, show, want, "hugepages-%ukB",
			       order_kb(order));
}

/*
 * One write to the 16-page size from each state, with the 4-page size
 * holding the exec mark first: what both show after it. From always+exec,
 * the setup has already taken the mark from the 4-page size (checked
 * before the write): the write under test must not give it back.
 */
struct file_enabled_transition {
	const char *desc;
	const char *from;
	const char *write;
	const char *shows;
	const char *shows_4_pages;
};

#define NOT_MOVED	SHOW_EXEC	/* 4 pages keep the exec mark */
#define MOVED		SHOW_ALWAYS	/* always+exec on 16 pages took it */

static const struct file_enabled_transition file_enabled_transitions[] = {
	{ "always_to_always", "always", "always", SHOW_ALWAYS, NOT_MOVED },
	{ "always_to_exec", "always", "always+exec", SHOW_EXEC, MOVED },
	{ "always_to_never", "always", "never", SHOW_NEVER, NOT_MOVED },
	{ "exec_to_always", "always+exec", "always", SHOW_ALWAYS, MOVED },
	{ "exec_to_exec", "always+exec", "always+exec", SHOW_EXEC, MOVED },
	{ "exec_to_never", "always+exec", "never", SHOW_NEVER, MOVED },
	{ "never_to_always", "never", "always", SHOW_ALWAYS, NOT_MOVED },
	{ "never_to_exec", "never", "always+exec", SHOW_EXEC, MOVED },
	{ "never_to_never", "never", "never", SHOW_NEVER, NOT_MOVED },
	/* sysfs_streq(): one trailing newline, as echo writes it */
	{ "never_to_exec_newline", "never", "always+exec\n", SHOW_EXEC,
	  MOVED },
};

KUNIT_ARRAY_PARAM_DESC(file_enabled_transition, file_enabled_transitions, desc);

static void file_enabled_transition_test(struct kunit *test)
{
	const struct file_enabled_transition *t = test->param_value;
	struct vfsmount *mnt = file_enabled_begin(test);
	unsigned int o16 = ORDER_16_PAGES, o4 = ORDER_4_PAGES, exec;

	KUNIT_ASSERT_EQ(test, control_write(mnt, o4, "always+exec"),
			(ssize_t)strlen("always+exec"));
	KUNIT_ASSERT_EQ(test, control_write(mnt, o16, t->from),
			(ssize_t)strlen(t->from));
	expect_show(test, mnt, o4, strcmp(t->from, "always+exec") ?
		    NOT_MOVED : MOVED);

	KUNIT_EXPECT_EQ(test, control_write(mnt, o16, t->write),
			(ssize_t)strlen(t->write));
	expect_show(test, mnt, o16, t->shows);
	expect_show(test, mnt, o4, t->shows_4_pages);
	KUNIT_EXPECT_LE(test, exec_sizes(mnt, &exec), 1);
}

/* Refused with -EINVAL, and no size's setting changes. */
struct bad_input {
	const char *desc;
	const char *input;
};

static const struct bad_input file_enabled_bad_inputs[] = {
	{ "newline_only", "\n" },
	{ "sometimes", "sometimes" },
	{ "always_plus", "always+" },
	{ "exec_twice", "always+exec+exec" },
	{ "exec", "exec" },
	{ "plus_exec", "+exec" },
	{ "upper_case", "ALWAYS" },
	{ "two_values", "always never" },
	{ "bracketed", "[always]" },
	{ "two_newlines", "always\n\n" },
	{ "anon_madvise", "madvise" },
	{ "anon_inherit", "inherit" },
};

KUNIT_ARRAY_PARAM_DESC(file_enabled_bad_input, file_enabled_bad_inputs, desc);

static void file_enabled_bad_input_test(struct kunit *test)
{
	const char *input = ((const struct bad_input *)test->param_value)->input;
	struct vfsmount *mnt = file_enabled_begin(test);
	char before[ORDERS_SPACE][SHOW_MAX], after[SHOW_MAX];
	unsigned int order;

	/* One size of each state, so that any change would show. */
	KUNIT_ASSERT_GT(test, control_write(mnt, ORDER_4_PAGES, "never"), 0);
	KUNIT_ASSERT_GT(test, control_write(mnt, ORDER_16_PAGES, "always+exec"), 0);
	for (order = FILE_ORDER_MIN; order <= FILE_ORDER_MAX; order++)
		control_show(mnt, order, before[order]);

	KUNIT_EXPECT_EQ(test, control_write(mnt, ORDER_16_PAGES, input),
			(ssize_t)-EINVAL);
	KUNIT_EXPECT_EQ(test, control_write(mnt, ORDER_4_PAGES, input),
			(ssize_t)-EINVAL);
	for (order = FILE_ORDER_MIN; order <= FILE_ORDER_MAX; order++) {
		control_show(mnt, order, after);
		KUNIT_EXPECT_STREQ_MSG(test, after,
				       before[order],
				       "hugepages-%ukB", order_kb(order));
	}
}

/*
 * Writers on the same size and on another at once: however their stores
 * interleave, at most one size shows always+exec, and a fault in an
 * executable mapping does what the settings show (a store's bit and exec
 * mark must not come apart).
 */
#define WRITER_ROUNDS		500

struct file_enabled_writer {
	struct vfsmount *mnt;
	unsigned int order;
	const char * const *values;	/* cycled through, NULL-terminated */
	struct completion *start;
	struct completion done;
	int errors;
};

static const char * const exec_never[] = { "always+exec", "never", NULL };
static const char * const never_exec_always[] = {
	"never", "always+exec", "always", NULL,
};

static int file_enabled_writer_fn(void *data)
{
	struct file_enabled_writer *w = data;
	unsigned int round, i;

	wait_for_completion(w->start);
	for (round = 0; round < WRITER_ROUNDS; round++) {
		for (i = 0; w->values[i]; i++) {
			if (control_write(w->mnt, w->order, w->values[i]) !=
			    strlen(w->values[i]))
				w->errors++;
		}
	}
	complete(&w->done);
	return 0;
}

static unsigned int folios_after_fault(struct kunit *test,
				       struct vfsmount *mnt, bool exec,
				       pgoff_t index,
				       struct page_cache_folio *folios);

static void file_enabled_concurrent_test(struct kunit *test)
{
	struct vfsmount *mnt = file_enabled_begin(test);
	struct vfsmount *ramfs = kunit_kern_mount(test, "ramfs");
	struct file_enabled_writer writers[] = {
		{ mnt, ORDER_16_PAGES, exec_never },
		{ mnt, ORDER_16_PAGES, never_exec_always },
		{ mnt, ORDER_4_PAGES, exec_never },
	};
	/* Off the stack: two of them exceed a debug kernel's frame limit. */
	struct page_cache_folio *text, *data;
	struct task_struct *tasks[ARRAY_SIZE(writers)];
	DECLARE_COMPLETION_ONSTACK(start);
	unsigned int i, started, exec = 0, nr_exec, nr_text, nr_data;

	text = kunit_kcalloc(test, FOLIOS_MAX, sizeof(*text), GFP_KERNEL);
	data = kunit_kcalloc(test, FOLIOS_MAX, sizeof(*data), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, text);
	KUNIT_ASSERT_NOT_NULL(test, data);

	for (i = 0; i < ARRAY_SIZE(writers); i++) {
		writers[i].start = &start;
		init_completion(&writers[i].done);
		tasks[i] = kthread_run(file_enabled_writer_fn, &writers[i],
				       "file_enabled_w%u", i);
		if (IS_ERR(tasks[i]))
			break;
		get_task_struct(tasks[i]);
	}
	/* The writers started are let go and reaped even if one is missing. */
	started = i;
	complete_all(&start);
	/* Stopped only once done: a kthread stopped early never runs. */
	for (i = 0; i < started; i++) {
		wait_for_completion(&writers[i].done);
		kthread_stop(tasks[i]);
		put_task_struct(tasks[i]);
		KUNIT_EXPECT_EQ(test, writers[i].errors, 0);
	}
	KUNIT_ASSERT_EQ_MSG(test, started, ARRAY_SIZE(writers),
			    "could not start every writer");

	nr_exec = exec_sizes(mnt, &exec);
	KUNIT_EXPECT_LE(test, nr_exec, 1);
	nr_text = folios_after_fault(test, ramfs, true, 37, text);
	if (nr_exec == 1) {
		struct page_cache_folio want = {
			round_down(37, 1UL << exec), exec
		};

		KUNIT_EXPECT_EQ(test, nr_text, 1);
		KUNIT_EXPECT_EQ(test, text[0].index, want.index);
		KUNIT_EXPECT_EQ(test, text[0].order, want.order);
	} else {
		/* No exec size shown: text is read like data. */
		nr_data = folios_after_fault(test, ramfs, false, 37, data);
		KUNIT_EXPECT_EQ(test, nr_text, nr_data);
		KUNIT_EXPECT_GT(test, nr_text, 1);
	}
}

static unsigned int expect_exec_reads_like_data(struct kunit *test,
						struct vfsmount *mnt);

/*
 * No size is always+exec by default (admin-guide/mm/transhuge.rst): a
 * fault in an executable mapping reads around like one in a data mapping
 * before anything was written to file_enabled. The first case of the
 * first suite, so that no write comes before it; no_exec_size_unchanged
 * checks the same after a mark was taken off.
 */
static void exec_default_reads_around_test(struct kunit *test)
{
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");

	/* Read-around reads more than the faulting page's folio. */
	KUNIT_EXPECT_GT(test, expect_exec_reads_like_data(test, mnt), 1);
}

/*
 * Each size's file_enabled is a sysfs attribute like its neighbours: mode
 * 0644 (root writes, everyone reads), and a show of one line ending in a
 * newline.
 */
static void file_enabled_attribute_test(struct kunit *test)
{
	struct vfsmount *mnt = file_enabled_begin(test);
	unsigned int order;

	for (order = FILE_ORDER_MIN; order <= FILE_ORDER_MAX; order++) {
		struct file *file = control_open(mnt, order, O_RDONLY);
		char buf[SHOW_MAX];
		loff_t pos = 0;
		umode_t mode;
		ssize_t len;

		KUNIT_ASSERT_FALSE(test, IS_ERR(file));
		mode = file_inode(file)->i_mode & 0777;
		len = kernel_read(file, buf, sizeof(buf) - 1, &pos);
		fput(file);
		KUNIT_EXPECT_EQ_MSG(test, mode, 0644, "hugepages-%ukB",
				    order_kb(order));
		KUNIT_ASSERT_GT(test, len, 0);
		KUNIT_EXPECT_EQ_MSG(test, buf[len - 1], '\n',
				    "hugepages-%ukB: show without its newline",
				    order_kb(order));
	}
}

static struct kunit_case thp_file_enabled_cases[] = {
	KUNIT_CASE(exec_default_reads_around_test),
	KUNIT_CASE(file_enabled_attribute_test),
	KUNIT_CASE_PARAM(file_enabled_transition_test,
			 file_enabled_transition_gen_params),
	KUNIT_CASE_PARAM(file_enabled_bad_input_test,
			 file_enabled_bad_input_gen_params),
	KUNIT_CASE(file_enabled_concurrent_test),
	{}
};

static struct kunit_suite thp_file_enabled_suite = {
	.name = "thp_file_enabled",
	.test_cases = thp_file_enabled_cases,
};

/*
 * file_exec_readahead. A 1024-page file (4M); its mapping takes folios up
 * to the page cache's maximum unless a case narrows it.
 */
#define FILE_PAGES	1024

static void expect_folios(struct kunit *test, struct page_cache_file *f,
			  const struct page_cache_folio *want,
			  unsigned int nr_want)
{
	struct page_cache_folio got[FOLIOS_MAX];
	unsigned int nr, i;

	nr = page_cache_file_folios(f, got, ARRAY_SIZE(got));
	KUNIT_EXPECT_EQ(test, nr, nr_want);
	for (i = 0; i < min(nr, nr_want); i++) {
		KUNIT_EXPECT_EQ_MSG(test, got[i].index, want[i].index,
				    "folio %u", i);
		KUNIT_EXPECT_EQ_MSG(test, got[i].order, want[i].order,
				    "folio %u", i);
	}
}

/* The order of the folio that holds page @index; the page must be cached. */
static unsigned int folio_order_at(struct kunit *test,
				   struct page_cache_file *f, pgoff_t index)
{
	struct folio *folio = filemap_get_folio(f->mapping, index);
	unsigned int order;

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(folio), "page %lu was not read",
			       index);
	order = folio_order(folio);
	folio_put(folio);
	return order;
}

/* Whether page @index of the file is in its page cache. */
static bool page_cached(struct page_cache_file *f, pgoff_t index)
{
	struct folio *folio = filemap_get_folio(f->mapping, index);

	if (IS_ERR(folio))
		return false;
	folio_put(folio);
	return true;
}

/* Whether the folio that holds page @index carries the readahead mark. */
static bool readahead_marked(struct kunit *test, struct page_cache_file *f,
			     pgoff_t index)
{
	struct folio *folio = filemap_get_folio(f->mapping, index);
	bool marked;

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(folio), "page %lu was not read",
			       index);
	marked = folio_test_readahead(folio);
	folio_put(folio);
	return marked;
}

/*
 * Readahead is done with what it took: the file's invalidate lock is free
 * again and the task is out of the NOFS allocation scope it entered.
 */
static void expect_readahead_done(struct kunit *test,
				  struct page_cache_file *f)
{
	KUNIT_EXPECT_FALSE_MSG(test, rwsem_is_locked(&f->mapping->invalidate_lock),
			       "readahead left the invalidate lock taken");
	KUNIT_EXPECT_FALSE_MSG(test, current->flags & PF_MEMALLOC_NOFS,
			       "readahead left the task in a NOFS scope");
}

/*
 * Pages @first to @last are in naturally aligned folios, none of which
 * reaches past @end (the file's end).
 */
static void expect_aligned_folios(struct kunit *test,
				  struct page_cache_file *f, pgoff_t first,
				  pgoff_t last, pgoff_t end)
{
	pgoff_t index = first;

	while (index <= last) {
		struct folio *folio = filemap_get_folio(f->mapping, index);

		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(folio),
				       "page %lu was not read", index);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(folio->index,
						       folio_nr_pages(folio)),
				      "folio at %lu of order %u", folio->index,
				      folio_order(folio));
		KUNIT_EXPECT_LE_MSG(test, folio->index + folio_nr_pages(folio),
				    end, "folio at %lu of order %u",
				    folio->index, folio_order(folio));
		index = folio->index + folio_nr_pages(folio);
		folio_put(folio);
	}
}

/* The folios one fault at @index reads into a fresh file. */
static unsigned int folios_after_fault(struct kunit *test,
				       struct vfsmount *mnt, bool exec,
				       pgoff_t index,
				       struct page_cache_folio *folios)
{
	struct page_cache_file *f;

	f = page_cache_file_create(test, mnt, FILE_PAGES, exec, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	page_cache_file_fault(test, f, index);
	return page_cache_file_folios(f, folios, FOLIOS_MAX);
}

/*
 * A fault in an executable mapping with an exec size: one folio, the
 * naturally aligned one of that size around the fault, kept within the
 * mapping's folio orders and the end of the file.
 */
struct exec_fault {
	const char *desc;
	unsigned int exec_order;
	pgoff_t file_pages;
	/* The mapping's folio orders; max 0: the page cache's maximum. */
	unsigned int min_order, max_order;
	pgoff_t fault;
	struct page_cache_folio want;
};

static const struct exec_fault exec_faults[] = {
	{ "16_pages_at_0", 4, FILE_PAGES, 0, 0, 0, { 0, 4 } },
	{ "16_pages_at_37", 4, FILE_PAGES, 0, 0, 37, { 32, 4 } },
	{ "16_pages_at_47", 4, FILE_PAGES, 0, 0, 47, { 32, 4 } },
	{ "16_pages_at_48", 4, FILE_PAGES, 0, 0, 48, { 48, 4 } },
	{ "4_pages_at_37", 2, FILE_PAGES, 0, 0, 37, { 36, 2 } },
	{ "512_pages_at_700", 9, FILE_PAGES, 0, 0, 700, { 512, 9 } },
	/* EOF at page 40: the 16-page block at 32 is cut to 8 pages */
	{ "16_pages_at_37_eof_40", 4, 40, 0, 0, 37, { 32, 3 } },
	/* a mapping of 32-page folios at least: the exec size grows to it */
	{ "16_pages_at_37_min_32", 4, FILE_PAGES, 5, 0, 37, { 32, 5 } },
	/* a mapping of 8-page folios at most: the exec size shrinks to it */
	{ "16_pages_at_37_max_8", 4, FILE_PAGES, 0, 3, 37, { 32, 3 } },
};

KUNIT_ARRAY_PARAM_DESC(exec_fault, exec_faults, desc);

static void exec_fault_reads_one_folio_test(struct kunit *test)
{
	const struct exec_fault *e = test->param_value;
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_file *f;

	KUNIT_ASSERT_GT(test, control_write(sys, e->exec_order, "always+exec"),
			0);
	f = page_cache_file_create(test, mnt, e->file_pages, true,
				   e->min_order, e->max_order, PAGE_SIZE);
	page_cache_file_fault(test, f, e->fault);
	expect_folios(test, f, &e->want, 1);
}

/*
 * An exec size of 2 pages (8K on 4K pages) is a window below the 4 pages
 * page_cache_ra_order() takes in large folios: the fault still reads just
 * the naturally aligned 2-page window around it, as that function's
 * fallback does, in order-0 folios; not read-around.
 */
static void exec_window_below_readahead_minimum_test(struct kunit *test)
{
	static const struct page_cache_folio want[] = { { 36, 0 }, { 37, 0 } };
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_file *f;

	KUNIT_ASSERT_GT(test, control_write(sys, 1, "always+exec"), 0);
	f = page_cache_file_create(test, mnt, FILE_PAGES, true, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	page_cache_file_fault(test, f, 37);
	expect_folios(test, f, want, ARRAY_SIZE(want));
}

/* How a case narrows a mapping before faulting in it. */
enum mapping_tuning {
	/* as a filesystem that never asked for large folios */
	SMALL_FOLIOS_ONLY,
	/* as a device whose readahead is set to 0 */
	READAHEAD_OFF,
	/* madvise(MADV_RANDOM) over the mapping */
	RANDOM_ACCESS,
	/*
	 * faults of the file missed the page cache far more often than they
	 * hit: mmap_miss above mm/filemap.c's MMAP_LOTSAMISS (100)
	 */
	THRASHING,
};

static struct page_cache_file *tuned_file(struct kunit *test,
					  struct vfsmount *mnt, bool exec,
					  enum mapping_tuning tuning)
{
	struct page_cache_file *f;

	f = page_cache_file_create(test, mnt, FILE_PAGES, exec, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	switch (tuning) {
	case SMALL_FOLIOS_ONLY:
		mapping_set_folio_order_range(f->mapping, 0, 0);
		break;
	case READAHEAD_OFF:
		f->file->f_ra.ra_pages = 0;
		break;
	case RANDOM_ACCESS:
		page_cache_file_advise(test, f, MADV_RANDOM);
		break;
	case THRASHING:
		f->file->f_ra.mmap_miss = 200;
		break;
	}
	return f;
}

/*
 * In a mapping without large folios an exec size changes nothing: one
 * folio of that size could not be had, so the fault reads around as it
 * does in a data mapping of the same file system.
 */
static void exec_size_needs_large_folios_test(struct kunit *test)
{
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_folio data[FOLIOS_MAX];
	struct page_cache_file *f;
	unsigned int nr;

	KUNIT_ASSERT_GT(test, control_write(sys, ORDER_16_PAGES, "always+exec"),
			0);
	f = tuned_file(test, mnt, false, SMALL_FOLIOS_ONLY);
	page_cache_file_fault(test, f, 37);
	nr = page_cache_file_folios(f, data, ARRAY_SIZE(data));
	/* Read-around: more than the exec size's 16 pages, all order 0. */
	KUNIT_ASSERT_GT(test, nr, 16);
	f = tuned_file(test, mnt, true, SMALL_FOLIOS_ONLY);
	page_cache_file_fault(test, f, 37);
	expect_folios(test, f, data, nr);
}

/*
 * The exec size is a readahead window like read-around's, under the same
 * guards: with readahead off, or in a file whose faults thrash the page
 * cache, a fault in an executable mapping reads just the faulting page, as
 * one in a data mapping does.
 */
struct readahead_guard {
	const char *desc;
	enum mapping_tuning tuning;
};

static const struct readahead_guard readahead_guards[] = {
	{ "readahead_off", READAHEAD_OFF },
	{ "thrashing", THRASHING },
};

KUNIT_ARRAY_PARAM_DESC(readahead_guard, readahead_guards, desc);

static void exec_size_keeps_readahead_guards_test(struct kunit *test)
{
	const struct readahead_guard *g = test->param_value;
	static const struct page_cache_folio want = { 37, 0 };
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_file *f;

	KUNIT_ASSERT_GT(test, control_write(sys, ORDER_16_PAGES, "always+exec"),
			0);
	f = tuned_file(test, mnt, false, g->tuning);
	page_cache_file_fault(test, f, 37);
	expect_folios(test, f, &want, 1);
	f = tuned_file(test, mnt, true, g->tuning);
	page_cache_file_fault(test, f, 37);
	expect_folios(test, f, &want, 1);
}

/*
 * MADV_RANDOM stops read-around but not the exec size, which is meant for
 * random access already (instruction fetch is): under it a fault in a data
 * mapping reads just its page, and one in an executable mapping the exec
 * size's naturally aligned folio, as without it.
 */
static void exec_size_under_madv_random_test(struct kunit *test)
{
	static const struct page_cache_folio page = { 37, 0 };
	static const struct page_cache_folio block = { 32, ORDER_16_PAGES };
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_file *f;

	KUNIT_ASSERT_GT(test, control_write(sys, ORDER_16_PAGES, "always+exec"),
			0);
	f = tuned_file(test, mnt, false, RANDOM_ACCESS);
	page_cache_file_fault(test, f, 37);
	expect_folios(test, f, &page, 1);
	f = tuned_file(test, mnt, true, RANDOM_ACCESS);
	page_cache_file_fault(test, f, 37);
	expect_folios(test, f, &block, 1);
}

/*
 * The exec window is what the file's readahead state describes after the
 * fault, whatever an earlier window left there: its start and size, and
 * no asynchronous part (text seldom benefits from readahead), so the
 * folio read carries no readahead mark for a later fault to act on.
 */
static void exec_window_readahead_state_test(struct kunit *test)
{
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct file_ra_state ra;
	struct page_cache_file *f;
	bool marked;

	KUNIT_ASSERT_GT(test, control_write(sys, ORDER_16_PAGES, "always+exec"),
			0);
	f = page_cache_file_create(test, mnt, FILE_PAGES, true, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	/* What a read-around window of 64 pages at page 500 leaves. */
	f->file->f_ra.start = 468;
	f->file->f_ra.size = 64;
	f->file->f_ra.async_size = 16;
	page_cache_file_fault(test, f, 37);
	ra = f->file->f_ra;
	marked = readahead_marked(test, f, 32);

	KUNIT_EXPECT_EQ(test, ra.start, 32UL);
	KUNIT_EXPECT_EQ(test, ra.size, 16U);
	KUNIT_EXPECT_EQ(test, ra.async_size, 0U);
	KUNIT_EXPECT_FALSE_MSG(test, marked,
			       "the exec window's folio carries a readahead mark");
}

/*
 * The exec window is kept to what the VMA maps: a text mapping that
 * starts or ends inside the exec size's aligned block reads no page of the
 * file outside it (next to text in a file lie other sections, or padding),
 * and reads the part of the block it maps.
 */
struct exec_vma {
	const char *desc;
	pgoff_t first, nr_pages, fault;
};

static const struct exec_vma exec_vmas[] = {
	{ "6_pages_inside_the_block", 34, 6, 37 },
	{ "starts_inside_the_block", 40, 24, 41 },
	{ "ends_inside_the_block", 20, 18, 37 },
};

KUNIT_ARRAY_PARAM_DESC(exec_vma, exec_vmas, desc);

static void exec_window_kept_to_the_mapping_test(struct kunit *test)
{
	const struct exec_vma *v = test->param_value;
	pgoff_t block = round_down(v->fault, 1UL << ORDER_16_PAGES);
	pgoff_t start = max(block, v->first);
	pgoff_t end = min(block + (1UL << ORDER_16_PAGES), v->first + v->nr_pages);
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_folio got[FOLIOS_MAX];
	struct page_cache_file *f, *text;
	unsigned int nr, i;
	pgoff_t pages = 0;

	KUNIT_ASSERT_GT(test, control_write(sys, ORDER_16_PAGES, "always+exec"),
			0);
	f = page_cache_file_create(test, mnt, FILE_PAGES, false, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	text = page_cache_file_map_part(test, f, v->first, v->nr_pages, true);
	page_cache_file_fault(test, text, v->fault);
	nr = page_cache_file_folios(f, got, ARRAY_SIZE(got));
	for (i = 0; i < nr; i++) {
		pgoff_t last = got[i].index + (1UL << got[i].order) - 1;

		KUNIT_EXPECT_TRUE_MSG(test, got[i].index >= start && last < end,
				      "pages %lu-%lu were read, outside the mapped part [%lu, %lu) of the block",
				      got[i].index, last, start, end);
		pages += 1UL << got[i].order;
	}
	KUNIT_EXPECT_EQ_MSG(test, pages, end - start,
			    "the mapped part [%lu, %lu) of the block was not read whole",
			    start, end);
}

/*
 * A fault at page 37 of an executable mapping reads the same folios as one
 * of a data mapping; returns how many the data mapping's fault read.
 */
static unsigned int expect_exec_reads_like_data(struct kunit *test,
						struct vfsmount *mnt)
{
	struct page_cache_folio data[FOLIOS_MAX];
	struct page_cache_file *f;
	unsigned int nr;

	nr = folios_after_fault(test, mnt, false, 37, data);
	f = page_cache_file_create(test, mnt, FILE_PAGES, true, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	page_cache_file_fault(test, f, 37);
	expect_folios(test, f, data, nr);
	return nr;
}

/* The exec size changes nothing for a mapping that is not executable. */
static void exec_size_ignores_data_mappings_test(struct kunit *test)
{
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_folio before[FOLIOS_MAX];
	struct page_cache_file *f;
	unsigned int nr;

	nr = folios_after_fault(test, mnt, false, 37, before);
	KUNIT_ASSERT_GT(test, control_write(sys, ORDER_16_PAGES, "always+exec"), 0);
	f = page_cache_file_create(test, mnt, FILE_PAGES, false, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	page_cache_file_fault(test, f, 37);
	expect_folios(test, f, before, nr);
}

/*
 * always or never written to the exec size takes its mark off: an
 * executable mapping is then read like a data one (read-around, and never
 * a folio of a size set to never). Show alone cannot tell for never, which
 * brackets never whether or not the mark stayed.
 */
static const char * const mark_removers[] = { "always", "never" };

static void mark_remover_desc(const char * const *value, char *desc)
{
	strscpy(desc, *value, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mark_remover, mark_removers, mark_remover_desc);

static void exec_mark_removed_test(struct kunit *test)
{
	const char *value = *(const char * const *)test->param_value;
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");

	KUNIT_ASSERT_GT(test, control_write(sys, ORDER_16_PAGES, "always+exec"), 0);
	KUNIT_ASSERT_GT(test, control_write(sys, ORDER_16_PAGES, value), 0);
	expect_exec_reads_like_data(test, mnt);
}

/*
 * With no exec size, which is the default, an executable mapping is read
 * like any other: read-around, as on the unpatched kernel. Runs on both
 * trees; on the patched one after clearing any exec size.
 */
static void no_exec_size_unchanged_test(struct kunit *test)
{
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct vfsmount *sys = kunit_kern_mount(test, "sysfs");
	unsigned int exec;
	struct file *file;

	file = control_open(sys, ORDER_16_PAGES, O_RDONLY);
	if (!IS_ERR(file)) {
		fput(file);
		sys = file_enabled_begin(test);
		if (exec_sizes(sys, &exec))
			KUNIT_ASSERT_GT(test, control_write(sys, exec, "always"),
					0);
	}
	/* Read-around reads more than the faulting page's folio. */
	KUNIT_EXPECT_GT(test, expect_exec_reads_like_data(test, mnt), 1);
}

/*
 * file_enabled keeps read-around to the allowed sizes: with only @allowed
 * (a mask of orders) enabled, no folio of another order above 0, and at
 * least one of an allowed one when read-around would use it.
 */
struct allowed_sizes {
	const char *desc;
	unsigned long allowed;
	bool some_large;
};

static const struct allowed_sizes allowed_sizes_table[] = {
	{ "none", 0, false },
	{ "2_pages_only", BIT(1), true },
	{ "4_pages_only", BIT(2), true },
	{ "2_and_4_pages", BIT(1) | BIT(2), true },
};

KUNIT_ARRAY_PARAM_DESC(allowed_sizes, allowed_sizes_table, desc);

static void read_around_keeps_to_allowed_sizes_test(struct kunit *test)
{
	const struct allowed_sizes *a = test->param_value;
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_folio folios[FOLIOS_MAX];
	unsigned int order, nr, i, large = 0;

	for (order = FILE_ORDER_MIN; order <= FILE_ORDER_MAX; order++)
		KUNIT_ASSERT_GT(test, control_write(sys, order,
				a->allowed & BIT(order) ? "always" : "never"),
				0);
	nr = folios_after_fault(test, mnt, false, 37, folios);
	KUNIT_EXPECT_GT(test, nr, 1);
	for (i = 0; i < nr; i++) {
		if (!folios[i].order)
			continue;
		large++;
		KUNIT_EXPECT_TRUE_MSG(test, a->allowed & BIT(folios[i].order),
				      "folio at %lu of order %u",
				      folios[i].index, folios[i].order);
	}
	if (a->some_large)
		KUNIT_EXPECT_GT(test, large, 0);
}

/*
 * Readahead ramps its folios up two orders a window from the marker
 * folio's; where file_enabled narrows the sizes, the ramp counts allowed
 * orders, so that a sequential buffered read still reaches them: with 16
 * pages allowed alone, or with 2 pages, the file is read in folios of 16
 * pages; with no size allowed, in pages throughout.
 */
struct ramp_case {
	const char *desc;
	unsigned long allowed;	/* orders left always, the others never */
	unsigned int want_order;
};

static const struct ramp_case ramp_cases[] = {
	{ "16_pages_only", BIT(ORDER_16_PAGES), ORDER_16_PAGES },
	{ "2_and_16_pages", BIT(1) | BIT(ORDER_16_PAGES), ORDER_16_PAGES },
	{ "none", 0, 0 },
};

KUNIT_ARRAY_PARAM_DESC(ramp, ramp_cases, desc);

static void sequential_read_reaches_allowed_sizes_test(struct kunit *test)
{
	const struct ramp_case *r = test->param_value;
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_file *f;
	unsigned int order;
	pgoff_t index;

	for (order = FILE_ORDER_MIN; order <= FILE_ORDER_MAX; order++)
		KUNIT_ASSERT_GT(test, control_write(sys, order,
				r->allowed & BIT(order) ? "always" : "never"),
				0);
	f = page_cache_file_create(test, mnt, FILE_PAGES, false, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	page_cache_file_read(test, f);
	expect_readahead_done(test, f);
	for (index = 0; index < FILE_PAGES; index += 1UL << order) {
		order = folio_order_at(test, f, index);
		if (order != r->want_order) {
			KUNIT_FAIL(test, "folio at %lu of order %u, not %u",
				   index, order, r->want_order);
			break;
		}
	}
}

/*
 * With every size allowed, the default, the ramp is 6.12's: a window's
 * folios are two orders above the previous window's, so a sequential read
 * from the start of a file begins with folios of 4 pages, not with the
 * largest the window would hold (32 pages here).
 */
static void read_ramp_starts_two_orders_up_test(struct kunit *test)
{
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_file *f;
	unsigned int order;

	if (!IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "needs CONFIG_TRANSPARENT_HUGEPAGE (the page cache takes large folios only with it)");
	f = page_cache_file_create(test, mnt, FILE_PAGES, false, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	page_cache_file_read(test, f);
	order = folio_order_at(test, f, 0);
	KUNIT_EXPECT_EQ_MSG(test, order, ORDER_4_PAGES,
			    "the first window's folios are not two orders above order 0");
}

/*
 * The ramp stays within the mapping's folio orders: in a mapping of at
 * most 4-page folios, with every size allowed, a sequential buffered read
 * gets folios of 4 pages, none larger.
 */
static void sequential_read_keeps_mapping_max_order_test(struct kunit *test)
{
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	unsigned int order, largest = 0;
	struct page_cache_file *f;
	pgoff_t index;

	for (order = FILE_ORDER_MIN; order <= FILE_ORDER_MAX; order++)
		KUNIT_ASSERT_GT(test, control_write(sys, order, "always"), 0);
	f = page_cache_file_create(test, mnt, FILE_PAGES, false, 0,
				   ORDER_4_PAGES, PAGE_SIZE);
	page_cache_file_read(test, f);
	for (index = 0; index < FILE_PAGES; index += 1UL << order) {
		order = folio_order_at(test, f, index);
		largest = max(largest, order);
		if (order > ORDER_4_PAGES) {
			KUNIT_FAIL(test, "folio at %lu of order %u, above the mapping's largest, %u",
				   index, order, ORDER_4_PAGES);
			break;
		}
	}
	KUNIT_EXPECT_EQ(test, largest, ORDER_4_PAGES);
}

/*
 * Readahead stops at the end of the file: a sequential read of a file of
 * 1000 pages (no power of two) reads every page, in naturally aligned
 * folios none of which reaches past page 999.
 */
static void sequential_read_stops_at_eof_test(struct kunit *test)
{
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_file *f;

	f = page_cache_file_create(test, mnt, 1000, false, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	page_cache_file_read(test, f);
	expect_readahead_done(test, f);
	expect_aligned_folios(test, f, 0, 999, 1000);
}

/*
 * A mapping whose folios are at least 4 pages (a file system block larger
 * than a page) keeps that minimum when file_enabled allows none of its
 * sizes: read-around falls back to the minimum, never below it.
 */
static void read_around_keeps_min_order_test(struct kunit *test)
{
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_folio folios[FOLIOS_MAX];
	struct page_cache_file *f;
	unsigned int order, nr, i;

	for (order = FILE_ORDER_MIN; order <= FILE_ORDER_MAX; order++)
		KUNIT_ASSERT_GT(test, control_write(sys, order, "never"), 0);
	f = page_cache_file_create(test, mnt, FILE_PAGES, false, ORDER_4_PAGES,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	page_cache_file_fault(test, f, 37);
	nr = page_cache_file_folios(f, folios, ARRAY_SIZE(folios));
	KUNIT_EXPECT_GT(test, nr, 1);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, folios[i].order, ORDER_4_PAGES,
				    "folio at %lu: not of the mapping's minimum order",
				    folios[i].index);
}

/*
 * file_enabled also keeps to the allowed sizes the folios that
 * __filemap_get_folio() creates for a caller asking for a size, as
 * buffered writes of filesystems with large folios do: a request for 16
 * pages gets the largest allowed size up to 16 pages.
 */
struct get_folio_case {
	const char *desc;
	unsigned long never;	/* orders set to never */
	unsigned int want_order;
};

static const struct get_folio_case get_folio_cases[] = {
	{ "all_allowed", 0, ORDER_16_PAGES },
	{ "16_pages_never", BIT(ORDER_16_PAGES), ORDER_16_PAGES - 1 },
	{ "16_and_8_pages_never",
	  BIT(ORDER_16_PAGES) | BIT(ORDER_16_PAGES - 1), ORDER_4_PAGES },
	{ "2_to_16_pages_never", GENMASK(ORDER_16_PAGES, 1), 0 },
};

KUNIT_ARRAY_PARAM_DESC(get_folio, get_folio_cases, desc);

static void get_folio_keeps_to_allowed_sizes_test(struct kunit *test)
{
	const struct get_folio_case *c = test->param_value;
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_file *f;
	struct folio *folio;
	unsigned int order;

	for (order = FILE_ORDER_MIN; order <= ORDER_16_PAGES; order++)
		KUNIT_ASSERT_GT(test, control_write(sys, order,
				c->never & BIT(order) ? "never" : "always"),
				0);
	f = page_cache_file_create(test, mnt, FILE_PAGES, false, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	folio = __filemap_get_folio(f->mapping, 0,
				    FGP_LOCK | FGP_CREAT | fgf_set_order(PAGE_SIZE << ORDER_16_PAGES),
				    mapping_gfp_mask(f->mapping));
	KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
	order = folio_order(folio);
	folio_unlock(folio);
	folio_put(folio);
	KUNIT_EXPECT_EQ(test, order, c->want_order);
}

/*
 * __filemap_get_folio() does what each of its flags asks, of a folio it
 * finds in the page cache and of one it creates: locked or not, marked
 * accessed or not, at the index and order the mapping allows, allocated
 * with the gfp the flags make of the mapping's. A created folio larger
 * than the mapping's minimum is only tried (no retries, no warning).
 */
struct get_folio_flags {
	const char *desc;
	bool cached;			/* page @index is read in first */
	fgf_t fgp;
	pgoff_t index;
	unsigned int order;		/* asked for with fgf_set_order() */
	/* The mapping's folio orders; max 0: the page cache's maximum. */
	unsigned int min_order, max_order;
	bool locked, referenced;
	pgoff_t want_index;
	unsigned int want_order;
	gfp_t gfp_set, gfp_clear;	/* of the creating allocation */
};

/* What a caller that reads the folio in asks for. */
#define GET_CREATE	(FGP_CREAT | FGP_LOCK)

static const struct get_folio_flags get_folio_flag_cases[] = {
	{ .desc = "found", .cached = true, .index = 8, .want_index = 8 },
	{ .desc = "found_locked", .cached = true, .fgp = FGP_LOCK, .index = 8,
	  .locked = true, .want_index = 8 },
	{ .desc = "found_accessed", .cached = true, .fgp = FGP_ACCESSED,
	  .index = 8, .referenced = true, .want_index = 8 },
	{ .desc = "created_locked", .fgp = GET_CREATE, .index = 8,
	  .locked = true, .want_index = 8,
	  .gfp_set = __GFP_FS | __GFP_DIRECT_RECLAIM,
	  .gfp_clear = __GFP_NORETRY | __GFP_WRITE },
	{ .desc = "created_for_mmap", .fgp = FGP_CREAT | FGP_FOR_MMAP,
	  .index = 8, .want_index = 8 },
	{ .desc = "created_accessed", .fgp = GET_CREATE | FGP_ACCESSED,
	  .index = 8, .locked = true, .referenced = true, .want_index = 8 },
	{ .desc = "created_nofs", .fgp = GET_CREATE | FGP_NOFS, .index = 8,
	  .locked = true, .want_index = 8, .gfp_set = __GFP_IO,
	  .gfp_clear = __GFP_FS },
	{ .desc = "created_nowait", .fgp = GET_CREATE | FGP_NOWAIT, .index = 8,
	  .locked = true, .want_index = 8,
	  .gfp_set = __GFP_KSWAPD_RECLAIM | __GFP_NOWARN,
	  .gfp_clear = __GFP_DIRECT_RECLAIM | __GFP_FS | __GFP_IO },
	/* ramfs does not write back: no __GFP_WRITE for its writes */
	{ .desc = "created_for_write", .fgp = GET_CREATE | FGP_WRITE,
	  .index = 8, .locked = true, .want_index = 8,
	  .gfp_clear = __GFP_WRITE },
	{ .desc = "created_16_pages", .fgp = GET_CREATE, .index = 32,
	  .order = 4, .locked = true, .want_index = 32, .want_order = 4,
	  .gfp_set = __GFP_NORETRY | __GFP_NOWARN },
	/* an unaligned index gets the largest folio aligned there */
	{ .desc = "created_16_pages_at_8", .fgp = GET_CREATE, .index = 8,
	  .order = 4, .locked = true, .want_index = 8, .want_order = 3 },
	{ .desc = "created_16_pages_at_1", .fgp = GET_CREATE, .index = 1,
	  .order = 4, .locked = true, .want_index = 1,
	  .gfp_clear = __GFP_NORETRY },
	{ .desc = "created_16_pages_max_4", .fgp = GET_CREATE, .index = 32,
	  .order = 4, .max_order = 2, .locked = true, .want_index = 32,
	  .want_order = 2 },
	/* a mapping of 4-page folios at least: page 3 is in the one at 0 */
	{ .desc = "created_min_4_at_3", .fgp = GET_CREATE, .index = 3,
	  .min_order = 2, .locked = true, .want_index = 0, .want_order = 2,
	  .gfp_clear = __GFP_NORETRY },
};

KUNIT_ARRAY_PARAM_DESC(get_folio_flags, get_folio_flag_cases, desc);

static void get_folio_flags_test(struct kunit *test)
{
	const struct get_folio_flags *c = test->param_value;
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	const struct page_event *alloc;
	struct page_cache_file *f;
	struct page_events *ev;
	struct folio *folio;
	fgf_t fgp = c->fgp;

	if ((c->order || c->min_order) &&
	    !IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE))
		kunit_skip(test, "needs CONFIG_TRANSPARENT_HUGEPAGE (the page cache takes large folios only with it)");
	f = page_cache_file_create(test, mnt, FILE_PAGES, false, c->min_order,
				   c->max_order, PAGE_SIZE);
	if (c->cached) {
		folio = __filemap_get_folio(f->mapping, c->index, GET_CREATE,
					    mapping_gfp_mask(f->mapping));
		KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
		KUNIT_ASSERT_FALSE(test, folio_test_referenced(folio));
		folio_unlock(folio);
		folio_put(folio);
	}
	if (c->order)
		fgp |= fgf_set_order(PAGE_SIZE << c->order);

	ev = page_events_start(test);
	folio = __filemap_get_folio(f->mapping, c->index, fgp,
				    mapping_gfp_mask(f->mapping));
	page_events_stop(ev);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(folio), "error %ld",
			       PTR_ERR(folio));
	KUNIT_EXPECT_EQ(test, folio_test_locked(folio), c->locked);
	KUNIT_EXPECT_EQ(test, folio_test_referenced(folio), c->referenced);
	KUNIT_EXPECT_EQ(test, folio->index, c->want_index);
	KUNIT_EXPECT_EQ(test, folio_order(folio), c->want_order);
	KUNIT_EXPECT_PTR_EQ(test, folio->mapping, f->mapping);
	alloc = page_events_alloc_at(ev, folio_pfn(folio));
	if (c->cached) {
		KUNIT_EXPECT_NULL_MSG(test, alloc,
				      "a folio in the page cache was allocated again");
	} else {
		KUNIT_ASSERT_NOT_NULL_MSG(test, alloc,
					  "the folio's allocation was not seen");
		KUNIT_EXPECT_EQ_MSG(test, alloc->gfp & c->gfp_set, c->gfp_set,
				    "gfp %pGg", &alloc->gfp);
		KUNIT_EXPECT_EQ_MSG(test, alloc->gfp & c->gfp_clear, 0,
				    "gfp %pGg", &alloc->gfp);
	}
	if (c->locked)
		folio_unlock(folio);
	folio_put(folio);
}

/*
 * With FGP_NOWAIT a folio that someone else holds locked is not waited
 * for: -EAGAIN, and the reference the lookup took is dropped again.
 */
static void get_folio_nowait_on_locked_test(struct kunit *test)
{
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_file *f;
	struct folio *folio, *got;
	int refs;

	f = page_cache_file_create(test, mnt, FILE_PAGES, false, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	folio = __filemap_get_folio(f->mapping, 8, GET_CREATE,
				    mapping_gfp_mask(f->mapping));
	KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
	refs = folio_ref_count(folio);

	got = __filemap_get_folio(f->mapping, 8, FGP_LOCK | FGP_NOWAIT,
				  mapping_gfp_mask(f->mapping));
	KUNIT_EXPECT_EQ(test, folio_ref_count(folio), refs);
	folio_unlock(folio);
	folio_put(folio);
	KUNIT_EXPECT_TRUE_MSG(test, got == ERR_PTR(-EAGAIN), "got %p", got);
	if (!IS_ERR_OR_NULL(got))
		folio_put(got);
}

/*
 * Whether a file's reads ran with the case's mmap lock held: its mapping's
 * read_folio(), which readahead calls for each folio it reads (ramfs has
 * no readahead()), wrapped for the case.
 */
struct locked_reads {
	struct address_space *mapping;
	const struct address_space_operations *a_ops;
	struct address_space_operations watched;
};

static struct locked_reads watched_reads;
static atomic_t reads_under_mmap_lock;

static int read_folio_watched(struct file *file, struct folio *folio)
{
	if (rwsem_is_locked(&current->mm->mmap_lock))
		atomic_inc(&reads_under_mmap_lock);
	return watched_reads.a_ops->read_folio(file, folio);
}

static void reads_unwatch(void *data)
{
	struct locked_reads *w = data;

	w->mapping->a_ops = w->a_ops;
}

static void reads_watch(struct kunit *test, struct page_cache_file *f)
{
	struct locked_reads *w = &watched_reads;

	w->mapping = f->mapping;
	w->a_ops = f->mapping->a_ops;
	w->watched = *w->a_ops;
	w->watched.read_folio = read_folio_watched;
	atomic_set(&reads_under_mmap_lock, 0);
	f->mapping->a_ops = &w->watched;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, reads_unwatch, w),
			0);
}

/*
 * Faults page @index of @f in and checks that the fault's reads dropped
 * the mmap lock (the fault is then retried), that the file it pinned over
 * the I/O was handed back and dropped, that the mmap lock is as the fault
 * found it, and that readahead released what it took. @what names the
 * read in the messages.
 */
static void fault_dropping_mmap_lock(struct kunit *test,
				     struct page_cache_file *f, pgoff_t index,
				     const char *what)
{
	unsigned long refs = file_count(f->file);

	reads_watch(test, f);
	page_cache_file_fault(test, f, index);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&reads_under_mmap_lock), 0,
			    "the %s read ran with the mmap lock held", what);
	KUNIT_EXPECT_EQ_MSG(test, file_count(f->file), refs,
			    "the %s fault kept a reference to the file", what);
	KUNIT_EXPECT_FALSE_MSG(test, rwsem_is_locked(&current->mm->mmap_lock),
			       "the %s fault left the mmap lock taken", what);
	expect_readahead_done(test, f);
	kunit_release_action(test, reads_unwatch, &watched_reads);
}

/*
 * The exec size's read drops the mmap lock for its I/O, as read-around
 * does (the fault is then retried): no read_folio() of the fault runs
 * with the lock held, in an executable mapping as in a data one. The
 * file pinned over the I/O is handed back to the fault, which drops it
 * before the retry: once the fault is done, the file has the references
 * it had, and the mmap lock is as the fault found it.
 */
static void exec_read_drops_mmap_lock_test(struct kunit *test)
{
	struct vfsmount *sys = file_enabled_begin(test);
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	static const bool mappings[] = { false, true };
	struct page_cache_file *f;
	unsigned int i;
	bool exec;

	KUNIT_ASSERT_GT(test, control_write(sys, ORDER_16_PAGES, "always+exec"), 0);
	for (i = 0; i < ARRAY_SIZE(mappings); i++) {
		exec = mappings[i];
		f = page_cache_file_create(test, mnt, FILE_PAGES, exec, 0,
					   MAX_PAGECACHE_ORDER, PAGE_SIZE);
		fault_dropping_mmap_lock(test, f, 37, exec ? "exec size's" :
							   "read-around's");
	}
}

/* Pages @first to @last (inclusive) are read, and none next to them. */
static void expect_pages_read(struct kunit *test, struct page_cache_file *f,
			      pgoff_t first, pgoff_t last)
{
	KUNIT_EXPECT_TRUE_MSG(test, page_cached(f, first), "page %lu", first);
	KUNIT_EXPECT_TRUE_MSG(test, page_cached(f, last), "page %lu", last);
	if (first)
		KUNIT_EXPECT_FALSE_MSG(test, page_cached(f, first - 1),
				       "page %lu, before the window", first - 1);
	if (last + 1 < f->nr_pages)
		KUNIT_EXPECT_FALSE_MSG(test, page_cached(f, last + 1),
				       "page %lu, after the window", last + 1);
}

/*
 * What a fault that finds nothing in the page cache reads for a data
 * mapping (do_sync_mmap_readahead()): read-around, a window of ra_pages
 * centred on the fault (clamped at the file's start), its last quarter
 * marked for asynchronous readahead; under MADV_SEQUENTIAL a synchronous
 * readahead from the fault on; under MADV_HUGEPAGE two PMD-sized folios
 * from the fault's PMD-aligned block, the second marked, or one under
 * MADV_RANDOM too. Every such read drops the mmap lock for its I/O and
 * gives the file it pinned back to the fault.
 */
enum data_fault_kind { READ_AROUND, SEQUENTIAL, HUGEPAGE, HUGEPAGE_RANDOM };

struct data_fault {
	const char *desc;
	enum data_fault_kind kind;
	pgoff_t fault;		/* for HUGEPAGE*: HPAGE_PMD_NR / 2 + 1 */
};

static const struct data_fault data_faults[] = {
	{ "read_around_at_500", READ_AROUND, 500 },
	{ "read_around_at_5", READ_AROUND, 5 },
	/* a window from page 485: a folio of 1 page, one of 2, 4-page ones */
	{ "read_around_at_501", READ_AROUND, 501 },
	{ "sequential_at_500", SEQUENTIAL, 500 },
	{ "hugepage", HUGEPAGE },
	{ "hugepage_random", HUGEPAGE_RANDOM },
};

KUNIT_ARRAY_PARAM_DESC(data_fault, data_faults, desc);

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
static void data_fault_hugepage(struct kunit *test, struct vfsmount *mnt,
				bool random)
{
	pgoff_t nr = HPAGE_PMD_NR;
	struct page_cache_file *f;

	if (HPAGE_PMD_ORDER > MAX_PAGECACHE_ORDER)
		kunit_skip(test, "needs PMD-sized page cache folios (order %u), above the page cache's largest here (%u)",
			   HPAGE_PMD_ORDER, MAX_PAGECACHE_ORDER);
	f = page_cache_file_create(test, mnt, 4 * nr, false, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	page_cache_file_advise(test, f, MADV_HUGEPAGE);
	if (random)
		page_cache_file_advise(test, f, MADV_RANDOM);
	fault_dropping_mmap_lock(test, f, nr / 2 + 1, "PMD-sized");

	KUNIT_EXPECT_EQ(test, f->file->f_ra.size, (random ? 1 : 2) * nr);
	KUNIT_EXPECT_EQ(test, f->file->f_ra.async_size, nr);
	KUNIT_EXPECT_EQ(test, folio_order_at(test, f, 0), HPAGE_PMD_ORDER);
	if (random) {
		expect_pages_read(test, f, 0, nr - 1);
		return;
	}
	expect_pages_read(test, f, 0, 2 * nr - 1);
	KUNIT_EXPECT_EQ(test, folio_order_at(test, f, nr), HPAGE_PMD_ORDER);
	KUNIT_EXPECT_TRUE_MSG(test, readahead_marked(test, f, nr),
			      "the second PMD folio carries no readahead mark");
}
#else
static void data_fault_hugepage(struct kunit *test, struct vfsmount *mnt,
				bool random)
{
	kunit_skip(test, "needs CONFIG_TRANSPARENT_HUGEPAGE (MADV_HUGEPAGE)");
}
#endif

static void data_fault_readahead_test(struct kunit *test)
{
	const struct data_fault *d = test->param_value;
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_file *f;
	pgoff_t ra_pages, first;

	if (d->kind == HUGEPAGE || d->kind == HUGEPAGE_RANDOM) {
		data_fault_hugepage(test, mnt, d->kind == HUGEPAGE_RANDOM);
		return;
	}
	f = page_cache_file_create(test, mnt, FILE_PAGES, false, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	ra_pages = f->file->f_ra.ra_pages;
	if (d->kind == SEQUENTIAL) {
		page_cache_file_advise(test, f, MADV_SEQUENTIAL);
		fault_dropping_mmap_lock(test, f, d->fault, "sequential");
		expect_pages_read(test, f, d->fault, d->fault + ra_pages - 1);
		return;
	}
	fault_dropping_mmap_lock(test, f, d->fault, "read-around's");
	first = d->fault > ra_pages / 2 ? d->fault - ra_pages / 2 : 0;
	KUNIT_EXPECT_EQ(test, f->file->f_ra.start, first);
	KUNIT_EXPECT_EQ(test, f->file->f_ra.size, ra_pages);
	KUNIT_EXPECT_EQ(test, f->file->f_ra.async_size, ra_pages / 4);
	expect_pages_read(test, f, first, first + ra_pages - 1);
	expect_aligned_folios(test, f, first, first + ra_pages - 1, FILE_PAGES);
	KUNIT_EXPECT_TRUE_MSG(test, readahead_marked(test, f,
				first + ra_pages - ra_pages / 4),
			      "the window's last quarter carries no readahead mark");
}

/*
 * A file whose mapping misses far more than it hits stops being read
 * around: each fault that finds nothing counts a miss, and past
 * MMAP_LOTSAMISS of them the fault reads its own page only.
 */
/* mm/filemap.c's MMAP_LOTSAMISS, which it keeps to itself. */
#define FILEMAP_LOTSAMISS	100

struct mmap_misses {
	const char *desc;
	unsigned int before;	/* ra->mmap_miss before the fault */
	bool reads_around;
};

static const struct mmap_misses mmap_misses_cases[] = {
	{ "one_below_the_limit", FILEMAP_LOTSAMISS - 1, true },
	{ "at_the_limit", FILEMAP_LOTSAMISS, false },
};

KUNIT_ARRAY_PARAM_DESC(mmap_misses, mmap_misses_cases, desc);

static void mmap_misses_stop_read_around_test(struct kunit *test)
{
	const struct mmap_misses *m = test->param_value;
	struct vfsmount *mnt = kunit_kern_mount(test, "ramfs");
	struct page_cache_file *f;

	f = page_cache_file_create(test, mnt, FILE_PAGES, false, 0,
				   MAX_PAGECACHE_ORDER, PAGE_SIZE);
	f->file->f_ra.mmap_miss = m->before;
	page_cache_file_fault(test, f, 500);
	KUNIT_EXPECT_TRUE(test, page_cached(f, 500));
	KUNIT_EXPECT_EQ_MSG(test, page_cached(f, 501), m->reads_around,
			    "%u misses before the fault", m->before);
}

static struct kunit_case file_exec_readahead_cases[] = {
	KUNIT_CASE_PARAM(exec_fault_reads_one_folio_test,
			 exec_fault_gen_params),
	KUNIT_CASE(exec_size_ignores_data_mappings_test),
	KUNIT_CASE(exec_window_below_readahead_minimum_test),
	KUNIT_CASE(exec_size_needs_large_folios_test),
	KUNIT_CASE(exec_size_under_madv_random_test),
	KUNIT_CASE_PARAM(exec_size_keeps_readahead_guards_test,
			 readahead_guard_gen_params),
	KUNIT_CASE_PARAM(exec_window_kept_to_the_mapping_test,
			 exec_vma_gen_params),
	KUNIT_CASE(exec_window_readahead_state_test),
	KUNIT_CASE(exec_read_drops_mmap_lock_test),
	KUNIT_CASE_PARAM(data_fault_readahead_test, data_fault_gen_params),
	KUNIT_CASE_PARAM(mmap_misses_stop_read_around_test,
			 mmap_misses_gen_params),
	KUNIT_CASE_PARAM(get_folio_keeps_to_allowed_sizes_test,
			 get_folio_gen_params),
	KUNIT_CASE_PARAM(get_folio_flags_test, get_folio_flags_gen_params),
	KUNIT_CASE(get_folio_nowait_on_locked_test),
	KUNIT_CASE_PARAM(exec_mark_removed_test, mark_remover_gen_params),
	KUNIT_CASE(no_exec_size_unchanged_test),
	KUNIT_CASE_PARAM(read_around_keeps_to_allowed_sizes_test,
			 allowed_sizes_gen_params),
	KUNIT_CASE(read_around_keeps_min_order_test),
	KUNIT_CASE_PARAM(sequential_read_reaches_allowed_sizes_test,
			 ramp_gen_params),
	KUNIT_CASE(read_ramp_starts_two_orders_up_test),
	KUNIT_CASE(sequential_read_keeps_mapping_max_order_test),
	KUNIT_CASE(sequential_read_stops_at_eof_test),
	{}
};

static struct kunit_suite file_exec_readahead_suite = {
	.name = "file_exec_readahead",
	.test_cases = file_exec_readahead_cases,
};

kunit_test_suites(&thp_file_enabled_suite, &file_exec_readahead_suite);

MODULE_DESCRIPTION("KUnit tests for the page cache's folio sizes");
MODULE_LICENSE("GPL");
