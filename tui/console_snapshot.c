// SPDX-License-Identifier: MIT
/* `s`, F9 and `:snapshot [FILE]`: the node's JSON for a ticket. It asks
 * first, showing the full path, then writes a new file (O_EXCL, never
 * through a link, mode 0600: it names the node's devices and pods) and
 * renames it into place, so a reader never sees half a snapshot. */
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
#include "core/json.h"
#include "core/plan.h"
#include "core/safefile.h"

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
	char name[PATH_MAX], host[80], stamp[32], path[PATH_MAX], cwd[PATH_MAX], shown[PATH_MAX];
	time_t now = time(NULL);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	safe_part(c->node->hostname, host, sizeof(host));
	if (file)
		snprintf(name, sizeof(name), "%s", file);
	else
		snprintf(name, sizeof(name), "ibvf-snapshot-%s-%s.json", host, stamp);
	int r = 0;
	if (name[0] != '/' && getcwd(cwd, sizeof(cwd)))
		r = plan_fmt(path, sizeof(path), "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", name);
	else
		snprintf(path, sizeof(path), "%s", name);
	if (r < 0) {
		console_message(c, TR_ERROR, "cannot write a snapshot: the path is too long");
		return;
	}
	printable(path, shown, sizeof(shown));
	bool exists = access(path, F_OK) == 0;
	console_ask(c, write_yes, path, "write a snapshot of the node to '%s'%s? y/N", shown,
		    exists ? " (it exists: replace it)" : "");
}

/* A new file beside path, 0600, created here and now (not a link). */
static int temp_open(const char *path, char *tmp, size_t size)
{
	const char *base = strrchr(path, '/');
	int dir_len = base ? (int)(base - path + 1) : 0;
	base = base ? base + 1 : path;
	for (int i = 0; i < 16; i++) {
		snprintf(tmp, size, "%.*s.%s.%08lx", dir_len, path, base,
			 (unsigned long)random() ^ (unsigned long)getpid());
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

int console_snapshot_write(struct console *c, const char *path)
{
	char tmp[PATH_MAX + 32], shown[PATH_MAX];
	printable(path, shown, sizeof(shown));
	struct json_object *o = node_to_json(c->node);
	const char *s = o ? json_object_to_json_string_ext(
				    o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					       JSON_C_TO_STRING_NOSLASHESCAPE)
			  : NULL;
	int fd = s ? temp_open(path, tmp, sizeof(tmp)) : -ENOMEM, r = fd < 0 ? fd : 0;
	if (fd >= 0) {
		if (fchmod(fd, 0600) < 0 || (r = safefile_write_all(fd, s, strlen(s))) < 0 ||
		    (r = safefile_write_all(fd, "\n", 1)) < 0 || fsync(fd) < 0)
			r = r < 0 ? r : -errno;
		if (close(fd) < 0 && !r)
			r = -errno;
		if (!r && rename(tmp, path) < 0)
			r = -errno;
		if (r < 0)
			unlink(tmp);
	}
	json_object_put(o);
	if (r < 0) {
		console_message(c, TR_ERROR, "cannot write snapshot '%s': %s", shown, strerror(-r));
		return r;
	}
	console_message(c, TR_STATUS, "snapshot written to '%s'", shown);
	return 0;
}
