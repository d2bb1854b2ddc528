// SPDX-License-Identifier: MIT
/* The benchmark's history file (history.h). */
#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/linkhash.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/escape.h"
#include "core/base/safefile.h"

void bench_history_path(const char *root, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", root && strcmp(root, "/") ? root : "", BENCH_HISTORY_PATH);
}

struct json_object *bench_history_key(const char *pf, int vf, const char *test, const char *peer)
{
	struct json_object *k = json_object_new_object();
	json_object_object_add(k, "pf", json_object_new_string(pf ? pf : ""));
	json_object_object_add(k, "vf", vf >= 0 ? json_object_new_int(vf) : NULL);
	json_object_object_add(k, "test", json_object_new_string(test ? test : ""));
	json_object_object_add(k, "peer", json_object_new_string(peer ? peer : ""));
	return k;
}

/* path's directory opened link-safe, and its file name. The file is locked
 * and still the one path names: a rewrite (rotate()) renames a new file
 * over it while others wait for the lock of the old one. */
static int open_file(const char *path, bool write, int *ret_fd, struct err *e)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (path[0] != '/' || !slash || !slash[1] || strlen(path) >= sizeof(dir))
		return err_setx(e, EINVAL, "invalid history path '%s': not an absolute file path",
				path);
	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	int dfd, r = safefile_dir(dir, write, &dfd, e);
	if (r < 0)
		return r;
	for (int tries = 0;; tries++) {
		int flags =
			write ? O_RDWR | O_APPEND | O_CREAT : O_RDONLY; /* RDWR: the last byte */
		int fd = openat(dfd, slash + 1, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0640);
		int err = errno;
		if (fd < 0) {
			close(dfd);
			if (err == ENOENT)
				return -ENOENT;
			if (err == ELOOP)
				return err_setx(
					e, ELOOP,
					"'%s' is a symbolic link: ibvf does not follow links "
					"where it writes",
					path);
			return err_set(e, err, "cannot open the history '%s'", path);
		}
		struct stat st, now;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			close(dfd);
			return err_setx(e, EINVAL, "the history '%s' is not a regular file", path);
		}
		/* A fixed mode, not the umask's: results name the node's devices. */
		if (write && (st.st_mode & 07777) != 0640 && fchmod(fd, 0640) < 0) {
			r = err_set(e, errno, "cannot set the mode of '%s'", path);
			close(fd);
			close(dfd);
			return r;
		}
		if ((r = safefile_flock(fd, write ? LOCK_EX : LOCK_SH, 5000)) < 0) {
			r = err_set(e, -r, "cannot lock the history '%s'", path);
			close(fd);
			close(dfd);
			return r;
		}
		/* Replaced while waiting for the lock: the new file; replaced
		 * at every try, a line appended would go to a removed file. */
		if (fstatat(dfd, slash + 1, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
		    now.st_ino != st.st_ino || now.st_dev != st.st_dev) {
			close(fd);
			if (tries < 10)
				continue;
			close(dfd);
			return err_setx(
				e, EAGAIN,
				"the history '%s' was replaced at each of 10 tries to lock it",
				path);
		}
		close(dfd);
		*ret_fd = fd;
		return 0;
	}
}

/* The line as a JSON object, or NULL (a corrupt line counts in *skipped). */
static struct json_object *parse_line(char *line, size_t len, size_t *skipped)
{
	if (!len)
		return NULL;
	struct json_object *o = len <= BENCH_HISTORY_LINE_MAX ? json_tokener_parse(line) : NULL;
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		(*skipped)++;
		return NULL;
	}
	return o;
}

/* One pass over the open file fd of path: every JSON object line, in file
 * order, to each(o, off, len, arg) (which takes o; off and len: the line's
 * place in the file), at most the last BENCH_HISTORY_READ_MAX bytes read,
 * a window at a time. */
typedef void line_fn(struct json_object *o, off_t off, size_t len, void *arg);
static int stream(int fd, const char *path, line_fn *each, void *arg,
		  struct bench_history_stats *ret, struct err *e)
{
	enum {
		WINDOW = 4 * BENCH_HISTORY_LINE_MAX
	};
	struct bench_history_stats st = {0};
	off_t size = lseek(fd, 0, SEEK_END);
	if (size < 0)
		return err_set(e, errno, "cannot read the history '%s'", path);
	off_t from =
		size > (off_t)BENCH_HISTORY_READ_MAX ? size - (off_t)BENCH_HISTORY_READ_MAX : 0;
	st.unread = (uint64_t)from;
	char *buf = malloc(WINDOW + 1);
	if (!buf)
		return err_set(e, ENOMEM, "cannot read the history '%s'", path);
	/* cut: the line under way began before from (not a line); over: it
	 * is longer than the window (a corrupt line). */
	char before = '\n';
	bool cut = from > 0 && (pread(fd, &before, 1, from - 1) != 1 || before != '\n'),
	     over = false;
	size_t have = 0;
	off_t at = from, base = from; /* base: the file offset of buf[0] */
	while (at < size) {
		size_t want = WINDOW - have;
		if ((off_t)want > size - at)
			want = (size_t)(size - at);
		ssize_t n = pread(fd, buf + have, want, at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int r = err_set(e, n < 0 ? errno : EIO, "cannot read the history '%s'",
					path);
			free(buf);
			return r;
		}
		at += n;
		have += (size_t)n;
		char *p = buf, *end = buf + have, *nl;
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			*nl = '\0';
			size_t len = (size_t)(nl - p);
			if (cut)
				cut = false;
			else if (over) {
				over = false;
				st.skipped++;
			} else {
				struct json_object *o = parse_line(p, len, &st.skipped);
				if (o)
					each(o, base + (p - buf), len, arg);
			}
			p = nl + 1;
		}
		if (p == buf && have == WINDOW) { /* no line end in a whole window */
			over = !cut;
			p = end;
		}
		have = (size_t)(end - p);
		base += p - buf;
		memmove(buf, p, have);
	}
	if ((have || over) && !cut) /* a torn last line: no newline yet */
		st.skipped++;
	free(buf);
	*ret = st;
	return 0;
}

static int read_all(const char *path, line_fn *each, void *arg, struct bench_history_stats *ret,
		    struct err *e)
{
	int fd, r = open_file(path, false, &fd, e);
	*ret = (struct bench_history_stats){0};
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = stream(fd, path, each, arg, ret, e);
	close(fd);
	return r;
}

/* The entry's key as a string ("[pf,vf,test,peer]" in JSON), into buf;
 * false when it has no key object. */
static bool key_string(struct json_object *o, char *buf, size_t size)
{
	static const char *const fields[] = {"pf", "vf", "test", "peer"};
	struct json_object *k, *v;
	if (!json_object_object_get_ex(o, "key", &k) || !json_object_is_type(k, json_type_object))
		return false;
	size_t n = 0;
	for (size_t i = 0; i < 4 && n < size; i++) {
		v = json_object_object_get(k, fields[i]);
		n += (size_t)snprintf(buf + n, size - n, "%c%s", i ? ',' : '[',
				      json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	}
	if (n < size)
		snprintf(buf + n, size - n, "]");
	return true;
}

/* A result later ones are compared with: not one refused as impossible or
 * limited by its peer (bench/verdict.h), which measured nothing of the VF. */
static bool baseline(struct json_object *o)
{
	struct json_object *st;
	const char *s =
		json_object_object_get_ex(o, "status", &st) ? json_object_get_string(st) : NULL;
	return !s || (strcmp(s, "impossible") && strcmp(s, "peer-limited"));
}

struct last {
	struct json_object *key, *found;
};

static void keep_last(struct json_object *o, off_t off, size_t len, void *arg)
{
	(void)off, (void)len;
	struct last *l = arg;
	struct json_object *k;
	if (json_object_object_get_ex(o, "key", &k) && json_object_equal(k, l->key) &&
	    baseline(o)) {
		json_object_put(l->found);
		l->found = o;
		return;
	}
	json_object_put(o);
}

int bench_history_last(const char *path, struct json_object *key, struct json_object **ret,
		       size_t *ret_skipped, struct err *e)
{
	struct last l = {.key = key};
	struct bench_history_stats st;
	*ret = NULL;
	int r = read_all(path, keep_last, &l, &st, e);
	*ret_skipped = st.skipped;
	if (r < 0) {
		json_object_put(l.found);
		return r;
	}
	*ret = l.found;
	return 0;
}

/* Per key: its last two entries (or lines) and their places in the file. */
struct per_key {
	struct json_object *o[2]; /* [0] the one before, [1] the last */
	size_t seq[2];		  /* line numbers, for file order */
	bool has[2];
};

struct by_key {
	struct lh_table *t;
	size_t seq;
	bool nomem;
};

static void per_key_free(struct lh_entry *en)
{
	struct per_key *pk = (struct per_key *)lh_entry_v(en);
	if (pk) {
		json_object_put(pk->o[0]);
		json_object_put(pk->o[1]);
	}
	free(pk);
	free(lh_entry_k(en));
}

/* The key's record in t, made when new; NULL when out of memory. */
static struct per_key *per_key_of(struct lh_table *t, const char *key)
{
	void *v;
	if (lh_table_lookup_ex(t, key, &v))
		return v;
	struct per_key *pk = calloc(1, sizeof(*pk));
	char *k = strdup(key);
	if (!pk || !k || lh_table_insert(t, k, pk) < 0) {
		free(pk);
		free(k);
		return NULL;
	}
	return pk;
}

/* Keeps o as the last of its key, the last one as the one before it. */
static void keep_two(struct json_object *o, off_t off, size_t len, void *arg)
{
	(void)off, (void)len;
	struct by_key *b = arg;
	char key[BENCH_HISTORY_LINE_MAX + 8];
	bool keyed = key_string(o, key, sizeof(key));
	struct per_key *pk = keyed ? per_key_of(b->t, key) : NULL;
	size_t seq = b->seq++;
	if (!pk) {
		b->nomem |= keyed;
		json_object_put(o);
		return;
	}
	/* The one before is the last baseline() before the last. */
	if (pk->has[1] && !baseline(pk->o[1])) {
		json_object_put(pk->o[1]);
	} else {
		json_object_put(pk->o[0]);
		pk->o[0] = pk->o[1];
		pk->seq[0] = pk->seq[1];
		pk->has[0] = pk->has[1];
	}
	pk->o[1] = o;
	pk->seq[1] = seq;
	pk->has[1] = true;
}

struct seq_entry {
	size_t seq;
	struct json_object *o;
};

static int cmp_seq(const void *a, const void *b)
{
	size_t x = ((const struct seq_entry *)a)->seq, y = ((const struct seq_entry *)b)->seq;
	return x < y ? -1 : x > y;
}

int bench_history_read(const char *path, struct json_object **ret,
		       struct bench_history_stats *ret_stats, struct err *e)
{
	struct by_key b = {.t = lh_kchar_table_new(1024, per_key_free)};
	struct json_object *a = json_object_new_array();
	struct seq_entry *v = NULL;
	int r = -ENOMEM;
	*ret_stats = (struct bench_history_stats){0};
	if (!a || !b.t)
		goto nomem;
	if ((r = read_all(path, keep_two, &b, ret_stats, e)) < 0)
		goto out;
	if (b.nomem)
		goto nomem;
	size_t n = 0, cap = 2 * (size_t)b.t->count;
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		goto nomem;
	struct lh_entry *en;
	lh_foreach(b.t, en)
	{
		struct per_key *pk = (struct per_key *)lh_entry_v(en);
		for (int i = 0; i < 2; i++)
			if (pk->has[i]) {
				v[n++] = (struct seq_entry){pk->seq[i], pk->o[i]};
				pk->o[i] = NULL;
			}
	}
	qsort(v, n, sizeof(*v), cmp_seq);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, v[i].o);
	*ret = a;
	a = NULL;
	r = 0;
	goto out;
nomem:
	r = err_set(e, ENOMEM, "cannot read the history '%s'", path);
out:
	free(v);
	if (b.t)
		lh_table_free(b.t);
	json_object_put(a);
	return r;
}

/* A line of the file being rewritten: where it is. */
struct line {
	off_t off;
	size_t len;
};

struct rot {
	struct lh_table *t; /* key (and key#b: of its baselines) -> its last line (+1) */
	struct line *v;
	size_t n, cap;
	bool nomem;
};

static void rot_free(struct lh_entry *en)
{
	free(lh_entry_k(en));
}

/* key's last line is idx (+1). */
static void keep_place_as(struct rot *rt, const char *key, uintptr_t idx)
{
	struct lh_entry *en = lh_table_lookup_entry(rt->t, key);
	if (en) {
		lh_entry_set_val(en, (void *)idx);
		return;
	}
	char *k = strdup(key);
	if (!k || lh_table_insert(rt->t, k, (const void *)idx) < 0) {
		free(k);
		rt->nomem = true;
	}
}

static void keep_place(struct json_object *o, off_t off, size_t len, void *arg)
{
	struct rot *rt = arg;
	char key[BENCH_HISTORY_LINE_MAX + 8];
	bool keyed = key_string(o, key, sizeof(key)), base = baseline(o);
	json_object_put(o);
	if (rt->n == rt->cap) {
		size_t cap = rt->cap ? 2 * rt->cap : 4096;
		struct line *nv = realloc(rt->v, cap * sizeof(*nv));
		if (!nv) {
			rt->nomem = true;
			return;
		}
		rt->v = nv;
		rt->cap = cap;
	}
	rt->v[rt->n] = (struct line){.off = off, .len = len};
	rt->n++;
	if (!keyed)
		return;
	uintptr_t idx = rt->n; /* +1: 0 is no line */
	keep_place_as(rt, key, idx);
	/* And the key's last baseline(): what its next result is compared with. */
	if (base && strlen(key) + 2 < sizeof(key)) {
		strcat(key, "#b");
		keep_place_as(rt, key, idx);
	}
}

/* Rewrites the locked file fd of path to the last line of every key and
 * the most recent lines that fit in half of BENCH_HISTORY_CAP, in file
 * order (corrupt lines go). */
static int rotate(int fd, const char *path, struct err *e)
{
	struct rot rt = {.t = lh_kchar_table_new(1024, rot_free)};
	struct bench_history_stats st;
	bool *keep = NULL;
	char *out = NULL;
	int r = -ENOMEM;
	if (!rt.t)
		goto nomem;
	if ((r = stream(fd, path, keep_place, &rt, &st, e)) < 0)
		goto done;
	if (rt.nomem || !(keep = calloc(rt.n ? rt.n : 1, sizeof(*keep))))
		goto nomem;
	size_t total = 0, recent = 0;
	for (size_t i = rt.n; i-- > 0;) {
		if (recent + rt.v[i].len + 1 > BENCH_HISTORY_CAP / 2)
			break;
		recent += rt.v[i].len + 1;
		keep[i] = true;
	}
	struct lh_entry *en;
	lh_foreach(rt.t, en) keep[(uintptr_t)lh_entry_v(en) - 1] = true;
	for (size_t i = 0; i < rt.n; i++)
		total += keep[i] ? rt.v[i].len + 1 : 0;
	if (!(out = malloc(total + 1)))
		goto nomem;
	size_t at = 0;
	for (size_t i = 0; i < rt.n; i++) {
		if (!keep[i])
			continue;
		ssize_t n = pread(fd, out + at, rt.v[i].len, rt.v[i].off);
		if (n != (ssize_t)rt.v[i].len) {
			r = err_set(e, n < 0 ? errno : EIO, "cannot read the history '%s'", path);
			goto done;
		}
		at += rt.v[i].len;
		out[at++] = '\n';
	}
	out[at] = '\0';
	r = safefile_write(path, out, 0640, e);
	goto done;
nomem:
	r = err_set(e, ENOMEM, "cannot rewrite the history '%s'", path);
done:
	free(out);
	free(keep);
	free(rt.v);
	if (rt.t)
		lh_table_free(rt.t);
	return r;
}

int bench_history_append(const char *path, struct json_object *entry, struct err *e)
{
	/* Valid UTF-8 whatever the device names hold (core/base/escape.h). */
	char *body = escape_json_text(json_object_to_json_string_ext(
		entry, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!body)
		return err_set(e, ENOMEM, "cannot write the history '%s'", path);
	size_t len = strlen(body);
	if (len + 2 > BENCH_HISTORY_LINE_MAX) {
		free(body);
		return err_setx(e, E2BIG, "a history line of %zu bytes is over the %u-byte bound",
				len + 1, BENCH_HISTORY_LINE_MAX);
	}
	int fd, r = open_file(path, true, &fd, e);
	if (r < 0) {
		free(body);
		return r == -ENOENT ? err_setx(e, ENOENT, "cannot create the history '%s'", path)
				    : r;
	}
	/* Starts on a line of its own after a torn last line. */
	char last = '\n', line[BENCH_HISTORY_LINE_MAX + 1];
	off_t size = lseek(fd, 0, SEEK_END);
	if (size > 0 && pread(fd, &last, 1, size - 1) != 1)
		last = '\n';
	int n = snprintf(line, sizeof(line), "%s%s\n", last == '\n' ? "" : "\n", body);
	free(body);
	r = safefile_write_all(fd, line, (size_t)n);
	if (r < 0)
		err_set(e, -r, "cannot append to '%s'", path);
	else if (fsync(fd) < 0)
		r = err_set(e, errno, "cannot sync '%s'", path);
	else if (size + n > (off_t)BENCH_HISTORY_CAP && (r = rotate(fd, path, e)) < 0) {
		/* The line is in: say so, or a caller reports it lost. */
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		err_setx(e, -r,
			 "recorded, but the history '%s' past its %u-byte cap was not rewritten: "
			 "%.300s",
			 path, BENCH_HISTORY_CAP, why);
	}
	close(fd);
	return r;
}

int bench_history_compare(double previous, double prev_spread, double figure, double spread,
			  bool higher_better, struct bench_history_cmp *ret)
{
	/* The previous figure and spread come from a file: a value that is
	 * not a finite number (json-c reads NaN and Infinity) compares with
	 * nothing, and a spread that is not finite is unknown. */
	if (!(previous > 0) || !isfinite(previous) || !isfinite(figure))
		return -EINVAL;
	if (!isfinite(prev_spread))
		prev_spread = -1;
	if (!isfinite(spread))
		spread = -1;
	double s = prev_spread > spread ? prev_spread : spread;
	struct bench_history_cmp c = {.previous = previous,
				      .change_pct = (figure - previous) / previous * 100.0,
				      .noise_pct = BENCH_HISTORY_MIN_PCT};
	if (s > 0 && BENCH_HISTORY_SPREADS * s * 100.0 > c.noise_pct)
		c.noise_pct = BENCH_HISTORY_SPREADS * s * 100.0;
	double worse = higher_better ? -c.change_pct : c.change_pct;
	c.flag = worse > c.noise_pct;
	*ret = c;
	return 0;
}
