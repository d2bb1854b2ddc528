// SPDX-License-Identifier: MIT
/* The simulated kernel: the kernel boundary over a fixture tree
 * (docs/fixture.md). Reads are plain file reads; writes and netlink calls do
 * what the kernel would (sim_kernel.c; the netlink link operations are in
 * sim_links.c), and every change appends a uevent line
 * to DIR/.sim/events. All state lives in the tree, so several processes can
 * drive one node; mutations hold an flock on DIR/.sim/lock. Faults are
 * injected as sim_faults.c describes.
 *
 * Events: "ACTION SUBSYSTEM NAME [OLD_NAME] DEVPATH", one per line. Beyond the
 * kernel's uevents the simulator adds what rtnetlink announces: "change net
 * IFNAME" on link up/down, and "vfadmin net PF_IFNAME" (SYS_EVENT_VF_ADMIN)
 * when a VF's administrative state changes (a GUID or link state set over
 * netlink or through the MOFED sriov/<vf>/ files), so a console watching the
 * fd sees every change. */
#include "core/sys/sys_impl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "core/base/safefile.h"
#include "core/sim/sim_tree.h"
#include "core/sim/sys_sim.h"

static const char *root_of(struct sys *s)
{
	return s->root;
}

/* The errno an armed fault gives the operation kind (0: none). */
int sys_sim_fault(struct sim *m, const char *kind, const char *path)
{
	return sim_fault_errno(root_of(&m->base), m->faults, kind, path);
}

static int faults_vanish(struct sim *m, struct err *e)
{
	return sim_faults_vanish(root_of(&m->base), m->faults, e);
}

int sys_sim_lock(struct sim *m, struct err *e)
{
	int fd = safefile_open_in_or_at(m->base.rootfd, ".sim/lock", O_RDWR | O_CREAT | O_NOFOLLOW,
					0644);
	if (fd < 0)
		return err_set(e, -fd, "cannot open '%s/.sim/lock'", m->base.root);
	if (flock(fd, LOCK_EX) < 0) {
		int r = err_set(e, errno, "cannot lock '%s/.sim/lock'", m->base.root);
		close(fd);
		return r;
	}
	int r = faults_vanish(m, e);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

void sys_sim_unlock(int fd)
{
	close(fd); /* releases the flock */
}

/* Dispatches a write to the kernel action its canonical path names. */
static int write_apply(struct sim *m, const char *path, const char *value, const char *what,
		       struct err *e)
{
	const char *root = root_of(&m->base);
	char rel[PATH_MAX], dir[PATH_MAX], bdf[32];
	if (sim_resolve(root, sys_relpath(path), rel, sizeof(rel)) < 0)
		return sys_base_write(&m->base, path, value, e);
	const char *name = sys_sim_base_name(rel);
	sim_fmt(dir, sizeof(dir), "%.*s", (int)(name - rel - (name > rel)), rel);
	sim_fmt(bdf, sizeof(bdf), "%s", value);
	bdf[strcspn(bdf, "\n ")] = '\0';

	if (!strcmp(rel, "sys/bus/pci/drivers/mlx5_core/bind"))
		return sim_kernel_bind(root, bdf, what, e);
	if (!strcmp(rel, "sys/bus/pci/drivers/mlx5_core/unbind"))
		return sim_kernel_unbind(root, bdf, what, e);
	if (!strcmp(name, "sriov_numvfs"))
		return sim_kernel_set_numvfs(root, dir, value, what, e);
	/* <pf>/sriov/<vf>/{node,port,policy} */
	const char *vf = sys_sim_base_name(dir);
	size_t vl = (size_t)(vf - dir);
	if (vl > 7 && !strncmp(dir + vl - 7, "/sriov/", 7) && isdigit((unsigned char)*vf)) {
		char pf_rel[PATH_MAX];
		sim_fmt(pf_rel, sizeof(pf_rel), "%.*s", (int)(vl - 7), dir);
		return sim_kernel_mofed_write(root, pf_rel, (unsigned int)atoi(vf), name, value,
					      what, e);
	}
	return sys_base_write(&m->base, path, value, e);
}

static int sim_write(struct sys *s, const char *path, const char *value, struct err *e)
{
	struct sim *m = (struct sim *)s;
	sim_faults_hold(root_of(&m->base), m->faults, path);
	char v[64], what[PATH_MAX + 96];
	sim_fmt(v, sizeof(v), "%s", value);
	v[strcspn(v, "\n")] = '\0';
	sim_fmt(what, sizeof(what), "cannot write '%s' to '%s'", v, path);
	int lock = sys_sim_lock(m, e);
	if (lock < 0)
		return lock;
	int f = sys_sim_fault(m, "write", path);
	int r = f ? sim_refuse(e, what, f, "injected fault") : write_apply(m, path, value, what, e);
	sys_sim_unlock(lock);
	return r;
}

static int sim_event_fd(struct sys *s)
{
	return ((struct sim *)s)->inotify;
}

static int event_parse(char *line, struct sys_event *ev)
{
	char *tok[5], *save = NULL;
	int n = 0;
	for (char *t = strtok_r(line, " ", &save); t && n < 5; t = strtok_r(NULL, " ", &save))
		tok[n++] = t;
	if (n < 4)
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	sim_fmt(ev->action, sizeof(ev->action), "%s", tok[0]);
	sim_fmt(ev->subsystem, sizeof(ev->subsystem), "%s", tok[1]);
	sim_fmt(ev->name, sizeof(ev->name), "%s", tok[2]);
	if (n == 5)
		sim_fmt(ev->old_name, sizeof(ev->old_name), "%s", tok[3]);
	sim_fmt(ev->devpath, sizeof(ev->devpath), "%s", tok[n - 1]);
	return 0;
}

static int sim_event_read(struct sys *s, struct sys_event *ret)
{
	struct sim *m = (struct sim *)s;
	char buf[4096] __attribute__((aligned(8)));
	while (read(m->inotify, buf, sizeof(buf)) > 0)
		; /* drained: the file is the source of truth */
	int fd = safefile_open_in_or_at(s->rootfd, ".sim/events",
					O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	int r = 0;
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, m->event_off);
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		buf[n] = '\0';
		char *nl = strchr(buf, '\n');
		if (!nl) {
			/* A line longer than the buffer is skipped; a partial one waits. */
			if ((size_t)n == sizeof(buf) - 1)
				m->event_off += n;
			break;
		}
		*nl = '\0';
		m->event_off += nl - buf + 1;
		if (event_parse(buf, ret) == 0) {
			r = 1;
			break;
		}
	}
	close(fd);
	return r;
}

static void sim_close(struct sys *s)
{
	struct sim *m = (struct sim *)s;
	if (m->inotify >= 0)
		close(m->inotify);
	sys_base_fini(s);
	free(m);
}

static int sim_reopen(struct sys *s, struct sys **ret, struct err *e)
{
	struct sim *m = (struct sim *)s;
	struct sys_sim_params p = {.kernel = m->kernel[0] ? m->kernel : NULL,
				   .faults = m->faults[0] ? m->faults : NULL};
	return sys_open_sim(s->root, &p, ret, e);
}

static const struct sys_ops sim_ops = {
	.write = sim_write,
	.link_dump = sim_link_dump,
	.link_get = sim_link_get,
	.link_rename = sim_link_rename,
	.link_set_up = sim_link_set_up,
	.vf_set_guid = sim_vf_set_guid,
	.vf_set_link_state = sim_vf_set_link_state,
	.event_fd = sim_event_fd,
	.event_read = sim_event_read,
	.close = sim_close,
	.reopen = sim_reopen,
	.podres_read = sim_podres_read,
};

int sys_open_sim(const char *dir, const struct sys_sim_params *params, struct sys **ret,
		 struct err *e)
{
	char real[PATH_MAX], events[PATH_MAX + 16];
	if (!realpath(dir, real))
		return err_set(e, errno, "cannot open simulated node '%s'", dir);
	sim_fmt(events, sizeof(events), "%s/.sim/events", real);
	if (access(events, F_OK) < 0)
		return err_setx(e, ENOENT,
				"'%s' is not a simulated node (no .sim/events; make one "
				"with ibvf mkfixture)",
				dir);
	struct sim *m = calloc(1, sizeof(*m));
	if (!m)
		return err_set(e, ENOMEM, "cannot open simulated node '%s'", dir);
	m->inotify = -1;
	int r = sys_base_init(&m->base, &sim_ops, real, true, e);
	if (r < 0) {
		free(m);
		return r;
	}
	if (params && params->kernel) {
		/* The simulated node now runs that kernel: what it reports
		 * (osrelease, which discovery and actions read) and how it behaves
		 * must agree. */
		sim_fmt(m->kernel, sizeof(m->kernel), "%s", params->kernel);
		r = sim_putf(root_of(&m->base), e, "proc/sys/kernel/osrelease", "%s\n",
			     params->kernel);
		if (r < 0) {
			sim_close(&m->base);
			return r;
		}
	}
	if (params && params->faults)
		sim_fmt(m->faults, sizeof(m->faults), "%s", params->faults);
	if ((r = sim_faults_operator(root_of(&m->base), m->faults, e)) < 0) {
		sim_close(&m->base);
		return r;
	}
	m->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (m->inotify < 0 || inotify_add_watch(m->inotify, events, IN_MODIFY) < 0) {
		r = err_set(e, errno, "cannot watch '%s'", events);
		sim_close(&m->base);
		return r;
	}
	int fd = open(events, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		m->event_off = lseek(fd, 0, SEEK_END);
		close(fd);
	}
	*ret = &m->base;
	return 0;
}
