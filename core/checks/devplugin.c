// SPDX-License-Identifier: MIT
/* Device plugin checks: a resource whose selectors pick none of the node's
 * devices (dp-selector-empty), one that picks functions of both link layers
 * (dp-link-type), and a config the plugin refuses (dp-config-invalid). The
 * selectors are judged by each plugin's own rules (devplugin_match.c); what
 * a finding says is written by checks_dp_say.c. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net/if_arp.h>

#include "devplugin.h"
#include "checks_int.h"
#include "core/pods/devplugin.h"

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
	return dp_clean(c->path, buf, size);
}

CHECK_FN(check_dp_selector_empty)
{
	(void)o;
	const struct check_def *def = check_find("dp-selector-empty");
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
					  dp_quoted(label, ql, sizeof(ql)), where);
			if (!f)
				goto out;
			if (req)
				f->severity = CHECK_CRITICAL;
			dp_evidence_resource(f, c, r, where);
			if (r->error)
				finding_evidence(f, where, "the plugin skips this resource: %s",
						 dp_clean(r->error, label, sizeof(label)));
			else if (sel)
				finding_evidence(f, where,
						 "the %zu devices it selects are all taken by "
						 "resources listed before it",
						 sel);
			else
				dp_explain(f, c, r, &x.d, x.cand);
			if (req)
				finding_evidence(f,
						 "/var/lib/kubelet/device-plugins/"
						 "kubelet_internal_checkpoint",
						 "pods on this node request %s", ql);
			dp_remedy(f, n, c, r, "set the selectors");
		}
	}
out:
	run_fini(&x);
}

/* The link layer of a device: its port's, else its netdev's type. */
static const char *link_layer(const struct pf *pf, const struct vf *vf, char *where, size_t size)
{
	const struct fn *fn = vf ? &vf->fn : &pf->fn;
	const struct port *p = fn_port(fn);
	if (p && p->link_layer) {
		char rel[64];
		snprintf(rel, sizeof(rel), "ports/%u/link_layer", p->num);
		check_ib_path(where, size, fn->rdmas[0].name, rel);
		return p->link_layer;
	}
	if (fn->n_netdevs && fn->netdevs[0].type.known) {
		snprintf(where, size, "/sys/class/net/%s/type", fn->netdevs[0].name);
		return netdev_is_ib(&fn->netdevs[0]) ? link_layer_to_string(LINK_LAYER_INFINIBAND)
		       : fn->netdevs[0].type.v == ARPHRD_ETHER
			       ? link_layer_to_string(LINK_LAYER_ETHERNET)
			       : "";
	}
	return "";
}

/* The topic of a dp-link-type finding: the PF whose functions are all the
 * Ethernet ones selected (an HCA fallen back to Ethernet), "" when they
 * are on more than one PF. */
static void eth_pf_topic(struct finding *f, const struct dp_run *x, bool by_rdma)
{
	char w[256];
	const char *pf = NULL;
	for (size_t i = 0; !by_rdma && i < x->d.n; i++) {
		const struct dev *v = &x->d.v[i];
		if (!x->hit[i] || link_layer_from_string(link_layer(v->pf, v->vf, w, sizeof(w))) !=
					  LINK_LAYER_ETHERNET)
			continue;
		if (pf && strcmp(pf, v->pf->fn.bdf))
			return;
		pf = v->pf->fn.bdf;
	}
	if (pf)
		snprintf(f->topic, sizeof(f->topic), "%s", pf);
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
		f = check_add(out, check_find("dp-link-type"), SUBJECT_NODE, NULL,
			      "%s resource %s in %s selects functions without an RDMA device "
			      "along with RDMA ones",
			      devplugin_plugin_name(c->plugin), dp_quoted(label, ql, sizeof(ql)),
			      where);
	else
		f = check_add(out, check_find("dp-link-type"), SUBJECT_NODE, NULL,
			      "%s resource %s in %s selects %zu Ethernet functions along with %zu "
			      "InfiniBand ones",
			      devplugin_plugin_name(c->plugin), dp_quoted(label, ql, sizeof(ql)),
			      where, eth, ib);
	if (!f)
		return;
	dp_evidence_resource(f, c, r, where);
	eth_pf_topic(f, x, by_rdma);
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
			   link_layer_from_string(link_layer(v->pf, v->vf, w, sizeof(w))) ==
				   LINK_LAYER_ETHERNET) {
			finding_evidence(f, w, "Ethernet (%s)", fn->bdf);
			shown++;
		}
	}
	dp_remedy(f, x->n, c, r,
		  by_rdma ? "add \"isRdma\": true to the selectors"
			  : "add \"linkTypes\": [\"infiniband\"] to the selectors");
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
				ib += link_layer_from_string(ll) == LINK_LAYER_INFINIBAND;
				eth += link_layer_from_string(ll) == LINK_LAYER_ETHERNET;
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
	const struct check_def *def = check_find("dp-config-invalid");
	for (size_t ci = 0; ci < n->n_dp_configs; ci++) {
		const struct dp_config *c = &n->dp_configs[ci];
		char where[512], why[512], s0[1280], s1[256];
		if (!c->error)
			continue;
		bool req = false;
		for (size_t ri = 0; ri < c->n_res; ri++)
			req |= requested(n, &c->res[ri]);
		where_of(c, where, sizeof(where));
		struct finding *f =
			check_add(out, def, SUBJECT_NODE, NULL, "%s config %s cannot be used: %s",
				  devplugin_plugin_name(c->plugin), where,
				  dp_clean(c->error, why, sizeof(why)));
		if (!f)
			return;
		if (req)
			f->severity = CHECK_CRITICAL;
		finding_evidence(f, where, "%s", why);
		snprintf(s0, sizeof(s0),
			 "kubectl -n %s edit configmap CONFIGMAP   # the ConfigMap behind %s: %s",
			 escape_word_or(c->pod_ns, "NAMESPACE"), where, why);
		snprintf(s1, sizeof(s1),
			 "kubectl -n %s rollout restart daemonset DAEMONSET   # the plugin reads "
			 "its "
			 "config only when it starts",
			 escape_word_or(c->pod_ns, "NAMESPACE"));
		finding_remedy_manual(f, "correct the config file the plugin refuses",
				      (const char *const[]){s0, s1, NULL});
	}
}

/* The allocatable devices the kubelet lists for resource r. */
static size_t allocatable_of(const struct podres *api, const struct dp_resource *r)
{
	size_t k = 0;
	for (size_t i = 0; i < api->n_alloc; i++)
		if (devplugin_names(r, api->alloc[i].resource))
			k += api->alloc[i].n_ids;
	return k;
}

static bool allocatable_has(const struct podres *api, const struct dp_resource *r, const char *bdf)
{
	for (size_t i = 0; i < api->n_alloc; i++) {
		const struct podres_devices *d = &api->alloc[i];
		if (!devplugin_names(r, d->resource))
			continue;
		for (size_t k = 0; k < d->n_ids; k++) {
			char b[16];
			if (d->ids[k] && node_bdf_normalize(d->ids[k], false, b) && !strcmp(b, bdf))
				return true;
		}
	}
	return false;
}

/* A VF the SR-IOV plugin's config selects that the kubelet does not list as
 * allocatable (GetAllocatableResources): the plugin did not advertise it
 * (it was not there when the plugin started, its driver was missing) or the
 * plugin never registered the resource at all: then one finding for it. */
CHECK_FN(check_dp_not_allocatable)
{
	(void)o;
	const struct check_def *def = check_find("dp-not-allocatable");
	const struct podres *api = &n->podres;
	struct dp_run x;
	bool *was_taken = NULL;
	if (api->state != PODRES_OK || !api->alloc_known)
		return;
	if (run_init(&x, n) < 0 || !(was_taken = calloc(x.d.n ? x.d.n : 1, sizeof(bool))))
		goto out;
	for (size_t ci = 0; ci < n->n_dp_configs; ci++) {
		const struct dp_config *c = &n->dp_configs[ci];
		/* The RDMA shared plugin's IDs name no function; a file given with
		 * --dp-config is a proposal the kubelet cannot know. */
		if (c->plugin != DP_SRIOV || !c->pod_uid)
			continue;
		memset(x.taken, 0, x.d.n * sizeof(bool));
		for (size_t ri = 0; ri < c->n_res; ri++) {
			const struct dp_resource *r = &c->res[ri];
			char label[300], ql[320], where[512], cmd[600], logs[600];
			if (!judged(c, r) || r->error)
				continue;
			memcpy(was_taken, x.taken, x.d.n * sizeof(bool));
			if (!run_match(&x, r, NULL))
				continue;
			devplugin_resource_label(r, label, sizeof(label));
			dp_quoted(label, ql, sizeof(ql));
			where_of(c, where, sizeof(where));
			snprintf(cmd, sizeof(cmd),
				 "kubectl get node %s -o jsonpath='{.status.allocatable}'",
				 escape_word_or(n->hostname, "<node>"));
			if (escape_safe_word(c->pod_ns) && escape_safe_word(c->pod_name))
				snprintf(logs, sizeof(logs),
					 "kubectl -n %s logs %s --tail=200: the plugin logs each "
					 "device it skips and why",
					 c->pod_ns, c->pod_name);
			else
				snprintf(logs, sizeof(logs),
					 "kubectl -n kube-system logs -l app=sriovdp --tail=200: "
					 "the "
					 "plugin logs each device it skips and why");
			size_t listed = allocatable_of(api, r);
			for (size_t i = 0; i < x.d.n; i++) {
				const struct dev *v = &x.d.v[i];
				if (!x.hit[i] || was_taken[i] || !v->vf)
					continue;
				if (allocatable_has(api, r, v->vf->fn.bdf))
					continue;
				struct finding *f;
				if (!listed)
					f = check_add(out, def, SUBJECT_NODE, NULL,
						      "the kubelet lists no device of %s, which %s "
						      "configures",
						      ql, where);
				else
					f = check_add(out, def, SUBJECT_VF, v->vf->fn.bdf,
						      "VF %s (%s VF %u) is selected by %s but the "
						      "kubelet cannot allocate it",
						      v->vf->fn.bdf, check_pf_label(v->pf),
						      v->vf->index, ql);
				if (!f)
					goto out;
				snprintf(f->topic, sizeof(f->topic), "%.127s", label);
				dp_evidence_resource(f, c, r, where);
				finding_evidence(f, api->socket ? api->socket : PODRES_SOCKET,
						 "GetAllocatableResources: %zu device%s of %s%s",
						 listed, listed == 1 ? "" : "s", ql,
						 listed ? ", not this VF" : "");
				finding_remedy_manual(
					f, "have the device plugin advertise it",
					(const char *const[]){logs,
							      "a VF with no driver, no netdev or "
							      "no RDMA device when "
							      "the plugin started is not "
							      "advertised: fix it, then "
							      "restart the plugin's pod",
							      cmd, NULL});
				if (!listed)
					break;
			}
		}
	}
out:
	free(was_taken);
	run_fini(&x);
}

/* What devplugin_attach() left out (n->dp_skipped): configs in pods that
 * are no plugin's (a tenant's ConfigMap is not read as the plugin's), the
 * plugins' configs or pods beyond ibvf's limits, an allowlist file it
 * refused. Nothing is dropped unsaid. */
CHECK_FN(check_dp_config_skipped)
{
	(void)o;
	const struct dp_skipped *k = &n->dp_skipped;
	if (!k->untrusted && !k->over && !k->pods_over && !k->trust_error[0])
		return;
	char why[300];
	struct finding *f;
	if (k->trust_error[0])
		f = check_add(out, check_find("dp-config-skipped"), SUBJECT_NODE, NULL,
			      "no device plugin config was read from the pods: the allowlist %s is "
			      "refused",
			      DP_TRUST_FILE);
	else {
		char what[200] = "";
		size_t len = 0;
		if (k->untrusted)
			len += (size_t)snprintf(what + len, sizeof(what) - len,
						"%zu in pods that are no plugin's", k->untrusted);
		if (k->over && len < sizeof(what))
			len += (size_t)snprintf(what + len, sizeof(what) - len, "%s%zu beyond %d",
						len ? ", " : "", k->over, DP_CONFIGS_MAX);
		if (k->pods_over && len < sizeof(what))
			snprintf(what + len, sizeof(what) - len,
				 "%s%zu pod%s beyond %d not looked into", len ? ", " : "",
				 k->pods_over, k->pods_over == 1 ? "" : "s", DP_PODS_MAX);
		f = check_add(out, check_find("dp-config-skipped"), SUBJECT_NODE, NULL,
			      "device plugin configs left out: %s", what);
	}
	if (!f)
		return;
	if (k->trust_error[0] || k->over || k->pods_over)
		f->severity = CHECK_WARNING; /* the plugins' own configs may be among them */
	if (k->trust_error[0])
		finding_evidence(f, DP_TRUST_FILE, "%s",
				 dp_clean(k->trust_error, why, sizeof(why)));
	for (size_t i = 0; i < k->n_named; i++)
		finding_evidence(f, "/var/log/pods",
				 "%s: a ConfigMap with a device plugin config, "
				 "not of a plugin's DaemonSet in a plugin's namespace",
				 dp_clean(k->named[i], why, sizeof(why)));
	if (k->over)
		finding_evidence(f, "/var/lib/kubelet/pods", "%zu more of the plugins' configs",
				 k->over);
	if (k->pods_over)
		finding_evidence(f, "/var/lib/kubelet/pods", "%zu more pod directories",
				 k->pods_over);
	finding_remedy_manual(
		f, "judge the plugins' own configs, and only theirs",
		(const char *const[]){
			"a plugin deployed under another namespace or DaemonSet name: list them "
			"in " DP_TRUST_FILE " ([device-plugin] namespaces = ..., daemonsets = ...)",
			"or give the plugin's config itself: ibvf check --dp-config FILE", NULL});
}
