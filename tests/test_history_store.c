// SPDX-License-Identifier: MIT
/* The node's recorded history (core/history/store.h) held to issue 23:
 * the schema and every field round-tripped as stored, the query filters,
 * causes and sums; a writer SIGKILLed mid-burst loses no committed batch;
 * a flapping port and a long history stay small, the oldest going first;
 * a reader beside a writer never sees "database is locked". Bad files and
 * the recorder's memory fallback: test_history_store_bad.c. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/history/recorder.h"
#include "core/history/state.h"
#include "core/history/store.h"
#include "histutil.h"
#include "testutil.h"

/* ---- schema ---- */

START_TEST(new_store_has_its_identity_and_reopens)
{
	struct hist_store *st = open_w();
	ck_assert(!hist_store_in_memory(st));
	ck_assert_str_eq(hist_store_name(st), hs_path);
	hist_store_close(st);
	char want[32];
	snprintf(want, sizeof(want), "%d", HIST_APPLICATION_ID);
	ck_assert_str_eq(sql1(hs_path, "PRAGMA application_id"), want);
	snprintf(want, sizeof(want), "%d", HIST_SCHEMA_VERSION);
	ck_assert_str_eq(sql1(hs_path, "PRAGMA user_version"), want);
	ck_assert_str_eq(sql1(hs_path, "PRAGMA journal_mode"), "wal");
	ck_assert_str_eq(sql1(hs_path, "PRAGMA auto_vacuum"), "2"); /* incremental */
	struct stat stt;
	ck_assert_int_eq(lstat(hs_path, &stt), 0);
	ck_assert_uint_eq(stt.st_mode & 07777, HIST_STORE_MODE);

	/* Again, for writing and for reading: the same store, no error. */
	st = open_w();
	add(st, mk(HK_KMSG, T0, "", "", "kept"));
	hist_store_close(st);
	struct err e = {{0}};
	ck_assert_msg(hist_store_open(hs_path, false, &st, &e) == 0, "%s", e.msg);
	struct hist_query all = {0};
	ck_assert_str_eq(texts_of(st, &all), "kept");
	hist_store_close(st);
	ck_assert_str_eq(sql1(hs_path, "PRAGMA user_version"), want);

	/* No store: a reader is told -ENOENT, unsaid. */
	unlink(hs_path);
	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(hist_store_open(hs_path, false, &st, &e), -ENOENT);
	ck_assert_str_eq(e.msg, "");
}
END_TEST

/* size-1 bytes: ESC sequences, bytes that are no UTF-8, quotes. */
static void fill(char *field, size_t size, char salt)
{
	static const char pat[] = "\x1b[31m\xff\xfe\xc3'\"%s\x80\x1b]0;x\x07";
	for (size_t i = 0; i + 1 < size; i++)
		field[i] = (char)(pat[i % (sizeof(pat) - 1)] + (i % 7 == 3 ? salt : 0) ?: 'z');
	field[size - 1] = '\0';
}

START_TEST(every_field_round_trips_as_stored)
{
	struct hist_store *st = open_w();
	struct hist_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = HK_KMSG;
	ev.t_us = T0 + 123456;
	ev.t_last_us = T0 + 7 * SEC + 1;
	ev.count = 42;
	ev.group = 9;
	fill(ev.boot, sizeof(ev.boot), 1);
	fill(ev.bdf, sizeof(ev.bdf), 2);
	fill(ev.pf, sizeof(ev.pf), 3);
	fill(ev.name, sizeof(ev.name), 4);
	fill(ev.old, sizeof(ev.old), 5);
	fill(ev.new, sizeof(ev.new), 6);
	fill(ev.pod, sizeof(ev.pod), 7);
	fill(ev.pod_uid, sizeof(ev.pod_uid), 8);
	fill(ev.ref, sizeof(ev.ref), 9);
	fill(ev.text, sizeof(ev.text), 10);
	struct err e = {{0}};
	bool co = true;
	ck_assert_msg(hist_store_add(st, &ev, &co, &e) == 0, "%s", e.msg);
	ck_assert(!co);
	ck_assert_int_eq(ev.id, 1);
	/* One of every kind, each on its own function (nothing to fold). */
	for (int k = 0; k < HK__N; k++) {
		char bdf[16];
		snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", k);
		add(st, mk((enum hist_kind)k, T0 + 10 * SEC + k, bdf, bdf, hist_kind_to_string(k)));
	}

	struct evs *c = calloc(1, sizeof(*c));
	struct hist_query all = {0};
	ck_assert_msg(hist_store_query(st, &all, collect, c, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(c->n, 1 + HK__N);
	const struct hist_event *g = &c->v[0];
	ck_assert_int_eq(g->id, ev.id);
	ck_assert_int_eq(g->t_us, ev.t_us);
	ck_assert_int_eq(g->t_last_us, ev.t_last_us);
	ck_assert_int_eq(g->count, 42);
	ck_assert_int_eq(g->group, 9);
	ck_assert_int_eq(g->kind, HK_KMSG);
#define SAME(f) ck_assert_msg(!memcmp(g->f, ev.f, sizeof(ev.f)), "field " #f " differs")
	SAME(boot);
	SAME(bdf);
	SAME(pf);
	SAME(name);
	SAME(old);
	SAME(new);
	SAME(pod);
	SAME(pod_uid);
	SAME(ref);
	SAME(text);
#undef SAME
	for (int k = 0; k < HK__N; k++) {
		ck_assert_int_eq(c->v[1 + k].kind, k);
		ck_assert_str_eq(c->v[1 + k].text, hist_kind_to_string(k));
	}
	free(c);
	hist_store_close(st);

	/* A row written by someone else, past every field and of a kind this
	 * ibvf does not know: read back bounded, as a kernel-log note. */
	sql_exec(hs_path, "INSERT INTO events (t_us, t_last_us, kind, bdf, name, text) VALUES "
			  "(1, 1, 'from-the-future', printf('%.1000c', 'b'), "
			  "printf('%.1000c', 'n'), printf('%.100000c', 't'))");
	ck_assert_msg(hist_store_open(hs_path, false, &st, &e) == 0, "%s", e.msg);
	struct hist_query first = {.until_us = 1};
	c = calloc(1, sizeof(*c));
	ck_assert_msg(hist_store_query(st, &first, collect, c, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(c->n, 1);
	ck_assert_int_eq(c->v[0].kind, HK_KMSG);
	ck_assert_uint_eq(strlen(c->v[0].bdf), sizeof(ev.bdf) - 1);
	ck_assert_uint_eq(strlen(c->v[0].name), sizeof(ev.name) - 1);
	ck_assert_uint_eq(strlen(c->v[0].text), sizeof(ev.text) - 1);
	free(c);
	hist_store_close(st);

	/* Too long a value is cut at a UTF-8 boundary, never inside "é". */
	char long_name[200] = "";
	for (int i = 0; i < 80; i++)
		strcat(long_name, "\xc3\xa9");
	HIST_SET(ev.name, long_name);
	ck_assert_uint_eq(strlen(ev.name), sizeof(ev.name) - 2);
}
END_TEST

/* The filters' data set: text is the event's label, t its second. */
static void add_filter_set(struct hist_store *st)
{
	static const struct {
		const char *label;
		int sec;
		enum hist_kind kind;
		const char *bdf, *pf, *pod;
	} set[] = {
		{"a", 0, HK_BOOT, "", "", ""},
		{"b", 1, HK_VF_COUNT, PFA, PFA, ""},
		{"c", 2, HK_FN_ADDED, VA2, PFA, ""},
		{"d", 3, HK_FN_ADDED, VA3, PFA, ""},
		{"e", 4, HK_POD_BOUND, VA2, PFA, "ns/web"},
		{"f", 5, HK_RENAME, VA3, PFA, ""},
		{"g", 6, HK_PORT_STATE, PFB, PFB, ""},
		{"h", 7, HK_DRIVER, VB2, PFB, ""},
		{"i", 8, HK_NETNS, VA2, PFA, "ns/web"},
		{"j", 9, HK_KMSG, "", "", ""},
		{"k", 10, HK_PORT_STATE, VA2, PFA, ""},
		{"l", 11, HK_POD_GONE, "", "", "ns/web"},
		{"m", 4, HK_ACTION, "", "", ""}, /* added last, earlier in time */
	};
	for (size_t i = 0; i < sizeof(set) / sizeof(*set); i++) {
		struct hist_event ev =
			mk(set[i].kind, T0 + set[i].sec * SEC, set[i].bdf, set[i].pf, set[i].label);
		HIST_SET(ev.pod, set[i].pod);
		if (set[i].label[0] == 'b') { /* a change repeated until 5.5 s */
			ev.t_last_us = T0 + 5 * SEC + SEC / 2;
			ev.count = 3;
		}
		if (set[i].label[0] == 'm')
			ev.t_us = ev.t_last_us = T0 + 4 * SEC + SEC / 2;
		ck_assert_int_eq(add(st, ev), (int64_t)i + 1);
	}
}

START_TEST(query_filters_by_time_function_pod_kind_id_and_limit)
{
	struct hist_store *st = open_w();
	add_filter_set(st);
	struct hist_query q = {0};
	ck_assert_str_eq(texts_of(st, &q), "a b c d e m f g h i j k l");
	/* since: what lasted into it (b until 5.5 s); until: what began by it. */
	q = (struct hist_query){.since_us = T0 + 5 * SEC, .until_us = T0 + 8 * SEC};
	ck_assert_str_eq(texts_of(st, &q), "b f g h i");
	q = (struct hist_query){.devs = {VA2}, .n_devs = 1};
	ck_assert_str_eq(texts_of(st, &q), "c e i k");
	q = (struct hist_query){.devs = {PFA}, .n_devs = 1}; /* the PF and its VFs */
	ck_assert_str_eq(texts_of(st, &q), "b c d e f i k");
	q = (struct hist_query){.devs = {PFB, VA3}, .n_devs = 2};
	ck_assert_str_eq(texts_of(st, &q), "d f g h");
	q = (struct hist_query){.pods = {"ns/web"}, .n_pods = 1}; /* and its VF's */
	ck_assert_str_eq(texts_of(st, &q), "c e i k l");
	q = (struct hist_query){.pods = {"ns/none"}, .n_pods = 1};
	ck_assert_str_eq(texts_of(st, &q), "");
	q = (struct hist_query){.kinds = 1u << HK_PORT_STATE | 1u << HK_FN_ADDED};
	ck_assert_str_eq(texts_of(st, &q), "c d g k");
	q = (struct hist_query){.after_id = 8}; /* by id, still in time order */
	ck_assert_str_eq(texts_of(st, &q), "m i j k l");
	q = (struct hist_query){.limit = 3}; /* the newest three, oldest first */
	ck_assert_str_eq(texts_of(st, &q), "j k l");
	q = (struct hist_query){.limit = 100};
	ck_assert_str_eq(texts_of(st, &q), "a b c d e m f g h i j k l");
	q = (struct hist_query){.since_us = T0 + 2 * SEC,
				.devs = {PFA},
				.n_devs = 1,
				.kinds = 1u << HK_PORT_STATE | 1u << HK_FN_ADDED,
				.limit = 2};
	ck_assert_str_eq(texts_of(st, &q), "d k");

	/* A walk stops where its function says. */
	struct evs c = {0};
	struct err e = {{0}};
	q = (struct hist_query){0};
	ck_assert_int_eq(hist_store_query(st, &q, collect, &c, &e), 0);
	ck_assert_uint_eq(c.n, 13);
	q.n_devs = HIST_QUERY_DEVS_MAX + 1;
	ck_assert_int_eq(hist_store_query(st, &q, collect, &c, &e), -E2BIG);
	hist_store_close(st);
}
END_TEST

static const char *causes_of(struct hist_store *st, const struct hist_event *ev)
{
	static char buf[256];
	struct hist_event got[HIST_CAUSES_MAX];
	size_t n = 99;
	struct err e = {{0}};
	ck_assert_msg(hist_store_causes(st, ev, got, &n, &e) == 0, "%s", e.msg);
	ck_assert_uint_le(n, HIST_CAUSES_MAX);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "",
			 got[i].text);
	return buf;
}

START_TEST(causes_are_the_nearest_earlier_events_on_the_function_pf_or_name)
{
	struct hist_store *st = open_w();
	int64_t t = T0 + 1000 * SEC;
	add(st, mk(HK_DRIVER, t - 200 * SEC, VA2, PFA, "too-old"));
	add(st, mk(HK_DRIVER, t - 30 * SEC, VA2, PFA, "driver"));
	add(st, mk(HK_VF_COUNT, t - 20 * SEC, PFA, PFA, "numvfs"));
	add(st, mk(HK_RENAME, t - 10 * SEC, VA3, PFA, "sibling"));
	add(st, mk(HK_BENCH, t - 3 * SEC, VA2, PFA, "a-bench"));
	add(st, mk(HK_PORT_STATE, t - 1 * SEC, VB2, PFB, "other-pf"));
	struct hist_event down = mk(HK_PORT_STATE, t, VA2, PFA, "down");
	down.id = add(st, down);
	add(st, mk(HK_DRIVER, t + 1 * SEC, VA2, PFA, "later"));
	ck_assert_str_eq(causes_of(st, &down), "sibling numvfs driver");

	/* At the same time: what was stored before it only. */
	add(st, mk(HK_PHYS_STATE, t, VA2, PFA, "same-time-after"));
	ck_assert_str_eq(causes_of(st, &down), "sibling numvfs driver");
	/* Four candidates: the function's own two are chosen before the PF's
	 * older one (closer tie), and the three are shown nearest first. */
	add(st, mk(HK_DRIVER, t - 5 * SEC, VA2, PFA, "nearest"));
	ck_assert_str_eq(causes_of(st, &down), "nearest sibling driver");

	/* A rename: who had its new name before, on any function. */
	struct hist_event gone = mk(HK_NETDEV, t + 50 * SEC, VB2, PFB, "ib1-went");
	HIST_SET(gone.name, "ib1");
	HIST_SET(gone.old, "ib1");
	add(st, gone);
	struct hist_event rn =
		mk(HK_RENAME, t + 60 * SEC, "0000:af:00.2", "0000:af:00.0", "renamed");
	HIST_SET(rn.name, "ib1");
	HIST_SET(rn.old, "ib0");
	HIST_SET(rn.new, "ib1");
	rn.id = add(st, rn);
	ck_assert_str_eq(causes_of(st, &rn), "ib1-went");

	/* Nothing before it: none. */
	struct hist_event first = mk(HK_PORT_STATE, t - 500 * SEC, VB2, PFB, "first");
	first.id = add(st, first);
	ck_assert_str_eq(causes_of(st, &first), "");
	hist_store_close(st);
}
END_TEST

struct sum {
	char seen[256];
};

static void sum_one(void *arg, const char *bdf, const char *pf, int64_t sum)
{
	struct sum *s = arg;
	snprintf(s->seen + strlen(s->seen), sizeof(s->seen) - strlen(s->seen), "%s/%s=%lld ", bdf,
		 pf, (long long)sum);
}

START_TEST(sums_count_folded_changes_by_function)
{
	struct hist_store *st = open_w();
	for (int i = 0; i < 10; i++)
		add(st, mk(HK_PORT_STATE, T0 + i * SEC, VA2, PFA, ""));
	for (int i = 0; i < 3; i++)
		add(st, mk(HK_PORT_STATE, T0 + 100 * SEC + i * SEC, PFB, PFB, ""));
	add(st, mk(HK_RATE, T0, VA2, PFA, ""));
	add(st, mk(HK_PORT_STATE, T0, "", "", "the node's: not a function's"));
	struct sum s = {""};
	struct err e = {{0}};
	ck_assert_int_eq(hist_store_sums(st, HK_PORT_STATE, 0, sum_one, &s, &e), 0);
	ck_assert_str_eq(s.seen, VA2 "/" PFA "=10 " PFB "/" PFB "=3 ");
	s.seen[0] = '\0';
	ck_assert_int_eq(hist_store_sums(st, HK_PORT_STATE, T0 + 50 * SEC, sum_one, &s, &e), 0);
	ck_assert_str_eq(s.seen, PFB "/" PFB "=3 ");
	hist_store_close(st);
}
END_TEST

/* Since ever, the sums are the totals retention never lowers (counters
 * for Prometheus); since a time, what the rows still hold. */
START_TEST(sums_since_ever_outlive_retention)
{
	struct hist_store *st = open_w();
	int64_t now = hist_now_us(), day = 86400 * SEC;
	for (int i = 0; i < 4; i++)
		add(st, mk(HK_PORT_STATE, now - 200 * day + i * 3600 * SEC, VA2, PFA, ""));
	for (int i = 0; i < 9; i++) /* folded after a few rows: 9 all the same */
		add(st, mk(HK_PORT_STATE, now - day + i * SEC, VA2, PFA, ""));
	add(st, mk(HK_PORT_STATE, now - 300 * day, PFB, PFB, "")); /* only retention's */
	struct sum s = {""};
	struct err e = {{0}};
	ck_assert_int_eq(hist_store_sums(st, HK_PORT_STATE, 0, sum_one, &s, &e), 0);
	ck_assert_str_eq(s.seen, VA2 "/" PFA "=13 " PFB "/" PFB "=1 ");
	size_t dropped = 0;
	ck_assert_int_eq(hist_store_retain(st, NULL, &dropped, &e), 0); /* 180 days */
	ck_assert_uint_eq(dropped, 5);
	s.seen[0] = '\0';
	ck_assert_int_eq(hist_store_sums(st, HK_PORT_STATE, 0, sum_one, &s, &e), 0);
	ck_assert_str_eq(s.seen, VA2 "/" PFA "=13 " PFB "/" PFB "=1 ");
	s.seen[0] = '\0';
	ck_assert_int_eq(hist_store_sums(st, HK_PORT_STATE, now - 10 * day, sum_one, &s, &e), 0);
	ck_assert_str_eq(s.seen, VA2 "/" PFA "=9 ");
	hist_store_close(st);
	/* Reopened: the same. */
	st = open_w();
	s.seen[0] = '\0';
	ck_assert_int_eq(hist_store_sums(st, HK_PORT_STATE, 0, sum_one, &s, &e), 0);
	ck_assert_str_eq(s.seen, VA2 "/" PFA "=13 " PFB "/" PFB "=1 ");
	hist_store_close(st);
}
END_TEST

/* ---- the state's differences ---- */

/* A VF held by pod ns/web, its host netdev netdev ("" none), bound to
 * driver ("" unbound). */
static struct hist_fn held_vf(const char *driver, const char *netdev)
{
	struct hist_fn f;
	memset(&f, 0, sizeof(f));
	HIST_SET(f.bdf, VA2);
	HIST_SET(f.pf, PFA);
	f.vf = 0;
	HIST_SET(f.v[HF_DRIVER], driver);
	HIST_SET(f.v[HF_NETDEV], netdev);
	HIST_SET(f.v[HF_IBDEV], "mlx5_2");
	HIST_SET(f.v[HF_POD], "ns/web");
	HIST_SET(f.v[HF_POD_UID], "7d3c9f0e-1b2a-4c5d-8e6f-0a1b2c3d4e5f");
	HIST_SET(f.v[HF_POD_IF], "net1");
	return f;
}

/* The events from a to b, as "kind old->new" words. */
static int diff_word(void *arg, struct hist_event *ev)
{
	char *buf = arg;
	size_t len = strlen(buf);
	snprintf(buf + len, 256 - len, "%s%s %s->%s", len ? " " : "", hist_kind_to_string(ev->kind),
		 ev->old, ev->new);
	return 0;
}

static const char *diff_of(const struct hist_fn *a, const struct hist_fn *b)
{
	static char buf[256];
	buf[0] = '\0';
	struct hist_state sa = {0}, sb = {0};
	ck_assert_int_eq(hist_state_add(&sa, a), 0);
	ck_assert_int_eq(hist_state_add(&sb, b), 0);
	ck_assert_int_eq(hist_state_diff(&sa, &sb, T0, "b0", 0, diff_word, buf), 0);
	hist_state_fini(&sa);
	hist_state_fini(&sb);
	return buf;
}

START_TEST(an_unbound_vf_in_a_pod_loses_its_netdev_it_does_not_move)
{
	struct hist_fn host = held_vf("mlx5_core", "ib1");
	/* Unbound: the netdev went with the driver, in no pod's netns. */
	struct hist_fn unbound = held_vf("", "");
	ck_assert_str_eq(diff_of(&host, &unbound), "driver mlx5_core-> netdev ib1->");
	ck_assert_str_eq(diff_of(&unbound, &host), "driver ->mlx5_core netdev ->ib1");
	/* Bound, its netdev gone from the host: moved into the pod, and back. */
	struct hist_fn moved = held_vf("mlx5_core", "");
	ck_assert_str_eq(diff_of(&host, &moved), "netns ib1->ns/web:net1");
	ck_assert_str_eq(diff_of(&moved, &host), "netns ns/web:net1->ib1");
}
END_TEST

/* ---- crash safety ---- */

#define BURST	   10000
#define BURST_EACH 50

struct burst {
	int round, fd;
};

/* The recorder's way: begin, add x N, commit; each commit's last id told. */
static int burst(void *arg, char *msg, size_t size)
{
	const struct burst *b = arg;
	struct hist_store *st;
	struct err e = {{0}};
	if (hist_store_open(hs_path, true, &st, &e) < 0) {
		snprintf(msg, size, "%s", e.msg);
		return 2;
	}
	for (int i = 0; i < BURST; i += BURST_EACH) {
		if (hist_store_begin(st, &e) < 0)
			return 3;
		int64_t last = 0;
		for (int k = i; k < i + BURST_EACH; k++) {
			char text[64];
			snprintf(text, sizeof(text), "burst %d event %d", b->round, k);
			struct hist_event ev = mk(HK_KMSG, T0 + k, VA2, PFA, text);
			if (hist_store_add(st, &ev, NULL, &e) < 0)
				return 4;
			last = ev.id;
		}
		if (hist_store_commit(st, &e) < 0)
			return 5;
		if (write(b->fd, &last, sizeof(last)) != sizeof(last))
			return 6;
	}
	hist_store_close(st);
	return 0;
}

START_TEST(a_killed_writer_loses_no_committed_batch)
{
	static const int kill_after[] = {3, 40, 120};
	int64_t base = 0; /* the newest id before the round */
	for (int round = 0; round < 3; round++) {
		int p[2];
		ck_assert_int_eq(pipe(p), 0);
		struct burst b = {round, p[1]};
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			close(p[0]);
			char msg[1024];
			_exit(burst(&b, msg, sizeof(msg)));
		}
		close(p[1]);
		int64_t last = 0, id;
		int reported = 0;
		while (read(p[0], &id, sizeof(id)) == sizeof(id)) {
			last = id;
			if (++reported == kill_after[round])
				kill(pid, SIGKILL);
		}
		close(p[0]);
		int status;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			      "round %d: the writer was not killed mid-burst (status %d)", round,
			      status);
		ck_assert_int_lt(reported, BURST / BURST_EACH);

		/* The first opener recovers the WAL; the file checks whole. */
		ck_assert_str_eq(sql1(hs_path, "PRAGMA integrity_check"), "ok");
		struct hist_store *st;
		struct err e = {{0}};
		ck_assert_msg(hist_store_open(hs_path, false, &st, &e) == 0, "%s", e.msg);
		struct hist_query q = {.after_id = base};
		size_t n = 0;
		ck_assert_int_eq(hist_store_query(st, &q, count_one, &n, &e), 0);
		ck_assert_int_ge(n, (size_t)reported * BURST_EACH);
		ck_assert_int_eq(last, base + reported * BURST_EACH);
		/* Each reported event, in order, by its text. */
		for (int k = 0; k < reported * BURST_EACH; k += 997) {
			char want[64];
			snprintf(want, sizeof(want), "burst %d event %d", round, k);
			q = (struct hist_query){.after_id = base + k, .limit = 0};
			struct evs *c = calloc(1, sizeof(*c));
			q.until_us = T0 + k;
			ck_assert_int_eq(hist_store_query(st, &q, collect, c, &e), 0);
			ck_assert_uint_eq(c->n, 1);
			ck_assert_str_eq(c->v[0].text, want);
			free(c);
		}
		base += (int64_t)n;
		hist_store_close(st);
	}
}
END_TEST

/* ---- bounded ---- */

START_TEST(a_repeating_change_is_folded_after_a_few_rows)
{
	struct hist_store *st = open_w();
	struct err e = {{0}};
	int64_t first_folded = 0;
	for (int i = 0; i < HIST_COALESCE_AFTER + 2; i++) {
		struct hist_event ev = mk(HK_PORT_STATE, T0 + i * SEC, VA2, PFA, "");
		HIST_SET(ev.new, i % 2 ? "DOWN" : "ACTIVE");
		bool co = false;
		ck_assert_int_eq(hist_store_add(st, &ev, &co, &e), 0);
		ck_assert_int_eq(co, i >= HIST_COALESCE_AFTER);
		if (i < HIST_COALESCE_AFTER)
			ck_assert_int_eq(ev.id, i + 1);
		else
			ck_assert_int_eq(ev.id, first_folded);
		if (i == HIST_COALESCE_AFTER - 1)
			first_folded = ev.id;
	}
	struct hist_query q = {.after_id = first_folded - 1};
	struct evs *c = calloc(1, sizeof(*c));
	ck_assert_int_eq(hist_store_query(st, &q, collect, c, &e), 0);
	ck_assert_uint_eq(c->n, 1);
	ck_assert_int_eq(c->v[0].count, 3);
	ck_assert_int_eq(c->v[0].t_last_us, T0 + (HIST_COALESCE_AFTER + 1) * SEC);
	ck_assert_str_eq(c->v[0].new, "DOWN");
	free(c);
	/* Another function, another kind, a window later, a kind never folded. */
	bool co = true;
	struct hist_event ev = mk(HK_PORT_STATE, T0 + 9 * SEC, VA3, PFA, "");
	ck_assert_int_eq(hist_store_add(st, &ev, &co, &e), 0);
	ck_assert(!co);
	ev = mk(HK_PHYS_STATE, T0 + 9 * SEC, VA2, PFA, "");
	ck_assert_int_eq(hist_store_add(st, &ev, &co, &e), 0);
	ck_assert(!co);
	ev = mk(HK_PORT_STATE, T0 + 8 * SEC + HIST_COALESCE_WINDOW + 1, VA2, PFA, "");
	ck_assert_int_eq(hist_store_add(st, &ev, &co, &e), 0);
	ck_assert(!co);
	for (int i = 0; i < 2 * HIST_COALESCE_AFTER; i++) {
		ev = mk(HK_KMSG, T0 + i, VA2, PFA, "same line");
		ck_assert_int_eq(hist_store_add(st, &ev, &co, &e), 0);
		ck_assert(!co);
	}
	/* Findings of many checks opening on one VF at once: each its own row
	 * (a run is one check's, by ref); the same check again folds. */
	static const char *const ids[] = {"guid-zero",	  "port-down",	    "name-unstable",
					  "pod-stale",	  "guid-duplicate", "probe-failed",
					  "name-changed", "link-ethernet"};
	for (size_t i = 0; i < sizeof(ids) / sizeof(*ids); i++) {
		ev = mk(HK_FINDING_OPEN, T0 + 20 * SEC, VA2, PFA, ids[i]);
		HIST_SET(ev.ref, ids[i]);
		ck_assert_int_eq(hist_store_add(st, &ev, &co, &e), 0);
		ck_assert_msg(!co, "finding %s folded into another check's", ids[i]);
	}
	for (int i = 0; i <= HIST_COALESCE_AFTER; i++) {
		ev = mk(HK_FINDING_OPEN, T0 + 21 * SEC + i, VA2, PFA, "port-down");
		HIST_SET(ev.ref, "port-down");
		ck_assert_int_eq(hist_store_add(st, &ev, &co, &e), 0);
	}
	ck_assert_msg(co, "a finding opening again and again is not folded");
	hist_store_close(st);
}
END_TEST

#define FLAPS	 1000000
#define FLAP_CAP (256 << 10)
#define TXN_ADDS 1000

/* A port flapping at 1 Hz for a day: once folded, the run goes on folding
 * while the changes keep coming within the window (a handful of rows, not
 * six every window); a pause longer than the window begins a new run. */
START_TEST(a_folded_run_goes_on_folding_while_it_lasts)
{
	struct hist_store *st = open_w();
	struct err e = {{0}};
	const int day = 86400;
	for (int i = 0; i < day; i += TXN_ADDS) {
		ck_assert_int_eq(hist_store_begin(st, &e), 0);
		for (int k = i; k < i + TXN_ADDS && k < day; k++) {
			struct hist_event ev = mk(HK_PORT_STATE, T0 + k * SEC, VA2, PFA, "");
			HIST_SET(ev.new, k % 2 ? "DOWN" : "ACTIVE");
			ck_assert_msg(hist_store_add(st, &ev, NULL, &e) == 0, "%s", e.msg);
		}
		ck_assert_msg(hist_store_commit(st, &e) == 0, "%s", e.msg);
	}
	size_t rows = n_events(st);
	ck_assert_msg(rows == HIST_COALESCE_AFTER, "a day of flaps in %zu rows", rows);
	struct hist_query newest = {.limit = 1};
	struct evs *c = calloc(1, sizeof(*c));
	ck_assert_int_eq(hist_store_query(st, &newest, collect, c, &e), 0);
	ck_assert_int_eq(c->v[0].count, day - (HIST_COALESCE_AFTER - 1));
	ck_assert_int_eq(c->v[0].t_last_us, T0 + (day - 1) * SEC);
	ck_assert_str_eq(c->v[0].new, "DOWN");
	free(c);
	struct sum s = {""};
	ck_assert_int_eq(hist_store_sums(st, HK_PORT_STATE, T0, sum_one, &s, &e), 0);
	ck_assert_str_eq(s.seen, VA2 "/" PFA "=86400 ");
	/* Quiet for longer than the window: a row of its own. */
	bool co = true;
	struct hist_event ev =
		mk(HK_PORT_STATE, T0 + (day - 1) * SEC + HIST_COALESCE_WINDOW + SEC, VA2, PFA, "");
	ck_assert_int_eq(hist_store_add(st, &ev, &co, &e), 0);
	ck_assert(!co);
	ck_assert_uint_eq(n_events(st), HIST_COALESCE_AFTER + 1);
	hist_store_close(st);
}
END_TEST

START_TEST(a_million_flaps_keep_the_store_small)
{
	struct hist_store *st = open_w();
	struct err e = {{0}};
	double t0 = mono_s();
	for (int i = 0; i < FLAPS; i += TXN_ADDS) {
		ck_assert_int_eq(hist_store_begin(st, &e), 0);
		for (int k = i; k < i + TXN_ADDS; k++) {
			struct hist_event ev = mk(HK_PORT_STATE, T0 + k * 1000ll, VA2, PFA, "");
			HIST_SET(ev.old, k % 2 ? "ACTIVE" : "DOWN");
			HIST_SET(ev.new, k % 2 ? "DOWN" : "ACTIVE");
			ck_assert_msg(hist_store_add(st, &ev, NULL, &e) == 0, "%s", e.msg);
		}
		ck_assert_msg(hist_store_commit(st, &e) == 0, "%s", e.msg);
		if (i % 100000 == 0)
			ck_assert_int_lt(hist_store_bytes(st), FLAP_CAP);
	}
	double took = mono_s() - t0;
	/* 1000 s of flaps: two windows of HIST_COALESCE_AFTER rows at most. */
	size_t rows = n_events(st);
	ck_assert_uint_le(rows, 2 * HIST_COALESCE_AFTER);
	struct sum s = {""};
	ck_assert_int_eq(hist_store_sums(st, HK_PORT_STATE, 0, sum_one, &s, &e), 0);
	ck_assert_str_eq(s.seen, VA2 "/" PFA "=1000000 ");
	struct hist_query newest = {.limit = 1};
	struct evs *c = calloc(1, sizeof(*c));
	ck_assert_int_eq(hist_store_query(st, &newest, collect, c, &e), 0);
	ck_assert_int_eq(c->v[0].t_last_us, T0 + (FLAPS - 1) * 1000ll);
	ck_assert_str_eq(c->v[0].new, "DOWN");
	free(c);
	hist_store_close(st);
	off_t size = file_size(hs_path);
	ck_assert_int_lt(size, FLAP_CAP);
	char wal[PATH_MAX + 8];
	snprintf(wal, sizeof(wal), "%s-wal", hs_path);
	ck_assert_int_eq(file_size(wal), -1); /* the last close checkpointed */
	fprintf(stderr, "%d flap events in %.2f s (%.0f/s): %zu rows, %lld bytes\n", FLAPS, took,
		FLAPS / took, rows, (long long)size);
}
END_TEST

#define DISTINCT     150000
#define DISTINCT_CAP (2 * MiB)

START_TEST(past_max_bytes_the_oldest_go_first)
{
	struct hist_store *st = open_w();
	struct err e = {{0}};
	int64_t start = hist_now_us() - DISTINCT * 1000ll; /* the last 5 minutes */
	double t0 = mono_s();
	for (int i = 0; i < DISTINCT; i += TXN_ADDS) {
		ck_assert_int_eq(hist_store_begin(st, &e), 0);
		for (int k = i; k < i + TXN_ADDS; k++) {
			char bdf[16], text[96];
			snprintf(bdf, sizeof(bdf), "0000:%02x:%02x.%x", 0x18 + k % 7, k / 7 % 32,
				 k % 8);
			snprintf(text, sizeof(text), "mlx5_core %s: event %d of a long history",
				 bdf, k);
			add(st, mk(HK_KMSG, start + k * 1000ll, bdf, bdf, text));
		}
		ck_assert_int_eq(hist_store_commit(st, &e), 0);
	}
	double took = mono_s() - t0;
	int64_t before = hist_store_bytes(st);
	ck_assert_int_gt(before, 4 * DISTINCT_CAP);
	struct hist_limits l = {.max_bytes = DISTINCT_CAP};
	size_t dropped = 0;
	t0 = mono_s();
	ck_assert_msg(hist_store_retain(st, &l, &dropped, &e) == 0, "%s", e.msg);
	double took_retain = mono_s() - t0;
	int64_t after = hist_store_bytes(st);
	ck_assert_int_le(after, DISTINCT_CAP);
	ck_assert_int_gt(after, DISTINCT_CAP / 2); /* it fits, it was not emptied */
	size_t left = n_events(st);
	ck_assert_uint_eq(left + dropped, DISTINCT);
	/* What is left is the newest, to the last one. */
	struct hist_query oldest = {.until_us = start + (int64_t)(DISTINCT - left - 1) * 1000ll};
	ck_assert_str_eq(texts_of(st, &oldest), "");
	struct hist_query q = {.limit = 1};
	char want[96];
	snprintf(want, sizeof(want), "mlx5_core 0000:%02x:%02x.%x: event %d of a long history",
		 0x18 + (DISTINCT - 1) % 7, (DISTINCT - 1) / 7 % 32, (DISTINCT - 1) % 8,
		 DISTINCT - 1);
	ck_assert_str_eq(texts_of(st, &q), want);
	snprintf(want, sizeof(want), "%lld", (long long)(DISTINCT - left + 1));
	ck_assert_str_eq(sql1(hs_path, "SELECT min(id) FROM events"), want);
	hist_store_close(st);
	off_t size = file_size(hs_path);
	ck_assert_int_le(size, DISTINCT_CAP);
	ck_assert_str_eq(sql1(hs_path, "PRAGMA integrity_check"), "ok");
	fprintf(stderr,
		"%d distinct events in %.2f s, %lld bytes; retained in %.2f s to %lld bytes "
		"(file %lld), %zu dropped\n",
		DISTINCT, took, (long long)before, took_retain, (long long)after, (long long)size,
		dropped);
}
END_TEST

START_TEST(past_max_age_old_events_go)
{
	struct hist_store *st = open_w();
	int64_t now = hist_now_us(), day = 86400 * SEC;
	add(st, mk(HK_KMSG, now - 200 * day, "", "", "200 days"));
	struct hist_event ev = mk(HK_PORT_STATE, now - 100 * day, VA2, PFA, "lasted until 10 days");
	ev.t_last_us = now - 10 * day;
	add(st, ev);
	add(st, mk(HK_KMSG, now - 40 * day, "", "", "40 days"));
	add(st, mk(HK_KMSG, now - 1 * day, "", "", "yesterday"));
	struct err e = {{0}};
	size_t dropped = 0;
	ck_assert_int_eq(hist_store_retain(st, NULL, &dropped, &e), 0); /* 180 days */
	ck_assert_uint_eq(dropped, 1);
	struct hist_query all = {0};
	ck_assert_str_eq(texts_of(st, &all), "lasted until 10 days 40 days yesterday");
	struct hist_limits l = {.max_age_us = 30 * day};
	ck_assert_int_eq(hist_store_retain(st, &l, &dropped, &e), 0);
	ck_assert_uint_eq(dropped, 1);
	ck_assert_str_eq(texts_of(st, &all), "lasted until 10 days yesterday");
	hist_store_close(st);
}
END_TEST

/* ---- concurrency ---- */

static int writer(void *arg, char *msg, size_t size)
{
	(void)arg;
	struct hist_store *st;
	struct err e = {{0}};
	if (hist_store_open(hs_path, true, &st, &e) < 0) {
		snprintf(msg, size, "%s", e.msg);
		return 2;
	}
	int rc = 0, k = 0;
	double end = mono_s() + 2;
	while (rc == 0 && mono_s() < end) {
		if (hist_store_begin(st, &e) < 0) {
			rc = 3;
			break;
		}
		for (int i = 0; rc == 0 && i < 200; i++, k++)
			if (hist_store_add(st,
					   &(struct hist_event){.kind = HK_KMSG, .t_us = T0 + k},
					   NULL, &e) < 0)
				rc = 4;
		if (rc == 0 && hist_store_commit(st, &e) < 0)
			rc = 5;
		if (rc == 0 && k % 20000 == 0) {
			struct hist_limits l = {.max_age_us = 1};
			if (hist_store_retain(st, &l, NULL, &e) < 0) /* drops all: vacuums */
				rc = 6;
		}
	}
	if (rc)
		snprintf(msg, size, "%s", e.msg);
	hist_store_close(st);
	return rc;
}

START_TEST(a_reader_beside_a_writer_never_sees_a_lock)
{
	hist_store_close(open_w());
	ck_assert_str_eq(sql1(hs_path, "PRAGMA journal_mode"), "wal");
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		char msg[512] = "";
		int rc = writer(NULL, msg, sizeof(msg));
		ssize_t w = write(p[1], msg, strlen(msg));
		(void)w;
		_exit(rc);
	}
	close(p[1]);
	struct hist_store *st = NULL;
	size_t queries = 0, errors = 0, seen = 0;
	char first_error[sizeof(((struct err *)0)->msg)] = "";
	int status;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		struct err e = {{0}};
		if (!st && hist_store_open(hs_path, false, &st, &e) < 0) { /* a fresh reader */
			if (!errors++)
				snprintf(first_error, sizeof(first_error), "%s", e.msg);
			continue;
		}
		struct hist_query q = {.limit = 100};
		size_t n = 0;
		if (hist_store_query(st, &q, count_one, &n, &e) < 0 && !errors++)
			snprintf(first_error, sizeof(first_error), "%s", e.msg);
		seen += n;
		if (++queries % 8 == 0) {
			hist_store_close(st);
			st = NULL;
		}
	}
	hist_store_close(st);
	char msg[512] = "";
	ssize_t got = read(p[0], msg, sizeof(msg) - 1);
	msg[got > 0 ? got : 0] = '\0';
	close(p[0]);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer failed (%d): %s",
		      status, msg);
	ck_assert_msg(errors == 0, "%zu of %zu queries failed, the first: %s", errors, queries,
		      first_error);
	ck_assert_uint_gt(queries, 100);
	ck_assert_uint_gt(seen, 0);
	ck_assert_str_eq(sql1(hs_path, "PRAGMA integrity_check"), "ok");
	fprintf(stderr, "%zu queries beside the writer, none failed\n", queries);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("history_store");
	TCase *tc = tcase_create("schema");
	tcase_add_checked_fixture(tc, hs_setup, hs_teardown);
	tcase_add_test(tc, new_store_has_its_identity_and_reopens);
	tcase_add_test(tc, every_field_round_trips_as_stored);
	tcase_add_test(tc, query_filters_by_time_function_pod_kind_id_and_limit);
	tcase_add_test(tc, causes_are_the_nearest_earlier_events_on_the_function_pf_or_name);
	tcase_add_test(tc, sums_count_folded_changes_by_function);
	tcase_add_test(tc, sums_since_ever_outlive_retention);
	tcase_add_test(tc, an_unbound_vf_in_a_pod_loses_its_netdev_it_does_not_move);
	suite_add_tcase(s, tc);

	tc = tcase_create("durable");
	tcase_add_checked_fixture(tc, hs_setup, hs_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, a_killed_writer_loses_no_committed_batch);
	tcase_add_test(tc, a_repeating_change_is_folded_after_a_few_rows);
	tcase_add_test(tc, a_folded_run_goes_on_folding_while_it_lasts);
	tcase_add_test(tc, a_million_flaps_keep_the_store_small);
	tcase_add_test(tc, past_max_bytes_the_oldest_go_first);
	tcase_add_test(tc, past_max_age_old_events_go);
	tcase_add_test(tc, a_reader_beside_a_writer_never_sees_a_lock);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
