// SPDX-License-Identifier: MIT
/* Link-safe file reads, writes and removals (safefile.h). */
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* "/a/b/c.link" into its directory "/a/b" and name "c.link". */
static int split(const char *path, char dir[static PATH_MAX], const char **ret_name, struct err *e)
{
	const char *slash = strrchr(path, '/');
	if (path[0] != '/' || !slash || !slash[1] || strlen(path) >= PATH_MAX)
		return err_setx(e, EINVAL, "invalid path '%s': not an absolute file path", path);
	size_t len = (size_t)(slash - path);
	memcpy(dir, path, len ? len : 1);
	dir[len ? len : 1] = '\0';
	*ret_name = slash + 1;
	return 0;
}

int safefile_open_in(int rootfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = flags & (O_CREAT | O_TMPFILE) ? mode : 0,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	for (;;) {
		long fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		/* EAGAIN: a rename raced the lookup; the kernel asks to retry. */
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
}

int safefile_open_in_or_at(int rootfd, const char *rel, int flags, mode_t mode)
{
	int fd = safefile_open_in(rootfd, rel, flags, mode);
	if (fd != -ENOSYS)
		return fd;
	fd = openat(rootfd, rel, flags | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

int safefile_dir_trusted(int fd, const char *dir, struct err *e)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return err_set(e, errno, "cannot check '%s'", dir);
	if (st.st_uid != 0 && st.st_uid != getuid())
		return err_setx(e, EPERM,
				"'%s' belongs to uid %u: ibvf writes and acts only in directories "
				"of root or its user",
				dir, (unsigned int)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return err_setx(e, EPERM,
				"'%s' is writable by other users (mode %04o): ibvf does not "
				"write there or act on what it holds",
				dir, (unsigned int)(st.st_mode & 07777));
	return 0;
}

int safefile_dir(const char *dir, bool create, int *ret_fd, struct err *e)
{
	char copy[PATH_MAX], *save = NULL;
	if (dir[0] != '/' || snprintf(copy, sizeof(copy), "%s", dir) >= (int)sizeof(copy))
		return err_setx(e, EINVAL, "invalid directory '%s': not an absolute path", dir);
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, errno, "cannot open '/'");
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "..")) {
			close(fd);
			return err_setx(e, EINVAL, "invalid directory '%s': '..' in it", dir);
		}
		int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create) {
			if (mkdirat(fd, c, 0755) < 0 && errno != EEXIST) {
				int r = err_set(e, errno, "cannot make the directory '%s' in '%s'",
						c, dir);
				close(fd);
				return r;
			}
			next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			/* 0755 whatever the umask: udev and networkd read it. */
			if (next >= 0 && fchmod(next, 0755) < 0) {
				int r = err_set(e, errno, "cannot set the mode of '%s' in '%s'", c,
						dir);
				close(next);
				close(fd);
				return r;
			}
		}
		if (next < 0) {
			int err = errno, r;
			struct stat st;
			if (fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				r = err_setx(e, ELOOP,
					     "'%s' in '%s' is a symbolic link: ibvf does not "
					     "follow links where it writes",
					     c, dir);
			else
				r = err == ENOENT
					    ? -ENOENT
					    : err_set(e, err, "cannot open '%s' in '%s'", c, dir);
			if (r == -ENOENT)
				err_setx(e, ENOENT, "'%s' does not exist", dir);
			close(fd);
			return r;
		}
		close(fd);
		fd = next;
	}
	int r;
	if (create && (r = safefile_dir_trusted(fd, dir, e)) < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

static int read_fd(int fd, const char *path, size_t max, char **ret, struct err *e)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return err_set(e, errno, "cannot read '%s'", path);
	if (!S_ISREG(st.st_mode))
		return err_setx(e, EINVAL, "'%s' is not a regular file", path);
	if ((unsigned long long)st.st_size > max)
		return err_setx(e, EFBIG, "'%s' is larger than %zu bytes", path, max);
	char *buf = malloc(max + 1);
	if (!buf)
		return err_set(e, ENOMEM, "cannot read '%s'", path);
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, max + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = err_set(e, errno, "cannot read '%s'", path);
			free(buf);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			free(buf);
			return err_setx(e, EFBIG, "'%s' is larger than %zu bytes", path, max);
		}
	}
	buf[len] = '\0';
	*ret = buf;
	return 0;
}

int safefile_read(const char *path, size_t max, char **ret, struct err *e)
{
	char dir[PATH_MAX];
	const char *name;
	int dfd, r;
	if ((r = split(path, dir, &name, e)) < 0)
		return r;
	if ((r = safefile_dir(dir, false, &dfd, e)) == -ENOENT) {
		*ret = NULL;
		return 0;
	}
	if (r < 0)
		return r;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		close(dfd);
		if (err == ENOENT) {
			*ret = NULL;
			return 0;
		}
		if (err == ELOOP)
			return err_setx(e, ELOOP,
					"'%s' is a symbolic link: ibvf does not follow links where "
					"it writes",
					path);
		return err_set(e, err, "cannot read '%s'", path);
	}
	close(dfd);
	r = read_fd(fd, path, max, ret, e);
	close(fd);
	return r;
}

int safefile_write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

int safefile_write(const char *path, const char *content, mode_t mode, struct err *e)
{
	char dir[PATH_MAX], tmp[NAME_MAX + 1];
	const char *name;
	int dfd, fd = -1, r;
	if ((r = split(path, dir, &name, e)) < 0)
		return r;
	if (strlen(name) > NAME_MAX - 32) /* room for the temporary's ".PID.RANDOM.tmp" */
		return err_setx(e, ENAMETOOLONG, "file name too long: '%s'", path);
	if ((r = safefile_dir(dir, true, &dfd, e)) < 0)
		return r;
	/* A random part: a process killed mid-write leaves its temporary, and
	 * in a container every start is pid 1, so pid and counter repeat. */
	for (int i = 0; i < 100 && fd < 0; i++) {
		unsigned long long rnd = 0;
		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = (unsigned long long)i;
		snprintf(tmp, sizeof(tmp), ".%s.%ld.%016llx.tmp", name, (long)getpid(), rnd);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		r = err_set(e, errno, "cannot create a temporary file in '%s'", dir);
		close(dfd);
		return r;
	}
	/* fchmod: the mode is this one whatever the umask. */
	if (fchmod(fd, mode) < 0 || (r = safefile_write_all(fd, content, strlen(content))) < 0 ||
	    fsync(fd) < 0) {
		r = err_set(e, r < 0 ? -r : errno, "cannot write '%s/%s'", dir, tmp);
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		r = err_set(e, errno, "cannot write '%s/%s'", dir, tmp);
		goto fail;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, name) < 0) {
		r = err_set(e, errno, "cannot rename '%s/%s' to '%s'", dir, tmp, path);
		goto fail;
	}
	fsync(dfd);
	close(dfd);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlinkat(dfd, tmp, 0);
	close(dfd);
	return r;
}

int safefile_symlink(const char *path, const char *target, struct err *e)
{
	char dir[PATH_MAX], tmp[NAME_MAX + 1];
	const char *name;
	int dfd, r = -EEXIST;
	if ((r = split(path, dir, &name, e)) < 0)
		return r;
	if (strlen(name) > NAME_MAX - 32)
		return err_setx(e, ENAMETOOLONG, "file name too long: '%s'", path);
	if ((r = safefile_dir(dir, true, &dfd, e)) < 0)
		return r;
	r = -EEXIST;
	for (int i = 0; i < 100 && r == -EEXIST; i++) {
		unsigned long long rnd = 0;
		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = (unsigned long long)i;
		snprintf(tmp, sizeof(tmp), ".%s.%ld.%016llx.tmp", name, (long)getpid(), rnd);
		r = symlinkat(target, dfd, tmp) < 0 ? -errno : 0;
	}
	if (r < 0) {
		r = err_set(e, -r, "cannot make a link in '%s'", dir);
		close(dfd);
		return r;
	}
	if (renameat(dfd, tmp, dfd, name) < 0) {
		r = err_set(e, errno, "cannot rename '%s/%s' to '%s'", dir, tmp, path);
		unlinkat(dfd, tmp, 0);
		close(dfd);
		return r;
	}
	fsync(dfd);
	close(dfd);
	return 0;
}

int safefile_readlink(const char *path, char *buf, size_t size, struct err *e)
{
	char dir[PATH_MAX];
	const char *name;
	int dfd, r;
	if ((r = split(path, dir, &name, e)) < 0)
		return r;
	if ((r = safefile_dir(dir, false, &dfd, e)) < 0)
		return r;
	ssize_t len = readlinkat(dfd, name, buf, size);
	r = len < 0 ? -errno : (size_t)len >= size ? -ENAMETOOLONG : 0;
	close(dfd);
	if (r == -ENOENT || r == -EINVAL)
		return r;
	if (r < 0)
		return err_set(e, -r, "cannot read the link '%s'", path);
	buf[len] = '\0';
	return 0;
}

int safefile_remove(const char *path, struct err *e)
{
	char dir[PATH_MAX];
	const char *name;
	int dfd, r;
	if ((r = split(path, dir, &name, e)) < 0)
		return r;
	if ((r = safefile_dir(dir, false, &dfd, e)) == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = unlinkat(dfd, name, 0) < 0 && errno != ENOENT
		    ? err_set(e, errno, "cannot remove '%s'", path)
		    : 0;
	if (r == 0)
		fsync(dfd);
	close(dfd);
	return r;
}

int safefile_read_tail(int fd, off_t size, size_t max, char **ret, size_t *ret_len, off_t *ret_from)
{
	off_t from = size > (off_t)max ? size - (off_t)max : 0;
	size_t cap = (size_t)(size - from), len = 0, cut = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	while (len < cap) {
		ssize_t n = pread(fd, buf + len, cap - len, from + (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = -errno;
			free(buf);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (from > 0) { /* from the first whole line */
		char *nl = memchr(buf, '\n', len);
		cut = nl ? (size_t)(nl + 1 - buf) : len;
		memmove(buf, buf + cut, len - cut);
		len -= cut;
	}
	buf[len] = '\0';
	*ret = buf;
	if (ret_len)
		*ret_len = len;
	if (ret_from)
		*ret_from = from + (off_t)cut;
	return 0;
}

int safefile_flock(int fd, int op, unsigned int timeout_ms)
{
	struct timespec ts = {0, 20 * 1000000L};
	for (unsigned int waited = 0;; waited += 20) {
		if (flock(fd, op | LOCK_NB) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK || waited >= timeout_ms)
			return -errno;
		nanosleep(&ts, NULL);
	}
}
