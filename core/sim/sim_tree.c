// SPDX-License-Identifier: MIT
/* The simulator's tree plumbing: files, relative links, names, counters and
 * events. Shared by the fixture writer (sim_node.c), the device writers
 * (sim_devices.c) and the simulated kernel (sim_kernel.c, sys_sim.c). */
#include "core/sim/sim_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/guid.h"
#include "core/base/safefile.h"

int sim_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int join(char *buf, size_t size, const char *root, const char *rel)
{
	return sim_fmt(buf, size, "%s/%s", root, rel);
}

/* A file the simulator writes: its links resolve inside the tree and the
 * file itself is never a link, so one planted in the node goes nowhere. */
static int open_in_tree(const char *root, const char *rel, int flags)
{
	int rootfd = open(*root ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	int fd = safefile_open_in_or_at(rootfd, rel, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
					0644);
	close(rootfd);
	return fd;
}

/* The directory holding rel, opened as open_in_tree resolves it, and
 * rel's last component: for the *at() calls that make or replace it. */
static int parent_in_tree(const char *root, const char *rel, const char **ret_base)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(rel, '/');
	if (sim_fmt(dir, sizeof(dir), "%.*s", slash ? (int)(slash - rel) : 1, slash ? rel : ".") <
	    0)
		return -ENAMETOOLONG;
	*ret_base = slash ? slash + 1 : rel;
	int rootfd = open(*root ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	int fd = safefile_open_in_or_at(rootfd, dir, O_PATH | O_DIRECTORY, 0);
	close(rootfd);
	return fd;
}

static int mkdir_in_tree(const char *root, const char *rel)
{
	const char *base;
	int dfd = parent_in_tree(root, rel, &base);
	if (dfd < 0)
		return dfd;
	int r = mkdirat(dfd, base, 0755) < 0 ? -errno : 0;
	close(dfd);
	return r;
}

int sim_mkdirs(const char *root, const char *rel, struct err *e)
{
	char p[PATH_MAX];
	if (join(p, sizeof(p), root, rel) < 0)
		return err_setx(e, ENAMETOOLONG, "path '%s' is too long", rel);
	/* Most parents exist already: try the whole path first, then climb. */
	int r = mkdir_in_tree(root, rel);
	if (r == 0 || r == -EEXIST)
		return 0;
	if (r != -ENOENT)
		return err_set(e, -r, "cannot create directory '%s'", p);
	char *slash = strrchr(p, '/');
	if (slash && slash > p + strlen(root)) {
		*slash = '\0';
		if ((r = sim_mkdirs(root, p + strlen(root) + 1, e)) < 0)
			return r;
		*slash = '/';
	}
	if ((r = mkdir_in_tree(root, rel)) < 0 && r != -EEXIST)
		return err_set(e, -r, "cannot create directory '%s'", p);
	return 0;
}

static int mkparent(const char *root, const char *rel, struct err *e)
{
	char dir[PATH_MAX];
	sim_fmt(dir, sizeof(dir), "%s", rel);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	return sim_mkdirs(root, dir, e);
}

int sim_putf(const char *root, struct err *e, const char *rel, const char *fmt, ...)
{
	char p[PATH_MAX], *content = NULL;
	if (join(p, sizeof(p), root, rel) < 0)
		return err_setx(e, ENAMETOOLONG, "path '%s' is too long", rel);
	va_list ap;
	va_start(ap, fmt);
	int len = vasprintf(&content, fmt, ap);
	va_end(ap);
	if (len < 0)
		return err_set(e, ENOMEM, "cannot write '%s'", p);
	/* Open first: the parent usually exists, so mkdir -p only on ENOENT. */
	int r = 0, flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
	int fd = open_in_tree(root, rel, flags);
	if (fd == -ENOENT && (r = mkparent(root, rel, e)) == 0)
		fd = open_in_tree(root, rel, flags);
	if (r == 0 && fd < 0)
		r = err_set(e, -fd, "cannot create '%s'", p);
	if (fd >= 0) {
		ssize_t n = write(fd, content, (size_t)len);
		r = n < 0 ? -errno : (n == len ? 0 : -EIO);
		if (close(fd) < 0 && r == 0)
			r = -errno;
		if (r < 0)
			r = err_set(e, r, "cannot write '%s'", p);
	}
	free(content);
	return r;
}

int sim_symlink(const char *root, const char *link_rel, const char *target_rel, struct err *e)
{
	/* Skip the directories both paths share, then climb out of the rest. */
	const char *l = link_rel, *t = target_rel;
	for (;;) {
		const char *ls = strchr(l, '/'), *ts = strchr(t, '/');
		if (!ls || !ts || ls - l != ts - t || strncmp(l, t, (size_t)(ls - l)))
			break;
		l = ls + 1;
		t = ts + 1;
	}
	char target[PATH_MAX] = "";
	size_t len = 0;
	for (const char *c = l; *c; c++) {
		if (*c == '/' && len + 3 < sizeof(target)) {
			memcpy(target + len, "../", 4);
			len += 3;
		}
	}
	if (len + strlen(t) >= sizeof(target))
		return err_setx(e, ENAMETOOLONG, "link target '%s' is too long", target_rel);
	strcpy(target + len, t);

	char p[PATH_MAX];
	if (join(p, sizeof(p), root, link_rel) < 0)
		return err_setx(e, ENAMETOOLONG, "path '%s' is too long", link_rel);
	int r = mkparent(root, link_rel, e);
	if (r < 0)
		return r;
	const char *base;
	int dfd = parent_in_tree(root, link_rel, &base);
	if (dfd < 0)
		return err_set(e, -dfd, "cannot replace '%s'", p);
	if (unlinkat(dfd, base, 0) < 0 && errno != ENOENT)
		r = err_set(e, errno, "cannot replace '%s'", p);
	else if (symlinkat(target, dfd, base) < 0)
		r = err_set(e, errno, "cannot link '%s' to '%s'", p, target);
	close(dfd);
	return r;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int sim_rmtree(const char *root, const char *rel, struct err *e)
{
	char p[PATH_MAX];
	if (join(p, sizeof(p), root, rel) < 0)
		return err_setx(e, ENAMETOOLONG, "path '%s' is too long", rel);
	struct stat st;
	if (lstat(p, &st) < 0)
		return errno == ENOENT ? 0 : err_set(e, errno, "cannot remove '%s'", p);
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(p) < 0)
			return err_set(e, errno, "cannot remove '%s'", p);
		return 0;
	}
	if (nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return err_set(e, errno ? errno : EIO, "cannot remove '%s'", p);
	return 0;
}

int sim_get(const char *root, const char *rel, char *buf, size_t size)
{
	char p[PATH_MAX];
	if (size == 0 || join(p, sizeof(p), root, rel) < 0)
		return -ENAMETOOLONG;
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, size - 1);
	int r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return (int)n;
}

int sim_get_u64(const char *root, const char *rel, uint64_t *ret)
{
	char buf[64], *end;
	int r = sim_get(root, rel, buf, sizeof(buf));
	if (r < 0)
		return r;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 0);
	if (errno || end == buf || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

bool sim_exists(const char *root, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;
	return join(p, sizeof(p), root, rel) == 0 && lstat(p, &st) == 0;
}

/* The canonical path of p as realpath() gives it: here from the kernel, the
 * path of an O_PATH descriptor of p (one lookup), rather than one readlink()
 * per component of p; realpath() where /proc is not mounted. */
static int canonical(const char *p, char buf[static PATH_MAX])
{
	int fd = open(p, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char proc[32];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(proc, buf, PATH_MAX);
	close(fd);
	static const char deleted[] = " (deleted)";
	if (n > 0 && n < PATH_MAX && buf[0] == '/') {
		buf[n] = '\0';
		size_t dl = sizeof(deleted) - 1;
		if ((size_t)n < dl || strcmp(buf + n - dl, deleted))
			return 0;
	}
	return realpath(p, buf) ? 0 : -errno;
}

int sim_resolve(const char *root, const char *rel, char *buf, size_t size)
{
	char p[PATH_MAX], real_root[PATH_MAX], real[PATH_MAX];
	if (join(p, sizeof(p), root, rel) < 0)
		return -ENAMETOOLONG;
	if (!realpath(root, real_root))
		return -errno;
	int err = canonical(p, real);
	if (err < 0)
		return err;
	size_t n = strlen(real_root);
	if (strncmp(real, real_root, n) || (real[n] != '/' && real[n] != '\0'))
		return -EXDEV; /* points out of the tree */
	const char *r = real[n] == '/' ? real + n + 1 : real + n;
	if (strlen(r) >= size)
		return -ENAMETOOLONG;
	strcpy(buf, r);
	return 0;
}

int sim_free_name(const char *root, const char *class_rel, const char *prefix, char *buf,
		  size_t size)
{
	for (unsigned int i = 0; i < 100000; i++) {
		char rel[PATH_MAX];
		sim_fmt(rel, sizeof(rel), "%s/%s%u", class_rel, prefix, i);
		if (!sim_exists(root, rel)) {
			int n = snprintf(buf, size, "%s%u", prefix, i);
			return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
		}
	}
	return -ENFILE;
}

int sim_counter_next(const char *root, const char *name, unsigned int *ret, struct err *e)
{
	char rel[PATH_MAX];
	uint64_t v = 1;
	sim_fmt(rel, sizeof(rel), ".sim/%s", name);
	int r = sim_get_u64(root, rel, &v);
	if (r < 0 && r != -ENOENT)
		return err_set(e, r, "cannot read '%s'", rel);
	r = sim_putf(root, e, rel, "%llu\n", (unsigned long long)v + 1);
	if (r < 0)
		return r;
	*ret = (unsigned int)v;
	return 0;
}

int sim_event_add(const char *root, const char *action, const char *subsystem, const char *name,
		  const char *old, const char *fn_rel, struct err *e)
{
	char p[PATH_MAX], line[1024];
	if (join(p, sizeof(p), root, ".sim/events") < 0)
		return err_setx(e, ENAMETOOLONG, "path '%s' is too long", root);
	/* The devpath is the sysfs path without /sys, as in uevents. */
	const char *devpath = strncmp(fn_rel, "sys/", 4) ? fn_rel : fn_rel + 3;
	int n = snprintf(line, sizeof(line), "%s %s %s%s%s %s\n", action, subsystem, name,
			 old ? " " : "", old ? old : "", devpath);
	if (n < 0 || (size_t)n >= sizeof(line))
		return err_setx(e, ENAMETOOLONG, "event for '%s' is too long", name);
	int fd = open_in_tree(root, ".sim/events", O_WRONLY | O_APPEND | O_CREAT);
	if (fd < 0)
		return err_set(e, -fd, "cannot open '%s'", p);
	/* One write per line: readers in other processes never see half an event. */
	ssize_t w = write(fd, line, (size_t)n);
	int r = w == n ? 0 : (w < 0 ? -errno : -EIO);
	close(fd);
	return r < 0 ? err_set(e, r, "cannot append to '%s'", p) : 0;
}

int sim_bdf_add(const char *bdf, unsigned int offset, char buf[static 16])
{
	unsigned int dom, bus, dev, fn;
	if (sscanf(bdf, "%4x:%2x:%2x.%1x", &dom, &bus, &dev, &fn) != 4)
		return -EINVAL;
	unsigned int rid = (bus << 8 | dev << 3 | fn) + offset;
	if (rid > 0xffff)
		return -ERANGE;
	sim_fmt(buf, 16, "%04x:%02x:%02x.%x", dom, rid >> 8, (rid >> 3) & 0x1f, rid & 7);
	return 0;
}

int sim_fn_rel(const char *root, const char *bdf, char *buf, size_t size)
{
	char rel[PATH_MAX];
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/devices/%s", bdf);
	return sim_resolve(root, rel, buf, size);
}
