// SPDX-License-Identifier: MIT
/* The incremental rebuild's fallbacks: a failed link lookup, an unreadable
 * virtfn link, unplaceable or too many events fall back to the dump or a full
 * discovery; events for vanished functions change nothing or drop the VF.
 * Each refresh is compared with a fresh node_discover(). */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/snapshot/json.h"
#include "core/model/node.h"
#include "core/sys/sys.h"
#include "testutil.h"

#include "refreshutil.h"

/* Links are looked up one by one; when that fails the refresh takes the
 * dump, and when the old snapshot's dump had failed it discovers the node. */
START_TEST(a_failed_link_lookup_falls_back_to_the_dump)
{
	struct rig g;
	struct err e = {{0}};
	char path[512];
	rig_open(&g, NULL);
	snprintf(path, sizeof(path), "%s/.sim/faults", g.dir);
	tu_write(path, "link_get=EIO\n");
	ck_assert_msg(
		sys_vf_set_guid(g.s, "ibp79s0", 1, SYS_GUID_PORT, 0xa088c203004f0002ull, &e) == 0,
		"%s", e.msg);
	check_refresh(&g, NULL, 0);
	ck_assert(node_find_vf(g.n, "0000:4f:00.0", 1)->admin.port_guid.v == 0xa088c203004f0002ull);
	write_ok(&g, UNBIND, "0000:4f:00.3");
	write_ok(&g, BIND, "0000:4f:00.3");
	check_refresh(&g, NULL, 0);

	/* The dump fails: the snapshot says so, and lookups may not hide it. */
	tu_write(path, "link_dump=EIO\n");
	node_free(g.n);
	ck_assert_msg(node_discover(g.s, &g.n, &e) == 0, "discover: %s", e.msg);
	ck_assert(!node_find_vf(g.n, "0000:4f:00.0", 1)->admin.netlink_known);
	ck_assert(g.n->links_unknown);
	tu_write(path, "");
	ck_assert_msg(sys_vf_set_guid(g.s, "ibp79s0", 1, SYS_GUID_PORT, 0x42ull, &e) == 0, "%s",
		      e.msg);
	check_refresh(&g, NULL, 0);
	ck_assert(node_find_vf(g.n, "0000:4f:00.0", 1)->admin.port_guid.v == 0x42ull);
	rig_close(&g);
}
END_TEST

/* A PF whose virtfn<N> link cannot be read: discovery says so in the notes
 * and in a flag, and a refresh reads the whole node again. */
START_TEST(an_unreadable_virtfn_link_makes_refresh_discover)
{
	struct rig g;
	struct err e = {{0}};
	char path[512];
	rig_open(&g, NULL);
	ck_assert(!g.n->virtfn_unread && !g.n->links_unknown);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:4f:00.0/virtfn2", g.dir);
	ck_assert_int_eq(unlink(path), 0);
	tu_write(path, "not a link\n");
	node_free(g.n);
	ck_assert_msg(node_discover(g.s, &g.n, &e) == 0, "discover: %s", e.msg);
	ck_assert(g.n->virtfn_unread);
	bool named = false;
	for (size_t i = 0; i < g.n->n_notes; i++)
		named |= !strcmp(g.n->notes[i],
				 "cannot read link '/sys/bus/pci/devices/0000:4f:00.0/virtfn2'");
	ck_assert(named);
	rename_ok(&g, "ib0", "gpu0rdma");
	check_refresh(&g, NULL, 0);
	ck_assert(g.n->virtfn_unread);
	rig_close(&g);
}
END_TEST

/* Fallbacks: each change is announced by an event refresh cannot place, so
 * only a full discovery sees it (equality proves it fell back). */
START_TEST(unplaceable_events_fall_back_to_discovery)
{
	struct rig g;
	rig_open(&g, NULL);
	struct sys_event ev[2] = {0};

	/* Another subsystem. */
	rename_ok(&g, "ibp79s0v1", "ibfb1");
	events_read(&g);
	snprintf(ev[0].action, sizeof(ev[0].action), "change");
	snprintf(ev[0].subsystem, sizeof(ev[0].subsystem), "block");
	snprintf(ev[0].name, sizeof(ev[0].name), "nvme0n1");
	snprintf(ev[0].devpath, sizeof(ev[0].devpath), "/devices/virtual/block/nvme0n1");
	check_refresh(&g, ev, 1);

	/* A Soft-RoCE device (virtual devpath). */
	rename_ok(&g, "ibfb1", "ibfb2");
	events_read(&g);
	snprintf(ev[0].subsystem, sizeof(ev[0].subsystem), "infiniband");
	snprintf(ev[0].name, sizeof(ev[0].name), "rxe0");
	snprintf(ev[0].devpath, sizeof(ev[0].devpath), "/devices/virtual/infiniband/rxe0");
	check_refresh(&g, ev, 1);

	/* A PCI function new to the snapshot and no VF of a known PF: a device
	 * hot-plugged into the tree. */
	char path[512];
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:00:01.0", g.dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	rename_ok(&g, "ibfb2", "ibfb3");
	events_read(&g);
	snprintf(ev[0].action, sizeof(ev[0].action), "add");
	snprintf(ev[0].subsystem, sizeof(ev[0].subsystem), "pci");
	snprintf(ev[0].name, sizeof(ev[0].name), "0000:00:01.0");
	snprintf(ev[0].devpath, sizeof(ev[0].devpath), "/devices/pci0000:00/0000:00:01.0");
	check_refresh(&g, ev, 1);

	/* A netdev of no known function, with no PCI address in its devpath. */
	rename_ok(&g, "ibfb3", "ibfb4");
	events_read(&g);
	snprintf(ev[0].subsystem, sizeof(ev[0].subsystem), "net");
	snprintf(ev[0].name, sizeof(ev[0].name), "ibnowhere");
	snprintf(ev[0].devpath, sizeof(ev[0].devpath), "/devices/platform/ibnowhere");
	check_refresh(&g, ev, 1);
	rig_close(&g);
}
END_TEST

START_TEST(too_many_events_fall_back_to_discovery)
{
	struct rig g;
	rig_open(&g, NULL);
	rename_ok(&g, "ibp79s0v1", "ibmany");
	events_read(&g);
	/* The rename's own event, drowned: past the limit refresh reads it all. */
	for (size_t i = g.n_ev; i < NODE_REFRESH_EVENTS_MAX + 1; i++) {
		struct sys_event *ev = &g.ev[i];
		memset(ev, 0, sizeof(*ev));
		snprintf(ev->action, sizeof(ev->action), "change");
		snprintf(ev->subsystem, sizeof(ev->subsystem), "pci");
		snprintf(ev->name, sizeof(ev->name), "0000:99:00.0"); /* gone: ignored alone */
		snprintf(ev->devpath, sizeof(ev->devpath), "/devices/pci0000:99/0000:99:00.0");
	}
	g.n_ev = NODE_REFRESH_EVENTS_MAX + 1;
	/* With the rename's event dropped, only the fallback sees the rename. */
	g.ev[0] = g.ev[1];
	check_refresh(&g, g.ev, g.n_ev);
	ck_assert_str_eq(node_find_vf(g.n, "0000:4f:00.0", 1)->fn.netdevs[0].name, "ibmany");
	rig_close(&g);
}
END_TEST

START_TEST(an_event_for_a_vanished_unknown_function_changes_nothing)
{
	struct rig g;
	rig_open(&g, NULL);
	struct sys_event ev = {0};
	snprintf(ev.action, sizeof(ev.action), "remove");
	snprintf(ev.subsystem, sizeof(ev.subsystem), "pci");
	snprintf(ev.name, sizeof(ev.name), "0000:99:00.0");
	snprintf(ev.devpath, sizeof(ev.devpath), "/devices/pci0000:99/0000:99:00.0");
	check_refresh(&g, &ev, 1);
	rig_close(&g);
}
END_TEST

START_TEST(a_vanished_vf_is_dropped)
{
	struct rig g;
	rig_open(&g, NULL);
	/* Armed for the next mutating call: the VF goes, then the rename runs. */
	char path[512];
	snprintf(path, sizeof(path), "%s/.sim/faults", g.dir);
	tu_write(path, "vanish:0000:4f:00.6\n");
	rename_ok(&g, "ibp79s0v1", "ibvan");
	check_refresh(&g, NULL, 0);
	ck_assert_ptr_null(node_find_vf(g.n, "0000:4f:00.0", 5));
	rig_close(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("refresh_fallback");
	TCase *tc = tcase_create("refresh");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, a_failed_link_lookup_falls_back_to_the_dump);
	tcase_add_test(tc, an_unreadable_virtfn_link_makes_refresh_discover);
	tcase_add_test(tc, unplaceable_events_fall_back_to_discovery);
	tcase_add_test(tc, too_many_events_fall_back_to_discovery);
	tcase_add_test(tc, an_event_for_a_vanished_unknown_function_changes_nothing);
	tcase_add_test(tc, a_vanished_vf_is_dropped);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
