// SPDX-License-Identifier: MIT
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/safefile.h"
#include "core/sys/sys.h"

#define CAUSE_WALKS 5

struct hist_store {
	sqlite3 *db;
	char name[PATH_MAX]; /* the path, or ":memory:" */
	bool memory;
	sqlite3_stmt *ins, *co_find, *co_upd, *tot;
	sqlite3_stmt *walks[CAUSE_WALKS]; /* hist_store_causes(), prepared once */
};

/* Each schema version's statements; migrate() runs those past the file's
 * user_version in one transaction. */
static const char *const migrations[HIST_SCHEMA_VERSION] = {
	/* 1 */
	"CREATE TABLE events ("
	" id INTEGER PRIMARY KEY,"
	" t_us INTEGER NOT NULL,"
	" t_last_us INTEGER NOT NULL,"
	" count INTEGER NOT NULL DEFAULT 1,"
	" grp INTEGER NOT NULL DEFAULT 0,"
	" kind TEXT NOT NULL,"
	" boot TEXT NOT NULL DEFAULT '',"
	" bdf TEXT NOT NULL DEFAULT '',"
	" pf TEXT NOT NULL DEFAULT '',"
	" name TEXT NOT NULL DEFAULT '',"
	" old TEXT NOT NULL DEFAULT '',"
	" new TEXT NOT NULL DEFAULT '',"
	" pod TEXT NOT NULL DEFAULT '',"
	" pod_uid TEXT NOT NULL DEFAULT '',"
	" ref TEXT NOT NULL DEFAULT '',"
	" text TEXT NOT NULL DEFAULT '');"
	"CREATE INDEX events_time ON events(t_us);"
	"CREATE INDEX events_last ON events(t_last_us);"
	"CREATE INDEX events_name ON events(name, t_us) WHERE name != '';"
	"CREATE INDEX events_fn ON events(bdf, t_us);"
	"CREATE INDEX events_pf ON events(pf, t_us);"
	"CREATE INDEX events_pod ON events(pod, t_us) WHERE pod != '';"
	"CREATE INDEX events_repeat ON events(bdf, kind, t_last_us);"
	"CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
	"CREATE TABLE fnstate (bdf TEXT PRIMARY KEY, json TEXT NOT NULL) WITHOUT ROWID;"
	/* Changes counted per function and kind since the store began: what
	 * retention drops stays counted (Prometheus counters never go down). */
	"CREATE TABLE totals (bdf TEXT NOT NULL, kind TEXT NOT NULL, pf TEXT NOT NULL, "
	"n INTEGER NOT NULL, PRIMARY KEY (bdf, kind)) WITHOUT ROWID;",
};

static int db_err(struct hist_store *st, struct err *e, int rc, const char *what)
{
	int code = rc & 0xff;
	int errnum = code == SQLITE_FULL	 ? ENOSPC
		     : code == SQLITE_READONLY	 ? EROFS
		     : code == SQLITE_NOMEM	 ? ENOMEM
		     : code == SQLITE_BUSY	 ? EBUSY
		     : code == SQLITE_CORRUPT	 ? EBADMSG
		     : code == SQLITE_NOTADB	 ? EBADMSG
		     : code == SQLITE_CANTOPEN	 ? EACCES
		     : code == SQLITE_PERM	 ? EPERM
		     : code == SQLITE_IOERR	 ? EIO
		     : code == SQLITE_CONSTRAINT ? EINVAL
						 : EIO;
	const char *msg = st && st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);
	if (code == SQLITE_FULL)
		msg = "the disk is full";
	return err_setx(e, errnum, "cannot %s the history store '%s': %s", what,
			st ? st->name : "?", msg);
}

static int exec(struct hist_store *st, const char *sql, const char *what, struct err *e)
{
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : db_err(st, e, rc, what);
}

static int pragma_int(struct hist_store *st, const char *sql, int64_t *ret)
{
	sqlite3_stmt *q;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &q, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*ret = sqlite3_column_int64(q, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(q);
	return rc;
}

/* Brings the schema to HIST_SCHEMA_VERSION; refuses a foreign file or a
 * newer schema. */
static int migrate(struct hist_store *st, bool write, struct err *e)
{
	int64_t app = 0, ver = 0, tables = 0;
	int rc = pragma_int(st, "PRAGMA application_id", &app);
	if (rc == SQLITE_OK)
		rc = pragma_int(st, "PRAGMA user_version", &ver);
	if (rc == SQLITE_OK)
		rc = pragma_int(st, "SELECT count(*) FROM sqlite_master", &tables);
	if (rc != SQLITE_OK)
		return db_err(st, e, rc, "read");
	if (app != HIST_APPLICATION_ID && (app != 0 || tables != 0))
		return err_setx(e, EINVAL,
				"'%s' is not an ibvf history store (another program's SQLite "
				"database, application_id 0x%llx): move it away",
				st->name, (unsigned long long)app);
	if (ver > HIST_SCHEMA_VERSION)
		return err_setx(e, EPROTO,
				"the history store '%s' was written by a newer ibvf (schema %lld; "
				"this one reads up to %d)",
				st->name, (long long)ver, HIST_SCHEMA_VERSION);
	/* A writer makes the file WAL (which stays in the file), only now: a
	 * file refused above is left as it was. auto_vacuum takes effect only
	 * before the first table. */
	if (write && !st->memory) {
		int r = exec(st,
			     "PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=WAL; "
			     "PRAGMA synchronous=NORMAL; PRAGMA journal_size_limit=4194304",
			     "configure", e);
		if (r < 0)
			return r;
	}
	if (ver == HIST_SCHEMA_VERSION)
		return 0;
	if (!write)
		return err_setx(e, EPROTO,
				"the history store '%s' has schema %lld: run 'ibvf record' once to "
				"bring it to %d",
				st->name, (long long)ver, HIST_SCHEMA_VERSION);
	int r = exec(st, "BEGIN IMMEDIATE", "migrate", e);
	if (r < 0)
		return r;
	/* Another writer may have migrated it between the read above and the
	 * lock: the version again, under it. */
	if (pragma_int(st, "PRAGMA user_version", &ver) != SQLITE_OK ||
	    ver >= HIST_SCHEMA_VERSION) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return 0;
	}
	for (int64_t v = ver; v < HIST_SCHEMA_VERSION && r == 0; v++)
		r = exec(st, migrations[v], "migrate", e);
	char sql[96];
	snprintf(sql, sizeof(sql), "PRAGMA application_id=%d; PRAGMA user_version=%d",
		 HIST_APPLICATION_ID, HIST_SCHEMA_VERSION);
	if (r == 0)
		r = exec(st, sql, "migrate", e);
	if (r == 0)
		return exec(st, "COMMIT", "migrate", e);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

static int prepare(struct hist_store *st, struct err *e)
{
	static const char ins[] =
		"INSERT INTO events (t_us, t_last_us, count, grp, kind, boot, bdf, pf, name, "
		"old, new, pod, pod_uid, ref, text) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	static const char co_find[] =
		"SELECT count(*), max(id), max(count) FROM events "
		"WHERE bdf = ?1 AND kind = ?2 AND t_last_us >= ?3 AND ref = ?4";
	static const char tot[] = "INSERT INTO totals (bdf, kind, pf, n) VALUES (?1, ?2, ?3, ?4) "
				  "ON CONFLICT (bdf, kind) DO UPDATE SET n = n + ?4";
	static const char co_upd[] = "UPDATE events SET count = count + 1, t_last_us = ?2, "
				     "new = ?3 WHERE id = ?1";
	int rc = sqlite3_prepare_v3(st->db, ins, -1, SQLITE_PREPARE_PERSISTENT, &st->ins, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v3(st->db, co_find, -1, SQLITE_PREPARE_PERSISTENT,
					&st->co_find, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v3(st->db, co_upd, -1, SQLITE_PREPARE_PERSISTENT, &st->co_upd,
					NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v3(st->db, tot, -1, SQLITE_PREPARE_PERSISTENT, &st->tot, NULL);
	return rc == SQLITE_OK ? 0 : db_err(st, e, rc, "prepare");
}

/* Counts n more changes of kind on a function in its totals. */
static int total_add(struct hist_store *st, const char *bdf, const char *kind, const char *pf,
		     int64_t n, struct err *e)
{
	if (!bdf[0])
		return 0;
	sqlite3_stmt *q = st->tot;
	sqlite3_bind_text(q, 1, bdf, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, pf, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, n);
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : db_err(st, e, rc, "write");
}

/* Pragmas every connection sets (a writer's, once the file is known to be
 * a store: migrate()). */
static int configure(struct hist_store *st, struct err *e)
{
	sqlite3_busy_timeout(st->db, HIST_BUSY_MS);
	sqlite3_extended_result_codes(st->db, 1);
	/* Strings from the node are data: no SQL function of a store may load
	 * code, and a damaged file is never trusted further than it checks. */
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	/* Pages stay in memory across the queries of one read: a timeline asks
	 * again for each effect's causes. */
	return exec(st, "PRAGMA cell_size_check=ON; PRAGMA cache_size=-16384", "configure", e);
}

/* Whether the SQLite header of the file fd says it is an ibvf store. */
static bool is_our_store(int fd)
{
	unsigned char h[100];
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h, "SQLite format 3", 16))
		return false;
	uint32_t app = (uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71];
	return app == HIST_APPLICATION_ID;
}

/* Makes the file 0640 without following a link, when it is missing. */
static int create_file(const char *path, struct err *e)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return err_setx(e, EINVAL, "'%s' is not a path of a file in a directory", path);
	*slash = '\0';
	int dfd, r = safefile_dir(dir, true, &dfd, e);
	if (r < 0)
		return r;
	int fd = openat(dfd, slash + 1, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
			HIST_STORE_MODE);
	int errnum = errno;
	if (fd < 0) {
		close(dfd);
		if (errnum == ELOOP)
			return err_setx(e, ELOOP,
					"the history store '%s' is a symbolic link: ibvf does not "
					"follow links where it writes",
					path);
		return err_set(e, errnum, "cannot create the history store '%s'", path);
	}
	struct stat stt;
	r = 0;
	if (fstat(fd, &stt) < 0 || !S_ISREG(stt.st_mode))
		r = err_setx(e, EINVAL, "the history store '%s' is not a regular file", path);
	/* 0640 for a new file (whatever the umask) and for a store of ours
	 * (its header's application_id), never for a file that is another
	 * program's. Here, before SQLite opens it: closing a descriptor of the
	 * file later would drop SQLite's POSIX locks on it, and another
	 * process could then take the WAL away from under this one. */
	else if ((stt.st_mode & 07777) != HIST_STORE_MODE &&
		 (stt.st_size == 0 || is_our_store(fd)) && fchmod(fd, HIST_STORE_MODE) < 0)
		r = err_set(e, errno, "cannot set the mode of the history store '%s'", path);
	close(fd);
	close(dfd);
	return r;
}

static int open_db(struct hist_store *st, int flags, struct err *e)
{
	int rc = sqlite3_open_v2(st->name, &st->db,
				 flags | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		int r = (rc & 0xff) == SQLITE_CANTOPEN && (rc == SQLITE_CANTOPEN_SYMLINK)
				? err_setx(e, ELOOP,
					   "the history store '%s' is a symbolic link: ibvf does "
					   "not follow links",
					   st->name)
				: db_err(st, e, rc, "open");
		return r;
	}
	return 0;
}

int hist_store_open(const char *path, bool write, struct hist_store **ret, struct err *e)
{
	struct hist_store *st = calloc(1, sizeof(*st));
	if (!st)
		return err_setx(e, ENOMEM, "out of memory");
	snprintf(st->name, sizeof(st->name), "%s", path);
	int r;
	struct stat lst;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		r = err_setx(
			e, ELOOP,
			"the history store '%s' is a symbolic link: ibvf does not follow links",
			path);
		goto fail;
	}
	if (!write && lstat(path, &lst) < 0) {
		r = errno == ENOENT ? -ENOENT
				    : err_set(e, errno, "cannot open the history store '%s'", path);
		goto fail;
	}
	if (write && (r = create_file(path, e)) < 0)
		goto fail;
	if ((r = open_db(st, write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY, e)) < 0)
		goto fail;
	if ((r = configure(st, e)) < 0 || (r = migrate(st, write, e)) < 0)
		goto fail;
	if (write && (r = prepare(st, e)) < 0)
		goto fail;
	*ret = st;
	return 0;
fail:
	hist_store_close(st);
	return r;
}

int hist_store_open_memory(struct hist_store **ret, struct err *e)
{
	struct hist_store *st = calloc(1, sizeof(*st));
	if (!st)
		return err_setx(e, ENOMEM, "out of memory");
	snprintf(st->name, sizeof(st->name), ":memory:");
	st->memory = true;
	int r = open_db(st, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY, e);
	if (r == 0)
		r = configure(st, e);
	if (r == 0)
		r = migrate(st, true, e);
	if (r == 0)
		r = prepare(st, e);
	if (r < 0) {
		hist_store_close(st);
		return r;
	}
	*ret = st;
	return 0;
}

void hist_store_close(struct hist_store *st)
{
	if (!st)
		return;
	sqlite3_finalize(st->ins);
	sqlite3_finalize(st->co_find);
	sqlite3_finalize(st->co_upd);
	sqlite3_finalize(st->tot);
	for (int w = 0; w < CAUSE_WALKS; w++)
		sqlite3_finalize(st->walks[w]);
	sqlite3_close(st->db);
	free(st);
}

bool hist_store_in_memory(const struct hist_store *st)
{
	return st->memory;
}

const char *hist_store_name(const struct hist_store *st)
{
	return st->name;
}

void hist_store_busy_ms(struct hist_store *st, int ms)
{
	sqlite3_busy_timeout(st->db, ms);
}

void hist_store_path(struct sys *s, char buf[static PATH_MAX])
{
	const char *root = sys_root(s);
	snprintf(buf, PATH_MAX, "%s%s", strcmp(root, "/") ? root : "", HIST_STORE_PATH);
}

int hist_store_begin(struct hist_store *st, struct err *e)
{
	return exec(st, "BEGIN IMMEDIATE", "write", e);
}

int hist_store_commit(struct hist_store *st, struct err *e)
{
	int r = exec(st, "COMMIT", "write", e);
	if (r < 0)
		hist_store_rollback(st);
	return r;
}

void hist_store_rollback(struct hist_store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Kinds that are recorded each time, never folded: a boot, an action, a
 * result, a kernel-log line (each its own text). */
static bool coalesces(enum hist_kind k)
{
	return k != HK_BOOT && k != HK_START && k != HK_ACTION && k != HK_BENCH && k != HK_KMSG &&
	       k != HK_PROBE_FAILED;
}

static int step_done(struct hist_store *st, sqlite3_stmt *q, struct err *e)
{
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : db_err(st, e, rc, "write");
}

int hist_store_add(struct hist_store *st, struct hist_event *ev, bool *ret_coalesced, struct err *e)
{
	const char *kind = hist_kind_to_string(ev->kind);
	if (!kind)
		return err_setx(e, EINVAL, "an event of no kind (%d)", (int)ev->kind);
	if (ev->t_last_us < ev->t_us)
		ev->t_last_us = ev->t_us;
	if (ev->count < 1)
		ev->count = 1;
	if (ret_coalesced)
		*ret_coalesced = false;
	if (coalesces(ev->kind) && ev->bdf[0]) {
		sqlite3_stmt *q = st->co_find;
		sqlite3_bind_text(q, 1, ev->bdf, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 3, ev->t_us - HIST_COALESCE_WINDOW);
		/* One check's finding, one RDMA device's name: their own runs. */
		sqlite3_bind_text(q, 4, ev->ref, -1, SQLITE_STATIC);
		int rc = sqlite3_step(q);
		int64_t n = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
		int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(q, 1) : 0;
		/* A run folded already goes on folding while it lasts: a port
		 * flapping for a month is one row, not six every ten minutes. */
		bool folded = rc == SQLITE_ROW && sqlite3_column_int64(q, 2) > 1;
		sqlite3_reset(q);
		if (rc != SQLITE_ROW)
			return db_err(st, e, rc, "read");
		if ((n >= HIST_COALESCE_AFTER || folded) && id > 0) {
			q = st->co_upd;
			sqlite3_bind_int64(q, 1, id);
			sqlite3_bind_int64(q, 2, ev->t_us);
			sqlite3_bind_text(q, 3, ev->new, -1, SQLITE_STATIC);
			int r = step_done(st, q, e);
			if (r == 0)
				r = total_add(st, ev->bdf, kind, ev->pf, 1, e);
			if (r == 0) {
				ev->id = id;
				if (ret_coalesced)
					*ret_coalesced = true;
			}
			return r;
		}
	}
	sqlite3_stmt *q = st->ins;
	sqlite3_bind_int64(q, 1, ev->t_us);
	sqlite3_bind_int64(q, 2, ev->t_last_us);
	sqlite3_bind_int64(q, 3, ev->count);
	sqlite3_bind_int64(q, 4, ev->group);
	sqlite3_bind_text(q, 5, kind, -1, SQLITE_STATIC);
	const char *texts[] = {ev->boot, ev->bdf, ev->pf,      ev->name, ev->old,
			       ev->new,	 ev->pod, ev->pod_uid, ev->ref,	 ev->text};
	for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++)
		sqlite3_bind_text(q, 6 + (int)i, texts[i], -1, SQLITE_STATIC);
	int r = step_done(st, q, e);
	if (r == 0)
		ev->id = sqlite3_last_insert_rowid(st->db);
	if (r == 0)
		r = total_add(st, ev->bdf, kind, ev->pf, ev->count, e);
	return r;
}

int64_t hist_store_new_group(struct hist_store *st)
{
	/* The counter lives beside the events (no scan of them), in the
	 * caller's transaction. */
	char buf[32];
	int64_t g = 1;
	if (hist_store_kv_get(st, "group_next", buf, sizeof(buf)) == 0)
		g = strtoll(buf, NULL, 10);
	if (g < 1)
		g = 1;
	snprintf(buf, sizeof(buf), "%lld", (long long)g + 1);
	hist_store_kv_put(st, "group_next", buf, NULL);
	return g;
}

int64_t hist_store_bytes(struct hist_store *st)
{
	int64_t pages = 0, free_pages = 0, size = 0;
	pragma_int(st, "PRAGMA page_count", &pages);
	pragma_int(st, "PRAGMA freelist_count", &free_pages);
	pragma_int(st, "PRAGMA page_size", &size);
	return (pages - free_pages) * size;
}

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int hist_store_retain(struct hist_store *st, const struct hist_limits *l, size_t *ret_dropped,
		      struct err *e)
{
	int64_t age = l && l->max_age_us > 0 ? l->max_age_us
					     : (int64_t)HIST_MAX_AGE_DAYS * 86400 * 1000000;
	int64_t cap = l && l->max_bytes > 0 ? l->max_bytes : HIST_MAX_BYTES;
	size_t dropped = 0;
	char sql[160];
	snprintf(sql, sizeof(sql), "DELETE FROM events WHERE t_last_us < %lld",
		 (long long)(now_us() - age));
	int r = exec(st, sql, "trim", e);
	if (r < 0)
		return r;
	dropped += (size_t)sqlite3_changes(st->db);
	/* Past the cap: the oldest tenth at a time, until it fits. */
	for (int round = 0; r == 0 && hist_store_bytes(st) > cap && round < 64; round++) {
		int64_t n = 0;
		pragma_int(st, "SELECT count(*) FROM events", &n);
		if (n == 0)
			break;
		snprintf(sql, sizeof(sql),
			 "DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY t_us, id "
			 "LIMIT %lld)",
			 (long long)(n / 10 + 1));
		r = exec(st, sql, "trim", e);
		dropped += (size_t)sqlite3_changes(st->db);
	}
	if (r == 0 && !st->memory && dropped)
		r = exec(st, "PRAGMA incremental_vacuum", "trim", e);
	if (r == 0 && ret_dropped)
		*ret_dropped = dropped;
	return r;
}

static void col_text(sqlite3_stmt *q, int col, char *buf, size_t size)
{
	const unsigned char *t = sqlite3_column_text(q, col);
	hist_set(buf, size, t ? (const char *)t : "");
}

#define EVENT_COLS                                                                                 \
	"id, t_us, t_last_us, count, grp, kind, boot, bdf, pf, name, old, new, pod, pod_uid, "     \
	"ref, text"

static void row_event(sqlite3_stmt *q, struct hist_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->id = sqlite3_column_int64(q, 0);
	ev->t_us = sqlite3_column_int64(q, 1);
	ev->t_last_us = sqlite3_column_int64(q, 2);
	ev->count = sqlite3_column_int64(q, 3);
	ev->group = sqlite3_column_int64(q, 4);
	const unsigned char *k = sqlite3_column_text(q, 5);
	int kind = hist_kind_from_string((const char *)k);
	ev->kind = kind < 0 ? HK_KMSG : (enum hist_kind)kind; /* a newer kind reads as a note */
	col_text(q, 6, ev->boot, sizeof(ev->boot));
	col_text(q, 7, ev->bdf, sizeof(ev->bdf));
	col_text(q, 8, ev->pf, sizeof(ev->pf));
	col_text(q, 9, ev->name, sizeof(ev->name));
	col_text(q, 10, ev->old, sizeof(ev->old));
	col_text(q, 11, ev->new, sizeof(ev->new));
	col_text(q, 12, ev->pod, sizeof(ev->pod));
	col_text(q, 13, ev->pod_uid, sizeof(ev->pod_uid));
	col_text(q, 14, ev->ref, sizeof(ev->ref));
	col_text(q, 15, ev->text, sizeof(ev->text));
}

/* Appends a SQL fragment; -E2BIG past the buffer. */
static int sql_add(char *sql, size_t size, size_t *len, const char *s)
{
	size_t n = strlen(s);
	if (*len + n + 1 > size)
		return -E2BIG;
	memcpy(sql + *len, s, n + 1);
	*len += n;
	return 0;
}

int hist_store_query(struct hist_store *st, const struct hist_query *q,
		     int (*fn)(void *arg, const struct hist_event *ev), void *arg, struct err *e)
{
	char sql[8192];
	size_t len = 0;
	int r = 0;
	if (q->n_devs > HIST_QUERY_DEVS_MAX || q->n_pods > HIST_QUERY_DEVS_MAX)
		return err_setx(e, E2BIG, "at most %d devices and pods a query",
				HIST_QUERY_DEVS_MAX);
	r |= sql_add(sql, sizeof(sql), &len, "SELECT " EVENT_COLS " FROM events WHERE 1");
	if (q->since_us)
		r |= sql_add(sql, sizeof(sql), &len, " AND t_last_us >= :since");
	if (q->until_us)
		r |= sql_add(sql, sizeof(sql), &len, " AND t_us <= :until");
	if (q->after_id)
		r |= sql_add(sql, sizeof(sql), &len, " AND id > :after");
	if (q->kinds) {
		r |= sql_add(sql, sizeof(sql), &len, " AND kind IN (''");
		for (int k = 0; k < HK__N; k++)
			if (q->kinds & (1u << k)) {
				char one[40];
				snprintf(one, sizeof(one), ",'%s'", hist_kind_to_string(k));
				r |= sql_add(sql, sizeof(sql), &len, one);
			}
		r |= sql_add(sql, sizeof(sql), &len, ")");
	}
	if (q->n_devs || q->n_pods) {
		/* The rows by their indexes (function, PF, pod), not a walk of
		 * the time index over the whole store. */
		r |= sql_add(sql, sizeof(sql), &len, " AND id IN (SELECT -1");
		for (size_t i = 0; i < q->n_devs; i++) {
			char one[192];
			snprintf(one, sizeof(one),
				 " UNION ALL SELECT id FROM events WHERE bdf = ?%zu"
				 " UNION ALL SELECT id FROM events WHERE pf = ?%zu",
				 100 + i, 100 + i);
			r |= sql_add(sql, sizeof(sql), &len, one);
		}
		for (size_t i = 0; i < q->n_pods; i++) {
			char one[256];
			snprintf(one, sizeof(one),
				 " UNION ALL SELECT id FROM events WHERE pod = ?%zu"
				 " UNION ALL SELECT id FROM events WHERE bdf IN (SELECT bdf FROM "
				 "events WHERE pod = ?%zu AND bdf != '')",
				 200 + i, 200 + i);
			r |= sql_add(sql, sizeof(sql), &len, one);
		}
		r |= sql_add(sql, sizeof(sql), &len, ")");
	}
	if (q->limit) {
		char lim[160];
		snprintf(lim, sizeof(lim),
			 " ORDER BY t_us DESC, id DESC LIMIT %zu) ORDER BY t_us, id", q->limit);
		char inner[sizeof(sql)];
		snprintf(inner, sizeof(inner), "%s", sql);
		len = 0;
		r |= sql_add(sql, sizeof(sql), &len, "SELECT * FROM (");
		r |= sql_add(sql, sizeof(sql), &len, inner);
		r |= sql_add(sql, sizeof(sql), &len, lim);
	} else {
		r |= sql_add(sql, sizeof(sql), &len, " ORDER BY t_us, id");
	}
	if (r)
		return err_setx(e, E2BIG, "the history query is too long");
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return db_err(st, e, rc, "query");
	int i;
	if ((i = sqlite3_bind_parameter_index(s, ":since")))
		sqlite3_bind_int64(s, i, q->since_us);
	if ((i = sqlite3_bind_parameter_index(s, ":until")))
		sqlite3_bind_int64(s, i, q->until_us);
	if ((i = sqlite3_bind_parameter_index(s, ":after")))
		sqlite3_bind_int64(s, i, q->after_id);
	for (size_t k = 0; k < q->n_devs; k++)
		sqlite3_bind_text(s, 100 + (int)k, q->devs[k], -1, SQLITE_STATIC);
	for (size_t k = 0; k < q->n_pods; k++)
		sqlite3_bind_text(s, 200 + (int)k, q->pods[k], -1, SQLITE_STATIC);
	struct hist_event ev;
	r = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		row_event(s, &ev);
		if ((r = fn(arg, &ev)) != 0)
			break;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = db_err(st, e, rc, "read");
	sqlite3_finalize(s);
	return r;
}

/* How strongly a candidate is tied to the effect: its own function first,
 * then a netdev name they share, then its PF, then the boot. */
static int cause_rank(const struct hist_event *ev, const struct hist_event *c)
{
	const char *name = ev->kind == HK_RENAME ? ev->new : ev->name;
	if (c->bdf[0] && !strcmp(c->bdf, ev->bdf))
		return 0;
	if (name[0] && (!strcmp(c->name, name) || !strcmp(c->old, name) || !strcmp(c->new, name)))
		return 1;
	if (ev->kind == HK_RENAME && ev->old[0] &&
	    (!strcmp(c->old, ev->old) || !strcmp(c->new, ev->old)))
		return 1;
	if (c->pf[0] && !strcmp(c->pf, ev->pf[0] ? ev->pf : ev->bdf))
		return 2;
	return 3;
}

#define CAUSE_CANDIDATES 8 /* per tie: three are shown */

static int newest_first(const void *a, const void *b)
{
	const struct hist_event *x = a, *y = b;
	if (x->t_us != y->t_us)
		return x->t_us > y->t_us ? -1 : 1;
	return x->id > y->id ? -1 : x->id < y->id;
}
#define CAUSE_BEFORE                                                                               \
	" t_us >= ?2 - ?6 AND (t_us < ?2 OR (t_us = ?2 AND id < ?1)) AND kind NOT IN "             \
	"('start', 'finding-open', 'finding-close', 'bench') AND (kind != 'kmsg' OR ref = "        \
	"'error')"
#define CAUSE_WALK(cond)                                                                           \
	"SELECT " EVENT_COLS " FROM events WHERE " cond " AND" CAUSE_BEFORE                        \
	" ORDER BY t_us DESC, id DESC LIMIT ?9"

/* The ties, closest first, each a walk of its own index back from the
 * event: its function, a netdev name it shares (the new name, then the
 * old), its PF, its boot. */
static const char *const cause_walks[CAUSE_WALKS] = {
	CAUSE_WALK("bdf = ?3 AND bdf != ''"),
	CAUSE_WALK("name = ?5 AND name != ''"),
	CAUSE_WALK("name = ?7 AND name != ''"),
	CAUSE_WALK("pf = ?4 AND pf != ''"),
	"SELECT " EVENT_COLS " FROM events WHERE bdf = '' AND kind = 'boot' AND boot = ?8 AND "
	"t_last_us >= ?2 - ?6 AND t_us <= ?2 ORDER BY t_us DESC LIMIT 1", /* binds past ?8: unused
									   */
};

int hist_store_causes(struct hist_store *st, const struct hist_event *ev,
		      struct hist_event ret[static HIST_CAUSES_MAX], size_t *ret_n, struct err *e)
{
	/* The names involved: a rename's new name was someone's before. */
	const char *name = ev->kind == HK_RENAME ? ev->new : ev->name;
	const char *other = ev->kind == HK_RENAME ? ev->old : "";
	struct hist_event cand[CAUSE_CANDIDATES * CAUSE_WALKS];
	size_t n = 0;
	/* A walk stops the search once the closer ties gave enough: in a busy
	 * store the function's own walk usually does. */
	for (int w = 0; w < CAUSE_WALKS && n < HIST_CAUSES_MAX; w++) {
		int rc = SQLITE_OK;
		if (!st->walks[w])
			rc = sqlite3_prepare_v3(st->db, cause_walks[w], -1,
						SQLITE_PREPARE_PERSISTENT, &st->walks[w], NULL);
		if (rc != SQLITE_OK)
			return db_err(st, e, rc, "query");
		sqlite3_stmt *q = st->walks[w];
		sqlite3_bind_int64(q, 1, ev->id);
		sqlite3_bind_int64(q, 2, ev->t_us);
		sqlite3_bind_text(q, 3, ev->bdf, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 4, ev->pf[0] ? ev->pf : ev->bdf, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 5, name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 6, HIST_CAUSE_WINDOW);
		sqlite3_bind_text(q, 7, other, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 8, ev->boot, -1, SQLITE_STATIC);
		sqlite3_bind_int(q, 9, CAUSE_CANDIDATES);
		size_t got = 0;
		while (got < CAUSE_CANDIDATES && (rc = sqlite3_step(q)) == SQLITE_ROW) {
			struct hist_event c;
			row_event(q, &c);
			bool dup = false;
			for (size_t i = 0; i < n && !dup; i++)
				dup = cand[i].id == c.id;
			if (!dup)
				cand[n++] = c;
			got++;
		}
		sqlite3_reset(q);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return db_err(st, e, rc, "read");
	}
	/* Chosen by the closest ties (each newest first), shown nearest first. */
	size_t k = 0;
	for (int rank = 0; rank <= 3 && k < HIST_CAUSES_MAX; rank++)
		for (size_t i = 0; i < n && k < HIST_CAUSES_MAX; i++)
			if (cause_rank(ev, &cand[i]) == rank)
				ret[k++] = cand[i];
	qsort(ret, k, sizeof(*ret), newest_first);
	*ret_n = k;
	return 0;
}

int hist_store_sums(struct hist_store *st, enum hist_kind kind, int64_t since_us,
		    void (*fn)(void *arg, const char *bdf, const char *pf, int64_t sum), void *arg,
		    struct err *e)
{
	sqlite3_stmt *q;
	/* Since ever: the totals, which retention never lowers. */
	int rc = sqlite3_prepare_v2(
		st->db,
		since_us ? "SELECT bdf, max(pf), sum(count) FROM events WHERE kind = ?1 "
			   "AND t_last_us >= ?2 AND bdf != '' GROUP BY bdf ORDER BY bdf"
			 : "SELECT bdf, pf, n FROM totals WHERE kind = ?1 AND ?2 = 0 ORDER BY bdf",
		-1, &q, NULL);
	if (rc != SQLITE_OK)
		return db_err(st, e, rc, "query");
	sqlite3_bind_text(q, 1, hist_kind_to_string(kind), -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, since_us);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		char bdf[16], pf[16];
		col_text(q, 0, bdf, sizeof(bdf));
		col_text(q, 1, pf, sizeof(pf));
		fn(arg, bdf, pf, sqlite3_column_int64(q, 2));
	}
	int r = rc == SQLITE_DONE ? 0 : db_err(st, e, rc, "read");
	sqlite3_finalize(q);
	return r;
}

int hist_store_kv_get(struct hist_store *st, const char *key, char *buf, size_t size)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(st->db, "SELECT value FROM kv WHERE key = ?1", -1, &q, NULL) !=
	    SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q), r = -ENOENT;
	if (rc == SQLITE_ROW) {
		col_text(q, 0, buf, size);
		r = 0;
	} else if (rc != SQLITE_DONE) {
		r = -EIO;
	}
	sqlite3_finalize(q);
	return r;
}

static int put2(struct hist_store *st, const char *sql, const char *a, const char *b, struct err *e)
{
	sqlite3_stmt *q;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &q, NULL);
	if (rc != SQLITE_OK)
		return db_err(st, e, rc, "write");
	sqlite3_bind_text(q, 1, a, -1, SQLITE_STATIC);
	if (b)
		sqlite3_bind_text(q, 2, b, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : db_err(st, e, rc, "write");
}

int hist_store_kv_put(struct hist_store *st, const char *key, const char *value, struct err *e)
{
	return put2(st, "INSERT OR REPLACE INTO kv (key, value) VALUES (?1, ?2)", key, value, e);
}

int hist_store_fn_put(struct hist_store *st, const char *bdf, const char *json, struct err *e)
{
	return put2(st, "INSERT OR REPLACE INTO fnstate (bdf, json) VALUES (?1, ?2)", bdf, json, e);
}

int hist_store_fn_del(struct hist_store *st, const char *bdf, struct err *e)
{
	return put2(st, "DELETE FROM fnstate WHERE bdf = ?1", bdf, NULL, e);
}

int hist_store_fn_each(struct hist_store *st,
		       void (*fn)(void *arg, const char *bdf, const char *json), void *arg,
		       struct err *e)
{
	sqlite3_stmt *q;
	int rc = sqlite3_prepare_v2(st->db, "SELECT bdf, json FROM fnstate ORDER BY bdf", -1, &q,
				    NULL);
	if (rc != SQLITE_OK)
		return db_err(st, e, rc, "read");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		char bdf[16];
		col_text(q, 0, bdf, sizeof(bdf));
		const unsigned char *j = sqlite3_column_text(q, 1);
		fn(arg, bdf, j ? (const char *)j : "");
	}
	int r = rc == SQLITE_DONE ? 0 : db_err(st, e, rc, "read");
	sqlite3_finalize(q);
	return r;
}

struct copy_arg {
	struct hist_store *to;
	int64_t group_base; /* the file's groups before the copy: the memory's go after */
	struct err *e;
};

static int copy_one(void *arg, const struct hist_event *ev)
{
	struct copy_arg *a = arg;
	struct hist_event c = *ev;
	/* As recorded: inserted, never folded again. */
	sqlite3_stmt *q = a->to->ins;
	sqlite3_bind_int64(q, 1, c.t_us);
	sqlite3_bind_int64(q, 2, c.t_last_us);
	sqlite3_bind_int64(q, 3, c.count);
	sqlite3_bind_int64(q, 4, c.group ? c.group + a->group_base : 0);
	sqlite3_bind_text(q, 5, hist_kind_to_string(c.kind), -1, SQLITE_STATIC);
	const char *texts[] = {c.boot, c.bdf, c.pf,	 c.name, c.old,
			       c.new,  c.pod, c.pod_uid, c.ref,	 c.text};
	for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++)
		sqlite3_bind_text(q, 6 + (int)i, texts[i], -1, SQLITE_TRANSIENT);
	int r = step_done(a->to, q, a->e);
	return r < 0 ? r
		     : total_add(a->to, c.bdf, hist_kind_to_string(c.kind), c.pf, c.count, a->e);
}

/* The saved state of from into st, in st's transaction: each function's
 * (replacing st's) and the keys, group_next moved by group_base. */
static int copy_state(struct hist_store *st, struct hist_store *from, int64_t group_base,
		      struct err *e)
{
	int r = exec(st, "DELETE FROM fnstate", "write", e);
	sqlite3_stmt *q = NULL;
	if (r == 0 && sqlite3_prepare_v2(from->db, "SELECT bdf, json FROM fnstate", -1, &q, NULL) !=
			      SQLITE_OK)
		return db_err(from, e, sqlite3_errcode(from->db), "read");
	while (r == 0 && sqlite3_step(q) == SQLITE_ROW)
		r = hist_store_fn_put(st, (const char *)sqlite3_column_text(q, 0),
				      (const char *)sqlite3_column_text(q, 1), e);
	sqlite3_finalize(q);
	if (r == 0 &&
	    sqlite3_prepare_v2(from->db, "SELECT key, value FROM kv", -1, &q, NULL) != SQLITE_OK)
		return db_err(from, e, sqlite3_errcode(from->db), "read");
	while (r == 0 && sqlite3_step(q) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(q, 0),
			   *v = (const char *)sqlite3_column_text(q, 1);
		char buf[32];
		if (!strcmp(k, "group_next"))
			snprintf(buf, sizeof(buf), "%lld",
				 (long long)(group_base + strtoll(v, NULL, 10)));
		r = hist_store_kv_put(st, k, strcmp(k, "group_next") ? v : buf, e);
	}
	sqlite3_finalize(q);
	return r;
}

int hist_store_copy(struct hist_store *st, struct hist_store *from, struct err *e)
{
	/* The memory store's rows are added here, in order: ids are new, and
	 * its groups come after the file's. Its state is the newest. */
	struct hist_query all = {0};
	char buf[32];
	struct copy_arg a = {.to = st, .e = e};
	int r = hist_store_begin(st, e);
	if (r < 0)
		return r;
	if (hist_store_kv_get(st, "group_next", buf, sizeof(buf)) == 0)
		a.group_base = strtoll(buf, NULL, 10) - 1;
	if (a.group_base < 0)
		a.group_base = 0;
	r = hist_store_query(from, &all, copy_one, &a, e);
	if (r == 0)
		r = copy_state(st, from, a.group_base, e);
	if (r < 0) {
		hist_store_rollback(st);
		return r;
	}
	return hist_store_commit(st, e);
}

int hist_store_copy_state(struct hist_store *st, struct hist_store *from, struct err *e)
{
	int r = hist_store_begin(st, e);
	if (r == 0)
		r = copy_state(st, from, 0, e);
	if (r < 0) {
		hist_store_rollback(st);
		return r;
	}
	return hist_store_commit(st, e);
}

struct json_object *hist_store_event_json(struct hist_store *st, const struct hist_event *ev,
					  bool causes, struct err *e)
{
	struct json_object *o = hist_event_to_json(ev);
	if (!causes || !hist_kind_wants_cause(ev->kind))
		return o;
	struct hist_event c[HIST_CAUSES_MAX];
	size_t n = 0;
	if (hist_store_causes(st, ev, c, &n, e) < 0) {
		json_object_put(o);
		return NULL;
	}
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		struct json_object *one = json_object_new_object();
		json_object_object_add(
			one, "gap_s", json_object_new_double((double)(ev->t_us - c[i].t_us) / 1e6));
		json_object_object_add(one, "event", hist_event_to_json(&c[i]));
		json_object_array_add(a, one);
	}
	json_object_object_add(o, "causes", a);
	return o;
}
