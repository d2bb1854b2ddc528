// SPDX-License-Identifier: MIT
/* GUID checks: zero, duplicated, all-ones or multicast node and port GUIDs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/persist/naming.h"
#include "checks_int.h"
#include "core/base/guid.h"

/* Where a function's port GUID in effect was read (discover's order: gids/0,
 * the IPoIB address, MOFED's sriov/<vf>/port), as a file path and its value;
 * vf NULL for the PF's own. */
static void port_guid_evidence(struct finding *f, const struct pf *pf, const struct vf *vf)
{
	const struct fn *fn = vf ? &vf->fn : &pf->fn;
	char where[256], g[GUID_STRLEN];
	const struct port *p = fn_port(fn);
	if (p && p->port_guid.known) {
		char rel[64];
		snprintf(rel, sizeof(rel), "ports/%u/gids/0", p->num);
		check_ib_path(where, sizeof(where), fn->rdmas[0].name, rel);
		finding_evidence(f, where,
				 "%04" PRIx64 ":%04" PRIx64 ":%04" PRIx64 ":%04" PRIx64
				 " (port GUID, low 64 bits)",
				 (p->port_guid.v >> 48) & 0xffff, (p->port_guid.v >> 32) & 0xffff,
				 (p->port_guid.v >> 16) & 0xffff, p->port_guid.v & 0xffff);
		return;
	}
	for (size_t i = 0; i < fn->n_netdevs; i++)
		if (fn->netdevs[i].addr_guid.known) {
			snprintf(where, sizeof(where), "/sys/class/net/%s/address",
				 fn->netdevs[i].name);
			finding_evidence(f, where, "%s",
					 fn->netdevs[i].address ? fn->netdevs[i].address : "?");
			return;
		}
	if (vf && vf->admin.mofed && vf->admin.mofed_port.known) {
		char rel[64];
		snprintf(rel, sizeof(rel), "sriov/%u/port", vf->index);
		check_fn_path(where, sizeof(where), pf->fn.bdf, rel);
		guid_format_sysfs(vf->admin.mofed_port.v, g);
		finding_evidence(f, where, "%s", g);
	}
}

void check_remedy_vf_guid(struct finding *f, const struct pf *pf, const struct vf *vf)
{
	uint64_t g;
	char gs[GUID_STRLEN];
	if (naming_scheme_guid(pf, vf->index, false, 0, &g) < 0) {
		finding_remedy_ibvf(f, "give every VF with a zero or duplicate GUID one of its own",
				    (const char *const[]){"vf", "guid", "--assign-all", NULL});
		return;
	}
	guid_format_sysfs(g, gs);
	finding_remedy_ibvf(
		f, "give the VF a GUID of its own (ibvf's scheme, from the PF's GUID)",
		(const char *const[]){"vf", "guid", vf->fn.bdf, "--node", gs, "--port", gs, NULL});
}

/* A PF's GUIDs are burnt in its firmware: ibvf does not set them. */
static void pf_guid_remedy(struct finding *f, const struct pf *pf)
{
	char q[96], sg[160];
	snprintf(q, sizeof(q), "flint -d %s query (the GUIDs in the firmware)", pf->fn.bdf);
	snprintf(sg, sizeof(sg),
		 "flint -d %s -guid <the GUID on the board's label> sg, then mlxfwreset -d %s "
		 "reset -y or reboot",
		 pf->fn.bdf, pf->fn.bdf);
	finding_remedy_manual(f, "restore the board's own GUIDs in the PF's firmware",
			      (const char *const[]){q, sg, NULL});
}

static void pf_guid_zero(struct findings *out, const struct check_def *def, const struct pf *pf)
{
	const struct rdma *r = fn_rdma(&pf->fn);
	const struct port *p = fn_port(&pf->fn);
	if (!r || !port_is_ib(p))
		return;
	bool zn = r->node_guid.known && r->node_guid.v == 0;
	bool zp = p->port_guid.known && p->port_guid.v == 0;
	if (!zn && !zp)
		return;
	struct finding *f = check_add(out, def, SUBJECT_PF, pf->fn.bdf,
				      "PF %s (%s) has a zero %s GUID", pf->fn.bdf, r->name,
				      zn && zp ? "node and port"
				      : zn     ? "node"
					       : "port");
	if (!f)
		return;
	char where[256];
	if (zn) {
		check_ib_path(where, sizeof(where), r->name, "node_guid");
		finding_evidence(f, where, "0000:0000:0000:0000");
	}
	if (zp)
		port_guid_evidence(f, pf, NULL);
	pf_guid_remedy(f, pf);
}

CHECK_FN(check_guid_zero)
{
	(void)o;
	const struct check_def *def = check_find("guid-zero");
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		pf_guid_zero(out, def, pf);
		for (size_t j = 0; j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			bool zn = vf->node_guid.known && vf->node_guid.v == 0;
			bool zp = vf->port_guid.known && vf->port_guid.v == 0;
			/* A VF with no driver has no GUID in effect: MOFED's
			 * sriov/<vf>/port of 0 is not the fault (probe-failed). */
			if ((!zn && !zp) || fn_is_eth(&vf->fn) || !vf->fn.driver)
				continue;
			struct finding *f = check_add(
				out, def, SUBJECT_VF, vf->fn.bdf,
				"VF %s (%s VF %u) has a zero %s GUID", vf->fn.bdf,
				pf->fn.n_rdmas ? pf->fn.rdmas[0].name : pf->fn.bdf, vf->index,
				zn && zp ? "node and port"
				: zn	 ? "node"
					 : "port");
			if (!f)
				return;
			if (zn && vf->fn.n_rdmas) {
				char where[256];
				check_ib_path(where, sizeof(where), vf->fn.rdmas[0].name,
					      "node_guid");
				finding_evidence(f, where, "0000:0000:0000:0000");
			}
			if (zp)
				port_guid_evidence(f, pf, vf);
			check_remedy_vf_guid(f, pf, vf);
		}
	}
}

/* One GUID a function holds: its node GUID or its port GUID. */
struct guid_ref {
	const struct pf *pf;
	const struct vf *vf; /* NULL: the PF's own */
	bool port;
	uint64_t g;
};

static const char *ref_bdf(const struct guid_ref *r)
{
	return r->vf ? r->vf->fn.bdf : r->pf->fn.bdf;
}

static void node_guid_evidence(struct finding *f, const struct guid_ref *r)
{
	const struct rdma *rd = fn_rdma(r->vf ? &r->vf->fn : &r->pf->fn);
	char where[256], g[GUID_STRLEN];
	guid_format_sysfs(r->g, g);
	if (rd)
		check_ib_path(where, sizeof(where), rd->name, "node_guid");
	else
		snprintf(where, sizeof(where), "node GUID of %s", ref_bdf(r));
	finding_evidence(f, where, "%s", g);
}

static void ref_evidence(struct finding *f, const struct guid_ref *r)
{
	if (r->port)
		port_guid_evidence(f, r->pf, r->vf);
	else
		node_guid_evidence(f, r);
}

/* The node and port GUIDs in effect of every InfiniBand function with a
 * driver (a VF that never probed has none: probe-failed says why), in PCI
 * order, zero and unknown ones left out. Returns the count; *ret NULL on
 * ENOMEM or when there is none. */
static size_t guid_refs(const struct node *n, struct guid_ref **ret)
{
	size_t cap = 0, c = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		cap += 2 * (n->pfs[i].n_vfs + 1);
	struct guid_ref *v = cap ? calloc(cap, sizeof(*v)) : NULL;
	*ret = v;
	if (!v)
		return 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		const struct rdma *r = fn_rdma(&pf->fn);
		const struct port *p = fn_port(&pf->fn);
		if (r && port_is_ib(p) && pf->fn.driver) {
			if (r->node_guid.known && r->node_guid.v)
				v[c++] = (struct guid_ref){pf, NULL, false, r->node_guid.v};
			if (p->port_guid.known && p->port_guid.v)
				v[c++] = (struct guid_ref){pf, NULL, true, p->port_guid.v};
		}
		for (size_t j = 0; j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			/* A VF whose RDMA device went into a pod's netns runs its
			 * PF's link layer. */
			bool ib = fn_port(&vf->fn) ? check_fn_ib(&vf->fn) : port_is_ib(p);
			if (!vf->fn.driver || !ib)
				continue;
			if (vf->node_guid.known && vf->node_guid.v)
				v[c++] = (struct guid_ref){pf, vf, false, vf->node_guid.v};
			if (vf->port_guid.known && vf->port_guid.v)
				v[c++] = (struct guid_ref){pf, vf, true, vf->port_guid.v};
		}
	}
	return c;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct guid_ref *x = a, *y = b;
	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	int c = strcmp(ref_bdf(x), ref_bdf(y));
	return c ? c : (int)x->port - (int)y->port;
}

/* The GUID's first holder, when it is another function than r's. */
struct dup {
	const struct guid_ref *ref, *first;
};

static int cmp_dup(const void *a, const void *b)
{
	const struct dup *x = a, *y = b;
	int c = strcmp(ref_bdf(x->ref), ref_bdf(y->ref));
	return c ? c : (int)x->ref->port - (int)y->ref->port;
}

static void guid_remedy(struct finding *f, const struct guid_ref *r)
{
	if (r->vf) {
		check_remedy_vf_guid(f, r->pf, r->vf);
		return;
	}
	pf_guid_remedy(f, r->pf);
}

static void dup_finding(struct findings *out, const struct dup *d, size_t k)
{
	const struct guid_ref *r = d[0].ref;
	bool node = false, port = false;
	for (size_t i = 0; i < k; i++) {
		node |= !d[i].ref->port;
		port |= d[i].ref->port;
	}
	struct finding *f = check_add(
		out, check_find("guid-duplicate"), r->vf ? SUBJECT_VF : SUBJECT_PF, ref_bdf(r),
		"%s %s has the %s GUID of %s", r->vf ? "VF" : "PF", ref_bdf(r),
		node && port ? "node and port"
		: node	     ? "node"
			     : "port",
		ref_bdf(d[0].first));
	if (!f)
		return;
	for (size_t i = 0; i < k; i++) {
		ref_evidence(f, d[i].ref);
		ref_evidence(f, d[i].first);
	}
	guid_remedy(f, r);
}

CHECK_FN(check_guid_duplicate)
{
	(void)o;
	struct guid_ref *v;
	size_t c = guid_refs(n, &v);
	struct dup *d = c ? calloc(c, sizeof(*d)) : NULL;
	size_t nd = 0;
	if (!d)
		goto out;
	qsort(v, c, sizeof(*v), cmp_ref);
	for (size_t i = 0, g0 = 0; i < c; i++) {
		if (v[i].g != v[g0].g)
			g0 = i;
		if (!strcmp(ref_bdf(&v[i]), ref_bdf(&v[g0])) || v[i].g == UINT64_MAX)
			continue;
		/* Show the first holder's file of the same kind when it has one. */
		size_t h = g0;
		for (size_t k = g0; k < i && !strcmp(ref_bdf(&v[k]), ref_bdf(&v[g0])); k++)
			if (v[k].port == v[i].port)
				h = k;
		d[nd++] = (struct dup){&v[i], &v[h]};
	}
	qsort(d, nd, sizeof(*d), cmp_dup);
	/* One finding per later holder, all its duplicated GUIDs in it. */
	for (size_t i = 0, k; i < nd; i += k) {
		for (k = 1; i + k < nd && !strcmp(ref_bdf(d[i + k].ref), ref_bdf(d[i].ref)); k++)
			;
		dup_finding(out, &d[i], k);
	}
out:
	free(d);
	free(v);
}

/* All ones is no GUID; bit 0 of the first byte (EUI-64's I/G bit) makes
 * it a group (multicast) address, which no port may have. */
static bool guid_all_ones(uint64_t g)
{
	return g == UINT64_MAX;
}

static bool guid_group(uint64_t g)
{
	return (g >> 56) & 1;
}

CHECK_FN(check_guid_invalid)
{
	(void)o;
	struct guid_ref *v;
	size_t c = guid_refs(n, &v);
	for (size_t i = 0; i < c; i++) {
		const struct guid_ref *r = &v[i];
		bool ones = guid_all_ones(r->g);
		if (!ones && !guid_group(r->g))
			continue;
		/* A VF's node and port GUIDs are usually one value: one finding. */
		if (i > 0 && v[i - 1].g == r->g && !strcmp(ref_bdf(&v[i - 1]), ref_bdf(r)))
			continue;
		char g[GUID_STRLEN];
		guid_format_sysfs(r->g, g);
		struct finding *f =
			check_add(out, check_find("guid-invalid"), r->vf ? SUBJECT_VF : SUBJECT_PF,
				  ref_bdf(r), "%s %s has the %s GUID %s (%s)", r->vf ? "VF" : "PF",
				  ref_bdf(r), r->port ? "port" : "node", g,
				  ones ? "all ones" : "the group/multicast bit is set");
		if (!f)
			break;
		if (ones)
			f->severity = CHECK_CRITICAL;
		ref_evidence(f, r);
		if (i + 1 < c && v[i + 1].g == r->g && !strcmp(ref_bdf(&v[i + 1]), ref_bdf(r)))
			ref_evidence(f, &v[i + 1]);
		guid_remedy(f, r);
	}
	free(v);
}
