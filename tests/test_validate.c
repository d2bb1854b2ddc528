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
#include <sys/stat.h>
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
	/* No remote peer: nothing to authenticate. */
	ck_assert_str_eq(J(o, "vfs", "0", "authenticated"), "(null)");
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
	/* No --key: the server's word is not authenticated. */
	ck_assert_str_eq(J(o, "vfs", "0", "authenticated"), "false");
	json_object_put(o);
	tu_rmtree(dir);
}
END_TEST

/* A remote validation says whether its peer was authenticated: false and
 * "(unauthenticated peer)" on the verdict line without --key, true with it. */
START_TEST(a_remote_peer_without_a_key_is_said_unauthenticated)
{
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir), *out, *err, key[PATH_MAX];
	const char *text[] = {"bench",	      "validate",   "0000:18:00.4",
			      "192.0.2.1",    "--duration", "1",
			      "--no-history", sim,	    NULL};
	ck_assert_int_eq(tu_run(text, &out, &err), 1);
	const char *last = strstr(out, "\nFAIL (unauthenticated peer) VF 0000:18:00.4: ");
	ck_assert_msg(last, "stdout '%.1500s'", out);
	free(out);
	free(err);
	snprintf(key, sizeof(key), "%s/key", dir);
	tu_write(key, "0123456789abcdef0123456789abcdef\n");
	ck_assert_int_eq(chmod(key, 0600), 0);
	const char *args[] = {"0000:18:00.4", "192.0.2.1", "--duration", "1",
			      "--no-history", "--key",	   key,		 NULL};
	struct json_object *o = run_json(dir, 1, args);
	ck_assert_str_eq(J(o, "vfs", "0", "authenticated"), "true");
	json_object_put(o);
	const char *keyed[] = {"bench", "validate",	"0000:18:00.4", "192.0.2.1", "--duration",
			       "1",	"--no-history", "--key",	key,	     sim,
			       NULL};
	ck_assert_int_eq(tu_run(keyed, &out, &err), 1);
	ck_assert_msg(strstr(out, "\nFAIL VF 0000:18:00.4: "), "stdout '%.1500s'", out);
	ck_assert_ptr_null(strstr(out, "unauthenticated"));
	free(out);
	free(err);
	free(sim);
	tu_rmtree(dir);
}
END_TEST

/* A bandwidth result as the engine gives it: one size, both ports' rates. */
static void bw_result(struct bench_result *r, enum bench_test test, double gbps,
		      uint32_t peer_rate_mbps)
{
	memset(r, 0, sizeof(*r));
	r->test = test;
	r->mtu = 4096;
	r->n_sizes = 1;
	r->sizes[0].size = 65536;
	r->sizes[0].bw_avg_gbps = gbps;
	r->sizes[0].bw_peak_gbps = gbps;
	r->sizes[0].bw_spread = 0.01;
	r->self_port.rate_mbps = 400000;
	r->peer_port.rate_mbps = peer_rate_mbps;
	strcpy(r->peer, "10.0.0.2");
}

/* Issue 28: a 40 Gb/s VF on a 400G 4X NDR port against a peer claiming 1X
 * SDR was recorded as a PASS. Each test's status is the verdict's word, in
 * its JSON, its text line and its history line: impossible, peer-limited,
 * and PASS only for a run against a peer as fast as this port. */
START_TEST(the_history_records_each_verdicts_status)
{
	char *dir = tu_mkfixture(NULL), hist[PATH_MAX];
	struct bench_opts o = {.min_ratio = 0.9, .state_root = dir};
	struct bench_target t = {.vf_index = 3, .rate_gbps = 400};
	strcpy(t.ibdev, "mlx5_15");
	strcpy(t.bdf, "0000:18:00.4");
	strcpy(t.pf_bdf, "0000:18:00.0");
	strcpy(t.rate, "400 Gb/sec (4X NDR)");
	struct validate_peer p = {.host = "10.0.0.2", .peer_id = "10.0.0.2"};
	struct bench_result *res = malloc(sizeof(*res));
	ck_assert_ptr_nonnull(res);
	struct json_object *row = json_tokener_parse(
		"{\"device\": {\"ibdev\": \"mlx5_15\", \"pf\": \"0000:18:00.0\", \"vf\": 3, "
		"\"netdev\": null, \"rate\": \"400 Gb/sec (4X NDR)\"}, \"vf_bdf\": "
		"\"0000:18:00.4\", \"peer\": \"10.0.0.2\", \"authenticated\": false, "
		"\"warnings\": [], \"history_drops\": 0}");
	struct json_object *tests = json_object_new_array();
	static const struct {
		enum bench_test test;
		double gbps;
		uint32_t peer_mbps;
		const char *status;
	} runs[] = {
		{BENCH_WRITE_BW, 40.0, 2500, "impossible"}, /* the report's numbers */
		{BENCH_READ_BW, 2.4, 2500, "peer-limited"}, /* within the SDR ceiling */
		{BENCH_WRITE_BW, 380.0, 400000, "PASS"},    /* an NDR peer */
		{BENCH_WRITE_BW, 1.06 * 397.4769529354682, 400000, "impossible"},
	};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		bool pass, drop;
		bw_result(res, runs[i].test, runs[i].gbps, runs[i].peer_mbps);
		struct json_object *to = bench_validate_test_result(
			&o, &t, &p, res, json_object_new_object(), row, &pass, &drop);
		ck_assert_msg(!strcmp(J(to, "status"), runs[i].status), "run %zu: '%.1500s'", i,
			      J(to, "status"));
		ck_assert_str_eq(J(to, "verdict", "status"), runs[i].status);
		ck_assert_int_eq(pass, !strcmp(runs[i].status, "PASS"));
		json_object_array_add(tests, to);
	}
	free(res);
	ck_assert_ptr_nonnull(
		strstr(J(tests, "0", "verdict", "reason"),
		       "impossible (peer-limited: not validated): 40.00 Gb/s is 1610% "
		       "of the 2.48 Gb/s payload ceiling of peer 10.0.0.2"));
	ck_assert_ptr_nonnull(strstr(J(tests, "1", "verdict", "reason"),
				     "peer-limited: not validated: 2.40 Gb/s"));
	/* The history: one line per run, each with its status. */
	snprintf(hist, sizeof(hist), "%s/var/lib/ibvf/bench-history.jsonl", dir);
	FILE *f = fopen(hist, "r");
	ck_assert_ptr_nonnull(f);
	char line[8192];
	size_t n = 0;
	while (fgets(line, sizeof(line), f)) {
		struct json_object *en = json_tokener_parse(line);
		ck_assert_msg(en && n < sizeof(runs) / sizeof(runs[0]), "line %zu '%.1500s'", n,
			      line);
		ck_assert_msg(!strcmp(J(en, "status"), runs[n].status), "line %zu '%.1500s'", n,
			      line);
		json_object_put(en);
		n++;
	}
	fclose(f);
	ck_assert_uint_eq(n, sizeof(runs) / sizeof(runs[0]));
	/* The text: each test's line shows its status; the verdict line the
	 * first reason and that the peer was not authenticated. */
	char why[600];
	snprintf(why, sizeof(why), "write_bw: %s", J(tests, "0", "verdict", "reason"));
	json_object_object_add(row, "tests", tests);
	json_object_object_add(row, "status", json_object_new_string("FAIL"));
	json_object_object_add(row, "why", json_object_new_string(why));
	struct text tx = {0};
	bench_validate_text_row(&tx, row, false);
	const struct text_line *l = text_find(&tx, "  write_bw");
	ck_assert_ptr_nonnull(l);
	ck_assert_msg(strstr(l->s, " impossible "), "'%.1500s'", l->s);
	ck_assert_int_eq(l->role, TEXT_ERROR);
	l = text_find(&tx, "  read_bw ");
	ck_assert_ptr_nonnull(l);
	ck_assert_msg(strstr(l->s, " peer-limited "), "'%.1500s'", l->s);
	ck_assert_int_eq(l->role, TEXT_WARNING);
	ck_assert_ptr_nonnull(text_find(&tx, "  read_bw verdict: peer-limited: not validated: "));
	l = &tx.lines[tx.n - 1];
	ck_assert_int_eq(l->role, TEXT_ERROR);
	ck_assert_msg(!strncmp(l->s,
			       "FAIL (unauthenticated peer) VF 0000:18:00.4: write_bw: impossible "
			       "(peer-limited: not validated): 40.00 Gb/s is 1610%",
			       strlen("FAIL (unauthenticated peer) VF 0000:18:00.4: write_bw: "
				      "impossible (peer-limited: not validated): 40.00 Gb/s is "
				      "1610%")),
		      "'%.1500s'", l->s);
	text_clear(&tx);
	json_object_put(row);
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
	/* A remote peer without --key: the PASS says so. */
	json_object_object_add(row, "authenticated", json_object_new_boolean(false));
	bench_validate_text_row(&t, row, false);
	l = &t.lines[t.n - 1];
	ck_assert_str_eq(l->s, "PASS (unauthenticated peer) VF 0000:18:00.4: bandwidth at its "
			       "verdicts' threshold; latency reported, not judged (--max-lat US "
			       "to judge it)");
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
	tcase_add_test(tc, a_remote_peer_without_a_key_is_said_unauthenticated);
	tcase_add_test(tc, the_history_records_each_verdicts_status);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
