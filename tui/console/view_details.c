// SPDX-License-Identifier: MIT
/* The details pane: every field of the model for the selected PF or VF, the
 * most telling first (identity, names and their history, GUIDs, state). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "console_int.h"
#include "screen.h"
#include "core/base/guid.h"
#include "core/pods/pods.h"

struct dlist {
	struct dline *l;
	size_t n, max;
	const struct console *c;
	const char *bdf;
	int value_w;
};

static struct dline *dl_add(struct dlist *d, const char *label, enum theme_role role,
			    enum snap_field changed, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static struct dline *dl_add(struct dlist *d, const char *label, enum theme_role role,
			    enum snap_field changed, const char *fmt, ...)
{
	if (d->n >= d->max)
		return NULL;
	struct dline *l = &d->l[d->n++];
	snprintf(l->label, sizeof(l->label), "%s", label);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->value, sizeof(l->value), fmt, ap);
	va_end(ap);
	l->role = role;
	l->changed = changed != SNAP_N_FIELDS && console_is_changed(d->c, d->bdf, changed);
	return l;
}

static const char *s_or(const char *s)
{
	return s && *s ? s : "?";
}

static void kv(struct kval k, char *buf, size_t size, bool hex)
{
	if (!k.known)
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, hex ? "0x%llx" : "%lld", (long long)k.v);
}

static void kg(struct kguid g, char buf[static GUID_STRLEN])
{
	if (g.known)
		guid_format_sysfs(g.v, buf);
	else
		snprintf(buf, GUID_STRLEN, "?");
}

/* Effective and administrative GUIDs: side by side when they differ and
 * there is room, else on two lines. */
static void guid_pair(struct dlist *d, const char *label, struct kguid eff, struct kguid adm,
		      enum snap_field f)
{
	char e[GUID_STRLEN], a[GUID_STRLEN];
	kg(eff, e);
	kg(adm, a);
	enum theme_role role = eff.known && eff.v == 0 ? TR_GUID_ZERO : TR_NORMAL;
	bool differ = adm.known && (!eff.known || adm.v != eff.v);
	if (!differ) {
		dl_add(d, label, role, f, "%s%s", e, eff.known && !eff.v ? " (zero)" : "");
	} else if (d->value_w >= 46) {
		dl_add(d, label, role, f, "%s  admin %s", e, a);
	} else {
		dl_add(d, label, role, f, "%s", e);
		dl_add(d, "  admin", TR_WARNING, SNAP_N_FIELDS, "%s (differs)", a);
	}
}

static void name_history(struct dlist *d)
{
	const struct console *c = d->c;
	for (size_t i = 0; i < c->n_names; i++) {
		const struct console_rename *n = &c->names[i];
		if (strcmp(n->bdf, d->bdf) || n->ibdev)
			continue;
		char at[16];
		strftime(at, sizeof(at), "%H:%M:%S", localtime(&n->at));
		dl_add(d, "renamed", TR_WARNING, SNAP_N_FIELDS, "%s %s %s at %s", n->old,
		       c->utf8 ? "→" : "->", n->new[0] ? n->new : "(none)", at);
	}
}

static void port_lines(struct dlist *d, const struct rdma *r, bool state_shown)
{
	char b1[32], b2[32];
	for (size_t i = 0; i < r->n_ports; i++) {
		const struct port *p = &r->ports[i];
		if (!state_shown) {
			dl_add(d, "port state", screen_port_role(p), SNAP_PORT_STATE, "%u: %s",
			       p->num, s_or(p->state_name));
			dl_add(d, "phys state", TR_NORMAL, SNAP_PHYS_STATE, "%s",
			       s_or(p->phys_state_name));
		}
		dl_add(d, "rate", TR_NORMAL, SNAP_RATE, "%s", s_or(p->rate));
		dl_add(d, "link layer", port_is_eth(p) ? TR_ETHERNET : TR_NORMAL, SNAP_LINK_LAYER,
		       "%s", s_or(p->link_layer));
		kv(p->lid, b1, sizeof(b1), true);
		kv(p->sm_lid, b2, sizeof(b2), true);
		dl_add(d, "lid / sm_lid", TR_NORMAL, SNAP_LID, "%s / %s", b1, b2);
		char g[GUID_STRLEN];
		kg(p->gid_prefix, g);
		dl_add(d, "gid prefix", TR_NORMAL, SNAP_N_FIELDS, "%s", g);
		kv(p->pkey0, b1, sizeof(b1), true);
		dl_add(d, "pkey 0", TR_NORMAL, SNAP_N_FIELDS, "%s", b1);
	}
}

static void rdma_lines(struct dlist *d, const struct rdma *r, bool vf)
{
	char g[GUID_STRLEN], b[32];
	dl_add(d, "firmware", TR_NORMAL, SNAP_FW, "%s", s_or(r->fw_ver));
	dl_add(d, "hca / board", TR_NORMAL, SNAP_N_FIELDS, "%s / %s", s_or(r->hca_type),
	       s_or(r->board_id));
	kv(r->node_type, b, sizeof(b), false);
	dl_add(d, "node type", TR_NORMAL, SNAP_N_FIELDS, "%s", b);
	if (!vf) {
		kg(r->node_guid, g);
		dl_add(d, "node GUID", TR_NORMAL, SNAP_NODE_GUID, "%s", g);
	}
	kg(r->sys_image_guid, g);
	dl_add(d, "sys image", TR_NORMAL, SNAP_N_FIELDS, "%s", g);
	if (r->parent)
		dl_add(d, "parent", TR_NORMAL, SNAP_N_FIELDS, "%s", r->parent);
}

static void netdev_lines(struct dlist *d, const struct netdev *nd)
{
	char mtu[32], idx[32];
	kv(nd->mtu, mtu, sizeof(mtu), false);
	kv(nd->ifindex, idx, sizeof(idx), false);
	dl_add(d, "operstate", TR_NORMAL, SNAP_OPERSTATE, "%s  mtu %s  ifindex %s",
	       s_or(nd->operstate), mtu, idx);
	dl_add(d, "address", TR_NORMAL, SNAP_ADDRESS, "%s", s_or(nd->address));
	for (size_t i = 0; i < nd->n_altnames; i++)
		dl_add(d, "altname", TR_NORMAL, SNAP_N_FIELDS, "%s", nd->altnames[i]);
}

static void fn_head(struct dlist *d, const struct fn *f)
{
	const char *nd = f->n_netdevs ? f->netdevs[0].name : NULL;
	dl_add(d, "netdev", TR_NORMAL, SNAP_NETDEV, "%s", nd ? nd : "-");
	name_history(d);
	dl_add(d, "ibdev", TR_NORMAL, SNAP_IBDEV, "%s", f->n_rdmas ? s_or(f->rdmas[0].name) : "-");
}

static void fn_tail(struct dlist *d, const struct fn *f)
{
	char v[32], dv[32];
	kv(f->vendor, v, sizeof(v), true);
	kv(f->device, dv, sizeof(dv), true);
	dl_add(d, "driver", f->driver ? TR_NORMAL : TR_WARNING, SNAP_DRIVER, "%s",
	       f->driver ? f->driver : "(none bound)");
	dl_add(d, "vendor:device", TR_NORMAL, SNAP_N_FIELDS, "%s:%s", v, dv);
	for (size_t i = 0; i < f->n_netdevs; i++)
		netdev_lines(d, &f->netdevs[i]);
}

/* Which pod holds the VF, where that was read, and the VF as the pod sees it. */
/* The GPUs the VF's pod holds, and the nearest with its PCIe class. */
static void pod_gpu_lines(struct dlist *d, const struct vf *vf, const struct pod_binding *b)
{
	const struct node *n = d->c->node;
	char gpus[160] = "";
	for (size_t i = 0; n && i < n->n_pod_gpus; i++)
		if (node_pod_gpu_held(b, &n->pod_gpus[i]) && strlen(gpus) < sizeof(gpus) - 16) {
			if (n->pod_gpus[i].gpu >= 0)
				snprintf(gpus + strlen(gpus), sizeof(gpus) - strlen(gpus),
					 "%sGPU%d", gpus[0] ? " " : "", n->pod_gpus[i].gpu);
			else
				snprintf(gpus + strlen(gpus), sizeof(gpus) - strlen(gpus),
					 "%s(not here)", gpus[0] ? " " : "");
		}
	if (!gpus[0])
		return;
	dl_add(d, "pod GPUs", TR_NORMAL, SNAP_N_FIELDS, "%s", gpus);
	const struct gpu *g;
	enum topo_class c = node_pod_gpu_nearest(n, b, &vf->fn, &g);
	if (g)
		dl_add(d, "nearest GPU", c == TOPO_NODE || c == TOPO_SYS ? TR_WARNING : TR_NORMAL,
		       SNAP_N_FIELDS, "GPU%zd %s  %s", g - n->gpus, g->bdf, topo_class_name(c));
}

static void pod_lines(struct dlist *d, const struct vf *vf)
{
	const struct pod_binding *b = vf->pod;
	if (!b) {
		dl_add(d, "pod", TR_NORMAL, SNAP_N_FIELDS, "-");
		return;
	}
	char label[256], src[128] = "";
	pods_label(b, label, sizeof(label));
	dl_add(d, "pod", b->stale ? TR_WARNING : TR_NORMAL, SNAP_N_FIELDS, "%s", label);
	if (b->stale)
		dl_add(d, "why", TR_WARNING, SNAP_N_FIELDS, "%s",
		       d->c->node && d->c->node->podres.state == PODRES_OK
			       ? "only the kubelet checkpoint names it; the kubelet runs no "
				 "container with it"
			       : "only the kubelet checkpoint names it; no pod log, no CNI cache");
	for (unsigned int bit = 1; bit <= POD_SRC_API; bit <<= 1)
		if (b->sources & bit)
			snprintf(src + strlen(src), sizeof(src) - strlen(src), "%s%s",
				 src[0] ? " " : "", pods_source_name(bit));
	dl_add(d, "pod source", TR_NORMAL, SNAP_N_FIELDS, "%s", src);
	if (b->uid)
		dl_add(d, "pod uid", TR_NORMAL, SNAP_N_FIELDS, "%s", b->uid);
	if (b->api_pod)
		dl_add(d, "kubelet says", TR_WARNING, SNAP_N_FIELDS, "held by pod %s", b->api_pod);
	pod_gpu_lines(d, vf, b);
	if (b->ifname || b->in_pod.known)
		dl_add(d, "in pod", TR_NORMAL, SNAP_N_FIELDS, "%s%s%s", s_or(b->ifname),
		       b->in_pod.known ? "  " : "",
		       b->in_pod.known ? s_or(b->in_pod.operstate) : "");
	if (b->network || b->resource)
		dl_add(d, "network", TR_NORMAL, SNAP_N_FIELDS, "%s  %s", s_or(b->network),
		       s_or(b->resource));
	if (b->netns)
		dl_add(d, "netns", TR_NORMAL, SNAP_N_FIELDS, "%s", b->netns);
}

static void vf_lines(struct dlist *d, const struct vf *vf)
{
	const struct vf_admin *a = &vf->admin;
	char b1[32], b2[32];
	fn_head(d, &vf->fn);
	const struct port *p = fn_port(&vf->fn);
	if (p)
		dl_add(d, "port state", screen_port_role(p), SNAP_PORT_STATE, "%s  %s",
		       s_or(p->state_name), s_or(p->phys_state_name));
	guid_pair(d, "port GUID", vf->port_guid, a->mofed ? a->mofed_port : a->port_guid,
		  SNAP_PORT_GUID);
	guid_pair(d, "node GUID", vf->node_guid, a->mofed ? a->mofed_node : a->node_guid,
		  SNAP_NODE_GUID);
	pod_lines(d, vf);
	dl_add(d, "admin mac", TR_NORMAL, SNAP_ADMIN_MAC, "%s", s_or(a->mac));
	static const char *const ls[] = {"auto (Follow)", "enable (Up)", "disable (Down)"};
	dl_add(d, "link state", TR_NORMAL, SNAP_ADMIN_LINK_STATE, "%s%s%s",
	       a->link_state.known && a->link_state.v >= 0 && a->link_state.v < 3
		       ? ls[a->link_state.v]
		       : "?",
	       a->mofed_policy ? "  policy " : "", a->mofed_policy ? a->mofed_policy : "");
	kv(a->spoofchk, b1, sizeof(b1), false);
	kv(a->trust, b2, sizeof(b2), false);
	dl_add(d, "spoof / trust", TR_NORMAL, SNAP_N_FIELDS, "%s / %s", b1, b2);
	kv(a->vlan, b1, sizeof(b1), false);
	kv(a->max_tx_rate, b2, sizeof(b2), false);
	dl_add(d, "vlan / max tx", TR_NORMAL, SNAP_N_FIELDS, "%s / %s Mb/s", b1, b2);
	if (a->mofed) {
		char g1[GUID_STRLEN], g2[GUID_STRLEN];
		kg(a->mofed_node, g1);
		kg(a->mofed_port, g2);
		dl_add(d, "sriov node", TR_NORMAL, SNAP_N_FIELDS, "%s", g1);
		dl_add(d, "sriov port", TR_NORMAL, SNAP_N_FIELDS, "%s", g2);
	}
	dl_add(d, "netlink", TR_NORMAL, SNAP_N_FIELDS, "%s",
	       a->netlink_known ? "listed by the PF" : "not listed (no netlink data)");
	for (size_t i = 0; i < vf->fn.n_rdmas; i++) {
		port_lines(d, &vf->fn.rdmas[i], i == 0 && p);
		rdma_lines(d, &vf->fn.rdmas[i], true);
	}
	fn_tail(d, &vf->fn);
}

static void pf_lines(struct dlist *d, const struct pf *pf)
{
	char n[32], t[32], ap[32];
	fn_head(d, &pf->fn);
	for (size_t i = 0; i < pf->fn.n_rdmas; i++) {
		port_lines(d, &pf->fn.rdmas[i], false);
		rdma_lines(d, &pf->fn.rdmas[i], false);
	}
	kv(pf->numvfs, n, sizeof(n), false);
	kv(pf->totalvfs, t, sizeof(t), false);
	kv(pf->autoprobe, ap, sizeof(ap), false);
	if (pf->sriov)
		dl_add(d, "VFs", TR_NORMAL, SNAP_NUMVFS, "%s of %s  autoprobe %s", n, t, ap);
	else
		dl_add(d, "VFs", TR_NORMAL, SNAP_N_FIELDS, "not SR-IOV capable");
	fn_tail(d, &pf->fn);
}

/* What the checks found on this function (the findings are the one
 * account of what is wrong): each title, and its first piece of evidence. */
static void finding_lines(struct dlist *d)
{
	const struct console_mark *m = console_mark_find(d->c, d->bdf);
	for (size_t i = 0; m && i < m->n; i++) {
		const struct finding *f = console_mark_finding(d->c, m, i);
		char label[24];
		snprintf(label, sizeof(label), "%s %s", console_severity_mark(f->severity),
			 check_severity_name(f->severity));
		const struct check_def *def = check_find(f->id); /* its short title */
		dl_add(d, label, console_severity_role(f->severity), SNAP_N_FIELDS, "%s",
		       def ? def->title : f->title);
		if (f->n_evidence)
			dl_add(d, "  evidence", TR_NORMAL, SNAP_N_FIELDS, "%s: %s",
			       f->evidence[0].where, f->evidence[0].value);
	}
}

size_t console_details(const struct console *c, struct dline *ret, size_t max, int value_w)
{
	if (!c->tree.n)
		return 0;
	const struct tree_row *r = &c->tree.rows[c->tl.sel];
	struct dlist d = {ret, 0, max, c, r->bdf, value_w};
	if (r->ghost) {
		char at[16];
		strftime(at, sizeof(at), "%H:%M:%S", localtime(&r->ghost->gone_wall));
		dl_add(&d, "gone", TR_GONE, SNAP_N_FIELDS, "vanished at %s", at);
		dl_add(&d, "netdev was", TR_GONE, SNAP_N_FIELDS, "%s",
		       r->ghost->netdev[0] ? r->ghost->netdev : "-");
		dl_add(&d, "ibdev was", TR_GONE, SNAP_N_FIELDS, "%s",
		       r->ghost->ibdev[0] ? r->ghost->ibdev : "-");
		name_history(&d);
	} else if (r->kind == ROW_VF) {
		finding_lines(&d);
		vf_lines(&d, r->vfp);
	} else {
		finding_lines(&d);
		pf_lines(&d, r->pf);
	}
	return d.n;
}

void console_details_title(const struct console *c, char *buf, size_t size)
{
	if (!c->tree.n) {
		snprintf(buf, size, " Details");
		return;
	}
	const struct tree_row *r = &c->tree.rows[c->tl.sel];
	if (r->kind == ROW_PF)
		snprintf(buf, size, " PF %s%s", r->bdf, r->ghost ? " (gone)" : "");
	else
		snprintf(buf, size, " VF %d of PF %s  %s%s", r->vf,
			 r->pf ? r->pf->fn.bdf : r->ghost->pf_bdf, r->bdf,
			 r->ghost ? " (gone)" : "");
}
