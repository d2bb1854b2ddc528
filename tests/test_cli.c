// SPDX-License-Identifier: MIT
/* The ibvf binary as a user meets it: list text and JSON, help, version, and
 * one clear line with exit status 2 for every bad argument. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char *sim_arg(const char *dir)
{
	char *a;
	ck_assert_int_gt(asprintf(&a, "--sim=%s", dir), 0);
	return a;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;
	ck_assert_msg(json_object_object_get_ex(o, k, &v), "no key '%s'", k);
	return v;
}

START_TEST(list_json_parses_back_with_every_pf_and_vf)
{
	char *dir = tu_mkfixture(NULL), *sim = sim_arg(dir), *out, *err;
	const char *argv[] = {"list", "--json", sim, NULL};
	ck_assert_int_eq(tu_run(argv, &out, &err), 0);
	ck_assert_str_eq(err, "");

	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = json_tokener_parse_ex(tok, out, (int)strlen(out));
	ck_assert_msg(o != NULL, "invalid JSON: %s",
		      json_tokener_error_desc(json_tokener_get_error(tok)));
	json_tokener_free(tok);
	ck_assert_int_eq(json_object_get_int(get(o, "version")), 1);
	struct json_object *pfs = get(o, "pfs");
	ck_assert_uint_eq(json_object_array_length(pfs), 12);
	size_t vfs = 0;
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i);
		vfs += json_object_array_length(get(pf, "vfs"));
		struct json_object *port = json_object_array_get_idx(
			get(json_object_array_get_idx(get(pf, "rdma"), 0), "ports"), 0);
		ck_assert_ptr_nonnull(json_object_get_string(get(port, "rate")));
	}
	ck_assert_uint_eq(vfs, 64);
	struct json_object *pf0 = json_object_array_get_idx(pfs, 0);
	ck_assert_str_eq(json_object_get_string(get(pf0, "bdf")), "0000:18:00.0");
	json_object_put(o);
	free(out);
	free(err);
	free(sim);
	tu_rmtree(dir);
}
END_TEST

START_TEST(list_text_is_an_aligned_tree)
{
	char *dir = tu_mkfixture(NULL), *sim = sim_arg(dir), *out, *err;
	const char *argv[] = {"list", sim, NULL};
	ck_assert_int_eq(tu_run(argv, &out, &err), 0);
	/* A header line, the column header, 12 PFs, 64 VFs, plus kernel-log lines. */
	ck_assert_uint_ge(count_lines(out), 2 + 12 + 64);
	ck_assert_ptr_nonnull(strstr(out, "400 Gb/sec (4X NDR)"));
	ck_assert_ptr_nonnull(strstr(out, "Unknown symbol strlcpy"));
	ck_assert_ptr_nonnull(strstr(out, "└─ vf7 0000:18:01.0"));
	/* Every column starts at the same offset on the header and on a VF line. */
	const char *hdr = strstr(out, "DEVICE"), *vf = strstr(out, "├─ vf0");
	ck_assert_ptr_nonnull(hdr);
	ck_assert_ptr_nonnull(vf);
	const char *h_drv = strstr(hdr, "DRIVER"), *v_drv = strstr(vf, "mlx5_core");
	/* "├─" is two columns but six bytes. */
	ck_assert_int_eq((int)(h_drv - hdr), (int)(v_drv - vf) - 4);
	free(out);
	free(err);
	free(sim);
	tu_rmtree(dir);
}
END_TEST

START_TEST(version_and_help_behave_as_users_expect)
{
	char *out, *err;
	const char *v[] = {"--version", NULL};
	ck_assert_int_eq(tu_run(v, &out, &err), 0);
	ck_assert_str_eq(out, "ibvf " IBVF_VERSION "\n");
	free(out);
	free(err);
	const char *h[] = {"--help", NULL};
	ck_assert_int_eq(tu_run(h, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: ibvf"));
	/* The overview of every command, not the default command's help. */
	ck_assert_ptr_nonnull(strstr(out, "commands:"));
	ck_assert_ptr_nonnull(strstr(out, "  list"));
	ck_assert_ptr_nonnull(strstr(out, "  watch"));
	free(out);
	free(err);
	const char *hl[] = {"help", "list", NULL};
	ck_assert_int_eq(tu_run(hl, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "list [--json]"));
	free(out);
	free(err);
	const char *lh[] = {"list", "--help", NULL};
	ck_assert_int_eq(tu_run(lh, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "list [--json]"));
	free(out);
	free(err);
}
END_TEST

static const char *const bad_args[][5] = {
	{"frobnicate", NULL},
	{"list", "--jsn", NULL},
	{"list", "extra", NULL},
	{"--root", NULL},
	{"list", "--sim=/tmp", "--root", "/", NULL},
	{"list", "--kernel", "6.1.0", NULL},
	{"help", "nosuch", NULL},
	{"debug", "rename", "only-one", NULL},
	{"mkfixture", NULL},
	{"mkfixture", "/tmp/x", "--pfs", "abc", NULL},
};

START_TEST(bad_arguments_give_one_line_and_exit_2)
{
	char *out, *err;
	const char *const *argv = bad_args[_i];
	ck_assert_int_eq(tu_run(argv, &out, &err), 2);
	ck_assert_msg(count_lines(err) == 1, "stderr for '%s': %s", argv[0], err);
	ck_assert_msg(!strncmp(err, "ibvf: ", 6), "stderr: %s", err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
}
END_TEST

START_TEST(missing_root_is_a_clear_error)
{
	char *out, *err;
	const char *argv[] = {"list", "--root", "/nonexistent/ibvf", NULL};
	ck_assert_int_eq(tu_run(argv, &out, &err), 1);
	ck_assert_ptr_nonnull(strstr(err, "'/nonexistent/ibvf'"));
	ck_assert_uint_eq(count_lines(err), 1);
	free(out);
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, list_json_parses_back_with_every_pf_and_vf);
	tcase_add_test(tc, list_text_is_an_aligned_tree);
	tcase_add_test(tc, version_and_help_behave_as_users_expect);
	tcase_add_loop_test(tc, bad_arguments_give_one_line_and_exit_2, 0,
			    sizeof(bad_args) / sizeof(bad_args[0]));
	tcase_add_test(tc, missing_root_is_a_clear_error);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
