// SPDX-License-Identifier: MIT
/* Probe failures of the simulated kernel: the VFs listed in .sim/probe_fail
 * ("BDF ERRNO" per line: the seeded node's 0000:18:00.2, which mlx5_core
 * built for another kernel fails to probe) fail every time the driver
 * probes them, at VF creation, a bind, or after a reboot, and each failure
 * writes the driver core's record to the kernel log, as 6.8 words it. */
#include "core/sim/sim_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KMSG_READ_MAX (1024 * 1024)

int sim_probe_fails(const char *root, const char *bdf)
{
	char buf[4096];
	if (sim_get(root, ".sim/probe_fail", buf, sizeof(buf)) < 0)
		return 0;
	size_t len = strlen(bdf);
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		int err;
		if (!strncmp(line, bdf, len) && line[len] == ' ' &&
		    sscanf(line + len + 1, "%d", &err) == 1 && err < 0 && err > -4096)
			return err;
	}
	return 0;
}

/* The last record's sequence number and time, so the next follows them. */
static void kmsg_last(int fd, unsigned long long *seq, unsigned long long *usec)
{
	char *buf = malloc(KMSG_READ_MAX + 1);
	ssize_t n = buf ? read(fd, buf, KMSG_READ_MAX) : -1;
	*seq = 0;
	*usec = 0;
	if (n <= 0) {
		free(buf);
		return;
	}
	buf[n] = '\0';
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		unsigned long long s, u;
		if (sscanf(line, "%*d,%llu,%llu", &s, &u) == 2) {
			*seq = s + 1;
			*usec = u;
		}
	}
	free(buf);
}

unsigned long long sim_kmsg_last_usec(const char *root)
{
	char path[PATH_MAX];
	unsigned long long seq = 0, usec = 0;
	if (sim_fmt(path, sizeof(path), "%s/dev/kmsg", root) < 0)
		return 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	kmsg_last(fd, &seq, &usec);
	close(fd);
	return usec;
}

int sim_probe_fail_log(const char *root, const char *bdf, int err, struct err *e)
{
	char path[PATH_MAX];
	if (sim_fmt(path, sizeof(path), "%s/dev/kmsg", root) < 0)
		return err_setx(e, ENAMETOOLONG, "kernel log path too long");
	int fd = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : err_set(e, errno, "cannot open '%s'", path);
	unsigned long long seq, usec;
	kmsg_last(fd, &seq, &usec);
	char rec[256];
	int w = snprintf(rec, sizeof(rec),
			 "4,%llu,%llu,-;mlx5_core: probe of %s failed with error %d\n", seq,
			 usec + 1000, bdf, err);
	int r = 0;
	if (w < 0 || (size_t)w >= sizeof(rec) || write(fd, rec, (size_t)w) != w)
		r = err_set(e, errno ? errno : EIO, "cannot write '%s'", path);
	close(fd);
	return r;
}
