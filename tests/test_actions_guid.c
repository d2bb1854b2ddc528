// SPDX-License-Identifier: MIT
/* GUID and VF link-state actions end to end on the simulated DGX H200: the
 * real binary with --sim, each GUID taking effect through a rebind, the
 * assigned GUIDs unique and non-zero, the derived scheme, and the link state
 * through the MOFED files and netlink. */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "core/persist/naming.h"
#include "core/actions/actions.h"
#include "core/actions/journal.h"
#include "core/model/node.h"
#include "core/sys/sys.h"
#include "testutil.h"

#include "actionsutil.h"

START_TEST(guid_takes_effect_through_a_rebind_and_the_name_stays)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	/* 0000:c0:00.2 (ibp192s0v1) has no MOFED files: netlink on the PF. */
	int rc = tu_sim_run(dir, &out, &err, "vf", "guid", "ibp192s0v1", "--node",
			    "0011:2233:4455:0001", "--port", "0x0011223344550001", "--yes", NULL);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	ck_assert_ptr_nonnull(
		strstr(out, "$ ip link set dev ibp192s0 vf 1 port_guid 00:11:22:33:44:55:00:01"));
	ck_assert_ptr_nonnull(
		strstr(out, "echo 0000:c0:00.2 > /sys/bus/pci/drivers/mlx5_core/unbind"));
	struct node *n = discover(dir);
	const struct vf *vf = vf_by_bdf(n, "0000:c0:00.2");
	ck_assert(vf->node_guid.known && vf->node_guid.v == 0x0011223344550001ULL);
	ck_assert(vf->port_guid.known && vf->port_guid.v == 0x0011223344550001ULL);
	ck_assert(vf->admin.port_guid.known && vf->admin.port_guid.v == 0x0011223344550001ULL);
	ck_assert_str_eq(vf_netdev(vf), "ibp192s0v1");
	node_free(n);
	free(out);
	free(err);
	/* The same GUID on another VF is a duplicate now. */
	assert_refused(dir, "already in use", "vf", "guid", "ibp192s0v2", "--port",
		       "00:11:22:33:44:55:00:01", "--yes", NULL);
	tu_rmtree(dir);
}
END_TEST

static size_t count_bad_guids(const struct node *n, size_t *ret_zero)
{
	size_t dup = 0, zero = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *a = &n->pfs[i].vfs[j];
			if (!a->fn.driver || !a->port_guid.known)
				continue;
			zero += a->port_guid.v == 0;
			for (size_t k = 0; k < n->n_pfs; k++)
				for (size_t l = 0; l < n->pfs[k].n_vfs; l++) {
					const struct vf *b = &n->pfs[k].vfs[l];
					dup += a != b && b->port_guid.known && a->port_guid.v &&
					       b->port_guid.v == a->port_guid.v;
				}
		}
	*ret_zero = zero;
	return dup;
}

START_TEST(assign_all_leaves_no_zero_or_duplicate_guid)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	size_t zero;
	struct node *n = discover(dir);
	ck_assert_uint_gt(count_bad_guids(n, &zero), 0);
	ck_assert_uint_gt(zero, 0);
	node_free(n);
	int rc = tu_sim_run(dir, &out, &err, "vf", "guid", "--assign-all", "--prefix",
			    "00:11:22:33:44", "--yes", NULL);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	n = discover(dir);
	ck_assert_uint_eq(count_bad_guids(n, &zero), 0);
	ck_assert_uint_eq(zero, 0);
	/* The documented scheme: prefix, PF bus, PF devfn, VF index. */
	const struct vf *vf = vf_by_bdf(n, "0000:18:00.4");
	ck_assert_uint_eq(vf->port_guid.v, 0x0011223344180003ULL);
	ck_assert_uint_eq(vf->node_guid.v, 0x0011223344180003ULL);
	ck_assert_str_eq(vf_netdev(vf), "ib2"); /* names stay */
	node_free(n);
	free(out);
	free(err);
	rc = tu_sim_run(dir, &out, &err, "vf", "guid", "--assign-all", "--yes", NULL);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(out, "nothing to do"));
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

/* The seeded duplicate (0000:c0:00.3 has 0000:5e:00.3's GUID): the first
 * holder, the one guid-duplicate does not flag, keeps its GUID; only the
 * later one is re-GUIDed. The long preview starts with its summary. */
START_TEST(assign_all_keeps_the_first_holder_of_a_duplicate)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	int rc = tu_sim_run(dir, &out, &err, "vf", "guid", "--assign-all", "--dry-run", NULL);
	ck_assert_int_eq(rc, 0);
	const char *second = strchr(out, '\n') + 1;
	ck_assert_msg(!strncmp(second,
			       "summary: 16 VFs on 3 PFs; changes: 16 node_guid, 16 "
			       "port_guid; 96 steps; VF links drop while they rebind\n",
			       93),
		      "%s", out);
	ck_assert_ptr_null(strstr(out, "change: 0000:5e:00.3 "));
	ck_assert_ptr_nonnull(
		strstr(out, "change: 0000:c0:00.3 node_guid: a088:c203:005e:0003 -> "));
	free(out);
	free(err);
	rc = tu_sim_run(dir, &out, &err, "vf", "guid", "--assign-all", "--yes", NULL);
	ck_assert_msg(rc == 0, "%s", err);
	free(out);
	free(err);
	struct node *n = discover(dir);
	const struct vf *first = vf_by_bdf(n, "0000:5e:00.3"),
			*later = vf_by_bdf(n, "0000:c0:00.3");
	ck_assert_uint_eq(first->node_guid.v, 0xa088c203005e0003ULL);
	ck_assert_uint_eq(first->port_guid.v, 0xa088c203005e0003ULL);
	ck_assert_uint_eq(later->node_guid.v >> 56, 0x02);
	node_free(n);
	rc = tu_sim_run(dir, &out, &err, "check", "--verbose", "guid-duplicate", "guid-zero", NULL);
	ck_assert_msg(!strstr(out, "guid-duplicate") && !strstr(out, "guid-zero"), "%s", out);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

/* Whether line holds a GUID in ip link's colon form (00:11:...:77). */
static bool has_colon_guid(const char *line, size_t len)
{
	for (size_t i = 0; i + 23 <= len; i++) {
		size_t k = 0;
		while (k < 23 && (k % 3 == 2 ? line[i + k] == ':'
					     : (line[i + k] >= '0' && line[i + k] <= '9') ||
						       (line[i + k] >= 'a' && line[i + k] <= 'f')))
			k++;
		if (k == 23)
			return true;
	}
	return false;
}

/* Every line of text with a colon-form GUID is a shell command ("$ ..."),
 * and the step above it says the command takes that form. */
static void assert_colon_form_only_in_commands(const char *text)
{
	const char *prev = NULL;
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		if (has_colon_guid(l, len)) {
			const char *t = l;
			while (*t == ' ')
				t++;
			ck_assert_msg(!strncmp(t, "$ ", 2), "a colon GUID outside a command: %.*s",
				      (int)len, l);
			ck_assert_msg(
				prev && strstr(prev, "colon form") && strstr(prev, "(") && prev < l,
				"the step does not say its command takes the colon form: %.*s",
				(int)len, l);
		} else {
			prev = l;
		}
		l = e ? e + 1 : l + len;
	}
}

/* One GUID, one form: the remedy, the plan's summary, steps and changes,
 * and what was verified give rdma's form (a088:c203:0018:0000), as JSON
 * does; only the command lines ip link and the MLNX_OFED sriov files take
 * show the colon form, and their step says so. `vf guid` takes both. */
START_TEST(one_guid_form_from_remedy_to_plan)
{
	char *dir = tu_mkfixture(NULL), *out, *err, *out2;
	int rc = tu_sim_run(dir, &out, &err, "check", "--verbose", "guid-zero", "0000:18:00.4",
			    NULL);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(out, "$ ibvf vf guid 0000:18:00.4 --node 0203:0018:0000:0003 --port "
				  "0203:0018:0000:0003\n"),
		      "%s", out);
	free(out);
	free(err);
	/* MLNX_OFED files (0000:18:00.4) and netlink (0000:c0:00.2). */
	const char *vfs[] = {"0000:18:00.4", "0000:c0:00.2"};
	for (int i = 0; i < 2; i++) {
		rc = tu_sim_run(dir, &out, &err, "vf", "guid", vfs[i], "--node",
				"0203:0018:0000:0003", "--port", "0203:0018:0000:0003", "--dry-run",
				NULL);
		ck_assert_msg(rc == 0, "%s", err);
		free(err);
		ck_assert_msg(strstr(out, "node 0203:0018:0000:0003, port 0203:0018:0000:0003"),
			      "%s", out);
		ck_assert_msg(strstr(out, "node_guid: ") &&
				      strstr(out, " -> 0203:0018:0000:0003\n"),
			      "%s", out);
		ck_assert_msg(strstr(out, "02:03:00:18:00:00:00:03"), "%s", out);
		assert_colon_form_only_in_commands(out);
		rc = tu_sim_run(dir, &out2, &err, "vf", "guid", vfs[i], "--node",
				"02:03:00:18:00:00:00:03", "--port", "0x0203001800000003",
				"--dry-run", NULL);
		ck_assert_msg(rc == 0, "%s", err);
		ck_assert_str_eq(out2, out);
		free(out);
		free(out2);
		free(err);
	}
	/* Applied: what was verified, in the same form. */
	rc = tu_sim_run(dir, &out, &err, "vf", "guid", "0000:18:00.4", "--node",
			"0203:0018:0000:0003", "--port", "0203:0018:0000:0003", "--yes", NULL);
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_msg(strstr(out, "node_guid is 0203:0018:0000:0003 (was 0000:0000:0000:0000)"),
		      "%s", out);
	assert_colon_form_only_in_commands(out);
	free(out);
	free(err);
	/* Refused: the GUID in the message, in the same form. */
	rc = tu_sim_run(dir, &out, &err, "vf", "guid", "0000:18:00.5", "--port",
			"02:03:00:18:00:00:00:03", "--yes", NULL);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, "GUID 0203:0018:0000:0003 is already in use"), "%s", err);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(derived_scheme_is_locally_administered_and_per_pf)
{
	char *dir = tu_mkfixture(NULL);
	struct node *n = discover(dir);
	const struct pf *a = node_find_pf(n, "0000:18:00.0"), *b = node_find_pf(n, "0000:4f:00.0");
	uint64_t ga, gb;
	ck_assert_int_eq(naming_scheme_guid(a, 3, false, 0, &ga), 0);
	ck_assert_int_eq(naming_scheme_guid(b, 3, false, 0, &gb), 0);
	ck_assert_uint_eq(ga >> 56, 0x02);
	ck_assert_uint_ne(ga, gb);
	ck_assert_uint_eq(ga & 0xffff, 3);
	uint64_t p;
	ck_assert_int_eq(naming_parse_prefix("0x0011223344", &p), 0);
	ck_assert_uint_eq(p, 0x0011223344ULL);
	ck_assert_int_lt(naming_parse_prefix("00:11:22:33", &p), 0);
	ck_assert_int_lt(naming_parse_prefix("00:11:22:33:44:55", &p), 0);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

START_TEST(link_state_through_mofed_and_netlink)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	int rc = tu_sim_run(dir, &out, &err, "vf", "state", "0000:18:00.4", "disable", "--yes",
			    NULL);
	ck_assert_msg(rc == 0, "mofed: %s%s", out, err);
	ck_assert_ptr_nonnull(strstr(out, "echo Down > "));
	free(out);
	free(err);
	rc = tu_sim_run(dir, &out, &err, "vf", "state", "0000:9a:00.2", "enable", "--yes", NULL);
	ck_assert_msg(rc == 0, "netlink: %s%s", out, err);
	ck_assert_ptr_nonnull(strstr(out, "vf 1 state enable"));
	struct node *n = discover(dir);
	ck_assert_int_eq(vf_by_bdf(n, "0000:9a:00.2")->admin.link_state.v, 1);
	ck_assert_str_eq(vf_by_bdf(n, "0000:18:00.4")->admin.mofed_policy, "Down");
	node_free(n);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("actions_guid");
	TCase *tc = tcase_create("sim");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, guid_takes_effect_through_a_rebind_and_the_name_stays);
	tcase_add_test(tc, assign_all_leaves_no_zero_or_duplicate_guid);
	tcase_add_test(tc, assign_all_keeps_the_first_holder_of_a_duplicate);
	tcase_add_test(tc, one_guid_form_from_remedy_to_plan);
	tcase_add_test(tc, derived_scheme_is_locally_administered_and_per_pf);
	tcase_add_test(tc, link_state_through_mofed_and_netlink);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
