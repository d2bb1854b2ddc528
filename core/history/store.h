/* SPDX-License-Identifier: MIT */
/* The node's recorded history: one SQLite file, /var/lib/ibvf/history.db
 * under the node's root (docs/history.md). WAL mode, so a reader (the
 * console, `ibvf timeline`) never blocks the writer and a killed writer
 * loses at most the transaction it was in; the schema carries SQLite's
 * application_id ("IBVF") and its version in user_version, migrated
 * forward on open. The file is created 0640 without following links (its
 * directory opened link by link, SQLITE_OPEN_NOFOLLOW for the file).
 *
 * Events are indexed by time, by function (PCI address, and its PF) and by
 * pod. Retention: events older than max_age go, and past max_bytes the
 * oldest go until the file fits; a change that repeats on one function
 * (a flapping port) is coalesced into one row with a count after
 * HIST_COALESCE_AFTER rows in HIST_COALESCE_WINDOW. Every string read back
 * is bounded by struct hist_event's fields. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"
#include "event.h"

struct sys;
struct hist_store;

#define HIST_STORE_PATH	     "/var/lib/ibvf/history.db"
#define HIST_SCHEMA_VERSION  1
#define HIST_APPLICATION_ID  0x49425646 /* "IBVF" */
#define HIST_STORE_MODE	     0640
#define HIST_MAX_AGE_DAYS    180
#define HIST_MAX_BYTES	     (64ll << 20)
#define HIST_MIN_BYTES	     (256ll << 10) /* the smallest cap a user may set */
#define HIST_COALESCE_AFTER  6		   /* rows of one change per function per window */
#define HIST_COALESCE_WINDOW (600ll * 1000000)
#define HIST_BUSY_MS	     2000 /* the longest a reader or writer waits for the other */

struct hist_limits {
	int64_t max_age_us; /* 0: HIST_MAX_AGE_DAYS */
	int64_t max_bytes;  /* 0: HIST_MAX_BYTES */
};

/* The store's path under s's root into buf. */
void hist_store_path(struct sys *s, char buf[static PATH_MAX]);

/* Opens the store at path (absolute). With write, its directory and the
 * file are made when missing and the schema migrated; without, -ENOENT
 * (unsaid) when there is none. Each failure is one line naming the file:
 * not a SQLite database, another program's database, a newer schema, a
 * symbolic link, a read-only directory, a full disk. */
int hist_store_open(const char *path, bool write, struct hist_store **ret, struct err *e);
/* A store in memory, for a recorder whose file cannot be written. */
int hist_store_open_memory(struct hist_store **ret, struct err *e);
void hist_store_close(struct hist_store *st);
bool hist_store_in_memory(const struct hist_store *st);
const char *hist_store_name(const struct hist_store *st);
/* The longest st waits for a lock the other side holds (HIST_BUSY_MS on
 * open); a reader in a draw loop sets a short one and tries again later. */
void hist_store_busy_ms(struct hist_store *st, int ms);
/* Copies every event and the saved state of from into st (a file store
 * taking over from the memory one): 0 or -errno (said). */
int hist_store_copy(struct hist_store *st, struct hist_store *from, struct err *e);

/* Copies only the saved state (each function's, the recorder's cursors)
 * of from into st: a memory store taking over from a failing file goes on
 * from where the file was, and records the change that failed. */
int hist_store_copy_state(struct hist_store *st, struct hist_store *from, struct err *e);

/* A transaction around a batch of adds: one commit, one fsync. */
int hist_store_begin(struct hist_store *st, struct err *e);
int hist_store_commit(struct hist_store *st, struct err *e);
void hist_store_rollback(struct hist_store *st);

/* Adds ev (sets ev->id), or folds it into the newest row of the same kind
 * on the same function when that change repeats (count, last time, new
 * value): then ev->id is that row's and *ret_coalesced (may be NULL) true. */
int hist_store_add(struct hist_store *st, struct hist_event *ev, bool *ret_coalesced,
		   struct err *e);
/* A new group id for events recorded as one difference. */
int64_t hist_store_new_group(struct hist_store *st);

/* Drops what retention says (age, then size): 0 or -errno. *ret_dropped
 * (may be NULL) the events dropped. */
int hist_store_retain(struct hist_store *st, const struct hist_limits *l, size_t *ret_dropped,
		      struct err *e);
/* The bytes the store takes (pages in use). */
int64_t hist_store_bytes(struct hist_store *st);

#define HIST_QUERY_DEVS_MAX 64

struct hist_query {
	int64_t since_us, until_us; /* 0: open */
	const char
		*devs[HIST_QUERY_DEVS_MAX]; /* PCI addresses: the function, or a PF and its VFs */
	size_t n_devs;
	const char *pods[HIST_QUERY_DEVS_MAX]; /* namespace/name: its events and its VFs' */
	size_t n_pods;
	uint32_t kinds;	  /* 1u << enum hist_kind; 0: every kind */
	int64_t after_id; /* only events with a larger id (--follow) */
	size_t limit;	  /* the newest limit events (0: all), still given oldest first */
};

/* Calls fn with each matching event, oldest first (by time, then id); fn
 * returning non-zero stops the walk (that value returned). */
int hist_store_query(struct hist_store *st, const struct hist_query *q,
		     int (*fn)(void *arg, const struct hist_event *ev), void *arg, struct err *e);

#define HIST_CAUSE_WINDOW (120ll * 1000000) /* how far back a cause is looked for */
#define HIST_CAUSES_MAX	  3

/* The nearest events before ev (within HIST_CAUSE_WINDOW) that may explain
 * it: on the same function or PF, or naming the same netdev name, or the
 * boot it happened in; newest first. */
int hist_store_causes(struct hist_store *st, const struct hist_event *ev,
		      struct hist_event ret[static HIST_CAUSES_MAX], size_t *ret_n, struct err *e);

/* Sums of count by function for kind since since_us; since 0: every
 * change since the store began, retention's dropped rows too (counters for
 * Prometheus, never lower). fn(arg, bdf, pf, sum). */
int hist_store_sums(struct hist_store *st, enum hist_kind kind, int64_t since_us,
		    void (*fn)(void *arg, const char *bdf, const char *pf, int64_t sum), void *arg,
		    struct err *e);

/* The recorder's last state: small values by key, and one JSON text per
 * function. A missing key gives -ENOENT. */
int hist_store_kv_get(struct hist_store *st, const char *key, char *buf, size_t size);
int hist_store_kv_put(struct hist_store *st, const char *key, const char *value, struct err *e);
int hist_store_fn_put(struct hist_store *st, const char *bdf, const char *json, struct err *e);
int hist_store_fn_del(struct hist_store *st, const char *bdf, struct err *e);
int hist_store_fn_each(struct hist_store *st,
		       void (*fn)(void *arg, const char *bdf, const char *json), void *arg,
		       struct err *e);

/* ev as JSON (hist_event_to_json()) with, for an effect
 * (hist_kind_wants_cause()), "causes": [{"gap_s", "event"}] from
 * hist_store_causes(). NULL on a read error (said). */
struct json_object *hist_store_event_json(struct hist_store *st, const struct hist_event *ev,
					  bool causes, struct err *e);
