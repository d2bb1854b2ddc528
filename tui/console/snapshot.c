// SPDX-License-Identifier: MIT
/* `s`, F9 and `:snapshot [FILE]`: the node's JSON for a ticket. It asks
 * first, showing the full path, then writes a new file (O_EXCL, never
 * through a link, mode 0600: it names the node's devices and pods) and
 * renames it into place, so a reader never sees half a snapshot. Without
 * FILE it goes to /var/lib/ibvf/snapshots (0700) under the node's root (the
 * simulated node's directory under --sim), never to a predictable name in
 * the working directory; FILE's directory must be root's or the user's
 * and writable by no one else (safefile.h). */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "console_int.h"
#include "screen.h"
#include "core/base/escape.h"
#include "core/snapshot/json.h"
#include "core/actions/plan.h"
#include "core/base/safefile.h"
#include "core/sys/sys.h"

/* Under the node's root, as the journal (core/actions/journal.h). */
#define SNAPSHOT_DIR "/var/lib/ibvf/snapshots"

/* The hostname as a file name part: no '/', no dot first, nothing odd. */
static void safe_part(const char *s, char *buf, size_t size)
{
	size_t n = 0;
	for (; s && *s && n + 1 < size && n < 64; s++) {
		bool ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			  (*s >= '0' && *s <= '9') || *s == '-' || (*s == '.' && n > 0);
		buf[n] = ok ? *s : '_';
		n++;
	}
	buf[n] = '\0';
	if (!n)
		snprintf(buf, size, "node");
}

/* For the status line: a path shown as printable ASCII. */
static void printable(const char *s, char *buf, size_t size)
{
	size_t n = 0;
	for (; *s && n + 1 < size; s++)
		buf[n++] = *s >= 0x20 && *s < 0x7f ? *s : '?';
	buf[n] = '\0';
}

static void write_yes(struct console *c, const char *path)
{
	console_snapshot_write(c, path);
}

void console_snapshot_ask(struct console *c, const char *file)
{
	char host[80], stamp[32], path[PATH_MAX], cwd[PATH_MAX], shown[PATH_MAX];
	time_t now = time(NULL);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	safe_part(c->node->hostname, host, sizeof(host));
	const char *root = sys_root(c->sys);
	int r = 0;
	if (!file)
		r = plan_fmt(path, sizeof(path), "%s%s/ibvf-snapshot-%s-%s.json",
			     strcmp(root, "/") ? root : "", SNAPSHOT_DIR, host, stamp);
	else if (file[0] != '/' && getcwd(cwd, sizeof(cwd)))
		r = plan_fmt(path, sizeof(path), "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", file);
	else
		r = plan_fmt(path, sizeof(path), "%s", file);
	if (r < 0) {
		screen_message(c, TR_ERROR, "cannot write a snapshot: the path is too long");
		return;
	}
	printable(path, shown, sizeof(shown));
	bool exists = access(path, F_OK) == 0;
	console_ask(c, write_yes, path, "write a snapshot of the node to '%s'%s? y/N", shown,
		    exists ? " (it exists: replace it)" : "");
}

/* The default directory, made 0700 (it names the node's devices and pods)
 * in a parent that safefile_dir() opened without following a link. */
static int snapshot_dir(const char *path, struct err *e)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	if (len < sizeof(SNAPSHOT_DIR) || len >= sizeof(dir) ||
	    strncmp(path + len - strlen(SNAPSHOT_DIR), SNAPSHOT_DIR, strlen(SNAPSHOT_DIR)))
		return 0; /* a FILE the user gave: its directory is checked as it is */
	len -= strlen("/snapshots");
	memcpy(dir, path, len);
	dir[len] = '\0';
	int dfd, r = safefile_dir(dir, true, &dfd, e);
	if (r < 0)
		return r;
	if (mkdirat(dfd, "snapshots", 0700) == 0) {
		int fd = openat(dfd, "snapshots", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fchmod(fd, 0700) < 0)
			r = err_set(e, errno, "cannot make '%s/snapshots' private", dir);
		if (fd >= 0)
			close(fd);
	} else if (errno != EEXIST) {
		r = err_set(e, errno, "cannot make '%s/snapshots'", dir);
	}
	close(dfd);
	return r;
}

int console_snapshot_write(struct console *c, const char *path)
{
	char shown[PATH_MAX], *text = NULL;
	struct err e = {{0}};
	printable(path, shown, sizeof(shown));
	struct json_object *o = node_to_json(c->node);
	const char *s = o ? json_object_to_json_string_ext(
				    o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					       JSON_C_TO_STRING_NOSLASHESCAPE)
			  : NULL;
	/* Names from the node need not be UTF-8; the document must be. */
	char *utf8 = escape_json_text(s);
	int r = utf8 && asprintf(&text, "%s\n", utf8) >= 0 ? 0
							   : err_set(&e, ENOMEM, "out of memory");
	free(utf8);
	json_object_put(o);
	if (r == 0 && (r = snapshot_dir(path, &e)) == 0)
		r = safefile_write(path, text, 0600, &e);
	free(text);
	if (r < 0) {
		char why[sizeof(e.msg)];
		printable(e.msg, why, sizeof(why));
		screen_message(c, TR_ERROR, "cannot write snapshot '%s': %s", shown, why);
		return r;
	}
	screen_message(c, TR_STATUS, "snapshot written to '%s'", shown);
	return 0;
}
