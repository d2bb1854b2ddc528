// SPDX-License-Identifier: MIT
/* What the kernel does to the tree when the simulated node is driven: SR-IOV
 * enable/disable, mlx5_core bind/unbind of VFs, MLNX_OFED sriov/<vf>/ writes,
 * and a function vanishing. The caller holds .sim/lock and names the request
 * in `what` ("cannot write '8' to '/sys/.../sriov_numvfs'"): a refusal the
 * kernel would give is the errno returned and e's message "<what>: <strerror>
 * (<reason>)"; a failure of the tree itself is its own full message. */
#include "core/sim/sim_tree.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/guid.h"
#include "core/sys/sys.h"
#include "core/model/names.h"

static const char *base_name(const char *rel)
{
	const char *s = strrchr(rel, '/');
	return s ? s + 1 : rel;
}

static int read_uint(const char *root, const char *dir, const char *file, unsigned int *ret)
{
	char rel[PATH_MAX];
	uint64_t v;
	sim_fmt(rel, sizeof(rel), "%s/%s", dir, file);
	int r = sim_get_u64(root, rel, &v);
	if (r == 0)
		*ret = (unsigned int)v;
	return r;
}

/* The first entry of a directory (a function's one ibdev or netdev). */
static int first_entry(const char *root, const char *dir_rel, char *buf, size_t size)
{
	char p[PATH_MAX];
	sim_fmt(p, sizeof(p), "%s/%s", root, dir_rel);
	DIR *d = opendir(p);
	if (!d)
		return -errno;
	struct dirent *de;
	int r = -ENOENT;
	while (r < 0 && (de = readdir(d)))
		if (de->d_name[0] != '.' && strlen(de->d_name) < size) {
			strcpy(buf, de->d_name);
			r = 0;
		}
	closedir(d);
	return r;
}

int sim_kernel_vf_of(const char *root, const char *vf_bdf, char pf_bdf[static 16],
		     unsigned int *ret_vf)
{
	char fn[PATH_MAX], rel[PATH_MAX], pf[PATH_MAX], t[PATH_MAX];
	unsigned int total = 0;
	if (sim_fn_rel(root, vf_bdf, fn, sizeof(fn)) < 0)
		return -ENODEV;
	sim_fmt(rel, sizeof(rel), "%s/physfn", fn);
	if (sim_resolve(root, rel, pf, sizeof(pf)) < 0 ||
	    read_uint(root, pf, "sriov_totalvfs", &total))
		return -ENODEV;
	for (unsigned int i = 0; i < total; i++) {
		sim_fmt(rel, sizeof(rel), "%s/virtfn%u", pf, i);
		if (sim_resolve(root, rel, t, sizeof(t)) == 0 && !strcmp(t, fn)) {
			sim_fmt(pf_bdf, 16, "%s", base_name(pf));
			*ret_vf = i;
			return 0;
		}
	}
	return -ENODEV;
}

/* Removes the function's netdevs and ibdevs, as the driver's remove does. */
static int remove_children(const char *root, const char *fn, const char *sub, const char *cls,
			   struct err *e)
{
	char dir[PATH_MAX], name[64], rel[PATH_MAX];
	int r = 0;
	sim_fmt(dir, sizeof(dir), "%s/%s", fn, sub);
	while (r == 0 && first_entry(root, dir, name, sizeof(name)) == 0) {
		sim_fmt(rel, sizeof(rel), "%s/%s", dir, name);
		r = sim_event_add(root, "remove", cls, name, NULL, rel, e);
		if (r == 0)
			r = sim_rmtree(root, rel, e);
		sim_fmt(rel, sizeof(rel), "sys/class/%s/%s", cls, name);
		if (r == 0)
			r = sim_rmtree(root, rel, e);
	}
	return r == 0 ? sim_rmtree(root, dir, e) : r;
}

int sim_refuse(struct err *e, const char *what, int errnum, const char *fmt, ...)
{
	char reason[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	errnum = errnum < 0 ? -errnum : errnum;
	return err_setx(e, errnum, "%s: %s (%s)", what, strerror(errnum), reason);
}

int sim_kernel_unbind(const char *root, const char *bdf, const char *what, struct err *e)
{
	char fn[PATH_MAX], rel[PATH_MAX], pf[16];
	unsigned int vf;
	if (sim_fn_rel(root, bdf, fn, sizeof(fn)) < 0)
		return sim_refuse(e, what, ENODEV, "no PCI function '%s'", bdf);
	sim_fmt(rel, sizeof(rel), "%s/driver", fn);
	if (!sim_exists(root, rel))
		return sim_refuse(e, what, ENODEV, "'%s' is not bound to mlx5_core", bdf);
	if (sim_kernel_vf_of(root, bdf, pf, &vf) < 0)
		return sim_refuse(e, what, EOPNOTSUPP, "the simulated kernel unbinds VFs only");
	int r = remove_children(root, fn, "net", "net", e);
	if (r == 0)
		r = remove_children(root, fn, "infiniband", "infiniband", e);
	if (r == 0)
		r = sim_rmtree(root, rel, e);
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/drivers/mlx5_core/%s", bdf);
	if (r == 0)
		r = sim_rmtree(root, rel, e);
	if (r == 0)
		r = sim_event_add(root, "unbind", "pci", bdf, NULL, fn, e);
	return r;
}

/* The PF's ibdev facts a VF inherits. */
struct pf_facts {
	char fw_ver[32], rate[64], board_id[64];
	bool ethernet;
	uint64_t sys_image_guid;
};

static int pf_facts(const char *root, const char *pf_rel, struct pf_facts *f)
{
	char ib[64], dir[PATH_MAX], rel[PATH_MAX], buf[64];
	int r = 0;
	sim_fmt(rel, sizeof(rel), "%s/infiniband", pf_rel);
	if ((r = first_entry(root, rel, ib, sizeof(ib))) < 0)
		return r;
	sim_fmt(dir, sizeof(dir), "%s/infiniband/%s", pf_rel, ib);
#define GET(file, dst)                                                                             \
	(sim_fmt(rel, sizeof(rel), "%s/%s", dir, file), sim_get(root, rel, dst, sizeof(dst)))
	if ((r = GET("fw_ver", f->fw_ver)) < 0 || (r = GET("ports/1/rate", f->rate)) < 0 ||
	    (r = GET("board_id", f->board_id)) < 0 || (r = GET("ports/1/link_layer", buf)) < 0)
		return r;
	f->ethernet = link_layer_from_string(buf) == LINK_LAYER_ETHERNET;
	if ((r = GET("sys_image_guid", buf)) < 0)
		return r;
#undef GET
	return guid_parse(buf, &f->sys_image_guid);
}

int sim_kernel_bind(const char *root, const char *bdf, const char *what, struct err *e)
{
	char fn[PATH_MAX], pf_rel[PATH_MAX], rel[PATH_MAX], pf[16], ib[16], net[16], buf[32];
	unsigned int vf, ifindex, lid = 0;
	struct pf_facts f;
	struct sim_vf_admin a;
	if (sim_fn_rel(root, bdf, fn, sizeof(fn)) < 0)
		return sim_refuse(e, what, ENODEV, "no PCI function '%s'", bdf);
	sim_fmt(rel, sizeof(rel), "%s/driver", fn);
	if (sim_exists(root, rel))
		return sim_refuse(e, what, EBUSY, "'%s' is already bound", bdf);
	if (sim_kernel_vf_of(root, bdf, pf, &vf) < 0)
		return sim_refuse(e, what, EOPNOTSUPP, "the simulated kernel binds VFs only");
	int perr = sim_probe_fails(root, bdf);
	if (perr < 0) {
		int r = sim_probe_fail_log(root, bdf, perr, e);
		return r < 0 ? r : sim_refuse(e, what, -perr, "probe of %s failed", bdf);
	}
	sim_fmt(rel, sizeof(rel), "%s/physfn", fn);
	int r = sim_resolve(root, rel, pf_rel, sizeof(pf_rel));
	if (r < 0 || (r = pf_facts(root, pf_rel, &f)) < 0 ||
	    (r = sim_vf_admin_read(root, pf, vf, &a)) < 0)
		return err_set(e, r, "cannot read the state of PF '%s'", pf);

	/* Probe: the ibdev takes the admin GUIDs; the port comes up only with a
	 * port GUID (a virtualization-capable SM is assumed). */
	bool active = f.ethernet || a.port_guid != 0;
	if (active && !f.ethernet && (r = sim_counter_next(root, "next_lid", &lid, e)) < 0)
		return r;
	if ((r = sim_free_name(root, "sys/class/infiniband", "mlx5_", ib, sizeof(ib))) < 0 ||
	    (r = sim_free_name(root, "sys/class/net", f.ethernet ? "eth" : "ib", net,
			       sizeof(net))) < 0)
		return sim_refuse(e, what, r, "no free device name");
	if ((r = sim_fn_bind(root, fn, bdf, e)) < 0)
		return r;
	struct sim_ibdev_spec d = {
		.name = ib,
		.device = SIM_VF_DEVICE,
		.node_guid = a.node_guid,
		.sys_image_guid = f.sys_image_guid,
		.port_guid = a.port_guid,
		.fw_ver = f.fw_ver,
		.board_id = f.board_id,
		.ethernet = f.ethernet,
		.state = active ? 4 : 1,
		.phys_state = 5,
		.rate = f.rate,
		.lid = lid,
		.sm_lid = f.ethernet ? 0 : 1,
	};
	memcpy(d.mac, a.mac, 6);
	if ((r = sim_ibdev_write(root, fn, &d, e)) < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "%s/infiniband/%s", fn, ib);
	if ((r = sim_event_add(root, "add", "infiniband", ib, NULL, rel, e)) < 0)
		return r;
	if ((r = sim_counter_next(root, "next_ifindex", &ifindex, e)) < 0)
		return r;
	struct sim_netdev_spec n = {
		.name = net,
		.ifindex = ifindex,
		.ethernet = f.ethernet,
		.carrier = active,
		.mtu = f.ethernet ? 1500 : 4092,
		.qpn = 0x1087 + 0x100 * (vf + 1),
		.port_guid = a.port_guid,
	};
	memcpy(n.mac, a.mac, 6);
	if ((r = sim_netdev_write(root, fn, &n, e)) < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "%s/net/%s", fn, net);
	if ((r = sim_event_add(root, "add", "net", net, NULL, rel, e)) < 0)
		return r;
	/* MLNX_OFED's files now show the GUIDs in effect. */
	sim_fmt(rel, sizeof(rel), "%s/sriov/%u/policy", pf_rel, vf);
	if (sim_get(root, rel, buf, sizeof(buf)) >= 0 &&
	    (r = sim_mofed_write(root, pf_rel, vf, a.node_guid, a.port_guid, buf, e)) < 0)
		return r;
	if ((r = sim_event_add(root, "bind", "pci", bdf, NULL, fn, e)) < 0)
		return r;
	/* udev sees the new netdev: a .link file may name it. */
	return sim_udev_net_add(root, bdf, net, false, NULL, e);
}

/* Removes one VF function: driver, directory, links. */
static int remove_fn(const char *root, const char *bdf, const char *fn, const char *what,
		     struct err *e)
{
	char rel[PATH_MAX];
	int r = 0;
	sim_fmt(rel, sizeof(rel), "%s/driver", fn);
	if (sim_exists(root, rel))
		r = sim_kernel_unbind(root, bdf, what, e);
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/devices/%s", bdf);
	if (r == 0)
		r = sim_rmtree(root, rel, e);
	if (r == 0)
		r = sim_rmtree(root, fn, e);
	if (r == 0)
		r = sim_event_add(root, "remove", "pci", bdf, NULL, fn, e);
	return r;
}

int sim_kernel_vanish(const char *root, const char *bdf, struct err *e)
{
	char fn[PATH_MAX], pf[16], rel[PATH_MAX], pf_rel[PATH_MAX], what[64];
	unsigned int vf;
	if (sim_fn_rel(root, bdf, fn, sizeof(fn)) < 0)
		return 0;
	sim_fmt(what, sizeof(what), "cannot remove PCI function '%s'", bdf);
	bool is_vf = sim_kernel_vf_of(root, bdf, pf, &vf) == 0;
	sim_fmt(rel, sizeof(rel), "%s/physfn", fn);
	if (is_vf && sim_resolve(root, rel, pf_rel, sizeof(pf_rel)) < 0)
		is_vf = false;
	int r = remove_fn(root, bdf, fn, what, e);
	if (r == 0 && is_vf) {
		sim_fmt(rel, sizeof(rel), "%s/virtfn%u", pf_rel, vf);
		r = sim_rmtree(root, rel, e);
	}
	return r;
}

static int disable_vfs(const char *root, const char *pf_rel, unsigned int cur, const char *what,
		       struct err *e)
{
	const char *pf = base_name(pf_rel);
	char rel[PATH_MAX], fn[PATH_MAX];
	int r = 0;
	for (unsigned int i = cur; i-- > 0 && r == 0;) {
		sim_fmt(rel, sizeof(rel), "%s/virtfn%u", pf_rel, i);
		if (sim_resolve(root, rel, fn, sizeof(fn)) == 0)
			r = remove_fn(root, base_name(fn), fn, what, e);
		if (r == 0)
			r = sim_rmtree(root, rel, e);
		sim_fmt(rel, sizeof(rel), "%s/sriov/%u", pf_rel, i);
		if (r == 0)
			r = sim_rmtree(root, rel, e);
	}
	sim_fmt(rel, sizeof(rel), ".sim/vf/%s", pf);
	return r == 0 ? sim_rmtree(root, rel, e) : r;
}

/* The driver's probe of a new VF: a failure is the kernel log's, not the
 * sriov_numvfs writer's (the probe runs after the VF appears). */
static int probe(const char *root, const char *bdf, const char *what, struct err *e)
{
	int perr = sim_probe_fails(root, bdf);
	return perr < 0 ? sim_probe_fail_log(root, bdf, perr, e)
			: sim_kernel_bind(root, bdf, what, e);
}

static int enable_vfs(const char *root, const char *pf_rel, unsigned int n, const char *what,
		      struct err *e)
{
	const char *pf = base_name(pf_rel);
	char bdf[16], fn[PATH_MAX], rel[PATH_MAX];
	unsigned int offset = 1, stride = 1, autoprobe = 1, cls = 0;
	read_uint(root, pf_rel, "sriov_offset", &offset);
	read_uint(root, pf_rel, "sriov_stride", &stride);
	read_uint(root, pf_rel, "sriov_drivers_autoprobe", &autoprobe);
	read_uint(root, pf_rel, "class", &cls);
	if (sim_bdf_add(pf, offset + stride * (n - 1), bdf) < 0)
		return sim_refuse(e, what, ERANGE, "VF %u would be past PCI bus ff", n - 1);
	sim_fmt(rel, sizeof(rel), "%s/sriov", pf_rel);
	bool mofed = sim_exists(root, rel);
	unsigned int *order = calloc(n, sizeof(*order));
	if (!order)
		return err_set(e, ENOMEM, "%s", what);
	int r = sim_probe_order(root, order, n, e);
	/* The VFs appear in index order; with autoprobe the driver probes each
	 * as it appears, or, with a shuffled probe order, all of them after,
	 * in that order (asynchronous probing). */
	bool shuffled = false;
	for (unsigned int i = 0; i < n; i++)
		shuffled |= order[i] != i;
	for (unsigned int i = 0; i < n && r == 0; i++) {
		sim_bdf_add(pf, offset + stride * i, bdf);
		sim_fmt(fn, sizeof(fn), "%.*s/%s", (int)(base_name(pf_rel) - pf_rel - 1), pf_rel,
			bdf);
		struct sim_fn_spec f = {.bdf = bdf,
					.device = SIM_VF_DEVICE,
					.ethernet = cls == 0x020000,
					.pf_rel = pf_rel,
					.vf_index = i};
		struct sim_vf_admin a = {0}; /* new VFs start with zero GUIDs */
		r = sim_fn_write(root, fn, &f, e);
		if (r == 0)
			r = sim_vf_admin_write(root, pf, i, &a, e);
		if (r == 0 && mofed)
			r = sim_mofed_write(root, pf_rel, i, 0, 0,
					    vf_link_policy_to_string(VF_LINK_STATE_AUTO), e);
		if (r == 0)
			r = sim_event_add(root, "add", "pci", bdf, NULL, fn, e);
		if (r == 0 && autoprobe && !shuffled)
			r = probe(root, bdf, what, e);
	}
	for (unsigned int i = 0; i < n && r == 0 && autoprobe && shuffled; i++) {
		sim_bdf_add(pf, offset + stride * order[i], bdf);
		r = probe(root, bdf, what, e);
	}
	free(order);
	return r;
}

/* splitmix64: a small generator whose whole state is the seed. */
static uint64_t probe_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int sim_probe_order(const char *root, unsigned int *perm, unsigned int n, struct err *e)
{
	char buf[64];
	for (unsigned int i = 0; i < n; i++)
		perm[i] = i;
	if (sim_get(root, ".sim/probe", buf, sizeof(buf)) < 0 || !strcmp(buf, "index"))
		return 0;
	unsigned long long seed;
	char end;
	if (sscanf(buf, "shuffle %llu%c", &seed, &end) != 1)
		return err_setx(e, EINVAL, "'%s/.sim/probe' says '%s': 'index' or 'shuffle SEED'",
				root, buf);
	uint64_t state = seed;
	for (unsigned int i = n; i > 1; i--) {
		unsigned int j = (unsigned int)(probe_next(&state) % i), t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	return sim_putf(root, e, ".sim/probe", "shuffle %llu\n", (unsigned long long)state);
}

int sim_kernel_set_numvfs(const char *root, const char *pf_rel, const char *value, const char *what,
			  struct err *e)
{
	char *end;
	unsigned int total = 0, cur = 0;
	errno = 0;
	unsigned long n = strtoul(value, &end, 10);
	while (*end == '\n' || *end == ' ')
		end++;
	if (errno || end == value || *end || value[0] == '-')
		return sim_refuse(e, what, EINVAL, "not a number");
	int r = read_uint(root, pf_rel, "sriov_totalvfs", &total);
	if (r == 0)
		r = read_uint(root, pf_rel, "sriov_numvfs", &cur);
	if (r < 0)
		return sim_refuse(e, what, r, "not an SR-IOV physical function");
	if (n == cur)
		return 0;
	if (n > total)
		return sim_refuse(e, what, ERANGE, "sriov_totalvfs is %u", total);
	if (n > 0 && cur > 0)
		return sim_refuse(e, what, EBUSY, "VFs already enabled; write 0 first");
	r = n ? enable_vfs(root, pf_rel, (unsigned int)n, what, e)
	      : disable_vfs(root, pf_rel, cur, what, e);
	char rel[PATH_MAX];
	sim_fmt(rel, sizeof(rel), "%s/sriov_numvfs", pf_rel);
	if (r == 0)
		r = sim_putf(root, e, rel, "%lu\n", n);
	/* As the kernel does once sriov_numvfs is written: the PF changed. A
	 * reader that saw the VFs come and go rereads the final count now. */
	if (r == 0)
		r = sim_event_add(root, "change", "pci", base_name(pf_rel), NULL, pf_rel, e);
	return r;
}

int sim_kernel_mofed_write(const char *root, const char *pf_rel, unsigned int vf, const char *file,
			   const char *value, const char *what, struct err *e)
{
	const char *pf = base_name(pf_rel);
	char v[64], rel[PATH_MAX];
	struct sim_vf_admin a;
	sim_fmt(v, sizeof(v), "%s", value);
	v[strcspn(v, "\n")] = '\0';
	if (sim_vf_admin_read(root, pf, vf, &a) < 0)
		return sim_refuse(e, what, ENODEV, "VF %u is not enabled", vf);
	int r = 0;
	if (!strcmp(file, "node") || !strcmp(file, "port")) {
		uint64_t g;
		if (guid_parse(v, &g) < 0)
			return sim_refuse(e, what, EINVAL, "not a GUID");
		/* Administrative only: takes effect at the next bind. */
		*(file[0] == 'n' ? &a.node_guid : &a.port_guid) = g;
	} else if (!strcmp(file, "policy")) {
		int i = 0;
		while (i < VF_LINK_STATE_MAX && strcasecmp(v, vf_link_policy_to_string(i)))
			i++;
		if (i == VF_LINK_STATE_MAX)
			return sim_refuse(e, what, EINVAL, "policy is Down, Up or Follow");
		a.link_state = i;
		sim_fmt(rel, sizeof(rel), "%s/sriov/%u/policy", pf_rel, vf);
		r = sim_putf(root, e, rel, "%s\n", vf_link_policy_to_string(i));
	} else {
		return sim_refuse(e, what, EACCES, "read-only attribute");
	}
	if (r == 0)
		r = sim_vf_admin_write(root, pf, vf, &a, e);
	return r == 0 ? sim_kernel_vf_admin_event(root, pf_rel, e) : r;
}

/* As the kernel's RTM_NEWLINK after a VF setting: on the PF's netdev, saying
 * only that its VFs' admin state changed. A PF without a netdev has no link
 * to announce it on: a change of the PCI function then. */
int sim_kernel_vf_admin_event(const char *root, const char *pf_rel, struct err *e)
{
	char dir[PATH_MAX], name[SYS_IFNAMSIZ];
	sim_fmt(dir, sizeof(dir), "%s/net", pf_rel);
	if (first_entry(root, dir, name, sizeof(name)) < 0)
		return sim_event_add(root, "change", "pci", base_name(pf_rel), NULL, pf_rel, e);
	sim_fmt(dir, sizeof(dir), "%s/net/%s", pf_rel, name);
	return sim_event_add(root, SYS_EVENT_VF_ADMIN, "net", name, NULL, dir, e);
}
