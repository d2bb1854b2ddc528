// SPDX-License-Identifier: MIT
/* The incremental rebuild: a new snapshot after a batch of change events,
 * reading again only the PCI functions the events name and copying the rest
 * from the old snapshot. Snapshots stay immutable and own all they point to,
 * so the copy is deep (about 1 ms for a thousand VFs, against some 40 file
 * reads a function).
 *
 * What is read again is placed by refresh_place.c; always: the header, the
 * kernel log, pod bindings, RDMA placement.
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

#include "core/pods/devplugin.h"
#include "core/pods/operators.h"
#include "core/model/node.h"
#include "core/model/node_copy.h"
#include "core/persist/persist.h"
#include "core/pods/pods.h"
#include "refresh_place.h"
#include "core/sys/sys.h"

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

/* The PF's links (its VF lists) into d.links, unless the dump is there or
 * there is no netlink. */
static int pf_links_fetch(struct refresh *rf, const struct pf *pf)
{
	const struct sys_link *l;
	if (rf->full_links || !discover_uses_netlink(rf->d.s))
		return 0;
	for (size_t i = 0; i < pf->fn.n_netdevs; i++) {
		int r = link_fetch(rf, &pf->fn.netdevs[i], &l);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A VF's admin state: with fresh set (or a VF new to old) the PF's links are
 * looked up and it is read whole; else the MOFED files are read again and
 * what netlink said kept. */
static int vf_admin_read(struct refresh *rf, const struct pf *pf, const struct vf *old,
			 struct vf *vf, bool fresh)
{
	bool lookup = !rf->full_links && discover_uses_netlink(rf->d.s);
	bool keep = lookup && old && !fresh;
	int r;
	if (lookup && !keep && (r = pf_links_fetch(rf, pf)) < 0)
		return r;
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

/* Whether the PF's link (fetched) gives the VF other admin values than the
 * old snapshot has. */
static bool vf_admin_changed(struct refresh *rf, const struct pf *pf, const struct vf *was)
{
	struct vf now = {.index = was->index};
	discover_vf_admin_netlink(&rf->d, pf, &now);
	bool changed = !node_vf_admin_netlink_eq(&now.admin, &was->admin);
	free(now.admin.mac);
	return changed;
}

/* The old PF's VFs: copied, or read again where an event named them; with
 * admin, the PF's link is read and the VFs whose admin state it changed get
 * theirs read again (the function itself is copied: a new GUID or link
 * policy takes effect on the VF at its next bind, which raises events). */
static int vfs_update(struct refresh *rf, size_t i, struct pf *pf, bool admin)
{
	const struct pf *opf = &rf->old->pfs[i];
	int r = admin ? pf_links_fetch(rf, pf) : 0;
	pf->vfs = node_copy_array(opf->n_vfs, sizeof(*pf->vfs), &(bool){false});
	if (r < 0 || (opf->n_vfs && !pf->vfs))
		return r < 0 ? r : -ENOMEM;
	for (size_t j = 0; j < opf->n_vfs; j++) {
		const struct vf *was = &opf->vfs[j];
		struct vf *vf = &pf->vfs[pf->n_vfs++];
		bool touched = rf->vf_touch[rf->vf_base[i] + j], fail = false;
		bool changed = admin && vf_admin_changed(rf, pf, was);
		if (!touched && !changed) {
			node_copy_vf(vf, was, &fail);
			if (fail)
				return -ENOMEM;
			continue;
		}
		vf->index = was->index;
		if (touched) {
			r = fn_read(rf, was->fn.bdf, &was->fn, &vf->fn, false);
		} else {
			node_copy_fn(&vf->fn, &was->fn, &fail);
			r = fail ? -ENOMEM : 0;
		}
		if (r == 0)
			r = vf_admin_read(rf, pf, was, vf, admin);
		if (r < 0)
			return r;
	}
	return 0;
}

static int pf_build(struct refresh *rf, size_t i)
{
	const struct pf *opf = &rf->old->pfs[i];
	unsigned int t = rf->pf_touch[i];
	char **entries = NULL;
	size_t n = 0;
	bool sriov = opf->sriov;
	if (t & TOUCH_VFS) {
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
	if (!(t & (TOUCH_FN | TOUCH_VFS))) {
		bool fail = false;
		node_copy_fn(&pf->fn, &opf->fn, &fail);
		pf->numvfs = opf->numvfs;
		pf->totalvfs = opf->totalvfs;
		pf->autoprobe = opf->autoprobe;
		r = fail ? -ENOMEM : 0;
	} else {
		r = fn_read(rf, opf->fn.bdf, &opf->fn, &pf->fn, t & TOUCH_VFS);
		discover_pf_sriov(&rf->d, pf);
	}
	if (r == 0)
		r = t & TOUCH_VFS ? vfs_reread(rf, i, pf, entries, n)
				  : vfs_update(rf, i, pf, t & TOUCH_ADMIN);
	sys_list_free(entries, n);
	return r;
}

static int orphans_place(struct refresh *rf)
{
	struct node *n = rf->d.n;
	char **names = NULL;
	size_t n_names = 0, n_have = 0;
	if (sys_list(rf->d.s, "/sys/class/infiniband", &names, &n_names) < 0) {
		names = NULL;
		n_names = 0;
	}
	const char **have = discover_rdma_names(n, &n_have);
	if (!have) {
		sys_list_free(names, n_names);
		return -ENOMEM;
	}
	bool all_placed = true;
	for (size_t i = 0; i < n_names && all_placed; i++)
		all_placed = discover_rdma_held(have, n_have, names[i]);
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
	} else if (o->links_unknown && o->n_notes) {
		r = note_copy(n, o->notes[0]); /* the old dump's failure, or no netlink */
		n->links_unknown = true;
	}
	if (r == 0 && o->n_pfs && !(n->pfs = calloc(o->n_pfs, sizeof(*n->pfs))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < o->n_pfs; i++)
		r = pf_build(rf, i);
	if (r == 0)
		r = orphans_place(rf);
	if (r == 0) {
		bool fail = false;
		node_copy_gpus(n, o, &fail);
		r = fail ? -ENOMEM : 0;
	}
	if (r == 0)
		r = persist_read(rf->d.s, n);
	if (r == 0)
		r = pods_attach(rf->d.s, NULL, n);
	if (r == 0)
		r = devplugin_copy(n, o); /* a full discovery reads them again */
	if (r == 0)
		r = operators_attach(rf->d.s, n);
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
	int r = refresh_index_build(&rf);
	if (r == 0)
		r = refresh_place_events(&rf, events, n_events);
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
