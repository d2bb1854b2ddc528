// SPDX-License-Identifier: MIT
/* The pod-binding files themselves (docs/kubernetes.md): reading one whole
 * and bounded, listing a directory, keeping those that could not be read
 * whole, and whether the netns file a binding names is still there. */
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pods_impl.h"
#include "core/sys/sys.h"

#define BROKEN_MAX 64

void pods_broken(struct pods_ctx *c, const char *path, const char *why)
{
	struct pod_set *set = c->set;
	if (set->n_broken >= BROKEN_MAX)
		return;
	struct bad_file *v = realloc(set->broken, (set->n_broken + 1) * sizeof(*v));
	if (!v) {
		c->err = -ENOMEM;
		return;
	}
	set->broken = v;
	v[set->n_broken] = (struct bad_file){.path = strdup(path), .why = strdup(why)};
	if (!v[set->n_broken].path || !v[set->n_broken].why) {
		free(v[set->n_broken].path);
		free(v[set->n_broken].why);
		c->err = -ENOMEM;
		return;
	}
	set->n_broken++;
}

/* A file that cannot be used: a note for people and a broken file for checks. */
static void skipped(struct pods_ctx *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void skipped(struct pods_ctx *c, const char *path, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pods_note(c, "skipped '%s': %s", path, why);
	pods_broken(c, path, why);
}

/* Reads and parses one JSON file; a file that cannot be used is noted and
 * yields NULL. Half-written files are common: CNI writes them as pods start. */
struct json_object *pods_parse_file(struct pods_ctx *c, const char *path)
{
	char *buf;
	size_t len;
	int r = sys_read_file(c->s, path, PODS_FILE_MAX, &buf, &len);
	if (r == -ENOENT || r == -EISDIR)
		return NULL; /* gone since the listing, or a subdirectory */
	if (r == -EFBIG) {
		skipped(c, path, "larger than %u bytes", PODS_FILE_MAX);
		return NULL;
	}
	if (r < 0) {
		if (r == -ENOMEM)
			c->err = r;
		skipped(c, path, "%s", strerror(-r));
		return NULL;
	}
	struct json_tokener *tok = json_tokener_new();
	if (!tok) {
		free(buf);
		c->err = -ENOMEM;
		return NULL;
	}
	struct json_object *o = len ? json_tokener_parse_ex(tok, buf, (int)len) : NULL;
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);

	if (len == 0) {
		skipped(c, path, "empty file (half-written?)");
	} else if (je == json_tokener_continue) {
		char why[96];
		snprintf(why, sizeof(why), "truncated JSON: ends at byte %zu (half-written?)", len);
		pods_note(c, "skipped '%s': truncated JSON (half-written?)", path);
		pods_broken(c, path, why);
	} else if (je != json_tokener_success) {
		skipped(c, path, "malformed JSON at byte %zu: %s", end,
			json_tokener_error_desc(je));
	} else {
		while (end < len && isspace((unsigned char)buf[end]))
			end++;
		if (end < len)
			skipped(c, path, "malformed JSON: data after the end at byte %zu", end);
		else if (!json_object_is_type(o, json_type_object))
			skipped(c, path, "not a JSON object");
		else {
			free(buf);
			return o;
		}
	}
	json_object_put(o);
	free(buf);
	return NULL;
}

/* Calls fn for every regular entry of dir (bounded), with its full path. */
void pods_for_each_file(struct pods_ctx *c, const char *dir,
			void (*fn)(struct pods_ctx *c, const char *path, const char *name))
{
	char **names;
	size_t n;
	if (sys_list(c->s, dir, &names, &n) < 0)
		return;
	if (n > FILES_MAX)
		pods_note(c, "'%s' holds %zu entries: read the first %d", dir, n, FILES_MAX);
	for (size_t i = 0; i < n && i < FILES_MAX && !c->err; i++) {
		char path[PATH_MAX];
		if (names[i][0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= (int)sizeof(path))
			continue;
		fn(c, path, names[i]);
	}
	sys_list_free(names, n);
}

/* Whether path, or the symlink at path, is there under the root. */
static bool path_there(struct sys *s, const char *path)
{
	char target[PATH_MAX];
	return sys_exists(s, path) == 0 || sys_readlink(s, path, target, sizeof(target)) > 0;
}

/* /var/run is a symlink to /run: in a captured tree an absolute one would
 * lead out of it, so the path is taken under /run. */
static void netns_path(struct sys *s, const char *netns, char *buf, size_t size)
{
	char target[64];
	if (!strncmp(netns, "/var/run/", 9) &&
	    sys_readlink(s, "/var/run", target, sizeof(target)) > 0 &&
	    (!strcmp(target, "/run") || !strcmp(target, "../run")))
		snprintf(buf, size, "/run/%s", netns + 9);
	else
		snprintf(buf, size, "%s", netns);
}

void pods_netns_presence(struct pods_ctx *c)
{
	bool live = sys_is_sim(c->s) || !strcmp(sys_root(c->s), "/");
	for (size_t i = 0; i < c->set->n; i++) {
		struct pod_binding *b = &c->set->v[i];
		char path[PATH_MAX], dir[PATH_MAX];
		if (!b->netns || b->netns[0] != '/' || strstr(b->netns, "/../"))
			continue;
		netns_path(c->s, b->netns, path, sizeof(path));
		snprintf(dir, sizeof(dir), "%s", path);
		char *slash = strrchr(dir, '/');
		if (!strncmp(path, "/proc/", 6)) {
			snprintf(dir, sizeof(dir), "/proc/1");
			/* In a container's own PID namespace /proc/<pid> is one of
			 * its processes, or none: not the node's. */
			if (!sys_is_sim(c->s) && live && !pods_in_node_pidns()) {
				pods_note(c,
					  "netns '%s' not judged: /proc here is not the node's "
					  "(another PID namespace: a container without hostPID)",
					  b->netns);
				continue;
			}
		} else if (slash && slash != dir)
			*slash = '\0';
		if (!live && sys_exists(c->s, dir) < 0)
			continue; /* not captured: unknown */
		b->netns_present = (struct kval){true, path_there(c->s, path)};
	}
}
