// SPDX-License-Identifier: MIT
/* Actions end to end on the simulated DGX H200: the real binary with --sim,
 * each action applied and the re-read node showing the result; each failure
 * path refused (exit 2, node as it was) or stopped with the node exactly as
 * the journal says. */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "core/actions/actions.h"
#include "core/actions/journal.h"
#include "core/model/node.h"
#include "core/sys/sys.h"
#include "testutil.h"

#include "actionsutil.h"

START_TEST(rename_applies_verifies_and_journals)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	int rc = tu_sim_run(dir, &out, &err, "vf", "rename", "0000:18:00.4", "ibp24s0v3", "--yes",
			    NULL);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	ck_assert_ptr_nonnull(strstr(out, "$ ip link set dev ib2 name ibp24s0v3"));
	ck_assert_ptr_nonnull(strstr(out, "verified: 0000:18:00.4 name is ibp24s0v3"));
	struct node *n = discover(dir);
	ck_assert_str_eq(vf_netdev(vf_by_bdf(n, "0000:18:00.4")), "ibp24s0v3");
	node_free(n);

	struct json_object *j = journal(dir);
	ck_assert_uint_eq(json_object_array_length(j), 1);
	struct json_object *e = json_object_array_get_idx(j, 0);
	ck_assert_str_eq(jget(e, "action"), "vf rename");
	ck_assert_str_eq(jget(e, "result"), "ok");
	ck_assert_str_eq(jget(e, "user"), "root");
	ck_assert_ptr_nonnull(jget(e, "time"));
	json_object_put(j);

	/* Undo gives the kernel name back (as the rename would: only with
	 * --force) and is itself journaled. */
	free(out);
	free(err);
	rc = tu_sim_run(dir, &out, &err, "journal", "undo", "1", "--yes", NULL);
	ck_assert_msg(rc == 2 && strstr(err, "it is a kernel name"), "undo: exit %d: %s", rc, err);
	free(out);
	free(err);
	rc = tu_sim_run(dir, &out, &err, "journal", "undo", "1", "--yes", "--force", NULL);
	ck_assert_msg(rc == 0, "undo: exit %d: %s%s", rc, out, err);
	n = discover(dir);
	ck_assert_str_eq(vf_netdev(vf_by_bdf(n, "0000:18:00.4")), "ib2");
	node_free(n);
	free(out);
	free(err);
	rc = tu_sim_run(dir, &out, &err, "journal", "undo", "1", "--yes", NULL);
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(err, "was undone by entry 2"));
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(rename_of_an_up_link_before_6_2_goes_down_and_up)
{
	const char *args[] = {"--kernel", "6.1.0-18-amd64", NULL};
	char *dir = tu_mkfixture(args), *out, *err;
	int rc = tu_sim_run(dir, &out, &err, "vf", "rename", "ib4", "ibp24s0v5", "--yes", NULL);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	const char *down = strstr(out, "$ ip link set dev ib4 down");
	const char *ren = strstr(out, "$ ip link set dev ib4 name ibp24s0v5");
	const char *up = strstr(out, "$ ip link set dev ibp24s0v5 up");
	ck_assert_msg(down && ren && up && down < ren && ren < up, "%s", out);
	struct node *n = discover(dir);
	const struct vf *vf = vf_by_bdf(n, "0000:18:00.6");
	ck_assert_str_eq(vf_netdev(vf), "ibp24s0v5");
	ck_assert(vf->fn.netdevs[0].flags.known && (vf->fn.netdevs[0].flags.v & 1));
	node_free(n);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(bad_input_is_one_line_exit_2_and_the_node_untouched)
{
	char *dir = tu_mkfixture(NULL);
	assert_refused(dir, "is taken", "vf", "rename", "18:00.4", "ibp64s0v0", "--yes", NULL);
	assert_refused(dir, "a kernel name", "vf", "rename", "18:00.4", "ib3", "--yes", NULL);
	assert_refused(dir, "is taken", "vf", "rename", "18:00.4", "ibp24s0", "--yes", NULL);
	assert_refused(dir, "invalid interface name", "vf", "rename", "18:00.4", "a:b", "--yes",
		       NULL);
	assert_refused(dir, "1 to 15", "vf", "rename", "18:00.4", "ibp24s0v3-toolong", "--yes",
		       NULL);
	assert_refused(dir, "no PF or VF named 'nosuch0'", "vf", "rename", "nosuch0", "x", "--yes",
		       NULL);
	assert_refused(dir, "invalid node GUID", "vf", "guid", "ib3", "--node", "00:11:22", NULL);
	assert_refused(dir, "all-zero", "vf", "guid", "ib3", "--port", "0000:0000:0000:0000", NULL);
	assert_refused(dir, "all-ones", "vf", "guid", "ib3", "--port", "0xffffffffffffffff", NULL);
	assert_refused(dir, "group (multicast) bit", "vf", "guid", "ib3", "--node",
		       "01:11:22:33:44:55:66:77", NULL);
	assert_refused(dir, "already in use", "vf", "guid", "ib3", "--port", "a088:c203:0040:0001",
		       NULL);
	assert_refused(dir, "sriov_totalvfs is 16", "vf", "create", "ibp24s0", "17", "--yes", NULL);
	assert_refused(dir, "invalid VF count", "vf", "create", "ibp24s0", "x1", "--yes", NULL);
	assert_refused(dir, "unknown option '--frob'", "vf", "create", "ibp24s0", "1", "--frob",
		       NULL);
	assert_refused(dir, "not a PF", "vf", "create", "18:00.1", "2", "--yes", NULL);
	assert_refused(dir, "invalid link state", "vf", "state", "ib3", "off", "--yes", NULL);
	assert_refused(dir, "missing arguments", "vf", "rename", "ib3", NULL);
	assert_refused(dir, "not a vf action", "vf", "frobnicate", "ib3", NULL);
	/* Without --yes on a pipe: no guessing. */
	assert_refused(dir, "is not a terminal", "vf", "rename", "ib3", "x0", NULL);
	tu_rmtree(dir);
}
END_TEST

START_TEST(pod_bound_vf_is_refused_unless_forced)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	/* 0000:40:00.4 is trainer-0's net1; 0000:18:00.3's binding is stale. */
	assert_refused(dir, "bound to pod 'ml-training/trainer-0'", "vf", "create", "0000:40:00.0",
		       "4", "--yes", NULL);
	assert_refused(dir, "bound to pod", "vf", "guid", "0000:40:00.4", "--port",
		       "00:11:22:33:44:40:00:04", NULL);
	assert_refused(dir, "bound to pod", "vf", "state", "0000:40:00.4", "disable", "--yes",
		       NULL);
	int rc = tu_sim_run(dir, &out, &err, "vf", "create", "0000:40:00.0", "4", "--yes",
			    "--force", NULL);
	ck_assert_msg(rc == 0, "forced: exit %d: %s", rc, err);
	struct node *n = discover(dir);
	const struct pf *pf = node_find_pf(n, "0000:40:00.0");
	ck_assert_int_eq(pf->n_vfs, 4);
	ck_assert_int_eq(pf->numvfs.v, 4);
	for (size_t i = 0; i < pf->n_vfs; i++)
		ck_assert_uint_eq(pf->vfs[i].fn.n_netdevs, 1);
	node_free(n);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(create_goes_through_zero_and_waits_for_the_devices)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	int rc = tu_sim_run(dir, &out, &err, "vf", "create", "mlx5_4", "3", "--yes", NULL);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	const char *zero = strstr(out, "$ echo 0 > /sys/bus/pci/devices/0000:4f:00.0/sriov_numvfs");
	const char *three =
		strstr(out, "$ echo 3 > /sys/bus/pci/devices/0000:4f:00.0/sriov_numvfs");
	ck_assert_msg(zero && three && zero < three, "%s", out);
	struct node *n = discover(dir);
	const struct pf *pf = node_find_pf(n, "0000:4f:00.0");
	ck_assert_int_eq(pf->n_vfs, 3);
	for (size_t i = 0; i < pf->n_vfs; i++) {
		ck_assert_uint_eq(pf->vfs[i].fn.n_netdevs, 1);
		ck_assert_uint_eq(pf->vfs[i].fn.n_rdmas, 1);
	}
	node_free(n);
	free(out);
	free(err);
	/* destroy is create 0; again is nothing to do. */
	rc = tu_sim_run(dir, &out, &err, "vf", "destroy", "ibp79s0", "--yes", NULL);
	ck_assert_msg(rc == 0, "destroy: %s", err);
	free(out);
	free(err);
	rc = tu_sim_run(dir, &out, &err, "vf", "destroy", "ibp79s0", "--yes", NULL);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(out, "nothing to do"));
	n = discover(dir);
	ck_assert_int_eq(node_find_pf(n, "0000:4f:00.0")->n_vfs, 0);
	node_free(n);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(ebusy_mid_plan_stops_and_the_journal_says_what_was_done)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	arm_fault(dir, "write:mlx5_core/bind=EBUSY\n");
	int rc = tu_sim_run(dir, &out, &err, "vf", "guid", "0000:18:00.4", "--port",
			    "00:11:22:33:44:18:00:03", "--yes", NULL);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "step 3 of 5 failed (echo 0000:18:00.4 > "
				  "/sys/bus/pci/drivers/mlx5_core/bind)"),
		      "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "Device or resource busy"));
	struct json_object *j = journal(dir);
	struct json_object *e = json_object_array_get_idx(j, 0), *steps;
	ck_assert_str_eq(jget(e, "result"), "failed");
	ck_assert(json_object_object_get_ex(e, "steps", &steps));
	const char *want[] = {"ok", "ok", "failed", "not-run", "not-run"};
	ck_assert_uint_eq(json_object_array_length(steps), 5);
	for (size_t i = 0; i < 5; i++)
		ck_assert_str_eq(jget(json_object_array_get_idx(steps, i), "status"), want[i]);
	/* Exactly as the journal says: the port GUID set (administratively: MOFED's
	 * port file shows the one in effect), the VF unbound. */
	struct node *n = discover(dir);
	const struct vf *vf = vf_by_bdf(n, "0000:18:00.4");
	ck_assert_ptr_null(vf->fn.driver);
	ck_assert(vf->admin.port_guid.known && vf->admin.port_guid.v == 0x0011223344180003ULL);
	node_free(n);
	json_object_put(j);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(vf_vanishing_mid_plan_stops_with_a_clear_message)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	arm_fault(dir, "vanish:0000:4f:00.3\n");
	int rc = tu_sim_run(dir, &out, &err, "vf", "guid", "ibp79s0v2", "--port",
			    "00:11:22:33:44:4f:00:02", "--yes", NULL);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "failed (") != NULL, "%s", err);
	struct json_object *j = journal(dir);
	struct json_object *e = json_object_array_get_idx(j, 0);
	ck_assert_str_eq(jget(e, "result"), "failed");
	struct node *n = discover(dir);
	const struct pf *pf = node_find_pf(n, "0000:4f:00.0");
	for (size_t i = 0; i < pf->n_vfs; i++)
		ck_assert_str_ne(pf->vfs[i].fn.bdf, "0000:4f:00.3");
	node_free(n);
	json_object_put(j);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(plan_is_refused_when_the_node_changed_since_the_preview)
{
	char *dir = tu_mkfixture(NULL);
	struct sys *s;
	struct node *n;
	struct plan *p;
	struct err e = {{0}};
	struct action_req req = {.kind = ACTION_RENAME, .target = "0000:18:00.4", .name = "x0"};
	ck_assert_int_eq(sys_open_sim(dir, NULL, &s, &e), 0);
	ck_assert_int_eq(node_discover(s, &n, &e), 0);
	ck_assert_int_eq(action_plan(s, n, &req, &p, &e), 0);
	ck_assert_int_eq(sys_link_rename(s, "ib2", "other0", &e), 0);
	ck_assert_int_eq(action_apply(s, p, &req, NULL, &e), -ESTALE);
	ck_assert_int_eq(p->result, PLAN_REFUSED);
	ck_assert_ptr_nonnull(strstr(e.msg, "the node changed"));
	plan_free(p);
	node_free(n);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

/* The hooks of an apply that another thread watches: every phase and step
 * reported in order, and a cancel between steps stops it there, the steps
 * before it done and journaled as cancelled. */
struct seen {
	int phases[16];
	size_t steps[16], n;
	atomic_bool cancel;
	size_t cancel_at; /* set cancel when this step starts */
};

static void seen_progress(void *arg, enum action_phase phase, size_t step)
{
	struct seen *w = arg;
	if (w->n < 16) {
		w->phases[w->n] = (int)phase;
		w->steps[w->n++] = step;
	}
	if (phase == ACTION_PHASE_STEP && step == w->cancel_at)
		atomic_store(&w->cancel, true);
}

START_TEST(apply_reports_each_step_and_stops_at_a_cancel)
{
	char *dir = tu_mkfixture(NULL);
	struct sys *s, *s2;
	struct node *n;
	struct plan *p;
	struct err e = {{0}};
	struct action_req req = {.kind = ACTION_CREATE, .target = "0000:18:00.0", .count = 4};
	ck_assert_int_eq(sys_open_sim(dir, NULL, &s, &e), 0);
	/* The worker's own handle on the same node. */
	ck_assert_msg(sys_reopen(s, &s2, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(sys_root(s2), sys_root(s));
	ck_assert_int_eq(node_discover(s, &n, &e), 0);
	ck_assert_int_eq(action_plan(s, n, &req, &p, &e), 0);
	ck_assert_uint_eq(p->n_steps, 4); /* 0, wait, 4, wait */

	struct seen w = {.cancel_at = 0};
	struct action_hooks h = {.progress = seen_progress, .arg = &w, .cancel = &w.cancel};
	ck_assert_int_eq(action_apply_hooked(s2, p, &req, &h, NULL, &e), -ECANCELED);
	ck_assert_int_eq(p->result, PLAN_CANCELLED);
	ck_assert_int_eq(p->steps[0].status, STEP_OK); /* the step in progress ended */
	ck_assert_int_eq(p->steps[1].status, STEP_PENDING);
	ck_assert_ptr_nonnull(strstr(p->error, "stopped before step 2 of 4"));
	int want[] = {ACTION_PHASE_CHECK, ACTION_PHASE_STEP, ACTION_PHASE_VERIFY,
		      ACTION_PHASE_JOURNAL};
	ck_assert_uint_eq(w.n, 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(w.phases[i], want[i]);

	/* The node (through the first handle) and the journal say what ran. */
	struct node *after;
	ck_assert_int_eq(node_discover(s, &after, &e), 0);
	const struct pf *pf = node_find_pf(after, "0000:18:00.0");
	ck_assert(pf && pf->numvfs.known && pf->numvfs.v == 0);
	struct json_object *entries;
	size_t skipped;
	ck_assert_int_eq(journal_read(s, &entries, &skipped, &e), 0);
	struct json_object *last =
		json_object_array_get_idx(entries, json_object_array_length(entries) - 1);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(last, "result")),
			 "cancelled");
	json_object_put(entries);
	node_free(after);
	plan_free(p);

	/* Without a cancel the same hooks see every step, in order. */
	ck_assert_int_eq(node_discover(s, &after, &e), 0);
	ck_assert_int_eq(action_plan(s, after, &req, &p, &e), 0);
	struct seen all = {.cancel_at = 99};
	h = (struct action_hooks){.progress = seen_progress, .arg = &all, .cancel = &all.cancel};
	ck_assert_msg(action_apply_hooked(s2, p, &req, &h, NULL, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(all.n, 2 + p->n_steps + 1);
	for (size_t i = 0; i < p->n_steps; i++)
		ck_assert_uint_eq(all.steps[1 + i], i);
	plan_free(p);
	node_free(after);
	node_free(n);
	sys_close(s2);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

/* Runs the binary in a child that dropped privileges first. */
static int run_unprivileged(const char *dir, bool keep_root, char **ret_err)
{
	char sim[4096], errpath[] = "/tmp/ibvf-test-err-XXXXXX";
	int fd = mkstemp(errpath);
	ck_assert_int_ge(fd, 0);
	unlink(errpath);
	snprintf(sim, sizeof(sim), "--sim=%s", dir);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fd, 2);
		if (keep_root) {
			/* root, but CAP_NET_ADMIN out of the bounding set: exec loses it. */
			if (prctl(PR_CAPBSET_DROP, CAP_NET_ADMIN, 0, 0, 0) < 0)
				_exit(125);
		} else if (setgid(65534) < 0 || setuid(65534) < 0) {
			_exit(126);
		}
		execl(getenv("IBVF_BIN"), "ibvf", sim, "vf", "rename", "ib2", "x0", "--yes",
		      (char *)NULL);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	char buf[1024] = "";
	ssize_t len = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[len > 0 ? len : 0] = '\0';
	close(fd);
	*ret_err = strdup(buf);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

START_TEST(no_privilege_is_an_error_before_anything)
{
	if (geteuid() != 0) {
		printf("SKIP: dropping privileges needs root\n");
		return;
	}
	char *dir = tu_mkfixture(NULL), *err, *before = node_json(dir);
	ck_assert_int_eq(chmod(dir, 0755), 0); /* mkdtemp's 0700: let nobody read the tree */
	int rc = run_unprivileged(dir, false, &err);
	ck_assert_msg(rc == 2, "nobody: exit %d: %s", rc, err);
	ck_assert_msg(strstr(err, "needs CAP_NET_ADMIN"), "%s", err);
	free(err);
	rc = run_unprivileged(dir, true, &err);
	ck_assert_msg(rc == 2, "root without CAP_NET_ADMIN: exit %d: %s", rc, err);
	ck_assert_msg(strstr(err, "needs CAP_NET_ADMIN"), "%s", err);
	free(err);
	char *after = node_json(dir);
	ck_assert_str_eq(before, after);
	char p[4096];
	snprintf(p, sizeof(p), "%s/var/lib/ibvf/journal.jsonl", dir);
	ck_assert_int_ne(access(p, F_OK), 0); /* nothing done, nothing journaled */
	free(before);
	free(after);
	tu_rmtree(dir);
}
END_TEST

START_TEST(dry_run_json_lists_the_commands_and_changes_nothing)
{
	char *dir = tu_mkfixture(NULL), *out, *err, *before = node_json(dir);
	int rc = tu_sim_run(dir, &out, &err, "vf", "guid", "--assign-all", "--dry-run", "--json",
			    NULL);
	ck_assert_msg(rc == 0, "%s", err);
	struct json_object *o = json_tokener_parse(out), *steps;
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(jget(o, "action"), "vf guid --assign-all");
	ck_assert_str_eq(jget(o, "result"), "not-run");
	ck_assert(json_object_object_get_ex(o, "steps", &steps));
	ck_assert_uint_gt(json_object_array_length(steps), 10);
	ck_assert_ptr_nonnull(jget(json_object_array_get_idx(steps, 0), "command"));
	char *after = node_json(dir);
	ck_assert_str_eq(before, after);
	json_object_put(o);
	free(before);
	free(after);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("actions");
	TCase *tc = tcase_create("sim");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, rename_applies_verifies_and_journals);
	tcase_add_test(tc, rename_of_an_up_link_before_6_2_goes_down_and_up);
	tcase_add_test(tc, bad_input_is_one_line_exit_2_and_the_node_untouched);
	tcase_add_test(tc, pod_bound_vf_is_refused_unless_forced);
	tcase_add_test(tc, create_goes_through_zero_and_waits_for_the_devices);
	tcase_add_test(tc, ebusy_mid_plan_stops_and_the_journal_says_what_was_done);
	tcase_add_test(tc, vf_vanishing_mid_plan_stops_with_a_clear_message);
	tcase_add_test(tc, plan_is_refused_when_the_node_changed_since_the_preview);
	tcase_add_test(tc, apply_reports_each_step_and_stops_at_a_cancel);
	tcase_add_test(tc, no_privilege_is_an_error_before_anything);
	tcase_add_test(tc, dry_run_json_lists_the_commands_and_changes_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
