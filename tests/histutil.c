// SPDX-License-Identifier: MIT
/* Helpers of the history store's suites (histutil.h). */
#include "histutil.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

char *hs_dir;
char hs_store_dir[PATH_MAX - 32], hs_path[PATH_MAX];

void hs_setup(void)
{
	char tmpl[] = "/tmp/ibvf-hstore-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	hs_dir = strdup(tmpl);
	snprintf(hs_store_dir, sizeof(hs_store_dir), "%s/var/lib/ibvf", hs_dir);
	snprintf(hs_path, sizeof(hs_path), "%s/history.db", hs_store_dir);
}

void hs_teardown(void)
{
	tu_rmtree(hs_dir);
}

double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct hist_store *open_w(void)
{
	struct hist_store *st = NULL;
	struct err e = {{0}};
	ck_assert_msg(hist_store_open(hs_path, true, &st, &e) == 0, "%s", e.msg);
	return st;
}

struct hist_event mk(enum hist_kind kind, int64_t t_us, const char *bdf, const char *pf,
		     const char *text)
{
	struct hist_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.t_us = ev.t_last_us = t_us;
	ev.count = 1;
	HIST_SET(ev.bdf, bdf);
	HIST_SET(ev.pf, pf);
	HIST_SET(ev.text, text);
	return ev;
}

int64_t add(struct hist_store *st, struct hist_event ev)
{
	struct err e = {{0}};
	ck_assert_msg(hist_store_add(st, &ev, NULL, &e) == 0, "%s", e.msg);
	return ev.id;
}

int collect(void *arg, const struct hist_event *ev)
{
	struct evs *c = arg;
	if (c->n < sizeof(c->v) / sizeof(*c->v))
		c->v[c->n] = *ev;
	c->n++;
	size_t len = strlen(c->texts);
	snprintf(c->texts + len, sizeof(c->texts) - len, "%s%s", len ? " " : "", ev->text);
	return 0;
}

/* The texts of the events q finds, oldest first. */
const char *texts_of(struct hist_store *st, const struct hist_query *q)
{
	static struct evs c;
	memset(&c, 0, sizeof(c));
	struct err e = {{0}};
	ck_assert_msg(hist_store_query(st, q, collect, &c, &e) == 0, "%s", e.msg);
	return c.texts;
}

int count_one(void *arg, const struct hist_event *ev)
{
	(void)ev;
	++*(size_t *)arg;
	return 0;
}

size_t n_events(struct hist_store *st)
{
	struct hist_query all = {0};
	size_t n = 0;
	struct err e = {{0}};
	ck_assert_msg(hist_store_query(st, &all, count_one, &n, &e) == 0, "%s", e.msg);
	return n;
}

/* One value a SQL statement gives, on its own connection to hs_path (or
 * "<error>"), in a static buffer. */
const char *sql1(const char *file, const char *sql)
{
	static char buf[256];
	sqlite3 *db;
	sqlite3_stmt *q;
	snprintf(buf, sizeof(buf), "<error>");
	if (sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW)
			snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(q, 0));
		sqlite3_finalize(q);
	}
	sqlite3_close(db);
	return buf;
}

void sql_exec(const char *file, const char *sql)
{
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(file, &db), SQLITE_OK);
	char *msg = NULL;
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql, msg);
	sqlite3_close(db);
}

off_t file_size(const char *file)
{
	struct stat stt;
	return stat(file, &stt) == 0 ? stt.st_size : -1;
}

/* A file's bytes (malloc'd, NUL-terminated) for comparing before and after. */
char *slurp(const char *file, size_t *ret_len)
{
	FILE *f = fopen(file, "rbe");
	ck_assert_ptr_nonnull(f);
	char *buf = malloc(1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	*ret_len = n;
	return buf;
}

/* The error hist_store_open gives (the call must fail with want, if
 * non-zero): one line naming the file. */
const char *open_fails(bool write, int want)
{
	static struct err e;
	memset(&e, 0, sizeof(e));
	struct hist_store *st = NULL;
	int r = hist_store_open(hs_path, write, &st, &e);
	ck_assert_msg(r < 0, "opening '%s' (write %d) succeeded", hs_path, write);
	ck_assert_ptr_null(st);
	if (want)
		ck_assert_msg(r == -want, "%d (%s), not -%d", r, e.msg, want);
	ck_assert_msg(strstr(e.msg, hs_path), "the error does not name the file: %s", e.msg);
	ck_assert_msg(!strchr(e.msg, '\n'), "more than one line: %s", e.msg);
	return e.msg;
}

/* Runs fn in a forked child; its message (at most size) in msg; the
 * child's exit status. The child never uses Check's assertions. */
int in_child(int (*fn)(void *arg, char *msg, size_t size), void *arg, char *msg, size_t size)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		char buf[1024] = "";
		int rc = fn(arg, buf, sizeof(buf));
		ssize_t w = write(p[1], buf, strlen(buf));
		(void)w;
		_exit(rc);
	}
	close(p[1]);
	size_t len = 0;
	ssize_t n;
	while (len + 1 < size && (n = read(p[0], msg + len, size - 1 - len)) > 0)
		len += (size_t)n;
	msg[len] = '\0';
	close(p[0]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* In a child: its own mount namespace, so what it mounts goes with it. */
int private_mounts(char *msg, size_t size)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		snprintf(msg, size, "no private mount namespace: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int mount_ro(const char *d, char *msg, size_t size)
{
	if (mount(d, d, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, d, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0) {
		snprintf(msg, size, "cannot bind '%s' read-only: %s", d, strerror(errno));
		return -1;
	}
	return 0;
}

/* Whether the mounting cases can run: as root only (chmod stops no root). */
bool can_mount(const char *what)
{
	if (geteuid() == 0)
		return true;
	fprintf(stderr,
		"skipped: %s needs root (a read-only bind mount or a tmpfs in a private "
		"mount namespace)\n",
		what);
	return false;
}

void child_ok(int rc, const char *msg, const char *what)
{
	if (rc == SKIP) {
		fprintf(stderr, "skipped: %s: %s\n", what, msg);
		return;
	}
	ck_assert_msg(rc == 0, "%s: step %d: %s", what, rc, msg);
}
