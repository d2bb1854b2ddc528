/* SPDX-License-Identifier: MIT */
/* Files ibvf writes outside sysfs (persist's .link files and unit): every
 * directory of the path is opened component by component with O_NOFOLLOW,
 * so a symbolic link planted anywhere in it is refused rather than
 * followed; a file is written to an O_EXCL temporary beside it with a fixed
 * mode (not the umask's), synced, and renamed over the old one. Paths are
 * absolute. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

#define SAFEFILE_MAX (256u << 10) /* bytes read back at most */

/* The directory dir as an fd (O_DIRECTORY|O_NOFOLLOW at every step); with
 * create, missing directories are made (0755) and the last one must be
 * trusted (safefile_dir_trusted). -ENOENT when it is missing and not
 * created, -ELOOP (said) at a symbolic link. */
int safefile_dir(const char *dir, bool create, int *ret_fd, struct err *e);

/* 0 when the directory fd (named dir) is one ibvf writes in: owned by root
 * or the user, writable by no one else; -EPERM (said) otherwise. */
int safefile_dir_trusted(int fd, const char *dir, struct err *e);

/* openat2() with RESOLVE_IN_ROOT: rel resolves as if rootfd were '/', so an
 * absolute link or '..' never leaves the tree; magic links (/proc/PID/fd)
 * are refused. The fd or -errno; -ENOSYS before Linux 5.6. */
int safefile_open_in(int rootfd, const char *rel, int flags, mode_t mode);
/* safefile_open_in, or where the kernel has no openat2 (before Linux 5.6;
 * valgrind), openat() with the same flags: for the simulated node, a
 * directory private to its user, never for a tree read as root (--root). */
int safefile_open_in_or_at(int rootfd, const char *rel, int flags, mode_t mode);

/* The content of path (a regular file, not a link), at most max bytes:
 * *ret NULL when the file (or its directory) does not exist. -EFBIG beyond
 * max, -ELOOP at a link, -EINVAL when it is not a regular file. */
int safefile_read(const char *path, size_t max, char **ret, struct err *e);

/* Writes content to path with mode, making missing directories. */
int safefile_write(const char *path, const char *content, mode_t mode, struct err *e);

/* Removes path (a missing file is not an error). */
int safefile_remove(const char *path, struct err *e);
/* Makes path a symbolic link to target (a temporary link renamed over it,
 * as `ln -sfn` does), making missing directories. */
int safefile_symlink(const char *path, const char *target, struct err *e);
/* The target of the link path into buf: 0, -ENOENT when path (or its
 * directory) does not exist, -EINVAL when it is not a link. */
int safefile_readlink(const char *path, char *buf, size_t size, struct err *e);
/* Writes all of s to fd, again after EINTR and short writes: 0 or -errno. */
int safefile_write_all(int fd, const char *s, size_t len);
/* The last max bytes of the open file fd of size bytes, from the start of a
 * line when it is cut (NUL-terminated, malloc'd), and the offset of its
 * first byte in the file. 0 or -errno. */
int safefile_read_tail(int fd, off_t size, size_t max, char **ret, size_t *ret_len,
		       off_t *ret_from);
/* flock(fd, op) waiting at most timeout_ms (a file others can open must not
 * stall a root action for ever): 0, -EWOULDBLOCK when still held then, or
 * -errno. */
int safefile_flock(int fd, int op, unsigned int timeout_ms);
