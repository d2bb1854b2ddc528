// SPDX-License-Identifier: MIT
/* The simulated DGX H200: the fixture's exact formats and seeded faults, and
 * mkfixture's refusals (the simulated kernel's side effects are in
 * test_sim_kernel.c, a large node in test_sim_large.c). */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/guid.h"
#include "core/sim/sim_tree.h"
#include "core/sys/sys.h"
#include "testutil.h"

#include "simutil.h"

START_TEST(fixture_files_have_the_kernel_formats)
{
	char *dir = fixture(false, 0);
	struct sys *s = open_sim(dir, NULL, NULL);
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/node_type"), "1: CA");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/node_guid"), "a088:c203:0018:0000");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/hca_type"), "MT4129");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/fw_ver"), "28.43.1014");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/board_id"), "MT_0000000838");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/ports/1/state"), "4: ACTIVE");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/ports/1/phys_state"), "5: LinkUp");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/ports/1/rate"), "400 Gb/sec (4X NDR)");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/ports/1/link_layer"), "InfiniBand");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/ports/1/lid"), "0x1a");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/ports/1/sm_lid"), "0x1");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/ports/1/gids/0"),
			 "fe80:0000:0000:0000:a088:c203:0018:0000");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_0/ports/1/pkeys/0"), "0xffff");
	ck_assert(!has(s, "/sys/class/infiniband/mlx5_0/ports/1/port_guid"));
	ck_assert_str_eq(rd(s, "/sys/class/net/ibp24s0/address"),
			 "00:00:10:87:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:18:00:00");
	ck_assert_str_eq(rd(s, "/sys/class/net/ibp24s0/type"), "32");
	ck_assert_str_eq(rd(s, "/sys/class/net/ibp24s0/addr_len"), "20");
	ck_assert_str_eq(rd(s, "/sys/class/net/ibp24s0/mtu"), "4092");
	ck_assert_str_eq(rd(s, "/sys/class/net/ibp24s0/flags"), "0x1003");
	ck_assert_str_eq(rd(s, "/sys/class/net/ibp24s0/operstate"), "up");
	ck_assert_str_eq(rd(s, "/sys/class/net/ibp24s0/dev_port"), "0");
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:18:00.0/vendor"), "0x15b3");
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:18:00.0/device"), "0x1021");
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:18:00.0/sriov_totalvfs"), "16");
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:18:00.0/sriov_numvfs"), "8");
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:18:00.0/sriov_drivers_autoprobe"), "1");
	char buf[64];
	ck_assert_int_gt(
		sys_readlink(s, "/sys/bus/pci/devices/0000:18:00.0/virtfn7", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "../0000:18:01.0");
	ck_assert_int_gt(sys_readlink_name(s, VF("18", "00.1/physfn"), buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0000:18:00.0");
	ck_assert_int_gt(sys_readlink_name(s, VF("18", "00.1/driver"), buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "mlx5_core");
	ck_assert_str_eq(rd(s, VF("18", "00.1/device")), "0x101e");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_12/hca_type"), "MT4126");
	ck_assert_str_eq(rd(s, "/sys/class/net/ibp64s0v0/address"),
			 "00:00:11:87:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:40:00:01");
	ck_assert_str_eq(rd(s, "/sys/class/net/enp41s0f0np0/type"), "1");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_1/ports/1/link_layer"), "Ethernet");
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:29:00.1/sriov_numvfs"), "0");
	ck_assert_str_eq(rd(s, "/proc/sys/kernel/osrelease"), "6.8.0-55-generic");
	ck_assert_str_eq(rd(s, "/proc/sys/kernel/hostname"), "dgx-h200-07");
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:18:00.0/sriov/0/policy"), "Follow");
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:18:00.0/sriov/0/port"),
			 "00:00:00:00:00:00:00:00");
	char rl[PATH_MAX];
	ck_assert_int_gt(sys_readlink(s, "/sys/class/net/ibp24s0", rl, sizeof(rl)), 0);
	ck_assert_str_eq(rl, "../../devices/pci0000:15/0000:15:01.0/"
			     "0000:16:00.0/0000:17:00.0/0000:18:00.0/net/ibp24s0");
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(default_node_has_12_functions_and_64_vfs)
{
	char *dir = fixture(_i == 1, 0);
	struct sys *s = open_sim(dir, NULL, NULL);
	/* 12 PFs, 64 VFs and the 8 GPUs. */
	ck_assert_uint_eq(count(s, "/sys/bus/pci/devices", NULL), 84);
	ck_assert_uint_eq(count(s, "/sys/bus/pci/devices", "physfn"), 64);
	ck_assert_uint_eq(count(s, "/sys/bus/pci/devices", "sriov_totalvfs"), 12);
	/* Faulty: 0000:18:00.2 failed its probe and has no ibdev. */
	ck_assert_uint_eq(count(s, "/sys/class/infiniband", NULL), _i == 1 ? 76 : 75);
	ck_assert_str_eq(
		rd(s, "/sys/class/infiniband/mlx5_12/device/physfn/infiniband/mlx5_0/node_type"),
		"1: CA");
	const char *ib[] = {"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_9", "mlx5_11"};
	for (size_t i = 0; i < 6; i++) {
		char p[128];
		snprintf(p, sizeof(p), "/sys/class/infiniband/%s/hca_type", ib[i]);
		ck_assert_str_eq(rd(s, p), "MT4129");
	}
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(seeded_faults_present_and_absent_when_healthy)
{
	bool faulty = _i == 0;
	char *dir = fixture(!faulty, 0);
	struct sys *s = open_sim(dir, NULL, NULL);
	const char *zero = "0000:0000:0000:0000";
	/* Zero GUIDs: every VF of mlx5_0 and mlx5_4. */
	ck_assert_int_eq(!strcmp(rd(s, VF("18", "00.1/infiniband/mlx5_12/node_guid")), zero),
			 faulty);
	ck_assert_int_eq(!strcmp(rd(s, "/sys/class/net/ibp79s0v7/address"),
				 "00:00:18:87:fe:80:00:00:00:00:00:00:00:00:00:00:00:00:00:00"),
			 faulty);
	ck_assert_int_eq(!strcmp(rd(s, "/sys/bus/pci/devices/0000:4f:00.0/sriov/3/port"),
				 "00:00:00:00:00:00:00:00"),
			 faulty);
	/* A VF port down: mlx5_3 VF 5. */
	char ib[32];
	char **names;
	size_t n;
	ck_assert_int_eq(sys_list(s, VF("40", "00.6/infiniband"), &names, &n), 0);
	ck_assert_uint_eq(n, 1);
	snprintf(ib, sizeof(ib), "%s", names[0]);
	sys_list_free(names, n);
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "/sys/class/infiniband/%s/ports/1/state", ib);
	ck_assert_str_eq(rd(s, p), faulty ? "1: DOWN" : "4: ACTIVE");
	snprintf(p, sizeof(p), "/sys/class/infiniband/%s/ports/1/phys_state", ib);
	ck_assert_str_eq(rd(s, p), faulty ? "2: Polling" : "5: LinkUp");
	/* mlx5_6 fell back to Ethernet. */
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_6/ports/1/link_layer"),
			 faulty ? "Ethernet" : "InfiniBand");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_6/ports/1/rate"),
			 faulty ? "200 Gb/sec (4X HDR)" : "400 Gb/sec (4X NDR)");
	ck_assert_int_eq(has(s, "/sys/class/net/enp154s0np0"), faulty);
	ck_assert_int_eq(has(s, "/sys/class/net/ibp154s0"), !faulty);
	/* Old firmware on mlx5_10. */
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_10/fw_ver"),
			 faulty ? "28.39.1002" : "28.43.1014");
	ck_assert_str_eq(rd(s, "/sys/module/mlx5_core/version"),
			 faulty ? "25.01-0.6.0" : "24.10-0.7.0");
	char *log;
	ck_assert_int_eq(sys_read_kmsg(s, 1 << 20, &log, NULL), 0);
	ck_assert_int_eq(strstr(log, ";mlx5_core: Unknown symbol strlcpy (err -2)\n") != NULL,
			 faulty);
	ck_assert_int_eq(strstr(log, ";mlx5_core: probe of 0000:18:00.2 failed with error -2\n") !=
				 NULL,
			 faulty);
	free(log);
	ck_assert_int_eq(!has(s, VF("18", "00.2/driver")), faulty);
	/* Kernel-named VFs on mlx5_0 and mlx5_5. */
	ck_assert_int_eq(has(s, "/sys/class/net/ib0"), faulty);
	ck_assert_int_eq(has(s, VF("5e", "00.1/net/ib7")), faulty);
	ck_assert_int_eq(has(s, "/sys/class/net/ibp24s0v0"), !faulty);
	/* MOFED files on some PFs only. */
	ck_assert(has(s, "/sys/bus/pci/devices/0000:18:00.0/sriov/0/node"));
	ck_assert_int_eq(has(s, "/sys/bus/pci/devices/0000:9a:00.0/sriov/0/node"), !faulty);
	/* A GUID shared by mlx5_9 VF 2 and mlx5_5 VF 2. */
	ck_assert_int_eq(!strcmp(rd(s, "/sys/class/net/ibp192s0v2/address"),
				 "00:00:13:87:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:5e:00:03"),
			 faulty);
	/* Pods: one stale checkpoint entry, one half-written Multus cache. */
	char *cp;
	ck_assert_int_eq(sys_read_file(s,
				       "/var/lib/kubelet/device-plugins/"
				       "kubelet_internal_checkpoint",
				       1 << 20, &cp, NULL),
			 0);
	ck_assert_int_eq(strstr(cp, "\"0000:18:00.3\"]") != NULL, faulty);
	ck_assert_ptr_nonnull(
		strstr(cp, "\"DeviceIDs\":{\"-1\":[\"0000:c0:00.1\",\"0000:dc:00.1\"]}"));
	free(cp);
	ck_assert(
		json_file_parses(s, "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"));
	ck_assert_int_eq(json_file_parses(s, "/var/lib/cni/multus/results/ib-sriov-network-"
					     "e4d2c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5"
					     "a4938271605f4-net1"),
			 !faulty);
	ck_assert(
		has(s, "/var/log/pods/ml-training_trainer-1_a2b4c6d8-e0f2-4a6c-8e0a-2c4e6f8a0b22"));
	ck_assert(has(s, "/var/run/netns/cni-7b1e5d2c-9a3f-4e6b-8c1d-2f4a6b8c0d24"));
	/* A VF in a pod has left the host's namespace. */
	ck_assert(!has(s, VF("40", "00.4/net")));
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(mkfixture_refuses_bad_arguments)
{
	static const char *const bad[][4] = {
		{"mkfixture", NULL},
		{"mkfixture", "/tmp/x", "--pfs", "0"},
		{"mkfixture", "/tmp/x", "--pfs", "65"},
		{"mkfixture", "/tmp/x", "--vfs", "many"},
		{"mkfixture", "/tmp/x", "--bogus", NULL},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *err = NULL;
		ck_assert_int_eq(tu_run((const char *const *)bad[i], NULL, &err), 2);
		ck_assert_msg(!strncmp(err, "ibvf: ", 6) && strchr(err, '\n') == strrchr(err, '\n'),
			      "stderr: %s", err);
		free(err);
	}
	char *dir = tu_mkfixture((const char *const[]){"--healthy", "--vfs", "2", NULL});
	const char *again[] = {"mkfixture", dir, NULL};
	ck_assert_int_eq(tu_run(again, NULL, NULL), 2); /* not empty */
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("sim");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, fixture_files_have_the_kernel_formats);
	tcase_add_loop_test(tc, default_node_has_12_functions_and_64_vfs, 0, 2);
	tcase_add_loop_test(tc, seeded_faults_present_and_absent_when_healthy, 0, 2);
	tcase_add_test(tc, mkfixture_refuses_bad_arguments);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
