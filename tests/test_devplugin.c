// SPDX-License-Identifier: MIT
/* Device plugin configs (core/devplugin*.c): the plugins' own example
 * configs parsed as the plugins read them, files found in the kubelet's pod
 * volumes as kubelet lays them out (and nothing outside them), and each
 * plugin's selector rules against simulated nodes. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/pods/devplugin.h"
#include "core/model/node.h"
#include "core/sys/sys.h"
#include "testutil.h"

/* The SR-IOV network device plugin's README example (selectors as lists). */
static const char readme_example[] =
	"{\"resourceList\": [{\"resourceName\": \"intel_sriov_netdevice\",\n"
	"  \"selectors\": [{\"vendors\": [\"8086\"], \"devices\": [\"154c\", \"10ed\", \"1889\"],\n"
	"                 \"drivers\": [\"i40evf\", \"ixgbevf\", \"iavf\"]}]},\n"
	" {\"resourceName\": \"intel_sriov_dpdk\", \"resourcePrefix\": \"intel.com\",\n"
	"  \"selectors\": [{\"vendors\": [\"8086\"], \"devices\": [\"154c\", \"10ed\", \"1889\"],\n"
	"                 \"drivers\": [\"vfio-pci\"], \"pfNames\": [\"enp0s0f0\",\"enp2s2f1\"],\n"
	"                 \"needVhostNet\": true}]},\n"
	" {\"resourceName\": \"mlnx_sriov_rdma\", \"resourcePrefix\": \"mellanox.com\",\n"
	"  \"selectors\": [{\"vendors\": [\"15b3\"], \"devices\": [\"1018\"], \"drivers\": "
	"[\"mlx5_ib\"], \"isRdma\": true}]},\n"
	" {\"resourceName\": \"infiniband_rdma_netdevs\",\n"
	"  \"selectors\": [{\"linkTypes\": [\"infiniband\"], \"isRdma\": true}]},\n"
	" {\"resourceName\": \"ct6dx_vdpa_vhost\", \"selectors\": [{\"vendors\": [\"15b3\"],\n"
	"  \"devices\": [\"101e\"], \"drivers\": [\"mlx5_core\"], \"vdpaType\": \"vhost\"}]},\n"
	" {\"resourceName\": \"intel_fpga\", \"deviceType\": \"accelerator\",\n"
	"  \"selectors\": [{\"vendors\": [\"8086\"], \"devices\": [\"0d90\"]}]},\n"
	" {\"resourceName\": \"bf2_sf\", \"resourcePrefix\": \"nvidia.com\", \"deviceType\": "
	"\"auxNetDevice\",\n"
	"  \"selectors\": [{\"vendors\": [\"15b3\"], \"devices\": [\"a2d6\"], \"pfNames\": "
	"[\"p0#1-5\"], \"auxTypes\": [\"sf\"]}]}]}\n";

/* Its deployments/configMap.yaml: the older form, one selector object. */
static const char configmap_example[] = "{\n    \"resourceList\": [{\n"
					"            \"resourceName\": \"mlnx_sriov_rdma\",\n"
					"            \"selectors\": {\n"
					"                \"vendors\": [\"15b3\"],\n"
					"                \"devices\": [\"1018\"],\n"
					"                \"drivers\": [\"mlx5_ib\"],\n"
					"                \"isRdma\": true\n"
					"            }\n"
					"        }\n    ]\n}\n";

/* The RDMA shared device plugin's deployment ConfigMap: both forms. */
static const char rdma_example[] = "{\n  \"periodicUpdateInterval\": 300,\n  \"configList\": [{\n"
				   "       \"resourceName\": \"hca_shared_devices_a\",\n"
				   "       \"rdmaHcaMax\": 1000,\n"
				   "       \"devices\": [\"ib0\", \"ib1\"]\n"
				   "     },\n     {\n"
				   "       \"resourceName\": \"hca_shared_devices_b\",\n"
				   "       \"rdmaHcaMax\": 500,\n"
				   "       \"selectors\": {\n"
				   "         \"vendors\": [\"15b3\"],\n"
				   "         \"deviceIDs\": [\"1017\"],\n"
				   "         \"ifNames\": [\"ib3\", \"ib4\"]\n"
				   "       }\n     }\n  ]\n}\n";

static struct dp_config parse_ok(const char *text)
{
	struct dp_config c;
	ck_assert_int_eq(devplugin_parse(text, strlen(text), "/x/config.json", &c), 0);
	return c;
}

START_TEST(sriov_readme_example_parses_as_the_plugin_reads_it)
{
	struct dp_config c = parse_ok(readme_example);
	ck_assert_int_eq(c.plugin, DP_SRIOV);
	ck_assert_ptr_null(c.error);
	ck_assert_uint_eq(c.n_res, 7);
	ck_assert_str_eq(c.res[0].name, "intel_sriov_netdevice");
	ck_assert_ptr_null(c.res[0].prefix);
	ck_assert_str_eq(c.res[0].device_type, "netDevice");
	ck_assert(c.res[0].sel_array);
	ck_assert_uint_eq(c.res[0].n_sel, 1);
	ck_assert_uint_eq(c.res[0].sel[0].f[DP_DEVICES].n, 3);
	ck_assert_str_eq(c.res[0].sel[0].f[DP_DEVICES].v[2], "1889");
	ck_assert_str_eq(c.res[1].prefix, "intel.com");
	ck_assert(c.res[1].sel[0].need_vhost_net);
	ck_assert_str_eq(c.res[1].sel[0].f[DP_PF_NAMES].v[1], "enp2s2f1");
	ck_assert(c.res[2].sel[0].is_rdma);
	ck_assert_str_eq(c.res[3].sel[0].f[DP_LINK_TYPES].v[0], "infiniband");
	ck_assert_str_eq(c.res[4].sel[0].unjudged, "vdpaType");
	ck_assert_str_eq(c.res[5].device_type, "accelerator");
	ck_assert_str_eq(c.res[6].sel[0].unjudged, "auxTypes");
	char label[128];
	devplugin_resource_label(&c.res[2], label, sizeof(label));
	ck_assert_str_eq(label, "mellanox.com/mlnx_sriov_rdma");
	ck_assert(devplugin_names(&c.res[2], "mellanox.com/mlnx_sriov_rdma"));
	ck_assert(!devplugin_names(&c.res[2], "intel.com/mlnx_sriov_rdma"));
	/* No prefix in the file: the plugin's --resource-prefix, any. */
	ck_assert(devplugin_names(&c.res[0], "openshift.io/intel_sriov_netdevice"));
	dp_config_fini(&c);

	c = parse_ok(configmap_example);
	ck_assert_uint_eq(c.n_res, 1);
	ck_assert(!c.res[0].sel_array);
	ck_assert_str_eq(c.res[0].sel[0].f[DP_DRIVERS].v[0], "mlx5_ib");
	dp_config_fini(&c);
}
END_TEST

START_TEST(keys_match_without_regard_to_case_as_go_does)
{
	/* The operator's own config-file docs write IsRdma, NeedVhostNet. */
	struct dp_config c = parse_ok(
		"{\"resourceList\":[{\"resourceName\":\"sriovnics\",\"selectors\":{\"pfNames\":"
		"[\"ens785f0#0-4\",\"ens785f1#0-9\"],\"IsRdma\":true,\"NeedVhostNet\":false},"
		"\"SelectorObj\":null}]}");
	ck_assert_ptr_null(c.error);
	ck_assert(c.res[0].sel[0].is_rdma);
	ck_assert_uint_eq(c.res[0].sel[0].f[DP_PF_NAMES].n, 2);
	dp_config_fini(&c);
}
END_TEST

START_TEST(rdma_shared_example_both_forms)
{
	struct dp_config c = parse_ok(rdma_example);
	ck_assert_int_eq(c.plugin, DP_RDMA_SHARED);
	ck_assert_ptr_null(c.error);
	ck_assert_uint_eq(c.n_res, 2);
	/* The older "devices" list is the ifNames selector. */
	ck_assert_uint_eq(c.res[0].sel[0].f[DP_IF_NAMES].n, 2);
	ck_assert_str_eq(c.res[0].sel[0].f[DP_IF_NAMES].v[1], "ib1");
	ck_assert_int_eq(c.res[0].rdma_hca_max, 1000);
	ck_assert_str_eq(c.res[1].sel[0].f[DP_DEVICES].v[0], "1017");
	ck_assert_str_eq(c.res[1].sel[0].f[DP_IF_NAMES].v[0], "ib3");
	char label[128];
	devplugin_resource_label(&c.res[1], label, sizeof(label));
	ck_assert_str_eq(label, "rdma/hca_shared_devices_b");
	ck_assert_str_eq(devplugin_field_key(DP_RDMA_SHARED, DP_DEVICES), "deviceIDs");
	dp_config_fini(&c);
}
END_TEST

static const char *error_of(const char *text)
{
	static char buf[512];
	struct dp_config c = parse_ok(text);
	const char *e = c.error;
	for (size_t i = 0; !e && i < c.n_res; i++)
		e = c.res[i].error;
	snprintf(buf, sizeof(buf), "%s", e ? e : "(none)");
	dp_config_fini(&c);
	return buf;
}

START_TEST(what_the_plugins_refuse_is_said)
{
	ck_assert_str_eq(error_of("{\"resourceList\":[{\"resourceName\":\"a\",\"selectors\":"
				  "{\"vendors\":\"15b3\"}}]}"),
			 "resourceList[0].selectors.vendors is not a list of strings");
	ck_assert_str_eq(
		error_of("{\"resourceList\":[{\"resourceName\":\"a b\",\"selectors\":{}}]}"),
		"resource name \"a b\" contains invalid characters");
	ck_assert_str_eq(error_of("{\"resourceList\":[{\"resourceName\":\"a\",\"deviceType\":"
				  "\"gpu\",\"selectors\":{}}]}"),
			 "unsupported deviceType: \"gpu\"");
	ck_assert_str_eq(error_of("{\"resourceList\":[{\"resourceName\":\"a\",\"selectors\":[]}]}"),
			 "resourceList[0].selectors is an empty list");
	ck_assert_str_eq(error_of("{\"resourceList\":[{\"resourceName\":\"a\",\"selectors\":{}},"
				  "{\"resourceName\":\"a\",\"selectors\":{}}]}"),
			 "resource name \"a\" already exists");
	/* The RDMA plugin: dashes are not allowed; both forms at once refused. */
	ck_assert_str_eq(
		error_of("{\"configList\":[{\"resourceName\":\"a-b\",\"devices\":[\"ib0\"]}]}"),
		"resource name \"a-b\" contains invalid characters");
	ck_assert_str_eq(error_of("{\"configList\":[{\"resourceName\":\"a\",\"devices\":[\"ib0\"],"
				  "\"selectors\":{\"vendors\":[\"15b3\"]}}]}"),
			 "configList[0]: both \"selectors\" and \"devices\"");
	ck_assert_str_eq(error_of("{\"configList\":[]}"), "no resources configuration found");
	ck_assert_str_eq(error_of("{\"configList\":[{\"resourceName\":\"a\",\"rdmaHcaMax\":-1,"
				  "\"devices\":[\"ib0\"]}]}"),
			 "Invalid value for rdmaHcaMax < 0: -1");
	/* Broken JSON naming a plugin's list is a broken config, with where. */
	const char *e = error_of("{\"resourceList\": [{\"resourceName\": \"ibvf\",");
	ck_assert_msg(strstr(e, "not JSON: the file ends in the middle"), "%s", e);
	e = error_of("{\"resourceList\": [] } trailing");
	ck_assert_msg(strstr(e, "not JSON"), "%s", e);
}
END_TEST

START_TEST(other_files_are_no_config)
{
	struct dp_config c;
	const char *texts[] = {"{\"apiVersion\":\"v1\",\"kind\":\"Config\"}", "[1,2,3]",
			       "plain text", "", "{\"cniVersion\":\"0.4.0\""};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		ck_assert_int_eq(devplugin_parse(texts[i], strlen(texts[i]), "/x", &c), -ENOMSG);
	/* Deeper than the parser's bound: refused, not recursed into. */
	char deep[512] = "{\"resourceList\":";
	for (int i = 0; i < 40; i++)
		strcat(deep, "[");
	for (int i = 0; i < 40; i++)
		strcat(deep, "]");
	strcat(deep, "}");
	ck_assert_int_eq(devplugin_parse(deep, strlen(deep), "/x", &c), 0);
	ck_assert_ptr_nonnull(c.error);
	dp_config_fini(&c);
}
END_TEST

/* A file tree standing in for a node's root. */
static char *mkroot(void)
{
	char tmpl[] = "/tmp/ibvf-dp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	char *d = strdup(tmpl);
	ck_assert_ptr_nonnull(d);
	return d;
}

static void mkparents(const char *path)
{
	char p[PATH_MAX + 256];
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
}

static void put(const char *root, const char *rel, const char *content)
{
	char p[PATH_MAX + 256];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	mkparents(p);
	tu_write(p, content);
}

static void lnk(const char *root, const char *rel, const char *target)
{
	char p[PATH_MAX + 256];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	mkparents(p);
	ck_assert_int_eq(symlink(target, p), 0);
}

#define VOLS "var/lib/kubelet/pods/%s/volumes/kubernetes.io~configmap/%s"

/* A ConfigMap volume as kubelet writes it: the file in a timestamped
 * directory, ..data pointing there, config.json pointing through ..data. */
static void configmap(const char *root, const char *uid, const char *vol, const char *text)
{
	char rel[PATH_MAX];
	snprintf(rel, sizeof(rel), VOLS "/..2026_01_01_00_00_00.1/config.json", uid, vol);
	put(root, rel, text);
	snprintf(rel, sizeof(rel), VOLS "/..data", uid, vol);
	lnk(root, rel, "..2026_01_01_00_00_00.1");
	snprintf(rel, sizeof(rel), VOLS "/config.json", uid, vol);
	lnk(root, rel, "..data/config.json");
}

/* The log directory that makes pod uid one of the SR-IOV plugin's
 * (kube-system, DaemonSet sriov-device-plugin): only those pods' configs
 * are read. */
static void plugin_pod(const char *root, const char *uid)
{
	char rel[PATH_MAX], sfx[64];
	size_t k = 0;
	for (const char *c = uid; *c && k < sizeof(sfx) - 1; c++)
		if (*c != '-')
			sfx[k++] = *c;
	sfx[k] = '\0';
	snprintf(rel, sizeof(rel), "var/log/pods/kube-system_sriov-device-plugin-%s_%s/c/0.log",
		 sfx, uid);
	put(root, rel, "");
}

static struct node *read_root(const char *root)
{
	struct sys *s;
	struct err e = {{0}};
	ck_assert_msg(sys_open_linux(root, &s, &e) == 0, "%s", e.msg);
	struct node *n = calloc(1, sizeof(*n));
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(devplugin_attach(s, n), 0);
	sys_close(s);
	return n;
}

START_TEST(configmap_volumes_are_read_through_data_links)
{
	char *root = mkroot();
	configmap(root, "11111111-2222-4333-8444-555555555555", "config-volume", configmap_example);
	configmap(root, "66666666-7777-4888-9999-000000000000", "config", rdma_example);
	/* Another pod's ConfigMap that is no plugin's config. */
	configmap(root, "aaaaaaaa-7777-4888-9999-000000000000", "app", "{\"log\":\"debug\"}");
	/* A plugin's config in a pod kubelet names nowhere: no plugin's pod. */
	configmap(root, "bbbbbbbb-7777-4888-9999-000000000000", "cfg", rdma_example);
	put(root,
	    "var/log/pods/kube-system_sriov-device-plugin-abcde_11111111-2222-4333-8444-"
	    "555555555555/c/0.log",
	    "");
	put(root,
	    "var/log/pods/network-operator_rdma-shared-dp-ds-x1y2z_66666666-7777-4888-9999-"
	    "000000000000/c/0.log",
	    "");
	plugin_pod(root, "aaaaaaaa-7777-4888-9999-000000000000");
	struct node *n = read_root(root);
	ck_assert_uint_eq(n->n_dp_configs, 2);
	ck_assert_uint_eq(n->dp_skipped.untrusted, 1);
	ck_assert_str_eq(n->dp_skipped.named[0], "pod UID bbbbbbbb-7777-4888-9999-000000000000");
	const struct dp_config *c = &n->dp_configs[0];
	ck_assert_str_eq(c->path, "/var/lib/kubelet/pods/11111111-2222-4333-8444-555555555555/"
				  "volumes/kubernetes.io~configmap/config-volume/config.json");
	ck_assert_int_eq(c->plugin, DP_SRIOV);
	ck_assert_str_eq(c->volume, "config-volume");
	ck_assert_str_eq(c->pod_ns, "kube-system");
	ck_assert_str_eq(c->pod_name, "sriov-device-plugin-abcde");
	ck_assert_int_eq(n->dp_configs[1].plugin, DP_RDMA_SHARED);
	ck_assert_str_eq(n->dp_configs[1].pod_name, "rdma-shared-dp-ds-x1y2z");
	node_free(n);
	tu_rmtree(root);
}
END_TEST

START_TEST(links_that_leave_the_volume_are_not_followed)
{
	char *root = mkroot();
	char rel[PATH_MAX], outside[PATH_MAX];
	/* A valid config outside the root, and outside the volume. */
	snprintf(outside, sizeof(outside), "%s-outside.json", root);
	tu_write(outside, configmap_example);
	put(root, "etc/pcidp/config.json", configmap_example);
	snprintf(rel, sizeof(rel), VOLS "/config.json", "u1", "abs");
	lnk(root, rel, outside); /* absolute: would leave the root */
	snprintf(rel, sizeof(rel), VOLS "/config.json", "u2", "up");
	lnk(root, rel, "../../../../../../../etc/pcidp/config.json");
	snprintf(rel, sizeof(rel), VOLS "/..data", "u3", "data");
	lnk(root, rel, "../../../../../../../etc/pcidp");
	snprintf(rel, sizeof(rel), VOLS "/config.json", "u3", "data");
	lnk(root, rel, "..data/config.json");
	/* A loop ends. */
	snprintf(rel, sizeof(rel), VOLS "/config.json", "u4", "loop");
	lnk(root, rel, "..data/config.json");
	snprintf(rel, sizeof(rel), VOLS "/..data", "u4", "loop");
	lnk(root, rel, "..data");
	for (const char *const *u = (const char *const[]){"u1", "u2", "u3", "u4", NULL}; *u; u++)
		plugin_pod(root, *u);
	struct node *n = read_root(root);
	ck_assert_uint_eq(n->n_dp_configs, 0);
	node_free(n);
	unlink(outside);
	tu_rmtree(root);
}
END_TEST

START_TEST(sizes_and_counts_are_bounded)
{
	char *root = mkroot();
	size_t big = DP_FILE_MAX + 2;
	char *text = malloc(big + 1);
	ck_assert_ptr_nonnull(text);
	memset(text, ' ', big);
	memcpy(text, "{\"resourceList\":[]}", 19);
	text[big] = '\0';
	configmap(root, "u1", "big", text);
	put(root, "big.json", text);
	free(text);
	/* The same ConfigMap in two pods counts once. */
	configmap(root, "u2", "cfg", configmap_example);
	configmap(root, "u3", "cfg", configmap_example);
	for (const char *const *u = (const char *const[]){"u1", "u2", "u3", NULL}; *u; u++)
		plugin_pod(root, *u);
	struct node *n = read_root(root);
	ck_assert_uint_eq(n->n_dp_configs, 1);
	struct sys *s;
	struct err e = {{0}};
	ck_assert_int_eq(sys_open_linux(root, &s, &e), 0);
	ck_assert_int_eq(devplugin_read_file(s, "/big.json", n), -EFBIG);
	ck_assert_int_eq(devplugin_read_file(s, "/nonexistent.json", n), -ENOENT);
	/* An explicit file is kept whatever it holds, with the reason. */
	put(root, "notes.txt", "hello");
	ck_assert_int_eq(devplugin_read_file(s, "/notes.txt", n), 0);
	ck_assert_uint_eq(n->n_dp_configs, 2);
	ck_assert_ptr_nonnull(strstr(n->dp_configs[1].error, "neither plugin's config"));
	/* The operator's files have their own DP_CONFIGS_MAX: the pods'
	 * configs do not crowd them out. */
	for (int i = 0; i < DP_CONFIGS_MAX - 1; i++)
		ck_assert_int_eq(devplugin_read_file(s, "/notes.txt", n), 0);
	ck_assert_int_eq(devplugin_read_file(s, "/notes.txt", n), -ENOSPC);
	ck_assert_uint_eq(n->n_dp_configs, 1 + DP_CONFIGS_MAX);
	sys_close(s);
	node_free(n);
	tu_rmtree(root);
}
END_TEST

/* Matching, against the simulated DGX. */
static struct node *sim_node(const char *dir, struct sys **ret)
{
	struct err e = {{0}};
	ck_assert_msg(sys_open_sim(dir, NULL, ret, &e) == 0, "%s", e.msg);
	struct node *n;
	ck_assert_msg(node_discover(*ret, &n, &e) == 0, "%s", e.msg);
	return n;
}

/* How many functions (VFs, and PFs when pfs) the selector text selects. */
static size_t selected(const struct node *n, const char *text, bool pfs)
{
	struct dp_config c = parse_ok(text);
	ck_assert_msg(!c.error && !c.res[0].error, "%s", c.error ? c.error : c.res[0].error);
	size_t k = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		k += pfs && devplugin_match(&c.res[0], n, pf, NULL);
		for (size_t j = 0; j < pf->n_vfs; j++)
			k += devplugin_match(&c.res[0], n, pf, &pf->vfs[j]);
	}
	dp_config_fini(&c);
	return k;
}

#define SRIOV(sel) "{\"resourceList\":[{\"resourceName\":\"r\",\"selectors\":" sel "}]}"
#define RDMA(sel)  "{\"configList\":[{\"resourceName\":\"r\",\"selectors\":" sel "}]}"

START_TEST(sriov_selectors_follow_the_plugin)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", NULL});
	struct sys *s;
	struct node *n = sim_node(dir, &s);
	ck_assert_uint_eq(selected(n, SRIOV("{\"devices\":[\"101e\"]}"), false), 64);
	/* ids as ghw gives them: lowercase, without 0x. */
	ck_assert_uint_eq(selected(n, SRIOV("{\"devices\":[\"0x101e\"]}"), false), 0);
	ck_assert_uint_eq(selected(n, SRIOV("{\"devices\":[\"101E\"]}"), false), 0);
	ck_assert_uint_eq(selected(n,
				   SRIOV("{\"vendors\":[\"15b3\"],\"drivers\":[\"mlx5_core\"],"
					 "\"linkTypes\":[\"infiniband\"],\"isRdma\":true}"),
				   false),
			  64);
	ck_assert_uint_eq(selected(n, SRIOV("{\"linkTypes\":[\"ib\"]}"), false), 0);
	/* pfNames: whole names, any case, "#" ranges of VF indexes. */
	ck_assert_uint_eq(selected(n, SRIOV("{\"pfNames\":[\"ibp24s0\"]}"), false), 8);
	ck_assert_uint_eq(selected(n, SRIOV("{\"pfNames\":[\"IBP24S0\"]}"), false), 8);
	ck_assert_uint_eq(selected(n, SRIOV("{\"pfNames\":[\"ibp*\"]}"), false), 0);
	ck_assert_uint_eq(selected(n, SRIOV("{\"pfNames\":[\"ibp24s0#0-3,5\"]}"), false), 5);
	ck_assert_uint_eq(
		selected(n, SRIOV("{\"pfNames\":[\"ibp24s0#0-3,5\",\"ibp64s0#7\"]}"), false), 6);
	/* A malformed range selects nothing from that PF, as in the plugin. */
	ck_assert_uint_eq(selected(n, SRIOV("{\"pfNames\":[\"ibp24s0#a-3\"]}"), false), 0);
	ck_assert_uint_eq(selected(n, SRIOV("{\"pfNames\":[\"ibp24s0#1-2-3\"]}"), false), 0);
	/* rootDevices: the PF's full PCI address. */
	ck_assert_uint_eq(selected(n, SRIOV("{\"rootDevices\":[\"0000:18:00.0#1\"]}"), false), 1);
	ck_assert_uint_eq(selected(n, SRIOV("{\"rootDevices\":[\"18:00.0\"]}"), false), 0);
	ck_assert_uint_eq(selected(n, SRIOV("{\"pciAddresses\":[\"0000:18:00.1\"]}"), false), 1);
	/* A selector list: any object selects. */
	ck_assert_uint_eq(selected(n,
				   SRIOV("[{\"pfNames\":[\"ibp24s0\"]},{\"pfNames\":"
					 "[\"ibp64s0#0\"]}]"),
				   false),
			  9);
	/* PFs with VFs are not listed; those without (storage) are. */
	ck_assert_uint_eq(selected(n, SRIOV("{\"devices\":[\"1021\"]}"), true), 4);
	node_free(n);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(link_types_read_the_netdev_and_the_pf_for_vfs_in_pods)
{
	char *dir = tu_mkfixture(NULL);
	struct sys *s;
	struct node *n = sim_node(dir, &s);
	/* mlx5_6 (9a:00.0) fell back to Ethernet: its 8 VFs are "ether". */
	ck_assert_uint_eq(
		selected(n, SRIOV("{\"devices\":[\"101e\"],\"linkTypes\":[\"ether\"]}"), false), 8);
	/* 64 VFs less mlx5_6's and the never-probed 18:00.2 (no driver). The
	 * four VFs in pods have no host netdev: their PF's type counts. */
	ck_assert_uint_eq(selected(n, SRIOV("{\"linkTypes\":[\"infiniband\"]}"), false), 55);
	char v[64];
	const struct vf *in_pod = node_find_vf(n, "0000:40:00.0", 3);
	ck_assert_ptr_nonnull(in_pod);
	ck_assert_uint_eq(in_pod->fn.n_netdevs, 0);
	ck_assert_str_eq(devplugin_value(DP_SRIOV, DP_LINK_TYPES, node_find_pf(n, "0000:40:00.0"),
					 in_pod, v, sizeof(v)),
			 "infiniband");
	ck_assert_str_eq(devplugin_value(DP_RDMA_SHARED, DP_LINK_TYPES,
					 node_find_pf(n, "0000:40:00.0"), in_pod, v, sizeof(v)),
			 "");
	node_free(n);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(rdma_shared_selectors_follow_the_plugin)
{
	char *dir = tu_mkfixture(NULL);
	struct sys *s;
	struct node *n = sim_node(dir, &s);
	/* Every function with a driver and an RDMA device: PFs with VFs too. */
	ck_assert_uint_eq(selected(n,
				   RDMA("{\"deviceIDs\":[\"1021\"],\"linkTypes\":"
					"[\"infiniband\"]}"),
				   true),
			  7);
	ck_assert_uint_eq(selected(n, RDMA("{\"deviceIDs\":[\"1021\"]}"), true), 12);
	ck_assert_uint_eq(selected(n, RDMA("{\"ifNames\":[\"ibp24s0\",\"ib0\"]}"), true), 2);
	ck_assert_uint_eq(selected(n, RDMA("{\"ifNames\":[\"mlx-*\"]}"), true), 0);
	node_free(n);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(the_fixture_holds_both_plugins_configs)
{
	char *dir = tu_mkfixture(NULL);
	struct sys *s;
	struct node *n = sim_node(dir, &s);
	ck_assert_uint_eq(n->n_dp_configs, 2);
	const struct dp_config *c = &n->dp_configs[0];
	ck_assert_int_eq(c->plugin, DP_SRIOV);
	ck_assert_str_eq(c->pod_ns, "nvidia-network-operator");
	ck_assert_str_eq(c->res[0].sel[0].f[DP_DEVICES].v[0], "101c");
	ck_assert_str_eq(c->res[0].sel[0].f[DP_PF_NAMES].v[0], "mlx-*");
	ck_assert_int_eq(n->dp_configs[1].plugin, DP_RDMA_SHARED);
	/* A refresh keeps them, and an operator's file with them. */
	ck_assert_int_eq(devplugin_read_file(s,
					     "/var/lib/kubelet/pods/8a7b6c5d-4e3f-4a2b-9c1d-"
					     "0e9f8a7b6c66/volumes/kubernetes.io~configmap/"
					     "config/..data/config.json",
					     n),
			 0);
	struct node *m;
	struct err e = {{0}};
	ck_assert_msg(node_refresh(s, n, NULL, 0, &m, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(m->n_dp_configs, 3);
	ck_assert_str_eq(m->dp_configs[2].path, n->dp_configs[2].path);
	ck_assert_ptr_ne(m->dp_configs[0].res, n->dp_configs[0].res);
	ck_assert_str_eq(m->dp_configs[0].res[0].sel[0].f[DP_DEVICES].v[0], "101c");
	node_free(m);
	node_free(n);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("devplugin");
	TCase *t = tcase_create("parse");
	tcase_add_test(t, sriov_readme_example_parses_as_the_plugin_reads_it);
	tcase_add_test(t, keys_match_without_regard_to_case_as_go_does);
	tcase_add_test(t, rdma_shared_example_both_forms);
	tcase_add_test(t, what_the_plugins_refuse_is_said);
	tcase_add_test(t, other_files_are_no_config);
	suite_add_tcase(s, t);
	t = tcase_create("files");
	tcase_add_test(t, configmap_volumes_are_read_through_data_links);
	tcase_add_test(t, links_that_leave_the_volume_are_not_followed);
	tcase_add_test(t, sizes_and_counts_are_bounded);
	suite_add_tcase(s, t);
	t = tcase_create("match");
	tcase_add_test(t, sriov_selectors_follow_the_plugin);
	tcase_add_test(t, link_types_read_the_netdev_and_the_pf_for_vfs_in_pods);
	tcase_add_test(t, rdma_shared_selectors_follow_the_plugin);
	tcase_add_test(t, the_fixture_holds_both_plugins_configs);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
