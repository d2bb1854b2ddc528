// SPDX-License-Identifier: MIT
/* The checks (core/checks*.c) on simulated nodes: each seeded fault found on
 * the right subject with its evidence, and a healthy node without findings. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/checks.h"
#include "core/node.h"
#include "core/sys.h"
#include "testutil.h"

static struct node *discover_sim(const char *dir)
{
	struct sys *s;
	struct err e = {{0}};
	ck_assert_msg(sys_open_sim(dir, NULL, &s, &e) == 0, "open: %s", e.msg);
	struct node *n;
	ck_assert_msg(node_discover(s, &n, &e) == 0, "discover: %s", e.msg);
	sys_close(s);
	return n;
}

/* The findings of one check id on one subject ("" for the node). */
static size_t count(const struct findings *fs, const char *id, const char *subject)
{
	size_t c = 0;
	for (size_t i = 0; i < fs->n; i++)
		c += strcmp(fs->v[i].id, id) == 0 &&
		     (!subject || !strcmp(fs->v[i].subject, subject));
	return c;
}

static const struct finding *first(const struct findings *fs, const char *id, const char *subject)
{
	for (size_t i = 0; i < fs->n; i++)
		if (strcmp(fs->v[i].id, id) == 0 && !strcmp(fs->v[i].subject, subject))
			return &fs->v[i];
	return NULL;
}

START_TEST(guid_zero_on_every_vf_of_mlx5_0_and_mlx5_4)
{
	char *dir = tu_mkfixture(NULL);
	struct node *n = discover_sim(dir);
	struct findings fs;
	ck_assert_int_eq(checks_run(n, NULL, &fs), 0);
	/* mlx5_0 (18:00) and mlx5_4 (4f:00): 8 VFs each, 18:00.2 never probed
	 * (no ibdev, no GUID read: unknown, not zero). */
	ck_assert_uint_eq(count(&fs, "guid-zero", NULL), 15);
	ck_assert_uint_eq(count(&fs, "guid-zero", "0000:18:00.2"), 0);
	const struct finding *f = first(&fs, "guid-zero", "0000:4f:00.1");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_CRITICAL);
	ck_assert_int_eq(f->kind, SUBJECT_VF);
	ck_assert_uint_ge(f->n_evidence, 2);
	ck_assert_msg(strstr(f->evidence[0].where, "/node_guid") != NULL, "%s",
		      f->evidence[0].where);
	ck_assert_str_eq(f->evidence[0].value, "0000:0000:0000:0000");
	ck_assert_int_eq(f->remedy.kind, REMEDY_IBVF);
	ck_assert_str_eq(f->remedy.steps[0], "vf");
	ck_assert_str_eq(f->remedy.steps[2], "0000:4f:00.1");
	findings_fini(&fs);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

START_TEST(healthy_node_has_no_findings)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", NULL});
	struct node *n = discover_sim(dir);
	struct findings fs;
	ck_assert_int_eq(checks_run(n, NULL, &fs), 0);
	for (size_t i = 0; i < fs.n; i++)
		ck_abort_msg("false alarm: %s on %s: %s", fs.v[i].id, fs.v[i].subject,
			     fs.v[i].title);
	ck_assert_int_eq(findings_max_severity(&fs), CHECK_INFO);
	findings_fini(&fs);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

START_TEST(json_has_counts_and_remedy)
{
	char *dir = tu_mkfixture(NULL);
	struct node *n = discover_sim(dir);
	struct findings fs;
	ck_assert_int_eq(checks_run(n, NULL, &fs), 0);
	struct json_object *j = findings_to_json(&fs), *v, *c;
	ck_assert(json_object_object_get_ex(j, "counts", &c));
	ck_assert(json_object_object_get_ex(c, "critical", &v));
	ck_assert_int_ge(json_object_get_int(v), 15);
	ck_assert(json_object_object_get_ex(j, "findings", &v));
	struct json_object *f0 = json_object_array_get_idx(v, 0), *r, *k;
	ck_assert(json_object_object_get_ex(f0, "remedy", &r));
	ck_assert(json_object_object_get_ex(r, "kind", &k));
	ck_assert_ptr_nonnull(json_object_get_string(k));
	json_object_put(j);
	findings_fini(&fs);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("checks");
	TCase *tc = tcase_create("sim");
	tcase_add_test(tc, guid_zero_on_every_vf_of_mlx5_0_and_mlx5_4);
	tcase_add_test(tc, healthy_node_has_no_findings);
	tcase_add_test(tc, json_has_counts_and_remedy);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
