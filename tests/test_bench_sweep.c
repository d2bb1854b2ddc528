// SPDX-License-Identifier: MIT
/* `bench --all-vfs [--parallel]`'s pure parts (tui/bench/bench_sweep.h): a peer
 * that fails the same way three times is out and named once, a VF's own
 * failure is not the peer's; the per-PF and node aggregates from rows whose
 * times and figures are set by hand; the text rows (no bandwidth on a SKIP
 * or an error) and the sweep's closing lines. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "tui/bench/bench_sweep.h"
#include "tui/bench/bench_text.h"

static struct bench_target vf_target(const char *ibdev, const char *netdev, const char *bdf)
{
	struct bench_target t = {.vf_index = 0, .rate_gbps = 400};
	snprintf(t.ibdev, sizeof(t.ibdev), "%s", ibdev);
	snprintf(t.netdev, sizeof(t.netdev), "%s", netdev);
	snprintf(t.bdf, sizeof(t.bdf), "%s", bdf);
	return t;
}

START_TEST(three_same_peer_errors_put_the_peer_out)
{
	static const char refused[] = "cannot connect to 10.0.0.2 port 18515: Connection refused";
	struct bench_sweep_strikes s = {0};
	struct bench_target a = vf_target("mlx5_6", "ib0", "0000:18:00.1"),
			    b = vf_target("mlx5_7", "ib1", "0000:18:00.2"),
			    c = vf_target("mlx5_8", "ib2", "0000:18:00.3");
	char why[700];
	ck_assert(!bench_sweep_strike(&s, &a, BENCH_SWEEP_ERROR, refused));
	ck_assert(!bench_sweep_peer_out(&s, why, sizeof(why)));
	/* A VF skipped before any run says nothing of the peer. */
	ck_assert(!bench_sweep_strike(&s, &b, BENCH_SWEEP_SKIP, "no RDMA device"));
	ck_assert(!bench_sweep_strike(&s, &b, BENCH_SWEEP_ERROR, refused));
	ck_assert(bench_sweep_strike(&s, &c, BENCH_SWEEP_ERROR, refused));
	ck_assert(bench_sweep_peer_out(&s, why, sizeof(why)));
	ck_assert_str_eq(why, "not run: the peer failed 3 times: cannot connect to 10.0.0.2 port "
			      "18515: Connection refused");
	/* Out stays out. */
	ck_assert(bench_sweep_strike(&s, &a, BENCH_SWEEP_PASS, ""));
}
END_TEST

START_TEST(a_pass_a_verdict_fail_or_another_cause_starts_over)
{
	static const char e1[] = "no answer from the peer within 10000 ms while connecting",
			  e2[] = "the peer closed the connection while exchanging";
	struct bench_sweep_strikes s = {0};
	struct bench_target t = vf_target("mlx5_6", "ib0", "0000:18:00.1");
	char why[700];
	ck_assert(!bench_sweep_strike(&s, &t, BENCH_SWEEP_ERROR, e1));
	ck_assert(!bench_sweep_strike(&s, &t, BENCH_SWEEP_ERROR, e1));
	ck_assert(!bench_sweep_strike(&s, &t, BENCH_SWEEP_PASS, "390 Gb/s"));
	ck_assert(!bench_sweep_strike(&s, &t, BENCH_SWEEP_ERROR, e1));
	ck_assert(!bench_sweep_strike(&s, &t, BENCH_SWEEP_ERROR, e1));
	ck_assert(!bench_sweep_strike(&s, &t, BENCH_SWEEP_FAIL, "75% of the ceiling"));
	ck_assert(!bench_sweep_strike(&s, &t, BENCH_SWEEP_ERROR, e1));
	ck_assert(!bench_sweep_strike(&s, &t, BENCH_SWEEP_ERROR, e1));
	ck_assert(!bench_sweep_strike(&s, &t, BENCH_SWEEP_ERROR, e2));
	ck_assert_uint_eq(s.n, 1);
	ck_assert_str_eq(s.cause, e2);
	ck_assert(!bench_sweep_peer_out(&s, why, sizeof(why)));
}
END_TEST

START_TEST(an_error_naming_the_vf_is_not_the_peers)
{
	struct bench_sweep_strikes s = {0};
	/* Three VFs whose own ports are down: the same words, each its own fault. */
	const char *names[][3] = {{"mlx5_6", "ib0", "0000:18:00.1"},
				  {"mlx5_7", "ib1", "0000:18:00.2"},
				  {"mlx5_8", "ib2", "0000:18:00.3"}};
	for (size_t i = 0; i < 3; i++) {
		struct bench_target t = vf_target(names[i][0], names[i][1], names[i][2]);
		char why[200];
		snprintf(why, sizeof(why), "'%s' port 1 is not ACTIVE (state 1)", t.ibdev);
		ck_assert(!bench_sweep_strike(&s, &t, BENCH_SWEEP_ERROR, why));
		snprintf(why, sizeof(why), "cannot rename %s: busy", t.bdf);
		ck_assert(!bench_sweep_strike(&s, &t, BENCH_SWEEP_ERROR, why));
	}
	ck_assert_uint_eq(s.n, 0);
	/* A name that only contains the VF's is not the VF's: 'mlx5_60' is the peer. */
	struct bench_target t = vf_target("mlx5_6", "", "");
	for (int i = 0; i < 3; i++)
		bench_sweep_strike(&s, &t, BENCH_SWEEP_ERROR,
				   "server side on 'mlx5_60': no RDMA device 'mlx5_60'");
	ck_assert_uint_eq(s.n, 3);
}
END_TEST

/* A row as the sweep makes it; fig < 0: no verdict; start < 0: not run. */
static struct json_object *row(const char *pf, const char *status, double fig, double start,
			       double end)
{
	struct json_object *r = json_object_new_object();
	json_object_object_add(r, "pf_bdf", json_object_new_string(pf));
	json_object_object_add(r, "status", json_object_new_string(status));
	if (fig >= 0) {
		struct json_object *v = json_object_new_object();
		json_object_object_add(v, "figure_gbps", json_object_new_double(fig));
		json_object_object_add(r, "verdict", v);
	}
	json_object_object_add(r, "start_s", start >= 0 ? json_object_new_double(start) : NULL);
	json_object_object_add(r, "end_s", start >= 0 ? json_object_new_double(end) : NULL);
	return r;
}

static double num(struct json_object *o, const char *key)
{
	struct json_object *v;
	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no '%s'", key);
	ck_assert_msg(v != NULL, "'%s' is null", key);
	return json_object_get_double(v);
}

static bool is_null(struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && v == NULL;
}

START_TEST(per_pf_best_median_and_the_node_sum_of_runs_together)
{
	/* PF A: 100 then 300 Gb/s one after another, one error, one skip; PF B:
	 * 200 over [0.5, 3.5] then 50 over [3.5, 5]. At A2's start (2.0) A2 and
	 * B1 run together: 300 + 200 = 500, the largest sum at any start. */
	struct json_object *vfs = json_object_new_array();
	json_object_array_add(vfs, row("0000:18:00.0", "PASS", 100, 0, 2));
	json_object_array_add(vfs, row("0000:18:00.0", "PASS", 300, 2, 4));
	json_object_array_add(vfs, row("0000:18:00.0", "FAIL", -1, 4, 4.5));
	json_object_array_add(vfs, row("0000:18:00.0", "SKIP", -1, -1, -1));
	json_object_array_add(vfs, row("0000:40:00.0", "PASS", 200, 0.5, 3.5));
	json_object_array_add(vfs, row("0000:40:00.0", "FAIL", 50, 3.5, 5));
	struct json_object *rates = json_object_new_object();
	json_object_object_add(rates, "0000:18:00.0", json_object_new_double(400));
	struct json_object *pfs = bench_sweep_pf_aggregates(vfs, rates);
	ck_assert_uint_eq(json_object_array_length(pfs), 2);
	struct json_object *a = json_object_array_get_idx(pfs, 0),
			   *b = json_object_array_get_idx(pfs, 1);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(a, "pf_bdf")),
			 "0000:18:00.0");
	ck_assert_double_eq(num(a, "vfs"), 4);
	ck_assert_double_eq(num(a, "run"), 3);
	ck_assert_double_eq(num(a, "pass"), 2);
	ck_assert_double_eq(num(a, "fail"), 1);
	ck_assert_double_eq(num(a, "skip"), 1);
	ck_assert_double_eq(num(a, "best_gbps"), 300);
	ck_assert_double_eq(num(a, "median_gbps"), 200); /* (100 + 300) / 2 */
	ck_assert_double_eq(num(a, "port_rate_gbps"), 400);
	ck_assert_double_eq_tol(num(a, "busy_s"), 4.5, 1e-9);
	ck_assert_double_eq(num(b, "best_gbps"), 200);
	ck_assert_double_eq(num(b, "median_gbps"), 125); /* a FAIL's figure counts too */
	ck_assert(is_null(b, "port_rate_gbps"));
	struct json_object *node = bench_sweep_node_aggregate(vfs, pfs, 5.25);
	ck_assert_double_eq(num(node, "aggregate_gbps"), 500);
	ck_assert_double_eq(num(node, "concurrent_runs"), 2);
	ck_assert_double_eq(num(node, "port_rate_gbps"), 400);
	ck_assert_double_eq(num(node, "wall_s"), 5.25);
	json_object_put(node);
	json_object_put(pfs);
	json_object_put(rates);
	json_object_put(vfs);
}
END_TEST

START_TEST(one_after_another_the_node_figure_is_the_best_run)
{
	struct json_object *vfs = json_object_new_array();
	json_object_array_add(vfs, row("0000:18:00.0", "PASS", 100, 0, 1));
	json_object_array_add(vfs, row("0000:18:00.0", "PASS", 120, 1, 2));
	json_object_array_add(vfs, row("0000:40:00.0", "PASS", 90, 2, 3));
	json_object_array_add(vfs, row("0000:40:00.0", "PASS", 110, 3, 4));
	json_object_array_add(vfs, row("0000:40:00.0", "PASS", 130, 4, 5));
	struct json_object *pfs = bench_sweep_pf_aggregates(vfs, NULL);
	ck_assert_double_eq(num(json_object_array_get_idx(pfs, 1), "median_gbps"), 110);
	struct json_object *node = bench_sweep_node_aggregate(vfs, pfs, 5);
	ck_assert_double_eq(num(node, "aggregate_gbps"), 130);
	ck_assert_double_eq(num(node, "concurrent_runs"), 1);
	ck_assert(is_null(node, "port_rate_gbps"));
	json_object_put(node);
	json_object_put(pfs);
	json_object_put(vfs);
	/* Nothing ran: no figure, not zero. */
	vfs = json_object_new_array();
	json_object_array_add(vfs, row("0000:18:00.0", "SKIP", -1, -1, -1));
	pfs = bench_sweep_pf_aggregates(vfs, NULL);
	node = bench_sweep_node_aggregate(vfs, pfs, 0.01);
	ck_assert(is_null(json_object_array_get_idx(pfs, 0), "best_gbps"));
	ck_assert(is_null(json_object_array_get_idx(pfs, 0), "busy_s"));
	ck_assert(is_null(node, "aggregate_gbps"));
	json_object_put(node);
	json_object_put(pfs);
	json_object_put(vfs);
}
END_TEST

START_TEST(text_rows_show_bandwidth_only_for_a_verdict)
{
	struct json_object *pass = row("0000:18:00.0", "PASS", 391.5, 0, 1);
	json_object_object_add(pass, "vf_bdf", json_object_new_string("0000:18:00.1"));
	json_object_object_add(pass, "device", json_object_new_string("mlx5_6"));
	json_object_object_add(json_object_object_get(pass, "verdict"), "reason",
			       json_object_new_string("98% of the ceiling"));
	struct json_object *err = json_object_new_object(), *skip = json_object_new_object();
	json_object_object_add(err, "device", json_object_new_string("mlx5_7"));
	json_object_object_add(err, "vf_bdf", json_object_new_string("0000:18:00.2"));
	json_object_object_add(err, "status", json_object_new_string("FAIL"));
	json_object_object_add(err, "why", json_object_new_string("Connection refused"));
	json_object_object_add(err, "peer_out", json_object_new_boolean(true));
	json_object_object_add(skip, "device", json_object_new_string("mlx5_8"));
	json_object_object_add(skip, "vf_bdf", json_object_new_string("0000:18:00.3"));
	json_object_object_add(skip, "status", json_object_new_string("SKIP"));
	json_object_object_add(skip, "why",
			       json_object_new_string("not run: the peer failed 3 "
						      "times: Connection refused"));
	struct text t = {0};
	bench_text_vf_row(&t, pass);
	bench_text_vf_row(&t, err);
	bench_text_vf_row(&t, skip);
	ck_assert_uint_eq(t.n, 4);
	ck_assert_str_eq(t.lines[0].s,
			 "PASS VF 0000:18:00.1   mlx5_6      391.50 Gb/s  98% of the ceiling");
	ck_assert_str_eq(t.lines[1].s, "FAIL VF 0000:18:00.2   mlx5_7                   "
				       "Connection refused");
	ck_assert_int_eq(t.lines[1].role, TEXT_ERROR);
	ck_assert_ptr_nonnull(strstr(t.lines[2].s, "failed 3 times in a row the same way"));
	/* The cause once, on the row that put the peer out (JSON keeps it). */
	ck_assert_str_eq(t.lines[3].s, "SKIP VF 0000:18:00.3   mlx5_8                   not run: "
				       "the peer is out (the cause is on the row that put it out)");
	ck_assert_int_eq(t.lines[3].role, TEXT_WARNING);
	ck_assert_ptr_null(text_find(&t, "0.00 Gb/s"));
	text_clear(&t);
	json_object_put(pass);
	json_object_put(err);
	json_object_put(skip);
}
END_TEST

START_TEST(sweep_text_ends_with_pfs_node_and_summary)
{
	struct json_object *doc = json_tokener_parse(
		"{\"parallel\":true,\"interrupted\":false,"
		"\"pfs\":[{\"pf_bdf\":\"0000:18:00.0\",\"port_rate_gbps\":400,\"vfs\":8,\"run\":7,"
		"\"best_gbps\":391.2,\"median_gbps\":390.05,\"busy_s\":40},"
		"{\"pf_bdf\":\"0000:40:00.0\",\"port_rate_gbps\":null,\"vfs\":8,\"run\":0,"
		"\"best_gbps\":null,\"median_gbps\":null,\"busy_s\":null}],"
		"\"node\":{\"aggregate_gbps\":780.5,\"concurrent_runs\":2,\"port_rate_gbps\":400,"
		"\"wall_s\":41.25},"
		"\"summary\":{\"pass\":7,\"fail\":0,\"skip\":9,\"total\":16}}");
	ck_assert_ptr_nonnull(doc);
	struct text t = {0};
	bench_text_sweep_summary(&t, doc);
	ck_assert_uint_eq(t.n, 4);
	ck_assert_str_eq(t.lines[0].s, "PF 0000:18:00.0   7 of 8 VFs run  best 391.20 Gb/s  median "
				       "390.05 Gb/s  port 400.00 Gb/s");
	ck_assert_str_eq(t.lines[1].s,
			 "PF 0000:40:00.0   0 of 8 VFs run  best -  median -  port -");
	ck_assert_str_eq(t.lines[2].s,
			 "node: 780.50 Gb/s at once (2 runs together; ports 400.00 Gb/s), every "
			 "PF at once, wall time 41.2 s");
	ck_assert_str_eq(t.lines[3].s, "PASS: 16 VFs, 7 passed, 0 failed, 9 skipped");
	text_clear(&t);
	json_object_put(doc);
}
END_TEST

START_TEST(parallel_and_all_pfs_are_refused_where_they_do_not_apply)
{
	static const struct {
		const char *argv[8];
		const char *want;
	} cases[] = {
		{{"bench", "pair", "mlx5_0", "mlx5_3", "--parallel", NULL},
		 "--parallel runs with --all-vfs"},
		{{"bench", "server", "--all-pfs", "-d", "mlx5_0", NULL},
		 "--all-pfs serves every PF"},
		{{"bench", "loopback", "mlx5_0", "--all-pfs", NULL},
		 "'bench loopback' takes no --all-pfs: it goes with 'bench server'"},
		{{"bench", "client", "h", "--all-vfs", "--parallel", "--port", "65535", NULL},
		 "past 65535"},
		{{"bench", "server", "--all-pfs", "--port", "65535", NULL}, "pass 65535"},
		/* The validation's sweep meets PF i on PORT+i as well. */
		{{"bench", "validate", "--all-vfs", "--parallel", "--port", "65535", "h", NULL},
		 "past 65535"},
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
		free(out);
		free(err);
	}
	free(sim);
	tu_rmtree(dir);
}
END_TEST

START_TEST(a_vf_of_another_link_layer_is_skipped_before_any_run)
{
	/* mlx5_1 is an Ethernet PF; the VFs are InfiniBand. */
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir), *out, *err;
	const char *a[] = {"bench",  "pair",   "--all-vfs", "--parallel",
			   "mlx5_1", "--json", sim,	    NULL};
	ck_assert_int_eq(tu_run(a, &out, &err), 1);
	struct json_object *doc = json_tokener_parse(out);
	ck_assert_msg(doc != NULL, "stdout: %s", out);
	struct json_object *vfs = json_object_object_get(doc, "vfs");
	size_t differ = 0, ran = 0;
	for (size_t i = 0; i < json_object_array_length(vfs); i++) {
		struct json_object *r = json_object_array_get_idx(vfs, i);
		const char *why = json_object_get_string(json_object_object_get(r, "why"));
		bool d = why && strstr(why, "link layers differ: this VF is InfiniBand, the peer "
					    "'mlx5_1' is Ethernet");
		differ += d;
		/* Skipped before any run: no times. */
		ran += d && json_object_object_get(r, "start_s") != NULL;
	}
	ck_assert_uint_gt(differ, 8);
	ck_assert_uint_eq(ran, 0);
	ck_assert(json_object_get_boolean(json_object_object_get(doc, "parallel")));
	json_object_put(doc);
	free(out);
	free(err);
	free(sim);
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("bench_sweep");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, three_same_peer_errors_put_the_peer_out);
	tcase_add_test(tc, a_pass_a_verdict_fail_or_another_cause_starts_over);
	tcase_add_test(tc, an_error_naming_the_vf_is_not_the_peers);
	tcase_add_test(tc, per_pf_best_median_and_the_node_sum_of_runs_together);
	tcase_add_test(tc, one_after_another_the_node_figure_is_the_best_run);
	tcase_add_test(tc, text_rows_show_bandwidth_only_for_a_verdict);
	tcase_add_test(tc, sweep_text_ends_with_pfs_node_and_summary);
	tcase_add_test(tc, parallel_and_all_pfs_are_refused_where_they_do_not_apply);
	tcase_add_test(tc, a_vf_of_another_link_layer_is_skipped_before_any_run);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
