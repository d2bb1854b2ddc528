// SPDX-License-Identifier: MIT
/* The incremental rebuild: after each change on a simulated node, the
 * snapshot node_refresh() builds from the old one and the change events is
 * the one a fresh node_discover() reads, compared as `ibvf list --json`
 * prints them, and the old snapshot left as it was (the fallbacks, for events
 * it cannot place, are in test_refresh_fallback.c). */
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

START_TEST(nothing_changed_gives_the_same_node)
{
	struct rig g;
	rig_open(&g, NULL);
	check_refresh(&g, NULL, 0);
	ck_assert_uint_eq(g.n->n_pfs, 12);
	rig_close(&g);
}
END_TEST

START_TEST(numvfs_8_to_0_to_4_rereads_the_pf_and_its_vfs)
{
	struct rig g;
	rig_open(&g, NULL);
	write_ok(&g, NUMVFS_4F, "0");
	check_refresh(&g, NULL, 0);
	ck_assert_uint_eq(node_find_pf(g.n, "0000:4f:00.0")->n_vfs, 0);
	write_ok(&g, NUMVFS_4F, "4");
	check_refresh(&g, NULL, 0);
	ck_assert_uint_eq(node_find_pf(g.n, "0000:4f:00.0")->n_vfs, 4);
	/* Both in one debounce window: the same BDFs, new functions. */
	write_ok(&g, NUMVFS_4F, "0");
	write_ok(&g, NUMVFS_4F, "8");
	check_refresh(&g, NULL, 0);
	ck_assert_uint_eq(node_find_pf(g.n, "0000:4f:00.0")->n_vfs, 8);
	rig_close(&g);
}
END_TEST

START_TEST(rename_rereads_the_function_owning_the_netdev)
{
	struct rig g;
	rig_open(&g, NULL);
	rename_ok(&g, "ibp79s0v3", "ib42");
	check_refresh(&g, NULL, 0);
	ck_assert_str_eq(node_find_vf(g.n, "0000:4f:00.0", 3)->fn.netdevs[0].name, "ib42");
	rename_ok(&g, "ib42", "ib43");
	rename_ok(&g, "ib43", "ibp79s0v3"); /* back, in one window */
	rename_ok(&g, "ibp64s0", "ibpf64"); /* a PF's netdev */
	check_refresh(&g, NULL, 0);
	ck_assert_str_eq(node_find_pf(g.n, "0000:40:00.0")->fn.netdevs[0].name, "ibpf64");
	rig_close(&g);
}
END_TEST

START_TEST(guid_set_then_unbind_bind_rereads_admin_and_the_vf)
{
	struct rig g;
	struct err e = {{0}};
	rig_open(&g, NULL);
	ck_assert_msg(
		sys_vf_set_guid(g.s, "ibp79s0", 2, SYS_GUID_NODE, 0xa088c203004f0103ull, &e) == 0,
		"%s", e.msg);
	ck_assert_msg(
		sys_vf_set_guid(g.s, "ibp79s0", 2, SYS_GUID_PORT, 0xa088c203004f0003ull, &e) == 0,
		"%s", e.msg);
	check_refresh(&g, NULL, 0);
	ck_assert(node_find_vf(g.n, "0000:4f:00.0", 2)->admin.port_guid.v == 0xa088c203004f0003ull);
	write_ok(&g, UNBIND, "0000:4f:00.3");
	check_refresh(&g, NULL, 0);
	ck_assert_ptr_null(node_find_vf(g.n, "0000:4f:00.0", 2)->fn.driver);
	write_ok(&g, BIND, "0000:4f:00.3");
	check_refresh(&g, NULL, 0);
	ck_assert(node_find_vf(g.n, "0000:4f:00.0", 2)->port_guid.v == 0xa088c203004f0003ull);
	/* Unbind and bind in one window, and a link set up. */
	write_ok(&g, UNBIND, "0000:40:00.2");
	write_ok(&g, BIND, "0000:40:00.2");
	ck_assert_msg(sys_link_set_up(g.s, "ibp79s0v5", false, &e) == 0, "%s", e.msg);
	check_refresh(&g, NULL, 0);
	rig_close(&g);
}
END_TEST

/* Every path a refresh reads, as the kernel boundary's trace reports it. */
struct trace {
	char **paths;
	size_t n;
};

static void trace_add(void *arg, const char *path)
{
	struct trace *t = arg;
	t->paths = realloc(t->paths, (t->n + 1) * sizeof(*t->paths));
	ck_assert_ptr_nonnull(t->paths);
	ck_assert_ptr_nonnull(t->paths[t->n++] = strdup(path));
}

static void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->paths[i]);
	free(t->paths);
}

/* How many paths start with prefix. */
static size_t trace_count(const struct trace *t, const char *prefix)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += !strncmp(t->paths[i], prefix, strlen(prefix));
	return n;
}

/* The one event a VF setting made by another handle raises: the PF's VF
 * admin state, on its netdev. */
static void expect_vf_admin_event(struct rig *g, const char *pf_ifname)
{
	events_read(g);
	ck_assert_uint_eq(g->n_ev, 1);
	ck_assert_str_eq(g->ev[0].action, SYS_EVENT_VF_ADMIN);
	ck_assert_str_eq(g->ev[0].subsystem, "net");
	ck_assert_str_eq(g->ev[0].name, pf_ifname);
	ck_assert_ptr_nonnull(strstr(g->ev[0].devpath, "/0000:4f:00.0/net/"));
}

/* The refresh of those events reads the PF's link once and the MOFED files
 * of the VF whose admin state changed, nothing of any other function. */
static void expect_admin_only_reads(struct rig *g, const char *pf_ifname, const char *vf_sriov)
{
	struct trace t = {0};
	struct node *inc;
	struct err e = {{0}};
	char link[64];
	sys_set_trace(g->s, trace_add, &t);
	ck_assert_msg(node_refresh(g->s, g->n, g->ev, g->n_ev, &inc, &e) == 0, "%s", e.msg);
	sys_set_trace(g->s, NULL, NULL);
	node_free(inc);
	snprintf(link, sizeof(link), "netlink:%s", pf_ifname);
	ck_assert_uint_eq(trace_count(&t, "netlink:"), 1);
	ck_assert_uint_eq(trace_count(&t, link), 1);
	ck_assert_uint_gt(trace_count(&t, vf_sriov), 0);
	for (size_t i = 0; i < t.n; i++)
		ck_assert_msg(strncmp(t.paths[i], "/sys/bus/pci/devices/", 21) ||
				      !strncmp(t.paths[i], vf_sriov, strlen(vf_sriov)),
			      "the refresh read '%s'", t.paths[i]);
	trace_free(&t);
}

START_TEST(a_vf_guid_or_link_state_set_rereads_only_that_vfs_admin_state)
{
	struct rig g;
	struct sys *actor;
	struct err e = {{0}};
	rig_open(&g, NULL);
	ck_assert_msg(sys_open_sim(g.dir, NULL, &actor, &e) == 0, "%s", e.msg);
	ck_assert_msg(sys_vf_set_guid(actor, "ibp79s0", 2, SYS_GUID_PORT, 0x1122ull, &e) == 0, "%s",
		      e.msg);
	expect_vf_admin_event(&g, "ibp79s0");
	expect_admin_only_reads(&g, "ibp79s0", "/sys/bus/pci/devices/0000:4f:00.0/sriov/2");
	check_refresh(&g, g.ev, 1);
	const struct vf *vf = node_find_vf(g.n, "0000:4f:00.0", 2);
	ck_assert(vf->admin.port_guid.known && vf->admin.port_guid.v == 0x1122ull);

	ck_assert_msg(sys_vf_set_link_state(actor, "ibp79s0", 5, 2, &e) == 0, "%s", e.msg);
	expect_vf_admin_event(&g, "ibp79s0");
	expect_admin_only_reads(&g, "ibp79s0", "/sys/bus/pci/devices/0000:4f:00.0/sriov/5");
	check_refresh(&g, g.ev, 1);
	vf = node_find_vf(g.n, "0000:4f:00.0", 5);
	ck_assert(vf->admin.link_state.known && vf->admin.link_state.v == 2);
	ck_assert_str_eq(vf->admin.mofed_policy, "Down");

	/* Through MLNX_OFED's file: the same announcement. */
	write_ok(&g, "/sys/bus/pci/devices/0000:4f:00.0/sriov/6/node", "00:00:00:00:00:00:33:44");
	expect_vf_admin_event(&g, "ibp79s0");
	check_refresh(&g, g.ev, 1);
	vf = node_find_vf(g.n, "0000:4f:00.0", 6);
	ck_assert(vf->admin.node_guid.known && vf->admin.node_guid.v == 0x3344ull);
	sys_close(actor);
	rig_close(&g);
}
END_TEST

/* Link notifications come for every NIC: a change of one outside the model
 * (not SR-IOV, no RDMA) cannot bring it in, so nothing is read for it. */
START_TEST(a_link_change_on_a_nic_outside_the_model_reads_nothing_of_it)
{
	struct rig g;
	struct trace t = {0};
	struct node *inc;
	struct err e = {{0}};
	struct sys_event ev = {.action = "change", .subsystem = "net", .name = "eno1"};
	char path[512];
	rig_open(&g, NULL);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:00:01.0", g.dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(ev.devpath, sizeof(ev.devpath), "/devices/pci0000:00/0000:00:01.0/net/eno1");
	sys_set_trace(g.s, trace_add, &t);
	ck_assert_msg(node_refresh(g.s, g.n, &ev, 1, &inc, &e) == 0, "%s", e.msg);
	sys_set_trace(g.s, NULL, NULL);
	node_free(inc);
	ck_assert_uint_eq(trace_count(&t, "netlink:"), 0); /* no dump: no discovery */
	/* Only whether it is a VF new to the snapshot. */
	ck_assert_uint_eq(trace_count(&t, "/sys/bus/pci/devices/"),
			  trace_count(&t, "/sys/bus/pci/devices/0000:00:01.0/physfn"));
	trace_free(&t);
	check_refresh(&g, &ev, 1);
	rig_close(&g);
}
END_TEST

START_TEST(a_chain_of_refreshes_on_a_large_node_stays_equal)
{
	static const char *const args[] = {"--pfs", "2", "--vfs", "32", "--healthy", NULL};
	struct rig g;
	rig_open(&g, args);
	const struct pf *pf = &g.n->pfs[0];
	char path[128], bdf[16], ifname[16], newname[16];
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov_numvfs", pf->fn.bdf);
	snprintf(bdf, sizeof(bdf), "%s", pf->vfs[5].fn.bdf);
	snprintf(ifname, sizeof(ifname), "%s", pf->vfs[7].fn.netdevs[0].name);
	rename_ok(&g, ifname, "ibchain");
	check_refresh(&g, NULL, 0);
	write_ok(&g, UNBIND, bdf);
	check_refresh(&g, NULL, 0);
	write_ok(&g, BIND, bdf);
	snprintf(newname, sizeof(newname), "%s", ifname);
	rename_ok(&g, "ibchain", newname);
	check_refresh(&g, NULL, 0);
	write_ok(&g, path, "0");
	check_refresh(&g, NULL, 0);
	write_ok(&g, path, "16");
	check_refresh(&g, NULL, 0);
	rig_close(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("refresh");
	TCase *tc = tcase_create("refresh");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, nothing_changed_gives_the_same_node);
	tcase_add_test(tc, numvfs_8_to_0_to_4_rereads_the_pf_and_its_vfs);
	tcase_add_test(tc, rename_rereads_the_function_owning_the_netdev);
	tcase_add_test(tc, guid_set_then_unbind_bind_rereads_admin_and_the_vf);
	tcase_add_test(tc, a_vf_guid_or_link_state_set_rereads_only_that_vfs_admin_state);
	tcase_add_test(tc, a_link_change_on_a_nic_outside_the_model_reads_nothing_of_it);
	tcase_add_test(tc, a_chain_of_refreshes_on_a_large_node_stays_equal);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
