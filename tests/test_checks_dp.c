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
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
