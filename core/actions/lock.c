// SPDX-License-Identifier: MIT
/* The node's lock (lock.h). */
#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/safefile.h"

void node_lock_path(struct sys *s, char buf[static PATH_MAX])
{
	const char *root = sys_root(s);
	snprintf(buf, PATH_MAX, "%s%s", strcmp(root, "/") ? root : "", NODE_LOCK_PATH);
}

static int lock_open(const char *path, int *ret_fd, struct err *e)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	*slash = '\0';
	int dfd, r = safefile_dir(dir, true, &dfd, e);
	if (r < 0)
		return r;
	int fd = openat(dfd, slash + 1, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			0600);
	int err = errno;
	close(dfd);
	if (fd < 0)
		return err == ELOOP ? err_setx(e, ELOOP,
					       "the lock '%s' is a symbolic link: ibvf does not "
					       "follow links where it writes",
					       path)
				    : err_set(e, err, "cannot open the lock '%s'", path);
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_setx(e, EINVAL, "the lock '%s' is not a regular file", path);
	}
	if ((st.st_mode & 07777) != 0600 && st.st_uid == geteuid() && fchmod(fd, 0600) < 0) {
		r = err_set(e, errno, "cannot set the mode of the lock '%s'", path);
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

/* The pid the holder wrote (0: unknown). */
static pid_t holder_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	long pid = strtol(buf, NULL, 10);
	return pid > 0 && pid < (1L << 22) ? (pid_t)pid : 0;
}

int node_lock_take(struct sys *s, bool no_wait, const atomic_bool *cancel,
		   void (*waiting)(void *arg, pid_t holder), void *arg, int *ret_fd, struct err *e)
{
	char path[PATH_MAX];
	int fd = -1, r;
	node_lock_path(s, path);
	if ((r = lock_open(path, &fd, e)) < 0)
		return r;
	bool said = false;
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			r = err_set(e, errno, "cannot lock '%s'", path);
			close(fd);
			return r;
		}
		pid_t pid = holder_pid(fd);
		if (no_wait) {
			close(fd);
			return err_setx(
				e, EWOULDBLOCK,
				"another ibvf (pid %d) holds '%s': not waiting (--no-wait); "
				"nothing was changed",
				(int)pid, path);
		}
		if (!said && waiting)
			waiting(arg, pid);
		said = true;
		if (cancel && atomic_load(cancel)) {
			close(fd);
			return err_setx(e, ECANCELED,
					"stopped while waiting for another ibvf (pid %d) holding "
					"'%s': nothing was changed",
					(int)pid, path);
		}
		struct timespec ts = {0, 50 * 1000000L};
		nanosleep(&ts, NULL);
	}
	char pid[32];
	int len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	/* Should this fail, the lock holds without its pid: a waiter says "pid 0". */
	if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)len, 0) != len)
		len = 0;
	*ret_fd = fd;
	return 0;
}

int lock_file_try(const char *path, int *ret_fd, pid_t *ret_holder, struct err *e)
{
	int fd = -1, r;
	if ((r = lock_open(path, &fd, e)) < 0)
		return r;
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		r = errno == EWOULDBLOCK ? -EWOULDBLOCK
					 : err_set(e, errno, "cannot lock '%s'", path);
		if (r == -EWOULDBLOCK && ret_holder)
			*ret_holder = holder_pid(fd);
		close(fd);
		return r;
	}
	char pid[32];
	int len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)len, 0) != len)
		len = 0;
	*ret_fd = fd;
	return 0;
}

void node_lock_release(int fd)
{
	if (fd < 0)
		return;
	/* The pid goes before the lock: whoever takes it next writes its own. */
	int r = ftruncate(fd, 0);
	(void)r;
	flock(fd, LOCK_UN);
	close(fd);
}
