// SPDX-License-Identifier: MIT
/* What the device plugin findings say (checks_dp.h): the resource as the
 * file writes it, which selector lists exclude the node's VFs and why, and
 * the manual remedy with the selectors that pick the compute VFs. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checks_int.h"
#include "devplugin.h"
#include "core/pods/devplugin.h"

/* A string from a file, as JSON writes it: quoted, control bytes escaped. */
const char *dp_quoted(const char *s, char *buf, size_t size)
{
	json_object *j = json_object_new_string(s ? s : "");
	snprintf(buf, size, "%s",
		 j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_NOSLASHESCAPE) : "\"\"");
	json_object_put(j);
	return buf;
}

/* A path for a title or evidence: bytes below space become '?'. */
const char *dp_clean(const char *s, char *buf, size_t size)
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
	finding_evidence(f, where, "%s%s", prefix,
			 j ? json_object_to_json_string_ext(
				     j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
			   : "?");
	json_object_put(j);
}

void dp_evidence_resource(struct finding *f, const struct dp_config *c, const struct dp_resource *r,
			  const char *where)
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

/* Whether the SR-IOV plugin would list VFs: then its resources are about
 * VFs, and what the node has is told of them. */
static bool vf_candidates(const struct dp_resource *r, const struct devs *d, const bool *cand)
{
	bool vfs = false;
	for (size_t i = 0; r->plugin == DP_SRIOV && i < d->n; i++)
		vfs |= cand[i] && d->v[i].vf;
	return vfs;
}

/* The distinct values of field f among the candidate devices (only VFs
 * when vfs), "a, b, c, ..." into buf. */
static size_t values_of(const struct dp_resource *r, enum dp_field f, const struct devs *d,
			const bool *cand, bool vfs, char *buf, size_t size)
{
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
void dp_explain(struct finding *f, const struct dp_config *c, const struct dp_resource *r,
		const struct devs *d, const bool *cand)
{
	char vals[256], lst[512], where[512];
	dp_clean(c->path, where, sizeof(where));
	bool vfs = vf_candidates(r, d, cand), listed = false;
	for (size_t i = 0; i < d->n; i++)
		listed |= cand[i];
	if (r->plugin == DP_SRIOV ? !vfs : !listed) {
		finding_evidence(f, where, "the node has no %s it could list",
				 c->plugin == DP_SRIOV
					 ? "VF with a driver"
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
			values_of(r, fl, d, cand, vfs, vals, sizeof(vals));
			finding_evidence(f, where, "%s %s: %s %s%s",
					 devplugin_field_key(c->plugin, fl), lst, what_of(fl, vfs),
					 vals, hint(fl, &sel->f[fl]));
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
						  ? devplugin_field_match(
							    c->plugin, (enum dp_field)fi,
							    &sel->f[fi], d->v[i].pf, d->v[i].vf)
						  : !sel->is_rdma ||
							    (d->v[i].vf ? d->v[i].vf->fn.n_rdmas
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
				finding_evidence(
					f, where,
					"%s leaves none of the %zu devices the lists before "
					"it keep",
					devplugin_field_key(c->plugin, (enum dp_field)fi), before);
			break;
		}
		free(left);
	}
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
	const enum dp_field keep[] = {DP_VENDORS,  DP_DEVICES,	DP_DRIVERS,
				      DP_PF_NAMES, DP_IF_NAMES, DP_LINK_TYPES};
	for (size_t k = 0; k < sizeof(keep) / sizeof(keep[0]); k++)
		if (devplugin_field_key(r->plugin, keep[k]) &&
		    (keep[k] != DP_PF_NAMES || used[DP_PF_NAMES]) &&
		    (keep[k] != DP_IF_NAMES || used[DP_IF_NAMES]))
			lists[keep[k]] = json_object_new_array();
	*ret_n = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		if (!check_fn_ib(&pf->fn))
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

void dp_remedy(struct finding *f, const struct node *n, const struct dp_config *c,
	       const struct dp_resource *r, const char *change)
{
	char label[300], ql[320], where[512], host[128], ds[256], s[5][1024];
	const char *steps[6] = {0};
	size_t k = 0, count;
	devplugin_resource_label(r, label, sizeof(label));
	dp_quoted(label, ql, sizeof(ql));
	dp_clean(c->path, where, sizeof(where));
	snprintf(host, sizeof(host), "%s", escape_word_or(n->hostname, "NODE"));
	json_object *sel = corrected(n, r, &count);
	const char *sj = sel ? json_object_to_json_string_ext(
				       sel, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
			     : "?";
	/* Every name from the node through the one rule (escape.h). */
	const char *ns = escape_word_or(c->pod_ns, "NAMESPACE");
	const char *pod = escape_word_or(c->pod_name, NULL);
	const char *vol = escape_word_or(c->volume, "VOLUME");
	if (escape_safe_word(c->pod_ns) && pod)
		snprintf(s[k], sizeof(s[k]),
			 "kubectl -n %s get pod %s -o jsonpath='{.spec.volumes[?(@.name==\"%s\")]"
			 ".configMap.name}'   # the ConfigMap mounted at %s",
			 ns, pod, vol, where);
	else if (c->pod_uid)
		snprintf(s[k], sizeof(s[k]),
			 "kubectl get pods -A -o custom-columns=NS:.metadata.namespace,"
			 "NAME:.metadata.name,UID:.metadata.uid | grep %s   # the plugin pod; its "
			 "volume %s is the ConfigMap",
			 escape_word_or(c->pod_uid, "POD_UID"), vol);
	else
		snprintf(s[k], sizeof(s[k]),
			 "find the ConfigMap %s was taken from (the plugin pod's config volume)",
			 where);
	steps[k] = s[k], k++;
	snprintf(s[k], sizeof(s[k]),
		 "kubectl -n %s edit configmap CONFIGMAP   # in config.json, %s of resource %s, "
		 "giving \"selectors\": %s",
		 ns, change, ql, sj);
	steps[k] = s[k], k++;
	if (pod)
		daemonset_of(pod, ds, sizeof(ds));
	snprintf(s[k], sizeof(s[k]),
		 "kubectl -n %s rollout restart daemonset %s   # the plugin reads its config only "
		 "when it starts",
		 ns, pod ? ds : "DAEMONSET");
	steps[k] = s[k], k++;
	if (r->plugin == DP_SRIOV) {
		snprintf(s[k], sizeof(s[k]),
			 "if the SR-IOV Network Operator writes this config (ConfigMap "
			 "device-plugin-config), change the nicSelector of the "
			 "SriovNetworkNodePolicy of resource %s instead: the operator rewrites the "
			 "ConfigMap",
			 ql);
		steps[k] = s[k], k++;
	} else if (r->plugin == DP_RDMA_SHARED) {
		snprintf(
			s[k], sizeof(s[k]),
			"if the NVIDIA Network Operator deploys this plugin, change resource %s in "
			"the configList of the NicClusterPolicy's "
			"spec.rdmaSharedDevicePlugin.config "
			"instead (kubectl edit nicclusterpolicy nic-cluster-policy): the operator "
			"rewrites the ConfigMap",
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
