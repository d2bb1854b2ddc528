// SPDX-License-Identifier: MIT
/* The benchmark's history file (history.h). */
#include "history.h"

#include <errno.h>
#include <fcntl.h>
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

/* path's directory opened link-safe, and its file name. */
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
	int flags = write ? O_RDWR | O_APPEND | O_CREAT : O_RDONLY; /* RDWR: the last byte */
	int fd = openat(dfd, slash + 1, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0640);
	int err = errno;
	close(dfd);
	if (fd < 0) {
		if (err == ENOENT)
			return -ENOENT;
		if (err == ELOOP)
			return err_setx(e, ELOOP,
					"'%s' is a symbolic link: ibvf does not follow links "
					"where it writes",
					path);
		return err_set(e, err, "cannot open the history '%s'", path);
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_setx(e, EINVAL, "the history '%s' is not a regular file", path);
	}
	/* A fixed mode, not the umask's: results name the node's devices. */
	if (write && (st.st_mode & 07777) != 0640 && fchmod(fd, 0640) < 0) {
		r = err_set(e, errno, "cannot set the mode of '%s'", path);
		close(fd);
		return r;
	}
	if ((r = safefile_flock(fd, write ? LOCK_EX : LOCK_SH, 5000)) < 0) {
		r = err_set(e, -r, "cannot lock the history '%s'", path);
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
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
	close(fd);
	return r;
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

/* Every JSON object line of path's tail, in file order, to each(o, arg)
 * (which takes o); *ret_skipped counts the lines that are not. */
static int read_tail(const char *path, void (*each)(struct json_object *o, void *arg), void *arg,
		     size_t *ret_skipped, struct err *e)
{
	int fd, r = open_file(path, false, &fd, e);
	*ret_skipped = 0;
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	off_t size = lseek(fd, 0, SEEK_END);
	off_t from = size > (off_t)BENCH_HISTORY_TAIL ? size - (off_t)BENCH_HISTORY_TAIL : 0;
	char *buf = size > 0 ? malloc((size_t)(size - from) + 1) : NULL;
	ssize_t n = buf ? pread(fd, buf, (size_t)(size - from), from) : 0;
	close(fd);
	if (size > 0 && (!buf || n < 0)) {
		free(buf);
		return err_set(e, buf ? errno : ENOMEM, "cannot read the history '%s'", path);
	}
	size_t skipped = 0;
	char *p = buf, *end = buf ? buf + n : NULL;
	if (p && from > 0) { /* the tail starts inside a line: not a line */
		char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	while (p && p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) { /* a torn last line: no newline yet */
			skipped++;
			break;
		}
		*nl = '\0';
		struct json_object *o = parse_line(p, (size_t)(nl - p), &skipped);
		if (o)
			each(o, arg);
		p = nl + 1;
	}
	free(buf);
	*ret_skipped = skipped;
	return 0;
}

struct last {
	struct json_object *key, *found;
};

static void keep_last(struct json_object *o, void *arg)
{
	struct last *l = arg;
	struct json_object *k;
	if (json_object_object_get_ex(o, "key", &k) && json_object_equal(k, l->key)) {
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
	*ret = NULL;
	int r = read_tail(path, keep_last, &l, ret_skipped, e);
	if (r < 0)
		return r;
	*ret = l.found;
	return 0;
}

static void keep_all(struct json_object *o, void *arg)
{
	json_object_array_add(arg, o);
}

int bench_history_read(const char *path, struct json_object **ret, size_t *ret_skipped,
		       struct err *e)
{
	struct json_object *a = json_object_new_array();
	if (!a)
		return err_set(e, ENOMEM, "cannot read the history '%s'", path);
	int r = read_tail(path, keep_all, a, ret_skipped, e);
	if (r < 0) {
		json_object_put(a);
		return r;
	}
	*ret = a;
	return 0;
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
