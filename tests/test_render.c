// SPDX-License-Identifier: MIT
/* One render path per result: plans, bench results and journal entries are
 * rendered to text from their JSON (tui/render/plan_text.c, tui/bench/bench_text.c,
 * tui/render/journal_text.c), and what the CLI prints is exactly those lines, the
 * same lines the console's dialog and journal view draw. */
#include <check.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/report.h"
#include "bench/stats.h"
#include "bench/verdict.h"
#include "testutil.h"
#include "tui/bench/bench_text.h"
#include "tui/render/check_text.h"
#include "tui/render/journal_text.h"
#include "tui/render/plan_text.h"
#include "tui/base/text.h"

/* The lines as the CLI prints them. */
static char *joined(const struct text *t)
{
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	text_print(f, t);
	fclose(f);
	return buf;
}

/* The line holding needle, which must be there with this role. */
static void expect_line(const struct text *t, const char *needle, enum text_role role)
{
	const struct text_line *l = text_find(t, needle);
	ck_assert_msg(l, "no line holds '%s' in:\n%s", needle, joined(t));
	ck_assert_msg(l->role == role, "'%s' has role %d, not %d", l->s, l->role, role);
}

static struct json_object *parse(const char *s)
{
	struct json_object *o = json_tokener_parse(s);
	ck_assert_msg(o, "not JSON: %s", s);
	return o;
}

/* --- plans ------------------------------------------------------------------ */

START_TEST(dry_run_text_is_the_plan_json_rendered)
{
	char *dir = tu_mkfixture(NULL), *json, *text;
	ck_assert_int_eq(tu_sim_run(dir, &json, NULL, "vf", "create", "18:00.0", "4", "--dry-run",
				    "--json", NULL),
			 0);
	ck_assert_int_eq(
		tu_sim_run(dir, &text, NULL, "vf", "create", "18:00.0", "4", "--dry-run", NULL), 0);
	struct json_object *plan = parse(json);
	struct text t = {0};
	plan_text(&t, plan);
	char *rendered = joined(&t);
	ck_assert_str_eq(text, rendered);
	/* What the dialog gained: every step's shell command and the changes. */
	expect_line(&t, "vf create: set the number of VFs on 0000:18:00.0: 8 -> 4", TEXT_HEADING);
	expect_line(&t, "   1. remove the VFs", TEXT_NORMAL);
	expect_line(&t, "      $ echo 0 > /sys/bus/pci/devices/0000:18:00.0/sriov_numvfs",
		    TEXT_NORMAL);
	expect_line(&t, "      $ echo 4 > /sys/bus/pci/devices/0000:18:00.0/sriov_numvfs",
		    TEXT_NORMAL);
	expect_line(&t, "  change: 0000:18:00.0 numvfs: 8 -> 4", TEXT_CHANGED);
	expect_line(&t, "  note: the 8 VFs of 0000:18:00.0 go away", TEXT_WARNING);
	ck_assert_ptr_null(text_find(&t, "result:"));
	text_clear(&t);
	json_object_put(plan);
	free(rendered);
	free(json);
	free(text);
	tu_rmtree(dir);
}
END_TEST

START_TEST(applied_plan_shows_status_detail_errors_and_verification)
{
	struct json_object *plan = parse(
		"{\"action\":\"vf guid\",\"summary\":\"set the GUIDs of VF 3\",\"notes\":[],"
		"\"steps\":[{\"desc\":\"unbind 0000:18:00.4 from mlx5_core\",\"command\":\"echo "
		"0000:18:00.4 > /sys/bus/pci/drivers/mlx5_core/unbind\",\"status\":\"ok\"},"
		"{\"desc\":\"give it its name back\",\"command\":\"ip link set dev x name y\","
		"\"status\":\"failed\",\"detail\":\"'ib5' -> 'ibp24s0v3'\",\"error\":\"Device or "
		"resource busy\"},{\"desc\":\"wait\",\"command\":\"udevadm settle\","
		"\"status\":\"not-run\"}],"
		"\"changes\":[{\"kind\":\"port_guid\",\"bdf\":\"0000:18:00.4\",\"before\":\"00:00:"
		"00:00:"
		"00:00:00:00\",\"after\":\"02:00:00:00:00:18:00:03\",\"verified\":true},"
		"{\"kind\":\"name\",\"bdf\":\"0000:18:00.4\",\"before\":\"ib2\",\"after\":\"ibx\","
		"\"verified\":false,\"verify_error\":\"the netdev is 'ib5'\"}],"
		"\"result\":\"failed\",\"failed_step\":2,\"error\":\"step 2 failed\","
		"\"journal_id\":7}");
	struct text t = {0};
	plan_text(&t, plan);
	expect_line(&t, "   1. ok      unbind 0000:18:00.4 from mlx5_core", TEXT_NORMAL);
	expect_line(&t, "   2. failed  give it its name back", TEXT_ERROR);
	expect_line(&t, "      'ib5' -> 'ibp24s0v3'", TEXT_NORMAL);
	expect_line(&t, "      error: Device or resource busy", TEXT_ERROR);
	expect_line(&t, "   3. not-run wait", TEXT_WARNING);
	expect_line(&t,
		    "  verified: 0000:18:00.4 port_guid is 02:00:00:00:00:18:00:03 (was "
		    "00:00:00:00:00:00:00:00)",
		    TEXT_OK);
	expect_line(&t, "  NOT verified: 0000:18:00.4 name should be ibx: the netdev is 'ib5'",
		    TEXT_ERROR);
	expect_line(&t, "result: failed (journal entry 7)", TEXT_ERROR);
	expect_line(&t, "error: step 2 failed", TEXT_ERROR);
	ck_assert_ptr_null(text_find(&t, "change:"));
	text_clear(&t);
	json_object_put(plan);
}
END_TEST

START_TEST(control_characters_are_escaped)
{
	struct json_object *plan = parse("{\"action\":\"vf rename\",\"summary\":\"rename "
					 "'\\u001b]0;owned\\u0007' \\u0085x\",\"steps\":[]}");
	struct text t = {0};
	plan_text(&t, plan);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_str_eq(t.lines[0].s, "vf rename: rename '\\x1b]0;owned\\x07' \\x85x");
	text_clear(&t);
	json_object_put(plan);
	/* What the console's screen writer does with a string it is given. */
	char b[32], small[8];
	ck_assert(text_needs_escape("ib\b0\n"));
	ck_assert(!text_needs_escape("mlx5_core: probe of 0000:18:00.2 failed ▾"));
	text_escape_into(b, sizeof(b), "ib\b0\n\xc2\x9b");
	ck_assert_str_eq(b, "ib\\x080\\x0a\\x9b");
	text_escape_into(small, sizeof(small), "a\x1b\x1b"); /* cut at a whole \xNN */
	ck_assert_str_eq(small, "a\\x1b");
}
END_TEST

/* --- bench results ------------------------------------------------------------ */

static struct bench_target ndr_vf(void)
{
	struct bench_target t = {.vf_index = 3, .rate_gbps = 400};
	strcpy(t.ibdev, "mlx5_15");
	strcpy(t.bdf, "0000:18:00.4");
	strcpy(t.pf_bdf, "0000:18:00.0");
	strcpy(t.netdev, "ib2");
	strcpy(t.rate, "400 Gb/sec (4X NDR)");
	return t;
}

static struct bench_result *result_of(enum bench_test test)
{
	struct bench_result *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	r->test = test;
	strcpy(r->ibdev, "mlx5_15");
	r->port = 1;
	r->gid_index = 0;
	r->mtu = 4096;
	r->qps = 1;
	r->tx_depth = 128;
	r->cq_mod = 100;
	r->rd_atomic = 16;
	r->max_inline = 220;
	return r;
}

/* The row of the table whose first column is bytes. */
static const char *row_of(const struct text *t, unsigned long long bytes)
{
	char head[32];
	snprintf(head, sizeof(head), " %llu ", bytes);
	for (size_t i = 0; i < t->n; i++)
		if (!strncmp(t->lines[i].s, head, strlen(head)))
			return t->lines[i].s;
	return NULL;
}

START_TEST(shell_join_quotes_what_the_shell_would_read_otherwise)
{
	char b[128];
	const char *plain[] = {"ibvf",	       "vf",	 "guid",
			       "0000:18:00.4", "--node", "02:03:00:18:00:00:00:03"};
	text_shell_join(b, sizeof(b), plain, 6);
	ck_assert_str_eq(b, "ibvf vf guid 0000:18:00.4 --node 02:03:00:18:00:00:00:03");
	const char *odd[] = {"ibvf", "vf", "rename", "ib 0", "it's", "$(rm -rf /)", "", "a*"};
	text_shell_join(b, sizeof(b), odd, 8);
	ck_assert_str_eq(b, "ibvf vf rename 'ib 0' 'it'\\''s' '$(rm -rf /)' '' 'a*'");
	char small[16];
	text_shell_join(small, sizeof(small), plain, 6); /* cut short, and says so */
	ck_assert_uint_eq(strlen(small), 15);
	ck_assert_str_eq(small + 12, "...");
}
END_TEST

START_TEST(bandwidth_text_has_the_figures_of_the_json)
{
	struct bench_result *r = result_of(BENCH_WRITE_BW);
	struct bench_target tg = ndr_vf();
	struct bench_verdict v;
	r->n_sizes = 2;
	r->sizes[0] = (struct bench_size_result){.size = 65536,
						 .msgs = 5000,
						 .bw_peak_gbps = 391.5,
						 .bw_avg_gbps = 388.25,
						 .msg_rate_mpps = 0.740528};
	r->sizes[1] = (struct bench_size_result){.size = 131072,
						 .msgs = 5000,
						 .bw_peak_gbps = 392.125,
						 .bw_avg_gbps = 390.0,
						 .msg_rate_mpps = 0.371933};
	bench_judge(r, &tg, 0.9, &v);
	struct json_object *o = bench_result_to_json(r, &tg, &v);
	/* What --json prints, read back, renders the same as the object. */
	struct json_object *back = parse(json_object_to_json_string(o));
	struct text t = {0}, mb = {0};
	bench_text_report(&t, back, false);
	bench_text_verdict(&t, back);
	expect_line(&t, "RDMA_Write BW Test", TEXT_HEADING);
	expect_line(&t, " Device         : mlx5_15 (VF 0000:18:00.4, ib2)", TEXT_NORMAL);
	expect_line(&t, " Port           : 1  InfiniBand  GID index 0  MTU 4096", TEXT_NORMAL);
	expect_line(&t, " Connection     : exchange  QPs 1  TX depth 128  CQ moderation 100",
		    TEXT_NORMAL);
	expect_line(&t, " Outstand reads : 16  Max inline 220 B  Mode iterations", TEXT_NORMAL);
	expect_line(&t,
		    " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   "
		    "MsgRate[Mpps]",
		    TEXT_HEADING);
	struct json_object *sizes = text_jarr(back, "sizes");
	ck_assert_uint_eq(json_object_array_length(sizes), 2);
	for (size_t i = 0; i < 2; i++) {
		struct json_object *s = json_object_array_get_idx(sizes, i);
		char want[160];
		snprintf(want, sizeof(want), " %-10lld %-14lld %-18.2f %-20.2f %-.6f",
			 (long long)text_jint(s, "bytes"), (long long)text_jint(s, "iterations"),
			 text_jnum(s, "bw_peak_gbps"), text_jnum(s, "bw_avg_gbps"),
			 text_jnum(s, "msg_rate_mpps"));
		const char *row = row_of(&t, (unsigned long long)text_jint(s, "bytes"));
		ck_assert_msg(row, "no row for size %zu", i);
		ck_assert_str_eq(row, want);
	}
	ck_assert_str_eq(row_of(&t, 65536), " 65536      5000           391.50             388.25  "
					    "             0.740528");
	struct json_object *vo;
	ck_assert(json_object_object_get_ex(back, "verdict", &vo));
	char verdict[256];
	snprintf(verdict, sizeof(verdict), "%s 0000:18:00.4: %s", text_jstr(vo, "status"),
		 text_jstr(vo, "reason"));
	expect_line(&t, verdict, TEXT_OK);
	expect_line(&t,
		    "PASS 0000:18:00.4: 390.00 Gb/s is 98% of the 397.48 Gb/s payload ceiling "
		    "of 400 Gb/sec (4X NDR) (threshold 90%)",
		    TEXT_OK);
	/* --unit MB/s: perftest's 2^20 bytes. 388.25e9 / 8 / 2^20 = 46283.01 */
	bench_text_report(&mb, back, true);
	ck_assert_ptr_nonnull(strstr(row_of(&mb, 65536), " 46283.01 "));
	text_clear(&mb);
	text_clear(&t);
	json_object_put(back);
	json_object_put(o);
	free(r);
}
END_TEST

START_TEST(latency_text_has_the_figures_and_the_histogram_of_the_json)
{
	struct bench_result *r = result_of(BENCH_WRITE_LAT);
	struct bench_target tg = ndr_vf();
	struct bench_verdict v;
	uint64_t ns[] = {1800, 1810, 1820, 1900, 1900, 1905, 2000, 2050, 2100, 9000};
	size_t n = sizeof(ns) / sizeof(*ns);
	r->n_sizes = 1;
	r->sizes[0].size = 2;
	r->sizes[0].msgs = n;
	ck_assert_int_eq(stats_latency(ns, n, &r->sizes[0].lat), 0);
	ck_assert_int_eq(stats_histogram(ns, n, &r->sizes[0].hist), 0);
	bench_judge(r, &tg, 0.9, &v);
	struct json_object *o = bench_result_to_json(r, &tg, &v);
	struct text t = {0};
	bench_text_report(&t, o, false);
	bench_text_verdict(&t, o);
	expect_line(&t, "RDMA_Write Latency Test", TEXT_HEADING);
	struct json_object *s = json_object_array_get_idx(text_jarr(o, "sizes"), 0);
	char want[256];
	snprintf(want, sizeof(want),
		 " %-7llu %-10llu %-7.3f        %-7.3f      %-7.3f          %-7.3f        %-7.3f  "
		 "       %-7.3f                %-7.3f",
		 2ULL, (unsigned long long)n, text_jnum(s, "t_min_us"), text_jnum(s, "t_max_us"),
		 text_jnum(s, "t_typical_us"), text_jnum(s, "t_avg_us"), text_jnum(s, "t_stdev_us"),
		 text_jnum(s, "p99_us"), text_jnum(s, "p99_9_us"));
	ck_assert_str_eq(row_of(&t, 2), want);
	ck_assert_ptr_nonnull(strstr(want, " 1.800 ")); /* t_min */
	ck_assert_ptr_nonnull(strstr(want, " 9.000 ")); /* t_max */
	/* The histogram the text report gained: one line per non-empty bucket,
	 * its bounds and count as in the JSON, the fullest bar 40 wide. */
	expect_line(&t, " Latency histogram, 2 bytes:", TEXT_HEADING);
	struct json_object *h = text_jarr(s, "histogram");
	size_t shown = 0, total = 0;
	for (size_t i = 0; i < json_object_array_length(h); i++) {
		struct json_object *b = json_object_array_get_idx(h, i);
		if (!text_jint(b, "count"))
			continue;
		snprintf(want, sizeof(want), " %9.2f - %9.2f us %9lld #", text_jnum(b, "lo_us"),
			 text_jnum(b, "hi_us"), (long long)text_jint(b, "count"));
		expect_line(&t, want, TEXT_NORMAL);
		shown++;
		total += (size_t)text_jint(b, "count");
	}
	ck_assert_uint_eq(total, n);
	ck_assert_uint_ge(shown, 2);
	expect_line(&t,
		    "      1.80 -      2.10 us         9 " /* 9 of 10 in the first bucket */
		    "########################################",
		    TEXT_NORMAL);
	expect_line(&t, " us         1 ####", TEXT_NORMAL); /* the outlier: 1/9 of 40 */
	expect_line(&t, "PASS 0000:18:00.4: latency measured (no rate threshold)", TEXT_OK);
	text_clear(&t);
	json_object_put(o);
	free(r);
}
END_TEST

START_TEST(a_server_result_has_no_verdict_line)
{
	struct bench_result *r = result_of(BENCH_READ_BW);
	r->n_sizes = 1;
	r->sizes[0] = (struct bench_size_result){.size = 65536, .msgs = 10, .bw_avg_gbps = 1};
	struct json_object *o = bench_result_to_json(r, NULL, NULL);
	struct text t = {0};
	bench_text_report(&t, o, false);
	bench_text_verdict(&t, o);
	expect_line(&t, "RDMA_Read BW Test", TEXT_HEADING);
	expect_line(&t, " Device         : mlx5_15", TEXT_NORMAL);
	ck_assert_ptr_null(text_find(&t, "PASS"));
	ck_assert_ptr_null(text_find(&t, "FAIL"));
	ck_assert_ptr_null(text_find(&t, "histogram"));
	text_clear(&t);
	json_object_put(o);
	free(r);
}
END_TEST

START_TEST(all_vfs_rows_and_summary_come_from_the_json)
{
	struct bench_result *r = result_of(BENCH_WRITE_BW);
	struct bench_target tg = ndr_vf();
	struct bench_verdict v;
	r->n_sizes = 1;
	r->sizes[0] = (struct bench_size_result){.size = 65536, .msgs = 5000, .bw_avg_gbps = 300};
	bench_judge(r, &tg, 0.9, &v);
	struct json_object *run = bench_result_to_json(r, &tg, &v);
	json_object_object_add(run, "vf_bdf", json_object_new_string("0000:18:00.4"));
	json_object_object_add(run, "status", json_object_new_string("FAIL"));
	json_object_object_add(run, "why", json_object_new_string(v.reason));
	struct json_object *skip = parse("{\"device\":\"mlx5_16\",\"vf_bdf\":\"0000:18:00.5\","
					 "\"status\":\"SKIP\",\"why\":\"the peer itself\"}");
	struct json_object *sum = parse("{\"pass\":0,\"fail\":1,\"skip\":1,\"total\":8}");
	struct text t = {0};
	bench_text_vf_row(&t, run);
	bench_text_vf_row(&t, skip);
	bench_text_vfs_summary(&t, sum);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_str_eq(t.lines[0].s,
			 "FAIL VF 0000:18:00.4   mlx5_15     300.00 Gb/s  300.00 Gb/s is "
			 "75% of the 397.48 Gb/s payload ceiling of 400 Gb/sec (4X "
			 "NDR) (threshold 90%)");
	ck_assert_int_eq(t.lines[0].role, TEXT_ERROR);
	ck_assert_str_eq(t.lines[1].s,
			 "SKIP VF 0000:18:00.5   mlx5_16                  the peer itself");
	ck_assert_str_eq(t.lines[2].s, "FAIL: 8 VFs, 0 passed, 1 failed, 1 skipped");
	text_clear(&t);
	json_object_put(run);
	json_object_put(skip);
	json_object_put(sum);
	free(r);
}
END_TEST

/* --- journal entries ------------------------------------------------------------ */

static const char journal_json[] =
	"[{\"id\":1,\"time\":\"2026-11-30T03:28:00Z\",\"user\":\"root\",\"action\":\"vf rename\","
	"\"summary\":\"rename VF 3\",\"result\":\"ok\",\"steps\":[{\"desc\":\"rename 'ib2' to "
	"'ibfast3'\",\"command\":\"ip link set dev ib2 name ibfast3\",\"status\":\"ok\"}],"
	"\"changes\":[{\"kind\":\"name\",\"bdf\":\"0000:18:00.4\",\"before\":\"ib2\","
	"\"after\":\"ibfast3\",\"verified\":true}]},"
	"{\"id\":2,\"time\":\"2026-11-30T03:29:10Z\",\"user\":\"ops\",\"action\":\"vf rename\","
	"\"summary\":\"rename VF 3 back\",\"result\":\"verify-failed\",\"undo_of\":1,"
	"\"steps\":[{\"desc\":\"rename\",\"command\":\"ip link set dev ibfast3 name ib2\","
	"\"status\":\"failed\",\"error\":\"File exists\"}],\"changes\":[{\"kind\":\"name\","
	"\"bdf\":\"0000:18:00.4\",\"before\":\"ibfast3\",\"after\":\"ib2\",\"verified\":false}],"
	"\"error\":\"the name is taken\"}]";

START_TEST(journal_text_lists_entries_with_their_changes)
{
	struct json_object *entries = parse(journal_json);
	struct text t = {0};
	journal_text(&t, entries);
	expect_line(&t, "ID   TIME                 USER     ACTION           RESULT        SUMMARY",
		    TEXT_HEADING);
	expect_line(&t,
		    "1    2026-11-30T03:28:00Z root     vf rename        ok            rename "
		    "VF 3",
		    TEXT_NORMAL);
	expect_line(&t,
		    "2    2026-11-30T03:29:10Z ops      vf rename        verify-failed rename "
		    "VF 3 back",
		    TEXT_ERROR);
	expect_line(&t, "       0000:18:00.4 name: ib2 -> ibfast3  verified", TEXT_NORMAL);
	expect_line(&t, "       undoes entry 1", TEXT_NORMAL);
	expect_line(&t, "       0000:18:00.4 name: ibfast3 -> ib2  NOT verified", TEXT_ERROR);
	expect_line(&t, "       error: the name is taken", TEXT_ERROR);
	ck_assert_uint_eq(t.n, 7);
	text_clear(&t);
	json_object_put(entries);
}
END_TEST

START_TEST(journal_view_lines_come_from_the_same_renderer)
{
	struct json_object *entries = parse(journal_json);
	struct json_object *e = json_object_array_get_idx(entries, 1);
	struct text row = {0}, steps = {0}, changes = {0};
	journal_text_row(&row, e, JOURNAL_TEXT_COMPACT);
	ck_assert_str_eq(row.lines[0].s,
			 "2    03:29:10 vf rename       verify-failed rename VF 3 back");
	journal_text_entry(&steps, e, JOURNAL_TEXT_SUMMARY | JOURNAL_TEXT_STEPS);
	ck_assert_str_eq(steps.lines[0].s, "rename VF 3 back");
	/* The steps read as in the plan's result: the same renderer. */
	expect_line(&steps, "   1. failed  rename", TEXT_ERROR);
	expect_line(&steps, "      $ ip link set dev ibfast3 name ib2", TEXT_NORMAL);
	expect_line(&steps, "      error: File exists", TEXT_ERROR);
	ck_assert_ptr_null(text_find(&steps, "undoes"));
	journal_text_entry(&changes, e, JOURNAL_TEXT_SUMMARY);
	expect_line(&changes, "undoes entry 1", TEXT_NORMAL);
	ck_assert_ptr_null(text_find(&changes, "$ ip link"));
	text_clear(&row);
	text_clear(&steps);
	text_clear(&changes);
	json_object_put(entries);
}
END_TEST

START_TEST(journal_cli_text_is_the_journal_json_rendered)
{
	char *dir = tu_mkfixture(NULL), *out, *json, *text;
	ck_assert_int_eq(tu_sim_run(dir, &text, NULL, "journal", NULL), 0);
	ck_assert_str_eq(text, "the journal is empty\n");
	free(text);
	ck_assert_int_eq(
		tu_sim_run(dir, &out, NULL, "vf", "rename", "18:00.4", "ibfast3", "--yes", NULL),
		0);
	free(out);
	ck_assert_int_eq(tu_sim_run(dir, &json, NULL, "journal", "--json", NULL), 0);
	ck_assert_int_eq(tu_sim_run(dir, &text, NULL, "journal", NULL), 0);
	struct json_object *doc = parse(json), *entries = NULL;
	ck_assert(json_object_object_get_ex(doc, "entries", &entries));
	struct text t = {0};
	journal_text(&t, entries);
	char *rendered = joined(&t);
	ck_assert_str_eq(text, rendered);
	expect_line(&t, "0000:18:00.4 name: ib2 -> ibfast3  verified", TEXT_NORMAL);
	text_clear(&t);
	json_object_put(doc);
	free(rendered);
	free(json);
	free(text);
	tu_rmtree(dir);
}
END_TEST

/* A report as `ibvf check --json` prints it: a critical finding with an ibvf
 * remedy whose words need quoting, a warning with manual steps, a node
 * finding. */
static const char check_report[] =
	"{\"version\":1,\"host\":\"h\",\"kernel\":\"6.8.0\",\"driver_version\":null,"
	"\"findings\":["
	"{\"id\":\"name-x\",\"severity\":\"warning\",\"subject\":\"0000:18:00.3\","
	"\"subject_kind\":\"vf\",\"netdev\":\"ib1\",\"ibdev\":null,\"title\":\"T2\","
	"\"why\":\"W2\",\"evidence\":[],\"remedy\":{\"kind\":\"manual\",\"summary\":\"S2\","
	"\"steps\":[\"mlxconfig -d 18:00.0 set LINK_TYPE_P1=1\",\"reset\"]}},"
	"{\"id\":\"guid-zero\",\"severity\":\"critical\",\"subject\":\"0000:18:00.1\","
	"\"subject_kind\":\"vf\",\"netdev\":\"ib0\",\"ibdev\":\"mlx5_12\",\"title\":\"T1\","
	"\"why\":\"W1\",\"evidence\":[{\"where\":\"/sys/x/node_guid\",\"value\":\"0\"}],"
	"\"remedy\":{\"kind\":\"ibvf\",\"summary\":\"S1\",\"argv\":[\"vf\",\"rename\","
	"\"0000:18:00.1\",\"it's a name\",\"\"]}},"
	"{\"id\":\"kmsg\",\"severity\":\"info\",\"subject\":null,\"subject_kind\":\"node\","
	"\"netdev\":null,\"ibdev\":null,\"title\":\"T3\",\"why\":null,\"evidence\":[],"
	"\"remedy\":{\"kind\":\"none\",\"summary\":null,\"steps\":[]}}],"
	"\"counts\":{\"critical\":1,\"warning\":1,\"info\":1},\"dropped\":0}";

START_TEST(check_text_groups_by_severity_and_quotes_the_remedy)
{
	struct json_object *o = json_tokener_parse(check_report);
	ck_assert_ptr_nonnull(o);
	struct text t = {0};
	check_text(&t, o);
	expect_line(&t, "critical (1)", TEXT_HEADING);
	expect_line(&t, "  critical 0000:18:00.1 (ib0, mlx5_12)  [guid-zero]", TEXT_ERROR);
	expect_line(&t, "    /sys/x/node_guid: 0", TEXT_NORMAL);
	expect_line(&t, "    why: W1", TEXT_NORMAL);
	expect_line(&t, "    fix: S1", TEXT_NORMAL);
	expect_line(&t, "      $ ibvf vf rename 0000:18:00.1 'it'\\''s a name' ''", TEXT_CHANGED);
	expect_line(&t, "  warning  0000:18:00.3 (ib1)  [name-x]", TEXT_WARNING);
	expect_line(&t, "      1. mlxconfig -d 18:00.0 set LINK_TYPE_P1=1", TEXT_NORMAL);
	expect_line(&t, "      2. reset", TEXT_NORMAL);
	expect_line(&t, "  info     node  [kmsg]", TEXT_NORMAL);
	expect_line(&t, "1 critical, 1 warning, 1 info", TEXT_HEADING);
	/* Critical before warning before info, whatever the JSON's order. */
	char *all = joined(&t);
	ck_assert(strstr(all, "[guid-zero]") < strstr(all, "[name-x]"));
	ck_assert(strstr(all, "[name-x]") < strstr(all, "[kmsg]"));
	ck_assert_ptr_null(strstr(all, "fix: \n"));
	free(all);
	text_clear(&t);
	json_object_put(o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("render");
	TCase *tc = tcase_create("plan");
	tcase_add_test(tc, dry_run_text_is_the_plan_json_rendered);
	tcase_add_test(tc, applied_plan_shows_status_detail_errors_and_verification);
	tcase_add_test(tc, control_characters_are_escaped);
	tcase_add_test(tc, shell_join_quotes_what_the_shell_would_read_otherwise);
	suite_add_tcase(s, tc);
	tc = tcase_create("bench");
	tcase_add_test(tc, bandwidth_text_has_the_figures_of_the_json);
	tcase_add_test(tc, latency_text_has_the_figures_and_the_histogram_of_the_json);
	tcase_add_test(tc, a_server_result_has_no_verdict_line);
	tcase_add_test(tc, all_vfs_rows_and_summary_come_from_the_json);
	suite_add_tcase(s, tc);
	tc = tcase_create("journal");
	tcase_add_test(tc, journal_text_lists_entries_with_their_changes);
	tcase_add_test(tc, journal_view_lines_come_from_the_same_renderer);
	tcase_add_test(tc, journal_cli_text_is_the_journal_json_rendered);
	suite_add_tcase(s, tc);
	tc = tcase_create("check");
	tcase_add_test(tc, check_text_groups_by_severity_and_quotes_the_remedy);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
