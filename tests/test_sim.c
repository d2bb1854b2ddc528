// SPDX-License-Identifier: MIT
/* The simulated DGX H200: the fixture's exact formats and seeded faults, and
 * the simulated kernel's side effects (core/sim/). */
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

#include "core/guid.h"
#include "core/sim/sim_tree.h"
#include "core/sys.h"
#include "testutil.h"

static char *fixture(bool healthy, unsigned int vfs)
{
	char tmpl[] = "/tmp/ibvf-sim-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	struct sim_fixture_opts o = {.healthy = healthy, .vfs = vfs};
	struct err e = {""};
	int r = sim_fixture_create(tmpl, &o, &e);
	ck_assert_msg(r == 0, "sim_fixture_create: %s", e.msg);
	return strdup(tmpl);
}

static struct sys *open_sim(const char *dir, const char *kernel, const char *faults)
{
	struct sys_sim_params p = {.kernel = kernel, .faults = faults};
	struct sys *s = NULL;
	struct err e = {""};
	int r = sys_open_sim(dir, &p, &s, &e);
	ck_assert_msg(r == 0, "sys_open_sim: %s", e.msg);
	return s;
}

/* The file's content without its trailing newline, in a static buffer. */
static const char *rd(struct sys *s, const char *path)
{
	static char buf[8][512];
	static int i;
	char *b = buf[i++ % 8];
	int r = sys_read_attr(s, path, b, sizeof(buf[0]));
	if (r < 0)
		snprintf(b, sizeof(buf[0]), "<%s>", strerror(-r));
	return b;
}

static bool has(struct sys *s, const char *path)
{
	return sys_exists(s, path) == 0;
}

static size_t count(struct sys *s, const char *path, const char *member)
{
	char **names, p[PATH_MAX];
	size_t n, k = 0;
	ck_assert_int_eq(sys_list(s, path, &names, &n), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s/%s", path, names[i], member ? member : "");
		k += !member || has(s, p);
	}
	sys_list_free(names, n);
	return k;
}

#define VF(pfbus, rest) "/sys/bus/pci/devices/0000:" pfbus ":" rest

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
	ck_assert_str_eq(rl, "../../devices/pci0000:17/0000:17:01.0/0000:18:00.0/net/ibp24s0");
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(default_node_has_12_functions_and_64_vfs)
{
	char *dir = fixture(_i == 1, 0);
	struct sys *s = open_sim(dir, NULL, NULL);
	ck_assert_uint_eq(count(s, "/sys/bus/pci/devices", NULL), 76);
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

static bool json_file_parses(struct sys *s, const char *path)
{
	char *text;
	ck_assert_int_eq(sys_read_file(s, path, 1 << 20, &text, NULL), 0);
	json_object *j = json_tokener_parse(text);
	free(text);
	json_object_put(j);
	return j != NULL;
}

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

static int write_v(struct sys *s, const char *path, const char *value, struct err *e)
{
	memset(e, 0, sizeof(*e));
	return sys_write(s, path, value, e);
}

static bool saw_event(struct sys *s, const char *action, const char *subsystem, const char *name)
{
	struct sys_event ev;
	int r;
	bool seen = false;
	while ((r = sys_event_read(s, &ev)) == 1)
		seen |= !strcmp(ev.action, action) && !strcmp(ev.subsystem, subsystem) &&
			!strcmp(ev.name, name);
	ck_assert_int_eq(r, 0);
	return seen;
}

START_TEST(numvfs_creates_and_removes_vfs_with_kernel_names)
{
	char *dir = fixture(true, 0);
	struct sys *s = open_sim(dir, NULL, NULL);
	struct err e;
	const char *nv = "/sys/class/net/ibp24s0/device/sriov_numvfs";
	ck_assert_int_eq(write_v(s, nv, "0", &e), 0);
	ck_assert_str_eq(rd(s, nv), "0");
	ck_assert(!has(s, VF("18", "00.1")));
	ck_assert(!has(s, "/sys/class/net/ibp24s0v0"));
	ck_assert(!has(s, "/sys/class/infiniband/mlx5_12"));
	ck_assert(!has(s, "/sys/bus/pci/devices/0000:18:00.0/virtfn0"));
	ck_assert(saw_event(s, "remove", "pci", "0000:18:01.0"));

	ck_assert_int_eq(write_v(s, nv, "8\n", &e), 0);
	ck_assert_str_eq(rd(s, nv), "8");
	ck_assert(has(s, VF("18", "01.0/physfn")));
	ck_assert(has(s, VF("18", "00.1/net/ib0")));
	ck_assert(has(s, VF("18", "01.0/net/ib7")));
	ck_assert(has(s, VF("18", "00.1/infiniband/mlx5_12")));
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_12/node_guid"), "0000:0000:0000:0000");
	ck_assert_str_eq(rd(s, "/sys/class/infiniband/mlx5_12/ports/1/state"), "1: DOWN");
	ck_assert_str_eq(rd(s, "/sys/class/net/ib3/flags"), "0x1002");
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:18:00.0/sriov/7/policy"), "Follow");
	ck_assert(saw_event(s, "add", "net", "ib7"));

	ck_assert_int_eq(write_v(s, nv, "0", &e), 0);
	ck_assert(!has(s, "/sys/class/net/ib0"));
	ck_assert(!has(s, "/sys/class/infiniband/mlx5_12"));
	ck_assert(!has(s, "/sys/bus/pci/devices/0000:18:00.0/sriov/0"));
	ck_assert(saw_event(s, "remove", "net", "ib0"));
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(numvfs_busy_and_out_of_range_change_nothing)
{
	char *dir = fixture(false, 0);
	struct sys *s = open_sim(dir, NULL, NULL);
	struct err e;
	const char *nv = "/sys/bus/pci/devices/0000:18:00.0/sriov_numvfs";
	ck_assert_int_eq(write_v(s, nv, "4", &e), -EBUSY);
	ck_assert_str_eq(e.msg, "cannot write '4' to '/sys/bus/pci/devices/0000:18:00.0/"
				"sriov_numvfs': Device or resource busy (VFs already enabled; "
				"write 0 first)");
	ck_assert_str_eq(rd(s, nv), "8");
	ck_assert(has(s, VF("18", "01.0")));
	ck_assert_int_eq(write_v(s, nv, "8", &e), 0); /* same value: a no-op */
	ck_assert_int_eq(write_v(s, nv, "0", &e), 0);
	ck_assert_int_eq(write_v(s, nv, "17", &e), -ERANGE);
	ck_assert_int_eq(write_v(s, nv, "x", &e), -EINVAL);
	ck_assert_str_eq(rd(s, nv), "0");
	ck_assert(!has(s, VF("18", "00.1")));
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(guid_takes_effect_after_unbind_bind_and_renames)
{
	char *dir = fixture(false, 0);
	struct sys *s = open_sim(dir, NULL, NULL);
	struct err e = {""};
	const uint64_t g = 0x0011223344550001ULL;
	ck_assert_int_eq(sys_vf_set_guid(s, "ibp79s0", 0, SYS_GUID_NODE, g, &e), 0);
	ck_assert_int_eq(sys_vf_set_guid(s, "ibp79s0", 0, SYS_GUID_PORT, g, &e), 0);
	ck_assert_int_eq(sys_vf_set_guid(s, "ibp79s0", 8, SYS_GUID_PORT, g, &e), -EINVAL);
	ck_assert_int_eq(sys_vf_set_guid(s, "enp154s0np0", 0, SYS_GUID_PORT, g, &e), -EOPNOTSUPP);
	/* Administrative only: the VF still runs with zero GUIDs. */
	ck_assert_str_eq(rd(s, VF("4f", "00.1/net/ibp79s0v0/address")),
			 "00:00:11:87:fe:80:00:00:00:00:00:00:00:00:00:00:00:00:00:00");
	struct sys_link *links;
	size_t n;
	ck_assert_int_eq(sys_link_dump(s, &links, &n, &e), 0);
	bool found = false;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(links[i].name, "ibp79s0")) {
			ck_assert_int_eq(links[i].num_vf, 8);
			ck_assert_uint_eq(links[i].n_vfs, 8);
			ck_assert(links[i].vfs[0].port_guid_known);
			ck_assert_uint_eq(links[i].vfs[0].port_guid, g);
			ck_assert_uint_eq(links[i].type, 32);
			ck_assert_uint_eq(links[i].addr_len, 20);
			found = true;
		}
	sys_links_free(links, n);
	ck_assert(found);

	ck_assert_int_eq(write_v(s, "/sys/bus/pci/drivers/mlx5_core/unbind", "0000:4f:00.1", &e),
			 0);
	ck_assert(!has(s, "/sys/class/net/ibp79s0v0"));
	ck_assert(!has(s, VF("4f", "00.1/driver")));
	ck_assert_int_eq(write_v(s, "/sys/bus/pci/drivers/mlx5_core/unbind", "0000:4f:00.1", &e),
			 -ENODEV);
	ck_assert_int_eq(write_v(s, "/sys/bus/pci/drivers/mlx5_core/bind", "0000:4f:00.1", &e), 0);
	/* Faulty node: ib0..ib13 are taken, so the rebind names it ib14. */
	ck_assert(has(s, VF("4f", "00.1/net/ib14")));
	ck_assert_str_eq(rd(s, "/sys/class/net/ib14/address"),
			 "00:00:11:87:fe:80:00:00:00:00:00:00:00:11:22:33:44:55:00:01");
	char **names;
	ck_assert_int_eq(sys_list(s, VF("4f", "00.1/infiniband"), &names, &n), 0);
	ck_assert_uint_eq(n, 1);
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "/sys/class/infiniband/%s/node_guid", names[0]);
	ck_assert_str_eq(rd(s, p), "0011:2233:4455:0001");
	snprintf(p, sizeof(p), "/sys/class/infiniband/%s/ports/1/state", names[0]);
	ck_assert_str_eq(rd(s, p), "4: ACTIVE");
	sys_list_free(names, n);
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:4f:00.0/sriov/0/port"),
			 "00:11:22:33:44:55:00:01");
	ck_assert(saw_event(s, "bind", "pci", "0000:4f:00.1"));
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(mofed_files_set_admin_state)
{
	char *dir = fixture(false, 0);
	struct sys *s = open_sim(dir, NULL, NULL);
	struct err e;
	const char *port = "/sys/bus/pci/devices/0000:4f:00.0/sriov/2/port";
	ck_assert_int_eq(write_v(s, port, "00:11:22:33:44:55:00:03\n", &e), 0);
	ck_assert_str_eq(rd(s, port), "00:00:00:00:00:00:00:00"); /* in effect: unchanged */
	ck_assert_int_eq(write_v(s, port, "zz", &e), -EINVAL);
	ck_assert_int_eq(write_v(s, "/sys/bus/pci/devices/0000:4f:00.0/sriov/2/policy", "Down", &e),
			 0);
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:4f:00.0/sriov/2/policy"), "Down");
	ck_assert_int_eq(
		write_v(s, "/sys/bus/pci/devices/0000:4f:00.0/sriov/2/policy", "Sideways", &e),
		-EINVAL);
	ck_assert_int_eq(sys_vf_set_link_state(s, "ibp79s0", 3, 1, &e), 0);
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:4f:00.0/sriov/3/policy"), "Up");
	struct sys_link *links;
	size_t n;
	ck_assert_int_eq(sys_link_dump(s, &links, &n, &e), 0);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(links[i].name, "ibp79s0")) {
			ck_assert_uint_eq(links[i].vfs[2].port_guid, 0x0011223344550003ULL);
			ck_assert_int_eq(links[i].vfs[2].link_state, 2);
			ck_assert_int_eq(links[i].vfs[3].link_state, 1);
		}
	sys_links_free(links, n);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(link_get_equals_the_dump_entry_vfs_included)
{
	char *dir = fixture(false, 0);
	struct sys *s = open_sim(dir, NULL, NULL);
	struct err e = {""};
	ck_assert_int_eq(sys_vf_set_guid(s, "ibp79s0", 2, SYS_GUID_PORT, 0x11ULL, &e), 0);
	ck_assert_int_eq(sys_vf_set_link_state(s, "ibp79s0", 5, 2, &e), 0);
	struct sys_link *links, l;
	size_t n;
	ck_assert_int_eq(sys_link_dump(s, &links, &n, &e), 0);
	const struct sys_link *want = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(links[i].name, "ibp79s0"))
			want = &links[i];
	ck_assert_ptr_nonnull(want);
	ck_assert_int_eq(sys_link_get(s, "ibp79s0", &l, &e), 0);
	ck_assert_int_eq(l.num_vf, 8);
	ck_assert_uint_eq(l.n_vfs, 8);
	ck_assert_uint_eq(l.vfs[2].port_guid, 0x11ULL);
	ck_assert_int_eq(l.vfs[5].link_state, 2);
	ck_assert_int_eq(memcmp(l.vfs, want->vfs, l.n_vfs * sizeof(*l.vfs)), 0);
	/* Both are zeroed before they are filled: padding compares equal. */
	struct sys_link a = l, b = *want;
	a.vfs = b.vfs = NULL;
	ck_assert_int_eq(memcmp(&a, &b, sizeof(a)), 0);
	sys_link_fini(&l);
	ck_assert_ptr_null(l.vfs);
	sys_links_free(links, n);

	l.ifindex = 4242;
	ck_assert_int_eq(sys_link_get(s, "nosuch0", &l, &e), -ENODEV);
	ck_assert_str_eq(e.msg, "no network interface 'nosuch0'");
	ck_assert_int_eq(l.ifindex, 4242);
	ck_assert_int_eq(sys_link_get(s, "", &l, &e), -ENODEV);
	sys_close(s);
	s = open_sim(dir, NULL, "link_get=EIO");
	ck_assert_int_eq(sys_link_get(s, "ibp79s0", &l, &e), -EIO);
	ck_assert_str_eq(e.msg, "cannot get link 'ibp79s0': Input/output error (injected fault)");
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(rename_of_an_up_link_depends_on_the_kernel)
{
	char *dir = fixture(false, 0);
	struct sys *old = open_sim(dir, "6.1.0-18-amd64", NULL);
	struct sys *now = open_sim(dir, "6.8.0-55-generic", NULL);
	struct err e = {""};
	ck_assert_int_eq(sys_link_rename(old, "ib0", "vf0", &e), -EBUSY);
	ck_assert_ptr_nonnull(
		strstr(e.msg, "cannot rename 'ib0' to 'vf0': Device or resource busy"));
	ck_assert(has(old, "/sys/class/net/ib0"));
	ck_assert_int_eq(sys_link_set_up(old, "ib0", false, &e), 0);
	ck_assert_str_eq(rd(old, "/sys/class/net/ib0/flags"), "0x1002");
	ck_assert_str_eq(rd(old, "/sys/class/net/ib0/operstate"), "down");
	ck_assert_int_eq(sys_link_rename(old, "ib0", "vf0", &e), 0);
	ck_assert(has(old, "/sys/class/net/vf0/device/physfn"));
	ck_assert(!has(old, "/sys/class/net/ib0"));

	ck_assert_int_eq(sys_link_rename(now, "ib1", "vf1", &e), 0);
	ck_assert(has(now, VF("18", "00.3/net/vf1")));
	ck_assert_int_eq(sys_link_rename(now, "ib2", "vf1", &e), -EEXIST);
	ck_assert_int_eq(sys_link_rename(now, "ib2", "a/b", &e), -EINVAL);
	ck_assert_int_eq(sys_link_rename(now, "ib2", "sixteen-chars-xx", &e), -EINVAL);
	ck_assert_int_eq(sys_link_rename(now, "nosuch", "x", &e), -ENODEV);
	ck_assert(saw_event(now, "move", "net", "vf1"));
	sys_close(old);
	sys_close(now);
	tu_rmtree(dir);
}
END_TEST

START_TEST(events_from_another_handle_wake_the_fd)
{
	char *dir = fixture(false, 0);
	struct sys *watcher = open_sim(dir, NULL, NULL);
	struct sys *actor = open_sim(dir, NULL, NULL);
	struct err e;
	struct sys_event ev;
	ck_assert_int_eq(sys_event_read(watcher, &ev), 0); /* starts at the end */
	struct pollfd pfd = {.fd = sys_event_fd(watcher), .events = POLLIN};
	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	ck_assert_int_eq(sys_link_rename(actor, "ib3", "mlx-18-3", &e), 0);
	ck_assert_int_eq(poll(&pfd, 1, 2000), 1);
	ck_assert_int_eq(sys_event_read(watcher, &ev), 1);
	ck_assert_str_eq(ev.action, "move");
	ck_assert_str_eq(ev.subsystem, "net");
	ck_assert_str_eq(ev.name, "mlx-18-3");
	ck_assert_str_eq(ev.old_name, "ib3");
	ck_assert_str_eq(ev.devpath, "/devices/pci0000:17/0000:17:01.0/0000:18:00.5/net/mlx-18-3");
	ck_assert_int_eq(sys_event_read(watcher, &ev), 0);
	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	sys_close(actor);
	sys_close(watcher);
	tu_rmtree(dir);
}
END_TEST

/* The simulated kernel gives the errno as the return value and the reason in
 * the message, which names the file and the value; a failure of the tree
 * itself keeps its own message (nothing is rewrapped or parsed). */
START_TEST(refused_writes_return_the_errno_and_name_the_file)
{
	char *dir = fixture(true, 2);
	struct sys *s = open_sim(dir, NULL, "write:sriov/1/node=EPERM");
	struct err e;
	ck_assert_int_eq(write_v(s, "/sys/bus/pci/drivers/mlx5_core/bind", "0000:18:00.1\n", &e),
			 -EBUSY);
	ck_assert_str_eq(e.msg, "cannot write '0000:18:00.1' to '/sys/bus/pci/drivers/mlx5_core/"
				"bind': Device or resource busy ('0000:18:00.1' is already bound)");
	ck_assert_int_eq(write_v(s, "/sys/bus/pci/drivers/mlx5_core/unbind", "0000:18:00.0", &e),
			 -EOPNOTSUPP);
	ck_assert_str_eq(e.msg, "cannot write '0000:18:00.0' to '/sys/bus/pci/drivers/mlx5_core/"
				"unbind': Operation not supported (the simulated kernel unbinds "
				"VFs only)");
	ck_assert_int_eq(write_v(s, "/sys/bus/pci/devices/0000:18:00.0/sriov/0/node", "zz\n", &e),
			 -EINVAL);
	ck_assert_str_eq(e.msg, "cannot write 'zz' to '/sys/bus/pci/devices/0000:18:00.0/sriov/0/"
				"node': Invalid argument (not a GUID)");
	ck_assert_int_eq(write_v(s, "/sys/bus/pci/devices/0000:18:00.0/sriov/1/node", "0", &e),
			 -EPERM);
	ck_assert_str_eq(e.msg, "cannot write '0' to '/sys/bus/pci/devices/0000:18:00.0/sriov/1/"
				"node': Operation not permitted (injected fault)");

	/* The tree fails under the kernel's action: its own message comes back. */
	char p[PATH_MAX], msg[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/.sim/events", dir);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(write_v(s, "/sys/bus/pci/devices/0000:18:00.0/sriov_numvfs", "0", &e),
			 -EISDIR);
	snprintf(msg, sizeof(msg), "cannot open '%s': Is a directory", p);
	ck_assert_str_eq(e.msg, msg);
	rmdir(p);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(injected_faults_fail_and_leave_the_node_unchanged)
{
	char *dir = fixture(false, 0);
	struct sys *s = open_sim(dir, NULL, "write:sriov_numvfs=EIO");
	struct err e;
	const char *nv = "/sys/bus/pci/devices/0000:18:00.0/sriov_numvfs";
	ck_assert_int_eq(write_v(s, nv, "0", &e), -EIO);
	ck_assert_ptr_nonnull(strstr(e.msg, "injected fault"));
	ck_assert_str_eq(rd(s, nv), "8");
	ck_assert(has(s, VF("18", "00.1/net/ib0")));

	/* Armed through the file, for every process driving the node. */
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/.sim/faults", dir);
	tu_write(p, "rename=EBUSY\nvanish:0000:18:00.4\n");
	struct sys *other = open_sim(dir, NULL, NULL);
	ck_assert_int_eq(sys_link_rename(other, "ib1", "x1", &e), -EBUSY);
	ck_assert(has(other, "/sys/class/net/ib1"));
	/* 18:00.4 vanished at that call: unbinding it now fails. */
	ck_assert(!has(other, "/sys/bus/pci/devices/0000:18:00.4"));
	ck_assert(!has(other, "/sys/bus/pci/devices/0000:18:00.0/virtfn3"));
	ck_assert(!has(other, "/sys/class/net/ib2"));
	ck_assert_int_eq(
		write_v(other, "/sys/bus/pci/drivers/mlx5_core/unbind", "0000:18:00.4", &e),
		-ENODEV);
	ck_assert(saw_event(other, "remove", "pci", "0000:18:00.4"));
	sys_close(other);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(large_node_numbers_stay_valid)
{
	char tmpl[] = "/tmp/ibvf-sim-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	struct sim_fixture_opts o = {.healthy = true, .pfs = 8, .vfs = 127};
	struct err e = {""};
	ck_assert_msg(sim_fixture_create(tmpl, &o, &e) == 0, "%s", e.msg);
	char *dir = strdup(tmpl);
	struct sys *s = open_sim(dir, NULL, NULL);
	ck_assert_uint_eq(count(s, "/sys/bus/pci/devices", "physfn"), 8 * 127);
	ck_assert_uint_eq(count(s, "/sys/class/infiniband", NULL), 12 + 8 * 127);
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:18:00.0/sriov_totalvfs"), "127");
	ck_assert_str_eq(rd(s, "/sys/bus/pci/devices/0000:18:00.0/sriov_numvfs"), "127");
	char buf[64];
	ck_assert_int_gt(sys_readlink_name(s, "/sys/bus/pci/devices/0000:dc:00.0/virtfn126", buf,
					   sizeof(buf)),
			 0);
	ck_assert_str_eq(buf, "0000:dc:0f.7");
	ck_assert(has(s, "/sys/class/net/ibp220s0v126"));
	ck_assert(has(s, "/sys/class/infiniband/mlx5_1027/node_guid"));
	ck_assert(!has(s, "/sys/class/infiniband/mlx5_1028"));
	sys_close(s);
	tu_rmtree(dir);

	/* More PFs than the DGX has: still valid, distinct buses. */
	ck_assert_ptr_nonnull(mkdtemp(strcpy(tmpl, "/tmp/ibvf-sim-XXXXXX")));
	o = (struct sim_fixture_opts){.pfs = 64, .vfs = 2};
	ck_assert_msg(sim_fixture_create(tmpl, &o, &e) == 0, "%s", e.msg);
	dir = strdup(tmpl);
	s = open_sim(dir, NULL, NULL);
	ck_assert_uint_eq(count(s, "/sys/bus/pci/devices", "sriov_totalvfs"), 68);
	ck_assert_uint_eq(count(s, "/sys/bus/pci/devices", "physfn"), 128);
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
	tcase_add_test(tc, numvfs_creates_and_removes_vfs_with_kernel_names);
	tcase_add_test(tc, numvfs_busy_and_out_of_range_change_nothing);
	tcase_add_test(tc, guid_takes_effect_after_unbind_bind_and_renames);
	tcase_add_test(tc, mofed_files_set_admin_state);
	tcase_add_test(tc, link_get_equals_the_dump_entry_vfs_included);
	tcase_add_test(tc, rename_of_an_up_link_depends_on_the_kernel);
	tcase_add_test(tc, events_from_another_handle_wake_the_fd);
	tcase_add_test(tc, injected_faults_fail_and_leave_the_node_unchanged);
	tcase_add_test(tc, refused_writes_return_the_errno_and_name_the_file);
	tcase_add_test(tc, mkfixture_refuses_bad_arguments);
	suite_add_tcase(s, tc);
	/* 50000 files: slow on a loaded disk. */
	TCase *large = tcase_create("large");
	tcase_set_timeout(large, 280);
	tcase_add_test(large, large_node_numbers_stay_valid);
	suite_add_tcase(s, large);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
