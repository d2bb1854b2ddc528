// SPDX-License-Identifier: MIT
/* `ibvf vf rename --all` end to end on the simulated DGX H200: the 14
 * kernel-named VFs get their policy names in one plan, the pods' VFs are
 * skipped with their pods named, a swap and a chain are ordered, a name
 * held by anything else is refused, the journal undoes it all, and the
 * name-unstable check proposes the same names. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/persist/naming.h"
#include "core/model/node.h"
#include "testutil.h"

#include "actionsutil.h"

/* "bdf=name " for every VF, in node order. */
static char *names(const char *dir)
{
	struct node *n = discover(dir);
	char *buf = calloc(1, 8192);
	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			size_t len = strlen(buf);
			snprintf(buf + len, 8192 - len, "%s=%s ", n->pfs[i].vfs[j].fn.bdf,
				 vf_netdev(&n->pfs[i].vfs[j]));
		}
	node_free(n);
	return buf;
}

static void has_name(const char *dir, const char *bdf, const char *want)
{
	struct node *n = discover(dir);
	const struct vf *vf = vf_by_bdf(n, bdf);
	ck_assert_ptr_nonnull(vf);
	ck_assert_str_eq(vf_netdev(vf), want);
	node_free(n);
}

/* Runs `ibvf --sim=DIR ARGS...` (at most 7) and wants exit 0. */
static void run_ok_argv(const char *dir, char **out, const char *const *a)
{
	char *err;
	int rc = tu_sim_run(dir, out, &err, a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
	ck_assert_msg(rc == 0, "%s %s %s %s: exit %d: %s%s", a[0], a[1], a[2], a[3] ? a[3] : "", rc,
		      out ? *out : "", err);
	free(err);
}
#define run_ok(dir, out, ...) run_ok_argv(dir, out, (const char *const[8]){__VA_ARGS__})

static long long last_journal_id(const char *dir)
{
	struct json_object *j = journal(dir), *id;
	size_t n = json_object_array_length(j);
	ck_assert_uint_gt(n, 0);
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(j, n - 1), "id", &id));
	long long v = json_object_get_int64(id);
	json_object_put(j);
	return v;
}

START_TEST(names_the_kernel_named_vfs_skips_pods_and_undoes)
{
	char *dir = tu_mkfixture(NULL), *out, *before = names(dir);
	/* The check proposes the policy's name, and says rename --all does it. */
	tu_sim_run(dir, &out, NULL, "check", "--verbose", NULL);
	ck_assert_ptr_nonnull(strstr(out, "$ ibvf vf rename 0000:18:00.1 ibp24s0v0"));
	ck_assert_ptr_nonnull(strstr(out, "'ibvf vf rename --all'"));
	free(out);

	run_ok(dir, &out, "vf", "rename", "--all", "--yes");
	/* The summary comes first, before the steps. */
	ck_assert_msg(
		!strncmp(out,
			 "vf rename --all: 14 VFs renamed to scheme '%pv%i', 45 already so "
			 "named, 5 skipped\n",
			 strlen("vf rename --all: 14 VFs renamed to scheme '%pv%i', 45 already "
				"so named, 5 skipped\n")),
		"%s", out);
	ck_assert_ptr_nonnull(strstr(out, "skipped VF 3 (0000:40:00.4): bound to pod "
					  "'ml-training/trainer-0'"));
	ck_assert_ptr_nonnull(strstr(out, "skipped VF 5 (0000:5e:00.6): bound to pod "
					  "'inference/llm-serve-0'"));
	ck_assert_ptr_nonnull(strstr(out, "skipped VF 0 (0000:dc:00.1): bound to pod "
					  "'ml-training/trainer-1'"));
	ck_assert_ptr_nonnull(strstr(out, "skipped VF 1 (0000:18:00.2): no netdev"));
	ck_assert_ptr_nonnull(strstr(out, "result: ok"));
	free(out);
	has_name(dir, "0000:18:00.1", "ibp24s0v0");
	has_name(dir, "0000:18:01.0", "ibp24s0v7");
	has_name(dir, "0000:5e:00.7", "ibp94s0v6");
	has_name(dir, "0000:40:00.4", ""); /* in its pod */
	char *after = names(dir);
	for (char *t = after; (t = strchr(t, '=')); t++) {
		char name[32] = "";
		sscanf(t + 1, "%31[^ ]", name);
		ck_assert_msg(!naming_kernel_form(name), "a kernel name is left: %s", after);
	}
	/* Done: the second run has nothing to do; no kernel name is left, and
	 * what the check says now is that persist pins the names. */
	run_ok(dir, &out, "vf", "rename", "--all", "--yes");
	ck_assert_ptr_nonnull(strstr(out, "nothing to do: 0 VFs renamed"));
	free(out);
	tu_sim_run(dir, &out, NULL, "check", "--verbose", "name-unstable", NULL);
	ck_assert_ptr_null(strstr(out, "has the kernel name"));
	ck_assert_ptr_nonnull(strstr(out, "ibp24s0v0 now and comes back with a kernel name"));
	ck_assert_ptr_nonnull(strstr(out, "$ ibvf persist"));
	free(out);

	/* One journal entry undoes the 14 renames; the undo goes through the
	 * rename's guards: back to the seed's collision ('ib12' is the name a
	 * pod's VF gets back) only with --force (issue 26). */
	char id[32], *err;
	snprintf(id, sizeof(id), "%lld", last_journal_id(dir));
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "journal", "undo", id, "--yes", NULL), 2);
	ck_assert_msg(strstr(err, "to 'ib12': it is the host name VF 0000:5e:00.6 gets back when "
				  "pod 'inference/llm-serve-0' lets it go") &&
			      strstr(err, "or --force"),
		      "%s", err);
	free(out);
	free(err);
	char *still = names(dir);
	ck_assert_str_eq(still, after);
	free(still);
	run_ok(dir, &out, "journal", "undo", id, "--yes", "--force");
	ck_assert_ptr_nonnull(strstr(out, "14 VFs renamed back to their names before journal"));
	ck_assert_ptr_nonnull(strstr(out,
				     "forced: 'ib12' for VF 0000:5e:00.7 is the host name VF "
				     "0000:5e:00.6 gets back when pod 'inference/llm-serve-0'"));
	free(out);
	char *undone = names(dir);
	ck_assert_str_eq(undone, before);
	free(undone);
	free(after);
	free(before);
	tu_rmtree(dir);
}
END_TEST

START_TEST(json_plan_has_the_summary_and_every_change)
{
	char *dir = tu_mkfixture(NULL), *out;
	run_ok(dir, &out, "vf", "rename", "--all", "--dry-run", "--json");
	struct json_object *o = json_tokener_parse(out), *changes, *steps;
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(jget(o, "action"), "vf rename --all");
	ck_assert_ptr_nonnull(strstr(jget(o, "summary"), "14 VFs renamed"));
	ck_assert_ptr_nonnull(strstr(jget(o, "summary"), "5 skipped"));
	ck_assert(json_object_object_get_ex(o, "changes", &changes));
	ck_assert_uint_eq(json_object_array_length(changes), 14);
	ck_assert(json_object_object_get_ex(o, "steps", &steps));
	ck_assert_uint_eq(json_object_array_length(steps), 14); /* kernel 6.8: renames up */
	json_object_put(o);
	free(out);
	/* Forced, a pod's VF is still skipped when its netdev is in the pod. */
	run_ok(dir, &out, "vf", "rename", "--all", "--force", "--dry-run");
	ck_assert_ptr_nonnull(
		strstr(out, "skipped VF 3 (0000:40:00.4): its netdev is in the pod's namespace"));
	ck_assert_ptr_null(strstr(out, "--force to include it"));
	free(out);
	tu_rmtree(dir);
}
END_TEST

/* The index of the step whose description is desc, -1 when none. */
static int step_of(struct json_object *plan, const char *desc)
{
	struct json_object *steps;
	ck_assert(json_object_object_get_ex(plan, "steps", &steps));
	for (size_t i = 0; i < json_object_array_length(steps); i++)
		if (!strcmp(jget(json_object_array_get_idx(steps, i), "desc") ?: "", desc))
			return (int)i;
	return -1;
}

START_TEST(swaps_and_chains_are_ordered)
{
	char *dir = tu_mkfixture(NULL), *out;
	/* A swap: 40:00.1 and 40:00.2 hold each other's policy names. */
	run_ok(dir, &out, "vf", "rename", "0000:40:00.1", "tmpa", "--yes");
	free(out);
	run_ok(dir, &out, "vf", "rename", "0000:40:00.2", "ibp64s0v0", "--yes");
	free(out);
	run_ok(dir, &out, "vf", "rename", "0000:40:00.1", "ibp64s0v1", "--yes");
	free(out);
	/* A chain: 40:00.6 holds 40:00.5's name, its own is free. */
	run_ok(dir, &out, "vf", "rename", "0000:40:00.5", "ibq", "--yes");
	free(out);
	run_ok(dir, &out, "vf", "rename", "0000:40:00.6", "ibp64s0v4", "--yes");
	free(out);

	run_ok(dir, &out, "vf", "rename", "--all", "--dry-run", "--json");
	struct json_object *o = json_tokener_parse(out);
	ck_assert_ptr_nonnull(o);
	free(out);
	int free_first = step_of(o, "rename 'ibp64s0v4' to 'ibp64s0v5'");
	int then = step_of(o, "rename 'ibq' to 'ibp64s0v4'");
	ck_assert_int_ge(free_first, 0);
	ck_assert_int_gt(then, free_first);
	int tmp = step_of(o, "rename 'ibp64s0v1' to 'ibvftmp0'");
	int a = step_of(o, "rename 'ibp64s0v0' to 'ibp64s0v1'");
	int b = step_of(o, "rename 'ibvftmp0' to 'ibp64s0v0'");
	ck_assert_msg(tmp >= 0 && a > tmp && b > a, "swap steps %d %d %d", tmp, a, b);
	json_object_put(o);

	run_ok(dir, &out, "vf", "rename", "--all", "--yes");
	ck_assert_ptr_nonnull(strstr(out, "goes through the temporary name 'ibvftmp0'"));
	ck_assert_ptr_nonnull(strstr(out, "result: ok"));
	free(out);
	has_name(dir, "0000:40:00.1", "ibp64s0v0");
	has_name(dir, "0000:40:00.2", "ibp64s0v1");
	has_name(dir, "0000:40:00.5", "ibp64s0v4");
	has_name(dir, "0000:40:00.6", "ibp64s0v5");
	tu_rmtree(dir);
}
END_TEST

START_TEST(check_proposes_rename_all_when_a_vf_holds_the_name)
{
	char *dir = tu_mkfixture(NULL), *out;
	/* 40:00.1 takes the name the policy gives kernel-named 18:00.1. */
	run_ok(dir, &out, "vf", "rename", "0000:40:00.1", "ibp24s0v0", "--yes");
	free(out);
	tu_sim_run(dir, &out, NULL, "check", "--verbose", "name-unstable", NULL);
	ck_assert_msg(strstr(out, "this VF's name is another VF's now") &&
			      strstr(out, "$ ibvf vf rename --all"),
		      "%s", out);
	free(out);
	/* One plan: 40:00.1 moves off first, then 18:00.1 takes the name. */
	run_ok(dir, &out, "vf", "rename", "--all", "--yes");
	free(out);
	has_name(dir, "0000:40:00.1", "ibp64s0v0");
	has_name(dir, "0000:18:00.1", "ibp24s0v0");
	tu_rmtree(dir);
}
END_TEST

START_TEST(bad_schemes_and_held_names_refused)
{
	char *dir = tu_mkfixture(NULL), *out;
	assert_refused(dir, "no %i", "vf", "rename", "--all", "--scheme", "x%b", NULL);
	assert_refused(dir, "the same name 'hpc0'", "vf", "rename", "--all", "--scheme", "hpc%i",
		       "--yes", NULL);
	assert_refused(dir, "VF 0 of 0000:9a:00.0 (0000:9a:00.1): the scheme '%n-virt%i' gives",
		       "vf", "rename", "--all", "--scheme", "%n-virt%i", "--yes", NULL);
	assert_refused(dir, "goes with --all", "vf", "rename", "18:00.4", "x1", "--scheme", "a%i",
		       NULL);
	assert_refused(dir, "usage: ibvf vf rename --all", "vf", "rename", "--all", "ib2", NULL);
	assert_refused(dir, "takes no --all", "vf", "guid", "--all", NULL);
	/* A name the plan needs, held by a netdev it does not rename. */
	run_ok(dir, &out, "debug", "rename", "enp41s0f0np0", "ibp24s0v0");
	free(out);
	assert_refused(
		dir,
		"cannot rename VF 0 of 0000:18:00.0 (0000:18:00.1) to 'ibp24s0v0': it is the "
		"netdev 'ibp24s0v0' (not renamed by this plan)",
		"vf", "rename", "--all", "--yes", NULL);
	tu_rmtree(dir);
}
END_TEST

START_TEST(kernel_forms_forced_and_undone)
{
	char *dir = tu_mkfixture(NULL), *out;
	run_ok(dir, &out, "vf", "rename", "18:00.4", "eth7", "--force", "--yes");
	free(out);
	has_name(dir, "0000:18:00.4", "eth7");
	run_ok(dir, &out, "vf", "rename", "18:00.4", "ibfast3", "--yes");
	free(out);
	/* The undo goes through the rename's guard: the kernel form back only
	 * with --force, as the rename took it (issue 26). */
	char id[32], *err;
	snprintf(id, sizeof(id), "%lld", last_journal_id(dir));
	ck_assert_int_eq(tu_sim_run(dir, &out, &err, "journal", "undo", id, "--yes", NULL), 2);
	ck_assert_ptr_nonnull(strstr(err, "cannot rename to 'eth7': it is a kernel name"));
	free(out);
	free(err);
	has_name(dir, "0000:18:00.4", "ibfast3");
	run_ok(dir, &out, "journal", "undo", id, "--yes", "--force");
	free(out);
	has_name(dir, "0000:18:00.4", "eth7");
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rename_all");
	TCase *tc = tcase_create("sim");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, names_the_kernel_named_vfs_skips_pods_and_undoes);
	tcase_add_test(tc, json_plan_has_the_summary_and_every_change);
	tcase_add_test(tc, swaps_and_chains_are_ordered);
	tcase_add_test(tc, check_proposes_rename_all_when_a_vf_holds_the_name);
	tcase_add_test(tc, bad_schemes_and_held_names_refused);
	tcase_add_test(tc, kernel_forms_forced_and_undone);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
