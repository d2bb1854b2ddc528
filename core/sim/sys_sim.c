// SPDX-License-Identifier: MIT
/* The simulated kernel: the kernel boundary over a fixture tree
 * (docs/fixture.md). Reads are plain file reads; writes and netlink calls do
 * what the kernel would (sim_kernel.c), and every change appends a uevent line
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
#include "core/sys_impl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "core/guid.h"
#include "core/sim/sim_tree.h"

struct sim {
	struct sys base;
	char kernel[64];
	char faults[1024];
	int inotify;
	off_t event_off;
};

static const char *root_of(struct sys *s)
{
	return s->root;
}

/* The errno an armed fault gives the operation kind (0: none). */
static int fault_errno(struct sim *m, const char *kind, const char *path)
{
	return sim_fault_errno(root_of(&m->base), m->faults, kind, path);
}

static int faults_vanish(struct sim *m, struct err *e)
{
	return sim_faults_vanish(root_of(&m->base), m->faults, e);
}

/* Takes .sim/lock and applies pending vanish faults. Returns the lock fd. */
static int lock_take(struct sim *m, struct err *e)
{
	int fd = openat(m->base.rootfd, ".sim/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return err_set(e, errno, "cannot open '%s/.sim/lock'", m->base.root);
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

static void lock_drop(int fd)
{
	close(fd); /* releases the flock */
}

static const char *base_name(const char *rel)
{
	const char *s = strrchr(rel, '/');
	return s ? s + 1 : rel;
}

/* Dispatches a write to the kernel action its canonical path names. */
static int write_apply(struct sim *m, const char *path, const char *value, const char *what,
		       struct err *e)
{
	const char *root = root_of(&m->base);
	char rel[PATH_MAX], dir[PATH_MAX], bdf[32];
	if (sim_resolve(root, sys_relpath(path), rel, sizeof(rel)) < 0)
		return sys_base_write(&m->base, path, value, e);
	const char *name = base_name(rel);
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
	const char *vf = base_name(dir);
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
	int lock = lock_take(m, e);
	if (lock < 0)
		return lock;
	int f = fault_errno(m, "write", path);
	int r = f ? sim_refuse(e, what, f, "injected fault") : write_apply(m, path, value, what, e);
	lock_drop(lock);
	return r;
}

static int netdev_dir(struct sim *m, const char *ifname, char *buf, size_t size)
{
	return sim_netdev_dir(root_of(&m->base), ifname, buf, size);
}

static int get_uint(struct sim *m, const char *dir, const char *file, uint64_t *ret)
{
	char rel[PATH_MAX];
	sim_fmt(rel, sizeof(rel), "%s/%s", dir, file);
	return sim_get_u64(root_of(&m->base), rel, ret);
}

static int cmp_link(const void *a, const void *b)
{
	return ((const struct sys_link *)a)->ifindex - ((const struct sys_link *)b)->ifindex;
}

static int sim_link_dump(struct sys *s, struct sys_link **ret, size_t *ret_n, struct err *e)
{
	struct sim *m = (struct sim *)s;
	int f = fault_errno(m, "link_dump", NULL);
	if (f)
		return err_set(e, f, "cannot dump links (injected fault)");
	char **names;
	size_t n;
	int r = sys_list(s, "/sys/class/net", &names, &n);
	if (r < 0)
		return err_set(e, r, "cannot dump links");
	struct sys_link *links = calloc(n ? n : 1, sizeof(*links));
	size_t k = 0;
	for (size_t i = 0; links && i < n; i++)
		if (sim_link_read(root_of(s), names[i], &links[k]) == 0)
			k++;
	sys_list_free(names, n);
	if (!links)
		return err_set(e, ENOMEM, "cannot dump links");
	qsort(links, k, sizeof(*links), cmp_link);
	*ret = links;
	*ret_n = k;
	return 0;
}

/* One link as sim_link_dump() reports it, read alone: a PF's VF list costs
 * a few reads per VF, the dump that for every PF. */
static int sim_link_get(struct sys *s, const char *ifname, struct sys_link *ret, struct err *e)
{
	struct sim *m = (struct sim *)s;
	struct sys_link l;
	int f = fault_errno(m, "link_get", NULL);
	if (f)
		return err_setx(e, f, "cannot get link '%s': %s (injected fault)", ifname,
				strerror(f));
	if (sim_link_read(root_of(s), ifname, &l) < 0) /* allocates nothing then */
		return err_setx(e, ENODEV, "no network interface '%s'", ifname);
	*ret = l;
	return 0;
}

/* major*1000+minor of the simulated kernel's release. */
static int kernel_version(struct sim *m, char *rel, size_t size)
{
	if (m->kernel[0])
		sim_fmt(rel, size, "%s", m->kernel);
	else if (sim_get(root_of(&m->base), ".sim/kernel", rel, size) < 0 &&
		 sim_get(root_of(&m->base), "proc/sys/kernel/osrelease", rel, size) < 0)
		sim_fmt(rel, size, "6.8.0");
	unsigned int major = 0, minor = 0;
	sscanf(rel, "%u.%u", &major, &minor);
	return (int)(major * 1000 + minor);
}

static bool ifname_valid(const char *n)
{
	size_t len = strlen(n);
	if (len == 0 || len >= SYS_IFNAMSIZ || !strcmp(n, ".") || !strcmp(n, ".."))
		return false;
	for (const char *c = n; *c; c++)
		if (*c == '/' || *c == ':' || isspace((unsigned char)*c))
			return false;
	return true;
}

static int rename_locked(struct sim *m, const char *ifname, const char *newname, struct err *e)
{
	const char *root = root_of(&m->base);
	char dir[PATH_MAX], to[PATH_MAX], rel[PATH_MAX], from_p[PATH_MAX], to_p[PATH_MAX], kr[64];
	uint64_t flags = 0;
	int f = fault_errno(m, "rename", NULL);
	if (f)
		return err_setx(e, f, "cannot rename '%s' to '%s': %s (injected fault)", ifname,
				newname, strerror(f));
	if (netdev_dir(m, ifname, dir, sizeof(dir)) < 0)
		return err_set(e, ENODEV, "cannot rename '%s'", ifname);
	if (!strcmp(ifname, newname))
		return 0;
	sim_fmt(rel, sizeof(rel), "sys/class/net/%s", newname);
	if (sim_exists(root, rel))
		return err_set(e, EEXIST, "cannot rename '%s' to '%s'", ifname, newname);
	get_uint(m, dir, "flags", &flags);
	if ((flags & IFF_UP) && kernel_version(m, kr, sizeof(kr)) < 6002)
		return err_setx(e, EBUSY,
				"cannot rename '%s' to '%s': %s (the link is up; kernel %s renames "
				"only down links, 6.2 and later also up ones)",
				ifname, newname, strerror(EBUSY), kr);
	sim_fmt(to, sizeof(to), "%.*s/%s", (int)(base_name(dir) - dir - 1), dir, newname);
	sim_fmt(from_p, sizeof(from_p), "%s/%s", root, dir);
	sim_fmt(to_p, sizeof(to_p), "%s/%s", root, to);
	if (rename(from_p, to_p) < 0)
		return err_set(e, errno, "cannot rename '%s' to '%s'", ifname, newname);
	sim_fmt(rel, sizeof(rel), "sys/class/net/%s", ifname);
	int r = sim_rmtree(root, rel, e);
	sim_fmt(rel, sizeof(rel), "sys/class/net/%s", newname);
	if (r == 0)
		r = sim_symlink(root, rel, to, e);
	if (r == 0)
		r = sim_event_add(root, "move", "net", newname, ifname, to, e);
	return r;
}

static int sim_link_rename(struct sys *s, const char *ifname, const char *newname, struct err *e)
{
	struct sim *m = (struct sim *)s;
	if (!ifname_valid(newname))
		return err_setx(e, EINVAL,
				"cannot rename '%s' to '%s': %s (not a valid interface name)",
				ifname, newname, strerror(EINVAL));
	int lock = lock_take(m, e);
	if (lock < 0)
		return lock;
	int r = rename_locked(m, ifname, newname, e);
	lock_drop(lock);
	return r;
}

/* Carrier: the port of the function's ibdev is ACTIVE (no ibdev: assume up). */
static bool has_carrier(struct sim *m, const char *dir)
{
	char rel[PATH_MAX], fn[PATH_MAX], **names;
	size_t n;
	sim_fmt(rel, sizeof(rel), "%s/device", dir);
	if (sim_resolve(root_of(&m->base), rel, fn, sizeof(fn)) < 0)
		return true;
	sim_fmt(rel, sizeof(rel), "/%s/infiniband", fn);
	if (sys_list(&m->base, rel, &names, &n) < 0)
		return true;
	bool up = true;
	if (n) {
		char state[32] = "";
		sim_fmt(rel, sizeof(rel), "%s/infiniband/%s/ports/1/state", fn, names[0]);
		sim_get(root_of(&m->base), rel, state, sizeof(state));
		up = state[0] == '4';
	}
	sys_list_free(names, n);
	return up;
}

static int set_up_locked(struct sim *m, const char *ifname, bool up, struct err *e)
{
	const char *root = root_of(&m->base);
	char dir[PATH_MAX], rel[PATH_MAX];
	uint64_t flags = 0;
	int f = fault_errno(m, "set_up", NULL);
	if (f)
		return err_setx(e, f, "cannot set '%s' %s: %s (injected fault)", ifname,
				up ? "up" : "down", strerror(f));
	if (netdev_dir(m, ifname, dir, sizeof(dir)) < 0)
		return err_set(e, ENODEV, "cannot set '%s' %s", ifname, up ? "up" : "down");
	get_uint(m, dir, "flags", &flags);
	flags = up ? flags | IFF_UP : flags & ~(uint64_t)IFF_UP;
	sim_fmt(rel, sizeof(rel), "%s/flags", dir);
	int r = sim_putf(root, e, rel, "0x%llx\n", (unsigned long long)flags);
	sim_fmt(rel, sizeof(rel), "%s/operstate", dir);
	if (r == 0)
		r = sim_putf(root, e, rel, "%s\n", up && has_carrier(m, dir) ? "up" : "down");
	if (r == 0)
		r = sim_event_add(root, "change", "net", ifname, NULL, dir, e);
	return r;
}

static int sim_link_set_up(struct sys *s, const char *ifname, bool up, struct err *e)
{
	struct sim *m = (struct sim *)s;
	int lock = lock_take(m, e);
	if (lock < 0)
		return lock;
	int r = set_up_locked(m, ifname, up, e);
	lock_drop(lock);
	return r;
}

/* The PF behind a netdev, its BDF and its VF's admin state. */
static int vf_admin_get(struct sim *m, const char *pf_ifname, uint32_t vf, char *pf_rel,
			size_t size, struct sim_vf_admin *a, struct err *e)
{
	char dir[PATH_MAX], rel[PATH_MAX], ll[32] = "";
	uint64_t numvfs = 0;
	if (netdev_dir(m, pf_ifname, dir, sizeof(dir)) < 0)
		return err_set(e, ENODEV, "cannot find PF '%s'", pf_ifname);
	sim_fmt(rel, sizeof(rel), "%s/device", dir);
	if (sim_resolve(root_of(&m->base), rel, pf_rel, size) < 0 ||
	    get_uint(m, pf_rel, "sriov_numvfs", &numvfs) < 0)
		return err_setx(e, EOPNOTSUPP, "'%s' is not an SR-IOV PF: %s", pf_ifname,
				strerror(EOPNOTSUPP));
	if (vf >= numvfs)
		return err_setx(e, EINVAL, "'%s' has no VF %u (sriov_numvfs is %llu): %s",
				pf_ifname, vf, (unsigned long long)numvfs, strerror(EINVAL));
	char **names;
	size_t n;
	sim_fmt(rel, sizeof(rel), "/%s/infiniband", pf_rel);
	if (sys_list(&m->base, rel, &names, &n) == 0) {
		if (n) {
			sim_fmt(rel, sizeof(rel), "%s/infiniband/%s/ports/1/link_layer", pf_rel,
				names[0]);
			sim_get(root_of(&m->base), rel, ll, sizeof(ll));
		}
		sys_list_free(names, n);
	}
	if (sim_vf_admin_read(root_of(&m->base), base_name(pf_rel), vf, a) < 0)
		return err_setx(e, ENODEV, "no state for VF %u of '%s'", vf, pf_ifname);
	return !strcmp(ll, "Ethernet") ? 1 : 0;
}

static int sim_vf_set_guid(struct sys *s, const char *pf_ifname, uint32_t vf,
			   enum sys_guid_kind kind, uint64_t guid, struct err *e)
{
	struct sim *m = (struct sim *)s;
	char pf_rel[PATH_MAX];
	struct sim_vf_admin a;
	const char *what = kind == SYS_GUID_NODE ? "node" : "port";
	int lock = lock_take(m, e);
	if (lock < 0)
		return lock;
	int f = fault_errno(m, "vf_guid", NULL);
	int r = f ? err_setx(e, f, "cannot set the %s GUID of VF %u on '%s': %s (injected fault)",
			     what, vf, pf_ifname, strerror(f))
		  : vf_admin_get(m, pf_ifname, vf, pf_rel, sizeof(pf_rel), &a, e);
	if (r == 1)
		r = err_setx(e, EOPNOTSUPP,
			     "cannot set the %s GUID of VF %u on '%s': %s (the port "
			     "is Ethernet)",
			     what, vf, pf_ifname, strerror(EOPNOTSUPP));
	if (r == 0) {
		*(kind == SYS_GUID_NODE ? &a.node_guid : &a.port_guid) = guid;
		r = sim_vf_admin_write(root_of(s), base_name(pf_rel), vf, &a, e);
	}
	if (r == 0)
		r = sim_kernel_vf_admin_event(root_of(s), pf_rel, e);
	lock_drop(lock);
	return r;
}

static int sim_vf_set_link_state(struct sys *s, const char *pf_ifname, uint32_t vf, int state,
				 struct err *e)
{
	static const char *policies[] = {"Follow", "Up", "Down"};
	struct sim *m = (struct sim *)s;
	char pf_rel[PATH_MAX], rel[PATH_MAX];
	struct sim_vf_admin a;
	if (state < 0 || state > 2)
		return err_setx(e, EINVAL, "invalid VF link state %d", state);
	int lock = lock_take(m, e);
	if (lock < 0)
		return lock;
	int f = fault_errno(m, "vf_link_state", NULL);
	int r = f ? err_setx(e, f,
			     "cannot set the link state of VF %u on '%s': %s (injected "
			     "fault)",
			     vf, pf_ifname, strerror(f))
		  : vf_admin_get(m, pf_ifname, vf, pf_rel, sizeof(pf_rel), &a, e);
	if (r == 1)
		r = 0; /* mlx5 supports the policy in both modes */
	if (r == 0) {
		a.link_state = state;
		r = sim_vf_admin_write(root_of(s), base_name(pf_rel), vf, &a, e);
	}
	sim_fmt(rel, sizeof(rel), "%s/sriov/%u/policy", pf_rel, vf);
	if (r == 0 && sim_exists(root_of(s), rel))
		r = sim_putf(root_of(s), e, rel, "%s\n", policies[state]);
	if (r == 0)
		r = sim_kernel_vf_admin_event(root_of(s), pf_rel, e);
	lock_drop(lock);
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
	int fd = openat(s->rootfd, ".sim/events", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
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
