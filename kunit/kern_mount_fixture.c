// SPDX-License-Identifier: GPL-2.0
/* In-kernel mounts for the series' suites; see kern_mount_fixture.h. */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/string.h>

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
