// SPDX-License-Identifier: MIT
/* The HCA, SR-IOV, name and pod checks on layouts of other nodes, made from
 * the healthy simulated node changed in memory: an Ethernet-only node, a
 * fallen-back HCA told from storage NICs, old firmware, SR-IOV off, a
 * degraded link, .link files, pods whose netns is gone. */
#include <check.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "checksutil.h"
#include "core/persist/linkfile.h"
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

static void to_ethernet(struct fn *fn)
{
	cu_str(&cu_port(fn)->link_layer, "Ethernet");
}

/* The storage NICs a different board, as on a DGX. */
static void storage_board(void)
{
	static const char *const storage[] = {"0000:29:00.0", "0000:29:00.1", "0000:aa:00.0",
					      "0000:aa:00.1"};
	for (size_t i = 0; i < 4; i++)
		cu_str(&cu_pf(n, storage[i])->fn.rdmas[0].board_id, "MT_0000000891");
}

START_TEST(fallback_told_from_storage_by_board_id)
{
	storage_board();
	struct pf *pf = cu_pf(n, "0000:dc:00.0");
	to_ethernet(&pf->fn);
	pf->numvfs.v = 0; /* the board_id alone tells it */
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "ethernet-fallback", NULL), 1);
	const struct finding *f = cu_first(&fs, "ethernet-fallback", "0000:dc:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "/sys/class/infiniband/mlx5_11/board_id", "MT_0000000838"));
	/* A storage NIC of the same board as the compute HCAs but two ports
	 * and no VFs is still storage. */
	findings_fini(&fs);
	cu_str(&cu_pf(n, "0000:29:00.0")->fn.rdmas[0].board_id, "MT_0000000838");
	cu_str(&cu_pf(n, "0000:29:00.1")->fn.rdmas[0].board_id, "MT_0000000838");
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "ethernet-fallback", NULL), 1);
}
END_TEST

START_TEST(fallback_without_board_id_needs_vfs)
{
	for (size_t i = 0; i < n->n_pfs; i++)
		cu_str(&n->pfs[i].fn.rdmas[0].board_id, NULL);
	struct pf *pf = cu_pf(n, "0000:40:00.0");
	to_ethernet(&pf->fn);
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "ethernet-fallback", NULL), 1);
	ck_assert_ptr_nonnull(cu_first(&fs, "ethernet-fallback", "0000:40:00.0"));
	findings_fini(&fs);
	pf->numvfs.v = 0;
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "ethernet-fallback", NULL), 0);
}
END_TEST

START_TEST(ethernet_only_node_is_no_fallback)
{
	for (size_t i = 0; i < n->n_pfs; i++) {
		to_ethernet(&n->pfs[i].fn);
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++)
			to_ethernet(&n->pfs[i].vfs[j].fn);
	}
	/* Unplugged Ethernet ports are not an alarm either. */
	cu_port_state(cu_port(&cu_pf(n, "0000:aa:00.1")->fn), 1, 3);
	cu_checks(n, NULL, &fs);
	for (size_t i = 0; i < fs.n; i++)
		ck_abort_msg("false alarm: %s on %s: %s", fs.v[i].id, fs.v[i].subject,
			     fs.v[i].title);
}
END_TEST

START_TEST(firmware_compared_by_field)
{
	int c;
	ck_assert_int_eq(check_fw_compare("28.39.1002", "28.43.1014", &c), 0);
	ck_assert_int_eq(c, -1);
	ck_assert_int_eq(check_fw_compare("28.100.1000", "28.43.1014", &c), 0);
	ck_assert_int_eq(c, 1);
	ck_assert_int_eq(check_fw_compare("32.43.1014", "32.43.1014", &c), 0);
	ck_assert_int_eq(c, 0);
	ck_assert_int_eq(check_fw_compare("28.43", "28.43.1014", &c), 0);
	ck_assert_int_eq(c, -1);
	ck_assert_int_lt(check_fw_compare("28.x.1", "28.43.1014", &c), 0);
	ck_assert_int_lt(check_fw_compare("", "28.43.1014", &c), 0);
	ck_assert_int_lt(check_fw_compare("99999999999.1", "28.43.1014", &c), 0);
	const char *model;
	ck_assert_str_eq(check_fw_minimum(0x1021, &model), "28.43.1014");
	ck_assert_str_eq(model, "ConnectX-7");
	ck_assert_str_eq(check_fw_minimum(0xa2dc, NULL), "32.43.1014");
	ck_assert_ptr_null(check_fw_minimum(0x101e, NULL));
}
END_TEST

START_TEST(firmware_old_on_compute_not_on_idle_storage)
{
	cu_str(&cu_pf(n, "0000:5e:00.0")->fn.rdmas[0].fw_ver, "28.42.1000");
	cu_str(&cu_pf(n, "0000:29:00.0")->fn.rdmas[0].fw_ver, "28.39.1002");
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "firmware-old", NULL), 1);
	const struct finding *f = cu_first(&fs, "firmware-old", "0000:5e:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "/sys/bus/pci/devices/0000:5e:00.0/device", "0x1021"));
}
END_TEST

START_TEST(sriov_off_in_firmware)
{
	struct pf *a = cu_pf(n, "0000:9a:00.0"), *b = cu_pf(n, "0000:ce:00.0");
	a->totalvfs.v = 0;
	a->numvfs.v = 0;
	b->sriov = false;
	b->totalvfs.known = b->numvfs.known = false;
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "sriov-disabled", "0000:9a:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_WARNING);
	ck_assert(cu_evidence(f, "/sys/bus/pci/devices/0000:9a:00.0/sriov_totalvfs", "0"));
	/* NUM_OF_VFS as the other HCAs' firmware has it (sriov_totalvfs 16). */
	ck_assert(cu_step(f, "mlxconfig -d 0000:9a:00.0 set SRIOV_EN=1 NUM_OF_VFS=16"));
	f = cu_first(&fs, "sriov-disabled", "0000:ce:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "sriov_totalvfs", "absent"));
	ck_assert_uint_eq(cu_count(&fs, "sriov-disabled", NULL), 2);
}
END_TEST

START_TEST(sriov_off_everywhere_is_info)
{
	/* No boot unit asking for VFs either. */
	free(n->persisted);
	n->persisted = NULL;
	n->n_persisted = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		n->pfs[i].totalvfs.v = 0;
		n->pfs[i].numvfs.v = 0;
	}
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "sriov-disabled", NULL), 8);
	ck_assert_int_eq(findings_max_severity(&fs), CHECK_INFO);
}
END_TEST

START_TEST(sriov_layout_against_the_boot_unit)
{
	/* in place of the healthy node's own unit */
	free(n->persist_unit);
	free(n->persisted);
	n->persist_unit = strdup("/etc/systemd/system/ibvf-sriov.service");
	n->persisted = calloc(3, sizeof(*n->persisted));
	n->n_persisted = 3;
	n->persisted[0] = (struct persisted_pf){"0000:18:00.0", 8};
	n->persisted[1] = (struct persisted_pf){"0000:40:00.0", 4};
	n->persisted[2] = (struct persisted_pf){"0000:e2:00.0", 8};
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "sriov-layout", NULL), 2);
	const struct finding *f = cu_first(&fs, "sriov-layout", "0000:40:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "/sys/bus/pci/devices/0000:40:00.0/sriov_numvfs", "8"));
	ck_assert(cu_evidence(f, "/etc/systemd/system/ibvf-sriov.service", "vf create"));
	/* Keeping what runs is the remedy; going back to the unit's count
	 * (destroying the VFs) is said, never run by --fix. */
	ck_assert_int_eq(f->remedy.kind, REMEDY_IBVF);
	ck_assert_str_eq(f->remedy.steps[0], "persist");
	ck_assert_uint_eq(f->remedy.n_steps, 1);
	ck_assert_msg(strstr(f->remedy.summary, "'ibvf vf create 0000:40:00.0 4'"), "%s",
		      f->remedy.summary);
	f = cu_first(&fs, "sriov-layout", "");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->title, "0000:e2:00.0"), "%s", f->title);
}
END_TEST

static void set_rate(struct port *p, const char *rate, long long mbps)
{
	cu_str(&p->rate, rate);
	p->rate_mbps = (struct kval){true, mbps};
}

START_TEST(rate_below_the_model)
{
	set_rate(cu_port(&cu_pf(n, "0000:dc:00.0")->fn), "200 Gb/sec (2X NDR)", 200000);
	/* Width alone: as fast but fewer lanes. */
	set_rate(cu_port(&cu_pf(n, "0000:c0:00.0")->fn), "400 Gb/sec (2X XDR)", 400000);
	/* Storage ports at another rate are not compared with compute ones. */
	set_rate(cu_port(&cu_pf(n, "0000:29:00.0")->fn), "100 Gb/sec (2X HDR)", 100000);
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "rate-degraded", NULL), 2);
	const struct finding *f = cu_first(&fs, "rate-degraded", "0000:dc:00.0");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "/sys/class/infiniband/mlx5_11/ports/1/rate", "2X NDR"));
	ck_assert(cu_evidence(f, "/ports/1/rate", "400 Gb/sec (4X NDR)"));
	ck_assert_ptr_nonnull(cu_first(&fs, "rate-degraded", "0000:c0:00.0"));
}
END_TEST

static void rename_vf(struct vf *vf, const char *name)
{
	cu_str(&vf->fn.netdevs[0].name, name);
}

/* Adds a .link file after the node's own (udev applies the first match). */
static void add_link_file(const char *path_glob, const char *name)
{
	n->link_files = realloc(n->link_files, (n->n_link_files + 1) * sizeof(*n->link_files));
	struct link_file *l = &n->link_files[n->n_link_files++];
	*l = (struct link_file){.path = strdup("/etc/systemd/network/70-x.link")};
	l->match_path = calloc(1, sizeof(char *));
	l->match_path[0] = strdup(path_glob);
	l->n_match_path = 1;
	l->name = strdup(name);
}

START_TEST(kernel_name_pinned_or_not)
{
	linkfile_free_all(n->link_files, n->n_link_files);
	n->link_files = NULL;
	n->n_link_files = 0;
	rename_vf(cu_vf(n, "0000:40:00.2"), "ib3");
	rename_vf(cu_vf(n, "0000:40:00.6"), "ib4");
	rename_vf(cu_vf(n, "0000:40:00.3"), "eth12");
	rename_vf(cu_vf(n, "0000:40:00.5"), "ibx3"); /* not the kernel's form */
	add_link_file("pci-0000:40:00.2", "ib3");
	/* A file that names it otherwise did not apply: still the kernel's. */
	add_link_file("pci-0000:40:00.6", "ibp64s0v5");
	cu_checks(n, NULL, &fs);
	/* Pinned to the name it has, even a kernel one: the next boot keeps it. */
	ck_assert_ptr_null(cu_first(&fs, "name-unstable", "0000:40:00.2"));
	ck_assert(cu_evidence(cu_first(&fs, "name-unstable", "0000:40:00.6"),
			      "/etc/systemd/network/70-x.link", "Name=ibp64s0v5"));
	/* Not a kernel name, but no file gives it back at boot (issue 26:
	 * `check` said fine, the reboot named it ib<N>). */
	const struct finding *x = cu_first(&fs, "name-unstable", "0000:40:00.5");
	ck_assert_ptr_nonnull(x);
	ck_assert_msg(strstr(x->title, "is ibx3 now and comes back with a kernel name"), "%s",
		      x->title);
	ck_assert_str_eq(x->remedy.steps[0], "persist");
	const struct finding *f = cu_first(&fs, "name-unstable", "0000:40:00.3");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, NULL, "eth12"));
	ck_assert_str_eq(f->remedy.steps[3], "ibp64s0v2");
}
END_TEST

START_TEST(names_changed_while_running)
{
	struct name_change c[] = {{"0000:40:00.2", "ibp64s0v1", "ib5"},
				  {"0000:18:00.1", "ib0", "ibp24s0v0"}};
	struct checks_opts o = {.renames = c, .n_renames = 2};
	rename_vf(cu_vf(n, "0000:40:00.2"), "ib5");
	cu_checks(n, &o, &fs);
	ck_assert_uint_eq(cu_count(&fs, "name-changed", NULL), 2);
	const struct finding *f = cu_first(&fs, "name-changed", "0000:40:00.2");
	ck_assert(cu_evidence(f, NULL, "ib5 (was ibp64s0v1)"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_IBVF);
	ck_assert_str_eq(f->remedy.steps[3], "ibp64s0v1");
	ck_assert_int_eq(f->severity, CHECK_INFO);
	/* Back to a stable name: nothing to undo. */
	f = cu_first(&fs, "name-changed", "0000:18:00.1");
	ck_assert_int_eq(f->remedy.kind, REMEDY_NONE);
}
END_TEST

/* A rename the history recorded and the console saw too is the console's
 * finding, as before; one it did not see is the history's, with its time,
 * the newest 8 of many, and the way back to the name at the window's start. */
START_TEST(recorded_renames_beside_the_consoles)
{
	struct name_change c[] = {{"0000:40:00.2", "ibp64s0v1", "ib5"}};
	struct check_rename r[10] = {
		{.bdf = "0000:40:00.2",
		 .old_name = "ibp64s0v1",
		 .new_name = "ib5",
		 .t_us = 1000000},
	};
	for (int i = 1; i < 10; i++) {
		r[i] = (struct check_rename){.bdf = "0000:40:00.3", .t_us = (int64_t)i * 60000000};
		snprintf(r[i].old_name, sizeof(r[i].old_name), "%s",
			 i == 1 ? "ibp64s0v2" : r[i - 1].new_name);
		snprintf(r[i].new_name, sizeof(r[i].new_name), "%s", i % 2 ? "ib7" : "ib8");
	}
	struct checks_opts o = {.renames = c,
				.n_renames = 1,
				.past = {.read = true,
					 .where = "/var/lib/ibvf/history.db",
					 .renames = r,
					 .n_renames = 10}};
	rename_vf(cu_vf(n, "0000:40:00.2"), "ib5");
	rename_vf(cu_vf(n, "0000:40:00.3"), "ib7");
	cu_checks(n, &o, &fs);
	ck_assert_uint_eq(cu_count(&fs, "name-changed", NULL), 2);
	const struct finding *f = cu_first(&fs, "name-changed", "0000:40:00.2");
	ck_assert(cu_evidence(f, "/sys/bus/pci/devices/0000:40:00.2/net/", "ib5 (was ibp64s0v1)"));
	ck_assert_uint_eq(f->n_evidence, 1);
	f = cu_first(&fs, "name-changed", "0000:40:00.3");
	ck_assert_ptr_nonnull(strstr(f->title, "renamed 9 times"));
	ck_assert_uint_eq(f->n_evidence, FINDING_EVIDENCE_MAX);
	ck_assert(
		cu_evidence(f, "/var/lib/ibvf/history.db", "at 1970-01-01T00:09:00Z: ib8 -> ib7"));
	ck_assert(!cu_evidence(f, NULL, "ibp64s0v2 -> ib7")); /* the oldest, beyond 8 */
	ck_assert_int_eq(f->remedy.kind, REMEDY_IBVF);
	ck_assert_str_eq(f->remedy.steps[3], "ibp64s0v2");
}
END_TEST

START_TEST(pod_netns_gone_and_broken_cache)
{
	struct vf *vf = cu_vf(n, "0000:40:00.4");
	ck_assert_ptr_nonnull(vf->pod);
	ck_assert_ptr_nonnull(vf->pod->netns);
	vf->pod->netns_present = (struct kval){true, 0};
	cu_str(&vf->pod->name, "x; rm -rf /"); /* a crafted cache file */
	n->cni_broken = calloc(1, sizeof(*n->cni_broken));
	n->n_cni_broken = 1;
	n->cni_broken[0].path = strdup("/var/lib/cni/multus/results/ib-sriov-network-e4d2-net1");
	n->cni_broken[0].why = strdup("truncated JSON at byte 412");
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "pod-netns-gone", "0000:40:00.4");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, vf->pod->netns, "absent"));
	ck_assert(cu_step(f, "kubectl get pod -n ml-training <pod>"));
	ck_assert(!cu_step(f, "rm -rf"));
	f = cu_first(&fs, "cni-cache-broken", "");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "/var/lib/cni/multus/results/", "byte 412"));
	ck_assert_int_eq(f->remedy.kind, REMEDY_MANUAL);
	ck_assert_uint_eq(fs.n, 2);
}
END_TEST

int main(void)
{
	cu_fixture((const char *const[]){"--healthy", NULL});
	Suite *s = suite_create("checks_hca");
	TCase *tc = tcase_create("hca");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, fallback_told_from_storage_by_board_id);
	tcase_add_test(tc, fallback_without_board_id_needs_vfs);
	tcase_add_test(tc, ethernet_only_node_is_no_fallback);
	tcase_add_test(tc, firmware_compared_by_field);
	tcase_add_test(tc, firmware_old_on_compute_not_on_idle_storage);
	tcase_add_test(tc, sriov_off_in_firmware);
	tcase_add_test(tc, sriov_off_everywhere_is_info);
	tcase_add_test(tc, sriov_layout_against_the_boot_unit);
	tcase_add_test(tc, rate_below_the_model);
	tcase_add_test(tc, kernel_name_pinned_or_not);
	tcase_add_test(tc, names_changed_while_running);
	tcase_add_test(tc, recorded_renames_beside_the_consoles);
	tcase_add_test(tc, pod_netns_gone_and_broken_cache);
	suite_add_tcase(s, tc);
	int rc = tu_run_suite(s);
	cu_fixture_done();
	return rc;
}
