// SPDX-License-Identifier: GPL-2.0
/* A mapped ramfs file for page cache cases; see page_cache_file.h. */
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/mman.h>
#include <linux/pagemap.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "page_cache_file.h"

static void fput_action(void *file)
{
	fput(file);
}

/* An address range of @len at @align: reserved, then mapped over. */
static unsigned long aligned_range(struct kunit *test, unsigned long len,
				   unsigned long align)
{
	unsigned long addr;

	addr = kunit_vm_mmap(test, NULL, 0, len + align, PROT_NONE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE_MSG(test, !addr || IS_ERR_VALUE(addr),
			       "cannot reserve %lu bytes: %ld", len + align,
			       (long)addr);
	return ALIGN(addr, align);
}

struct page_cache_file *page_cache_file_create(struct kunit *test,
					       struct vfsmount *mnt,
					       pgoff_t nr_pages, bool exec,
					       unsigned int min_order,
					       unsigned int max_order,
					       unsigned long align)
{
	static atomic_t serial = ATOMIC_INIT(0);
	unsigned long len = nr_pages << PAGE_SHIFT, addr;
	struct page_cache_file *f;
	char name[24];

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	snprintf(name, sizeof(name), "file%d", atomic_inc_return(&serial));
	f->file = file_open_root_mnt(mnt, name, O_RDWR | O_CREAT, 0700);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f->file), "cannot create %s: %ld",
			       name, PTR_ERR(f->file));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fput_action,
							f->file), 0);
	KUNIT_ASSERT_EQ(test, vfs_truncate(&f->file->f_path, len), 0);
	f->mapping = f->file->f_mapping;
	f->nr_pages = nr_pages;
	/*
	 * ramfs has no backing device, so its files get no readahead window;
	 * give this one the default a block device's files get on 4K pages,
	 * 32 pages (VM_READAHEAD_PAGES is 128K: 2 pages on 64K, where
	 * read-around below 4 pages takes no large folio at all), so that the
	 * cases read the same pages on every granule.
	 */
	f->file->f_ra.ra_pages = SZ_128K / SZ_4K;
	mapping_set_folio_order_range(f->mapping, min_order,
				      max_order ?: MAX_PAGECACHE_ORDER);

	addr = aligned_range(test, len, align);
	f->uaddr = kunit_vm_mmap(test, f->file, addr, len,
				 PROT_READ | (exec ? PROT_EXEC : 0),
				 MAP_PRIVATE | MAP_FIXED, 0);
	KUNIT_ASSERT_EQ_MSG(test, f->uaddr, addr, "cannot map %s", name);
	f->map_pages = nr_pages;
	return f;
}

struct page_cache_file *page_cache_file_map_part(struct kunit *test,
						 struct page_cache_file *f,
						 pgoff_t first, pgoff_t nr_pages,
						 bool exec)
{
	unsigned long len = nr_pages << PAGE_SHIFT, addr;
	struct page_cache_file *part;

	KUNIT_ASSERT_LE(test, first + nr_pages, f->nr_pages);
	part = kunit_kmalloc(test, sizeof(*part), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, part);
	*part = *f;
	addr = aligned_range(test, len, PAGE_SIZE);
	part->uaddr = kunit_vm_mmap(test, f->file, addr, len,
				    PROT_READ | (exec ? PROT_EXEC : 0),
				    MAP_PRIVATE | MAP_FIXED, first << PAGE_SHIFT);
	KUNIT_ASSERT_EQ_MSG(test, part->uaddr, addr,
			    "cannot map pages %lu-%lu of the file", first,
			    first + nr_pages - 1);
	part->map_first = first;
	part->map_pages = nr_pages;
	return part;
}

void page_cache_file_advise(struct kunit *test, struct page_cache_file *f,
			    int advice)
{
	KUNIT_ASSERT_EQ(test, do_madvise(current->mm, f->uaddr,
					 f->map_pages << PAGE_SHIFT, advice), 0);
}

static void kvfree_action(void *buf)
{
	kvfree(buf);
}

void page_cache_file_read(struct kunit *test, struct page_cache_file *f)
{
	size_t chunk = (size_t)f->file->f_ra.ra_pages << PAGE_SHIFT;
	loff_t pos = 0, end = (loff_t)f->nr_pages << PAGE_SHIFT;
	ssize_t got;
	void *buf;

	KUNIT_ASSERT_GT(test, chunk, 0);
	buf = kvmalloc(chunk, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kvfree_action,
							buf), 0);
	while (pos < end) {
		got = kernel_read(f->file, buf, min_t(loff_t, chunk, end - pos),
				  &pos);
		KUNIT_ASSERT_GT_MSG(test, got, 0, "read at byte %lld", pos);
	}
	kunit_release_action(test, kvfree_action, buf);
}

void page_cache_file_fault(struct kunit *test, struct page_cache_file *f,
			   pgoff_t index)
{
	char c;

	KUNIT_ASSERT_GE(test, index, f->map_first);
	KUNIT_ASSERT_LT(test, index, f->map_first + f->map_pages);
	KUNIT_ASSERT_EQ_MSG(test, copy_from_user(&c, (void __user *)(f->uaddr +
				((index - f->map_first) << PAGE_SHIFT)), 1), 0,
			    "fault at page %lu", index);
}

unsigned int page_cache_file_folios(struct page_cache_file *f,
				    struct page_cache_folio *folios,
				    unsigned int max)
{
	unsigned int nr = 0;
	pgoff_t index = 0;

	while (index < f->nr_pages && nr < max) {
		struct folio *folio = filemap_get_folio(f->mapping, index);

		if (IS_ERR(folio)) {
			index++;
			continue;
		}
		folios[nr].index = folio->index;
		folios[nr].order = folio_order(folio);
		index = folio->index + folio_nr_pages(folio);
		folio_put(folio);
		nr++;
	}
	return nr;
}
