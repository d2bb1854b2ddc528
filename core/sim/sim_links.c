// SPDX-License-Identifier: MIT
/* The simulated kernel's netlink links on the fixture tree: a netdev read as
 * RTM_GETLINK reports it, and the link operations (dump and get, rename,
 * up/down, the VF GUID and link-state set). Each mutation holds the tree's
 * lock (sys_sim.c), honours the injected faults and appends the event
 * rtnetlink or the kernel would announce. */
#include "core/sim/sys_sim.h"

#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim/sim_tree.h"
#include "core/model/names.h"

static const char *root_of(struct sys *s)
{
	return s->root;
}

int sim_netdev_dir(const char *root, const char *ifname, char *buf, size_t size)
{
	char rel[PATH_MAX];
	if (!*ifname || strchr(ifname, '/') || strlen(ifname) >= SYS_IFNAMSIZ)
		return -ENODEV;
	sim_fmt(rel, sizeof(rel), "sys/class/net/%s", ifname);
	return sim_resolve(root, rel, buf, size) < 0 ? -ENODEV : 0;
}

static int read_u64(const char *root, const char *dir, const char *file, uint64_t *ret)
{
	char rel[PATH_MAX];
	sim_fmt(rel, sizeof(rel), "%s/%s", dir, file);
	return sim_get_u64(root, rel, ret);
}

/* The value of a hex digit, -1 for another character. */
static int hex_digit(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

static int oper_parse(const char *s)
{
	static const char *names[] = {"unknown", "notpresent", "down", "lowerlayerdown",
				      "testing", "dormant",    "up"};
	for (int i = 0; i < 7; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* The PF's VF list: one read of its VF state. */
static void vfs_fill(const char *root, const char *pf_bdf, struct sys_link *l)
{
	struct sim_vf_admin *all = calloc((size_t)l->num_vf, sizeof(*all));
	bool *have = calloc((size_t)l->num_vf, sizeof(*have));
	l->vfs = calloc((size_t)l->num_vf, sizeof(*l->vfs));
	bool ok = all && have && l->vfs &&
		  sim_vf_admin_load(root, pf_bdf, all, have, (unsigned int)l->num_vf) == 0;
	for (int i = 0; ok && i < l->num_vf; i++) {
		const struct sim_vf_admin *a = &all[i];
		if (!have[i])
			continue;
		struct sys_vf_info *v = &l->vfs[l->n_vfs++];
		v->vf = (uint32_t)i;
		memcpy(v->mac, a->mac, 6);
		v->vlan = v->qos = v->min_tx_rate = v->max_tx_rate = 0;
		v->spoofchk = a->spoofchk;
		v->trust = a->trust;
		v->link_state = a->link_state;
		v->node_guid_known = v->port_guid_known = true;
		v->node_guid = a->node_guid;
		v->port_guid = a->port_guid;
	}
	free(all);
	free(have);
}

int sim_link_read(const char *root, const char *name, struct sys_link *l)
{
	char dir[PATH_MAX], rel[PATH_MAX], buf[128];
	uint64_t v;
	if (sim_netdev_dir(root, name, dir, sizeof(dir)) < 0)
		return -ENODEV;
	memset(l, 0, sizeof(*l));
	sim_fmt(l->name, sizeof(l->name), "%s", name);
	if (read_u64(root, dir, "ifindex", &v) < 0)
		return -ENODEV;
	l->ifindex = (int)v;
	l->flags = read_u64(root, dir, "flags", &v) == 0 ? (unsigned int)v : 0;
	l->type = read_u64(root, dir, "type", &v) == 0 ? (unsigned int)v : 0;
	l->mtu = read_u64(root, dir, "mtu", &v) == 0 ? (unsigned int)v : 0;
	sim_fmt(rel, sizeof(rel), "%s/operstate", dir);
	l->operstate = sim_get(root, rel, buf, sizeof(buf)) >= 0 ? oper_parse(buf) : -1;
	sim_fmt(rel, sizeof(rel), "%s/address", dir);
	if (sim_get(root, rel, buf, sizeof(buf)) >= 0)
		for (const char *c = buf; l->addr_len < sizeof(l->addr); c += 3) {
			int hi = hex_digit(c[0]), lo = hi < 0 ? -1 : hex_digit(c[1]);
			if (hi < 0)
				break;
			l->addr[l->addr_len++] = (uint8_t)(lo < 0 ? hi : hi << 4 | lo);
			if (lo < 0 || c[2] != ':')
				break;
		}
	l->num_vf = -1;
	sim_fmt(rel, sizeof(rel), "%s/device/physfn", dir);
	if (read_u64(root, dir, "device/sriov_numvfs", &v) == 0 && !sim_exists(root, rel)) {
		char fn[PATH_MAX];
		sim_fmt(rel, sizeof(rel), "%s/device", dir);
		l->num_vf = (int)v;
		if (v && sim_resolve(root, rel, fn, sizeof(fn)) == 0)
			vfs_fill(root, sys_sim_base_name(fn), l);
	}
	return 0;
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

int sim_link_dump(struct sys *s, struct sys_link **ret, size_t *ret_n, struct err *e)
{
	struct sim *m = (struct sim *)s;
	int f = sys_sim_fault(m, "link_dump", NULL);
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
int sim_link_get(struct sys *s, const char *ifname, struct sys_link *ret, struct err *e)
{
	struct sim *m = (struct sim *)s;
	struct sys_link l;
	int f = sys_sim_fault(m, "link_get", NULL);
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

bool sim_ifname_valid(const char *n)
{
	size_t len = strlen(n);
	if (len == 0 || len >= SYS_IFNAMSIZ || !strcmp(n, ".") || !strcmp(n, ".."))
		return false;
	for (const char *c = n; *c; c++)
		if (*c == '/' || *c == ':' || isspace((unsigned char)*c))
			return false;
	return true;
}

int sim_netdev_rename(const char *root, const char *ifname, const char *newname, struct err *e)
{
	char dir[PATH_MAX], to[PATH_MAX], rel[PATH_MAX], from_p[PATH_MAX], to_p[PATH_MAX];
	if (sim_netdev_dir(root, ifname, dir, sizeof(dir)) < 0)
		return err_set(e, ENODEV, "cannot rename '%s'", ifname);
	sim_fmt(rel, sizeof(rel), "sys/class/net/%s", newname);
	if (sim_exists(root, rel))
		return err_set(e, EEXIST, "cannot rename '%s' to '%s'", ifname, newname);
	sim_fmt(to, sizeof(to), "%.*s/%s", (int)(sys_sim_base_name(dir) - dir - 1), dir, newname);
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

static int rename_locked(struct sim *m, const char *ifname, const char *newname, struct err *e)
{
	const char *root = root_of(&m->base);
	char dir[PATH_MAX], rel[PATH_MAX], kr[64];
	uint64_t flags = 0;
	int f = sys_sim_fault(m, "rename", NULL);
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
	return sim_netdev_rename(root, ifname, newname, e);
}

int sim_link_rename(struct sys *s, const char *ifname, const char *newname, struct err *e)
{
	struct sim *m = (struct sim *)s;
	if (!sim_ifname_valid(newname))
		return err_setx(e, EINVAL,
				"cannot rename '%s' to '%s': %s (not a valid interface name)",
				ifname, newname, strerror(EINVAL));
	int lock = sys_sim_lock(m, e);
	if (lock < 0)
		return lock;
	int r = rename_locked(m, ifname, newname, e);
	sys_sim_unlock(lock);
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
	int f = sys_sim_fault(m, "set_up", NULL);
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

int sim_link_set_up(struct sys *s, const char *ifname, bool up, struct err *e)
{
	struct sim *m = (struct sim *)s;
	int lock = sys_sim_lock(m, e);
	if (lock < 0)
		return lock;
	int r = set_up_locked(m, ifname, up, e);
	sys_sim_unlock(lock);
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
	if (sim_vf_admin_read(root_of(&m->base), sys_sim_base_name(pf_rel), vf, a) < 0)
		return err_setx(e, ENODEV, "no state for VF %u of '%s'", vf, pf_ifname);
	return link_layer_from_string(ll) == LINK_LAYER_ETHERNET ? 1 : 0;
}

int sim_vf_set_guid(struct sys *s, const char *pf_ifname, uint32_t vf, enum sys_guid_kind kind,
		    uint64_t guid, struct err *e)
{
	struct sim *m = (struct sim *)s;
	char pf_rel[PATH_MAX];
	struct sim_vf_admin a;
	const char *what = kind == SYS_GUID_NODE ? "node" : "port";
	int lock = sys_sim_lock(m, e);
	if (lock < 0)
		return lock;
	int f = sys_sim_fault(m, "vf_guid", NULL);
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
		r = sim_vf_admin_write(root_of(s), sys_sim_base_name(pf_rel), vf, &a, e);
	}
	if (r == 0)
		r = sim_kernel_vf_admin_event(root_of(s), pf_rel, e);
	sys_sim_unlock(lock);
	return r;
}

int sim_vf_set_link_state(struct sys *s, const char *pf_ifname, uint32_t vf, int state,
			  struct err *e)
{
	struct sim *m = (struct sim *)s;
	char pf_rel[PATH_MAX], rel[PATH_MAX];
	struct sim_vf_admin a;
	if (state < 0 || state > 2)
		return err_setx(e, EINVAL, "invalid VF link state %d", state);
	int lock = sys_sim_lock(m, e);
	if (lock < 0)
		return lock;
	int f = sys_sim_fault(m, "vf_link_state", NULL);
	int r = f ? err_setx(e, f,
			     "cannot set the link state of VF %u on '%s': %s (injected "
			     "fault)",
			     vf, pf_ifname, strerror(f))
		  : vf_admin_get(m, pf_ifname, vf, pf_rel, sizeof(pf_rel), &a, e);
	if (r == 1)
		r = 0; /* mlx5 supports the policy in both modes */
	if (r == 0) {
		a.link_state = state;
		r = sim_vf_admin_write(root_of(s), sys_sim_base_name(pf_rel), vf, &a, e);
	}
	sim_fmt(rel, sizeof(rel), "%s/sriov/%u/policy", pf_rel, vf);
	if (r == 0 && sim_exists(root_of(s), rel))
		r = sim_putf(root_of(s), e, rel, "%s\n", vf_link_policy_to_string(state));
	if (r == 0)
		r = sim_kernel_vf_admin_event(root_of(s), pf_rel, e);
	sys_sim_unlock(lock);
	return r;
}
