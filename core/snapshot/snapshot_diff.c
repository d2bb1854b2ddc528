// SPDX-License-Identifier: MIT
#include "snapshot_diff.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"

/* Every compared field of one function, as text. */
struct fields {
	char v[SNAP_N_FIELDS][SNAP_VALUE_MAX];
};

static void put_str(struct fields *f, enum snap_field k, const char *s)
{
	snprintf(f->v[k], SNAP_VALUE_MAX, "%s", s ? s : "");
}

static void put_int(struct fields *f, enum snap_field k, struct kval v)
{
	if (v.known)
		snprintf(f->v[k], SNAP_VALUE_MAX, "%lld", (long long)v.v);
	else
		f->v[k][0] = '\0';
}

static void put_guid(struct fields *f, enum snap_field k, struct kguid g)
{
	char buf[GUID_STRLEN];
	if (!g.known) {
		f->v[k][0] = '\0';
		return;
	}
	guid_format_sysfs(g.v, buf);
	put_str(f, k, buf);
}

static void fn_fields(struct fields *f, const struct fn *fn)
{
	memset(f, 0, sizeof(*f));
	put_str(f, SNAP_PRESENT, "present");
	put_str(f, SNAP_DRIVER, fn->driver);
	if (fn->n_netdevs) {
		const struct netdev *nd = &fn->netdevs[0];
		put_str(f, SNAP_NETDEV, nd->name);
		put_str(f, SNAP_OPERSTATE, nd->operstate);
		put_int(f, SNAP_MTU, nd->mtu);
		put_str(f, SNAP_ADDRESS, nd->address);
	}
	if (fn->n_rdmas) {
		const struct rdma *r = &fn->rdmas[0];
		put_str(f, SNAP_IBDEV, r->name);
		put_str(f, SNAP_FW, r->fw_ver);
		put_guid(f, SNAP_NODE_GUID, r->node_guid);
		if (r->n_ports) {
			const struct port *p = &r->ports[0];
			put_str(f, SNAP_PORT_STATE, p->state_name);
			put_str(f, SNAP_PHYS_STATE, p->phys_state_name);
			put_str(f, SNAP_RATE, p->rate);
			put_str(f, SNAP_LINK_LAYER, p->link_layer);
			put_int(f, SNAP_LID, p->lid);
			put_int(f, SNAP_SM_LID, p->sm_lid);
			put_guid(f, SNAP_PORT_GUID, p->port_guid);
		}
	}
}

static void pf_fields(struct fields *f, const struct pf *pf)
{
	fn_fields(f, &pf->fn);
	put_int(f, SNAP_NUMVFS, pf->numvfs);
}

static void vf_fields(struct fields *f, const struct vf *vf)
{
	fn_fields(f, &vf->fn);
	put_guid(f, SNAP_NODE_GUID, vf->node_guid);
	put_guid(f, SNAP_PORT_GUID, vf->port_guid);
	put_str(f, SNAP_ADMIN_MAC, vf->admin.mac);
	put_guid(f, SNAP_ADMIN_NODE_GUID, vf->admin.node_guid);
	put_guid(f, SNAP_ADMIN_PORT_GUID, vf->admin.port_guid);
	put_int(f, SNAP_ADMIN_LINK_STATE, vf->admin.link_state);
	put_str(f, SNAP_MOFED_POLICY, vf->admin.mofed_policy);
}

static struct snap_change *diff_add(struct snap_diff *d)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 32;
		void *nc = realloc(d->changes, cap * sizeof(*d->changes));
		if (!nc)
			return NULL;
		d->changes = nc;
		d->cap = cap;
	}
	struct snap_change *c = &d->changes[d->n++];
	memset(c, 0, sizeof(*c));
	return c;
}

/* Compares two field sets (either may be NULL: absent) of one function. */
static int diff_fields(struct snap_diff *d, const char *bdf, const char *pf_bdf, int vf,
		       const struct fields *a, const struct fields *b)
{
	for (int k = 0; k < SNAP_N_FIELDS; k++) {
		const char *o = a ? a->v[k] : "", *n = b ? b->v[k] : "";
		if (!strcmp(o, n) || (k != SNAP_PRESENT && (!a || !b)))
			continue;
		struct snap_change *c = diff_add(d);
		if (!c)
			return -ENOMEM;
		snprintf(c->bdf, sizeof(c->bdf), "%s", bdf);
		snprintf(c->pf_bdf, sizeof(c->pf_bdf), "%s", pf_bdf);
		c->vf = vf;
		c->field = (enum snap_field)k;
		snprintf(c->old, sizeof(c->old), "%s", o);
		snprintf(c->new, sizeof(c->new), "%s", n);
	}
	return 0;
}

static const struct vf *find_vf(const struct pf *pf, unsigned int index, size_t hint)
{
	if (hint < pf->n_vfs && pf->vfs[hint].index == index)
		return &pf->vfs[hint];
	for (size_t i = 0; i < pf->n_vfs; i++)
		if (pf->vfs[i].index == index)
			return &pf->vfs[i];
	return NULL;
}

static int diff_vfs(struct snap_diff *d, const struct pf *a, const struct pf *b)
{
	struct fields fa, fb;
	const char *pf_bdf = a ? a->fn.bdf : b->fn.bdf;
	int r;
	for (size_t i = 0; a && i < a->n_vfs; i++) {
		const struct vf *va = &a->vfs[i], *vb = b ? find_vf(b, va->index, i) : NULL;
		vf_fields(&fa, va);
		if (vb)
			vf_fields(&fb, vb);
		r = diff_fields(d, va->fn.bdf, pf_bdf, (int)va->index, &fa, vb ? &fb : NULL);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; b && i < b->n_vfs; i++) {
		const struct vf *vb = &b->vfs[i];
		if (a && find_vf(a, vb->index, i))
			continue;
		vf_fields(&fb, vb);
		r = diff_fields(d, vb->fn.bdf, pf_bdf, (int)vb->index, NULL, &fb);
		if (r < 0)
			return r;
	}
	return 0;
}

static int diff_pf(struct snap_diff *d, const struct pf *a, const struct pf *b)
{
	struct fields fa, fb;
	if (a)
		pf_fields(&fa, a);
	if (b)
		pf_fields(&fb, b);
	const char *bdf = a ? a->fn.bdf : b->fn.bdf;
	int r = diff_fields(d, bdf, bdf, -1, a ? &fa : NULL, b ? &fb : NULL);
	return r < 0 ? r : diff_vfs(d, a, b);
}

int snapshot_diff(const struct node *old, const struct node *new, struct snap_diff *ret)
{
	size_t na = old ? old->n_pfs : 0, nb = new ? new->n_pfs : 0, i = 0, j = 0;
	int r = 0;
	/* Both PF arrays are sorted by BDF: walk them together. */
	while (r == 0 && (i < na || j < nb)) {
		const struct pf *a = i < na ? &old->pfs[i] : NULL,
				*b = j < nb ? &new->pfs[j] : NULL;
		int cmp = !a ? 1 : !b ? -1 : strcmp(a->fn.bdf, b->fn.bdf);
		if (cmp == 0) {
			r = diff_pf(ret, a, b);
			i++, j++;
		} else if (cmp < 0) {
			r = diff_pf(ret, a, NULL);
			i++;
		} else {
			r = diff_pf(ret, NULL, b);
			j++;
		}
	}
	if (r < 0)
		snapshot_diff_free(ret);
	return r;
}

void snapshot_diff_free(struct snap_diff *d)
{
	if (!d)
		return;
	free(d->changes);
	memset(d, 0, sizeof(*d));
}
