// SPDX-License-Identifier: MIT
/* Discovery: reads the node through the kernel boundary into a snapshot
 * (what it reads, and in which format: docs/kernel.md).
 * PFs are found by scanning PCI functions for SR-IOV capability or an RDMA
 * device; VFs through the PF's virtfn<N> links; RDMA devices without a
 * `device` link (Soft-RoCE) are placed through their `parent` netdev. */
#include "core/model/node.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <linux/if_arp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/attr.h"
#include "core/pods/devplugin.h"
#include "core/pods/operators.h"
#include "core/base/guid.h"
#include "core/persist/linkfile.h"
#include "core/persist/persist.h"
#include "core/pods/pods.h"
#include "gpu.h"
#include "refresh.h"
#include "resolve.h"
#include "core/sys/sys.h"

#define NOTES_MAX 64

void discover_note(struct discover *d, const char *fmt, ...)
{
	struct node *n = d->n;
	if (n->n_notes >= NOTES_MAX)
		return;
	char **nn = realloc(n->notes, (n->n_notes + 1) * sizeof(*nn));
	if (!nn)
		return;
	n->notes = nn;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&n->notes[n->n_notes], fmt, ap) >= 0)
		n->n_notes++;
	va_end(ap);
}

static void read_port(struct sys *s, const char *dir, struct port *p)
{
	char buf[ATTR_MAX];

	p->state = attr_read_state(s, dir, "state", &p->state_name);
	p->phys_state = attr_read_state(s, dir, "phys_state", &p->phys_state_name);
	p->rate = attr_read_str(s, dir, "rate");
	if (p->rate)
		p->rate_mbps = attr_parse_rate_mbps(p->rate);
	p->link_layer = attr_read_str(s, dir, "link_layer");
	p->lid = attr_read_int(s, dir, "lid");
	p->sm_lid = attr_read_int(s, dir, "sm_lid");
	p->pkey0 = attr_read_int(s, dir, "pkeys/0");
	uint64_t prefix, guid;
	if (attr_read(s, dir, "gids/0", buf, sizeof(buf)) > 0 &&
	    guid_from_gid(buf, &prefix, &guid) == 0) {
		p->gid_prefix = (struct kguid){.known = true, .v = prefix};
		p->port_guid = (struct kguid){.known = true, .v = guid};
	}
}

static int read_rdma(struct discover *d, const char *name, struct rdma *r)
{
	struct sys *s = d->s;
	char dir[PATH_MAX], path[PATH_MAX];
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s", name);

	if (!(r->name = strdup(name)))
		return -ENOMEM;
	r->node_type = attr_read_int(s, dir, "node_type");
	r->node_guid = attr_read_guid(s, dir, "node_guid");
	r->sys_image_guid = attr_read_guid(s, dir, "sys_image_guid");
	r->fw_ver = attr_read_str(s, dir, "fw_ver");
	r->hca_type = attr_read_str(s, dir, "hca_type");
	r->board_id = attr_read_str(s, dir, "board_id");
	r->parent = attr_read_str(s, dir, "parent");

	char **ports;
	size_t n_ports;
	if (sys_list(s, attr_join(path, dir, "ports"), &ports, &n_ports) < 0)
		return 0;
	for (size_t i = 0; i < n_ports; i++) {
		char *end;
		unsigned long num = strtoul(ports[i], &end, 10);
		if (*end || num == 0 || num > 255)
			continue;
		struct port *p = node_arr_grow(&r->ports, &r->n_ports, sizeof(*p));
		if (!p)
			break;
		p->num = (unsigned int)num;
		if (snprintf(path, sizeof(path), "%s/ports/%s", dir, ports[i]) < PATH_MAX)
			read_port(s, path, p);
	}
	sys_list_free(ports, n_ports);
	return 0;
}

static const struct sys_link *find_link(const struct discover *d, int ifindex, const char *name)
{
	for (size_t i = 0; i < d->n_links; i++)
		if ((ifindex > 0 && d->links[i].ifindex == ifindex) ||
		    (ifindex <= 0 && !strcmp(d->links[i].name, name)))
			return &d->links[i];
	return NULL;
}

static int read_netdev(struct discover *d, const char *fndir, const char *name, struct netdev *nd)
{
	struct sys *s = d->s;
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/net/%s", fndir, name);

	if (!(nd->name = strdup(name)))
		return -ENOMEM;
	nd->ifindex = attr_read_int(s, dir, "ifindex");
	nd->type = attr_read_int(s, dir, "type");
	nd->mtu = attr_read_int(s, dir, "mtu");
	nd->dev_port = attr_read_int(s, dir, "dev_port");
	nd->flags = attr_read_int(s, dir, "flags");
	nd->operstate = attr_read_str(s, dir, "operstate");
	nd->address = attr_read_str(s, dir, "address");
	uint64_t g;
	if (nd->address && nd->type.known && nd->type.v == ARPHRD_INFINIBAND &&
	    guid_from_ipoib_addr(nd->address, &g) == 0)
		nd->addr_guid = (struct kguid){.known = true, .v = g};

	const struct sys_link *l = find_link(d, nd->ifindex.known ? (int)nd->ifindex.v : 0, name);
	if (l && l->n_altnames) {
		nd->altnames = calloc(l->n_altnames, sizeof(*nd->altnames));
		for (size_t i = 0; nd->altnames && i < l->n_altnames; i++)
			if ((nd->altnames[nd->n_altnames] = strdup(l->altnames[i])))
				nd->n_altnames++;
	}
	return 0;
}

/* Reads one PCI function: ids, driver, netdevs, RDMA devices. */
static int read_fn(struct discover *d, const char *bdf, struct fn *f)
{
	struct sys *s = d->s;
	char dir[128], path[PATH_MAX];
	snprintf(f->bdf, sizeof(f->bdf), "%s", bdf);
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", bdf);

	f->vendor = attr_read_int(s, dir, "vendor");
	f->device = attr_read_int(s, dir, "device");
	f->devpath = discover_devpath(s, bdf);
	f->numa = attr_read_int(s, dir, "numa_node");
	char drv[128];
	if (sys_readlink_name(s, attr_join(path, dir, "driver"), drv, sizeof(drv)) > 0)
		f->driver = strdup(drv);

	char **names;
	size_t n;
	if (sys_list(s, attr_join(path, dir, "net"), &names, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			struct netdev *nd = node_arr_grow(&f->netdevs, &f->n_netdevs, sizeof(*nd));
			if (!nd || read_netdev(d, dir, names[i], nd) < 0)
				break;
		}
		sys_list_free(names, n);
	}
	if (sys_list(s, attr_join(path, dir, "infiniband"), &names, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			struct rdma *r = node_arr_grow(&f->rdmas, &f->n_rdmas, sizeof(*r));
			if (!r || read_rdma(d, names[i], r) < 0)
				break;
		}
		sys_list_free(names, n);
	}
	return 0;
}

/* What the PF's link (among d->links) says of the VF. */
static void read_vf_admin_netlink(struct discover *d, const struct pf *pf, struct vf *vf)
{
	struct vf_admin *a = &vf->admin;
	for (size_t i = 0; i < pf->fn.n_netdevs && !a->netlink_known; i++) {
		const struct netdev *nd = &pf->fn.netdevs[i];
		const struct sys_link *l =
			find_link(d, nd->ifindex.known ? (int)nd->ifindex.v : 0, nd->name);
		for (size_t j = 0; l && j < l->n_vfs; j++) {
			const struct sys_vf_info *vi = &l->vfs[j];
			if (vi->vf != vf->index)
				continue;
			a->netlink_known = true;
			if (l->type != ARPHRD_INFINIBAND) {
				char mac[HWADDR_STRLEN];
				hwaddr_format(vi->mac, mac);
				a->mac = strdup(mac);
			}
			a->vlan = (struct kval){vi->vlan >= 0, vi->vlan};
			a->spoofchk = (struct kval){vi->spoofchk >= 0, vi->spoofchk};
			a->trust = (struct kval){vi->trust >= 0, vi->trust};
			a->link_state = (struct kval){vi->link_state >= 0, vi->link_state};
			a->max_tx_rate = (struct kval){vi->max_tx_rate >= 0, vi->max_tx_rate};
			a->node_guid = (struct kguid){vi->node_guid_known, vi->node_guid};
			a->port_guid = (struct kguid){vi->port_guid_known, vi->port_guid};
			break;
		}
	}
}

static void read_vf_admin(struct discover *d, const struct pf *pf, struct vf *vf)
{
	struct vf_admin *a = &vf->admin;
	char path[256];

	read_vf_admin_netlink(d, pf, vf);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov/%u", pf->fn.bdf, vf->index);
	if (sys_exists(d->s, path) < 0)
		return;
	a->mofed = true;
	a->mofed_node = attr_read_guid(d->s, path, "node");
	a->mofed_port = attr_read_guid(d->s, path, "port");
	a->mofed_policy = attr_read_str(d->s, path, "policy");
}

/* The GUIDs in effect, from the most direct source available. */
static void vf_effective_guids(struct vf *vf)
{
	const struct fn *f = &vf->fn;
	if (f->n_rdmas)
		vf->node_guid = f->rdmas[0].node_guid;
	const struct port *p = fn_port(f);
	if (p && p->port_guid.known)
		vf->port_guid = p->port_guid;
	for (size_t i = 0; !vf->port_guid.known && i < f->n_netdevs; i++)
		vf->port_guid = f->netdevs[i].addr_guid;
	if (!vf->port_guid.known && vf->admin.mofed)
		vf->port_guid = vf->admin.mofed_port;
}

static int cmp_vf(const void *a, const void *b)
{
	const struct vf *x = a, *y = b;
	return (x->index > y->index) - (x->index < y->index);
}

static int read_vfs(struct discover *d, struct pf *pf, char **entries, size_t n_entries)
{
	for (size_t i = 0; i < n_entries; i++) {
		char bdf[64];
		int idx = discover_virtfn(d, pf, entries[i], bdf, sizeof(bdf));
		if (idx < 0)
			continue;
		struct vf *vf = node_arr_grow(&pf->vfs, &pf->n_vfs, sizeof(*vf));
		if (!vf)
			return -ENOMEM;
		vf->index = (unsigned int)idx;
		read_fn(d, bdf, &vf->fn);
		read_vf_admin(d, pf, vf);
		vf_effective_guids(vf);
	}
	if (pf->n_vfs)
		qsort(pf->vfs, pf->n_vfs, sizeof(*pf->vfs), cmp_vf);
	return 0;
}

static int read_pf(struct discover *d, const char *bdf)
{
	char dir[128];
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", bdf);
	char **entries;
	size_t n;
	if (sys_list(d->s, dir, &entries, &n) < 0)
		return 0; /* vanished while we looked: not on the node any more */

	bool sriov;
	int r = 0;
	if (!discover_is_vf(entries, n) && (r = gpu_probe(d, bdf)) != 0) {
		r = r < 0 ? r : 0;
		goto out;
	}
	if (discover_is_pf(entries, n, &sriov)) {
		struct pf *pf = node_arr_grow(&d->n->pfs, &d->n->n_pfs, sizeof(*pf));
		if (!pf) {
			r = -ENOMEM;
			goto out;
		}
		pf->sriov = sriov;
		read_fn(d, bdf, &pf->fn);
		discover_pf_sriov(d, pf);
		r = read_vfs(d, pf, entries, n);
	}
out:
	sys_list_free(entries, n);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

const char **discover_rdma_names(const struct node *n, size_t *ret_n)
{
	size_t cap = 0, k = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j <= n->pfs[i].n_vfs; j++)
			cap += (j ? &n->pfs[i].vfs[j - 1].fn : &n->pfs[i].fn)->n_rdmas;
	const char **v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j <= n->pfs[i].n_vfs; j++) {
			const struct fn *f = j ? &n->pfs[i].vfs[j - 1].fn : &n->pfs[i].fn;
			for (size_t r = 0; r < f->n_rdmas; r++)
				if (f->rdmas[r].name)
					v[k++] = f->rdmas[r].name;
		}
	qsort(v, k, sizeof(*v), cmp_str);
	*ret_n = k;
	return v;
}

bool discover_rdma_held(const char **names, size_t n, const char *name)
{
	return bsearch(&name, names, n, sizeof(*names), cmp_str) != NULL;
}

/* RDMA devices not under a PCI function (Soft-RoCE): place them through the
 * netdev named in `parent`, else keep them as orphans. */
static void place_rdma_orphans(struct discover *d)
{
	char **names;
	size_t n;
	if (sys_list(d->s, "/sys/class/infiniband", &names, &n) < 0)
		return;
	/* The devices the functions hold, looked up by name: one scan of the
	 * node rather than one per device. A device placed below has a name
	 * no later entry of the directory has. */
	size_t n_held = 0;
	const char **held = discover_rdma_names(d->n, &n_held);
	for (size_t i = 0; i < n; i++) {
		struct node_ref known;
		if (held ? discover_rdma_held(held, n_held, names[i])
			 : !node_lookup(d->n, names[i], NODE_NAME_RDMA, &known) && known.fn)
			continue;
		struct rdma r = {0};
		if (read_rdma(d, names[i], &r) < 0)
			continue;
		struct fn *f = NULL;
		if (r.parent) {
			char path[256], bdf[64];
			snprintf(path, sizeof(path), "/sys/class/net/%s/device", r.parent);
			if (sys_readlink_name(d->s, path, bdf, sizeof(bdf)) > 0)
				f = (struct fn *)node_find_fn(d->n, bdf, NULL, NULL);
		}
		struct rdma *slot = f ? node_arr_grow(&f->rdmas, &f->n_rdmas, sizeof(r))
				      : node_arr_grow(&d->n->orphans, &d->n->n_orphans, sizeof(r));
		if (slot)
			*slot = r;
	}
	free(held);
	sys_list_free(names, n);
	/* A VF whose GUIDs come from a device placed just now. */
	for (size_t i = 0; i < d->n->n_pfs; i++)
		for (size_t j = 0; j < d->n->pfs[i].n_vfs; j++) {
			struct vf *vf = &d->n->pfs[i].vfs[j];
			vf->node_guid = (struct kguid){0};
			vf->port_guid = (struct kguid){0};
			vf_effective_guids(vf);
		}
}

static int cmp_pf(const void *a, const void *b)
{
	return strcmp(((const struct pf *)a)->fn.bdf, ((const struct pf *)b)->fn.bdf);
}

int node_discover(struct sys *s, struct node **ret, struct err *e)
{
	struct discover d = {.s = s};
	if (!(d.n = calloc(1, sizeof(*d.n))))
		return err_set(e, ENOMEM, "cannot allocate the node");
	struct node *n = d.n;

	discover_header(&d);
	discover_links(&d);

	char **bdfs;
	size_t n_bdfs;
	int r = sys_list(s, "/sys/bus/pci/devices", &bdfs, &n_bdfs);
	if (r < 0) {
		sys_links_free(d.links, d.n_links);
		node_free(n);
		return err_set(e, r, "cannot list '%s/sys/bus/pci/devices'",
			       strcmp(sys_root(s), "/") ? sys_root(s) : "");
	}
	for (size_t i = 0; i < n_bdfs && r >= 0; i++)
		r = read_pf(&d, bdfs[i]);
	sys_list_free(bdfs, n_bdfs);
	if (n->n_pfs)
		qsort(n->pfs, n->n_pfs, sizeof(*n->pfs), cmp_pf);
	if (r >= 0) {
		place_rdma_orphans(&d);
		gpu_finish(&d);
	}
	sys_links_free(d.links, d.n_links);
	if (r >= 0)
		r = persist_read(s, n);
	if (r >= 0)
		r = pods_attach(s, NULL, n);
	if (r >= 0)
		r = devplugin_attach(s, n);
	if (r >= 0)
		r = operators_attach(s, n);
	if (r < 0) {
		node_free(n);
		return err_set(e, r, "cannot read the node");
	}
	*ret = n;
	return 0;
}

/* What refresh.c shares (refresh.h). */

void discover_header(struct discover *d)
{
	struct node *n = d->n;
	n->hostname = attr_read_str(d->s, "/proc/sys/kernel", "hostname");
	n->kernel = attr_read_str(d->s, "/proc/sys/kernel", "osrelease");
	n->driver_version = attr_read_str(d->s, "/sys/module/mlx5_core", "version");
	int unread = 0, dropped = discover_kmsg(d, &unread);
	if (n->kmsg_unknown)
		discover_note(
			d,
			"kernel log not read: '/dev/kmsg': %s (the kernel-log checks did not run)",
			strerror(-unread));
	if (dropped > 0)
		discover_note(d,
			      "kernel log: %d RDMA driver records dropped, %zu kept (failures "
			      "first, then the newest)",
			      dropped, n->n_kmsg);
	if (linkfile_read_all(d->s, &n->link_files, &n->n_link_files) < 0)
		discover_note(d, "cannot read the systemd .link files: out of memory");
}

bool discover_uses_netlink(struct sys *s)
{
	/* Netlink speaks for the running kernel: not for a captured tree. */
	return sys_is_sim(s) || !strcmp(sys_root(s), "/");
}

int discover_links(struct discover *d)
{
	if (!discover_uses_netlink(d->s)) {
		discover_note(d,
			      "netlink not used: the tree under '%s' is not the running kernel's",
			      sys_root(d->s));
		d->n->links_unknown = true;
		return 0;
	}
	struct err le;
	int r = sys_link_dump(d->s, &d->links, &d->n_links, &le);
	if (r < 0) {
		discover_note(d, "netlink link dump failed, VF admin state unknown: %s", le.msg);
		d->n->links_unknown = true;
	}
	return r;
}

bool discover_is_vf(char **entries, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(entries[i], "physfn"))
			return true;
	return false;
}

char *discover_devpath(struct sys *s, const char *bdf)
{
	char link[128], target[PATH_MAX], path[PATH_MAX];
	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s", bdf);
	if (sys_readlink(s, link, target, sizeof(target)) <= 0)
		return NULL;
	if (target[0] == '/')
		return strdup(target);
	/* Relative to the link's directory, ".." taken lexically as the
	 * kernel's links are written: a path on the node, whatever the root. */
	size_t len = strlen("/sys/bus/pci/devices");
	memcpy(path, "/sys/bus/pci/devices", len + 1);
	for (char *c = target, *next; c && *c; c = next) {
		next = strchr(c, '/');
		if (next)
			*next++ = '\0';
		if (!*c || !strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (len > 0 && path[len - 1] != '/')
				len--;
			len = len > 0 ? len - 1 : 0;
			path[len] = '\0';
			continue;
		}
		size_t cl = strlen(c);
		if (len + 1 + cl >= sizeof(path))
			return NULL;
		path[len++] = '/';
		memcpy(path + len, c, cl + 1);
		len += cl;
	}
	return len ? strdup(path) : NULL;
}

bool discover_is_pf(char **entries, size_t n, bool *ret_sriov)
{
	bool sriov = false, rdma = false, is_vf = false;
	for (size_t i = 0; i < n; i++) {
		sriov |= !strcmp(entries[i], "sriov_totalvfs");
		rdma |= !strcmp(entries[i], "infiniband");
		is_vf |= !strcmp(entries[i], "physfn");
	}
	*ret_sriov = sriov;
	return !is_vf && (sriov || rdma);
}

void discover_pf_sriov(struct discover *d, struct pf *pf)
{
	char dir[128];
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", pf->fn.bdf);
	pf->numvfs = attr_read_int(d->s, dir, "sriov_numvfs");
	pf->totalvfs = attr_read_int(d->s, dir, "sriov_totalvfs");
	pf->autoprobe = attr_read_int(d->s, dir, "sriov_drivers_autoprobe");
}

int discover_virtfn(struct discover *d, const struct pf *pf, const char *entry, char *bdf,
		    size_t size)
{
	char *end;
	if (strncmp(entry, "virtfn", 6) != 0)
		return -ENOENT;
	unsigned long idx = strtoul(entry + 6, &end, 10);
	if (*end || end == entry + 6 || idx > 65535)
		return -ENOENT;
	char path[256];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", pf->fn.bdf, entry);
	if (sys_readlink_name(d->s, path, bdf, size) <= 0) {
		discover_note(d, "cannot read link '%s'", path);
		d->n->virtfn_unread = true;
		return -ENOENT;
	}
	return (int)idx;
}

int discover_fn(struct discover *d, const char *bdf, struct fn *f)
{
	return read_fn(d, bdf, f);
}

void discover_vf_admin(struct discover *d, const struct pf *pf, struct vf *vf)
{
	read_vf_admin(d, pf, vf);
}

void discover_vf_admin_netlink(struct discover *d, const struct pf *pf, struct vf *vf)
{
	read_vf_admin_netlink(d, pf, vf);
}

void discover_vf_guids(struct vf *vf)
{
	vf_effective_guids(vf);
}

void discover_orphans(struct discover *d)
{
	place_rdma_orphans(d);
}
