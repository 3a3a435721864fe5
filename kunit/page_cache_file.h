/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A file on an in-kernel ramfs mount, mapped into the KUnit task's own mm,
 * whose page cache a case fills by faulting through the mapping: the
 * fault path, readahead and folio sizes are the kernel's own. ramfs reads
 * a hole as zeroes into a folio of any size, so the file is made sparse,
 * its mapping is allowed large folios (ramfs does not ask for them) and
 * it gets the default readahead window (ramfs has no backing device).
 * Shared by the file_enabled suites and the exec-mapping benchmark.
 */
#ifndef _MM_SERIES_KUNIT_PAGE_CACHE_FILE_H
#define _MM_SERIES_KUNIT_PAGE_CACHE_FILE_H

#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/mount.h>

struct page_cache_file {
	struct file *file;
	struct address_space *mapping;
	pgoff_t nr_pages;
	unsigned long uaddr;	/* the mapping in the task's mm */
	pgoff_t map_first;	/* the first page it maps */
	pgoff_t map_pages;	/* and how many */
};

struct page_cache_folio {
	pgoff_t index;
	unsigned int order;
};

/*
 * Creates a sparse file of @nr_pages on @mnt (a ramfs), whose mapping takes
 * folios of orders @min_order..@max_order (0: up to the page cache's
 * maximum), and maps it readable (and executable if @exec), at an address
 * aligned to @align (a power of two, at least PAGE_SIZE). Released when the
 * case ends.
 */
struct page_cache_file *page_cache_file_create(struct kunit *test,
					       struct vfsmount *mnt,
					       pgoff_t nr_pages, bool exec,
					       unsigned int min_order,
					       unsigned int max_order,
					       unsigned long align);

/*
 * Maps @nr_pages of @f from page @first once more, readable (and
 * executable if @exec), and returns a view of the same file whose faults
 * go through that mapping. Released when the case ends.
 */
struct page_cache_file *page_cache_file_map_part(struct kunit *test,
						 struct page_cache_file *f,
						 pgoff_t first, pgoff_t nr_pages,
						 bool exec);

/* madvise(@advice) over the whole of the view's mapping. */
void page_cache_file_advise(struct kunit *test, struct page_cache_file *f,
			    int advice);

/*
 * Reads the whole file from its start with read(2)'s buffered path, one
 * readahead window (the file's ra_pages) a call, as a sequential reader
 * would.
 */
void page_cache_file_read(struct kunit *test, struct page_cache_file *f);

/* Faults page @index of the file in through its mapping. */
void page_cache_file_fault(struct kunit *test, struct page_cache_file *f,
			   pgoff_t index);

/* The folios in the file's page cache, in index order; their number. */
unsigned int page_cache_file_folios(struct page_cache_file *f,
				    struct page_cache_folio *folios,
				    unsigned int max);

#endif
