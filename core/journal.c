// SPDX-License-Identifier: MIT
/* The journal: a plain file under the node's root prefix (not sysfs, so not
 * through the kernel boundary's write), one JSON line per applied plan. */
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

#include "guid.h"

static void journal_path(struct sys *s, char buf[static PATH_MAX])
{
	const char *root = sys_root(s);
	snprintf(buf, PATH_MAX, "%s%s", strcmp(root, "/") ? root : "", JOURNAL_PATH);
}

/* mkdir -p of the journal's directory. */
static int make_dirs(const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* The last id in the file, read from its last line (0 when empty). */
static long long last_id(int fd)
{
	off_t size = lseek(fd, 0, SEEK_END);
	if (size <= 0)
		return 0;
	char buf[65536];
	off_t from = size > (off_t)sizeof(buf) - 1 ? size - (off_t)sizeof(buf) + 1 : 0;
	ssize_t n = pread(fd, buf, (size_t)(size - from), from);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	char *line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	const char *id = strstr(line, "\"id\":");
	return id ? atoll(id + 5) : 0;
}

int journal_append(struct sys *s, struct plan *p, struct err *e)
{
	char path[PATH_MAX], when[32], host[256] = "";
	int r;

	journal_path(s, path);
	if ((r = make_dirs(path)) < 0)
		return err_set(e, -r, "cannot make the directory of '%s'", path);
	int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0)
		return err_set(e, errno, "cannot open the journal '%s'", path);
	if (flock(fd, LOCK_EX) < 0) {
		r = err_set(e, errno, "cannot lock the journal '%s'", path);
		close(fd);
		return r;
	}
	long long id = last_id(fd) + 1;
	time_t t = time(NULL);
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	/* _r: the console applies in a worker thread. */
	struct passwd pwd, *pw = NULL;
	char pwbuf[1024];
	if (getpwuid_r(getuid(), &pwd, pwbuf, sizeof(pwbuf), &pw) != 0)
		pw = NULL;
	gethostname(host, sizeof(host) - 1);

	/* id, time and who first, then the plan. */
	struct json_object *o = json_object_new_object(), *plan = plan_to_json(p);
	json_object_object_add(o, "id", json_object_new_int64(id));
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "user", pw ? json_object_new_string(pw->pw_name) : NULL);
	json_object_object_add(o, "uid", json_object_new_int((int)getuid()));
	const char *sudo = getenv("SUDO_USER");
	if (sudo && *sudo)
		json_object_object_add(o, "sudo_user", json_object_new_string(sudo));
	json_object_object_add(o, "host", json_object_new_string(host));
	json_object_object_foreach(plan, k, v)
		json_object_object_add(o, k, json_object_get(v));
	json_object_put(plan);
	char *line = NULL;
	const char *body = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (asprintf(&line, "%s\n", body) < 0)
		line = NULL;
	json_object_put(o);
	ssize_t n = line ? write(fd, line, strlen(line)) : -1;
	r = n == (ssize_t)(line ? strlen(line) : 1)
		    ? 0
		    : err_set(e, n < 0 ? errno : EIO, "cannot append to '%s'", path);
	free(line);
	if (r == 0 && fsync(fd) < 0)
		r = err_set(e, errno, "cannot sync '%s'", path);
	close(fd);
	if (r == 0)
		p->journal_id = id;
	return r;
}

int journal_read(struct sys *s, struct json_object **ret, size_t *ret_skipped, struct err *e)
{
	char path[PATH_MAX];
	journal_path(s, path);
	struct json_object *arr = json_object_new_array();
	size_t skipped = 0;
	FILE *f = fopen(path, "re");
	if (!f) {
		if (errno != ENOENT) {
			json_object_put(arr);
			return err_set(e, errno, "cannot read the journal '%s'", path);
		}
	} else {
		char *line = NULL;
		size_t cap = 0, total = 0;
		ssize_t n;
		while ((n = getline(&line, &cap, f)) > 0 && total < JOURNAL_MAX) {
			total += (size_t)n;
			struct json_object *o = json_tokener_parse(line);
			if (o && json_object_is_type(o, json_type_object)) {
				json_object_array_add(arr, o);
				continue;
			}
			json_object_put(o); /* a line that parses as another JSON value */
			if (n > 1)
				skipped++;
		}
		free(line);
		fclose(f);
	}
	if (ret_skipped)
		*ret_skipped = skipped;
	*ret = arr;
	return 0;
}

static const char *jget_str(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

static long long jget_int(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) : 0;
}

int journal_undo_req(struct json_object *entries, long long id, struct action_req *ret,
		     struct err *e)
{
	struct json_object *ent = NULL;
	for (size_t i = 0; i < json_object_array_length(entries); i++) {
		struct json_object *o = json_object_array_get_idx(entries, i);
		if (jget_int(o, "id") == id)
			ent = o;
		else if (jget_int(o, "undo_of") == id &&
			 strcmp(jget_str(o, "result") ?: "", "ok") == 0)
			return err_setx(e, EALREADY, "journal entry %lld was undone by entry %lld",
					id, jget_int(o, "id"));
	}
	if (!ent)
		return err_setx(e, ENOENT, "no journal entry %lld", id);
	const char *action = jget_str(ent, "action") ?: "?";
	struct json_object *changes;
	if (!json_object_object_get_ex(ent, "changes", &changes) ||
	    !json_object_is_type(changes, json_type_array) ||
	    json_object_array_length(changes) == 0)
		return err_setx(e, EOPNOTSUPP, "journal entry %lld ('%s') changed nothing to undo",
				id, action);
	struct action_req req = {.undo_of = id};
	if (!strcmp(action, "vf rename-all")) {
		/* The plan reads the names back from this entry (actions_rename_all.c). */
		req.kind = ACTION_RENAME_ALL;
		*ret = req;
		return 0;
	}
	if (!strcmp(action, "persist") || !strcmp(action, "persist undo")) {
		req.kind = ACTION_FILES_UNDO; /* the plan reads the files from the entry */
		*ret = req;
		return 0;
	}
	bool rename = !strcmp(action, "vf rename") || !strcmp(action, "link rename");
	if (!rename && strcmp(action, "vf guid"))
		return err_setx(e, EOPNOTSUPP,
				"cannot undo journal entry %lld: undo covers renames, GUID "
				"changes and persist, not '%s'",
				id, action);
	for (size_t i = 0; i < json_object_array_length(changes); i++) {
		struct json_object *c = json_object_array_get_idx(changes, i);
		const char *before = jget_str(c, "before"), *after = jget_str(c, "after");
		const char *bdf = jget_str(c, "bdf");
		int kind = change_kind_parse(jget_str(c, "kind"));
		uint64_t g;
		if (!before || !after)
			return err_setx(
				e, EOPNOTSUPP,
				"cannot undo journal entry %lld: the value before is unknown", id);
		if (kind == CHANGE_NAME) {
			req.kind = bdf ? ACTION_RENAME : ACTION_RENAME_LINK;
			snprintf(req.target, sizeof(req.target), "%s", bdf ? bdf : after);
			snprintf(req.name, sizeof(req.name), "%s", before);
			continue;
		}
		if (guid_parse(before, &g) < 0 || g == 0)
			return err_setx(e, EOPNOTSUPP,
					"cannot undo journal entry %lld: the %s was %s before, and "
					"ibvf does not set zero GUIDs",
					id, change_kind_name((enum change_kind)kind), before);
		req.kind = ACTION_GUID;
		snprintf(req.target, sizeof(req.target), "%s", bdf ? bdf : "");
		if (kind == CHANGE_NODE_GUID) {
			req.set_node = true;
			req.node_guid = g;
		} else {
			req.set_port = true;
			req.port_guid = g;
		}
	}
	*ret = req;
	return 0;
}
