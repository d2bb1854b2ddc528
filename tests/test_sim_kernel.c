// SPDX-License-Identifier: MIT
/* The simulated kernel's side effects (core/sim/): SR-IOV enable and disable,
 * rebinds, the MOFED files, netlink links and renames, events, refused writes
 * and injected faults. */
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

	/* Without the healthy node's .link files udev leaves the kernel's names. */
	char links[4096];
	snprintf(links, sizeof(links), "%s/etc/systemd/network", dir);
	tu_rmtree(strdup(links));
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
	ck_assert_str_eq(ev.devpath, "/devices/pci0000:15/0000:15:01.0/"
				     "0000:16:00.0/0000:17:00.0/0000:18:00.5/net/mlx-18-3");
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

int main(void)
{
	Suite *s = suite_create("sim_kernel");
	TCase *tc = tcase_create("sim");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, numvfs_creates_and_removes_vfs_with_kernel_names);
	tcase_add_test(tc, numvfs_busy_and_out_of_range_change_nothing);
	tcase_add_test(tc, guid_takes_effect_after_unbind_bind_and_renames);
	tcase_add_test(tc, mofed_files_set_admin_state);
	tcase_add_test(tc, link_get_equals_the_dump_entry_vfs_included);
	tcase_add_test(tc, rename_of_an_up_link_depends_on_the_kernel);
	tcase_add_test(tc, events_from_another_handle_wake_the_fd);
	tcase_add_test(tc, injected_faults_fail_and_leave_the_node_unchanged);
	tcase_add_test(tc, refused_writes_return_the_errno_and_name_the_file);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
