// SPDX-License-Identifier: MIT
#include "tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "core/pods/pods.h"

const struct fn *tree_row_fn(const struct tree_row *r)
{
	if (r->ghost)
		return NULL;
	return r->kind != ROW_VF ? (r->pf ? &r->pf->fn : NULL) : (r->vfp ? &r->vfp->fn : NULL);
}

const struct port *tree_row_port(const struct tree_row *r)
{
	if (r->kind != ROW_PORT)
		return fn_port(tree_row_fn(r));
	const struct rdma *rd = fn_rdma(tree_row_fn(r));
	return rd && r->port < rd->n_ports ? &rd->ports[r->port] : NULL;
}

const char *tree_row_netdev(const struct tree_row *r)
{
	if (r->ghost)
		return r->ghost->netdev[0] ? r->ghost->netdev : NULL;
	const struct fn *f = tree_row_fn(r);
	return f && f->n_netdevs ? f->netdevs[0].name : NULL;
}

const char *tree_row_ibdev(const struct tree_row *r)
{
	if (r->ghost)
		return r->ghost->ibdev[0] ? r->ghost->ibdev : NULL;
	const struct fn *f = tree_row_fn(r);
	return f && f->n_rdmas ? f->rdmas[0].name : NULL;
}

static bool has(const char *s, const char *text)
{
	return s && strcasestr(s, text);
}

static bool guid_has(struct kguid g, const char *text)
{
	char a[GUID_STRLEN], b[GUID_STRLEN];
	if (!g.known)
		return false;
	guid_format_sysfs(g.v, a);
	guid_format_colon(g.v, b);
	return has(a, text) || has(b, text);
}

bool tree_row_matches(const struct tree_row *r, const char *text)
{
	if (!text || !*text)
		return true;
	if (has(r->bdf, text) || has(tree_row_netdev(r), text) || has(tree_row_ibdev(r), text))
		return true;
	if (r->ghost)
		return has("gone", text);
	const struct fn *f = tree_row_fn(r);
	if (f && has(f->driver, text))
		return true;
	for (size_t i = 0; f && i < f->n_netdevs; i++) {
		for (size_t j = 0; j < f->netdevs[i].n_altnames; j++)
			if (has(f->netdevs[i].altnames[j], text))
				return true;
		if (has(f->netdevs[i].operstate, text))
			return true;
	}
	const struct port *p = tree_row_port(r);
	if (p && (has(p->state_name, text) || has(p->phys_state_name, text) ||
		  has(p->link_layer, text) || has(p->rate, text) || guid_has(p->port_guid, text)))
		return true;
	if (f && f->n_rdmas && guid_has(f->rdmas[0].node_guid, text))
		return true;
	if (r->vfp && r->vfp->pod) {
		char label[256];
		pods_label(r->vfp->pod, label, sizeof(label));
		if (has(label, text) || has(r->vfp->pod->uid, text))
			return true;
	}
	if (r->vfp)
		return guid_has(r->vfp->port_guid, text) || guid_has(r->vfp->node_guid, text) ||
		       guid_has(r->vfp->admin.port_guid, text) ||
		       guid_has(r->vfp->admin.node_guid, text);
	return false;
}

static struct tree_row *tree_add(struct tree *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		void *nr = realloc(t->rows, cap * sizeof(*t->rows));
		if (!nr)
			return NULL;
		t->rows = nr;
		t->cap = cap;
	}
	struct tree_row *r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	return r;
}

/* A PF to place: present, gone, or both (a ghost of a PF that came back is
 * dropped by the console, so "both" does not happen). */
struct pf_slot {
	const char *bdf;
	const struct pf *pf;
	const struct ghost *ghost;
};

struct vf_slot {
	unsigned int index;
	const struct vf *vf;
	const struct ghost *ghost;
};

static int pf_slot_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pf_slot *)a)->bdf, ((const struct pf_slot *)b)->bdf);
}

static int vf_slot_cmp(const void *a, const void *b)
{
	const struct vf_slot *x = a, *y = b;
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool is_collapsed(const struct tree_input *in, const char *bdf)
{
	for (size_t i = 0; i < in->n_collapsed; i++)
		if (!strcmp(in->collapsed[i], bdf))
			return true;
	return false;
}

static int vf_device_w(const char *bdf, unsigned int index)
{
	char buf[32];
	return 3 + 2 + 1 + snprintf(buf, sizeof(buf), "vf%u", index) + 1 + (int)strlen(bdf);
}

static void fill_vf_row(struct tree_row *r, const struct pf_slot *p, const struct vf_slot *v)
{
	r->kind = ROW_VF;
	r->pf = p->pf;
	r->vfp = v->vf;
	r->ghost = v->ghost;
	r->vf = (int)v->index;
	snprintf(r->bdf, sizeof(r->bdf), "%s", v->vf ? v->vf->fn.bdf : v->ghost->bdf);
}

static int add_pf(const struct tree_input *in, struct tree *t, const struct pf_slot *p,
		  struct vf_slot *vs)
{
	size_t nv = 0;
	for (size_t i = 0; p->pf && i < p->pf->n_vfs; i++)
		vs[nv++] = (struct vf_slot){p->pf->vfs[i].index, &p->pf->vfs[i], NULL};
	for (size_t i = 0; i < in->n_ghosts; i++)
		if (in->ghosts[i].vf >= 0 && !strcmp(in->ghosts[i].pf_bdf, p->bdf))
			vs[nv++] =
				(struct vf_slot){(unsigned)in->ghosts[i].vf, NULL, &in->ghosts[i]};
	qsort(vs, nv, sizeof(*vs), vf_slot_cmp);

	const char *filter = in->filter && *in->filter ? in->filter : NULL;
	size_t pf_at = t->n;
	struct tree_row *pr = tree_add(t);
	if (!pr)
		return -ENOMEM;
	pr->kind = ROW_PF;
	pr->vf = -1;
	pr->pf = p->pf;
	pr->ghost = p->ghost;
	pr->n_children = nv;
	pr->collapsed = is_collapsed(in, p->bdf);
	snprintf(pr->bdf, sizeof(pr->bdf), "%s", p->bdf);
	bool pf_match = !filter || tree_row_matches(pr, filter);
	if (17 > t->device_w) /* mark, expander, BDF: "!! ▾ 0000:18:00.0" */
		t->device_w = 17;
	/* The PF's own ports after the first (its row shows that one). */
	const struct rdma *rd = p->pf ? fn_rdma(&p->pf->fn) : NULL;
	for (unsigned int i = 1; rd && i < rd->n_ports; i++) {
		struct tree_row *r = tree_add(t);
		if (!r)
			return -ENOMEM;
		*r = (struct tree_row){.kind = ROW_PORT, .vf = -1, .pf = p->pf, .port = i};
		snprintf(r->bdf, sizeof(r->bdf), "%s", p->bdf);
	}

	size_t shown = 0;
	bool hide = pr->collapsed && !filter;
	for (size_t i = 0; i < nv; i++) {
		int w = vf_device_w(vs[i].vf ? vs[i].vf->fn.bdf : vs[i].ghost->bdf, vs[i].index);
		if (w > t->device_w)
			t->device_w = w;
		if (hide)
			continue;
		struct tree_row probe;
		memset(&probe, 0, sizeof(probe));
		fill_vf_row(&probe, p, &vs[i]);
		if (filter && !tree_row_matches(&probe, filter))
			continue;
		struct tree_row *r = tree_add(t);
		if (!r)
			return -ENOMEM;
		*r = probe;
		shown++;
	}
	if (filter && !pf_match && !shown) {
		t->n = pf_at; /* neither the PF nor any of its VFs matched */
		return 0;
	}
	if (shown)
		t->rows[t->n - 1].last = true;
	return 0;
}

int tree_build(const struct tree_input *in, struct tree *ret)
{
	const struct node *n = in->node;
	size_t np = (n ? n->n_pfs : 0) + in->n_ghosts, max_vfs = in->n_ghosts;
	struct pf_slot *ps = calloc(np ? np : 1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; n && i < n->n_pfs; i++) {
		ps[k++] = (struct pf_slot){n->pfs[i].fn.bdf, &n->pfs[i], NULL};
		max_vfs += n->pfs[i].n_vfs;
	}
	for (size_t i = 0; i < in->n_ghosts; i++)
		if (in->ghosts[i].vf < 0)
			ps[k++] = (struct pf_slot){in->ghosts[i].bdf, NULL, &in->ghosts[i]};
	qsort(ps, k, sizeof(*ps), pf_slot_cmp);
	struct vf_slot *vs = calloc(max_vfs ? max_vfs : 1, sizeof(*vs));
	int r = vs ? 0 : -ENOMEM;
	ret->n = 0;
	ret->device_w = 0;
	for (size_t i = 0; r == 0 && i < k; i++)
		r = add_pf(in, ret, &ps[i], vs);
	free(vs);
	free(ps);
	return r;
}

void tree_free(struct tree *t)
{
	if (!t)
		return;
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

long tree_find(const struct tree *t, const char *bdf)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].bdf, bdf))
			return (long)i;
	return -1;
}
