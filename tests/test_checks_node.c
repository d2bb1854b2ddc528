// SPDX-License-Identifier: MIT
/* The checks on layouts of other nodes, made from the healthy simulated node
 * changed in memory: kernel-log records in both kernels' words, failed
 * probes, GUID faults, ports down for each cause. */
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
	fs = (struct findings){0};
}

static void teardown(void)
{
	findings_fini(&fs);
	cu_node_free(n);
}

static void unbind(struct vf *vf)
{
	cu_str(&vf->fn.driver, NULL);
}

START_TEST(healthy_node_has_no_findings)
{
	cu_checks(n, NULL, &fs);
	for (size_t i = 0; i < fs.n; i++)
		ck_abort_msg("false alarm: %s on %s: %s", fs.v[i].id, fs.v[i].subject,
			     fs.v[i].title);
	ck_assert_int_eq(findings_max_severity(&fs), CHECK_INFO);
}
END_TEST

START_TEST(mismatch_lines_with_stamps_kernel_and_driver)
{
	cu_kmsg(n, 4211873, "mlx5_core 0000:18:00.0: firmware version: 28.43.1014");
	cu_kmsg(n, 123456789, "mlx5_core: Unknown symbol strlcpy (err -2)");
	cu_kmsg(n, 123456790, "mlx5_ib: disagrees about version of symbol ib_register_device");
	cu_kmsg(n, -1, "mlx5_core: Unknown symbol xdp_do_flush_map (err -2)");
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "driver-kernel-mismatch", NULL), 1);
	const struct finding *f = cu_first(&fs, "driver-kernel-mismatch", "");
	ck_assert_int_eq(f->kind, SUBJECT_NODE);
	ck_assert_int_eq(f->severity, CHECK_CRITICAL);
	ck_assert(cu_evidence(f, "/proc/sys/kernel/osrelease", n->kernel));
	ck_assert(cu_evidence(f, "/sys/module/mlx5_core/version", n->driver_version));
	ck_assert(cu_evidence(f, "kernel log [  123.456789]", "Unknown symbol strlcpy"));
	ck_assert(cu_evidence(f, "kernel log [  123.456790]", "disagrees about version"));
	ck_assert(cu_evidence(f, "kernel log", "xdp_do_flush_map"));
	ck_assert(!cu_evidence(f, NULL, "firmware version"));
	ck_assert_msg(strstr(f->title, "3 unresolved"), "%s", f->title);
	ck_assert(cu_step(f, "./mlnxofedinstall --add-kernel-support"));
	ck_assert(cu_step(f, "ofed_uninstall.sh"));
}
END_TEST

START_TEST(inbox_driver_mismatch_names_the_modules)
{
	cu_str(&n->driver_version, NULL);
	cu_kmsg(n, 7000001, "ib_core: Unknown symbol __module_get (err -2)");
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "driver-kernel-mismatch", "");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "kernel log [    7.000001]", "__module_get"));
	ck_assert(!cu_step(f, "mlnxofedinstall"));
	ck_assert(cu_step(f, "modinfo -n mlx5_core"));
}
END_TEST

START_TEST(probe_failed_in_both_kernels_words)
{
	/* Linux before 6.10, then 6.10 on (dev_err). */
	unbind(cu_vf(n, "0000:18:00.2"));
	unbind(cu_vf(n, "0000:40:00.3"));
	cu_kmsg(n, 123456790, "mlx5_core: probe of 0000:18:00.2 failed with error -2");
	cu_kmsg(n, 5000000,
		"mlx5_core 0000:40:00.3: probe with driver mlx5_core failed with error -22");
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "probe-failed", "0000:18:00.2");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, SUBJECT_VF);
	ck_assert_int_eq(f->severity, CHECK_CRITICAL);
	ck_assert(cu_evidence(f, "kernel log [  123.456790]", "probe of 0000:18:00.2 failed"));
	ck_assert_msg(strstr(f->title, "(mlx5_0 VF 1)"), "%s", f->title);
	f = cu_first(&fs, "probe-failed", "0000:40:00.3");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "kernel log [    5.000000]", "failed with error -22"));
	/* One explanation each: the failed probe. */
	ck_assert_uint_eq(cu_on(&fs, "0000:18:00.2"), 1);
	ck_assert_uint_eq(cu_on(&fs, "0000:40:00.3"), 1);
}
END_TEST

START_TEST(probe_failed_earlier_bound_now_is_info)
{
	cu_kmsg(n, 9000000, "mlx5_core: probe of 0000:18:00.4 failed with error -110");
	/* A function the node does not have (VFs made again since). */
	cu_kmsg(n, 9000001, "mlx5_core: probe of 0000:18:07.7 failed with error -110");
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "probe-failed", "0000:18:00.4");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_INFO);
	ck_assert(cu_evidence(f, "kernel log [    9.000000]", "error -110"));
	f = cu_first(&fs, "probe-failed", "");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_INFO);
	ck_assert_int_eq(findings_max_severity(&fs), CHECK_INFO);
}
END_TEST

START_TEST(unbound_vf_unless_autoprobe_off)
{
	unbind(cu_vf(n, "0000:5e:00.2"));
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "vf-unbound", "0000:5e:00.2"), 1);
	ck_assert_uint_eq(cu_on(&fs, "0000:5e:00.2"), 1);
	ck_assert(cu_step(cu_first(&fs, "vf-unbound", "0000:5e:00.2"),
			  "echo 0000:5e:00.2 > /sys/bus/pci/drivers/mlx5_core/bind"));
	findings_fini(&fs);
	cu_pf(n, "0000:5e:00.0")->autoprobe = (struct kval){true, 0};
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(fs.n, 0);
}
END_TEST

START_TEST(guid_duplicate_across_pfs_and_kinds)
{
	/* A VF given a PF's node GUID; the PF (earlier in PCI order) keeps it. */
	struct vf *vf = cu_vf(n, "0000:dc:00.4");
	uint64_t g = cu_pf(n, "0000:40:00.0")->fn.rdmas[0].node_guid.v;
	vf->node_guid.v = g;
	vf->fn.rdmas[0].node_guid.v = g;
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "guid-duplicate", NULL), 1);
	const struct finding *f = cu_first(&fs, "guid-duplicate", "0000:dc:00.4");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->title, "node GUID of 0000:40:00.0"), "%s", f->title);
	ck_assert(cu_evidence(f, "/sys/class/infiniband/mlx5_3/node_guid", NULL));
	ck_assert_str_eq(f->remedy.steps[2], "0000:dc:00.4");
}
END_TEST

START_TEST(guid_invalid_all_ones_and_group_bit)
{
	struct vf *a = cu_vf(n, "0000:18:00.1"), *b = cu_vf(n, "0000:c0:00.2");
	a->node_guid.v = a->port_guid.v = UINT64_MAX;
	b->port_guid.v = 0x0111223344556677ULL; /* 01: the I/G bit */
	cu_port(&b->fn)->port_guid.v = b->port_guid.v;
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "guid-invalid", "0000:18:00.1");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_CRITICAL);
	ck_assert_uint_eq(cu_count(&fs, "guid-invalid", "0000:18:00.1"), 1);
	f = cu_first(&fs, "guid-invalid", "0000:c0:00.2");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_WARNING);
	ck_assert(cu_evidence(f, "/ports/1/gids/0", "0111:2233:4455:6677"));
	ck_assert_uint_eq(cu_count(&fs, "guid-duplicate", NULL), 0);
	/* The locally administered bit (0x02) is no fault: ibvf's own scheme. */
	findings_fini(&fs);
	b->port_guid.v = cu_port(&b->fn)->port_guid.v = 0x0211223344556677ULL;
	a->node_guid.v = a->port_guid.v = 0x0211223344556678ULL;
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(fs.n, 0);
}
END_TEST

START_TEST(guid_zero_on_a_pf)
{
	struct pf *pf = cu_pf(n, "0000:ce:00.0");
	pf->fn.rdmas[0].node_guid.v = 0;
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "guid-zero", "0000:ce:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, SUBJECT_PF);
	ck_assert(cu_evidence(f, "/sys/class/infiniband/mlx5_10/node_guid", "0000:0000:0000:0000"));
	ck_assert(cu_step(f, "flint -d 0000:ce:00.0"));
}
END_TEST

/* Every VF port of pf as state/phys. */
static void vfs_state(struct pf *pf, int state, int phys)
{
	for (size_t j = 0; j < pf->n_vfs; j++)
		cu_port_state(cu_port(&pf->vfs[j].fn), state, phys);
}

START_TEST(pf_link_down_is_one_finding_for_it_and_its_vfs)
{
	struct pf *pf = cu_pf(n, "0000:4f:00.0");
	cu_port_state(cu_port(&pf->fn), 1, 2);
	vfs_state(pf, 1, 2);
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "port-down", NULL), 1);
	const struct finding *f = cu_first(&fs, "port-down", "0000:4f:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_CRITICAL);
	ck_assert_msg(strstr(f->title, "8 VF ports") && strstr(f->title, "physical link"), "%s",
		      f->title);
	ck_assert(cu_evidence(f, "/sys/class/infiniband/mlx5_4/ports/1/phys_state", "2: Polling"));
	ck_assert(cu_step(f, "mlxlink -d 0000:4f:00.0"));
}
END_TEST

START_TEST(all_ports_down_one_finding_per_hca)
{
	size_t ib = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		struct pf *pf = &n->pfs[i];
		cu_port_state(cu_port(&pf->fn), 1, 3);
		vfs_state(pf, 1, 3);
		ib += strcmp(cu_port(&pf->fn)->link_layer, "InfiniBand") == 0;
	}
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(ib, 8);
	ck_assert_uint_eq(cu_count(&fs, "port-down", NULL), 8);
	ck_assert_uint_eq(fs.n, 8); /* storage ports down: not this tool's alarm */
	ck_assert(cu_step(cu_first(&fs, "port-down", "0000:18:00.0"), "Disabled"));
}
END_TEST

START_TEST(no_subnet_manager)
{
	struct pf *pf = cu_pf(n, "0000:c0:00.0");
	struct port *p = cu_port(&pf->fn);
	cu_port_state(p, 2, 5);
	p->sm_lid.v = 0;
	vfs_state(pf, 1, 5);
	pf->numvfs.v = 0; /* no VFs: a warning */
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "port-down", "0000:c0:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_WARNING);
	ck_assert_msg(strstr(f->title, "no subnet manager"), "%s", f->title);
	ck_assert(cu_evidence(f, "/ports/1/sm_lid", "0x0"));
	ck_assert(cu_step(f, "opensm"));
}
END_TEST

START_TEST(disabled_port_without_vfs_is_info)
{
	struct pf *pf = cu_pf(n, "0000:dc:00.0");
	cu_port_state(cu_port(&pf->fn), 1, 3);
	vfs_state(pf, 1, 3);
	pf->numvfs.v = 0;
	cu_checks(n, NULL, &fs);
	ck_assert_int_eq(cu_first(&fs, "port-down", "0000:dc:00.0")->severity, CHECK_INFO);
	findings_fini(&fs);
	cu_port_state(cu_port(&pf->fn), 1, 2); /* Polling: a cable or peer missing */
	cu_checks(n, NULL, &fs);
	ck_assert_int_eq(cu_first(&fs, "port-down", "0000:dc:00.0")->severity, CHECK_WARNING);
}
END_TEST

START_TEST(vf_ports_down_under_active_pfs_sm_virtualization)
{
	for (size_t i = 0; i < n->n_pfs; i++)
		vfs_state(&n->pfs[i], 1, 5);
	cu_checks(n, NULL, &fs);
	/* One per PF, none per VF. */
	ck_assert_uint_eq(cu_count(&fs, "port-down", NULL), 8);
	const struct finding *f = cu_first(&fs, "port-down", "0000:18:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->title, "virtualization off"), "%s", f->title);
	ck_assert(cu_step(f, "virt_enabled 2"));
	ck_assert_uint_eq(cu_count(&fs, "port-down", "0000:18:00.1"), 0);
}
END_TEST

START_TEST(vf_link_state_policy_disable)
{
	struct vf *vf = cu_vf(n, "0000:40:00.2");
	cu_port_state(cu_port(&vf->fn), 1, 3);
	ck_assert(vf->admin.mofed);
	cu_str(&vf->admin.mofed_policy, "Down");
	struct vf *up = cu_vf(n, "0000:c0:00.5");
	cu_port_state(cu_port(&up->fn), 1, 3);
	up->admin.link_state = (struct kval){true, 2};
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "port-down", "0000:40:00.2");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->title, "policy is disable"), "%s", f->title);
	ck_assert(cu_evidence(f, "/sys/bus/pci/devices/0000:40:00.0/sriov/1/policy", "Down"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_IBVF);
	ck_assert_str_eq(f->remedy.steps[1], "state");
	ck_assert_str_eq(f->remedy.steps[3], "auto");
	f = cu_first(&fs, "port-down", "0000:c0:00.5");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->title, "policy is disable"), "%s", f->title);
}
END_TEST

int main(void)
{
	cu_fixture((const char *const[]){"--healthy", NULL});
	Suite *s = suite_create("checks_node");
	TCase *tc = tcase_create("node");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, healthy_node_has_no_findings);
	tcase_add_test(tc, mismatch_lines_with_stamps_kernel_and_driver);
	tcase_add_test(tc, inbox_driver_mismatch_names_the_modules);
	tcase_add_test(tc, probe_failed_in_both_kernels_words);
	tcase_add_test(tc, probe_failed_earlier_bound_now_is_info);
	tcase_add_test(tc, unbound_vf_unless_autoprobe_off);
	tcase_add_test(tc, guid_duplicate_across_pfs_and_kinds);
	tcase_add_test(tc, guid_invalid_all_ones_and_group_bit);
	tcase_add_test(tc, guid_zero_on_a_pf);
	tcase_add_test(tc, pf_link_down_is_one_finding_for_it_and_its_vfs);
	tcase_add_test(tc, all_ports_down_one_finding_per_hca);
	tcase_add_test(tc, no_subnet_manager);
	tcase_add_test(tc, disabled_port_without_vfs_is_info);
	tcase_add_test(tc, vf_ports_down_under_active_pfs_sm_virtualization);
	tcase_add_test(tc, vf_link_state_policy_disable);
	suite_add_tcase(s, tc);
	int rc = tu_run_suite(s);
	cu_fixture_done();
	return rc;
}
