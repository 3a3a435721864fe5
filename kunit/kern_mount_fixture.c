// SPDX-License-Identifier: GPL-2.0
/* In-kernel mounts for the series' suites; see kern_mount_fixture.h. */
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mman.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kern_mount_fixture.h"

static void kern_unmount_action(void *mnt)
{
	kern_unmount(mnt);
}

struct vfsmount *kunit_kern_mount(struct kunit *test, const char *fstype)
{
	struct file_system_type *type = get_fs_type(fstype);
	struct vfsmount *mnt;

	KUNIT_ASSERT_NOT_NULL_MSG(test, type, "no filesystem %s", fstype);
	mnt = vfs_kern_mount(type, 0, fstype, NULL);
	put_filesystem(type);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mnt), "cannot mount %s", fstype);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
			kern_unmount_action, mnt), 0);
	return mnt;
}

ssize_t kern_mount_write(struct vfsmount *mnt, const char *path,
			 const char *value)
{
	struct file *file = file_open_root_mnt(mnt, path, O_WRONLY, 0);
	loff_t pos = 0;
	ssize_t ret;

	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = kernel_write(file, value, strlen(value), &pos);
	fput(file);
	return ret;
}

/*
 * One open of @path, then write(2) or read(2) calls (@flags O_WRONLY or
 * O_RDONLY) until @len bytes or the end of the file, through a bounce
 * buffer in the case task's user mapping (unmapped with the case's mm).
 */
static ssize_t kern_mount_io_user(struct kunit *test, struct vfsmount *mnt,
				  const char *path, int flags, char *buf,
				  size_t len)
{
	unsigned long addr = kunit_vm_mmap(test, NULL, 0, PAGE_ALIGN(len),
					   PROT_READ | PROT_WRITE,
					   MAP_ANONYMOUS | MAP_PRIVATE, 0);
	char __user *ubuf = (char __user *)addr;
	ssize_t done = 0, ret;
	struct file *file;
	loff_t pos = 0;

	KUNIT_ASSERT_FALSE_MSG(test, !addr || IS_ERR_VALUE(addr),
			       "no user mapping of %zu bytes: %ld", len,
			       (long)addr);
	if (flags == O_WRONLY && copy_to_user(ubuf, buf, len))
		return -EFAULT;
	file = file_open_root_mnt(mnt, path, flags, 0);
	if (IS_ERR(file))
		return PTR_ERR(file);
	do {
		if (flags == O_WRONLY)
			ret = vfs_write(file, ubuf + done, len - done, &pos);
		else
			ret = vfs_read(file, ubuf + done, len - done, &pos);
		if (ret > 0)
			done += ret;
	} while (ret > 0 && done < len);
	fput(file);
	if (ret < 0)
		return ret;
	if (flags == O_RDONLY && copy_from_user(buf, ubuf, done))
		return -EFAULT;
	return done;
}

ssize_t kern_mount_write_user(struct kunit *test, struct vfsmount *mnt,
			      const char *path, const char *value)
{
	return kern_mount_io_user(test, mnt, path, O_WRONLY, (char *)value,
				  strlen(value));
}

ssize_t kern_mount_read_user(struct kunit *test, struct vfsmount *mnt,
			     const char *path, char *value, size_t size)
{
	ssize_t ret;

	if (!size)
		return -EINVAL;
	ret = kern_mount_io_user(test, mnt, path, O_RDONLY, value, size - 1);
	value[ret < 0 ? 0 : ret] = '\0';
	return ret;
}
