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

/*
 * The same for files whose handler takes only user memory (debugfs
 * attributes: ->write without ->write_iter, which kernel_write() refuses):
 * @value goes through a buffer in the case's own user mapping, as write(2)
 * would pass it, in as many calls as the file takes. Case context only
 * (the user mapping is the case task's).
 */
ssize_t kern_mount_write_user(struct kunit *test, struct vfsmount *mnt,
			      const char *path, const char *value);

/*
 * Reads the file at @path under @mnt from its start, as read(2) calls
 * until its end would, through the case's user mapping, into @value
 * (NUL-terminated, at most @size bytes with the NUL): returns the bytes
 * read or an error.
 */
ssize_t kern_mount_read_user(struct kunit *test, struct vfsmount *mnt,
			     const char *path, char *value, size_t size);

#endif
