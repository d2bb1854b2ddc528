// SPDX-License-Identifier: MIT
/* The simulator at scale: a node of 8 PFs with 127 VFs each, and one of 64
 * PFs, keep valid numbers, names and buses. Alone in its suite: 50000 files
 * take most of the simulator tests' time on a loaded disk. */
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

int main(void)
{
	Suite *s = suite_create("sim_large");
	/* 50000 files: slow on a loaded disk. */
	TCase *large = tcase_create("large");
	tcase_set_timeout(large, 280);
	tcase_add_test(large, large_node_numbers_stay_valid);
	suite_add_tcase(s, large);
	return tu_run_suite(s);
}
