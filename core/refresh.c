// SPDX-License-Identifier: MIT
/* The incremental rebuild: a new snapshot after a batch of change events,
 * reading again only the PCI functions the events name and copying the rest
 * from the old snapshot. Snapshots stay immutable and own all they point to,
 * so the copy is deep (about 1 ms for a thousand VFs, against some 40 file
 * reads a function).
 *
 * What is read again:
 *   - a VF named by an event: its function, and its MOFED sriov/<vf>/ files;
 *   - a PF named by a netdev or ibdev event: its function and sriov_* files;
 *   - a PF named by a PCI event, or whose VFs came or went: all of the above,
 *     its VF list (new VFs are read, the others copied) and every VF's admin
 *     state from the PF's link;
 *   - always: the header, the kernel log, pod bindings, RDMA placement.
 * Netlink is asked only for the links wanted, one RTM_GETLINK each: those of
 * a PF whose VFs need their admin state, and netdevs new to the old snapshot
 * (their altnames). A link dump costs 150-470 ms on a simulated 8x127 node,
 * a PF's link a few ms. The links read are kept in d.links, where discovery
 * looks for them. When a lookup fails (the link went) the refresh starts
 * again with the full dump; when the old snapshot's dump had failed, a
 * discovery reads the whole node (its VFs' admin state is unknown). A netdev
 * read again without its link keeps the altnames its ifindex had (no event
 * announces an altname change; the console's periodic full discovery
 * catches those). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"
#include "node_copy.h"
#include "pods.h"
#include "refresh.h"
#include "resolve.h"
#include "sys.h"

enum touch {
	TOUCH_NONE,
	TOUCH_FN,  /* the function itself */
	TOUCH_ALL, /* a PF with its VF list and VF admin state */
};

/* A function of the old snapshot, found by BDF. */
struct old_fn {
	const char *bdf;
	size_t pf;
	long vf; /* index into pf->vfs, -1 for the PF */
};

struct refresh {
	struct discover d;
	const struct node *old;
	struct old_fn *index;
	size_t n_index;
	unsigned char *pf_touch; /* per old PF */
	unsigned char *vf_touch; /* per old VF, from vf_base[pf] */
	size_t *vf_base;
	bool full_links; /* take the link dump; else d.links holds the links looked up */
	bool lookups_ok; /* the old snapshot's dump did not fail */
};

/* ---- placing events ---- */

static int cmp_old_fn(const void *a, const void *b)
{
	return strcmp(((const struct old_fn *)a)->bdf, ((const struct old_fn *)b)->bdf);
}

static const struct old_fn *index_find(const struct refresh *rf, const char *bdf)
{
	struct old_fn key = {.bdf = bdf};
	return bsearch(&key, rf->index, rf->n_index, sizeof(key), cmp_old_fn);
}

static int index_build(struct refresh *rf)
{
	const struct node *o = rf->old;
	size_t n = o->n_pfs;
	for (size_t i = 0; i < o->n_pfs; i++)
		n += o->pfs[i].n_vfs;
	rf->index = calloc(n ? n : 1, sizeof(*rf->index));
	rf->vf_touch = calloc(n ? n : 1, 1);
	rf->pf_touch = calloc(o->n_pfs ? o->n_pfs : 1, 1);
	rf->vf_base = calloc(o->n_pfs ? o->n_pfs : 1, sizeof(*rf->vf_base));
	if (!rf->index || !rf->vf_touch || !rf->pf_touch || !rf->vf_base)
		return -ENOMEM;
	size_t base = 0;
	for (size_t i = 0; i < o->n_pfs; i++) {
		const struct pf *pf = &o->pfs[i];
		rf->index[rf->n_index++] = (struct old_fn){pf->fn.bdf, i, -1};
		for (size_t j = 0; j < pf->n_vfs; j++)
			rf->index[rf->n_index++] = (struct old_fn){pf->vfs[j].fn.bdf, i, (long)j};
		rf->vf_base[i] = base;
		base += pf->n_vfs;
	}
	qsort(rf->index, rf->n_index, sizeof(*rf->index), cmp_old_fn);
	return 0;
}

static void touch_pf(struct refresh *rf, size_t pf, enum touch t)
{
	if (rf->pf_touch[pf] < t)
		rf->pf_touch[pf] = (unsigned char)t;
}

/* "0000:18:00.2" */
static bool is_bdf(const char *s, size_t len)
{
	static const char shape[] = "xxxx:xx:xx.x";
	if (len != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; i < len; i++) {
		bool hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
		if (shape[i] == 'x' ? !hex : s[i] != shape[i])
			return false;
	}
	return true;
}

/* The last PCI address in a devpath: the function a netdev or ibdev sits on. */
static bool devpath_bdf(const char *devpath, char bdf[static 16])
{
	bool found = false;
	for (const char *p = devpath; *p;) {
		size_t len = strcspn(p, "/");
		if (is_bdf(p, len)) {
			memcpy(bdf, p, len);
			bdf[len] = '\0';
			found = true;
		}
		p += len;
		p += *p == '/';
	}
	return found;
}

/* The function holding a netdev or ibdev of that name in the old snapshot. */
static const char *old_owner(const struct node *o, const char *name, bool ib)
{
	struct node_ref ref;
	if (node_lookup(o, name, ib ? NODE_NAME_RDMA : NODE_NAME_NETDEV, &ref) < 0 || !ref.fn)
		return NULL;
	return ref.fn->bdf;
}

/* Soft-RoCE: devices placed through a netdev named in `parent`. */
static bool old_has_soft_roce(const struct node *o)
{
	if (o->n_orphans)
		return true;
	for (size_t i = 0; i < o->n_pfs; i++)
		for (size_t j = 0; j <= o->pfs[i].n_vfs; j++) {
			const struct fn *f = j ? &o->pfs[i].vfs[j - 1].fn : &o->pfs[i].fn;
			for (size_t k = 0; k < f->n_rdmas; k++)
				if (f->rdmas[k].parent)
					return true;
		}
	return false;
}

/* Marks the function at bdf; vf_list: the VF list of its PF changed. Returns
 * -EXDEV when the event cannot be placed. */
static int touch_bdf(struct refresh *rf, const char *bdf, bool vf_list)
{
	const struct old_fn *f = index_find(rf, bdf);
	if (f && f->vf < 0) {
		touch_pf(rf, f->pf, vf_list ? TOUCH_ALL : TOUCH_FN);
		return 0;
	}
	if (f) {
		rf->vf_touch[rf->vf_base[f->pf] + (size_t)f->vf] = 1;
		if (vf_list)
			touch_pf(rf, f->pf, TOUCH_ALL);
		return 0;
	}
	/* New to the old snapshot: a new VF of a known PF? */
	char path[PATH_MAX], pf[64];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn", bdf);
	if (sys_readlink_name(rf->d.s, path, pf, sizeof(pf)) > 0) {
		f = index_find(rf, pf);
		if (!f || f->vf >= 0)
			return -EXDEV;
		touch_pf(rf, f->pf, TOUCH_ALL);
		return 0;
	}
	/* Gone again and never in the model: nothing to read. A new PF is rare
	 * enough to read the whole node for. */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	return sys_exists(rf->d.s, path) < 0 ? 0 : -EXDEV;
}

static int place_event(struct refresh *rf, const struct sys_event *ev)
{
	char bdf[16];
	bool pci = !strcmp(ev->subsystem, "pci");
	bool net = !strcmp(ev->subsystem, "net");
	bool ib = !strcmp(ev->subsystem, "infiniband");
	bool added = !strcmp(ev->action, "add"), removed = !strcmp(ev->action, "remove");

	if (pci) {
		const char *name = ev->name;
		if (!is_bdf(name, strlen(name))) {
			if (!devpath_bdf(ev->devpath, bdf))
				return -EXDEV;
			name = bdf;
		}
		const struct old_fn *f = index_find(rf, name);
		/* Any event on a PF may change its VFs (sriov_numvfs, admin state). */
		return touch_bdf(rf, name, added || removed || (f && f->vf < 0));
	}
	if (!net && !ib)
		return -EXDEV;
	if (devpath_bdf(ev->devpath, bdf))
		return touch_bdf(rf, bdf, false);
	if (!strncmp(ev->devpath, "/devices/virtual/", 17))
		/* veth, bridges: in the model only as a Soft-RoCE parent */
		return net && !old_has_soft_roce(rf->old) ? 0 : -EXDEV;
	const char *owner = old_owner(rf->old, ev->name, ib);
	if (!owner && ev->old_name[0])
		owner = old_owner(rf->old, ev->old_name, ib);
	return owner ? touch_bdf(rf, owner, false) : -EXDEV;
}

static int place_events(struct refresh *rf, const struct sys_event *events, size_t n)
{
	const struct node *o = rf->old;
	for (size_t i = 0; i < o->n_notes; i++)
		if (!strncmp(o->notes[i], "cannot read link ", 17))
			return -EXDEV; /* a damaged VF list: its notes' order is discovery's */
	for (size_t i = 0; i < n; i++) {
		int r = place_event(rf, &events[i]);
		if (r < 0)
			return r;
	}
	/* A failed dump's note is kept until a discovery reads the node again. */
	rf->lookups_ok = !(o->n_notes && !strncmp(o->notes[0], "netlink ", 8));
	return 0;
}

/* ---- building ---- */

static const struct netdev *fn_netdev(const struct fn *f, const struct netdev *like)
{
	for (size_t i = 0; f && i < f->n_netdevs; i++) {
		const struct netdev *nd = &f->netdevs[i];
		if (like->ifindex.known ? nd->ifindex.known && nd->ifindex.v == like->ifindex.v
					: !strcmp(nd->name, like->name))
			return nd;
	}
	return NULL;
}

/* The link of a netdev among those read (as discovery's find_link()). */
static const struct sys_link *link_cached(const struct refresh *rf, const struct netdev *nd)
{
	for (size_t i = 0; i < rf->d.n_links; i++) {
		const struct sys_link *l = &rf->d.links[i];
		if (nd->ifindex.known ? l->ifindex == nd->ifindex.v : !strcmp(l->name, nd->name))
			return l;
	}
	return NULL;
}

/* Looks up a netdev's link and keeps it in d.links. -EAGAIN when it cannot
 * (gone, renamed, or its ifindex is another's now): build with the dump.
 * -EXDEV when the old snapshot's dump had failed: every VF's admin state in
 * it is unknown, so discovery reads the node again. */
static int link_fetch(struct refresh *rf, const struct netdev *nd, const struct sys_link **ret)
{
	const struct sys_link *have = link_cached(rf, nd);
	struct sys_link l;
	if (have) {
		*ret = have;
		return 0;
	}
	if (!rf->lookups_ok)
		return -EXDEV;
	if (sys_link_get(rf->d.s, nd->name, &l, NULL) < 0)
		return -EAGAIN;
	if (nd->ifindex.known && l.ifindex != nd->ifindex.v) {
		sys_link_fini(&l);
		return -EAGAIN;
	}
	struct sys_link *v = realloc(rf->d.links, (rf->d.n_links + 1) * sizeof(*v));
	if (!v) {
		sys_link_fini(&l);
		return -ENOMEM;
	}
	rf->d.links = v;
	v[rf->d.n_links] = l;
	*ret = &v[rf->d.n_links++];
	return 0;
}

static int altnames_from_link(struct netdev *nd, const struct sys_link *l)
{
	bool fail = false;
	nd->altnames = node_copy_array(l->n_altnames, sizeof(*nd->altnames), &fail);
	for (size_t i = 0; nd->altnames && i < l->n_altnames; i++)
		nd->altnames[nd->n_altnames++] = node_copy_str(l->altnames[i], &fail);
	return fail ? -ENOMEM : 0;
}

/* Reads a function again. Without the link dump its netdevs keep the
 * altnames they had; a netdev new to old, or any when fetch is set, has
 * its link looked up. */
static int fn_read(struct refresh *rf, const char *bdf, const struct fn *old, struct fn *f,
		   bool fetch)
{
	int r = discover_fn(&rf->d, bdf, f);
	if (r < 0 || rf->full_links || !discover_uses_netlink(rf->d.s))
		return r;
	for (size_t i = 0; r == 0 && i < f->n_netdevs; i++) {
		struct netdev *nd = &f->netdevs[i];
		const struct netdev *was = fn_netdev(old, nd);
		const struct sys_link *l;
		if (link_cached(rf, nd))
			continue; /* discover_fn() took its altnames */
		if (was && !fetch) {
			bool fail = false;
			nd->altnames = node_copy_strv(was->altnames, was->n_altnames,
						      &nd->n_altnames, &fail);
			r = fail ? -ENOMEM : 0;
		} else if ((r = link_fetch(rf, nd, &l)) == 0) {
			r = altnames_from_link(nd, l);
		}
	}
	return r;
}

/* A VF's admin state: with fresh set (or a VF new to old) the PF's links are
 * looked up and it is read whole; else the MOFED files are read again and
 * what netlink said kept. */
static int vf_admin_read(struct refresh *rf, const struct pf *pf, const struct vf *old,
			 struct vf *vf, bool fresh)
{
	bool lookup = !rf->full_links && discover_uses_netlink(rf->d.s);
	bool keep = lookup && old && !fresh;
	if (lookup && !keep) {
		const struct sys_link *l;
		for (size_t i = 0; i < pf->fn.n_netdevs; i++) {
			int r = link_fetch(rf, &pf->fn.netdevs[i], &l);
			if (r < 0)
				return r;
		}
	}
	discover_vf_admin(&rf->d, pf, vf);
	if (!keep)
		return 0;
	bool fail = false;
	node_copy_vf_admin_netlink(&vf->admin, &old->admin, &fail);
	return fail ? -ENOMEM : 0;
}

static const struct vf *old_vf(const struct pf *pf, unsigned int index)
{
	for (size_t i = 0; pf && i < pf->n_vfs; i++)
		if (pf->vfs[i].index == index)
			return &pf->vfs[i];
	return NULL;
}

static int cmp_vf(const void *a, const void *b)
{
	const struct vf *x = a, *y = b;
	return (x->index > y->index) - (x->index < y->index);
}

/* A PF's VF list read again: VFs at the same index and BDF that no event
 * named are copied, the others read. */
static int vfs_reread(struct refresh *rf, size_t i, struct pf *pf, char **entries, size_t n)
{
	const struct pf *opf = &rf->old->pfs[i];
	pf->vfs = calloc(n ? n : 1, sizeof(*pf->vfs));
	if (!pf->vfs)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		char bdf[64];
		int idx = discover_virtfn(&rf->d, pf, entries[k], bdf, sizeof(bdf));
		if (idx < 0)
			continue;
		const struct vf *was = old_vf(opf, (unsigned int)idx);
		if (was && strcmp(was->fn.bdf, bdf))
			was = NULL;
		bool touched = was && rf->vf_touch[rf->vf_base[i] + (size_t)(was - opf->vfs)];
		struct vf *vf = &pf->vfs[pf->n_vfs++];
		vf->index = (unsigned int)idx;
		int r = 0;
		if (was && !touched) {
			bool fail = false;
			node_copy_fn(&vf->fn, &was->fn, &fail);
			r = fail ? -ENOMEM : 0;
		} else {
			r = fn_read(rf, bdf, was ? &was->fn : NULL, &vf->fn, false);
		}
		if (r == 0)
			r = vf_admin_read(rf, pf, was, vf, true);
		if (r < 0)
			return r;
	}
	if (pf->n_vfs)
		qsort(pf->vfs, pf->n_vfs, sizeof(*pf->vfs), cmp_vf);
	return 0;
}

/* The old PF's VFs: copied, or read again where an event named them. */
static int vfs_update(struct refresh *rf, size_t i, struct pf *pf)
{
	const struct pf *opf = &rf->old->pfs[i];
	pf->vfs = node_copy_array(opf->n_vfs, sizeof(*pf->vfs), &(bool){false});
	if (opf->n_vfs && !pf->vfs)
		return -ENOMEM;
	for (size_t j = 0; j < opf->n_vfs; j++) {
		const struct vf *was = &opf->vfs[j];
		struct vf *vf = &pf->vfs[pf->n_vfs++];
		bool fail = false;
		if (!rf->vf_touch[rf->vf_base[i] + j]) {
			node_copy_vf(vf, was, &fail);
			if (fail)
				return -ENOMEM;
			continue;
		}
		vf->index = was->index;
		int r = fn_read(rf, was->fn.bdf, &was->fn, &vf->fn, false);
		if (r == 0)
			r = vf_admin_read(rf, pf, was, vf, false);
		if (r < 0)
			return r;
	}
	return 0;
}

static int pf_build(struct refresh *rf, size_t i)
{
	const struct pf *opf = &rf->old->pfs[i];
	enum touch t = rf->pf_touch[i];
	char **entries = NULL;
	size_t n = 0;
	bool sriov = opf->sriov;
	if (t == TOUCH_ALL) {
		char dir[128];
		snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", opf->fn.bdf);
		if (sys_list(rf->d.s, dir, &entries, &n) < 0)
			return 0; /* gone */
		if (!discover_is_pf(entries, n, &sriov)) {
			sys_list_free(entries, n);
			return 0;
		}
	}
	struct node *nn = rf->d.n;
	struct pf *pf = &nn->pfs[nn->n_pfs++];
	pf->sriov = sriov;
	int r = 0;
	if (t == TOUCH_NONE) {
		bool fail = false;
		node_copy_fn(&pf->fn, &opf->fn, &fail);
		pf->numvfs = opf->numvfs;
		pf->totalvfs = opf->totalvfs;
		pf->autoprobe = opf->autoprobe;
		r = fail ? -ENOMEM : 0;
	} else {
		r = fn_read(rf, opf->fn.bdf, &opf->fn, &pf->fn, t == TOUCH_ALL);
		discover_pf_sriov(&rf->d, pf);
	}
	if (r == 0)
		r = t == TOUCH_ALL ? vfs_reread(rf, i, pf, entries, n) : vfs_update(rf, i, pf);
	sys_list_free(entries, n);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Places RDMA devices no function holds, as discovery does, but skips the
 * placement (a scan per device) when every device is on a function. */
static int orphans_place(struct refresh *rf)
{
	struct node *n = rf->d.n;
	char **names = NULL;
	size_t n_names = 0, n_have = 0, cap = 0;
	if (sys_list(rf->d.s, "/sys/class/infiniband", &names, &n_names) < 0) {
		names = NULL;
		n_names = 0;
	}
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j <= n->pfs[i].n_vfs; j++)
			cap += (j ? &n->pfs[i].vfs[j - 1].fn : &n->pfs[i].fn)->n_rdmas;
	const char **have = calloc(cap ? cap : 1, sizeof(*have));
	if (!have) {
		sys_list_free(names, n_names);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j <= n->pfs[i].n_vfs; j++) {
			const struct fn *f = j ? &n->pfs[i].vfs[j - 1].fn : &n->pfs[i].fn;
			for (size_t k = 0; k < f->n_rdmas; k++)
				have[n_have++] = f->rdmas[k].name;
		}
	qsort(have, n_have, sizeof(*have), cmp_str);
	bool all_placed = true;
	for (size_t i = 0; i < n_names && all_placed; i++)
		all_placed = bsearch(&names[i], have, n_have, sizeof(*have), cmp_str) != NULL;
	free(have);
	sys_list_free(names, n_names);
	if (!all_placed) {
		discover_orphans(&rf->d);
		return 0;
	}
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			struct vf *vf = &n->pfs[i].vfs[j];
			vf->node_guid = (struct kguid){0};
			vf->port_guid = (struct kguid){0};
			discover_vf_guids(vf);
		}
	return 0;
}

static int note_copy(struct node *n, const char *note)
{
	char **nn = realloc(n->notes, (n->n_notes + 1) * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	n->notes = nn;
	if (!(nn[n->n_notes] = strdup(note)))
		return -ENOMEM;
	n->n_notes++;
	return 0;
}

/* Builds rf->d.n; -EAGAIN: a link lookup failed, the dump is needed. */
static int build(struct refresh *rf)
{
	const struct node *o = rf->old;
	struct node *n = rf->d.n;
	int r = 0;
	discover_header(&rf->d);
	if (rf->full_links) {
		if (discover_links(&rf->d) < 0)
			return -EXDEV; /* unknown admin state everywhere, as discovery says */
	} else if (o->n_notes && !strncmp(o->notes[0], "netlink ", 8)) {
		r = note_copy(n, o->notes[0]); /* the old dump's failure, or no netlink */
	}
	if (r == 0 && o->n_pfs && !(n->pfs = calloc(o->n_pfs, sizeof(*n->pfs))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < o->n_pfs; i++)
		r = pf_build(rf, i);
	if (r == 0)
		r = orphans_place(rf);
	if (r == 0)
		r = pods_attach(rf->d.s, NULL, n);
	return r;
}

static void refresh_fini(struct refresh *rf)
{
	sys_links_free(rf->d.links, rf->d.n_links);
	rf->d.links = NULL;
	rf->d.n_links = 0;
	node_free(rf->d.n);
	rf->d.n = NULL;
}

int node_refresh(struct sys *s, const struct node *old, const struct sys_event *events,
		 size_t n_events, struct node **ret, struct err *e)
{
	if (!old || n_events > NODE_REFRESH_EVENTS_MAX)
		return node_discover(s, ret, e);
	struct refresh rf = {.d = {.s = s}, .old = old};
	int r = index_build(&rf);
	if (r == 0)
		r = place_events(&rf, events, n_events);
	for (int pass = 0; r == 0 && pass < 2; pass++) {
		if (!(rf.d.n = calloc(1, sizeof(*rf.d.n)))) {
			r = -ENOMEM;
			break;
		}
		r = build(&rf);
		if (r != -EAGAIN)
			break;
		/* A link could not be looked up: again, with the dump. */
		refresh_fini(&rf);
		rf.full_links = true;
		r = 0;
	}
	sys_links_free(rf.d.links, rf.d.n_links);
	free(rf.index);
	free(rf.pf_touch);
	free(rf.vf_touch);
	free(rf.vf_base);
	if (r == 0 && rf.d.n) {
		*ret = rf.d.n;
		return 0;
	}
	node_free(rf.d.n);
	if (r == -ENOMEM)
		return err_set(e, ENOMEM, "cannot read the node");
	return node_discover(s, ret, e); /* -EXDEV: an event it cannot place */
}
