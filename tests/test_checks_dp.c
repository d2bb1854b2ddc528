// SPDX-License-Identifier: MIT
/* The device plugin checks (core/checks/devplugin.c) on simulated nodes: the field
 * report's SR-IOV selectors found with what excludes the VFs and the
 * corrected values, a resource mixing link layers, a refused config, and no
 * finding on the healthy node or for other hardware's resources. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/checks/checks.h"
#include "core/pods/devplugin.h"
#include "core/model/node.h"
#include "core/sys/sys.h"
#include "testutil.h"

struct sim {
	char *dir;
	struct sys *s;
	struct node *n;
	struct findings fs;
};

static void sim_open(struct sim *x, bool healthy)
{
	struct err e = {{0}};
	x->dir = tu_mkfixture(healthy ? (const char *const[]){"--healthy", NULL} : NULL);
	ck_assert_msg(sys_open_sim(x->dir, NULL, &x->s, &e) == 0, "%s", e.msg);
	ck_assert_msg(node_discover(x->s, &x->n, &e) == 0, "%s", e.msg);
	x->fs = (struct findings){0};
}

/* Adds a config file to the node as `--dp-config` does. */
static void sim_add(struct sim *x, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/ibvf-test-dp.json", x->dir);
	tu_write(path, text);
	ck_assert_int_eq(devplugin_read_file(x->s, "/ibvf-test-dp.json", x->n), 0);
}

static void sim_check(struct sim *x)
{
	ck_assert_int_eq(checks_run(x->n, NULL, &x->fs), 0);
}

static void sim_close(struct sim *x)
{
	findings_fini(&x->fs);
	node_free(x->n);
	sys_close(x->s);
	tu_rmtree(x->dir);
}

static size_t count(const struct findings *fs, const char *id)
{
	size_t c = 0;
	for (size_t i = 0; i < fs->n; i++)
		c += !strcmp(fs->v[i].id, id);
	return c;
}

static const struct finding *first(const struct findings *fs, const char *id)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].id, id))
			return &fs->v[i];
	return NULL;
}

static bool has_evidence(const struct finding *f, const char *where_part, const char *value)
{
	for (size_t i = 0; i < f->n_evidence; i++)
		if (strstr(f->evidence[i].where, where_part) && strstr(f->evidence[i].value, value))
			return true;
	return false;
}

static bool has_step(const struct finding *f, const char *part)
{
	for (size_t i = 0; i < f->remedy.n_steps; i++)
		if (strstr(f->remedy.steps[i], part))
			return true;
	return false;
}

START_TEST(field_report_selectors_select_no_vf)
{
	struct sim x;
	sim_open(&x, false);
	sim_check(&x);
	ck_assert_uint_eq(count(&x.fs, "dp-selector-empty"), 1);
	const struct finding *f = first(&x.fs, "dp-selector-empty");
	/* The pods request nvidia.com/ibvf: critical. */
	ck_assert_int_eq(f->severity, CHECK_CRITICAL);
	ck_assert_int_eq(f->kind, SUBJECT_NODE);
	ck_assert_str_eq(f->subject, "");
	ck_assert_msg(strstr(f->title, "\"nvidia.com/ibvf\"") &&
			      strstr(f->title, "config-volume/config.json"),
		      "%s", f->title);
	ck_assert(has_evidence(f, "config-volume/config.json", "\"devices\":[\"101c\"]"));
	ck_assert(has_evidence(f, "config-volume/config.json",
			       "devices [\"101c\"]: the node's VFs are 101e"));
	ck_assert(has_evidence(f, "config-volume/config.json",
			       "pfNames [\"mlx-*\"]: the VFs' PFs are ibp24s0, ibp64s0"));
	ck_assert(has_evidence(f, "config-volume/config.json", "no wildcards"));
	ck_assert(has_evidence(f, "kubelet_internal_checkpoint", "nvidia.com/ibvf"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_MANUAL);
	/* The corrected selectors: the compute VFs of the InfiniBand PFs only
	 * (not mlx5_6's Ethernet fallback). */
	ck_assert(has_step(f, "\"vendors\":[\"15b3\"],\"devices\":[\"101e\"],\"drivers\":"
			      "[\"mlx5_core\"],\"pfNames\":[\"ibp24s0\",\"ibp64s0\",\"ibp79s0\","
			      "\"ibp94s0\",\"ibp192s0\",\"ibp206s0\",\"ibp220s0\"],\"linkTypes\":"
			      "[\"infiniband\"],\"isRdma\":true"));
	ck_assert(has_step(f,
			   "kubectl -n nvidia-network-operator get pod sriov-device-plugin-7wq4z"));
	ck_assert(has_step(f, "rollout restart daemonset sriov-device-plugin "));
	ck_assert(has_step(f, "nvidia.com/ibvf: 55"));
	ck_assert_uint_eq(count(&x.fs, "dp-link-type"), 0);
	ck_assert_uint_eq(count(&x.fs, "dp-config-invalid"), 0);
	sim_close(&x);
}
END_TEST

START_TEST(healthy_node_has_no_device_plugin_finding)
{
	struct sim x;
	sim_open(&x, true);
	ck_assert_uint_eq(x.n->n_dp_configs, 2);
	sim_check(&x);
	for (size_t i = 0; i < x.fs.n; i++)
		ck_assert_msg(strncmp(x.fs.v[i].id, "dp-", 3), "false alarm: %s: %s", x.fs.v[i].id,
			      x.fs.v[i].title);
	sim_close(&x);
}
END_TEST

START_TEST(a_resource_mixing_link_layers_is_found)
{
	struct sim x;
	sim_open(&x, false);
	sim_add(&x, "{\"resourceList\":[{\"resourceName\":\"ibvf_any\",\"selectors\":"
		    "[{\"vendors\":[\"15b3\"],\"devices\":[\"101e\"],\"isRdma\":true}]}]}");
	sim_check(&x);
	ck_assert_uint_eq(count(&x.fs, "dp-link-type"), 1);
	const struct finding *f = first(&x.fs, "dp-link-type");
	ck_assert_int_eq(f->severity, CHECK_WARNING);
	ck_assert_msg(strstr(f->title, "8 Ethernet functions along with 55 InfiniBand"), "%s",
		      f->title);
	ck_assert(has_evidence(f, "/ibvf-test-dp.json", "\"resourceName\":\"ibvf_any\""));
	ck_assert(has_evidence(f, "/ports/1/link_layer", "Ethernet (0000:9a:00.1)"));
	ck_assert(has_step(f, "\"selectors\": [{"));
	ck_assert(has_step(f, "\"linkTypes\":[\"infiniband\"]"));
	/* It selects VFs: not empty. */
	ck_assert_uint_eq(count(&x.fs, "dp-selector-empty"), 1);
	sim_close(&x);
}
END_TEST

START_TEST(other_hardware_and_taken_devices)
{
	struct sim x;
	sim_open(&x, true);
	/* A cluster-wide config's Intel pool is not this node's fault; a second
	 * resource whose VFs the first took advertises nothing. */
	sim_add(&x, "{\"resourceList\":["
		    "{\"resourceName\":\"intel_sriov_netdevice\",\"selectors\":{\"vendors\":"
		    "[\"8086\"],\"devices\":[\"154c\"],\"drivers\":[\"iavf\"]}},"
		    "{\"resourceName\":\"ib_a\",\"resourcePrefix\":\"nvidia.com\",\"selectors\":"
		    "{\"vendors\":[\"15b3\"],\"devices\":[\"101e\"]}},"
		    "{\"resourceName\":\"ib_b\",\"resourcePrefix\":\"nvidia.com\",\"selectors\":"
		    "{\"vendors\":[\"15b3\"],\"pfNames\":[\"ibp24s0#0-3\"]}}]}");
	sim_check(&x);
	ck_assert_uint_eq(count(&x.fs, "dp-selector-empty"), 1);
	const struct finding *f = first(&x.fs, "dp-selector-empty");
	ck_assert_int_eq(f->severity, CHECK_WARNING);
	ck_assert_msg(strstr(f->title, "\"nvidia.com/ib_b\""), "%s", f->title);
	ck_assert(has_evidence(f, "/ibvf-test-dp.json",
			       "the 4 devices it selects are all taken by resources listed "
			       "before it"));
	sim_close(&x);
}
END_TEST

START_TEST(field_report_rdma_shared_config_selects_nothing)
{
	struct sim x;
	sim_open(&x, true);
	/* The field report's rdmaSharedDevicePlugin values, as the Network
	 * Operator renders them into the plugin's config. */
	sim_add(&x, "{\"configList\":[{\"resourceName\":\"dgx_h200_ib\",\"rdmaHcaMax\":63,"
		    "\"selectors\":{\"vendors\":[\"15b3\"],\"deviceIDs\":[\"1017\",\"1018\","
		    "\"101b\",\"101c\"],\"ifNames\":[\"mlx-*\"]}}]}");
	sim_check(&x);
	ck_assert_uint_eq(count(&x.fs, "dp-selector-empty"), 1);
	const struct finding *f = first(&x.fs, "dp-selector-empty");
	ck_assert_int_eq(f->severity, CHECK_WARNING);
	ck_assert_msg(strstr(f->title, "RDMA shared device plugin resource \"rdma/dgx_h200_ib\""),
		      "%s", f->title);
	ck_assert(has_evidence(f, "/ibvf-test-dp.json",
			       "deviceIDs [\"1017\",\"1018\",\"101b\",\"101c\"]: the node's "
			       "functions are 1021, 101e"));
	ck_assert(has_evidence(f, "/ibvf-test-dp.json", "ifNames [\"mlx-*\"]: their netdevs are "));
	ck_assert(has_step(f, "\"deviceIDs\":[\"1021\"]"));
	ck_assert(has_step(f, "\"ifNames\":[\"ibp24s0\""));
	ck_assert(has_step(f, "rdma/dgx_h200_ib: 8"));
	/* The Network Operator renders this config from its NicClusterPolicy:
	 * the remedy says where to change it so the change stays. */
	ck_assert(has_step(f, "the configList of the NicClusterPolicy's "
			      "spec.rdmaSharedDevicePlugin.config"));
	ck_assert(!has_step(f, "SriovNetworkNodePolicy"));
	sim_close(&x);
}
END_TEST

START_TEST(a_config_the_plugin_refuses_is_found)
{
	struct sim x;
	sim_open(&x, true);
	sim_add(&x, "{\"resourceList\":[{\"resourceName\":\"ibvf\",\"resourcePrefix\":"
		    "\"nvidia.com\",\"selectors\":{\"vendors\":[\"15b3\"]}},]}");
	sim_check(&x);
	ck_assert_uint_eq(count(&x.fs, "dp-config-invalid"), 1);
	const struct finding *f = first(&x.fs, "dp-config-invalid");
	ck_assert_msg(strstr(f->title, "/ibvf-test-dp.json cannot be used: not JSON"), "%s",
		      f->title);
	ck_assert(has_evidence(f, "/ibvf-test-dp.json", "not JSON"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_MANUAL);
	findings_fini(&x.fs);
	/* A resource name the plugin rejects, for the resource pods request:
	 * critical; control bytes from the file never reach the title raw. */
	sim_add(&x, "{\"resourceList\":[{\"resourceName\":\"ibvf\",\"resourcePrefix\":"
		    "\"nvidia.com\",\"selectors\":{}},{\"resourceName\":\"bad\\u001b[31m\","
		    "\"selectors\":{}}]}");
	sim_check(&x);
	ck_assert_uint_eq(count(&x.fs, "dp-config-invalid"), 2);
	f = &x.fs.v[0];
	ck_assert_str_eq(f->id, "dp-config-invalid");
	ck_assert_int_eq(f->severity, CHECK_CRITICAL);
	ck_assert_ptr_null(strchr(f->title, '\x1b'));
	ck_assert_msg(strstr(f->title, "resource name \"bad?[31m\" contains invalid characters"),
		      "%s", f->title);
	sim_close(&x);
}
END_TEST

/* The node read again from its tree (after files were planted in it). */
static void sim_reread(struct sim *x)
{
	struct err e = {{0}};
	node_free(x->n);
	ck_assert_msg(node_discover(x->s, &x->n, &e) == 0, "%.1500s", e.msg);
}

static void put(const char *dir, const char *rel, const char *content)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *c = strchr(p + strlen(dir) + 1, '/'); c; c = strchr(c + 1, '/')) {
		*c = '\0';
		mkdir(p, 0755);
		*c = '/';
	}
	tu_write(p, content);
}

/* A tenant's pod with a ConfigMap volume whose config.json looks like the
 * SR-IOV plugin's (a resource that selects nothing), and its log
 * directory. Its UID sorts before the plugins'. */
static void tenant_pod(const char *dir, unsigned i)
{
	char rel[PATH_MAX], uid[64];
	snprintf(uid, sizeof(uid), "00000000-0000-4000-8000-%012u", i);
	snprintf(rel, sizeof(rel),
		 "var/lib/kubelet/pods/%s/volumes/kubernetes.io~configmap/cfg/config.json", uid);
	put(dir, rel,
	    "{\"resourceList\":[{\"resourcePrefix\":\"tenant.example\",\"resourceName\":\"r\","
	    "\"selectors\":{\"vendors\":[\"8086\"]}}]}");
	snprintf(rel, sizeof(rel), "var/log/pods/tenant-a_evil-%u_%s/c/0.log", i, uid);
	put(dir, rel, "");
}

static const struct finding *mentioning(const struct findings *fs, const char *part)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];
		if (strstr(f->title, part))
			return f;
		for (size_t k = 0; k < f->n_evidence; k++)
			if (strstr(f->evidence[k].where, part) ||
			    strstr(f->evidence[k].value, part))
				if (strcmp(f->id, "dp-config-skipped"))
					return f;
		for (size_t k = 0; k < f->remedy.n_steps; k++)
			if (strstr(f->remedy.steps[k], part))
				return f;
	}
	return NULL;
}

/* A tenant's ConfigMap holding a "resourceList" is not the plugin's config:
 * not judged (no dp-selector-empty naming the tenant), but counted and
 * named in dp-config-skipped. */
START_TEST(tenant_configmap_is_not_a_plugin_config)
{
	struct sim x;
	sim_open(&x, true);
	tenant_pod(x.dir, 0);
	sim_reread(&x);
	ck_assert_uint_eq(x.n->n_dp_configs, 2);
	ck_assert_uint_eq(x.n->dp_skipped.untrusted, 1);
	sim_check(&x);
	ck_assert_uint_eq(count(&x.fs, "dp-selector-empty"), 0);
	const struct finding *m = mentioning(&x.fs, "tenant");
	ck_assert_msg(!m, "%.100s: %.1500s", m ? m->id : "", m ? m->title : "");
	const struct finding *f = first(&x.fs, "dp-config-skipped");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_INFO);
	ck_assert_msg(strstr(f->title, "device plugin configs left out: 1 in pods that are no "
				       "plugin's"),
		      "%.1500s", f->title);
	ck_assert(has_evidence(f, "/var/log/pods", "tenant-a/evil-0:"));
	sim_close(&x);
}
END_TEST

/* 40 tenant pods whose UIDs sort first neither fill DP_CONFIGS_MAX nor
 * hide the SR-IOV plugin's own finding; the 40 are counted. */
START_TEST(tenant_pods_do_not_crowd_out_the_plugin)
{
	struct sim x;
	sim_open(&x, false);
	for (unsigned i = 0; i < 40; i++)
		tenant_pod(x.dir, i);
	sim_reread(&x);
	sim_check(&x);
	ck_assert_uint_eq(count(&x.fs, "dp-selector-empty"), 1);
	const struct finding *f = first(&x.fs, "dp-selector-empty");
	ck_assert_msg(strstr(f->title, "\"nvidia.com/ibvf\""), "%.1500s", f->title);
	ck_assert(has_step(f,
			   "kubectl -n nvidia-network-operator get pod sriov-device-plugin-7wq4z"));
	const struct finding *m = mentioning(&x.fs, "tenant");
	ck_assert_msg(!m, "%.100s: %.1500s", m ? m->id : "", m ? m->title : "");
	f = first(&x.fs, "dp-config-skipped");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->title, "device plugin configs left out: 40 in pods"), "%.1500s",
		      f->title);
	sim_close(&x);
}
END_TEST

/* More pod directories than DP_PODS_MAX: the plugins' pods are read first,
 * and the ones not looked into are counted, a warning. */
START_TEST(pods_beyond_the_limit_are_reported)
{
	struct sim x;
	sim_open(&x, false);
	char p[PATH_MAX];
	for (unsigned i = 0; i < DP_PODS_MAX + 5; i++) {
		snprintf(p, sizeof(p), "%s/var/lib/kubelet/pods/00000000-0000-4000-8000-%012u",
			 x.dir, i);
		ck_assert_int_eq(mkdir(p, 0755), 0);
	}
	char **pods;
	size_t n_pods;
	ck_assert_int_eq(sys_list(x.s, "/var/lib/kubelet/pods", &pods, &n_pods), 0);
	sys_list_free(pods, n_pods);
	sim_reread(&x);
	ck_assert_uint_eq(x.n->dp_skipped.pods_over, n_pods - DP_PODS_MAX);
	sim_check(&x);
	ck_assert_uint_eq(count(&x.fs, "dp-selector-empty"), 1);
	const struct finding *f = first(&x.fs, "dp-config-skipped");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_WARNING);
	char want[96];
	snprintf(want, sizeof(want), "%zu pods beyond %d not looked into", n_pods - DP_PODS_MAX,
		 DP_PODS_MAX);
	ck_assert_msg(strstr(f->title, want), "%.1500s", f->title);
	sim_close(&x);
}
END_TEST

/* The allowlist in /etc/ibvf/ibvf.conf replaces the default lists; a file
 * it cannot take trusts no pod and says why (line and name). */
START_TEST(allowlist_file_is_taken_and_a_bad_one_said)
{
	struct sim x;
	sim_open(&x, true);
	put(x.dir, "etc/ibvf/ibvf.conf",
	    "[theme]\nname = x\n[device-plugin]\nnamespaces = nvidia-network-operator\n"
	    "daemonsets = sriov-device-plugin\n");
	sim_reread(&x);
	ck_assert_uint_eq(x.n->n_dp_configs, 1);
	ck_assert_int_eq(x.n->dp_configs[0].plugin, DP_SRIOV);
	ck_assert_uint_eq(x.n->dp_skipped.untrusted, 1);
	ck_assert_str_eq(x.n->dp_skipped.named[0],
			 "nvidia-network-operator/rdma-shared-dp-ds-k2x9m");
	put(x.dir, "etc/ibvf/ibvf.conf", "[device-plugin]\n\nnamespaces = kube-system Bad_NS\n");
	sim_reread(&x);
	ck_assert_uint_eq(x.n->n_dp_configs, 0);
	sim_check(&x);
	const struct finding *f = first(&x.fs, "dp-config-skipped");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_WARNING);
	ck_assert(has_evidence(
		f, "/etc/ibvf/ibvf.conf",
		"/etc/ibvf/ibvf.conf line 3: 'Bad_NS' is no Kubernetes namespace name"));
	sim_close(&x);
}
END_TEST

#define HOSTILE "n1$(reboot);x"

static void hostile(char **s)
{
	if (!*s)
		return;
	free(*s);
	*s = strdup(HOSTILE);
	ck_assert_ptr_nonnull(*s);
}

static void hostile_fn(struct fn *fn)
{
	for (size_t i = 0; i < fn->n_netdevs; i++)
		hostile(&fn->netdevs[i].name);
	for (size_t i = 0; i < fn->n_rdmas; i++)
		hostile(&fn->rdmas[i].name);
}

static void hostile_pod(struct pod_binding *b)
{
	hostile(&b->ns);
	hostile(&b->name);
	hostile(&b->uid);
	hostile(&b->ifname);
	hostile(&b->host_ifname);
}

/* Every remedy builder, with every name from the node hostile (hostname,
 * netdevs, RDMA devices, pods, the plugins' pods and volumes): no
 * copy-paste line carries the name's shell (before a "#" comment, which
 * only shows where a file is). The dp remedy gives the node as NODE. */
START_TEST(no_remedy_pastes_a_hostile_name)
{
	struct sim x;
	sim_open(&x, false);
	struct node *n = x.n;
	free(n->hostname);
	n->hostname = strdup(HOSTILE);
	for (size_t i = 0; i < n->n_pfs; i++) {
		hostile_fn(&n->pfs[i].fn);
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			hostile_fn(&n->pfs[i].vfs[j].fn);
			if (n->pfs[i].vfs[j].pod)
				hostile_pod(n->pfs[i].vfs[j].pod);
		}
	}
	for (size_t i = 0; i < n->n_pods_unplaced; i++)
		hostile_pod(&n->pods_unplaced[i]);
	for (size_t i = 0; i < n->n_dp_configs; i++) {
		hostile(&n->dp_configs[i].pod_ns);
		hostile(&n->dp_configs[i].pod_name);
		hostile(&n->dp_configs[i].pod_uid);
		hostile(&n->dp_configs[i].volume);
	}
	sim_check(&x);
	size_t manual = 0;
	for (size_t i = 0; i < x.fs.n; i++) {
		const struct finding *f = &x.fs.v[i];
		if (f->remedy.kind != REMEDY_MANUAL)
			continue;
		manual++;
		for (size_t k = 0; k < f->remedy.n_steps; k++) {
			const char *st = f->remedy.steps[k];
			const char *hash = strchr(st, '#');
			const char *bad = strstr(st, "$(reboot)");
			ck_assert_msg(!bad || (hash && hash < bad), "%.60s step %zu: %.1500s",
				      f->id, k + 1, st);
		}
	}
	ck_assert_uint_ge(manual, 5);
	const struct finding *f = first(&x.fs, "dp-selector-empty");
	ck_assert_ptr_nonnull(f);
	ck_assert(has_step(f, "kubectl get node NODE -o jsonpath="));
	ck_assert(has_step(f, "kubectl -n NAMESPACE rollout restart daemonset DAEMONSET"));
	f = first(&x.fs, "pod-stale");
	ck_assert_ptr_nonnull(f);
	ck_assert(has_step(f, "grep <pod UID>: check no pod of that UID runs on this node"));
	sim_close(&x);
}
END_TEST

/* A file of the source tree, whole (at most 1 MiB). */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	ck_assert_msg(f != NULL, "cannot read '%.1500s'", path);
	char *buf = malloc(1 << 20);
	ck_assert_ptr_nonnull(buf);
	size_t len = fread(buf, 1, (1 << 20) - 1, f);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* The findings of check id that name the file sim_add() gave. */
static size_t count_added(const struct findings *fs, const char *id)
{
	size_t c = 0;
	for (size_t i = 0; i < fs->n; i++)
		c += !strcmp(fs->v[i].id, id) && strstr(fs->v[i].title, "ibvf-test-dp.json");
	return c;
}

/* What ibvf recommends passes ibvf's own device plugin checks (issue 27),
 * on the node with a port fallen back to Ethernet: the selectors the
 * dp-selector-empty remedy gives, and the RDMA shared plugin resource
 * docs/fleet.md has a site add for the validation Jobs. */
START_TEST(recommended_configs_pass_the_dp_checks)
{
	struct sim x;
	sim_open(&x, false);
	sim_check(&x);
	const struct finding *f = first(&x.fs, "dp-selector-empty");
	ck_assert_ptr_nonnull(f);
	const char *sel = NULL;
	for (size_t k = 0; k < f->remedy.n_steps && !sel; k++)
		if ((sel = strstr(f->remedy.steps[k], "giving \"selectors\": ")))
			sel += strlen("giving \"selectors\": ");
	ck_assert_ptr_nonnull(sel);
	char text[4096];
	snprintf(text, sizeof(text),
		 "{\"resourceList\":[{\"resourcePrefix\":\"nvidia.com\",\"resourceName\":\"ibvf\","
		 "\"selectors\":%s}]}",
		 sel);
	findings_fini(&x.fs);
	x.fs = (struct findings){0};
	sim_add(&x, text);
	sim_check(&x);
	ck_assert_uint_eq(x.n->n_dp_configs, 3);
	ck_assert_msg(count_added(&x.fs, "dp-link-type") == 0 &&
			      count_added(&x.fs, "dp-selector-empty") == 0 &&
			      count_added(&x.fs, "dp-config-invalid") == 0,
		      "%.1500s", text);
	sim_close(&x);

	/* docs/fleet.md's resource, as the site adds it to the configList. */
	char path[PATH_MAX], *doc;
	snprintf(path, sizeof(path), "%s/docs/fleet.md", getenv("IBVF_SRCDIR"));
	doc = read_text(path);
	ck_assert_ptr_nonnull(doc);
	char *b = strstr(doc, "`{\"resourceName\": \"ibvf_validate\""),
	     *e = b ? strstr(b, "}}`") : NULL;
	ck_assert_msg(b && e, "docs/fleet.md gives no ibvf_validate resource");
	snprintf(text, sizeof(text), "{\"configList\":[%.*s]}", (int)(e + 2 - b - 1), b + 1);
	free(doc);
	sim_open(&x, false);
	sim_add(&x, text);
	sim_check(&x);
	ck_assert_msg(count_added(&x.fs, "dp-link-type") == 0 &&
			      count_added(&x.fs, "dp-selector-empty") == 0 &&
			      count_added(&x.fs, "dp-config-invalid") == 0,
		      "%.1500s", text);
	sim_close(&x);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("checks_dp");
	TCase *t = tcase_create("dp");
	tcase_add_test(t, field_report_selectors_select_no_vf);
	tcase_add_test(t, healthy_node_has_no_device_plugin_finding);
	tcase_add_test(t, a_resource_mixing_link_layers_is_found);
	tcase_add_test(t, other_hardware_and_taken_devices);
	tcase_add_test(t, field_report_rdma_shared_config_selects_nothing);
	tcase_add_test(t, a_config_the_plugin_refuses_is_found);
	tcase_add_test(t, tenant_configmap_is_not_a_plugin_config);
	tcase_add_test(t, tenant_pods_do_not_crowd_out_the_plugin);
	tcase_add_test(t, pods_beyond_the_limit_are_reported);
	tcase_add_test(t, allowlist_file_is_taken_and_a_bad_one_said);
	tcase_add_test(t, no_remedy_pastes_a_hostile_name);
	tcase_add_test(t, recommended_configs_pass_the_dp_checks);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
