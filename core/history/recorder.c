// SPDX-License-Identifier: MIT
#include "recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/history.h"
#include "core/actions/journal.h"
#include "core/actions/lock.h"
#include "core/snapshot/kmsg.h"
#include "core/sys/sys.h"
#include "state.h"

#define BENCH_READ_MAX	 (1u << 20) /* bench history bytes read per observation */
#define FINDINGS_KEY_MAX 4096	    /* open findings remembered */

struct hist_recorder {
	struct sys *s;
	struct hist_recorder_opts o;
	char path[PATH_MAX], lock_path[PATH_MAX];
	struct hist_store *st;
	int lock_fd; /* held for the recorder's life with hold_lock */
	bool started;
	int64_t retry_at;
	char note[640];
	bool note_new;
	/* The state recorded last; kept between observations only while
	 * this recorder is the one writer (hold_lock). */
	bool cached;
	struct hist_state state;
	/* The journal as the last committed observation read it: unchanged,
	 * it is not parsed again. */
	bool journal_known;
	struct timespec journal_mtime;
	off_t journal_size;
};

int64_t hist_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void hist_boot_id(struct sys *s, char buf[static HIST_BOOT_MAX])
{
	if (sys_read_attr(s, "/proc/sys/kernel/random/boot_id", buf, HIST_BOOT_MAX) <= 0)
		buf[0] = '\0';
}

int64_t hist_boot_wall_us(struct sys *s)
{
	/* The running node: realtime minus the time since boot, to the
	 * microsecond. A simulated or captured one: its /proc/stat btime. */
	if (!sys_is_sim(s) && !strcmp(sys_root(s), "/")) {
		struct timespec rt, mono;
		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_MONOTONIC, &mono);
		return ((int64_t)rt.tv_sec - mono.tv_sec) * 1000000 +
		       (rt.tv_nsec - mono.tv_nsec) / 1000;
	}
	char buf[4096];
	if (sys_read(s, "/proc/stat", buf, sizeof(buf)) > 0) {
		const char *b = strstr(buf, "\nbtime ");
		const char *num = !strncmp(buf, "btime ", 6) ? buf + 6 : b ? b + 7 : NULL;
		if (num) {
			long long v = strtoll(num, NULL, 10);
			if (v > 0 && v < (1ll << 40))
				return v * 1000000;
		}
	}
	return 0;
}

static void note(struct hist_recorder *r, const char *fmt, const char *msg)
{
	char buf[sizeof(r->note)];
	snprintf(buf, sizeof(buf), fmt, msg);
	if (strcmp(buf, r->note)) {
		snprintf(r->note, sizeof(r->note), "%s", buf);
		r->note_new = true;
	}
}

const char *hist_recorder_note(struct hist_recorder *r)
{
	if (!r->note_new)
		return NULL;
	r->note_new = false;
	return r->note;
}

bool hist_recorder_in_memory(const struct hist_recorder *r)
{
	return hist_store_in_memory(r->st);
}

void hist_recorder_retry_now(struct hist_recorder *r)
{
	r->retry_at = 0;
}

struct hist_store *hist_recorder_store(struct hist_recorder *r)
{
	return r->st;
}

static void lock_path(struct sys *s, char buf[static PATH_MAX])
{
	const char *root = sys_root(s);
	snprintf(buf, PATH_MAX, "%s%s", strcmp(root, "/") ? root : "", HIST_LOCK_PATH);
}

int hist_writer_running(struct sys *s)
{
	char path[PATH_MAX];
	lock_path(s, path);
	struct stat st;
	if (stat(path, &st) < 0)
		return 0;
	int fd;
	pid_t pid = 0;
	int r = lock_file_try(path, &fd, &pid, NULL);
	if (r == -EWOULDBLOCK)
		return 1;
	if (r < 0)
		return r;
	node_lock_release(fd);
	return 0;
}

static int to_memory(struct hist_recorder *r, const char *why, struct err *e)
{
	struct hist_store *m;
	int rc = hist_store_open_memory(&m, e);
	if (rc < 0)
		return rc;
	/* From the file's last state and cursors, when it can still be read:
	 * no "first record", no kernel log, journal or findings again, and the
	 * change that failed is recorded in memory. */
	bool copied = false;
	if (r->st) {
		struct err ce = {{0}};
		copied = hist_store_copy_state(m, r->st, &ce) == 0;
	}
	hist_store_close(r->st);
	r->st = m;
	hist_state_fini(&r->state); /* the cached state is the old store's */
	r->cached = false;
	r->journal_known = false;
	/* Going on from the file's state, the recorder did not start again:
	 * no second "recorder started". */
	r->started = r->started && copied;
	r->retry_at = hist_now_us() + (int64_t)HIST_RETRY_SECS * 1000000;
	note(r, "%s; recording in memory until it can be written", why);
	return 0;
}

int hist_recorder_open(struct sys *s, const struct hist_recorder_opts *o,
		       struct hist_recorder **ret, struct err *e)
{
	struct hist_recorder *r = calloc(1, sizeof(*r));
	if (!r)
		return err_setx(e, ENOMEM, "out of memory");
	r->s = s;
	r->o = *o;
	r->lock_fd = -1;
	if (o->path)
		snprintf(r->path, sizeof(r->path), "%s", o->path);
	else
		hist_store_path(s, r->path);
	r->o.path = NULL;
	lock_path(s, r->lock_path);
	int rc;
	if (o->hold_lock) {
		pid_t pid = 0;
		rc = lock_file_try(r->lock_path, &r->lock_fd, &pid, e);
		if (rc == -EWOULDBLOCK)
			rc = err_setx(e, EBUSY,
				      "another ibvf (pid %d) is recording this node's history "
				      "('%s' is locked)",
				      (int)pid, r->lock_path);
		if (rc < 0)
			goto fail;
	}
	rc = hist_store_open(r->path, true, &r->st, e);
	if (rc < 0 && o->memory_fallback) {
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		rc = to_memory(r, why, e);
	}
	if (rc < 0)
		goto fail;
	*ret = r;
	return 0;
fail:
	hist_recorder_close(r);
	return rc;
}

void hist_recorder_close(struct hist_recorder *r)
{
	if (!r)
		return;
	hist_store_close(r->st);
	hist_state_fini(&r->state);
	node_lock_release(r->lock_fd);
	free(r);
}

/* ---- the parts of one observation ---- */

struct obs {
	struct hist_recorder *r;
	const struct node *n;
	int64_t t_us, group;
	char boot[HIST_BOOT_MAX];
	size_t n_events;
	bool journal_seen; /* the journal's size and time as read, for after the commit */
	off_t journal_size;
	struct timespec journal_mtime;
	struct err *e;
};

static int add(struct obs *ob, struct hist_event *ev)
{
	if (!ev->boot[0])
		HIST_SET(ev->boot, ob->boot);
	int rc = hist_store_add(ob->r->st, ev, NULL, ob->e);
	if (rc == 0)
		ob->n_events++;
	return rc;
}

static int add_cb(void *arg, struct hist_event *ev)
{
	return add(arg, ev);
}

static void ev_init(struct obs *ob, struct hist_event *ev, enum hist_kind kind, int64_t t_us)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->t_us = ev->t_last_us = t_us ? t_us : ob->t_us;
	ev->count = 1;
	ev->group = ob->group;
	HIST_SET(ev->boot, ob->boot);
}

/* The stored state into st. */
static void load_fn(void *arg, const char *bdf, const char *json)
{
	struct hist_state *st = arg;
	struct hist_fn f;
	if (hist_fn_from_json(bdf, json, &f) == 0)
		hist_state_add(st, &f);
}

static int state_load(struct hist_recorder *r, struct hist_state *ret, struct err *e)
{
	struct hist_state st = {0};
	int rc = hist_store_fn_each(r->st, load_fn, &st, e);
	if (rc < 0) {
		hist_state_fini(&st);
		return rc;
	}
	hist_state_sort(&st);
	*ret = st;
	return 0;
}

/* Saves the functions that changed from old to new. */
static int state_save(struct hist_recorder *r, const struct hist_state *old,
		      const struct hist_state *new, struct err *e)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < new->n; i++) {
		const struct hist_fn *f = &new->fns[i], *was = hist_state_find(old, f->bdf);
		if (was && !hist_fn_cmp(was, f))
			continue;
		char *j = hist_fn_to_json(f);
		rc = j ? hist_store_fn_put(r->st, f->bdf, j, e)
		       : err_setx(e, ENOMEM, "out of memory");
		free(j);
	}
	for (size_t i = 0; rc == 0 && i < old->n; i++)
		if (!hist_state_find(new, old->fns[i].bdf))
			rc = hist_store_fn_del(r->st, old->fns[i].bdf, e);
	return rc;
}

static int64_t kv_int(struct hist_store *st, const char *key, int64_t dflt)
{
	char buf[32];
	return hist_store_kv_get(st, key, buf, sizeof(buf)) == 0 ? strtoll(buf, NULL, 10) : dflt;
}

static int kv_put_int(struct hist_store *st, const char *key, int64_t v, struct err *e)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	return hist_store_kv_put(st, key, buf, e);
}

/* The distinct firmware versions of the PFs, for the boot event. */
static void firmware_of(const struct node *n, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct rdma *rd = fn_rdma(&n->pfs[i].fn);
		if (!rd || !rd->fw_ver || strstr(buf, rd->fw_ver))
			continue;
		int w = snprintf(buf + len, size - len, "%s%s", len ? " " : "", rd->fw_ver);
		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
	}
}

static int record_boot(struct obs *ob)
{
	struct hist_event ev;
	int64_t boot_at = hist_boot_wall_us(ob->r->s);
	ev_init(ob, &ev, HK_BOOT, boot_at > 0 && boot_at <= ob->t_us ? boot_at : ob->t_us);
	char fw[128];
	firmware_of(ob->n, fw, sizeof(fw));
	HIST_SET(ev.new, ob->boot);
	HIST_SET(ev.ref, ob->n->kernel ? ob->n->kernel : "");
	snprintf(ev.text, sizeof(ev.text), "kernel %s, driver %s, firmware %s",
		 ob->n->kernel ? ob->n->kernel : "?",
		 ob->n->driver_version ? ob->n->driver_version : "(in-tree)", fw[0] ? fw : "?");
	return add(ob, &ev);
}

/* "mlx5_core 0000:18:00.2: ..." -> "0000:18:00.2"; "" when none. */
static void bdf_in(const char *msg, char out[static 16])
{
	out[0] = '\0';
	for (const char *p = msg; *p; p++) {
		unsigned int d, b, s, f;
		int len = 0;
		if (sscanf(p, "%4x:%2x:%2x.%1x%n", &d, &b, &s, &f, &len) == 4 && len == 12 &&
		    p[4] == ':' && p[7] == ':' && p[10] == '.') {
			snprintf(out, 16, "%04x:%02x:%02x.%x", d, b, s, f);
			return;
		}
	}
}

static int record_kmsg(struct obs *ob, bool new_boot)
{
	struct hist_recorder *r = ob->r;
	char *text = NULL;
	size_t len = 0;
	if (sys_read_kmsg(r->s, 1u << 20, &text, &len) < 0)
		return 0; /* no kernel log here (a container): nothing to record */
	struct node scratch;
	memset(&scratch, 0, sizeof(scratch));
	kmsg_parse(&scratch, text, len);
	free(text);
	int64_t last = new_boot ? -1 : kv_int(r->st, "kmsg_last", -1), newest = last;
	int64_t boot_at = hist_boot_wall_us(r->s);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < scratch.n_kmsg; i++) {
		const struct kmsg_line *k = &scratch.kmsg[i];
		if (!k->ts_usec.known || k->ts_usec.v <= last)
			continue;
		struct hist_event ev;
		int64_t t = boot_at > 0 ? boot_at + k->ts_usec.v : ob->t_us;
		bool probe = k->error && strstr(k->msg, "probe");
		ev_init(ob, &ev, probe ? HK_PROBE_FAILED : HK_KMSG, t);
		ev.group = 0;
		bdf_in(k->msg, ev.bdf);
		const struct pf *pf;
		const struct vf *vf;
		if (ev.bdf[0] && node_find_fn(ob->n, ev.bdf, &pf, &vf))
			HIST_SET(ev.pf, pf->fn.bdf);
		snprintf(ev.ref, sizeof(ev.ref), "%s", k->error ? "error" : "");
		HIST_SET(ev.text, k->msg);
		rc = add(ob, &ev);
		if (k->ts_usec.v > newest)
			newest = k->ts_usec.v;
	}
	for (size_t i = 0; i < scratch.n_kmsg; i++)
		free(scratch.kmsg[i].msg);
	free(scratch.kmsg);
	if (rc == 0 && newest != last)
		rc = kv_put_int(r->st, "kmsg_last", newest, ob->e);
	return rc;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

static int64_t jint(struct json_object *o, const char *k, int64_t dflt)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_int)
		       ? json_object_get_int64(v)
		       : dflt;
}

/* ibvf's journal: each finished entry past the last recorded id. */
static int record_journal(struct obs *ob)
{
	struct hist_recorder *r = ob->r;
	char path[PATH_MAX];
	const char *root = sys_root(r->s);
	snprintf(path, sizeof(path), "%s%s", strcmp(root, "/") ? root : "", JOURNAL_PATH);
	struct stat st;
	if (stat(path, &st) < 0)
		return 0;
	ob->journal_size = st.st_size;
	ob->journal_mtime = st.st_mtim;
	ob->journal_seen = true;
	if (r->journal_known && st.st_size == r->journal_size &&
	    st.st_mtim.tv_sec == r->journal_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == r->journal_mtime.tv_nsec)
		return 0;
	struct json_object *entries;
	struct err je = {{0}};
	if (journal_read(r->s, &entries, NULL, &je) < 0)
		return 0; /* the journal's own readers say what is wrong with it */
	int64_t last = kv_int(r->st, "journal_last", 0), newest = last;
	size_t n = json_object_array_length(entries);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct json_object *o = json_object_array_get_idx(entries, i);
		int64_t id = jint(o, "id", 0);
		const char *rec = jstr(o, "record");
		/* A plan in progress is recorded when it ends (or when a later
		 * one shows it never will). */
		if (id <= last || (rec && i + 1 == n))
			continue;
		struct hist_event ev;
		int64_t t = hist_time_parse(jstr(o, "time"));
		ev_init(ob, &ev, HK_ACTION, t > 0 ? t : ob->t_us);
		ev.group = 0;
		const char *subject = jstr(o, "subject"), *action = jstr(o, "action");
		const char *result = rec ? "interrupted" : jstr(o, "result");
		char bdf[16];
		/* A plan's subject is a function, or the node (persist: its host). */
		if (subject && node_bdf_normalize(subject, false, bdf)) {
			const struct pf *pf;
			const struct vf *vf;
			HIST_SET(ev.bdf, bdf);
			if (node_find_fn(ob->n, bdf, &pf, &vf))
				HIST_SET(ev.pf, pf->fn.bdf);
		}
		snprintf(ev.ref, sizeof(ev.ref), "journal %lld", (long long)id);
		HIST_SET(ev.old, action ? action : "");
		HIST_SET(ev.new, result ? result : "");
		snprintf(ev.text, sizeof(ev.text), "%s: %s (%s, by %s)", action ? action : "?",
			 jstr(o, "summary") ? jstr(o, "summary") : "", result ? result : "?",
			 jstr(o, "user") ? jstr(o, "user") : "?");
		rc = add(ob, &ev);
		if (id > newest)
			newest = id;
	}
	json_object_put(entries);
	if (rc == 0 && newest != last)
		rc = kv_put_int(r->st, "journal_last", newest, ob->e);
	return rc;
}

/* The newest bench line recorded: its time and how many lines of that
 * time (the history's times are whole seconds: many lines share one). */
struct bench_mark {
	int64_t t;
	int64_t n;
};

/* One bench history line; after->t > 0 (the file was replaced): a line
 * older than after, or one of the first after->n lines of its time, was
 * recorded before. *newest follows what is recorded. */
static int bench_line(struct obs *ob, const char *line, struct bench_mark *after,
		      struct bench_mark *newest)
{
	struct json_object *o = json_tokener_parse(line), *key;
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return 0;
	}
	struct hist_event ev;
	int64_t t = hist_time_parse(jstr(o, "time"));
	if (after->t > 0 && t > 0 && (t < after->t || (t == after->t && after->n-- > 0))) {
		json_object_put(o);
		return 0;
	}
	if (t > newest->t)
		*newest = (struct bench_mark){t, 1};
	else if (t == newest->t)
		newest->n++;
	ev_init(ob, &ev, HK_BENCH, t > 0 ? t : ob->t_us);
	ev.group = 0;
	const char *bdf = jstr(o, "bdf");
	char norm[16];
	if (bdf && node_bdf_normalize(bdf, false, norm))
		HIST_SET(ev.bdf, norm);
	const char *test = NULL, *peer = NULL;
	if (json_object_object_get_ex(o, "key", &key)) {
		test = jstr(key, "test");
		peer = jstr(key, "peer");
		if (jstr(key, "pf") && node_bdf_normalize(jstr(key, "pf"), false, norm))
			HIST_SET(ev.pf, norm);
	}
	HIST_SET(ev.ref, test ? test : "");
	HIST_SET(ev.new, jstr(o, "status") ? jstr(o, "status") : "");
	struct json_object *fig;
	double figure =
		json_object_object_get_ex(o, "figure", &fig) ? json_object_get_double(fig) : 0;
	snprintf(ev.text, sizeof(ev.text), "%s %s %.2f %s against %s", test ? test : "?", ev.new,
		 figure, jstr(o, "unit") ? jstr(o, "unit") : "", peer ? peer : "?");
	json_object_put(o);
	return add(ob, &ev);
}

/* The bench history's lines past the offset recorded last (the file
 * replaced or cut: from its last BENCH_READ_MAX bytes, and only the lines
 * newer than the newest recorded: a rotation (bench/history.h) rewrites
 * the lines it keeps into a new file). */
static int record_bench(struct obs *ob)
{
	struct hist_recorder *r = ob->r;
	char path[PATH_MAX], pos[64];
	bench_history_path(sys_root(r->s), path, sizeof(path));
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	unsigned long long ino = 0, off = 0;
	struct bench_mark newest = {0}, after = {0};
	char mark[64];
	if (hist_store_kv_get(r->st, "bench_last", mark, sizeof(mark)) == 0 &&
	    sscanf(mark, "%" SCNd64 ":%" SCNd64, &newest.t, &newest.n) < 1)
		newest = (struct bench_mark){0};
	if (hist_store_kv_get(r->st, "bench_pos", pos, sizeof(pos)) < 0 ||
	    sscanf(pos, "%llu:%llu", &ino, &off) != 2 || ino != (unsigned long long)st.st_ino ||
	    off > (unsigned long long)st.st_size) {
		off = st.st_size > BENCH_READ_MAX ? (unsigned long long)st.st_size - BENCH_READ_MAX
						  : 0;
		after = newest;
	}
	if (off == (unsigned long long)st.st_size) {
		close(fd);
		return 0;
	}
	size_t want = (size_t)st.st_size - off;
	if (want > BENCH_READ_MAX)
		want = BENCH_READ_MAX;
	char *buf = malloc(want + 1);
	ssize_t got = buf ? pread(fd, buf, want, (off_t)off) : -1;
	close(fd);
	if (got <= 0) {
		free(buf);
		return 0;
	}
	buf[got] = '\0';
	int rc = 0;
	size_t used = 0;
	for (char *line = buf, *nl;
	     rc == 0 && (nl = memchr(line, '\n', (size_t)(buf + got - line))); line = nl + 1) {
		*nl = '\0';
		if ((size_t)(nl - line) <= BENCH_HISTORY_LINE_MAX)
			rc = bench_line(ob, line, &after, &newest);
		used = (size_t)(nl + 1 - buf);
	}
	free(buf);
	/* A whole window without a line end (a tail of NULs a crash left) is
	 * passed over, not read again at every observation. */
	if (used == 0 && (size_t)got == BENCH_READ_MAX)
		used = (size_t)got;
	snprintf(pos, sizeof(pos), "%llu:%llu", (unsigned long long)st.st_ino, off + used);
	if (rc == 0)
		rc = hist_store_kv_put(r->st, "bench_pos", pos, ob->e);
	snprintf(mark, sizeof(mark), "%" PRId64 ":%" PRId64, newest.t, newest.n);
	if (rc == 0)
		rc = hist_store_kv_put(r->st, "bench_last", mark, ob->e);
	return rc;
}

/* Checks that read the recorded history itself (or what one console saw):
 * each writer computes them from another window, so recording them would
 * open and close them by turns. The node's own findings are recorded. */
static bool reads_past(const char *id)
{
	static const char *const past[] = {"name-changed", "port-flapping", "guid-lost-boot"};
	for (size_t i = 0; i < sizeof(past) / sizeof(*past); i++)
		if (!strcmp(id, past[i]))
			return true;
	return false;
}

/* A finding that opened or closed: its key "check-id subject", its title. */
static int finding_event(struct obs *ob, enum hist_kind kind, const char *key,
			 struct json_object *title)
{
	struct hist_event ev;
	ev_init(ob, &ev, kind, 0);
	char id[64] = "", subject[16] = "";
	sscanf(key, "%63s %15s", id, subject);
	HIST_SET(ev.ref, id);
	HIST_SET(ev.bdf, subject);
	const struct pf *pf;
	const struct vf *vf;
	if (subject[0] && node_find_fn(ob->n, subject, &pf, &vf))
		HIST_SET(ev.pf, pf->fn.bdf);
	HIST_SET(ev.text,
		 json_object_is_type(title, json_type_string) ? json_object_get_string(title) : "");
	return add(ob, &ev);
}

/* The findings open now against those open at the last observation. */
static int record_findings(struct obs *ob, const struct findings *fs)
{
	struct hist_recorder *r = ob->r;
	char *stored = malloc(1u << 20);
	if (!stored)
		return err_setx(ob->e, ENOMEM, "out of memory");
	struct json_object *was = NULL, *now = json_object_new_object();
	if (hist_store_kv_get(r->st, "findings", stored, 1u << 20) == 0)
		was = json_tokener_parse(stored);
	free(stored);
	if (was && !json_object_is_type(was, json_type_object)) {
		json_object_put(was);
		was = NULL;
	}
	int rc = 0;
	for (size_t i = 0; i < fs->n && i < FINDINGS_KEY_MAX; i++) {
		const struct finding *f = &fs->v[i];
		if (reads_past(f->id))
			continue;
		char key[96];
		snprintf(key, sizeof(key), "%s %s", f->id, f->subject);
		char title[128]; /* bounded: the stored set stays well under its read size */
		HIST_SET(title, f->title ? f->title : "");
		json_object_object_add(now, key, json_object_new_string(title));
	}
	/* Opened: in now, not in was; closed: the other way. */
	json_object_object_foreach(now, k, v) {
		if (rc == 0 && !(was && json_object_object_get_ex(was, k, NULL)))
			rc = finding_event(ob, HK_FINDING_OPEN, k, v);
	}
	if (was) {
		json_object_object_foreach(was, k2, v2) {
			if (rc == 0 && !json_object_object_get_ex(now, k2, NULL))
				rc = finding_event(ob, HK_FINDING_CLOSE, k2, v2);
		}
	}
	const char *s = json_object_to_json_string_ext(now, JSON_C_TO_STRING_PLAIN |
								    JSON_C_TO_STRING_NOSLASHESCAPE);
	if (rc == 0 && (!was || strcmp(s, json_object_to_json_string_ext(
						  was, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE))))
		rc = hist_store_kv_put(r->st, "findings", s, ob->e);
	json_object_put(was);
	json_object_put(now);
	return rc;
}

/* One observation in one transaction. */
static int observe_once(struct hist_recorder *r, const struct node *n, const struct findings *fs,
			int64_t t_us, size_t *ret_events, struct err *e)
{
	struct obs ob = {.r = r, .n = n, .t_us = t_us, .e = e};
	hist_boot_id(r->s, ob.boot);
	struct hist_state now = {0}, was = {0};
	int rc = hist_state_from_node(n, &now);
	if (rc < 0)
		return err_setx(e, ENOMEM, "out of memory");
	if ((rc = hist_store_begin(r->st, e)) < 0)
		goto out;
	if (r->cached) {
		was = r->state;
		memset(&r->state, 0, sizeof(r->state));
		r->cached = false;
	} else if ((rc = state_load(r, &was, e)) < 0) {
		goto out;
	}
	char stored_boot[HIST_BOOT_MAX] = "";
	bool first_ever = hist_store_kv_get(r->st, "boot", stored_boot, sizeof(stored_boot)) < 0 &&
			  was.n == 0;
	bool new_boot = first_ever || strcmp(stored_boot, ob.boot);
	if (new_boot || !r->started) {
		ob.group = hist_store_new_group(r->st);
		if (new_boot && (rc = record_boot(&ob)) < 0)
			goto out;
		if (r->o.hold_lock || first_ever) {
			struct hist_event ev;
			ev_init(&ob, &ev, HK_START, 0);
			size_t vfs = 0;
			for (size_t i = 0; i < n->n_pfs; i++)
				vfs += n->pfs[i].n_vfs;
			snprintf(ev.text, sizeof(ev.text), "%s (ibvf %s): %zu PFs, %zu VFs",
				 first_ever	  ? "first record of this node"
				 : r->o.hold_lock ? "recorder started"
						  : "recording",
				 IBVF_VERSION, n->n_pfs, vfs);
			if ((rc = add(&ob, &ev)) < 0)
				goto out;
		}
	}
	if (!first_ever &&
	    (rc = hist_state_diff(&was, &now, ob.t_us, ob.boot, ob.group, add_cb, &ob)) != 0)
		goto out;
	ob.group = 0;
	if ((rc = record_kmsg(&ob, new_boot)) < 0 || (rc = record_journal(&ob)) < 0 ||
	    (rc = record_bench(&ob)) < 0)
		goto out;
	if (fs && (rc = record_findings(&ob, fs)) < 0)
		goto out;
	if ((rc = state_save(r, &was, &now, e)) < 0)
		goto out;
	if (new_boot && (rc = hist_store_kv_put(r->st, "boot", ob.boot, e)) < 0)
		goto out;
	if ((rc = hist_store_commit(r->st, e)) < 0)
		goto out;
	r->started = true;
	if (ob.journal_seen) {
		r->journal_known = true;
		r->journal_size = ob.journal_size;
		r->journal_mtime = ob.journal_mtime;
	}
	if (r->o.hold_lock) { /* the one writer: what it saved stays true */
		r->state = now;
		memset(&now, 0, sizeof(now));
		r->cached = true;
	}
	if (ret_events)
		*ret_events = ob.n_events;
out:
	if (rc < 0)
		hist_store_rollback(r->st);
	hist_state_fini(&now);
	hist_state_fini(&was);
	return rc < 0 ? rc : 0;
}

/* Back to the file from memory, when it can be written again. */
static void retry_file(struct hist_recorder *r, int64_t now)
{
	if (!hist_store_in_memory(r->st) || now < r->retry_at)
		return;
	r->retry_at = now + (int64_t)HIST_RETRY_SECS * 1000000;
	struct hist_store *f;
	struct err e = {{0}};
	if (hist_store_open(r->path, true, &f, &e) < 0)
		return;
	if (hist_store_copy(f, r->st, &e) < 0) {
		hist_store_close(f);
		return;
	}
	hist_store_close(r->st);
	r->st = f;
	hist_state_fini(&r->state); /* the cached state is the old store's */
	r->cached = false;
	r->journal_known = false;
	note(r, "%s",
	     "the history store can be written again: the events kept in memory "
	     "were moved there");
}

int hist_recorder_observe(struct hist_recorder *r, const struct node *n, const struct findings *fs,
			  int64_t t_us, size_t *ret_events, struct err *e)
{
	int64_t now = hist_now_us();
	if (!t_us)
		t_us = now;
	if (ret_events)
		*ret_events = 0;
	int fd = -1, rc;
	if (!r->o.hold_lock) {
		pid_t pid;
		rc = lock_file_try(r->lock_path, &fd, &pid, e);
		if (rc == -EWOULDBLOCK)
			return 0; /* the recorder (or another console) records it */
		if (rc < 0)
			return rc;
	}
	retry_file(r, now);
	rc = observe_once(r, n, fs, t_us, ret_events, e);
	if (rc < 0 && r->o.memory_fallback && !hist_store_in_memory(r->st)) {
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		if (to_memory(r, why, e) == 0)
			rc = observe_once(r, n, fs, t_us, ret_events, e);
	}
	if (rc == 0 && r->o.hold_lock) {
		/* Retention when the file grew past its cap, and once a day: by
		 * the recorder only, whose limits are the operator's (--max-age,
		 * --max-size); the console, watch and check never trim. */
		int64_t cap = r->o.limits.max_bytes > 0 ? r->o.limits.max_bytes : HIST_MAX_BYTES;
		int64_t last = kv_int(r->st, "retained", 0);
		if (hist_store_bytes(r->st) > cap || now - last > 86400ll * 1000000) {
			struct err re = {{0}};
			if (hist_store_retain(r->st, &r->o.limits, NULL, &re) == 0)
				kv_put_int(r->st, "retained", now, &re);
		}
	}
	node_lock_release(fd);
	return rc;
}
