// SPDX-License-Identifier: MIT
/* The checks (core/checks*.c) on the simulated faulty node: each seeded fault
 * found on the right subject with its evidence, nothing on the storage NICs,
 * and the findings as JSON. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "checksutil.h"
#include "testutil.h"

static struct node *n;
static struct findings fs;

static void setup(void)
{
	n = cu_node();
	cu_checks(n, NULL, &fs);
}

static void teardown(void)
{
	findings_fini(&fs);
	cu_node_free(n);
}

START_TEST(guid_zero_on_every_vf_of_mlx5_0_and_mlx5_4)
{
	/* mlx5_0 (18:00) and mlx5_4 (4f:00): 8 VFs each, 18:00.2 never probed
	 * (no ibdev, no GUID read: unknown, not zero). */
	ck_assert_uint_eq(cu_count(&fs, "guid-zero", NULL), 15);
	ck_assert_uint_eq(cu_count(&fs, "guid-zero", "0000:18:00.2"), 0);
	const struct finding *f = cu_first(&fs, "guid-zero", "0000:4f:00.1");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_CRITICAL);
	ck_assert_int_eq(f->kind, SUBJECT_VF);
	ck_assert_uint_ge(f->n_evidence, 2);
	ck_assert_msg(strstr(f->evidence[0].where, "/node_guid") != NULL, "%s",
		      f->evidence[0].where);
	ck_assert_str_eq(f->evidence[0].value, "0000:0000:0000:0000");
	ck_assert_int_eq(f->remedy.kind, REMEDY_IBVF);
	ck_assert_str_eq(f->remedy.steps[0], "vf");
	ck_assert_str_eq(f->remedy.steps[2], "0000:4f:00.1");
}
END_TEST

START_TEST(guid_duplicate_on_the_later_holder_only)
{
	ck_assert_uint_eq(cu_count(&fs, "guid-duplicate", NULL), 1);
	const struct finding *f = cu_first(&fs, "guid-duplicate", "0000:c0:00.3");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_CRITICAL);
	ck_assert_msg(strstr(f->title, "0000:5e:00.3"), "%s", f->title);
	/* Both holders' files, the same value. */
	ck_assert(cu_evidence(f, "/node_guid", "a088:c203:005e:0003"));
	ck_assert_uint_eq(f->n_evidence, 4);
	ck_assert_str_ne(f->evidence[0].where, f->evidence[1].where);
	ck_assert_str_eq(f->evidence[0].value, f->evidence[1].value);
	ck_assert(cu_evidence(f, "/ports/1/gids/0", "a088:c203:005e:0003"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_IBVF);
	ck_assert_str_eq(f->remedy.steps[1], "guid");
	ck_assert_str_eq(f->remedy.steps[2], "0000:c0:00.3");
}
END_TEST

START_TEST(ethernet_fallback_on_mlx5_6_not_on_storage)
{
	ck_assert_uint_eq(cu_count(&fs, "ethernet-fallback", NULL), 1);
	const struct finding *f = cu_first(&fs, "ethernet-fallback", "0000:9a:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, SUBJECT_PF);
	/* Another card of the same model, not the same card. */
	ck_assert_str_eq(f->title, "PF 0000:9a:00.0 (mlx5_6) runs Ethernet, but is the same HCA "
				   "model as the InfiniBand mlx5_0");
	ck_assert(cu_evidence(f, "/sys/class/infiniband/mlx5_6/ports/1/link_layer", "Ethernet"));
	ck_assert(cu_evidence(f, "/ports/1/link_layer", "InfiniBand"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_MANUAL);
	ck_assert(cu_step(f, "mlxconfig -d 0000:9a:00.0 set LINK_TYPE_P1=1"));
	ck_assert(cu_step(f, "mlxfwreset -d 0000:9a:00.0"));
}
END_TEST

START_TEST(storage_nics_have_no_findings)
{
	static const char *const storage[] = {"0000:29:00.0", "0000:29:00.1", "0000:aa:00.0",
					      "0000:aa:00.1"};
	for (size_t i = 0; i < 4; i++)
		ck_assert_msg(cu_on(&fs, storage[i]) == 0, "%s: %s", storage[i],
			      cu_first(&fs, NULL, storage[i])->title);
	/* The fallen-back HCA's VFs run Ethernet: not ports down, not GUIDs
	 * (their names, which nothing pins at boot, are name-unstable's). */
	for (size_t i = 0; i < fs.n; i++)
		ck_assert_msg(strncmp(fs.v[i].subject, "0000:9a:00.", 11) != 0 ||
				      !strcmp(fs.v[i].id, "ethernet-fallback") ||
				      !strcmp(fs.v[i].id, "name-unstable"),
			      "%s on %s", fs.v[i].id, fs.v[i].subject);
}
END_TEST

START_TEST(firmware_old_once_on_mlx5_10)
{
	ck_assert_uint_eq(cu_count(&fs, "firmware-old", NULL), 1);
	const struct finding *f = cu_first(&fs, "firmware-old", "0000:ce:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_WARNING);
	ck_assert(cu_evidence(f, "/sys/class/infiniband/mlx5_10/fw_ver", "28.39.1002"));
	ck_assert_msg(strstr(f->title, "28.43.1014"), "%s", f->title);
	ck_assert(cu_step(f, "mlxfwmanager -d 0000:ce:00.0"));
}
END_TEST

START_TEST(port_down_vf_of_mlx5_3)
{
	const struct finding *f = cu_first(&fs, "port-down", "0000:40:00.6");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, SUBJECT_VF);
	ck_assert(cu_evidence(f, "/ports/1/state", "1: DOWN"));
	ck_assert(cu_evidence(f, "/ports/1/phys_state", "2: Polling"));
	/* Its PF is up: the evidence shows it. */
	ck_assert(cu_evidence(f, "/sys/class/infiniband/mlx5_3/ports/1/state", "4: ACTIVE"));
	/* Zero-GUID VFs are down with that cause named. */
	f = cu_first(&fs, "port-down", "0000:4f:00.2");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->title, "port GUID is zero"), "%s", f->title);
	ck_assert_uint_eq(cu_count(&fs, "port-down", "0000:4f:00.0"), 0);
}
END_TEST

START_TEST(failed_probe_gets_no_wrong_explanation)
{
	static const char *const wrong[] = {"guid-zero", "port-down", "name-unstable",
					    "guid-duplicate"};
	for (size_t i = 0; i < 4; i++)
		ck_assert_uint_eq(cu_count(&fs, wrong[i], "0000:18:00.2"), 0);
	/* Linked to its log record. */
	ck_assert_uint_eq(cu_on(&fs, "0000:18:00.2"), 1);
	const struct finding *f = cu_first(&fs, "probe-failed", "0000:18:00.2");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, SUBJECT_VF);
	ck_assert(cu_evidence(f, "kernel log [  130.412907]",
			      "mlx5_core: probe of 0000:18:00.2 failed with error -2"));
	ck_assert(cu_evidence(f, "/sys/bus/pci/devices/0000:18:00.2/driver", "absent"));
	ck_assert_uint_eq(cu_count(&fs, "probe-failed", NULL), 1);
	ck_assert_uint_eq(cu_count(&fs, "vf-unbound", NULL), 0);
}
END_TEST

START_TEST(driver_built_for_another_kernel)
{
	ck_assert_uint_eq(cu_count(&fs, "driver-kernel-mismatch", NULL), 1);
	const struct finding *f = cu_first(&fs, "driver-kernel-mismatch", "");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, SUBJECT_NODE);
	ck_assert(cu_evidence(f, "/proc/sys/kernel/osrelease", "6.8.0-55-generic"));
	ck_assert(cu_evidence(f, "/sys/module/mlx5_core/version", "25.01-0.6.0"));
	ck_assert(cu_evidence(f, "kernel log [    4.102311]",
			      "mlx5_core: Unknown symbol strlcpy (err -2)"));
	ck_assert(cu_step(f, "--add-kernel-support"));
}
END_TEST

START_TEST(kernel_names_unpinned)
{
	/* Kernel names: mlx5_0's VFs but the failed one, mlx5_5's but the one
	 * in a pod; and every other VF whose name no .link file gives back at
	 * the next boot (only mlx5_3's are pinned on the seeded node). */
	ck_assert_uint_eq(cu_count(&fs, "name-unstable", NULL), 52);
	size_t kernel = 0;
	for (size_t i = 0; i < fs.n; i++)
		kernel += !strcmp(fs.v[i].id, "name-unstable") &&
			  strstr(fs.v[i].title, "has the kernel name");
	ck_assert_uint_eq(kernel, 14);
	const struct finding *f = cu_first(&fs, "name-unstable", "0000:18:00.1");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "/sys/bus/pci/devices/0000:18:00.1/net/", "ib0"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_IBVF);
	ck_assert_str_eq(f->remedy.steps[1], "rename");
	ck_assert_str_eq(f->remedy.steps[3], "ibp24s0v0");
}
END_TEST

START_TEST(pod_vf_host_name_taken)
{
	/* llm-serve-0's VF (mlx5_5 VF 5) left ib12 behind; VF 6 has it now. */
	const struct finding *f = cu_first(&fs, "name-collision", "0000:5e:00.6");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_CRITICAL);
	ck_assert(cu_evidence(f, "/var/lib/cni/ib-sriov/", "HostIFNames"));
	ck_assert(cu_evidence(f, "/sys/class/net/", "0000:5e:00.7"));
	ck_assert_str_eq(f->remedy.steps[2], "0000:5e:00.7");
}
END_TEST

START_TEST(stale_checkpoint_entry)
{
	ck_assert_uint_eq(cu_count(&fs, "pod-stale", NULL), 1);
	const struct finding *f = cu_first(&fs, "pod-stale", "0000:18:00.3");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "kubelet_internal_checkpoint",
			      "0d9e8f7a-6b5c-4d3e-9f2a-1b0c9d8e7f44"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_MANUAL);
}
END_TEST

/* The seeded node's other faults, each on its subject with the kernel's
 * or the file's own words as evidence. */
START_TEST(rate_degraded_on_mlx5_11)
{
	ck_assert_uint_eq(cu_count(&fs, "rate-degraded", NULL), 1);
	const struct finding *f = cu_first(&fs, "rate-degraded", "0000:dc:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "/sys/class/infiniband/mlx5_11/ports/1/rate",
			      "200 Gb/sec (2X NDR)"));
	ck_assert(cu_evidence(f, "/ports/1/rate", "400 Gb/sec (4X NDR)"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_MANUAL);
}
END_TEST

START_TEST(pod_netns_gone_of_trainer_0)
{
	ck_assert_uint_eq(cu_count(&fs, "pod-netns-gone", NULL), 1);
	const struct finding *f = cu_first(&fs, "pod-netns-gone", "0000:40:00.4");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "/var/run/netns/cni-", "absent"));
	ck_assert(cu_evidence(f, "/var/lib/cni/multus/results/", "\"netns\""));
	ck_assert(cu_step(f, "trainer-0"));
}
END_TEST

START_TEST(cni_cache_half_written)
{
	ck_assert_uint_eq(cu_count(&fs, "cni-cache-broken", NULL), 1);
	const struct finding *f = cu_first(&fs, "cni-cache-broken", "");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "/var/lib/cni/multus/results/ib-sriov-network-", "truncated"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_MANUAL);
}
END_TEST

START_TEST(sriov_layout_differs_from_the_boot_unit)
{
	ck_assert_uint_eq(cu_count(&fs, "sriov-layout", NULL), 1);
	const struct finding *f = cu_first(&fs, "sriov-layout", "0000:c0:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "/sys/bus/pci/devices/0000:c0:00.0/sriov_numvfs", "8"));
	ck_assert(cu_evidence(f, "/etc/systemd/system/ibvf-sriov.service",
			      "vf create 0000:c0:00.0 4"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_IBVF);
}
END_TEST

START_TEST(json_has_counts_and_remedy)
{
	struct json_object *j = findings_to_json(&fs), *v, *c;
	ck_assert(json_object_object_get_ex(j, "counts", &c));
	ck_assert(json_object_object_get_ex(c, "critical", &v));
	ck_assert_int_ge(json_object_get_int(v), 15);
	ck_assert(json_object_object_get_ex(j, "findings", &v));
	struct json_object *f0 = json_object_array_get_idx(v, 0), *r, *k;
	ck_assert(json_object_object_get_ex(f0, "remedy", &r));
	ck_assert(json_object_object_get_ex(r, "kind", &k));
	ck_assert_ptr_nonnull(json_object_get_string(k));
	json_object_put(j);
}
END_TEST

START_TEST(every_finding_complete)
{
	for (size_t i = 0; i < fs.n; i++) {
		const struct finding *f = &fs.v[i];
		ck_assert_ptr_nonnull(check_find(f->id));
		ck_assert_msg(f->n_evidence >= 1, "%s on %s: no evidence", f->id, f->subject);
		ck_assert_msg(f->why && *f->why, "%s", f->id);
		ck_assert_msg(f->kind == SUBJECT_NODE ? !*f->subject : strlen(f->subject) == 12,
			      "%s: subject '%s'", f->id, f->subject);
		for (size_t k = 0; k < f->n_evidence; k++)
			ck_assert_msg(f->evidence[k].where[0] == '/' ||
					      !strncmp(f->evidence[k].where, "kernel log", 10),
				      "%s: evidence at '%s'", f->id, f->evidence[k].where);
		if (f->severity > CHECK_INFO)
			ck_assert_msg(f->remedy.kind != REMEDY_NONE && f->remedy.n_steps,
				      "%s: no remedy", f->id);
	}
}
END_TEST

int main(void)
{
	cu_fixture(NULL);
	Suite *s = suite_create("checks");
	TCase *tc = tcase_create("sim");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, guid_zero_on_every_vf_of_mlx5_0_and_mlx5_4);
	tcase_add_test(tc, guid_duplicate_on_the_later_holder_only);
	tcase_add_test(tc, ethernet_fallback_on_mlx5_6_not_on_storage);
	tcase_add_test(tc, storage_nics_have_no_findings);
	tcase_add_test(tc, firmware_old_once_on_mlx5_10);
	tcase_add_test(tc, port_down_vf_of_mlx5_3);
	tcase_add_test(tc, failed_probe_gets_no_wrong_explanation);
	tcase_add_test(tc, driver_built_for_another_kernel);
	tcase_add_test(tc, kernel_names_unpinned);
	tcase_add_test(tc, pod_vf_host_name_taken);
	tcase_add_test(tc, stale_checkpoint_entry);
	tcase_add_test(tc, rate_degraded_on_mlx5_11);
	tcase_add_test(tc, pod_netns_gone_of_trainer_0);
	tcase_add_test(tc, cni_cache_half_written);
	tcase_add_test(tc, sriov_layout_differs_from_the_boot_unit);
	tcase_add_test(tc, json_has_counts_and_remedy);
	tcase_add_test(tc, every_finding_complete);
	suite_add_tcase(s, tc);
	int rc = tu_run_suite(s);
	cu_fixture_done();
	return rc;
}
