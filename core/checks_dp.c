// SPDX-License-Identifier: MIT
/* Device plugin checks: a resource whose selectors pick none of the node's
 * devices (dp-selector-empty), one that picks functions of both link layers
 * (dp-link-type), and a config the plugin refuses (dp-config-invalid). The
 * selectors are judged by each plugin's own rules (devplugin_match.c). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_int.h"
#include "devplugin.h"

#define LIST_SHOWN 8 /* values or devices named in one evidence line */

/* Every function of the node, as the plugins see them: PFs and VFs. */
struct dev {
	const struct pf *pf;
	const struct vf *vf;
};

struct devs {
	struct dev *v;
	size_t n;
};

static int devs_build(const struct node *n, struct devs *d)
{
	size_t total = n->n_pfs;
	for (size_t i = 0; i < n->n_pfs; i++)
		total += n->pfs[i].n_vfs;
	d->n = 0;
	if (!(d->v = calloc(total ? total : 1, sizeof(*d->v))))
		return -1;
	for (size_t i = 0; i < n->n_pfs; i++) {
		d->v[d->n++] = (struct dev){&n->pfs[i], NULL};
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++)
			d->v[d->n++] = (struct dev){&n->pfs[i], &n->pfs[i].vfs[j]};
	}
	return 0;
}

/* A string from a file, as JSON writes it: quoted, control bytes escaped. */
static const char *quoted(const char *s, char *buf, size_t size)
{
	json_object *j = json_object_new_string(s ? s : "");
	snprintf(buf, size, "%s",
		 j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_NOSLASHESCAPE) : "\"\"");
	json_object_put(j);
	return buf;
}

/* A path for a title or evidence: bytes below space become '?'. */
static const char *clean(const char *s, char *buf, size_t size)
{
	size_t i = 0;
	for (; s && s[i] && i + 1 < size; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

static json_object *list_json(const struct dp_list *l)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; a && i < l->n; i++)
		json_object_array_add(a, json_object_new_string(l->v[i]));
	return a;
}

/* One selector object as it would be written in the config. */
static json_object *selector_json(enum dp_plugin p, const struct dp_selector *s)
{
	json_object *o = json_object_new_object();
	for (int f = 0; o && f < DP_FIELDS; f++)
		if (s->f[f].n)
			json_object_object_add(o, devplugin_field_key(p, (enum dp_field)f),
					       list_json(&s->f[f]));
	if (o && s->is_rdma)
		json_object_object_add(o, "isRdma", json_object_new_boolean(1));
	if (o && s->need_vhost_net)
		json_object_object_add(o, "needVhostNet", json_object_new_boolean(1));
	return o;
}

static void evidence_json(struct finding *f, const char *where, const char *prefix, json_object *j)
{
	finding_evidence(
		f, where, "%s%s", prefix,
		j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE)
		  : "?");
	json_object_put(j);
}

static void evidence_resource(struct finding *f, const struct dp_config *c,
			      const struct dp_resource *r, const char *where)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "resourceName", json_object_new_string(r->name ? r->name : ""));
	if (r->prefix)
		json_object_object_add(o, "resourcePrefix", json_object_new_string(r->prefix));
	if (r->n_sel == 1 && !r->sel_array) {
		json_object_object_add(o, "selectors", selector_json(c->plugin, &r->sel[0]));
	} else {
		json_object *a = json_object_new_array();
		for (size_t i = 0; i < r->n_sel; i++)
			json_object_array_add(a, selector_json(c->plugin, &r->sel[i]));
		json_object_object_add(o, "selectors", a);
	}
	evidence_json(f, where, "", o);
}

/* Whether any pod of the node asks for the resource (kubelet checkpoint). */
static bool requested(const struct node *n, const struct dp_resource *r)
{
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct pod_binding *b = n->pfs[i].vfs[j].pod;
			if (b && devplugin_names(r, b->resource))
				return true;
		}
	for (size_t i = 0; i < n->n_pods_unplaced; i++)
		if (devplugin_names(r, n->pods_unplaced[i].resource))
			return true;
	return false;
}

/* A resource aimed at other hardware (a cluster-wide config's Intel pool)
 * is no fault of this node: it counts when its vendors, or else its
 * drivers, name something the node has. */
static bool aimed_here(const struct dp_resource *r, const struct devs *d)
{
	char v[64];
	for (size_t s = 0; s < r->n_sel; s++) {
		enum dp_field f = r->sel[s].f[DP_VENDORS].n   ? DP_VENDORS
				  : r->sel[s].f[DP_DRIVERS].n ? DP_DRIVERS
							      : DP_FIELDS;
		if (f == DP_FIELDS)
			return true;
		for (size_t i = 0; i < d->n; i++) {
			devplugin_value(r->plugin, f, d->v[i].pf, d->v[i].vf, v, sizeof(v));
			for (size_t k = 0; *v && k < r->sel[s].f[f].n; k++)
				if (!strcmp(r->sel[s].f[f].v[k], v))
					return true;
		}
	}
	return false;
}

static bool judged(const struct dp_config *c, const struct dp_resource *r)
{
	if (c->error || (r->device_type && strcmp(r->device_type, "netDevice")))
		return false;
	for (size_t i = 0; i < r->n_sel; i++)
		if (r->sel[i].unjudged)
			return false;
	return true;
}

/* The distinct values of field f among the candidate devices (VFs when
 * there are any), "a, b, c, ..." into buf. */
static size_t values_of(const struct dp_resource *r, enum dp_field f, const struct devs *d,
			const bool *cand, char *buf, size_t size)
{
	bool vfs = false;
	for (size_t i = 0; i < d->n; i++)
		vfs |= cand[i] && d->v[i].vf;
	char seen[LIST_SHOWN][64], v[64];
	size_t n = 0, more = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (!cand[i] || (vfs && !d->v[i].vf))
			continue;
		devplugin_value(r->plugin, f, d->v[i].pf, d->v[i].vf, v, sizeof(v));
		if (!*v)
			snprintf(v, sizeof(v), "(none)");
		bool dup = false;
		for (size_t k = 0; k < n; k++)
			dup |= !strcmp(seen[k], v);
		if (dup)
			continue;
		if (n < LIST_SHOWN)
			snprintf(seen[n++], sizeof(seen[0]), "%s", v);
		else
			more++;
	}
	size_t len = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < n && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? ", " : "", seen[k]);
	if (more && len < size)
		snprintf(buf + len, size - len, ", ...");
	return n;
}

/* What the plugin compares, when a value is written another way. */
static const char *hint(enum dp_field f, const struct dp_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *v = l->v[i];
		if ((f == DP_PF_NAMES || f == DP_IF_NAMES) && strpbrk(v, "*?["))
			return " (names are compared whole: no wildcards)";
		if ((f == DP_VENDORS || f == DP_DEVICES) &&
		    (!strncasecmp(v, "0x", 2) || strpbrk(v, "ABCDEF")))
			return " (the plugin compares 4 lowercase hex digits, without 0x)";
		if (f == DP_LINK_TYPES && strcmp(v, "infiniband") && strcmp(v, "ether"))
			return " (the plugin compares netlink's names: \"infiniband\", \"ether\")";
		if (f == DP_ROOT_DEVICES && strlen(v) < 12)
			return " (the plugin compares full PCI addresses: 0000:18:00.0)";
	}
	return "";
}

static const char *what_of(enum dp_field f, bool vfs)
{
	switch (f) {
	case DP_PF_NAMES:
		return "the VFs' PFs are";
	case DP_ROOT_DEVICES:
		return "the VFs' PFs are at";
	case DP_LINK_TYPES:
		return "their link types are";
	case DP_DRIVERS:
		return "their drivers are";
	case DP_IF_NAMES:
		return "their netdevs are";
	default:
		return vfs ? "the node's VFs are" : "the node's functions are";
	}
}

/* Says which lists exclude every candidate: each one that alone does, or
 * else the one at which the plugin's filters in turn leave nothing. */
static void explain(struct finding *f, const struct dp_config *c, const struct dp_resource *r,
		    const struct devs *d, const bool *cand)
{
	char vals[256], lst[512], where[512];
	clean(c->path, where, sizeof(where));
	bool vfs = false;
	for (size_t i = 0; i < d->n; i++)
		vfs |= cand[i] && d->v[i].vf;
	if (!vfs) {
		finding_evidence(f, where, "the node has no %s it could list",
				 c->plugin == DP_SRIOV ? "VF with a driver"
						       : "function with a driver and an RDMA device");
		return;
	}
	for (size_t s = 0; s < r->n_sel; s++) {
		const struct dp_selector *sel = &r->sel[s];
		bool any = false;
		for (int fi = 0; fi < DP_FIELDS; fi++) {
			enum dp_field fl = (enum dp_field)fi;
			if (!sel->f[fl].n)
				continue;
			bool hit = false;
			for (size_t i = 0; i < d->n && !hit; i++)
				hit = cand[i] && devplugin_field_match(c->plugin, fl, &sel->f[fl],
								       d->v[i].pf, d->v[i].vf);
			if (hit)
				continue;
			any = true;
			json_object *j = list_json(&sel->f[fl]);
			snprintf(lst, sizeof(lst), "%s",
				 j ? json_object_to_json_string_ext(
					     j, JSON_C_TO_STRING_PLAIN |
							JSON_C_TO_STRING_NOSLASHESCAPE)
				   : "?");
			json_object_put(j);
			values_of(r, fl, d, cand, vals, sizeof(vals));
			finding_evidence(f, where, "%s %s: %s %s%s",
					 devplugin_field_key(c->plugin, fl), lst,
					 what_of(fl, vfs), vals, hint(fl, &sel->f[fl]));
		}
		if (any)
			continue;
		/* No list alone excludes everything: filter in the plugin's order. */
		bool *left = malloc(d->n * sizeof(*left));
		if (!left)
			return;
		memcpy(left, cand, d->n * sizeof(*left));
		for (int fi = 0; fi <= DP_FIELDS; fi++) {
			size_t n_left = 0, before = 0;
			for (size_t i = 0; i < d->n; i++) {
				if (!left[i])
					continue;
				before++;
				bool ok = fi < DP_FIELDS
						  ? devplugin_field_match(c->plugin, (enum dp_field)fi,
									  &sel->f[fi], d->v[i].pf,
									  d->v[i].vf)
						  : !sel->is_rdma || (d->v[i].vf ? d->v[i].vf->fn.n_rdmas
									      : d->v[i].pf->fn.n_rdmas);
				left[i] = ok;
				n_left += ok;
			}
			if (n_left || !before)
				continue;
			if (fi == DP_FIELDS)
				finding_evidence(f, where,
						 "isRdma true: none of the %zu devices the other "
						 "selectors keep has an RDMA device",
						 before);
			else
				finding_evidence(f, where,
						 "%s leaves none of the %zu devices the lists before "
						 "it keep",
						 devplugin_field_key(c->plugin, (enum dp_field)fi),
						 before);
			break;
		}
		free(left);
	}
}

static bool pf_infiniband(const struct pf *pf)
{
	const struct fn *fn = &pf->fn;
	if (fn->n_rdmas && fn->rdmas[0].n_ports && fn->rdmas[0].ports[0].link_layer)
		return !strcmp(fn->rdmas[0].ports[0].link_layer, "InfiniBand");
	return fn->n_netdevs && fn->netdevs[0].type.known && fn->netdevs[0].type.v == 32;
}

static void add_unique(json_object *a, const char *v)
{
	if (!a || !*v)
		return;
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(a, i)), v))
			return;
	json_object_array_add(a, json_object_new_string(v));
}

static void add_field(json_object *lists[DP_FIELDS], enum dp_plugin p, enum dp_field f,
		      const struct pf *pf, const struct vf *vf)
{
	char v[64];
	add_unique(lists[f], devplugin_value(p, f, pf, vf, v, sizeof(v)));
}

/* The selectors that pick the node's compute devices: for the SR-IOV plugin
 * the bound VFs of the PFs whose port runs InfiniBand, for the RDMA shared
 * plugin those PFs; pfNames and ifNames only when the resource used them. */
static json_object *corrected(const struct node *n, const struct dp_resource *r, size_t *ret_n)
{
	json_object *lists[DP_FIELDS] = {0};
	bool used[DP_FIELDS] = {0};
	for (size_t s = 0; s < r->n_sel; s++)
		for (int f = 0; f < DP_FIELDS; f++)
			used[f] |= r->sel[s].f[f].n > 0;
	used[DP_PF_NAMES] |= used[DP_ROOT_DEVICES];
	const enum dp_field keep[] = {DP_VENDORS,  DP_DEVICES,	 DP_DRIVERS,
				      DP_PF_NAMES, DP_IF_NAMES, DP_LINK_TYPES};
	for (size_t k = 0; k < sizeof(keep) / sizeof(keep[0]); k++)
		if (devplugin_field_key(r->plugin, keep[k]) &&
		    (keep[k] != DP_PF_NAMES || used[DP_PF_NAMES]) &&
		    (keep[k] != DP_IF_NAMES || used[DP_IF_NAMES]))
			lists[keep[k]] = json_object_new_array();
	*ret_n = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		if (!pf_infiniband(pf))
			continue;
		for (size_t j = 0; r->plugin == DP_SRIOV && j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			if (!devplugin_candidate(r->plugin, pf, vf))
				continue;
			for (int f = 0; f < DP_FIELDS; f++)
				if (lists[f] && f != DP_LINK_TYPES)
					add_field(lists, r->plugin, (enum dp_field)f, pf, vf);
			(*ret_n)++;
		}
		if (r->plugin == DP_RDMA_SHARED && devplugin_candidate(r->plugin, pf, NULL)) {
			for (int f = 0; f < DP_FIELDS; f++)
				if (lists[f] && f != DP_LINK_TYPES)
					add_field(lists, r->plugin, (enum dp_field)f, pf, NULL);
			(*ret_n)++;
		}
	}
	add_unique(lists[DP_LINK_TYPES], "infiniband");
	json_object *o = json_object_new_object();
	for (int f = 0; f < DP_FIELDS; f++)
		if (lists[f] && o)
			json_object_object_add(o, devplugin_field_key(r->plugin, (enum dp_field)f),
					       lists[f]);
		else
			json_object_put(lists[f]);
	if (o && r->plugin == DP_SRIOV)
		json_object_object_add(o, "isRdma", json_object_new_boolean(1));
	if (o && r->sel_array) {
		json_object *a = json_object_new_array();
		json_object_array_add(a, o);
		return a;
	}
	return o;
}

/* The DaemonSet of a plugin pod: its name without the pod's own suffix. */
static void daemonset_of(const char *pod, char *buf, size_t size)
{
	const char *dash = strrchr(pod, '-');
	snprintf(buf, size, "%.*s", dash && dash != pod ? (int)(dash - pod) : (int)strlen(pod),
		 pod);
}

static void remedy(struct finding *f, const struct node *n, const struct dp_config *c,
		   const struct dp_resource *r, const char *change)
{
	char label[300], ql[320], where[512], host[128], ds[256], s[5][1024];
	const char *steps[6] = {0};
	size_t k = 0, count;
	devplugin_resource_label(r, label, sizeof(label));
	quoted(label, ql, sizeof(ql));
	clean(c->path, where, sizeof(where));
	clean(n->hostname ? n->hostname : "NODE", host, sizeof(host));
	json_object *sel = corrected(n, r, &count);
	const char *sj = sel ? json_object_to_json_string_ext(sel, JSON_C_TO_STRING_PLAIN |
									   JSON_C_TO_STRING_NOSLASHESCAPE)
			     : "?";
	const char *ns = c->pod_ns ? c->pod_ns : "NAMESPACE";
	if (c->pod_ns && c->pod_name)
		snprintf(s[k], sizeof(s[k]),
			 "kubectl -n %s get pod %s -o jsonpath='{.spec.volumes[?(@.name==\"%s\")]"
			 ".configMap.name}'   # the ConfigMap mounted at %s",
			 c->pod_ns, c->pod_name, c->volume ? c->volume : "", where);
	else if (c->pod_uid)
		snprintf(s[k], sizeof(s[k]),
			 "kubectl get pods -A -o custom-columns=NS:.metadata.namespace,"
			 "NAME:.metadata.name,UID:.metadata.uid | grep %s   # the plugin pod; its "
			 "volume %s is the ConfigMap",
			 c->pod_uid, c->volume ? c->volume : "");
	else
		snprintf(s[k], sizeof(s[k]),
			 "find the ConfigMap %s was taken from (the plugin pod's config volume)",
			 where);
	steps[k] = s[k], k++;
	snprintf(s[k], sizeof(s[k]),
		 "kubectl -n %s edit configmap CONFIGMAP   # in config.json, %s of resource %s: "
		 "\"selectors\": %s",
		 ns, change, ql, sj);
	steps[k] = s[k], k++;
	if (c->pod_name)
		daemonset_of(c->pod_name, ds, sizeof(ds));
	snprintf(s[k], sizeof(s[k]),
		 "kubectl -n %s rollout restart daemonset %s   # the plugin reads its config only "
		 "when it starts",
		 ns, c->pod_name ? ds : "DAEMONSET");
	steps[k] = s[k], k++;
	if (r->plugin == DP_SRIOV) {
		snprintf(s[k], sizeof(s[k]),
			 "if the SR-IOV Network Operator writes this config (ConfigMap "
			 "device-plugin-config), change the nicSelector of the "
			 "SriovNetworkNodePolicy of resource %s instead: the operator rewrites the "
			 "ConfigMap",
			 ql);
		steps[k] = s[k], k++;
	}
	snprintf(s[k], sizeof(s[k]),
		 "kubectl get node %s -o jsonpath='{.status.allocatable}'   # lists %s: %zu", host,
		 label, count);
	steps[k] = s[k], k++;
	char summary[512];
	snprintf(summary, sizeof(summary), "select the node's %zu InfiniBand %s in resource %s",
		 count, r->plugin == DP_SRIOV ? "VFs" : "PFs", ql);
	finding_remedy_manual(f, summary, steps);
	json_object_put(sel);
}

struct dp_run {
	const struct node *n;
	struct devs d;
	bool *cand, *hit, *taken;
};

static int run_init(struct dp_run *x, const struct node *n)
{
	*x = (struct dp_run){.n = n};
	if (devs_build(n, &x->d) < 0)
		return -1;
	size_t m = x->d.n ? x->d.n : 1;
	x->cand = calloc(m, sizeof(bool));
	x->hit = calloc(m, sizeof(bool));
	x->taken = calloc(m, sizeof(bool));
	return x->cand && x->hit && x->taken ? 0 : -1;
}

static void run_fini(struct dp_run *x)
{
	free(x->d.v);
	free(x->cand);
	free(x->hit);
	free(x->taken);
}

/* Marks what r selects; returns how many, and in *ret_free those no
 * resource before it in the file took (the SR-IOV plugin gives a device to
 * the first resource that selects it). */
static size_t run_match(struct dp_run *x, const struct dp_resource *r, size_t *ret_free)
{
	size_t n = 0, avail = 0;
	for (size_t i = 0; i < x->d.n; i++) {
		const struct dev *v = &x->d.v[i];
		x->cand[i] = devplugin_candidate(r->plugin, v->pf, v->vf);
		x->hit[i] = devplugin_match(r, x->n, v->pf, v->vf);
		n += x->hit[i];
		avail += x->hit[i] && !x->taken[i];
	}
	for (size_t i = 0; r->plugin == DP_SRIOV && i < x->d.n; i++)
		x->taken[i] |= x->hit[i];
	if (ret_free)
		*ret_free = avail;
	return n;
}

static const char *where_of(const struct dp_config *c, char *buf, size_t size)
{
	return clean(c->path, buf, size);
}

CHECK_FN(check_dp_selector_empty)
{
	(void)o;
	const struct check_def *def = check_def_of("dp-selector-empty");
	struct dp_run x;
	if (run_init(&x, n) < 0)
		goto out;
	for (size_t ci = 0; ci < n->n_dp_configs; ci++) {
		const struct dp_config *c = &n->dp_configs[ci];
		memset(x.taken, 0, x.d.n * sizeof(bool));
		for (size_t ri = 0; ri < c->n_res; ri++) {
			const struct dp_resource *r = &c->res[ri];
			char label[300], ql[320], where[512];
			size_t avail, sel;
			if (!judged(c, r))
				continue;
			sel = run_match(&x, r, &avail);
			bool req = requested(n, r);
			if (avail || (!req && !r->error && !aimed_here(r, &x.d)))
				continue;
			devplugin_resource_label(r, label, sizeof(label));
			where_of(c, where, sizeof(where));
			struct finding *f =
				check_add(out, def, SUBJECT_NODE, NULL,
					  "%s resource %s in %s selects no device of this node",
					  devplugin_plugin_name(c->plugin),
					  quoted(label, ql, sizeof(ql)), where);
			if (!f)
				goto out;
			if (req)
				f->severity = CHECK_CRITICAL;
			evidence_resource(f, c, r, where);
			if (r->error)
				finding_evidence(f, where, "the plugin skips this resource: %s",
						 clean(r->error, label, sizeof(label)));
			else if (sel)
				finding_evidence(f, where,
						 "the %zu devices it selects are all taken by "
						 "resources listed before it",
						 sel);
			else
				explain(f, c, r, &x.d, x.cand);
			if (req)
				finding_evidence(
					f, "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint",
					"pods on this node request %s", ql);
			remedy(f, n, c, r, "set the selectors");
		}
	}
out:
	run_fini(&x);
}

/* The link layer of a device: its port's, else its netdev's type. */
static const char *link_layer(const struct pf *pf, const struct vf *vf, char *where, size_t size)
{
	const struct fn *fn = vf ? &vf->fn : &pf->fn;
	if (fn->n_rdmas && fn->rdmas[0].n_ports && fn->rdmas[0].ports[0].link_layer) {
		char rel[64];
		snprintf(rel, sizeof(rel), "ports/%u/link_layer", fn->rdmas[0].ports[0].num);
		check_ib_path(where, size, fn->rdmas[0].name, rel);
		return fn->rdmas[0].ports[0].link_layer;
	}
	if (fn->n_netdevs && fn->netdevs[0].type.known) {
		snprintf(where, size, "/sys/class/net/%s/type", fn->netdevs[0].name);
		return fn->netdevs[0].type.v == 32  ? "InfiniBand"
		       : fn->netdevs[0].type.v == 1 ? "Ethernet"
						    : "";
	}
	return "";
}

static void link_type_finding(struct findings *out, const struct dp_run *x,
			      const struct dp_config *c, const struct dp_resource *r, size_t ib,
			      size_t eth, bool by_rdma)
{
	char label[300], ql[320], where[512], w[256];
	devplugin_resource_label(r, label, sizeof(label));
	where_of(c, where, sizeof(where));
	struct finding *f;
	if (by_rdma)
		f = check_add(out, check_def_of("dp-link-type"), SUBJECT_NODE, NULL,
			      "%s resource %s in %s selects functions without an RDMA device "
			      "along with RDMA ones",
			      devplugin_plugin_name(c->plugin), quoted(label, ql, sizeof(ql)),
			      where);
	else
		f = check_add(out, check_def_of("dp-link-type"), SUBJECT_NODE, NULL,
			      "%s resource %s in %s selects %zu Ethernet functions along with %zu "
			      "InfiniBand ones",
			      devplugin_plugin_name(c->plugin), quoted(label, ql, sizeof(ql)),
			      where, eth, ib);
	if (!f)
		return;
	evidence_resource(f, c, r, where);
	size_t shown = 0;
	for (size_t i = 0; i < x->d.n && shown < 5; i++) {
		const struct dev *v = &x->d.v[i];
		if (!x->hit[i])
			continue;
		const struct fn *fn = v->vf ? &v->vf->fn : &v->pf->fn;
		if (by_rdma && !fn->n_rdmas) {
			check_fn_path(w, sizeof(w), fn->bdf, "infiniband");
			finding_evidence(f, w, "absent: %s has no RDMA device", fn->bdf);
			shown++;
		} else if (!by_rdma &&
			   !strcmp(link_layer(v->pf, v->vf, w, sizeof(w)), "Ethernet")) {
			finding_evidence(f, w, "Ethernet (%s)", fn->bdf);
			shown++;
		}
	}
	remedy(f, x->n, c, r, by_rdma ? "add \"isRdma\": true" : "add \"linkTypes\": [\"infiniband\"]");
}

CHECK_FN(check_dp_link_type)
{
	(void)o;
	struct dp_run x;
	if (run_init(&x, n) < 0)
		goto out;
	for (size_t ci = 0; ci < n->n_dp_configs; ci++) {
		const struct dp_config *c = &n->dp_configs[ci];
		for (size_t ri = 0; ri < c->n_res; ri++) {
			const struct dp_resource *r = &c->res[ri];
			char w[256];
			if (!judged(c, r) || !run_match(&x, r, NULL))
				continue;
			size_t ib = 0, eth = 0, rdma = 0, plain = 0;
			bool is_rdma = false;
			for (size_t s = 0; s < r->n_sel; s++)
				is_rdma |= r->sel[s].is_rdma;
			for (size_t i = 0; i < x.d.n; i++) {
				if (!x.hit[i])
					continue;
				const struct dev *v = &x.d.v[i];
				const char *ll = link_layer(v->pf, v->vf, w, sizeof(w));
				ib += !strcmp(ll, "InfiniBand");
				eth += !strcmp(ll, "Ethernet");
				if ((v->vf ? v->vf->fn.n_rdmas : v->pf->fn.n_rdmas) > 0)
					rdma++;
				else
					plain++;
			}
			if (ib && eth)
				link_type_finding(out, &x, c, r, ib, eth, false);
			else if (r->plugin == DP_SRIOV && !is_rdma && rdma && plain)
				link_type_finding(out, &x, c, r, ib, eth, true);
		}
	}
out:
	run_fini(&x);
}

CHECK_FN(check_dp_config_invalid)
{
	(void)o;
	const struct check_def *def = check_def_of("dp-config-invalid");
	for (size_t ci = 0; ci < n->n_dp_configs; ci++) {
		const struct dp_config *c = &n->dp_configs[ci];
		char where[512], why[512], s0[1280], s1[256];
		if (!c->error)
			continue;
		bool req = false;
		for (size_t ri = 0; ri < c->n_res; ri++)
			req |= requested(n, &c->res[ri]);
		where_of(c, where, sizeof(where));
		struct finding *f = check_add(out, def, SUBJECT_NODE, NULL,
					      "%s config %s cannot be used: %s",
					      devplugin_plugin_name(c->plugin), where,
					      clean(c->error, why, sizeof(why)));
		if (!f)
			return;
		if (req)
			f->severity = CHECK_CRITICAL;
		finding_evidence(f, where, "%s", why);
		snprintf(s0, sizeof(s0),
			 "kubectl -n %s edit configmap CONFIGMAP   # the ConfigMap behind %s: %s",
			 c->pod_ns ? c->pod_ns : "NAMESPACE", where, why);
		snprintf(s1, sizeof(s1),
			 "kubectl -n %s rollout restart daemonset DAEMONSET   # the plugin reads its "
			 "config only when it starts",
			 c->pod_ns ? c->pod_ns : "NAMESPACE");
		finding_remedy_manual(f, "correct the config file the plugin refuses",
				      (const char *const[]){s0, s1, NULL});
	}
}
