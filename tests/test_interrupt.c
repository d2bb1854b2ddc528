// SPDX-License-Identifier: MIT
/* A plan that does not run to its end: SIGTERM in the middle of a 96-step
 * --assign-all, and a step that fails. The step in progress finishes, the
 * journal says how far it went, the command says where it stopped, a VF
 * left without a driver gets the exact command that binds it again, and the
 * entry is undoable as far as it went. The sim's hold fault stops the plan
 * at a known step, so nothing depends on how fast the steps run. */
#include <check.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/model/node.h"
#include "testutil.h"

#include "actionsutil.h"
#include "spawnutil.h"

struct unbound {
	const char *dir, *bdf;
};

static bool is_unbound(void *arg)
{
	const struct unbound *u = arg;
	return !fn_bound(u->dir, u->bdf);
}

static size_t count_status(struct json_object *entry, const char *status)
{
	struct json_object *steps;
	size_t n = 0;
	ck_assert(json_object_object_get_ex(entry, "steps", &steps));
	for (size_t i = 0; i < json_object_array_length(steps); i++)
		n += !strcmp(jget(json_object_array_get_idx(steps, i), "status"), status);
	return n;
}

START_TEST(sigterm_mid_assign_all_finishes_the_step_and_journals)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	arm_fault(dir, "hold:mlx5_core/bind\n");
	hold(dir, true);
	struct bg b;
	bg_start(&b, dir, "vf", "guid", "--assign-all", "--yes", NULL);
	/* Steps 1-3 (node GUID, port GUID, unbind of 18:00.1) have run when
	 * 18:00.1 has no driver; step 4, its bind, is held. */
	struct unbound u = {dir, "0000:18:00.1"};
	ck_assert_msg(poll_until(is_unbound, &u, 60), "the plan never unbound 18:00.1");
	ck_assert_int_eq(kill(b.pid, SIGTERM), 0);
	hold(dir, false);
	int rc = bg_wait(&b);
	char *e = bg_err(&b);
	ck_assert_msg(rc == 1, "rc %d, stderr: %s", rc, e);
	ck_assert_msg(strstr(e, "interrupted by SIGTERM after step 4 of 96"), "%s", e);
	ck_assert(fn_bound(dir, "0000:18:00.1")); /* the step in progress finished */

	struct json_object *j = journal(dir);
	ck_assert_uint_eq(json_object_array_length(j), 1);
	struct json_object *ent = json_object_array_get_idx(j, 0);
	ck_assert_str_eq(jget(ent, "result"), "cancelled");
	ck_assert_uint_eq(count_status(ent, "ok"), 4);
	ck_assert_uint_eq(count_status(ent, "not-run"), 92);
	json_object_put(j);
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "journal", NULL), 0);
	ck_assert_msg(strstr(out, "interrupted after 4 of 96 steps"), "%s", out);
	free(out);
	free(err);
	free(e);
	bg_free(&b);
	tu_rmtree(dir);
}
END_TEST

static bool is_holding(void *arg)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/.sim/holding", (const char *)arg);
	return access(p, F_OK) == 0;
}

/* SIGTERM while a VF is being unbound: the stop waits until its bind has
 * run, so no VF is left without a driver (and a netdev) by a signal. */
START_TEST(sigterm_during_unbind_binds_the_vf_again)
{
	char *dir = tu_mkfixture(NULL);
	const char *vf = "0000:18:00.4";
	arm_fault(dir, "hold:mlx5_core/unbind\n");
	hold(dir, true);
	struct bg b;
	bg_start(&b, dir, "vf", "guid", vf, "--port", "00:11:22:33:44:18:00:99", "--yes", NULL);
	ck_assert_msg(poll_until(is_holding, dir, 60), "the plan never reached the unbind");
	ck_assert_int_eq(kill(b.pid, SIGTERM), 0);
	hold(dir, false);
	int rc = bg_wait(&b);
	char *e = bg_err(&b);
	ck_assert_msg(rc == 1, "rc %d: %s", rc, e);
	ck_assert_msg(fn_bound(dir, vf), "%s was left unbound: %s", vf, e);
	struct json_object *j = journal(dir);
	struct json_object *ent = json_object_array_get_idx(j, 0);
	ck_assert_str_eq(jget(ent, "result"), "cancelled");
	json_object_put(j);
	free(e);
	bg_free(&b);
	tu_rmtree(dir);
}
END_TEST

/* A plan killed outright (SIGKILL: no handler runs) is still in the
 * journal: its "started" record and the steps that completed. */
START_TEST(killed_plan_is_visible_in_the_journal)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	arm_fault(dir, "hold:mlx5_core/bind\n");
	hold(dir, true);
	struct bg b;
	bg_start(&b, dir, "vf", "guid", "--assign-all", "--yes", NULL);
	struct unbound u = {dir, "0000:18:00.1"};
	ck_assert_msg(poll_until(is_unbound, &u, 60), "the plan never unbound 18:00.1");
	ck_assert_int_eq(kill(b.pid, SIGKILL), 0);
	ck_assert_int_eq(bg_wait(&b), -1);
	hold(dir, false);
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "journal", NULL), 0);
	ck_assert_msg(strstr(out, "interrupted after 3 of 96 steps"), "%s", out);
	struct json_object *j = journal(dir);
	ck_assert_uint_eq(json_object_array_length(j), 1);
	ck_assert_str_eq(jget(json_object_array_get_idx(j, 0), "result"), "interrupted");
	json_object_put(j);
	free(out);
	free(err);
	bg_free(&b);
	tu_rmtree(dir);
}
END_TEST

/* SIGTERM during a GUID change of a VF whose GUID was set before: undo of
 * the interrupted entry brings the old GUID back. */
START_TEST(interrupted_guid_change_is_undoable)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	const char *vf = "0000:18:00.4";
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "vf", "guid", vf, "--port",
				    "00:11:22:33:44:18:00:03", "--yes", NULL),
			 0);
	free(out);
	free(err);
	arm_fault(dir, "hold:mlx5_core/bind\n");
	hold(dir, true);
	struct bg b;
	bg_start(&b, dir, "vf", "guid", vf, "--port", "00:11:22:33:44:18:00:99", "--yes", NULL);
	struct unbound u = {dir, vf};
	ck_assert_msg(poll_until(is_unbound, &u, 60), "the plan never unbound %s", vf);
	ck_assert_int_eq(kill(b.pid, SIGTERM), 0);
	hold(dir, false);
	int rc = bg_wait(&b);
	char *e = bg_err(&b);
	ck_assert_msg(rc == 1, "rc %d: %s", rc, e);
	ck_assert_msg(strstr(e, "'ibvf journal undo 2'"), "%s", e);
	arm_fault(dir, "");
	rc = tu_sim_run(dir, &out, &err, "journal", "undo", "2", "--yes", NULL);
	ck_assert_msg(rc == 0, "undo 2: rc %d: %s", rc, err);
	struct node *n = discover(dir);
	const struct vf *v = vf_by_bdf(n, vf);
	ck_assert(v->admin.port_guid.known && v->admin.port_guid.v == 0x0011223344180003ULL);
	ck_assert_ptr_nonnull(v->fn.driver);
	node_free(n);
	free(out);
	free(err);
	free(e);
	bg_free(&b);
	tu_rmtree(dir);
}
END_TEST

/* A bind that fails leaves the VF without a driver: the command says the
 * exact command that binds it again, and the undo of what ran. */
START_TEST(failed_bind_says_how_to_restore_the_vf)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	const char *vf = "0000:18:00.4";
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "vf", "guid", vf, "--port",
				    "00:11:22:33:44:18:00:03", "--yes", NULL),
			 0);
	free(out);
	free(err);
	arm_fault(dir, "write:mlx5_core/bind=EIO\n");
	int rc = tu_sim_run(dir, &out, &err, "vf", "guid", vf, "--port", "00:11:22:33:44:18:00:99",
			    "--yes", NULL);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "0000:18:00.4 is left without a driver; to bind it again: "
				  "echo 0000:18:00.4 > /sys/bus/pci/drivers/mlx5_core/bind\n"),
		      "%s", err);
	ck_assert_msg(strstr(err, "'ibvf journal undo 2' reverts the 2 steps that ran"), "%s", err);
	struct json_object *j = journal(dir);
	struct json_object *ent = json_object_array_get_idx(j, 1);
	ck_assert_str_eq(jget(ent, "restore"),
			 "echo 0000:18:00.4 > /sys/bus/pci/drivers/mlx5_core/bind");
	json_object_put(j);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("interrupt");
	TCase *tc = tcase_create("sim");
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, sigterm_mid_assign_all_finishes_the_step_and_journals);
	tcase_add_test(tc, killed_plan_is_visible_in_the_journal);
	tcase_add_test(tc, interrupted_guid_change_is_undoable);
	tcase_add_test(tc, sigterm_during_unbind_binds_the_vf_again);
	tcase_add_test(tc, failed_bind_says_how_to_restore_the_vf);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
