// SPDX-License-Identifier: MIT
/* The journal's writer: a plain file under the node's root prefix (not
 * sysfs, so not through the kernel boundary's write), one JSON line per
 * record (journal.h). */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/escape.h"
#include "journal_int.h"
#include "core/base/safefile.h"

#define JOURNAL_MODE 0640

void journal_path(struct sys *s, char buf[static PATH_MAX])
{
	const char *root = sys_root(s);
	snprintf(buf, PATH_MAX, "%s%s", strcmp(root, "/") ? root : "", JOURNAL_PATH);
}

int journal_open(struct sys *s, bool write, int *ret_fd, struct err *e)
{
	char path[PATH_MAX];
	journal_path(s, path);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	int dfd, r = safefile_dir(path, write, &dfd, e);
	/* On the node itself an undo acts on what is read: the directory is
	 * checked as for a write (root's or the user's, not writable by
	 * others). Under --root/--sim the tree is data, undo stays inside it. */
	if (r == 0 && !write && !strcmp(sys_root(s), "/") &&
	    (r = safefile_dir_trusted(dfd, path, e)) < 0)
		close(dfd);
	*slash = '/';
	if (r < 0)
		return r;
	int flags = write ? O_RDWR | O_APPEND | O_CREAT : O_RDONLY;
	int fd = openat(dfd, slash + 1, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, JOURNAL_MODE);
	int err = errno;
	close(dfd);
	if (fd < 0)
		return err == ELOOP ? err_setx(e, ELOOP,
					       "the journal '%s' is a symbolic link: ibvf does not "
					       "follow links where it writes",
					       path)
		       : err == ENOENT && !write
			       ? -ENOENT
			       : err_set(e, err, "cannot open the journal '%s'", path);
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = err_setx(e, EINVAL, "the journal '%s' is not a regular file", path);
		close(fd);
		return r;
	}
	/* 0640 whatever the umask, and whatever mode a file left there had. */
	if (write && (st.st_mode & 07777) != JOURNAL_MODE && fchmod(fd, JOURNAL_MODE) < 0) {
		r = err_set(e, errno, "cannot set the mode of the journal '%s'", path);
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

/* Appends line (with its '\n') under an exclusive flock; a file whose last
 * byte is not '\n' (a crash mid-append) gets one first, so the damage stays
 * on its own line. With alloc, *id (0) becomes the largest id + 1. */
static int append_line(struct sys *s, bool alloc, long long *id,
		       struct json_object *(*build)(const void *arg, long long id), const void *arg,
		       bool sync, struct err *e)
{
	char path[PATH_MAX];
	int fd, r = journal_open(s, true, &fd, e);
	if (r < 0)
		return r;
	journal_path(s, path);
	if ((r = safefile_flock(fd, LOCK_EX, JOURNAL_LOCK_MS)) < 0) {
		r = r == -EWOULDBLOCK ? err_setx(e, EWOULDBLOCK,
						 "cannot lock the journal '%s': another process "
						 "has held it for %u s",
						 path, JOURNAL_LOCK_MS / 1000)
				      : err_set(e, -r, "cannot lock the journal '%s'", path);
		close(fd);
		return r;
	}
	struct stat st;
	char last = '\n';
	if (fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
		last = '\n';
	if (alloc)
		*id = journal_max_id(fd) + 1;
	struct json_object *o = build(arg, *id);
	/* Valid UTF-8 for any reader (a name or hostname that is not becomes
	 * U+FFFD: undo refuses such a name anyway, naming.h). */
	char *body = escape_json_text(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	char *line = NULL;
	int len = body ? asprintf(&line, "%s%s\n", last == '\n' ? "" : "\n", body) : -1;
	free(body);
	json_object_put(o);
	if (len < 0)
		r = err_set(e, ENOMEM, "cannot append to '%s'", path);
	else if ((r = safefile_write_all(fd, line, (size_t)len)) < 0)
		r = err_set(e, -r, "cannot append to '%s'", path);
	else if (sync && fsync(fd) < 0)
		r = err_set(e, errno, "cannot sync '%s'", path);
	free(line);
	close(fd);
	return r;
}

/* id, time and who first, then the plan. */
static struct json_object *entry_json(const struct plan *p, long long id, const char *record)
{
	char when[32], host[256] = "";
	time_t t = time(NULL);
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	/* _r: the console applies in a worker thread. */
	struct passwd pwd, *pw = NULL;
	char pwbuf[1024];
	if (getpwuid_r(getuid(), &pwd, pwbuf, sizeof(pwbuf), &pw) != 0)
		pw = NULL;
	gethostname(host, sizeof(host) - 1);

	struct json_object *o = json_object_new_object(), *plan = plan_to_json(p);
	json_object_object_add(o, "id", json_object_new_int64(id));
	if (record)
		json_object_object_add(o, "record", json_object_new_string(record));
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "user", pw ? json_object_new_string(pw->pw_name) : NULL);
	json_object_object_add(o, "uid", json_object_new_int((int)getuid()));
	const char *sudo = getenv("SUDO_USER");
	if (sudo && *sudo)
		json_object_object_add(o, "sudo_user", json_object_new_string(sudo));
	json_object_object_add(o, "host", json_object_new_string(host));
	plan_json_guids(plan);
	json_object_object_foreach(plan, k, v)
		json_object_object_add(o, k, json_object_get(v));
	json_object_put(plan);
	return o;
}

static struct json_object *started_json(const void *arg, long long id)
{
	struct json_object *o = entry_json(arg, id, "started");
	json_object_object_add(o, "result", json_object_new_string("interrupted"));
	json_object_object_add(o, "error",
			       json_object_new_string("the plan did not finish: ibvf ended during "
						      "it (the steps marked ok ran; the next one "
						      "may have)"));
	return o;
}

int journal_begin(struct sys *s, struct plan *p, struct err *e)
{
	long long id = 0;
	int r = append_line(s, true, &id, started_json, p, true, e);
	if (r == 0)
		p->journal_id = id;
	return r;
}

struct step_arg {
	const struct plan *p;
	size_t i;
};

static struct json_object *step_json(const void *arg, long long id)
{
	const struct step_arg *a = arg;
	const struct step *st = &a->p->steps[a->i];
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(id));
	json_object_object_add(o, "record", json_object_new_string("step"));
	json_object_object_add(o, "step", json_object_new_int64((int64_t)a->i + 1));
	json_object_object_add(o, "status", json_object_new_string(step_status_name(st->status)));
	if (st->detail[0])
		json_object_object_add(o, "detail", json_object_new_string(st->detail));
	if (st->error[0])
		json_object_object_add(o, "error", json_object_new_string(st->error));
	return o;
}

int journal_step(struct sys *s, const struct plan *p, size_t i, struct err *e)
{
	long long id = p->journal_id;
	struct step_arg a = {p, i};
	/* Not synced: a record per step, and the page cache outlives the process. */
	return append_line(s, false, &id, step_json, &a, false, e);
}

static struct json_object *final_json(const void *arg, long long id)
{
	return entry_json(arg, id, NULL);
}

int journal_append(struct sys *s, struct plan *p, struct err *e)
{
	long long id = p->journal_id;
	int r = append_line(s, id == 0, &id, final_json, p, true, e);
	if (r == 0)
		p->journal_id = id;
	return r;
}
