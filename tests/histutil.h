/* SPDX-License-Identifier: MIT */
/* Helpers of the history store's suites (test_history_store.c,
 * test_history_store_bad.c): a store path in a fresh directory for each
 * test, events made and read back, SQLite asked directly, and forked
 * children that mount in a private mount namespace. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/history/store.h"

#define T0   1700000000000000ll /* a fixed wall clock for the query tests */
#define SEC  1000000ll
#define PFA  "0000:18:00.0"
#define VA2  "0000:18:00.2"
#define VA3  "0000:18:00.3"
#define PFB  "0000:3b:00.0"
#define VB2  "0000:3b:00.2"
#define SKIP 77 /* a child's exit: no private mount namespace here */
#define MiB  (1ll << 20)

/* Set by hs_setup() for each test: a fresh directory, the store's
 * directory under it (DIR/var/lib/ibvf, not made) and the store's path. */
extern char *hs_dir;
extern char hs_store_dir[PATH_MAX - 32], hs_path[PATH_MAX];

void hs_setup(void);
void hs_teardown(void);
double mono_s(void);
/* The store at hs_path for writing; aborts the test on failure. */
struct hist_store *open_w(void);
struct hist_event mk(enum hist_kind kind, int64_t t_us, const char *bdf, const char *pf,
		     const char *text);
/* Adds ev (aborting on failure): its id. */
int64_t add(struct hist_store *st, struct hist_event ev);

struct evs {
	struct hist_event v[64];
	size_t n;
	char texts[1024]; /* each event's text, space-separated */
};

/* A hist_store_query() callback filling a struct evs. */
int collect(void *arg, const struct hist_event *ev);
/* The texts of the events q finds, oldest first (a static buffer). */
const char *texts_of(struct hist_store *st, const struct hist_query *q);
/* A hist_store_query() callback counting into a size_t. */
int count_one(void *arg, const struct hist_event *ev);
size_t n_events(struct hist_store *st);
/* One value a SQL statement gives, on its own connection to file (or
 * "<error>"), in a static buffer. */
const char *sql1(const char *file, const char *sql);
void sql_exec(const char *file, const char *sql);
/* The file's size, -1 when there is none. */
off_t file_size(const char *file);
/* A file's bytes (malloc'd, NUL-terminated) for comparing before and after. */
char *slurp(const char *file, size_t *ret_len);
/* The error hist_store_open gives on hs_path (the call must fail, with
 * -want if want is non-zero): one line naming the file. */
const char *open_fails(bool write, int want);
/* Runs fn in a forked child; its message (at most size) in msg; the
 * child's exit status. The child never uses Check's assertions. */
int in_child(int (*fn)(void *arg, char *msg, size_t size), void *arg, char *msg, size_t size);
/* In a child: its own mount namespace, so what it mounts goes with it. */
int private_mounts(char *msg, size_t size);
int mount_ro(const char *d, char *msg, size_t size);
/* Whether the mounting cases can run: as root only (chmod stops no root);
 * says why not on stderr. */
bool can_mount(const char *what);
/* Asserts a child's success (or says it skipped). */
void child_ok(int rc, const char *msg, const char *what);
