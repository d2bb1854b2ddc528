// SPDX-License-Identifier: MIT
/* The checks reading the recorded history, as a user meets them: a store
 * written by hand (hist_store_add of crafted events) under a simulated
 * node's var/lib/ibvf/history.db, then the real binary's `check --json`
 * and `metrics`. Renames come with their times, a port that keeps changing
 * state is found and one that changed twice is not, a GUID a boot reset is
 * found with its boot and one lost outside a boot's group is not, --since
 * narrows the window, a damaged store is one line and check still works,
 * and the metrics count what the store holds. */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/history/facts.h"
#include "core/history/store.h"
#include "testutil.h"

#define MIN_US	(60ll * 1000000)
#define HOUR_US (60 * MIN_US)
#define DAY_US	(24 * HOUR_US)

static char *node; /* a healthy simulated node, fresh for each test */
static struct hist_store *st;
static int64_t now_us;

static void setup(void)
{
	/* The binary records into the store it reads on a simulated node:
	 * not into the stores written here by hand (the healthy node's test
	 * lets it). */
	setenv("IBVF_RECORD", "0", 1);
	node = tu_mkfixture((const char *const[]){"--healthy", NULL});
	now_us = (int64_t)time(NULL) * 1000000;
	/* The node booted a week ago: the events below are of this boot
	 * unless a test records a later one. */
	char stat[64];
	snprintf(stat, sizeof(stat), "cpu 0 0 0 0\nbtime %lld\n",
		 (long long)(now_us / 1000000 - 7 * 86400));
	tu_put(node, "proc/stat", stat);
	st = NULL;
}

static void teardown(void)
{
	hist_store_close(st);
	tu_rmtree(node);
}

static const char *store_dir; /* the node whose store st is */

static void store_open(const char *dir)
{
	char path[PATH_MAX];
	store_dir = dir;
	struct err e = {{0}};
	snprintf(path, sizeof(path), "%s/var/lib/ibvf/history.db", dir);
	ck_assert_msg(hist_store_open(path, true, &st, &e) == 0, "%s", e.msg);
}

/* Adds one event; pf "" for the node. */
static void add(int64_t t_us, enum hist_kind kind, const char *bdf, const char *pf, const char *old,
		const char *new, int64_t group, const char *ref)
{
	struct hist_event ev = {.t_us = t_us, .count = 1, .group = group, .kind = kind};
	struct err e = {{0}};
	if (!st)
		store_open(node);
	HIST_SET(ev.bdf, bdf);
	HIST_SET(ev.pf, pf);
	HIST_SET(ev.old, old);
	HIST_SET(ev.new, new);
	HIST_SET(ev.ref, ref ? ref : "");
	HIST_SET(ev.boot, "b0");
	if (kind == HK_BOOT) {
		HIST_SET(ev.text,
			 "kernel 6.8.0-55-generic, driver 24.10-0.7.0, firmware 28.43.1014");
		HIST_SET(ev.boot, new);
		/* The newest boot added is the one the node is in now. */
		char id[HIST_BOOT_MAX + 2];
		snprintf(id, sizeof(id), "%s\n", new);
		tu_put(store_dir, "proc/sys/kernel/random/boot_id", id);
	}
	ck_assert_msg(hist_store_add(st, &ev, NULL, &e) == 0, "%s", e.msg);
}

static void add_state(int64_t t_us, const char *bdf, const char *pf, const char *old,
		      const char *new)
{
	add(t_us, HK_PORT_STATE, bdf, pf, old, new, 0, NULL);
}

/* "2026-12-04T03:12:07Z" of t_us. */
static void rfc3339(int64_t t_us, char buf[32])
{
	time_t t = (time_t)(t_us / 1000000);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* `ibvf --sim=node check --json [a1 [a2]]`: its exit status is want,
 * stderr empty; the report parsed. */
static struct json_object *check_json(int want, const char *a1, const char *a2)
{
	char *out, *err;
	int rc = tu_sim_run(node, &out, &err, "check", "--json", a1, a2, NULL);
	ck_assert_msg(rc == want, "check --json %s %s: exit %d (not %d), stderr %s", a1 ? a1 : "",
		      a2 ? a2 : "", rc, want, err);
	ck_assert_str_eq(err, "");
	struct json_object *o = json_tokener_parse(out);
	ck_assert_msg(o != NULL, "not JSON: %.200s", out);
	free(out);
	free(err);
	return o;
}

static const char *sget(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;
	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

/* The findings of id on subject (NULL: any), counted; *ret the first. */
static size_t findings_of(struct json_object *rep, const char *id, const char *subject,
			  struct json_object **ret)
{
	struct json_object *a = NULL;
	size_t n = 0;
	ck_assert(json_object_object_get_ex(rep, "findings", &a));
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *f = json_object_array_get_idx(a, i);
		const char *s = sget(f, "subject");
		if (strcmp(sget(f, "id"), id) || (subject && (!s || strcmp(s, subject))))
			continue;
		if (!n && ret)
			*ret = f;
		n++;
	}
	return n;
}

/* Whether one of f's evidence values holds s. */
static bool evidence_has(struct json_object *f, const char *s)
{
	struct json_object *a = NULL;
	ck_assert(json_object_object_get_ex(f, "evidence", &a));
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (strstr(sget(json_object_array_get_idx(a, i), "value"), s))
			return true;
	return false;
}

static const char *remedy_step(struct json_object *f, const char *key, size_t i)
{
	struct json_object *r = NULL, *a = NULL;
	ck_assert(json_object_object_get_ex(f, "remedy", &r));
	ck_assert(json_object_object_get_ex(r, key, &a));
	return i < json_object_array_length(a)
		       ? json_object_get_string(json_object_array_get_idx(a, i))
		       : NULL;
}

START_TEST(healthy_node_without_store_has_no_findings)
{
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "check", "--verbose", NULL), 0);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, "\nno findings\n"));
	free(out);
	free(err);
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "metrics", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nibvf_history_up 0\n"));
	ck_assert_ptr_null(strstr(out, "ibvf_vf_renames_total{"));
	free(out);
	free(err);
	/* check records the node's first record (a boot, its functions);
	 * read back, that is no finding either. */
	unsetenv("IBVF_RECORD");
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(tu_sim_run(node, &out, &err, "check", "--verbose", NULL), 0);
		ck_assert_str_eq(err, "");
		ck_assert_ptr_nonnull(strstr(out, "\nno findings\n"));
		free(out);
		free(err);
	}
	char *m;
	ck_assert_int_eq(tu_sim_run(node, &m, &err, "metrics", NULL), 0);
	ck_assert_ptr_nonnull(strstr(m, "\nibvf_history_up 1\n"));
	free(m);
	free(err);
}
END_TEST

START_TEST(renames_are_reported_with_their_times)
{
	/* The example of the issue, at its time; and a VF renamed twice. */
	int64_t t = 1796353927ll * 1000000; /* 2026-12-04T03:12:07Z */
	add(t, HK_RENAME, "0000:18:00.2", "0000:18:00.0", "ib1", "ib5", 0, NULL);
	add(now_us - 2 * HOUR_US, HK_RENAME, "0000:40:00.1", "0000:40:00.0", "ibp64s0v0", "ib3", 0,
	    NULL);
	add(now_us - HOUR_US, HK_RENAME, "0000:40:00.1", "0000:40:00.0", "ib3", "ibp64s0v0", 0,
	    NULL);
	add(now_us - HOUR_US, HK_RENAME, "0000:40:00.2", "0000:40:00.0", "mlx5_21", "mlx5_9", 0,
	    "rdma");
	/* A boot's RDMA device numbering is no finding; its netdev name is. */
	add(now_us - 4 * HOUR_US, HK_BOOT, "", "", "", "b7", 4, NULL);
	add(now_us - 4 * HOUR_US, HK_RENAME, "0000:18:00.4", "0000:18:00.0", "mlx5_15", "mlx5_16",
	    4, "rdma");
	add(now_us - 4 * HOUR_US, HK_RENAME, "0000:18:00.5", "0000:18:00.0", "ib4", "ibp24s0v4", 4,
	    NULL);
	struct json_object *rep = check_json(0, "--since=30d", "name-changed"), *f = NULL;
	ck_assert_uint_eq(findings_of(rep, "name-changed", NULL, NULL), 4);
	ck_assert_uint_eq(findings_of(rep, "name-changed", "0000:18:00.4", NULL), 0);
	ck_assert_uint_eq(findings_of(rep, "name-changed", "0000:18:00.5", NULL), 1);
	ck_assert_uint_eq(findings_of(rep, "name-changed", "0000:18:00.2", &f), 1);
	ck_assert_str_eq(sget(f, "severity"), "info");
	ck_assert_msg(evidence_has(f, "at 2026-12-04T03:12:07Z: ib1 -> ib5"), "%s",
		      json_object_to_json_string(f));
	ck_assert_ptr_nonnull(strstr(sget(f, "title"), "ib1 -> ib5 at 2026-12-04T03:12:07Z"));
	/* Twice: both with their times, the title counting them. */
	char a[32], b[32], want[96];
	rfc3339(now_us - 2 * HOUR_US, a);
	rfc3339(now_us - HOUR_US, b);
	ck_assert_uint_eq(findings_of(rep, "name-changed", "0000:40:00.1", &f), 1);
	ck_assert_ptr_nonnull(strstr(sget(f, "title"), "renamed 2 times"));
	snprintf(want, sizeof(want), "at %s: ibp64s0v0 -> ib3", a);
	ck_assert_msg(evidence_has(f, want), "%s", json_object_to_json_string(f));
	snprintf(want, sizeof(want), "at %s: ib3 -> ibp64s0v0", b);
	ck_assert_msg(evidence_has(f, want), "%s", json_object_to_json_string(f));
	/* An RDMA device's rename says so. */
	ck_assert_uint_eq(findings_of(rep, "name-changed", "0000:40:00.2", &f), 1);
	snprintf(want, sizeof(want), "at %s: RDMA device mlx5_21 -> mlx5_9", b);
	ck_assert_msg(evidence_has(f, want), "%s", json_object_to_json_string(f));
	json_object_put(rep);

	/* The text output shows the times too. */
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "check", "--verbose", "--since=30d",
				    "name-changed", NULL),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "at 2026-12-04T03:12:07Z: ib1 -> ib5"));
	free(out);
	free(err);
}
END_TEST

START_TEST(port_changing_state_often_is_flapping)
{
	/* VF 18:00.1: 4 changes in 10 minutes; VF 18:00.2: 2, not flapping. */
	const char *pf = "0000:18:00.0";
	int64_t t0 = now_us - HOUR_US;
	add_state(t0, "0000:18:00.1", pf, "ACTIVE", "DOWN");
	add_state(t0 + 2 * MIN_US, "0000:18:00.1", pf, "DOWN", "INIT");
	add_state(t0 + 3 * MIN_US, "0000:18:00.1", pf, "INIT", "ACTIVE");
	add_state(t0 + 10 * MIN_US, "0000:18:00.1", pf, "ACTIVE", "DOWN");
	add_state(t0, "0000:18:00.2", pf, "ACTIVE", "DOWN");
	add_state(t0 + MIN_US, "0000:18:00.2", pf, "DOWN", "ACTIVE");
	struct json_object *rep = check_json(1, "port-flapping", NULL), *f = NULL;
	ck_assert_uint_eq(findings_of(rep, "port-flapping", NULL, NULL), 1);
	ck_assert_uint_eq(findings_of(rep, "port-flapping", "0000:18:00.1", &f), 1);
	ck_assert_str_eq(sget(f, "severity"), "warning");
	ck_assert_ptr_nonnull(strstr(sget(f, "title"), "changed state 4 times"));
	char first[32], last[32], want[128];
	rfc3339(t0, first);
	rfc3339(t0 + 10 * MIN_US, last);
	snprintf(want, sizeof(want), "4 port state changes from %s to %s", first, last);
	ck_assert_msg(evidence_has(f, want), "%s", json_object_to_json_string(f));
	ck_assert(evidence_has(f, "ACTIVE DOWN INIT ACTIVE DOWN"));
	ck_assert_ptr_nonnull(strstr(remedy_step(f, "steps", 0), "ibstat mlx5_12 1"));
	json_object_put(rep);
}
END_TEST

START_TEST(flapping_pf_speaks_for_its_vfs_and_coalesced_rows_count)
{
	/* 9 changes within the coalescing window: the store folds the last
	 * ones into one row with a count; the sum is still 9. */
	const char *pf = "0000:40:00.0";
	for (int i = 0; i < 9; i++)
		add_state(now_us - HOUR_US + i * MIN_US, pf, pf, i % 2 ? "DOWN" : "ACTIVE",
			  i % 2 ? "ACTIVE" : "DOWN");
	for (int i = 0; i < 5; i++)
		add_state(now_us - HOUR_US + i * MIN_US, "0000:40:00.1", pf,
			  i % 2 ? "DOWN" : "ACTIVE", i % 2 ? "ACTIVE" : "DOWN");
	struct json_object *rep = check_json(1, "port-flapping", NULL), *f = NULL;
	ck_assert_uint_eq(findings_of(rep, "port-flapping", NULL, NULL), 1);
	ck_assert_uint_eq(findings_of(rep, "port-flapping", pf, &f), 1);
	ck_assert_str_eq(sget(f, "subject_kind"), "pf");
	ck_assert_ptr_nonnull(strstr(sget(f, "title"), "changed state 9 times"));
	ck_assert(evidence_has(f, "folded into one row"));
	json_object_put(rep);
	/* Asked for the VF, the PF's finding reaches it. */
	rep = check_json(1, "port-flapping", "0000:40:00.3");
	ck_assert_uint_eq(findings_of(rep, "port-flapping", pf, NULL), 1);
	json_object_put(rep);
}
END_TEST

START_TEST(guid_lost_in_a_boot_group_is_found_with_its_boot)
{
	int64_t boot = now_us - 2 * HOUR_US, g = 7;
	add(boot, HK_BOOT, "", "", "", "2f1c0c8e-6f7e-4c55-9d8e-0b9a4f1e2d3c", g,
	    "6.8.0-55-generic");
	add(boot + 40 * 1000000, HK_PORT_GUID, "0000:18:00.3", "0000:18:00.0",
	    "a088:c203:0018:0003", "0000:0000:0000:0000", g, NULL);
	add(boot + 40 * 1000000, HK_NODE_GUID, "0000:18:00.3", "0000:18:00.0",
	    "a088:c203:0018:0003", "0000:0000:0000:0000", g, NULL);
	/* Lost outside a boot's group (someone wrote 0 by hand): not this check. */
	add(now_us - HOUR_US, HK_PORT_GUID, "0000:18:00.4", "0000:18:00.0", "a088:c203:0018:0004",
	    "0000:0000:0000:0000", 0, NULL);
	/* A group that is no boot's. */
	add(now_us - HOUR_US, HK_PORT_GUID, "0000:18:00.5", "0000:18:00.0", "a088:c203:0018:0005",
	    "0000:0000:0000:0000", g + 1, NULL);
	/* A PF's GUID is the firmware's: not a VF's loss. */
	add(boot + 40 * 1000000, HK_PORT_GUID, "0000:18:00.0", "0000:18:00.0",
	    "a088:c203:0018:0000", "0000:0000:0000:0000", g, NULL);
	struct json_object *rep = check_json(1, "guid-lost-boot", NULL), *f = NULL;
	ck_assert_uint_eq(findings_of(rep, "guid-lost-boot", NULL, NULL), 1);
	ck_assert_uint_eq(findings_of(rep, "guid-lost-boot", "0000:18:00.3", &f), 1);
	/* Its GUIDs are back now (the healthy node): a warning, persist them. */
	ck_assert_str_eq(sget(f, "severity"), "warning");
	char at[32], want[160];
	rfc3339(boot, at);
	snprintf(want, sizeof(want), "boot at %s (boot id 2f1c0c8e-6f7e-4c55-9d8e-0b9a4f1e2d3c)",
		 at);
	ck_assert_msg(evidence_has(f, want), "%s", json_object_to_json_string(f));
	ck_assert(evidence_has(f, "port GUID a088:c203:0018:0003 -> zero"));
	ck_assert(evidence_has(f, "node GUID a088:c203:0018:0003 -> zero"));
	ck_assert(evidence_has(f, "kernel 6.8.0-55-generic"));
	ck_assert_ptr_nonnull(strstr(sget(f, "title"), "lost its node and port GUID"));
	ck_assert_str_eq(remedy_step(f, "argv", 0), "persist");
	json_object_put(rep);
}
END_TEST

START_TEST(guid_still_zero_after_boot_is_critical)
{
	char *faulty = tu_mkfixture(NULL);
	store_open(faulty);
	int64_t boot = now_us - HOUR_US;
	add(boot, HK_BOOT, "", "", "", "b1", 3, NULL);
	add(boot + 1000000, HK_PORT_GUID, "0000:4f:00.1", "0000:4f:00.0", "a088:c203:004f:0001",
	    "0000:0000:0000:0000", 3, NULL);
	char *out, *err;
	tu_sim_run(faulty, &out, &err, "check", "--json", "guid-lost-boot", NULL);
	struct json_object *rep = json_tokener_parse(out), *f = NULL;
	ck_assert_ptr_nonnull(rep);
	ck_assert_uint_eq(findings_of(rep, "guid-lost-boot", "0000:4f:00.1", &f), 1);
	ck_assert_str_eq(sget(f, "severity"), "critical");
	ck_assert_ptr_nonnull(strstr(sget(f, "title"), "still zero"));
	ck_assert_str_eq(remedy_step(f, "argv", 0), "vf");
	ck_assert_str_eq(remedy_step(f, "argv", 1), "guid");
	json_object_put(rep);
	free(out);
	free(err);
	tu_rmtree(faulty);
}
END_TEST

START_TEST(since_narrows_and_the_boot_bounds_by_default)
{
	add(now_us - 3 * DAY_US, HK_RENAME, "0000:18:00.2", "0000:18:00.0", "ib1", "ib5", 0, NULL);
	add(now_us - 2 * HOUR_US, HK_BOOT, "", "", "", "b2", 9, NULL);
	add(now_us - 30 * MIN_US, HK_RENAME, "0000:18:00.3", "0000:18:00.0", "ib2", "ib6", 0, NULL);
	/* Default: since the boot, 2 hours ago. */
	struct json_object *rep = check_json(0, "name-changed", NULL);
	ck_assert_uint_eq(findings_of(rep, "name-changed", NULL, NULL), 1);
	ck_assert_uint_eq(findings_of(rep, "name-changed", "0000:18:00.3", NULL), 1);
	json_object_put(rep);
	/* Wider: 4 days. */
	rep = check_json(0, "--since=4d", "name-changed");
	ck_assert_uint_eq(findings_of(rep, "name-changed", NULL, NULL), 2);
	json_object_put(rep);
	/* Narrower: 10 minutes, then a time after the rename. */
	rep = check_json(0, "--since=10m", "name-changed");
	ck_assert_uint_eq(findings_of(rep, "name-changed", NULL, NULL), 0);
	json_object_put(rep);
	char t[32], arg[48];
	rfc3339(now_us - 20 * MIN_US, t);
	snprintf(arg, sizeof(arg), "--since=%s", t);
	rep = check_json(0, arg, "name-changed");
	ck_assert_uint_eq(findings_of(rep, "name-changed", NULL, NULL), 0);
	json_object_put(rep);
	rfc3339(now_us - 4 * DAY_US, t);
	snprintf(arg, sizeof(arg), "--since=%s", t);
	rep = check_json(0, arg, "name-changed");
	ck_assert_uint_eq(findings_of(rep, "name-changed", NULL, NULL), 2);
	json_object_put(rep);
	/* Not a duration nor a time: bad usage. */
	char *out, *err;
	ck_assert_int_eq(
		tu_sim_run(node, &out, &err, "check", "--verbose", "--since=yesterday", NULL), 3);
	ck_assert_ptr_nonnull(strstr(err, "--since 'yesterday'"));
	free(out);
	free(err);
}
END_TEST

START_TEST(damaged_store_is_one_line_and_check_still_works)
{
	tu_put(node, "var/lib/ibvf/history.db", "this is not a SQLite database, not at all\n");
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "check", "--verbose", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nno findings\n"));
	ck_assert_msg(!strncmp(err, "ibvf: history: ", 15), "%s", err);
	ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
	free(out);
	free(err);
	/* metrics: the round goes on, history_up 0. */
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "metrics", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nibvf_history_up 0\n"));
	ck_assert_msg(!strncmp(err, "ibvf: history: ", 15), "%s", err);
	free(out);
	free(err);
}
END_TEST

START_TEST(metrics_count_what_the_store_holds)
{
	const char *pf = "0000:18:00.0";
	add(now_us - 3 * DAY_US, HK_RENAME, "0000:18:00.2", pf, "ib1", "ib5", 0, NULL);
	add(now_us - HOUR_US, HK_RENAME, "0000:18:00.2", pf, "ib5", "ibp24s0v1", 0, NULL);
	add(now_us - HOUR_US, HK_RENAME, pf, pf, "ib0", "ibp24s0", 0, NULL); /* a PF: no VF count */
	for (int i = 0; i < 9; i++) /* 6 rows, then folded: 9 all the same */
		add_state(now_us - HOUR_US + i * MIN_US, "0000:18:00.1", pf,
			  i % 2 ? "DOWN" : "ACTIVE", i % 2 ? "ACTIVE" : "DOWN");
	add_state(now_us - HOUR_US, pf, pf, "ACTIVE", "DOWN");
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "metrics", NULL), 0);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, "\nibvf_history_up 1\n"));
	ck_assert_ptr_nonnull(strstr(out, "# TYPE ibvf_vf_renames_total counter\n"));
	ck_assert_ptr_nonnull(strstr(
		out, "\nibvf_vf_renames_total{pci=\"0000:18:00.2\",pf=\"0000:18:00.0\"} 2\n"));
	ck_assert_ptr_null(strstr(out, "ibvf_vf_renames_total{pci=\"0000:18:00.0\""));
	ck_assert_ptr_nonnull(strstr(
		out,
		"\nibvf_port_state_changes_total{pci=\"0000:18:00.1\",pf=\"0000:18:00.0\"} 9\n"));
	ck_assert_ptr_nonnull(
		strstr(out, "\nibvf_port_state_changes_total{pci=\"0000:18:00.0\"} 1\n"));
	/* The checks behind ibvf_findings read the history too. */
	ck_assert_ptr_nonnull(
		strstr(out, "\nibvf_findings{check=\"port-flapping\",severity=\"warning\"} 1\n"));
	free(out);
	free(err);
}
END_TEST

struct count_ref {
	const char *ref;
	size_t n;
};

static int count_ref_one(void *arg, const struct hist_event *ev)
{
	struct count_ref *c = arg;
	c->n += !c->ref || !strcmp(ev->ref, c->ref);
	return 0;
}

/* The events of kind whose ref is ref (NULL: any) in the node's store,
 * read on a connection of their own. */
static size_t stored(enum hist_kind kind, const char *ref)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/var/lib/ibvf/history.db", node);
	struct hist_store *rs;
	struct err e = {{0}};
	ck_assert_msg(hist_store_open(path, false, &rs, &e) == 0, "%s", e.msg);
	struct hist_query q = {.kinds = 1u << kind};
	struct count_ref c = {.ref = ref};
	ck_assert_msg(hist_store_query(rs, &q, count_ref_one, &c, &e) == 0, "%s", e.msg);
	hist_store_close(rs);
	return c.n;
}

/* A check that records (no recorder running) reports the findings it
 * reads from the past but records none of them: each writer computes them
 * from its own window, and they would open and close by turns. */
START_TEST(findings_read_from_the_past_are_not_recorded)
{
	const char *pf = "0000:18:00.0";
	add(now_us - HOUR_US, HK_RENAME, "0000:18:00.2", pf, "ib1", "ib5", 0, NULL);
	for (int i = 0; i < 4; i++)
		add_state(now_us - HOUR_US + i * MIN_US, "0000:18:00.1", pf,
			  i % 2 ? "DOWN" : "ACTIVE", i % 2 ? "ACTIVE" : "DOWN");
	add(now_us - 2 * HOUR_US, HK_BOOT, "", "", "", "b-guid", 7, NULL);
	add(now_us - 2 * HOUR_US + MIN_US, HK_PORT_GUID, "0000:18:00.3", pf, "a088:c203:0018:0003",
	    "0000:0000:0000:0000", 7, NULL);
	hist_store_close(st);
	st = NULL;
	unsetenv("IBVF_RECORD");
	for (int round = 0; round < 2; round++) {
		struct json_object *rep = check_json(1, "--since=30d", NULL);
		ck_assert_uint_eq(findings_of(rep, "name-changed", "0000:18:00.2", NULL), 1);
		ck_assert_uint_eq(findings_of(rep, "port-flapping", "0000:18:00.1", NULL), 1);
		ck_assert_uint_eq(findings_of(rep, "guid-lost-boot", "0000:18:00.3", NULL), 1);
		json_object_put(rep);
		/* It recorded (its first record), but none of these. */
		ck_assert_uint_eq(stored(HK_START, NULL), 1);
		static const char *const past[] = {"name-changed", "port-flapping",
						   "guid-lost-boot"};
		for (size_t i = 0; i < sizeof(past) / sizeof(*past); i++) {
			ck_assert_msg(stored(HK_FINDING_OPEN, past[i]) == 0, "%s recorded open",
				      past[i]);
			ck_assert_msg(stored(HK_FINDING_CLOSE, past[i]) == 0, "%s recorded closed",
				      past[i]);
		}
	}
	/* A window that no longer holds them: still nothing recorded. */
	struct json_object *rep = check_json(0, "--since=1m", NULL);
	json_object_put(rep);
	ck_assert_uint_eq(stored(HK_FINDING_CLOSE, NULL), 0);
}
END_TEST

/* The default window and `timeline --since boot` begin at this boot's
 * start: its boot event, or, not recorded yet, the node's boot time; never
 * an older boot's event (its renames are not this boot's). */
START_TEST(since_boot_is_this_boots_start_never_an_older_boots)
{
	const char *pf = "0000:18:00.0";
	add(now_us - 3 * DAY_US, HK_BOOT, "", "", "", "b-old", 2, NULL);
	add(now_us - 2 * DAY_US, HK_RENAME, "0000:18:00.2", pf, "ib1", "ib5", 0, NULL);
	add(now_us - HOUR_US, HK_RENAME, "0000:18:00.3", pf, "ib2", "ib6", 0, NULL);
	/* The node is in another boot, not recorded: it began 2 hours ago. */
	tu_put(node, "proc/sys/kernel/random/boot_id", "b-now\n");
	char stat[64];
	snprintf(stat, sizeof(stat), "cpu 0 0 0 0\nbtime %lld\n",
		 (long long)(now_us / 1000000 - 2 * 3600));
	tu_put(node, "proc/stat", stat);
	hist_store_close(st);
	st = NULL;
	struct json_object *rep = check_json(0, "name-changed", NULL);
	ck_assert_uint_eq(findings_of(rep, "name-changed", NULL, NULL), 1);
	ck_assert_uint_eq(findings_of(rep, "name-changed", "0000:18:00.3", NULL), 1);
	json_object_put(rep);
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "timeline", "--since", "boot", "--kind",
				    "rename", NULL),
			 0);
	ck_assert_msg(strstr(out, "ib2 -> ib6") && !strstr(out, "ib1 -> ib5"), "%s", out);
	free(out);
	free(err);
	/* Recorded now, this boot's event is the start (its time, btime). */
	unsetenv("IBVF_RECORD");
	rep = check_json(0, "name-changed", NULL);
	json_object_put(rep);
	ck_assert_uint_eq(stored(HK_BOOT, NULL), 2);
	setenv("IBVF_RECORD", "0", 1);
	rep = check_json(0, "name-changed", NULL);
	ck_assert_uint_eq(findings_of(rep, "name-changed", NULL, NULL), 1);
	ck_assert_uint_eq(findings_of(rep, "name-changed", "0000:18:00.3", NULL), 1);
	json_object_put(rep);
}
END_TEST

/* Only the recorder trims the store, with its own limits: a check that
 * records leaves an event older than the default 180 days alone. */
START_TEST(only_the_recorder_trims)
{
	add(now_us - 200 * DAY_US, HK_RENAME, "0000:18:00.2", "0000:18:00.0", "ib1", "ib5", 0,
	    NULL);
	add(now_us - HOUR_US, HK_RENAME, "0000:18:00.3", "0000:18:00.0", "ib2", "ib6", 0, NULL);
	hist_store_close(st);
	st = NULL;
	unsetenv("IBVF_RECORD");
	char *out, *err;
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "check", "--verbose", NULL), 0);
	free(out);
	free(err);
	ck_assert_uint_eq(stored(HK_START, NULL), 1); /* it recorded */
	ck_assert_uint_eq(stored(HK_RENAME, NULL), 2);
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "metrics", NULL), 0);
	free(out);
	free(err);
	ck_assert_uint_eq(stored(HK_RENAME, NULL), 2);
	/* The recorder: with --max-age 365 it stays; by default it goes. */
	ck_assert_int_eq(tu_sim_run(node, NULL, NULL, "record", "--once", "--max-age", "365", NULL),
			 0);
	ck_assert_uint_eq(stored(HK_RENAME, NULL), 2);
	/* A day later (its daily retention due again). */
	store_open(node);
	struct err e = {{0}};
	ck_assert_msg(hist_store_kv_put(st, "retained", "0", &e) == 0, "%s", e.msg);
	hist_store_close(st);
	st = NULL;
	ck_assert_int_eq(tu_sim_run(node, NULL, NULL, "record", "--once", NULL), 0);
	ck_assert_uint_eq(stored(HK_RENAME, NULL), 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("checks_history");
	TCase *tc = tcase_create("history");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, healthy_node_without_store_has_no_findings);
	tcase_add_test(tc, renames_are_reported_with_their_times);
	tcase_add_test(tc, port_changing_state_often_is_flapping);
	tcase_add_test(tc, flapping_pf_speaks_for_its_vfs_and_coalesced_rows_count);
	tcase_add_test(tc, guid_lost_in_a_boot_group_is_found_with_its_boot);
	tcase_add_test(tc, guid_still_zero_after_boot_is_critical);
	tcase_add_test(tc, since_narrows_and_the_boot_bounds_by_default);
	tcase_add_test(tc, damaged_store_is_one_line_and_check_still_works);
	tcase_add_test(tc, metrics_count_what_the_store_holds);
	tcase_add_test(tc, findings_read_from_the_past_are_not_recorded);
	tcase_add_test(tc, since_boot_is_this_boots_start_never_an_older_boots);
	tcase_add_test(tc, only_the_recorder_trims);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
