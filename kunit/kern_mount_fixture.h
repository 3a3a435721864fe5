/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pseudo filesystem mounted inside the kernel for one KUnit case: under
 * kunit.py nothing is mounted, yet sysfs and debugfs files are how some
 * controls are reached.
 */
#ifndef _MM_SERIES_KUNIT_KERN_MOUNT_FIXTURE_H
#define _MM_SERIES_KUNIT_KERN_MOUNT_FIXTURE_H

#include <kunit/test.h>
#include <linux/mount.h>

/* Mounts @fstype ("sysfs", "debugfs", "ramfs"); unmounted at case end. */
struct vfsmount *kunit_kern_mount(struct kunit *test, const char *fstype);

/*
 * Writes @value to the file at @path under @mnt, as one write(2) would:
 * returns what the file's store handler returned (bytes taken or an error),
 * or the error of opening the file.
 */
ssize_t kern_mount_write(struct vfsmount *mnt, const char *path,
			 const char *value);

#endif
