// SPDX-License-Identifier: MIT
/* Placing change events on the old snapshot: which functions the
 * incremental rebuild reads again (refresh.c says what that costs).
 *
 *   - a VF named by an event: its function, and its MOFED sriov/<vf>/ files;
 *   - a PF named by a netdev or ibdev event: its function and sriov_* files;
 *   - a PF named by a PCI event, or whose VFs came or went: all of the above,
 *     its VF list and every VF's admin state;
 *   - a PF whose VFs' admin state changed (SYS_EVENT_VF_ADMIN): its link
 *     only, and the VFs whose admin values differ from the old snapshot's.
 *
 * Events are placed by the PCI address in their devpath, else by the name
 * in the old snapshot. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refresh_place.h"
#include "resolve.h"

static int cmp_old_fn(const void *a, const void *b)
{
	return strcmp(((const struct old_fn *)a)->bdf, ((const struct old_fn *)b)->bdf);
}

static const struct old_fn *index_find(const struct refresh *rf, const char *bdf)
{
	struct old_fn key = {.bdf = bdf};
	return bsearch(&key, rf->index, rf->n_index, sizeof(key), cmp_old_fn);
}

int refresh_index_build(struct refresh *rf)
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

static void touch_pf(struct refresh *rf, size_t pf, unsigned int t)
{
	rf->pf_touch[pf] |= (unsigned char)t;
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

/* Marks the function at bdf; vf_list: the VF list of its PF changed;
 * may_be_new: the event may make a function outside the model a PF of it
 * (a netdev's change or rename cannot: a NIC ibvf does not show stays out).
 * Returns -EXDEV when the event cannot be placed. */
static int touch_bdf(struct refresh *rf, const char *bdf, bool vf_list, bool may_be_new)
{
	const struct old_fn *f = index_find(rf, bdf);
	if (f && f->vf < 0) {
		touch_pf(rf, f->pf, vf_list ? TOUCH_FN | TOUCH_VFS : TOUCH_FN);
		return 0;
	}
	if (f) {
		rf->vf_touch[rf->vf_base[f->pf] + (size_t)f->vf] = 1;
		if (vf_list)
			touch_pf(rf, f->pf, TOUCH_FN | TOUCH_VFS);
		return 0;
	}
	/* New to the old snapshot: a new VF of a known PF? */
	char path[PATH_MAX], pf[64];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn", bdf);
	if (sys_readlink_name(rf->d.s, path, pf, sizeof(pf)) > 0) {
		f = index_find(rf, pf);
		if (!f || f->vf >= 0)
			return -EXDEV;
		touch_pf(rf, f->pf, TOUCH_FN | TOUCH_VFS);
		return 0;
	}
	/* Gone again and never in the model: nothing to read. A new PF is rare
	 * enough to read the whole node for. */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	return !may_be_new || sys_exists(rf->d.s, path) < 0 ? 0 : -EXDEV;
}

/* The PF's VFs' admin state changed (rtnetlink, or the simulated kernel's
 * announcement of it): its link is read again, and the VFs whose admin
 * values differ. Without netlink only the MOFED files tell: all of them. */
static int place_vf_admin(struct refresh *rf, const struct sys_event *ev)
{
	char bdf[16];
	const char *owner =
		devpath_bdf(ev->devpath, bdf) ? bdf : old_owner(rf->old, ev->name, false);
	const struct old_fn *f = owner ? index_find(rf, owner) : NULL;

	if (!f || f->vf >= 0)
		return owner ? touch_bdf(rf, owner, false, false) : -EXDEV;
	touch_pf(rf, f->pf, discover_uses_netlink(rf->d.s) ? TOUCH_ADMIN : TOUCH_FN | TOUCH_VFS);
	return 0;
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
		for (size_t i = 0; i < rf->old->n_gpus; i++)
			if (!strcmp(rf->old->gpus[i].bdf, name))
				return -EXDEV; /* a GPU's driver: read the node again */
		const struct old_fn *f = index_find(rf, name);
		/* Any event on a PF may change its VFs (sriov_numvfs, admin state). */
		return touch_bdf(rf, name, added || removed || (f && f->vf < 0), true);
	}
	if (!net && !ib)
		return -EXDEV;
	if (net && !strcmp(ev->action, SYS_EVENT_VF_ADMIN))
		return place_vf_admin(rf, ev);
	if (devpath_bdf(ev->devpath, bdf))
		return touch_bdf(rf, bdf, false, ib || added || removed);
	if (!strncmp(ev->devpath, "/devices/virtual/", 17))
		/* veth, bridges: in the model only as a Soft-RoCE parent */
		return net && !old_has_soft_roce(rf->old) ? 0 : -EXDEV;
	const char *owner = old_owner(rf->old, ev->name, ib);
	if (!owner && ev->old_name[0])
		owner = old_owner(rf->old, ev->old_name, ib);
	return owner ? touch_bdf(rf, owner, false, true) : -EXDEV;
}

int refresh_place_events(struct refresh *rf, const struct sys_event *events, size_t n)
{
	const struct node *o = rf->old;
	if (o->virtfn_unread)
		return -EXDEV; /* a damaged VF list: its notes' order is discovery's */
	for (size_t i = 0; i < n; i++) {
		int r = place_event(rf, &events[i]);
		if (r < 0)
			return r;
	}
	/* A failed dump's note is kept until a discovery reads the node again. */
	rf->lookups_ok = !o->links_unknown;
	return 0;
}
