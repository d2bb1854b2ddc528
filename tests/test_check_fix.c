// SPDX-License-Identifier: MIT
/* `ibvf check --fix` on the seeded simulated node, as an operator runs it:
 * --dry-run changes nothing; guid-zero and guid-duplicate really fixed, with
 * journal entries; a manual finding's steps printed and nothing run; a
 * pod-held VF refused without --force; the exit statuses; and `--fix all
 * --yes` leaving only what ibvf must not or cannot do itself. */
#include <check.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char *node; /* a fresh seeded node per test */

static void setup(void)
{
	node = tu_mkfixture(NULL);
}

static void teardown(void)
{
	tu_rmtree(node);
}

static struct json_object *run_json(int want, const char *a1, const char *a2)
{
	char *out, *err;
	int rc = tu_sim_run(node, &out, &err, a1, "--json", a2, NULL);
	ck_assert_msg(rc == want, "%s --json: exit %d, stderr %s", a1, rc, err);
	struct json_object *o = json_tokener_parse(out);
	ck_assert_msg(o != NULL, "not JSON: %.200s", out);
	free(out);
	free(err);
	return o;
}

static struct json_object *findings(void)
{
	struct json_object *o = run_json(2, "check", NULL), *fs = NULL;
	ck_assert(json_object_object_get_ex(o, "findings", &fs));
	json_object_get(fs);
	json_object_put(o);
	return fs;
}

static const char *sget(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;
	ck_assert_msg(json_object_object_get_ex(o, k, &v), "no key '%s'", k);
	return json_object_get_string(v);
}

/* How many findings of id (NULL: any) there are now. */
static size_t count(const char *id)
{
	struct json_object *fs = findings();
	size_t n = 0;
	for (size_t i = 0; i < json_object_array_length(fs); i++)
		n += !id || !strcmp(sget(json_object_array_get_idx(fs, i), "id"), id);
	json_object_put(fs);
	return n;
}

/* The node as `list --json` shows it: what "changes nothing" compares. */
static char *snapshot(void)
{
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "list", "--json", NULL), 0);
	free(err);
	return out;
}

static size_t journal_entries(const char *action)
{
	struct json_object *doc = run_json(0, "journal", NULL), *j = NULL;
	ck_assert(json_object_object_get_ex(doc, "entries", &j));
	size_t n = 0;
	for (size_t i = 0; i < json_object_array_length(j); i++)
		n += !strcmp(sget(json_object_array_get_idx(j, i), "action"), action);
	json_object_put(doc);
	return n;
}

static int fix(char **out, char **err, const char *a1, const char *a2, const char *a3)
{
	return tu_sim_run(node, out, err, "check", "--fix", a1, a2, a3, NULL);
}

START_TEST(dry_run_prints_the_plans_in_order_and_changes_nothing)
{
	char *before = snapshot(), *out, *err;
	/* sriov-layout's create on 0000:c0:00.0 is refused: a pod holds a VF */
	ck_assert_int_eq(fix(&out, &err, "all", "--dry-run", NULL), 0);
	/* GUIDs in one plan, the kernel-named VFs in one `vf rename --all`,
	 * persist last; sriov-layout keeps the layout (persist), it never
	 * re-creates the VFs a pod uses. */
	const char *guids = strstr(out, "$ ibvf vf guid --assign-all"),
		   *names = strstr(out,
				   "(names): name-unstable on 14 kernel-named VFs, in one plan"),
		   *rename = strstr(out, "$ ibvf vf rename --all"),
		   *persist = strstr(out, "(persist): "),
		   *last = strstr(out, "  planned last: persist writes");
	ck_assert_msg(guids && names && rename && persist && last && guids < names &&
			      names < persist && persist < last,
		      "order: %s", out);
	ck_assert_ptr_null(strstr(out, "$ ibvf vf create"));
	ck_assert_ptr_null(strstr(out, "$ ibvf vf rename 0000:18:00.1"));
	ck_assert_ptr_nonnull(strstr(out, "manual remedies: ibvf does not run these"));
	/* Causes first: a zero GUID's port down waits for its GUID, never a
	 * plan of its own; the failed probe says what it follows from. */
	ck_assert_ptr_null(strstr(out, ": port-down 0000:18:00.1"));
	ck_assert_ptr_nonnull(strstr(out, "left to their causes"));
	ck_assert_ptr_nonnull(
		strstr(out, "  port-down 0000:18:00.1  follows from guid-zero on 0000:18:00.1\n"));
	ck_assert_ptr_nonnull(strstr(
		out, "    follows from driver-kernel-mismatch on the node: fix that first\n"));
	char *after = snapshot();
	ck_assert_str_eq(before, after);
	ck_assert_uint_eq(journal_entries("vf guid --assign-all") + journal_entries("vf rename"),
			  0);
	free(out);
	free(err);
	/* a selection whose plans can all be made exits 0 */
	ck_assert_int_eq(fix(&out, &err, "guid-zero", "--dry-run", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "$ ibvf vf guid 0000:18:00.1 --node"));
	ck_assert_ptr_null(strstr(out, "--assign-all"));
	free(out);
	free(err);
	free(before);
	free(after);
}
END_TEST

START_TEST(guid_zero_is_fixed_and_journaled)
{
	size_t zero = count("guid-zero");
	ck_assert_uint_ge(zero, 2);
	char *out, *err;
	ck_assert_int_eq(fix(&out, &err, "guid-zero", "--yes", NULL), 0);
	ck_assert_msg(strstr(out, "result: ok (journal entry 1)"), "%s", out);
	ck_assert_uint_eq(count("guid-zero"), 0);
	/* one plan per VF (guid-duplicate not selected: no assign-all) */
	ck_assert_uint_eq(journal_entries("vf guid"), zero);
	ck_assert_uint_eq(count("guid-duplicate"), 1);
	free(out);
	free(err);
}
END_TEST

START_TEST(guid_duplicate_is_fixed_on_the_second_holder_only)
{
	char *out, *err;
	ck_assert_int_eq(fix(&out, &err, "guid-duplicate", "--yes", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "$ ibvf vf guid 0000:c0:00.3 --node"));
	ck_assert_ptr_null(strstr(out, "0000:5e:00.3"));
	ck_assert_uint_eq(count("guid-duplicate"), 0);
	ck_assert_uint_eq(journal_entries("vf guid"), 1);
	ck_assert_ptr_nonnull(strstr(out, "1 finding tried in 1 fix: 1 fixed"));
	free(out);
	free(err);
}
END_TEST

START_TEST(manual_finding_prints_its_steps_and_runs_nothing)
{
	char *before = snapshot(), *out, *err;
	/* nothing to confirm: no --yes needed even without a terminal */
	ck_assert_int_eq(fix(&out, &err, "firmware-old", NULL, NULL), 0);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, "manual remedies: ibvf does not run these"));
	ck_assert_ptr_nonnull(strstr(out, "[firmware-old]"));
	ck_assert_ptr_nonnull(strstr(out, "      1. "));
	ck_assert_ptr_nonnull(strstr(out, "0 findings tried in 0 fixes: none"));
	char *after = snapshot();
	ck_assert_str_eq(before, after);
	free(out);
	free(err);
	free(before);
	free(after);
}
END_TEST

/* sriov-layout's fix keeps the layout that runs (persist), never the
 * destructive re-creation (issue 26: it offered `vf create 0000:c0:00.0 4`,
 * which only a pod stopped); persist waits for the GUIDs and names. */
START_TEST(sriov_layout_keeps_the_layout_and_never_recreates_vfs)
{
	char *before = snapshot(), *out, *err;
	ck_assert_int_eq(fix(&out, &err, "sriov-layout", "--yes", NULL), 1);
	ck_assert_ptr_nonnull(strstr(out, "$ ibvf persist"));
	ck_assert_ptr_nonnull(strstr(err, "cannot persist: the boot unit would recreate"));
	ck_assert_ptr_null(strstr(out, "$ ibvf vf create"));
	char *after = snapshot();
	ck_assert_str_eq(before, after);
	free(out);
	free(err);
	ck_assert_int_eq(fix(&out, &err, "guid-zero", "guid-duplicate", "--yes"), 0);
	free(out);
	free(err);
	ck_assert_int_eq(fix(&out, &err, "name-unstable", "--yes", NULL), 0);
	free(out);
	free(err);
	ck_assert_uint_eq(count("sriov-layout"), 0);
	ck_assert_uint_eq(journal_entries("vf create"), 0);
	ck_assert_uint_eq(journal_entries("persist"), 1);
	free(before);
	free(after);
}
END_TEST

START_TEST(usage_errors_and_no_terminal_exit_3_and_change_nothing)
{
	char *before = snapshot(), *out, *err;
	static const char *const bad[][3] = {
		{"--fix", "no-such-check", "no such check"},
		{"--yes", NULL, "'--yes' goes with --fix"},
		{"--fix", NULL, "option '--fix' needs a value (ID|all)"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(tu_sim_run(node, &out, &err, "check", bad[i][0], bad[i][1], NULL),
				 3);
		ck_assert_msg(strstr(err, bad[i][2]), "%s: %s", bad[i][0], err);
		free(out);
		free(err);
	}
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "check", "--json", "--fix", "all", NULL), 3);
	ck_assert_ptr_nonnull(strstr(err, "no --json"));
	free(out);
	free(err);
	/* stdin is not a terminal here: asking is impossible */
	ck_assert_int_eq(fix(&out, &err, "guid-zero", NULL, NULL), 3);
	ck_assert_ptr_nonnull(strstr(err, "standard input is not a terminal"));
	free(out);
	free(err);
	char *after = snapshot();
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
}
END_TEST

/* Every finding left is one ibvf must not fix (manual steps: driver,
 * firmware, Ethernet fallback, kubectl) or one a pod stands in the way of. */
START_TEST(fix_all_leaves_only_manual_findings_and_what_a_pod_holds)
{
	char *out, *err;
	ck_assert_int_eq(fix(&out, &err, "all", "--yes", NULL), 0);
	/* three plans: GUIDs, every kernel name (which moves the netdev off the
	 * pod VF's host name: the collision is its consequence), persist */
	ck_assert_msg(strstr(out, "findings tried in 3 fixes"), "%s", out);
	/* the ports that came up with their GUIDs were not fixed a second time */
	ck_assert_ptr_null(strstr(out, "port-down 0000:18:00"));
	ck_assert_ptr_null(strstr(out, "port-down 0000:4f:00"));
	ck_assert_ptr_null(strstr(out, "left to their causes"));
	free(out);
	free(err);
	struct json_object *fs = findings();
	static const char *const pod_bound[] = {"0000:c0:00.0"}; /* trainer-1 holds c0:00.1 */
	bool seen[4] = {0};
	static const char *const must[] = {"driver-kernel-mismatch", "firmware-old",
					   "ethernet-fallback", "probe-failed"};
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		struct json_object *f = json_object_array_get_idx(fs, i), *r = NULL;
		ck_assert(json_object_object_get_ex(f, "remedy", &r));
		for (size_t j = 0; j < 4; j++)
			seen[j] |= !strcmp(sget(f, "id"), must[j]);
		if (!strcmp(sget(r, "kind"), "manual") || !strcmp(sget(r, "kind"), "none"))
			continue;
		bool held = false;
		const char *subject = sget(f, "subject") ? sget(f, "subject") : "node";
		for (size_t j = 0; j < sizeof(pod_bound) / sizeof(pod_bound[0]); j++)
			held |= !strcmp(subject, pod_bound[j]);
		ck_assert_msg(held, "left with an ibvf remedy: %s %s", sget(f, "id"), subject);
	}
	for (size_t j = 0; j < 4; j++)
		ck_assert_msg(seen[j], "%s is gone: it is manual", must[j]);
	json_object_put(fs);
	ck_assert_uint_eq(count("guid-zero") + count("guid-duplicate") + count("name-unstable") +
				  count("boot-unit") + count("sriov-layout") +
				  count("name-collision"),
			  0);
	ck_assert_uint_eq(journal_entries("vf guid --assign-all"), 1);
	ck_assert_uint_eq(journal_entries("vf rename --all"), 1);
	ck_assert_uint_eq(journal_entries("vf rename"), 0); /* the collision went with --all */
	ck_assert_uint_eq(journal_entries("persist"), 1);
}
END_TEST

static Suite *check_fix_suite(void)
{
	Suite *s = suite_create("check_fix");
	TCase *tc = tcase_create("fix");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 240); /* dozens of plans, each reading the node */
	tcase_add_test(tc, dry_run_prints_the_plans_in_order_and_changes_nothing);
	tcase_add_test(tc, guid_zero_is_fixed_and_journaled);
	tcase_add_test(tc, guid_duplicate_is_fixed_on_the_second_holder_only);
	tcase_add_test(tc, manual_finding_prints_its_steps_and_runs_nothing);
	tcase_add_test(tc, sriov_layout_keeps_the_layout_and_never_recreates_vfs);
	tcase_add_test(tc, usage_errors_and_no_terminal_exit_3_and_change_nothing);
	tcase_add_test(tc, fix_all_leaves_only_manual_findings_and_what_a_pod_holds);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(check_fix_suite());
}
