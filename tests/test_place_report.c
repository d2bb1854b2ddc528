// SPDX-License-Identifier: MIT
/* Where a benchmark ran, as its report says it: the "placement" member of
 * the JSON (this side, the peer from the exchange, the peer's thread when
 * it ran in this process), the text lines rendered from that JSON, and the
 * warnings for a thread or buffer away from its HCA. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cpulist.h"
#include "bench/report.h"
#include "testutil.h"
#include "tui/bench/bench_text.h"
#include "tui/base/text.h"

static cpu_set_t cpus(const char *list)
{
	cpu_set_t s;
	struct err e = {{0}};
	ck_assert_msg(cpulist_parse(list, "test", &s, &e) == 0, "%s", e.msg);
	return s;
}

static struct bench_result *result(void)
{
	struct bench_result *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	r->test = BENCH_WRITE_BW;
	strcpy(r->ibdev, "mlx5_4");
	r->port = 1;
	r->mtu = 4096;
	r->qps = 1;
	r->n_sizes = 1;
	r->sizes[0] = (struct bench_size_result){.size = 65536, .msgs = 5000, .bw_avg_gbps = 380};
	r->peer_port = (struct exchange_port){.numa_node = -1, .buf_node = -1, .cpu = 0xffff};
	return r;
}

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

static void expect_line(const struct text *t, const char *line, enum text_role role)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->lines[i].s, line)) {
			ck_assert_msg(t->lines[i].role == role, "'%s' has role %d", line,
				      t->lines[i].role);
			return;
		}
	ck_abort_msg("no line '%s' in:\n%s", line, joined(t));
}

/* What --json prints, read back and rendered as the CLI does. */
static struct json_object *report(const struct bench_result *r, struct text *t)
{
	struct json_object *o = bench_result_to_json(r, NULL, NULL);
	struct json_object *back = json_tokener_parse(json_object_to_json_string(o));
	ck_assert_ptr_nonnull(back);
	json_object_put(o);
	bench_text_report(t, back, false);
	return back;
}

static struct json_object *member(struct json_object *o, const char *path)
{
	char buf[128], *save, *k;
	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o))
			ck_abort_msg("no member '%s' in '%s'", k, path);
	return o;
}

/* A DGX's second socket HCA, --cpu on the first socket: every way the
 * placement can go wrong is warned about. */
START_TEST(the_report_says_where_each_side_ran)
{
	struct bench_result *r = result();
	r->placement = (struct bench_placement){.known = true,
						.hca_node = 1,
						.local_known = true,
						.local_cpus = cpus("56-111,168-223"),
						.pinned = true,
						.cpus = cpus("0-3"),
						.cpu_given = true,
						.off_node = true,
						.cpu = 2,
						.cpu_node = 0,
						.mem_node = 1,
						.buf_node = 0};
	r->peer_port.numa_node = 1;
	r->peer_port.buf_node = 0;
	r->peer_port.cpu = 60;
	struct text t = {0};
	struct json_object *o = report(r, &t);
	struct json_object *p = member(o, "placement");
	ck_assert_int_eq(json_object_get_int(member(p, "numa_node")), 1);
	ck_assert_str_eq(json_object_get_string(member(p, "local_cpus")), "56-111,168-223");
	ck_assert_str_eq(json_object_get_string(member(p, "cpus")), "0-3");
	ck_assert_str_eq(json_object_get_string(member(p, "cpus_from")), "--cpu");
	ck_assert(json_object_get_boolean(member(p, "pinned")));
	ck_assert_int_eq(json_object_get_int(member(p, "cpu")), 2);
	ck_assert_int_eq(json_object_get_int(member(p, "cpu_node")), 0);
	ck_assert_int_eq(json_object_get_int(member(p, "buffer_node")), 0);
	ck_assert_int_eq(json_object_get_int(member(p, "buffer_bound_node")), 1);
	ck_assert_ptr_null(member(p, "note"));
	ck_assert_int_eq(json_object_get_int(member(p, "peer.numa_node")), 1);
	ck_assert_int_eq(json_object_get_int(member(p, "peer.buffer_node")), 0);
	ck_assert_int_eq(json_object_get_int(member(p, "peer.cpu")), 60);
	ck_assert_ptr_null(member(p, "peer.cpu_node")); /* not on the wire */
	ck_assert_ptr_null(member(p, "peer.pinned"));
	struct json_object *w = member(p, "warnings");
	ck_assert_uint_eq(json_object_array_length(w), 4);
	static const char *const want[] = {
		("--cpu 0-3 lies outside 'mlx5_4''s local CPUs 56-111,168-223: allowed, but the "
		 "HCA is remote to the thread"),
		"this side's thread ran on CPU 2 of NUMA node 0, its HCA is on node 1",
		"this side's buffer is on NUMA node 0, its HCA on node 1",
		"the peer's buffer is on NUMA node 0, its HCA on node 1",
	};
	for (size_t i = 0; i < 4; i++)
		ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(w, i)), want[i]);
	expect_line(&t,
		    " Placement      : HCA on NUMA node 1, thread pinned to CPUs 0-3 (--cpu), ran "
		    "on CPU 2 (node 0)",
		    TEXT_NORMAL);
	expect_line(&t, " Buffer         : on NUMA node 0, bound to node 1", TEXT_NORMAL);
	expect_line(&t, " Peer           : HCA on NUMA node 1, buffer on node 0, CPU 60",
		    TEXT_NORMAL);
	for (size_t i = 0; i < 4; i++) {
		char line[300];
		snprintf(line, sizeof(line), " Warning        : %s", want[i]);
		expect_line(&t, line, TEXT_WARNING);
	}
	/* Inside the header block, before the table. */
	const struct text_line *pl = text_find(&t, " Placement      :"),
			       *tab = text_find(&t, " #bytes");
	ck_assert(pl && tab && pl < tab);
	text_clear(&t);
	json_object_put(o);
	free(r);
}
END_TEST

/* Whether s holds a CPU list cut short that still reads as a list: only
 * whole numbers, and when cut, ",..." after the last. */
static void expect_clean_cut(const char *s, const char *full)
{
	const char *dots = strstr(s, ",...");
	size_t n = dots ? (size_t)(dots - s) : strlen(s);
	ck_assert_msg(!strncmp(s, full, n) && (full[n] == ',' || full[n] == '\0'),
		      "'%.*s' is not a whole prefix of '%s'", (int)n, s, full);
}

/* --cpu with many single CPUs: every list the report shows is cut between
 * two numbers with ",...", never inside one (which would name another CPU). */
START_TEST(long_cpu_lists_are_cut_between_numbers)
{
	struct bench_result *r = result();
	char full[1024] = "";
	size_t n = 0;
	for (int c = 0; c < 200; c += 2)
		n += (size_t)snprintf(full + n, sizeof(full) - n, "%s%d", c ? "," : "", c);
	r->placement = (struct bench_placement){.known = true,
						.hca_node = 1,
						.local_known = true,
						.local_cpus = cpus("56-111,168-223"),
						.pinned = true,
						.cpus = cpus(full),
						.cpu_given = true,
						.off_node = true,
						.cpu = 2,
						.cpu_node = 0,
						.mem_node = 1,
						.buf_node = 1};
	struct text t = {0};
	struct json_object *o = report(r, &t);
	const char *w = json_object_get_string(
		json_object_array_get_idx(member(member(o, "placement"), "warnings"), 0));
	ck_assert_ptr_nonnull(strstr(w, "--cpu 0,2,4"));
	ck_assert_ptr_nonnull(strstr(w, ",... lies outside 'mlx5_4''s local CPUs 56-111,168-223"));
	expect_clean_cut(w + strlen("--cpu "), full);
	const struct text_line *pl = text_find(&t, " Placement      :");
	ck_assert_ptr_nonnull(pl);
	const char *list = strstr(pl->s, "pinned to CPUs ");
	ck_assert_ptr_nonnull(list);
	list += strlen("pinned to CPUs ");
	ck_assert_ptr_nonnull(strstr(list, ",... (--cpu)"));
	expect_clean_cut(list, full);
	text_clear(&t);
	json_object_put(o);
	free(r);
}
END_TEST

/* The guest's case: numa_node -1, pinned to every CPU, buffer not bound;
 * a pair's peer thread ran in this process and is reported in full. */
START_TEST(a_pair_reports_the_peer_thread_too)
{
	struct bench_result *r = result();
	r->placement = (struct bench_placement){.known = true,
						.hca_node = -1,
						.local_known = true,
						.local_cpus = cpus("0-1"),
						.pinned = true,
						.cpus = cpus("0-1"),
						.cpu = 1,
						.cpu_node = 0,
						.mem_node = -1,
						.buf_node = 0};
	snprintf(r->placement.note, sizeof(r->placement.note),
		 "numa_node is -1 (the platform gives no NUMA information): the buffer is not "
		 "bound");
	r->peer_placement = r->placement;
	r->peer_placement.cpu = 0;
	r->peer_port.buf_node = 0;
	r->peer_port.cpu = 0;
	struct text t = {0};
	struct json_object *o = report(r, &t);
	struct json_object *p = member(o, "placement");
	ck_assert_ptr_null(member(p, "numa_node"));
	ck_assert_ptr_null(member(p, "buffer_bound_node"));
	ck_assert_str_eq(json_object_get_string(member(p, "cpus_from")), "local_cpulist");
	ck_assert_ptr_nonnull(strstr(json_object_get_string(member(p, "note")), "numa_node is -1"));
	ck_assert_int_eq(json_object_get_int(member(p, "peer.cpu_node")), 0);
	ck_assert(json_object_get_boolean(member(p, "peer.pinned")));
	ck_assert_str_eq(json_object_get_string(member(p, "peer.cpus")), "0-1");
	ck_assert_uint_eq(json_object_array_length(member(p, "warnings")), 0);
	expect_line(&t,
		    " Placement      : HCA on NUMA node unknown, thread pinned to CPUs 0-1 "
		    "(local_cpulist), ran on CPU 1 (node 0)",
		    TEXT_NORMAL);
	expect_line(&t, " Buffer         : on NUMA node 0, not bound", TEXT_NORMAL);
	expect_line(&t,
		    " Peer           : HCA on NUMA node unknown, buffer on node 0, CPU 0 (node 0)",
		    TEXT_NORMAL);
	expect_line(&t,
		    " Note           : numa_node is -1 (the platform gives no NUMA information): "
		    "the buffer is not bound",
		    TEXT_NORMAL);
	ck_assert_ptr_null(text_find(&t, " Warning"));
	text_clear(&t);
	json_object_put(o);
	/* The peer's thread away from its HCA, known because it ran here. */
	r->peer_placement.hca_node = 1;
	r->peer_placement.cpu_node = 0;
	o = report(r, &t);
	expect_line(
		&t,
		" Warning        : the peer's thread ran on CPU 0 of NUMA node 0, its HCA is on "
		"node 1",
		TEXT_WARNING);
	text_clear(&t);
	json_object_put(o);
	/* A result without placement (an old peer's, a test's): null, no line. */
	memset(&r->placement, 0, sizeof(r->placement));
	o = report(r, &t);
	ck_assert_ptr_null(member(o, "placement"));
	ck_assert_ptr_null(text_find(&t, " Placement"));
	text_clear(&t);
	json_object_put(o);
	free(r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("place_report");
	TCase *tc = tcase_create("place_report");
	tcase_add_test(tc, the_report_says_where_each_side_ran);
	tcase_add_test(tc, long_cpu_lists_are_cut_between_numbers);
	tcase_add_test(tc, a_pair_reports_the_peer_thread_too);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
