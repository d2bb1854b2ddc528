// SPDX-License-Identifier: MIT
/* `ibvf bench validate` and --profile validate as an operator meets them on
 * a machine without RDMA: bad arguments named in one line with status 2,
 * the peer placed (a device here: pair mode; else a host: client mode), the
 * profile's QPs from the simulated 400G port, one JSON document, a failed
 * run not recorded; and the text of a row (tests, history, verdict). */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "tui/bench/bench_validate.h"

START_TEST(bad_arguments_give_one_line_and_status_2)
{
	static const struct {
		const char *argv[8];
		const char *want;
	} cases[] = {
		{{"bench", "validate", NULL}, "bench validate needs the VF and the peer"},
		{{"bench", "validate", "peer", NULL}, "bench validate needs the VF to validate"},
		{{"bench", "validate", "a", "b", "--test", "read_bw", NULL},
		 "--test does not go with the validation profile"},
		{{"bench", "validate", "a", "b", "--iters", "5", NULL},
		 "--iters does not go with the validation profile"},
		{{"bench", "client", "h", "--profile", "fast", NULL}, "unknown profile 'fast'"},
		/* A control character never reaches the terminal as is. */
		{{"bench", "client", "h", "--profile", "v\x1b]0;x\a", NULL},
		 "unknown profile 'v\\x1b]0;x\\x07'"},
		{{"bench", "validate", "a", "b", "--max-lat", "1\n2", NULL}, "got '1\\x0a2'"},
		{{"bench", "validate", "a", "b", "--max-lat", "0", NULL},
		 "--max-lat wants microseconds above 0"},
		{{"bench", "client", "h", "--no-history", NULL},
		 "--no-history goes with the validation profile"},
		{{"bench", "server", "--profile", "validate", NULL},
		 "'bench server' takes no --profile: it goes with 'bench client|pair|validate'"},
		{{"bench", "loopback", "x", "--profile", "validate", NULL},
		 "'bench loopback' takes no --profile"},
	};
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[10];
		size_t n = 0;
		for (; cases[i].argv[n]; n++)
			argv[n] = cases[i].argv[n];
		argv[n++] = sim;
		argv[n] = NULL;
		char *out, *err;
		int rc = tu_run(argv, &out, &err);
		ck_assert_msg(rc == 2, "case %zu: exit %d, stderr '%s'", i, rc, err);
		ck_assert_msg(strstr(err, cases[i].want), "case %zu: stderr '%s'", i, err);
		ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "case %zu: '%s'", i, err);
		free(out);
		free(err);
	}
	free(sim);
	tu_rmtree(dir);
}
END_TEST

static struct json_object *run_json(const char *dir, int want_rc, const char *const *args)
{
	char *sim = tu_sim_arg(dir), *out, *err;
	const char *argv[16] = {"bench", "validate"};
	size_t n = 2;
	for (; *args; args++)
		argv[n++] = *args;
	argv[n++] = "--json";
	argv[n++] = sim;
	argv[n] = NULL;
	int rc = tu_run(argv, &out, &err);
	ck_assert_msg(rc == want_rc, "exit %d, stderr '%s'", rc, err);
	struct json_object *o = json_tokener_parse(out);
	ck_assert_msg(o != NULL, "not one JSON document: '%s'", out);
	free(out);
	free(err);
	free(sim);
	return o;
}

static const char *jpath(struct json_object *o, const char *const *path)
{
	for (; *path && o; path++) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(*path));
		else
			o = json_object_object_get(o, *path);
	}
	return o ? json_object_get_string(o) : "(null)";
}

#define J(o, ...) jpath(o, (const char *const[]){__VA_ARGS__, NULL})

START_TEST(peer_on_this_node_is_pair_mode_with_the_profile_qps)
{
	/* mlx5_15 is VF 0000:18:00.5: pair mode, keyed by its PCI address. A
	 * device that cannot be opened: two ERRORs, the others not tried,
	 * nothing recorded. */
	char *dir = tu_mkfixture(NULL), hist[PATH_MAX];
	const char *args[] = {"0000:18:00.4", "mlx5_15", "--duration", "1", NULL};
	struct json_object *o = run_json(dir, 1, args);
	ck_assert_str_eq(J(o, "profile"), "validate");
	ck_assert_str_eq(J(o, "mode"), "pair");
	ck_assert_str_eq(J(o, "peer"), "0000:18:00.5");
	ck_assert_str_eq(J(o, "vfs", "0", "device", "pf"), "0000:18:00.0");
	ck_assert_str_eq(J(o, "vfs", "0", "device", "vf"), "3");
	ck_assert_str_eq(J(o, "vfs", "0", "status"), "FAIL");
	ck_assert_str_eq(J(o, "vfs", "0", "tests", "0", "status"), "ERROR");
	ck_assert_str_eq(J(o, "vfs", "0", "tests", "0", "profile", "qps"), "4");
	ck_assert_str_eq(J(o, "vfs", "0", "tests", "1", "profile", "qps"), "4");
	ck_assert_str_eq(J(o, "vfs", "0", "tests", "0", "profile", "chosen_by"), "profile");
	ck_assert_str_eq(J(o, "vfs", "0", "tests", "0", "profile", "duration_s"), "1");
	ck_assert_str_eq(J(o, "vfs", "0", "stopped"), "the same error twice");
	ck_assert_int_eq(
		json_object_array_length(json_object_object_get(
			json_object_array_get_idx(json_object_object_get(o, "vfs"), 0), "tests")),
		2);
	ck_assert_ptr_nonnull(strstr(J(o, "vfs", "0", "why"), "write_bw: no RDMA device"));
	snprintf(hist, sizeof(hist), "%s/var/lib/ibvf/bench-history.jsonl", dir);
	ck_assert_str_eq(J(o, "history_file"), hist);
	ck_assert_str_eq(J(o, "history_recorded"), "true");
	ck_assert_int_ne(access(hist, F_OK), 0);
	json_object_put(o);
	tu_rmtree(dir);
}
END_TEST

START_TEST(peer_elsewhere_is_client_mode_and_operator_qps_win)
{
	char *dir = tu_mkfixture(NULL);
	const char *args[] = {"-d", "0000:18:00.4", "192.0.2.1", "--qps",
			      "3",  "--no-history", NULL};
	struct json_object *o = run_json(dir, 1, args);
	ck_assert_str_eq(J(o, "mode"), "client");
	ck_assert_str_eq(J(o, "peer"), "192.0.2.1");
	ck_assert_str_eq(J(o, "vfs", "0", "tests", "0", "profile", "qps"), "3");
	ck_assert_str_eq(J(o, "vfs", "0", "tests", "0", "profile", "chosen_by"), "operator");
	ck_assert_str_eq(J(o, "vfs", "0", "tests", "0", "profile", "duration_s"), "5");
	ck_assert_str_eq(J(o, "history_recorded"), "false");
	json_object_put(o);
	tu_rmtree(dir);
}
END_TEST

START_TEST(a_vf_in_a_pod_is_refused_unless_forced)
{
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir), *out, *err;
	const char *a[] = {"bench", "validate", "0000:40:00.4", "mlx5_15", sim, NULL};
	ck_assert_int_eq(tu_run(a, &out, &err), 1);
	ck_assert_ptr_nonnull(strstr(err, "bound to pod 'ml-training/trainer-0'"));
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
	free(sim);
	tu_rmtree(dir);
}
END_TEST

/* Every VF of the simulated node: its RDMA devices are sysfs files, no
 * verbs device opens. One line says so and where validation runs, exit 2
 * (nothing ran, as a refused action), no row per VF, in text and JSON, one
 * VF after another or every PF at once, a server or a VF as the peer. */
START_TEST(all_vfs_on_the_simulated_node_is_one_line)
{
	static const char *const cases[][8] = {
		{"bench", "validate", "--all-vfs", "192.0.2.1", NULL},
		{"bench", "validate", "--all-vfs", "192.0.2.1", "--json", NULL},
		{"bench", "validate", "--all-vfs", "--parallel", "mlx5_15", NULL},
		{"bench", "client", "192.0.2.1", "--all-vfs", "--profile", "validate", NULL},
	};
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[10];
		size_t n = 0;
		for (; cases[i][n]; n++)
			argv[n] = cases[i][n];
		argv[n++] = sim;
		argv[n] = NULL;
		char *out, *err;
		int rc = tu_run(argv, &out, &err);
		ck_assert_msg(rc == 2, "case %zu: exit %d, stderr '%.300s'", i, rc, err);
		ck_assert_msg(!strcmp(out, ""), "case %zu: stdout '%.300s'", i, out);
		ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "case %zu: '%.300s'", i,
			      err);
		ck_assert_msg(strstr(err, "the simulated node has no verbs devices") &&
				      strstr(err, "a real node") && strstr(err, "QEMU guest"),
			      "case %zu: '%s'", i, err);
		free(out);
		free(err);
	}
	free(sim);
	tu_rmtree(dir);
}
END_TEST

static struct json_object *test_obj(const char *test, const char *status, double fig,
				    const char *unit, const char *flag, double change)
{
	char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"test\": \"%s\", \"status\": \"%s\", \"figure\": %g, \"unit\": \"%s\", "
		 "\"spread\": 0.004, \"judged\": %s, \"profile\": {\"qps\": %d, \"tx_depth\": "
		 "%s, \"chosen_by\": \"profile\", \"why\": \"400 Gb/s: 4 QPs: because\"}, "
		 "\"verdict\": {\"judged\": %s, \"reason\": \"391.00 Gb/s >= 357.73\"}, "
		 "\"history\": %s}",
		 test, status, fig, unit, strcmp(unit, "us") ? "true" : "false",
		 strcmp(unit, "us") ? 4 : 1, strcmp(unit, "us") ? "128" : "null",
		 strcmp(unit, "us") ? "true" : "false", "null");
	struct json_object *o = json_tokener_parse(buf);
	ck_assert_ptr_nonnull(o);
	if (flag) {
		struct json_object *h = json_object_new_object();
		json_object_object_add(h, "previous", json_object_new_double(422));
		json_object_object_add(h, "change_pct", json_object_new_double(change));
		json_object_object_add(h, "noise_pct", json_object_new_double(5));
		json_object_object_add(h, "flag", json_object_new_string(flag));
		json_object_object_add(o, "history", h);
	}
	return o;
}

START_TEST(text_of_a_row)
{
	struct json_object *row = json_tokener_parse(
		"{\"device\": {\"ibdev\": \"mlx5_14\", \"pf\": \"0000:18:00.0\", \"vf\": 3, "
		"\"netdev\": \"ib2\", \"rate\": \"400 Gb/sec (4X NDR)\"}, \"vf_bdf\": "
		"\"0000:18:00.4\", \"peer\": \"10.0.0.2\", \"status\": \"PASS\", \"why\": null, "
		"\"history_drops\": 1}");
	struct json_object *tests = json_object_new_array();
	json_object_array_add(tests, test_obj("write_bw", "PASS", 388.1, "Gb/s", "drop", -8.03));
	json_object_array_add(tests, test_obj("read_bw", "PASS", 390.5, "Gb/s", "ok", -1));
	json_object_array_add(tests, test_obj("write_lat", "PASS", 1.05, "us", NULL, 0));
	json_object_array_add(tests, test_obj("read_lat", "PASS", 2.1, "us", NULL, 0));
	json_object_object_add(row, "tests", tests);
	struct text t = {0};
	bench_validate_text_row(&t, row, false);
	ck_assert_ptr_nonnull(text_find(&t, "Validation of 0000:18:00.4 mlx5_14 (vf3 of "
					    "0000:18:00.0, ib2), 400 Gb/sec (4X NDR), peer "
					    "10.0.0.2"));
	const struct text_line *l = text_find(&t, "  write_bw");
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(l->role, TEXT_WARNING);
	ck_assert_ptr_nonnull(strstr(l->s, "4 x 128"));
	ck_assert_ptr_nonnull(strstr(l->s, "388.10 Gb/s"));
	ck_assert_ptr_nonnull(strstr(l->s, "0.4%"));
	ck_assert_ptr_nonnull(strstr(l->s, "PASS   DROP -8.0% vs 422.00 Gb/s (noise 5.0%)"));
	l = text_find(&t, "  read_bw ");
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(l->role, TEXT_OK);
	ck_assert_ptr_nonnull(strstr(l->s, "-1.0% vs 422.00 Gb/s"));
	ck_assert_ptr_null(strstr(l->s, "DROP"));
	l = text_find(&t, "  write_lat");
	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_nonnull(strstr(l->s, "1.050 us typical"));
	ck_assert_ptr_nonnull(strstr(l->s, " -      no previous run"));
	ck_assert_ptr_nonnull(text_find(&t, "  read_bw: 400 Gb/s: 4 QPs: because"));
	ck_assert_ptr_nonnull(text_find(&t, "  write_bw verdict: 391.00 Gb/s >= 357.73"));
	ck_assert_ptr_nonnull(text_find(&t, "1 figure(s) dropped beyond the noise"));
	l = &t.lines[t.n - 1];
	ck_assert_int_eq(l->role, TEXT_OK);
	ck_assert_str_eq(l->s, "PASS VF 0000:18:00.4: bandwidth at its verdicts' threshold; "
			       "latency reported, not judged (--max-lat US to judge it)");
	text_clear(&t);
	json_object_put(row);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("validate");
	TCase *tc = tcase_create("validate");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, bad_arguments_give_one_line_and_status_2);
	tcase_add_test(tc, peer_on_this_node_is_pair_mode_with_the_profile_qps);
	tcase_add_test(tc, peer_elsewhere_is_client_mode_and_operator_qps_win);
	tcase_add_test(tc, a_vf_in_a_pod_is_refused_unless_forced);
	tcase_add_test(tc, all_vfs_on_the_simulated_node_is_one_line);
	tcase_add_test(tc, text_of_a_row);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
