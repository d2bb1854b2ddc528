// SPDX-License-Identifier: MIT
/* The journal's reader (records merged by id, damaged lines skipped and
 * named), the type check of an entry, and the request that undoes one. */
#include "journal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/guid.h"
#include "journal_int.h"
#include "core/base/safefile.h"

/* The newlines in the first `upto` bytes of fd. */
static size_t count_lines(int fd, off_t upto)
{
	char buf[1 << 16];
	size_t n = 0;
	for (off_t at = 0; at < upto;) {
		size_t want = (size_t)(upto - at) < sizeof(buf) ? (size_t)(upto - at) : sizeof(buf);
		ssize_t got = pread(fd, buf, want, at);
		if (got <= 0)
			break;
		for (ssize_t i = 0; i < got; i++)
			n += buf[i] == '\n';
		at += got;
	}
	return n;
}

/* The open journal, or its last JOURNAL_MAX bytes from a line's start when
 * it is larger (the newest records: ids only grow), with the number of
 * lines before what was read. */
static int read_all(int fd, char **ret, size_t *ret_len, size_t *ret_skipped_lines)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	off_t from;
	int r = safefile_read_tail(fd, st.st_size, JOURNAL_MAX, ret, ret_len, &from);
	if (r < 0)
		return r;
	*ret_skipped_lines = from > 0 ? count_lines(fd, from) : 0;
	return 0;
}

/* A line as a record: an object with a positive integer id, the whole line
 * one JSON value, no NUL. NULL when damaged. */
static struct json_object *parse_record(const char *line, size_t len)
{
	if (memchr(line, '\0', len) || len > INT32_MAX)
		return NULL;
	struct json_tokener *tok = json_tokener_new();
	if (!tok)
		return NULL;
	struct json_object *o = json_tokener_parse_ex(tok, line, (int)len);
	size_t end = json_tokener_get_parse_end(tok);
	bool whole = json_tokener_get_error(tok) == json_tokener_success;
	json_tokener_free(tok);
	for (; whole && end < len; end++)
		whole = line[end] == ' ' || line[end] == '\t' || line[end] == '\r';
	if (!o || !whole || !is(o, json_type_object) || jget_int(o, "id") <= 0) {
		json_object_put(o);
		return NULL;
	}
	const char *rec = NULL;
	struct json_object *v;
	if (json_object_object_get_ex(o, "record", &v) &&
	    (!(rec = jget_str(o, "record")) || (strcmp(rec, "started") && strcmp(rec, "step")))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static bool blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* Calls fn on each record of the journal's text with its line number;
 * a damaged line is given with rec NULL. */
static void each_record(const char *buf, size_t len, size_t lineno,
			void (*fn)(void *arg, struct json_object *rec, size_t line), void *arg)
{
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t l = nl ? (size_t)(nl - (buf + at)) : len - at;
		lineno++;
		if (!blank(buf + at, l))
			fn(arg, parse_record(buf + at, l), lineno);
		at += l + 1;
	}
}

static void max_of(void *arg, struct json_object *rec, size_t line)
{
	long long *max = arg, id = rec ? jget_int(rec, "id") : 0;
	if (id > *max)
		*max = id;
	json_object_put(rec);
}

long long journal_max_id(int fd)
{
	char *buf;
	size_t len, before;
	long long max = 0;
	if (read_all(fd, &buf, &len, &before) < 0)
		return 0;
	each_record(buf, len, before, max_of, &max);
	free(buf);
	return max;
}

struct merge {
	struct json_object *entries;
	struct journal_damage damage;
};

static void damaged(struct merge *m, size_t line)
{
	if (m->damage.n < JOURNAL_DAMAGE_LINES)
		m->damage.line[m->damage.n] = line;
	m->damage.n++;
}

/* The newest entry with id still "started" (a plan not finished): its index. */
static long started_entry(struct json_object *entries, long long id)
{
	for (size_t i = json_object_array_length(entries); i-- > 0;) {
		struct json_object *o = json_object_array_get_idx(entries, i);
		if (jget_int(o, "id") == id) {
			const char *rec = jget_str(o, "record");
			return rec && !strcmp(rec, "started") ? (long)i : -1;
		}
	}
	return -1;
}

/* A step record into its started entry's steps: false when it fits none. */
static bool merge_step(struct json_object *entries, struct json_object *rec)
{
	long i = started_entry(entries, jget_int(rec, "id"));
	struct json_object *ent = i >= 0 ? json_object_array_get_idx(entries, (size_t)i) : NULL;
	struct json_object *steps, *st;
	long long n = jget_int(rec, "step");
	const char *status = jget_str(rec, "status");
	if (!ent || !status || !json_object_object_get_ex(ent, "steps", &steps) ||
	    !is(steps, json_type_array) || n < 1 || (size_t)n > json_object_array_length(steps) ||
	    !is(st = json_object_array_get_idx(steps, (size_t)n - 1), json_type_object))
		return false;
	static const char *const keys[] = {"status", "detail", "error"};
	for (size_t k = 0; k < 3; k++) {
		struct json_object *v;
		if (json_object_object_get_ex(rec, keys[k], &v))
			json_object_object_add(st, keys[k], json_object_get(v));
	}
	return true;
}

static void merge_one(void *arg, struct json_object *rec, size_t line)
{
	struct merge *m = arg;
	if (!rec) {
		damaged(m, line);
		return;
	}
	const char *kind = jget_str(rec, "record");
	if (kind && !strcmp(kind, "step")) {
		if (!merge_step(m->entries, rec))
			damaged(m, line);
		json_object_put(rec);
		return;
	}
	/* The finished entry replaces its "started" record, in its place. */
	long i = kind ? -1 : started_entry(m->entries, jget_int(rec, "id"));
	if (i >= 0)
		json_object_array_put_idx(m->entries, (size_t)i, rec);
	else
		json_object_array_add(m->entries, rec);
}

int journal_read_lines(struct sys *s, struct json_object **ret, struct journal_damage *ret_damage,
		       struct err *e)
{
	struct merge m = {.entries = json_object_new_array()};
	char path[PATH_MAX], *buf = NULL;
	size_t len = 0, before = 0;
	int fd, r = journal_open(s, false, &fd, e);
	if (r < 0 && r != -ENOENT) {
		json_object_put(m.entries);
		return r;
	}
	if (r == 0) {
		r = read_all(fd, &buf, &len, &before);
		close(fd);
		if (r < 0) {
			journal_path(s, path);
			json_object_put(m.entries);
			return err_set(e, -r, "cannot read the journal '%s'", path);
		}
		each_record(buf, len, before, merge_one, &m);
		free(buf);
	}
	if (ret_damage)
		*ret_damage = m.damage;
	*ret = m.entries;
	return 0;
}

int journal_read(struct sys *s, struct json_object **ret, size_t *ret_skipped, struct err *e)
{
	struct journal_damage d;
	int r = journal_read_lines(s, ret, &d, e);
	if (r == 0 && ret_skipped)
		*ret_skipped = d.n;
	return r;
}
