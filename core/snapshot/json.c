// SPDX-License-Identifier: MIT
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "core/model/json_names.h"
#include "core/pods/operators.h"
#include "core/pods/pods.h"
#include "core/sys/sys.h"
#include "core/model/names.h"

static void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *jint(struct kval k)
{
	return k.known ? json_object_new_int64(k.v) : NULL;
}

static struct json_object *jhex(struct kval k)
{
	if (!k.known)
		return NULL;
	char buf[24];
	snprintf(buf, sizeof(buf), "0x%04llx", (unsigned long long)k.v);
	return json_object_new_string(buf);
}

static struct json_object *jbool(struct kval k)
{
	return k.known ? json_object_new_boolean(k.v != 0) : NULL;
}

static struct json_object *jguid(struct kguid g)
{
	if (!g.known)
		return NULL;
	char buf[GUID_STRLEN];
	guid_format_sysfs(g.v, buf);
	return json_object_new_string(buf);
}

/* The port's netdev: the function's netdev whose dev_port is the port's
 * number less one (mlx5: one netdev per port), else its only netdev. */
static const struct netdev *port_netdev(const struct fn *f, const struct port *p)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < f->n_netdevs; i++)
		if (f->netdevs[i].dev_port.known && f->netdevs[i].dev_port.v + 1 == p->num)
			return &f->netdevs[i];
	return f->n_netdevs == 1 ? &f->netdevs[0] : NULL;
}

/* As `rdma -j link` names a port's facts (state words, decimal LIDs,
 * subnet_prefix, netdev); the numbers beside them as node_exporter's
 * infiniband collector exports them (state_id, physical_state_id). */
static struct json_object *port_json(const struct port *p, const struct fn *f)
{
	struct json_object *o = json_object_new_object();
	const struct netdev *nd = port_netdev(f, p);
	add(o, "port", json_object_new_int((int)p->num));
	add(o, "state", p->state.known ? jstr(json_port_state_name(p->state.v)) : NULL);
	add(o, "state_id", jint(p->state));
	add(o, "physical_state",
	    p->phys_state.known ? jstr(json_port_phys_state_name(p->phys_state.v)) : NULL);
	add(o, "physical_state_id", jint(p->phys_state));
	add(o, "rate", jstr(p->rate));
	add(o, "rate_mbps", jint(p->rate_mbps));
	add(o, "link_layer", jstr(p->link_layer));
	add(o, "lid", jint(p->lid));
	add(o, "sm_lid", jint(p->sm_lid));
	add(o, "pkey0", jhex(p->pkey0));
	add(o, "subnet_prefix", jguid(p->gid_prefix));
	add(o, "port_guid", jguid(p->port_guid));
	add(o, "netdev", nd ? jstr(nd->name) : NULL);
	add(o, "netdev_index", nd ? jint(nd->ifindex) : NULL);
	return o;
}

/* As `rdma -j dev` names a device's facts (ifname, node_type, fw). */
static struct json_object *rdma_json(const struct rdma *r, const struct fn *f)
{
	struct json_object *o = json_object_new_object();
	add(o, "ifname", jstr(r->name));
	add(o, "node_type", r->node_type.known ? jstr(json_node_type_name(r->node_type.v)) : NULL);
	add(o, "node_guid", jguid(r->node_guid));
	add(o, "sys_image_guid", jguid(r->sys_image_guid));
	add(o, "fw", jstr(r->fw_ver));
	add(o, "hca_type", jstr(r->hca_type));
	add(o, "board_id", jstr(r->board_id));
	add(o, "parent_netdev", jstr(r->parent));
	struct json_object *ports = json_object_new_array();
	for (size_t i = 0; i < r->n_ports; i++)
		json_object_array_add(ports, port_json(&r->ports[i], f));
	add(o, "ports", ports);
	return o;
}

static struct json_object *joper(const char *operstate)
{
	char buf[32];
	return jstr(json_operstate_name(operstate, buf, sizeof(buf)));
}

static struct json_object *netdev_json(const struct netdev *nd)
{
	struct json_object *o = json_object_new_object();
	char lt[24];
	add(o, "ifname", jstr(nd->name));
	add(o, "ifindex", jint(nd->ifindex));
	add(o, "link_type",
	    nd->type.known ? jstr(json_link_type_name(nd->type.v, lt, sizeof(lt))) : NULL);
	add(o, "mtu", jint(nd->mtu));
	add(o, "operstate", joper(nd->operstate));
	add(o, "flags",
	    nd->flags.known ? json_link_flags((unsigned int)nd->flags.v, true, nd->operstate)
			    : NULL);
	add(o, "address", jstr(nd->address));
	add(o, "dev_port", jint(nd->dev_port));
	add(o, "addr_guid", jguid(nd->addr_guid));
	struct json_object *alt = json_object_new_array();
	for (size_t i = 0; i < nd->n_altnames; i++)
		json_object_array_add(alt, json_object_new_string(nd->altnames[i]));
	add(o, "altnames", alt);
	return o;
}

static void fn_json(struct json_object *o, const struct fn *f)
{
	add(o, "bdf", json_object_new_string(f->bdf));
	add(o, "vendor", jhex(f->vendor));
	add(o, "device", jhex(f->device));
	add(o, "driver", jstr(f->driver));
	add(o, "devpath", jstr(f->devpath));
	add(o, "numa_node", jint(f->numa));
	struct json_object *nds = json_object_new_array();
	for (size_t i = 0; i < f->n_netdevs; i++)
		json_object_array_add(nds, netdev_json(&f->netdevs[i]));
	add(o, "netdevs", nds);
	struct json_object *rs = json_object_new_array();
	for (size_t i = 0; i < f->n_rdmas; i++)
		json_object_array_add(rs, rdma_json(&f->rdmas[i], f));
	add(o, "rdma", rs);
}

static struct json_object *admin_json(const struct vf_admin *a)
{
	struct json_object *o = json_object_new_object();
	add(o, "netlink", json_object_new_boolean(a->netlink_known));
	add(o, "address", jstr(a->mac));
	add(o, "vlan", jint(a->vlan));
	add(o, "spoofchk", jbool(a->spoofchk));
	add(o, "trust", jbool(a->trust));
	/* ip's words (core/model/names.h's one table). */
	add(o, "link_state",
	    a->link_state.known ? jstr(vf_link_state_to_string((int)a->link_state.v)) : NULL);
	add(o, "max_tx_rate", jint(a->max_tx_rate));
	add(o, "node_guid", jguid(a->node_guid));
	add(o, "port_guid", jguid(a->port_guid));
	struct json_object *m = NULL;
	if (a->mofed) {
		m = json_object_new_object();
		add(m, "node", jguid(a->mofed_node));
		add(m, "port", jguid(a->mofed_port));
		add(m, "policy", jstr(a->mofed_policy));
	}
	add(o, "mofed", m);
	return o;
}

static struct json_object *netif_json(const struct pod_netif *nif)
{
	if (!nif->known && !nif->error)
		return NULL;
	struct json_object *o = json_object_new_object();
	add(o, "ifname", jstr(nif->name));
	add(o, "operstate", joper(nif->operstate));
	add(o, "ifindex", jint(nif->ifindex));
	add(o, "flags",
	    nif->flags.known ? json_link_flags((unsigned int)nif->flags.v, false, NULL) : NULL);
	add(o, "mtu", jint(nif->mtu));
	add(o, "address", jstr(nif->address));
	add(o, "error", nif->error ? json_object_new_string(strerror(-nif->error)) : NULL);
	return o;
}

/* A GUID a file gave as text, in the one form: as given when it is none. */
static struct json_object *jguid_text(const char *s)
{
	uint64_t g;
	if (!s || guid_parse(s, &g) < 0)
		return jstr(s);
	return jguid((struct kguid){true, g});
}

/* How the pod is shown everywhere (pods_label), for the renderers. */
static struct json_object *pod_label_json(const struct pod_binding *b, bool stale)
{
	char label[320];
	struct pod_binding shown = *b;
	shown.stale = stale;
	pods_label(&shown, label, sizeof(label));
	return json_object_new_string(label);
}

/* The binding's facts; identity (namespace, name, uid) unless the caller
 * groups by pod already. */
static void pod_fields(struct json_object *o, const struct pod_binding *b, bool identity)
{
	if (identity) {
		add(o, "label", pod_label_json(b, b->stale));
		add(o, "namespace", jstr(b->ns));
		add(o, "name", jstr(b->name));
		add(o, "uid", jstr(b->uid));
	}
	add(o, "container", jstr(b->container));
	add(o, "resource", jstr(b->resource));
	add(o, "network", jstr(b->network));
	add(o, "ifname", jstr(b->ifname));
	add(o, "host_ifname", jstr(b->host_ifname));
	add(o, "guid", jguid_text(b->guid));
	add(o, "pkey", jstr(b->pkey));
	add(o, "netns", jstr(b->netns));
	add(o, "netns_present",
	    b->netns_present.known ? json_object_new_boolean(b->netns_present.v != 0) : NULL);
	add(o, "container_id", jstr(b->container_id));
	struct json_object *src = json_object_new_array();
	for (unsigned int bit = 1; bit; bit <<= 1)
		if (b->sources & bit && pods_source_name(bit))
			json_object_array_add(src, json_object_new_string(pods_source_name(bit)));
	add(o, "sources", src);
	add(o, "stale", json_object_new_boolean(b->stale));
	add(o, "in_pod", netif_json(&b->in_pod));
	add(o, "api_pod", jstr(b->api_pod));
}

/* The nearest GPU of the VF's pod and the class between them (node.h's
 * node_pod_gpu_nearest), or NULL when its pod holds no GPU of the node. */
static struct json_object *nearest_gpu_json(const struct node *n, const struct vf *vf,
					    const struct pod_binding *b)
{
	const struct gpu *g;
	enum topo_class c = node_pod_gpu_nearest(n, b, &vf->fn, &g);
	if (!g)
		return NULL;
	struct json_object *o = json_object_new_object();
	add(o, "index", json_object_new_int((int)(g - n->gpus)));
	add(o, "bdf", json_object_new_string(g->bdf));
	add(o, "uuid", jstr(g->uuid));
	add(o, "class", json_object_new_string(topo_class_name(c)));
	return o;
}

static const char *const podres_states[] = {
	[PODRES_ABSENT] = "absent",
	[PODRES_OK] = "ok",
	[PODRES_REFUSED] = "refused",
	[PODRES_FAILED] = "failed",
};

/* What the kubelet's pod-resources API said of itself. */
static struct json_object *kubelet_api_json(const struct podres *p)
{
	struct json_object *o = json_object_new_object();
	add(o, "state",
	    json_object_new_string((unsigned int)p->state < 4 ? podres_states[p->state]
							      : "failed"));
	add(o, "socket", jstr(p->socket));
	add(o, "note", jstr(p->note));
	add(o, "pods", p->state == PODRES_OK ? json_object_new_int64((int64_t)p->n_pods) : NULL);
	add(o, "allocatable_known", json_object_new_boolean(p->alloc_known));
	add(o, "allocatable_note", jstr(p->alloc_note));
	add(o, "get_known", json_object_new_boolean(p->get_known));
	add(o, "truncated", json_object_new_boolean(p->truncated));
	return o;
}

/* One GPU a pod holds (the allocation), with the node's GPU it names. */
static struct json_object *pod_gpu_json(const struct node *n, const struct pod_gpu *g,
					bool identity)
{
	struct json_object *o = json_object_new_object();
	if (identity) {
		add(o, "namespace", jstr(g->ns));
		add(o, "name", jstr(g->name));
		add(o, "uid", jstr(g->uid));
	}
	add(o, "container", jstr(g->container));
	add(o, "resource", jstr(g->resource));
	add(o, "id", jstr(g->id));
	const struct gpu *gpu = g->gpu >= 0 && (size_t)g->gpu < n->n_gpus ? &n->gpus[g->gpu] : NULL;
	add(o, "index", gpu ? json_object_new_int(g->gpu) : NULL);
	add(o, "bdf", gpu ? json_object_new_string(gpu->bdf) : NULL);
	add(o, "model", gpu ? jstr(gpu->model) : NULL);
	struct json_object *src = json_object_new_array();
	for (unsigned int bit = 1; bit; bit <<= 1)
		if (g->sources & bit && pods_source_name(bit))
			json_object_array_add(src, json_object_new_string(pods_source_name(bit)));
	add(o, "sources", src);
	return o;
}

static struct json_object *pod_json(const struct pod_binding *b)
{
	if (!b)
		return NULL;
	struct json_object *o = json_object_new_object();
	pod_fields(o, b, true);
	return o;
}

static struct json_object *vf_json(const struct vf *vf)
{
	struct json_object *o = json_object_new_object();
	add(o, "index", json_object_new_int((int)vf->index));
	fn_json(o, &vf->fn);
	add(o, "node_guid", jguid(vf->node_guid));
	add(o, "port_guid", jguid(vf->port_guid));
	add(o, "admin", admin_json(&vf->admin));
	add(o, "pod", pod_json(vf->pod));
	return o;
}

/* The operator that sets a PF's VF count or GUIDs (core/pods/operators.h), or null. */
static struct json_object *operator_json(const struct op_claim *c)
{
	if (!c)
		return NULL;
	struct json_object *o = json_object_new_object(), *sets = json_object_new_array(),
			   *ev = json_object_new_array();
	add(o, "name",
	    json_object_new_string(c->op == OP_NETWORK_OPERATOR ? "nvidia-network-operator"
								: "sriov-network-operator"));
	if (c->numvfs)
		json_object_array_add(sets, json_object_new_string("numvfs"));
	if (c->guids)
		json_object_array_add(sets, json_object_new_string("guids"));
	add(o, "sets", sets);
	add(o, "externally_managed", json_object_new_boolean(c->externally_managed));
	add(o, "numvfs", c->want_numvfs >= 0 ? json_object_new_int(c->want_numvfs) : NULL);
	for (size_t i = 0; i < c->n_evidence; i++)
		json_object_array_add(ev, json_object_new_string(c->evidence[i]));
	add(o, "evidence", ev);
	return o;
}

static struct json_object *pf_json(const struct node *n, const struct pf *pf)
{
	struct json_object *o = json_object_new_object();
	fn_json(o, &pf->fn);
	add(o, "sriov", json_object_new_boolean(pf->sriov));
	add(o, "numvfs", jint(pf->numvfs));
	add(o, "totalvfs", jint(pf->totalvfs));
	add(o, "autoprobe", jint(pf->autoprobe));
	add(o, "operator", operator_json(operators_claim(n, pf->fn.bdf)));
	struct json_object *vfs = json_object_new_array();
	for (size_t i = 0; i < pf->n_vfs; i++)
		json_object_array_add(vfs, vf_json(&pf->vfs[i]));
	add(o, "vfs", vfs);
	return o;
}

static struct json_object *strv_json(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

/* "kmsg": every record kept; "kmsg_errors": the failures' messages. */
static void add_kmsg(struct json_object *o, const struct node *n)
{
	struct json_object *all = json_object_new_array(), *errs = json_object_new_array();
	for (size_t i = 0; i < n->n_kmsg; i++) {
		const struct kmsg_line *l = &n->kmsg[i];
		struct json_object *k = json_object_new_object();
		add(k, "ts_usec", jint(l->ts_usec));
		add(k, "prio", l->prio >= 0 ? json_object_new_int(l->prio) : NULL);
		add(k, "msg", json_object_new_string(l->msg));
		add(k, "error", json_object_new_boolean(l->error));
		json_object_array_add(all, k);
		if (l->error)
			json_object_array_add(errs, json_object_new_string(l->msg));
	}
	add(o, "kmsg", all);
	add(o, "kmsg_errors", errs);
}

/* ibvf's boot unit and the VF count it re-creates per PF. */
static void add_persisted(struct json_object *o, const struct node *n)
{
	add(o, "persist_unit", jstr(n->persist_unit));
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < n->n_persisted; i++) {
		struct json_object *p = json_object_new_object();
		add(p, "bdf", json_object_new_string(n->persisted[i].bdf));
		add(p, "numvfs", json_object_new_int64(n->persisted[i].numvfs));
		json_object_array_add(a, p);
	}
	add(o, "persisted", a);
}

/* Pod-binding files found but not readable whole. */
static struct json_object *broken_json(const struct node *n)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < n->n_cni_broken; i++) {
		struct json_object *b = json_object_new_object();
		add(b, "path", jstr(n->cni_broken[i].path));
		add(b, "why", jstr(n->cni_broken[i].why));
		json_object_array_add(a, b);
	}
	return a;
}

static struct json_object *gpu_json(const struct gpu *g)
{
	struct json_object *o = json_object_new_object();
	add(o, "bdf", json_object_new_string(g->bdf));
	add(o, "model", jstr(g->model));
	add(o, "uuid", jstr(g->uuid));
	add(o, "numa_node", json_object_new_int64(g->numa));
	add(o, "driver", jstr(g->driver));
	add(o, "minor", g->minor >= 0 ? json_object_new_int64(g->minor) : NULL);
	add(o, "devpath", jstr(g->devpath));
	add(o, "migs", strv_json(g->migs, g->n_migs));
	return o;
}

struct json_object *node_to_json(const struct node *n)
{
	struct json_object *o = json_object_new_object();
	add(o, "version", json_object_new_int(NODE_JSON_VERSION));
	add(o, "host", jstr(n->hostname));
	add(o, "kernel", jstr(n->kernel));
	add(o, "driver_version", jstr(n->driver_version));
	add_kmsg(o, n);
	add_persisted(o, n);
	struct json_object *pfs = json_object_new_array();
	for (size_t i = 0; i < n->n_pfs; i++)
		json_object_array_add(pfs, pf_json(n, &n->pfs[i]));
	add(o, "pfs", pfs);
	add(o, "operator_pods", strv_json(n->op_pods, n->n_op_pods));
	struct json_object *orph = json_object_new_array();
	for (size_t i = 0; i < n->n_orphans; i++)
		json_object_array_add(orph, rdma_json(&n->orphans[i], NULL));
	add(o, "orphans", orph);
	struct json_object *gpus = json_object_new_array();
	for (size_t i = 0; i < n->n_gpus; i++)
		json_object_array_add(gpus, gpu_json(&n->gpus[i]));
	add(o, "gpus", gpus);
	struct json_object *unpl = json_object_new_array();
	for (size_t i = 0; i < n->n_pods_unplaced; i++) {
		struct json_object *u = pod_json(&n->pods_unplaced[i]);
		add(u, "bdf", json_object_new_string(n->pods_unplaced[i].bdf));
		json_object_array_add(unpl, u);
	}
	add(o, "pods_unplaced", unpl);
	add(o, "cni_broken", broken_json(n));
	add(o, "kubelet_api", kubelet_api_json(&n->podres));
	struct json_object *pg = json_object_new_array();
	for (size_t i = 0; i < n->n_pod_gpus; i++)
		json_object_array_add(pg, pod_gpu_json(n, &n->pod_gpus[i], true));
	add(o, "pod_gpus", pg);
	/* Each held VF's nearest GPU of its pod, on its pod object. */
	for (size_t i = 0; i < n->n_pfs; i++) {
		struct json_object *vfs = NULL, *jpf = json_object_array_get_idx(pfs, i);
		json_object_object_get_ex(jpf, "vfs", &vfs);
		for (size_t j = 0; vfs && j < n->pfs[i].n_vfs; j++) {
			struct json_object *jpod = NULL, *jvf = json_object_array_get_idx(vfs, j);
			const struct vf *vf = &n->pfs[i].vfs[j];
			if (vf->pod && json_object_object_get_ex(jvf, "pod", &jpod) && jpod)
				add(jpod, "gpu", nearest_gpu_json(n, vf, vf->pod));
		}
	}
	add(o, "notes", strv_json(n->notes, n->n_notes));
	return o;
}

/* One VF held by a pod, with where it sits on the node (pf NULL: unplaced). */
struct pod_vf_ref {
	const struct pod_binding *b;
	const char *pf;
	unsigned int index;
	const struct vf *vf; /* NULL: unplaced */
};

static int cmp_null_last(const char *x, const char *y)
{
	if (!x || !y)
		return !x - !y;
	return strcmp(x, y);
}

static int cmp_pod_ref(const void *x, const void *y)
{
	const struct pod_binding *a = ((const struct pod_vf_ref *)x)->b,
				 *b = ((const struct pod_vf_ref *)y)->b;
	int c = cmp_null_last(a->ns, b->ns);
	if (!c)
		c = cmp_null_last(a->name, b->name);
	if (!c)
		c = cmp_null_last(a->uid, b->uid);
	return c ? c : strcmp(a->bdf, b->bdf);
}

/* Two bindings name the same pod: same UID, else same namespace/name. */
static bool same_pod(const struct pod_binding *a, const struct pod_binding *b)
{
	if (a->uid && b->uid)
		return !strcmp(a->uid, b->uid);
	if (a->uid || b->uid)
		return false;
	return a->ns && b->ns && a->name && b->name && !strcmp(a->ns, b->ns) &&
	       !strcmp(a->name, b->name);
}

/* A pod of the pods view is stale when every binding of it is. */
static void pod_group_close(struct json_object *pod, const struct pod_binding *b, bool stale)
{
	add(pod, "stale", json_object_new_boolean(stale));
	add(pod, "label", pod_label_json(b, stale));
}

struct json_object *node_pods_to_json(const struct node *n)
{
	size_t cap = n->n_pods_unplaced, k = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		cap += n->pfs[i].n_vfs;
	struct pod_vf_ref *refs = calloc(cap ? cap : 1, sizeof(*refs));
	if (!refs)
		return NULL;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++)
			if (n->pfs[i].vfs[j].pod)
				refs[k++] = (struct pod_vf_ref){
					n->pfs[i].vfs[j].pod, n->pfs[i].fn.bdf,
					n->pfs[i].vfs[j].index, &n->pfs[i].vfs[j]};
	for (size_t i = 0; i < n->n_pods_unplaced; i++)
		refs[k++] = (struct pod_vf_ref){&n->pods_unplaced[i], NULL, 0, NULL};
	if (k > 1)
		qsort(refs, k, sizeof(*refs), cmp_pod_ref);

	struct json_object *o = json_object_new_object();
	add(o, "version", json_object_new_int(NODE_JSON_VERSION));
	add(o, "host", jstr(n->hostname));
	struct json_object *pods = json_object_new_array(), *vfs = NULL, *pod = NULL;
	bool stale = true;
	for (size_t i = 0; i < k; i++) {
		const struct pod_binding *b = refs[i].b;
		if (!i || !same_pod(refs[i - 1].b, b)) {
			if (pod)
				pod_group_close(pod, refs[i - 1].b, stale);
			pod = json_object_new_object();
			add(pod, "namespace", jstr(b->ns));
			add(pod, "name", jstr(b->name));
			add(pod, "uid", jstr(b->uid));
			vfs = json_object_new_array();
			add(pod, "vfs", vfs);
			struct json_object *gpus = json_object_new_array();
			for (size_t g = 0; g < n->n_pod_gpus; g++)
				if (node_pod_gpu_held(b, &n->pod_gpus[g]))
					json_object_array_add(
						gpus, pod_gpu_json(n, &n->pod_gpus[g], false));
			add(pod, "gpus", gpus);
			json_object_array_add(pods, pod);
			stale = true;
		}
		stale &= b->stale;
		struct json_object *v = json_object_new_object();
		add(v, "bdf", json_object_new_string(b->bdf));
		add(v, "pf", jstr(refs[i].pf));
		add(v, "index", refs[i].pf ? json_object_new_int((int)refs[i].index) : NULL);
		pod_fields(v, b, false);
		add(v, "gpu", refs[i].vf ? nearest_gpu_json(n, refs[i].vf, b) : NULL);
		json_object_array_add(vfs, v);
	}
	if (pod)
		pod_group_close(pod, refs[k - 1].b, stale);
	free(refs);
	add(o, "pods", pods);
	add(o, "kubelet_api", kubelet_api_json(&n->podres));
	add(o, "notes", strv_json(n->notes, n->n_notes));
	return o;
}
