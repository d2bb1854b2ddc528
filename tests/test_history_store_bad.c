// SPDX-License-Identifier: MIT
/* The history store refusing what it cannot use, each in one line naming
 * the file: garbage, another program's database, a newer schema, a
 * symbolic link (its target untouched), a read-only directory, a full
 * disk; and a recorder that keeps following in memory until the file can
 * be written again. The read-only and full-disk cases mount in a private
 * mount namespace of a forked child (root; skipped, saying so, otherwise:
 * chmod stops no root). */
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

#include "core/checks/checks.h"
#include "core/history/recorder.h"
#include "core/history/store.h"
#include "core/model/node.h"
#include "core/sys/sys.h"
#include "histutil.h"
#include "testutil.h"

/* ---- bad input ---- */

START_TEST(garbage_is_refused_untouched)
{
	tu_put(hs_dir, "var/lib/ibvf/.keep", "");
	char garbage[8192];
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)(i * 7919 % 251 + 1);
	garbage[sizeof(garbage) - 1] = '\0';
	tu_write(hs_path, garbage);
	ck_assert_int_eq(chmod(hs_path, HIST_STORE_MODE), 0);
	size_t len0, len1;
	char *before = slurp(hs_path, &len0);
	const char *msg = open_fails(true, EBADMSG);
	ck_assert_msg(strstr(msg, "not a database"), "%s", msg);
	msg = open_fails(false, EBADMSG);
	ck_assert_msg(strstr(msg, "not a database"), "%s", msg);
	char *after = slurp(hs_path, &len1);
	ck_assert_uint_eq(len0, len1);
	ck_assert(!memcmp(before, after, len0));
	free(before);
	free(after);
}
END_TEST

START_TEST(another_programs_database_is_refused_untouched)
{
	tu_put(hs_dir, "var/lib/ibvf/.keep", "");
	/* Tables and an application_id of its own; then tables and none. */
	sql_exec(hs_path, "PRAGMA application_id=1234; CREATE TABLE t(x); INSERT INTO t VALUES(1)");
	size_t len0, len1;
	char *before = slurp(hs_path, &len0);
	const char *msg = open_fails(true, EINVAL);
	ck_assert_msg(strstr(msg, "not an ibvf history store"), "%s", msg);
	open_fails(false, EINVAL);
	char *after = slurp(hs_path, &len1);
	ck_assert_uint_eq(len0, len1);
	ck_assert_msg(!memcmp(before, after, len0), "the foreign database was changed");
	ck_assert_str_eq(sql1(hs_path, "PRAGMA journal_mode"), "delete");
	free(before);
	free(after);
	unlink(hs_path);
	sql_exec(hs_path, "CREATE TABLE events(x)");
	msg = open_fails(true, EINVAL);
	ck_assert_msg(strstr(msg, "not an ibvf history store"), "%s", msg);
	ck_assert_str_eq(sql1(hs_path, "PRAGMA journal_mode"), "delete");
}
END_TEST

/* A file refused for writing keeps its mode: another program's database
 * (0664, its owner's choice) and garbage alike. */
START_TEST(a_refused_file_keeps_its_mode)
{
	tu_put(hs_dir, "var/lib/ibvf/.keep", "");
	sql_exec(hs_path, "PRAGMA application_id=1234; CREATE TABLE t(x)");
	ck_assert_int_eq(chmod(hs_path, 0664), 0);
	open_fails(true, EINVAL);
	struct stat stt;
	ck_assert_int_eq(stat(hs_path, &stt), 0);
	ck_assert_msg((stt.st_mode & 07777) == 0664, "the foreign database's mode is now %04o",
		      stt.st_mode & 07777);
	unlink(hs_path);
	tu_write(hs_path, "not a database at all, and long enough to be read as one\n");
	ck_assert_int_eq(chmod(hs_path, 0604), 0);
	open_fails(true, 0);
	ck_assert_int_eq(stat(hs_path, &stt), 0);
	ck_assert_msg((stt.st_mode & 07777) == 0604, "the garbage's mode is now %04o",
		      stt.st_mode & 07777);
	/* A store proved so gets its mode. */
	unlink(hs_path);
	hist_store_close(open_w());
	ck_assert_int_eq(chmod(hs_path, 0664), 0);
	hist_store_close(open_w());
	ck_assert_int_eq(stat(hs_path, &stt), 0);
	ck_assert_uint_eq(stt.st_mode & 07777, HIST_STORE_MODE);
}
END_TEST

START_TEST(a_newer_schema_is_refused)
{
	hist_store_close(open_w());
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", HIST_SCHEMA_VERSION + 1);
	sql_exec(hs_path, sql);
	const char *msg = open_fails(true, EPROTO);
	ck_assert_msg(strstr(msg, "newer"), "%s", msg);
	msg = open_fails(false, EPROTO);
	ck_assert_msg(strstr(msg, "newer"), "%s", msg);
	snprintf(sql, sizeof(sql), "%d", HIST_SCHEMA_VERSION + 1);
	ck_assert_str_eq(sql1(hs_path, "PRAGMA user_version"), sql);
}
END_TEST

START_TEST(a_symbolic_link_is_refused_its_target_untouched)
{
	char target[PATH_MAX];
	snprintf(target, sizeof(target), "%s/precious", hs_dir);
	tu_put(hs_dir, "precious", "not yours\n");
	ck_assert_int_eq(chmod(target, 0600), 0);
	tu_put(hs_dir, "var/lib/ibvf/.keep", "");
	ck_assert_int_eq(symlink(target, hs_path), 0);
	const char *msg = open_fails(true, ELOOP);
	ck_assert_msg(strstr(msg, "symbolic link"), "%s", msg);
	open_fails(false, ELOOP);
	size_t len;
	char *text = slurp(target, &len);
	ck_assert_str_eq(text, "not yours\n");
	free(text);
	struct stat stt;
	ck_assert_int_eq(stat(target, &stt), 0);
	ck_assert_uint_eq(stt.st_mode & 07777, 0600);
	char side[PATH_MAX + 32];
	snprintf(side, sizeof(side), "%s-wal", target);
	ck_assert_int_eq(file_size(side), -1);
	/* A dangling link: nothing made at its target either. */
	unlink(hs_path);
	unlink(target);
	ck_assert_int_eq(symlink(target, hs_path), 0);
	open_fails(true, ELOOP);
	ck_assert_int_eq(file_size(target), -1);
}
END_TEST

/* In a child: the store's directory read-only, with and without a store. */
static int read_only_dir(void *arg, char *msg, size_t size)
{
	(void)arg;
	if (private_mounts(msg, size) < 0)
		return SKIP;
	if (mount_ro(hs_store_dir, msg, size) < 0)
		return 2;
	struct hist_store *st = NULL;
	struct err e = {{0}};
	int r = hist_store_open(hs_path, true, &st, &e);
	snprintf(msg, size, "%s", e.msg);
	if (r != -EROFS)
		return 3;
	return 0;
}

START_TEST(a_read_only_directory_is_said)
{
	if (!can_mount("the read-only directory case"))
		return;
	tu_put(hs_dir, "var/lib/ibvf/.keep", "");
	for (int i = 0; i < 2; i++) {
		bool with_store = i == 1;
		if (with_store)
			hist_store_close(open_w());
		char msg[1024];
		int rc = in_child(read_only_dir, &with_store, msg, sizeof(msg));
		child_ok(rc, msg, "read-only directory");
		if (rc == SKIP)
			return;
		ck_assert_msg(strstr(msg, hs_path) && strstr(msg, "Read-only file system") &&
				      !strchr(msg, '\n'),
			      "%s", msg);
	}
}
END_TEST

/* In a child: the store on a 256 KiB tmpfs, filled until a write fails. */
static int full_disk(void *arg, char *msg, size_t size)
{
	(void)arg;
	if (private_mounts(msg, size) < 0)
		return SKIP;
	if (mount("tmpfs", hs_store_dir, "tmpfs", 0, "size=256k,mode=0755") < 0) {
		snprintf(msg, size, "cannot mount a tmpfs: %s", strerror(errno));
		return 2;
	}
	struct hist_store *st;
	struct err e = {{0}};
	if (hist_store_open(hs_path, true, &st, &e) < 0) {
		snprintf(msg, size, "%s", e.msg);
		return 3;
	}
	int r = 0, batches = 0;
	for (int k = 0; r == 0 && batches < 10000; batches++) {
		if ((r = hist_store_begin(st, &e)) < 0)
			break;
		for (int i = 0; r == 0 && i < 100; i++, k++) {
			char text[200];
			snprintf(text, sizeof(text), "%0180d", k);
			struct hist_event ev = mk(HK_KMSG, T0 + k, VA2, PFA, text);
			r = hist_store_add(st, &ev, NULL, &e);
		}
		if (r == 0)
			r = hist_store_commit(st, &e);
		else
			hist_store_rollback(st);
	}
	snprintf(msg, size, "%s", e.msg);
	hist_store_close(st);
	if (r != -ENOSPC)
		return 4;
	if (batches < 2) {
		snprintf(msg, size, "full at the first batch: %s", e.msg);
		return 5;
	}
	/* What was committed before is whole. */
	if (strcmp(sql1(hs_path, "PRAGMA integrity_check"), "ok")) {
		snprintf(msg, size, "integrity_check: %s", sql1(hs_path, "PRAGMA integrity_check"));
		return 6;
	}
	char want[32];
	snprintf(want, sizeof(want), "%d", (batches - 1) * 100);
	if (strcmp(sql1(hs_path, "SELECT count(*) FROM events"), want)) {
		snprintf(msg, size, "%s events, not %s",
			 sql1(hs_path, "SELECT count(*) FROM events"), want);
		return 7;
	}
	snprintf(msg, size, "%s", e.msg);
	return 0;
}

START_TEST(a_full_disk_is_said)
{
	if (!can_mount("the full-disk case"))
		return;
	tu_put(hs_dir, "var/lib/ibvf/.keep", "");
	char msg[1024];
	int rc = in_child(full_disk, NULL, msg, sizeof(msg));
	child_ok(rc, msg, "full disk");
	if (rc == SKIP)
		return;
	ck_assert_msg(strstr(msg, hs_path) && strstr(msg, "the disk is full") && !strchr(msg, '\n'),
		      "%s", msg);
}
END_TEST

/* ---- the recorder in memory ---- */

struct rec {
	char *fixture;
	struct sys *s;
	struct node *n;
};

static void rec_open_node(struct rec *x)
{
	x->fixture = tu_mkfixture(NULL);
	struct err e = {{0}};
	ck_assert_msg(sys_open_sim(x->fixture, NULL, &x->s, &e) == 0, "%s", e.msg);
	ck_assert_msg(node_discover(x->s, &x->n, &e) == 0, "%s", e.msg);
}

static void rec_close_node(struct rec *x)
{
	node_free(x->n);
	sys_close(x->s);
	tu_rmtree(x->fixture);
}

/* A finding that opens (and later closes): something for each
 * observation to write. */
static struct findings one_finding(struct finding *f, const char *id)
{
	memset(f, 0, sizeof(*f));
	f->id = id;
	snprintf(f->subject, sizeof(f->subject), "%s", VA2);
	f->title = (char *)"a finding for the test";
	return (struct findings){.v = f, .n = 1};
}

START_TEST(the_recorder_follows_in_memory_until_the_file_can_be_written)
{
	struct rec x;
	rec_open_node(&x);
	tu_put(hs_dir, "var/lib/ibvf/.keep", "");
	sql_exec(hs_path, "PRAGMA application_id=1234; CREATE TABLE t(x)"); /* foreign */
	struct hist_recorder_opts o = {.memory_fallback = true, .path = hs_path};
	struct hist_recorder *r;
	struct err e = {{0}};
	ck_assert_msg(hist_recorder_open(x.s, &o, &r, &e) == 0, "%s", e.msg);
	ck_assert(hist_recorder_in_memory(r));
	const char *note = hist_recorder_note(r);
	ck_assert_ptr_nonnull(note);
	ck_assert_msg(strstr(note, hs_path) && strstr(note, "in memory") && !strchr(note, '\n'),
		      "%s", note);
	ck_assert_ptr_null(hist_recorder_note(r)); /* said once */

	size_t n = 0;
	ck_assert_msg(hist_recorder_observe(r, x.n, NULL, 0, &n, &e) == 0, "%s", e.msg);
	ck_assert_uint_gt(n, 0);
	ck_assert(hist_recorder_in_memory(r));
	struct hist_query starts = {.kinds = 1u << HK_START};
	ck_assert_uint_eq(n_events(hist_recorder_store(r)), n);
	ck_assert_msg(strstr(texts_of(hist_recorder_store(r), &starts), "first record"), "%s",
		      texts_of(hist_recorder_store(r), &starts));

	/* Writable again: not before the retry is due; then moved there. */
	unlink(hs_path);
	struct finding f;
	struct findings fs = one_finding(&f, "test-one");
	ck_assert_int_eq(hist_recorder_observe(r, x.n, &fs, 0, &n, &e), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert(hist_recorder_in_memory(r));
	ck_assert_int_eq(file_size(hs_path), -1);
	size_t in_memory = n_events(hist_recorder_store(r));
	hist_recorder_retry_now(r);
	fs = one_finding(&f, "test-two"); /* one opens, one closes */
	ck_assert_msg(hist_recorder_observe(r, x.n, &fs, 0, &n, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(n, 2);
	ck_assert(!hist_recorder_in_memory(r));
	note = hist_recorder_note(r);
	ck_assert_ptr_nonnull(note);
	ck_assert_msg(strstr(note, "moved"), "%s", note);
	hist_recorder_close(r);

	struct hist_store *st;
	ck_assert_msg(hist_store_open(hs_path, false, &st, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(n_events(st), in_memory + 2);
	ck_assert_msg(strstr(texts_of(st, &starts), "first record"), "%s", texts_of(st, &starts));
	hist_store_close(st);

	/* The next recorder goes on from the state moved there: no new start. */
	o.memory_fallback = false;
	ck_assert_msg(hist_recorder_open(x.s, &o, &r, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(hist_recorder_observe(r, x.n, &fs, 0, &n, &e), 0);
	ck_assert_uint_eq(n, 0);
	hist_recorder_close(r);
	rec_close_node(&x);
}
END_TEST

/* The events of kind in st. */
static size_t n_kind(struct hist_store *st, enum hist_kind kind)
{
	struct hist_query q = {.kinds = 1u << kind};
	size_t n = 0;
	struct err e = {{0}};
	ck_assert_msg(hist_store_query(st, &q, count_one, &n, &e) == 0, "%s", e.msg);
	return n;
}

/* The node again, as it is now on disk. */
static void rec_rediscover(struct rec *x)
{
	struct err e = {{0}};
	node_free(x->n);
	ck_assert_msg(node_discover(x->s, &x->n, &e) == 0, "%s", e.msg);
}

/* Another writer's connection holding the write lock (BEGIN IMMEDIATE). */
static sqlite3 *hold_write_lock(void)
{
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(hs_path, &db), SQLITE_OK);
	char *msg = NULL;
	ck_assert_msg(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &msg) == SQLITE_OK, "%s",
		      msg);
	return db;
}

static void release_write_lock(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql, msg);
	ck_assert_int_eq(sqlite3_close(db), SQLITE_OK);
}

/* `ibvf record`'s case: the file busy past the busy timeout mid-run. The
 * memory store goes on from the file's state (the rename that failed is in
 * it; no second boot, first record, kernel log, journal or finding); a
 * reboot recorded in memory keeps a group of its own when moved back,
 * past the groups another writer added to the file meanwhile. */
START_TEST(a_busy_file_goes_on_in_memory_from_its_state_and_back)
{
	setenv("IBVF_RECORD", "0", 1); /* the rename below records nothing itself */
	struct rec x;
	rec_open_node(&x);
	tu_put(hs_dir, "var/lib/ibvf/.keep", "");
	struct hist_recorder_opts o = {.hold_lock = true, .memory_fallback = true, .path = hs_path};
	struct hist_recorder *r;
	struct err e = {{0}};
	ck_assert_msg(hist_recorder_open(x.s, &o, &r, &e) == 0, "%s", e.msg);
	struct finding f;
	struct findings fs = one_finding(&f, "test-open"); /* open all along */
	ck_assert_msg(hist_recorder_observe(r, x.n, &fs, 0, NULL, &e) == 0, "%s", e.msg);
	ck_assert(!hist_recorder_in_memory(r));
	struct hist_store *st = hist_recorder_store(r);
	size_t kmsg = n_kind(st, HK_KMSG) + n_kind(st, HK_PROBE_FAILED);
	ck_assert_uint_gt(kmsg, 0);
	ck_assert_uint_eq(n_kind(st, HK_BOOT), 1);
	ck_assert_uint_eq(n_kind(st, HK_START), 1);
	ck_assert_uint_eq(n_kind(st, HK_FINDING_OPEN), 1);

	/* A rename (an action in ibvf's journal), then the file busy. */
	ck_assert_int_eq(tu_sim_run(x.fixture, NULL, NULL, "vf", "rename", "18:00.3", "ibbusy",
				    "--yes", NULL),
			 0);
	rec_rediscover(&x);
	sqlite3 *other = hold_write_lock();
	double t0 = mono_s();
	size_t n = 0;
	ck_assert_msg(hist_recorder_observe(r, x.n, &fs, 0, &n, &e) == 0, "%s", e.msg);
	ck_assert_double_ge(mono_s() - t0, HIST_BUSY_MS / 1000.0 * 0.9); /* waited, then gave up */
	ck_assert(hist_recorder_in_memory(r));
	const char *note = hist_recorder_note(r);
	ck_assert_msg(note && strstr(note, "in memory"), "%s", note ? note : "(no note)");
	st = hist_recorder_store(r);
	struct hist_query q = {.kinds = 1u << HK_RENAME};
	struct evs *c = calloc(1, sizeof(*c));
	ck_assert_int_eq(hist_store_query(st, &q, collect, c, &e), 0);
	ck_assert_msg(c->n == 1 && !strcmp(c->v[0].bdf, "0000:18:00.3") &&
			      !strcmp(c->v[0].old, "ib1") && !strcmp(c->v[0].new, "ibbusy"),
		      "%zu renames in memory, the first %s %s -> %s", c->n, c->v[0].bdf,
		      c->v[0].old, c->v[0].new);
	free(c);
	ck_assert_uint_eq(n_kind(st, HK_ACTION), 1);
	ck_assert_uint_eq(n_kind(st, HK_BOOT), 0);
	ck_assert_uint_eq(n_kind(st, HK_START), 0);
	ck_assert_uint_eq(n_kind(st, HK_KMSG) + n_kind(st, HK_PROBE_FAILED), 0);
	ck_assert_uint_eq(n_kind(st, HK_FINDING_OPEN) + n_kind(st, HK_FINDING_CLOSE), 0);
	ck_assert_uint_eq(n_events(st), n);

	/* The node reboots while the recorder is in memory (the retry is not
	 * due yet): the boot's group is the memory's. */
	tu_put(x.fixture, "proc/sys/kernel/random/boot_id",
	       "0b5e55ed-0000-4000-8000-000000000002\n");
	ck_assert_msg(hist_recorder_observe(r, x.n, &fs, 0, NULL, &e) == 0, "%s", e.msg);
	ck_assert(hist_recorder_in_memory(r));
	ck_assert_uint_eq(n_kind(hist_recorder_store(r), HK_BOOT), 1);

	/* The other writer recorded a group of its own before it let go. */
	char sql[512];
	snprintf(
		sql, sizeof(sql),
		"INSERT INTO events (t_us, t_last_us, grp, kind, text) SELECT %lld, %lld, "
		"CAST(value AS INTEGER), 'kmsg', 'the other writer' FROM kv "
		"WHERE key = 'group_next'; "
		"UPDATE kv SET value = CAST(value AS INTEGER) + 5 WHERE key = 'group_next'; COMMIT",
		(long long)hist_now_us(), (long long)hist_now_us());
	release_write_lock(other, sql);
	ck_assert_str_eq(
		sql1(hs_path, "SELECT count(*) FROM events WHERE text = 'the other writer'"), "1");
	int64_t other_group = atoll(sql1(hs_path, "SELECT max(grp) FROM events"));
	hist_recorder_retry_now(r);
	ck_assert_msg(hist_recorder_observe(r, x.n, &fs, 0, NULL, &e) == 0, "%s", e.msg);
	ck_assert(!hist_recorder_in_memory(r));
	hist_recorder_close(r);

	/* The file: each thing once, the change that failed in it. */
	ck_assert_msg(hist_store_open(hs_path, false, &st, &e) == 0, "%s", e.msg);
	/* Starts: the first record, and the second boot's (the boot's group). */
	struct hist_query starts = {.kinds = 1u << HK_START};
	const char *t = texts_of(st, &starts), *first = strstr(t, "first record");
	ck_assert_msg(n_kind(st, HK_START) == 2 && first && !strstr(first + 1, "first record"),
		      "%s", t);
	ck_assert_uint_eq(n_kind(st, HK_BOOT), 2);
	ck_assert_uint_eq(n_kind(st, HK_RENAME), 1);
	ck_assert_uint_eq(n_kind(st, HK_ACTION), 1);
	ck_assert_uint_eq(n_kind(st, HK_FINDING_OPEN), 1);
	ck_assert_uint_eq(n_kind(st, HK_FINDING_CLOSE), 0);
	/* The kernel log: the first boot's once, the second boot's once. */
	ck_assert_uint_eq(n_kind(st, HK_KMSG) + n_kind(st, HK_PROBE_FAILED), 2 * kmsg + 1);
	hist_store_close(st);
	/* Two boots, two groups; the memory's after the other writer's, and
	 * the next group after them all. */
	ck_assert_str_eq(
		sql1(hs_path, "SELECT count(DISTINCT grp) FROM events WHERE kind = 'boot'"), "2");
	int64_t boot2 = atoll(sql1(hs_path, "SELECT max(grp) FROM events WHERE kind = 'boot'"));
	ck_assert_int_gt(boot2, other_group);
	int64_t next = atoll(sql1(hs_path, "SELECT value FROM kv WHERE key = 'group_next'"));
	ck_assert_int_gt(next, atoll(sql1(hs_path, "SELECT max(grp) FROM events")));
	rec_close_node(&x);
	unsetenv("IBVF_RECORD");
}
END_TEST

/* In a child: the recorder on a read-only directory, then writable. */
static int recorder_read_only(void *arg, char *msg, size_t size)
{
	struct rec *x = arg;
	if (private_mounts(msg, size) < 0)
		return SKIP;
	if (mount_ro(hs_store_dir, msg, size) < 0)
		return 2;
	struct hist_recorder_opts o = {.memory_fallback = true, .path = hs_path};
	struct hist_recorder *r;
	struct err e = {{0}};
	if (hist_recorder_open(x->s, &o, &r, &e) < 0) {
		snprintf(msg, size, "%s", e.msg);
		return 3;
	}
	const char *note = hist_recorder_note(r);
	snprintf(msg, size, "%s", note ? note : "(no note)");
	if (!hist_recorder_in_memory(r) || !note || !strstr(note, "Read-only file system") ||
	    !strstr(note, hs_path))
		return 4;
	size_t n = 0;
	if (hist_recorder_observe(r, x->n, NULL, 0, &n, &e) < 0 || n == 0 ||
	    n_events(hist_recorder_store(r)) != n)
		return 5;
	if (umount2(hs_store_dir, 0) < 0) {
		snprintf(msg, size, "umount: %s", strerror(errno));
		return 6;
	}
	hist_recorder_retry_now(r);
	struct finding f;
	struct findings fs = one_finding(&f, "test-one");
	if (hist_recorder_observe(r, x->n, &fs, 0, NULL, &e) < 0 || hist_recorder_in_memory(r))
		return 7;
	hist_recorder_close(r);
	struct hist_store *st;
	if (hist_store_open(hs_path, false, &st, &e) < 0 || n_events(st) != n + 1)
		return 8;
	hist_store_close(st);
	return 0;
}

START_TEST(the_recorder_follows_in_memory_on_a_read_only_directory)
{
	if (!can_mount("the recorder's read-only case"))
		return;
	struct rec x;
	rec_open_node(&x);
	tu_put(hs_dir, "var/lib/ibvf/.keep", "");
	char msg[1024];
	child_ok(in_child(recorder_read_only, &x, msg, sizeof(msg)), msg,
		 "recorder on a read-only directory");
	rec_close_node(&x);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("history_store_bad");
	TCase *tc;
	tc = tcase_create("bad_input");
	tcase_add_checked_fixture(tc, hs_setup, hs_teardown);
	tcase_add_test(tc, garbage_is_refused_untouched);
	tcase_add_test(tc, another_programs_database_is_refused_untouched);
	tcase_add_test(tc, a_refused_file_keeps_its_mode);
	tcase_add_test(tc, a_newer_schema_is_refused);
	tcase_add_test(tc, a_symbolic_link_is_refused_its_target_untouched);
	tcase_add_test(tc, a_read_only_directory_is_said);
	tcase_add_test(tc, a_full_disk_is_said);
	suite_add_tcase(s, tc);

	tc = tcase_create("recorder");
	tcase_add_checked_fixture(tc, hs_setup, hs_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, the_recorder_follows_in_memory_until_the_file_can_be_written);
	tcase_add_test(tc, the_recorder_follows_in_memory_on_a_read_only_directory);
	tcase_add_test(tc, a_busy_file_goes_on_in_memory_from_its_state_and_back);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
