// SPDX-License-Identifier: MIT
/* What both kernel-boundary implementations share: the file operations over
 * the root prefix, and the dispatch to the implementation's operations. */
#include "sys_impl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/base/safefile.h"

int sys_base_init(struct sys *s, const struct sys_ops *ops, const char *root, bool sim,
		  struct err *e)
{
	const char *programs = getenv("IBVF_NODE_PROGRAMS");
	s->programs_unseen = !sim && programs && !strcmp(programs, "unseen");
	if (!root || !*root)
		root = "/";
	if (strlen(root) >= sizeof(s->root))
		return err_setx(e, ENAMETOOLONG, "root '%s' is too long", root);
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, errno, "cannot open root '%s'", root);
	/* A tree other than '/' is read with its links resolved inside it;
	 * the simulated node (a private directory) may do without openat2. */
	int probe = strcmp(root, "/") && !sim ? safefile_open_in(fd, ".", O_PATH, 0) : 0;
	if (probe < 0) {
		close(fd);
		if (probe == -ENOSYS)
			return err_setx(e, ENOSYS,
					"cannot read the tree '%s' safely: this kernel has no "
					"openat2() (Linux 5.6 or later is needed)",
					root);
		return err_set(e, -probe, "cannot open root '%s'", root);
	}
	if (probe > 0)
		close(probe);
	s->ops = ops;
	s->sim = sim;
	snprintf(s->podres_socket, sizeof(s->podres_socket), "%s", PODRES_SOCKET);
	s->podres_timeout_ms = PODRES_TIMEOUT_MS;
	s->podres_msg_max = PODRES_MSG_MAX;
	s->rootfd = fd;
	strcpy(s->root, root);
	return 0;
}

void sys_base_fini(struct sys *s)
{
	if (s && s->rootfd >= 0)
		close(s->rootfd);
}

const char *sys_relpath(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

void sys_close(struct sys *s)
{
	if (s)
		s->ops->close(s);
}

int sys_reopen(struct sys *s, struct sys **ret, struct err *e)
{
	return s->ops->reopen(s, ret, e);
}

void sys_set_podres(struct sys *s, const struct podres_opts *o)
{
	if (o->socket && strlen(o->socket) < sizeof(s->podres_socket))
		snprintf(s->podres_socket, sizeof(s->podres_socket), "%s", o->socket);
	if (o->timeout_ms > 0)
		s->podres_timeout_ms = o->timeout_ms;
	if (o->msg_max > 0)
		s->podres_msg_max = o->msg_max;
	s->podres_retry_at = 0; /* other settings: asked again at once */
}

static double mono_secs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sys_podres_read(struct sys *s, struct podres *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->socket = strdup(s->podres_socket);
	if (!ret->socket)
		return -ENOMEM;
	if (!s->ops->podres_read)
		return 0; /* PODRES_ABSENT */
	double now = mono_secs();
	if (s->podres_retry_at > now) {
		ret->state = PODRES_FAILED;
		if (asprintf(&ret->note, "%s (asked again in %.0f s)", s->podres_last_note,
			     s->podres_retry_at - now) < 0) {
			ret->note = NULL;
			podres_fini(ret);
			return -ENOMEM;
		}
		return 0;
	}
	int r = s->ops->podres_read(s, ret);
	if (r == 0 && ret->state == PODRES_FAILED) {
		/* At least 30 s, and 15 deadlines: a kubelet that hangs costs a
		 * refreshing console under 7% of its time. */
		double wait = 15.0 * s->podres_timeout_ms / 1000.0;
		if (wait < PODRES_RETRY_SECS)
			wait = PODRES_RETRY_SECS;
		s->podres_retry_at = mono_secs() + wait;
		snprintf(s->podres_last_note, sizeof(s->podres_last_note), "%s",
			 ret->note ? ret->note : "the kubelet's pod-resources API failed");
	} else {
		s->podres_retry_at = 0;
	}
	if (r < 0)
		podres_fini(ret);
	return r;
}

bool sys_is_sim(const struct sys *s)
{
	return s->sim;
}

const char *sys_root(const struct sys *s)
{
	return s->root;
}

void sys_set_trace(struct sys *s, sys_trace_fn fn, void *arg)
{
	s->trace = fn;
	s->trace_arg = arg;
}

/* Every file of the node is opened here: under a root other than '/' its
 * links, absolute or climbing with '..', resolve inside that root. */
static int open_in(struct sys *s, const char *rel, int flags)
{
	if (strcmp(s->root, "/"))
		return s->sim ? safefile_open_in_or_at(s->rootfd, rel, flags, 0)
			      : safefile_open_in(s->rootfd, rel, flags, 0);
	int fd = openat(s->rootfd, rel, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int sys_open_rel(struct sys *s, const char *path, int flags)
{
	sys_traced(s, path);
	return open_in(s, sys_relpath(path), flags);
}

/* A file to read: O_NONBLOCK, so a FIFO or a device planted in a captured
 * tree cannot block the open, and only a regular file is read. *ret_size
 * is its size as fstat() gives it (sysfs and procfs do not know it: 4096
 * or 0). */
static int open_regular(struct sys *s, const char *path, off_t *ret_size)
{
	int fd = sys_open_rel(s, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	struct stat st = {0};
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	*ret_size = st.st_size;
	return fd;
}

/* Whether len bytes read are the whole file: a file that knows its size
 * (not sysfs or procfs, whose size is 4096 or 0 whatever they hold) has
 * no more, and the read that would say so is spared. */
static bool read_all(size_t len, off_t size)
{
	return len > 0 && size > 0 && (unsigned long long)size == len;
}

int sys_read(struct sys *s, const char *path, char *buf, size_t size)
{
	if (size == 0)
		return -EINVAL;
	buf[0] = '\0';
	off_t fsize;
	int fd = open_regular(s, path, &fsize);
	if (fd < 0)
		return fd;
	size_t len = 0;
	int r = 0;
	while (!read_all(len, fsize)) {
		if (len == size - 1) {
			/* Full: one more byte tells whether the file was bigger. */
			char extra;
			ssize_t n = read(fd, &extra, 1);
			if (n > 0)
				r = -EFBIG;
			else if (n < 0)
				r = -errno;
			break;
		}
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[r < 0 ? 0 : len] = '\0';
	return r < 0 ? r : (int)len;
}

int sys_read_attr(struct sys *s, const char *path, char *buf, size_t size)
{
	int r = sys_read(s, path, buf, size);
	if (r < 0)
		return r;
	size_t len = (size_t)r;
	while (len > 0 && isspace((unsigned char)buf[len - 1]))
		buf[--len] = '\0';
	return (int)len;
}

int sys_read_file(struct sys *s, const char *path, size_t max, char **ret, size_t *ret_len)
{
	off_t fsize;
	int fd = open_regular(s, path, &fsize);
	if (fd < 0)
		return fd;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	int r = 0;
	while (buf && !read_all(len, fsize)) {
		if (len + 1 >= cap) {
			if (cap > max) {
				r = -EFBIG;
				break;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			r = -EFBIG;
			break;
		}
	}
	close(fd);
	if (!buf)
		return -ENOMEM;
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	if (ret_len)
		*ret_len = len;
	return 0;
}

int sys_base_write(struct sys *s, const char *path, const char *value, struct err *e)
{
	int fd = sys_open_rel(s, path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return err_set(e, fd, "cannot open '%s' for writing", path);
	size_t len = strlen(value);
	ssize_t n = write(fd, value, len);
	int r = n < 0 ? -errno : ((size_t)n == len ? 0 : -EIO);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		return err_set(e, r, "cannot write '%s' to '%s'", value, path);
	return 0;
}

int sys_write(struct sys *s, const char *path, const char *value, struct err *e)
{
	if (s->ops->write)
		return s->ops->write(s, path, value, e);
	return sys_base_write(s, path, value, e);
}

int sys_readlink(struct sys *s, const char *path, char *buf, size_t size)
{
	if (size == 0)
		return -EINVAL;
	/* The link's directory resolved as sys_open_rel does, the link read there. */
	char dir[PATH_MAX];
	const char *rel = sys_relpath(path), *slash = strrchr(rel, '/'), *name = rel;
	snprintf(dir, sizeof(dir), ".");
	if (slash) {
		if ((size_t)(slash - rel) >= sizeof(dir))
			return -ENAMETOOLONG;
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel);
		name = slash + 1;
	}
	int dfd = open_in(s, dir, O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return dfd;
	sys_traced(s, path);
	ssize_t n = readlinkat(dfd, name, buf, size);
	int err = errno;
	close(dfd);
	if (n < 0)
		return -err;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return (int)n;
}

int sys_readlink_name(struct sys *s, const char *path, char *buf, size_t size)
{
	char target[PATH_MAX];
	int r = sys_readlink(s, path, target, sizeof(target));
	if (r < 0)
		return r;
	const char *slash = strrchr(target, '/');
	const char *name = slash ? slash + 1 : target;
	if (strlen(name) >= size)
		return -ENAMETOOLONG;
	strcpy(buf, name);
	return (int)strlen(buf);
}

int sys_exists(struct sys *s, const char *path)
{
	int fd = sys_open_rel(s, path, O_PATH);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

bool sys_programs_visible(struct sys *s)
{
	return !s->programs_unseen;
}

int sys_stat(struct sys *s, const char *path, struct stat *ret)
{
	int fd = sys_open_rel(s, path, O_PATH);
	if (fd < 0)
		return fd;
	int r = fstat(fd, ret) < 0 ? -errno : 0;
	close(fd);
	return r;
}

int sys_exec_check(struct sys *s, const char *path)
{
	struct stat st;
	int r = sys_stat(s, path, &st);
	if (r < 0)
		return r;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	return st.st_mode & 0111 ? 0 : -EACCES;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory entry as getdents64() gives it (struct linux_dirent64). */
struct kdirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* The names are read with getdents64() on the descriptor sys_open_rel()
 * gives, not through fdopendir() (a stat and two fcntl calls more per
 * directory: discovery lists several per PCI function). */
int sys_list(struct sys *s, const char *path, char ***ret, size_t *ret_n)
{
	int fd = sys_open_rel(s, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	char buf[16384] __attribute__((aligned(8)));
	char **names = NULL;
	size_t n = 0, cap = 0;
	int r = 0;
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			r = got < 0 ? -errno : 0;
			break;
		}
		for (long off = 0; off < got && r == 0;) {
			const struct kdirent64 *de = (const struct kdirent64 *)(buf + off);
			off += de->d_reclen;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				char **nn = realloc(names, cap * sizeof(*names));
				if (!nn) {
					r = -ENOMEM;
					break;
				}
				names = nn;
			}
			if (!(names[n] = strdup(de->d_name))) {
				r = -ENOMEM;
				break;
			}
			n++;
		}
		if (r < 0)
			break;
	}
	close(fd);
	if (r < 0) {
		sys_list_free(names, n);
		return r;
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*ret = names;
	*ret_n = n;
	return 0;
}

void sys_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void sys_links_free(struct sys_link *links, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(links[i].vfs);
	free(links);
}

int sys_link_dump(struct sys *s, struct sys_link **ret, size_t *ret_n, struct err *e)
{
	sys_traced(s, "netlink:dump");
	return s->ops->link_dump(s, ret, ret_n, e);
}

int sys_link_get(struct sys *s, const char *ifname, struct sys_link *ret, struct err *e)
{
	if (s->trace) {
		char what[SYS_ALTIFNAMSIZ + 16];
		snprintf(what, sizeof(what), "netlink:%s", ifname);
		s->trace(s->trace_arg, what);
	}
	return s->ops->link_get(s, ifname, ret, e);
}

void sys_link_fini(struct sys_link *l)
{
	if (!l)
		return;
	free(l->vfs);
	l->vfs = NULL;
	l->n_vfs = 0;
}

int sys_link_rename(struct sys *s, const char *ifname, const char *newname, struct err *e)
{
	return s->ops->link_rename(s, ifname, newname, e);
}

int sys_link_set_up(struct sys *s, const char *ifname, bool up, struct err *e)
{
	return s->ops->link_set_up(s, ifname, up, e);
}

int sys_vf_set_guid(struct sys *s, const char *pf_ifname, uint32_t vf, enum sys_guid_kind kind,
		    uint64_t guid, struct err *e)
{
	return s->ops->vf_set_guid(s, pf_ifname, vf, kind, guid, e);
}

int sys_vf_set_link_state(struct sys *s, const char *pf_ifname, uint32_t vf, int state,
			  struct err *e)
{
	return s->ops->vf_set_link_state(s, pf_ifname, vf, state, e);
}

int sys_event_fd(struct sys *s)
{
	return s->ops->event_fd(s);
}

int sys_event_read(struct sys *s, struct sys_event *ret)
{
	return s->ops->event_read(s, ret);
}
