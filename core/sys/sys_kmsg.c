// SPDX-License-Identifier: MIT
/* The kernel log through the kernel boundary: /dev/kmsg on a node, or a
 * captured copy of it (a file) under --root. */
#include "sys_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/safefile.h"

/* Drops the oldest whole lines of buf until at most keep bytes are left. */
static size_t kmsg_drop_oldest(char *buf, size_t len, size_t keep)
{
	if (len <= keep)
		return len;
	size_t cut = len - keep;
	char *nl = memchr(buf + cut, '\n', len - cut);
	cut = nl ? (size_t)(nl + 1 - buf) : len;
	memmove(buf, buf + cut, len - cut);
	return len - cut;
}

/* /dev/kmsg gives one record per read() as "prio,seq,usec,flags;message\n"
 * followed by continuation lines; a captured copy is the same text, or a
 * dmesg text, in a file. The newest max bytes are kept. */
int sys_read_kmsg(struct sys *s, size_t max, char **ret, size_t *ret_len)
{
	int fd = sys_open_rel(s, "/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	/* Under --root a device is not the tree's log (it is this host's, or
	 * /dev/zero's endless bytes): only the node's own /dev/kmsg is read
	 * as one. */
	if (!S_ISCHR(st.st_mode) || strcmp(s->root, "/")) {
		int r = S_ISREG(st.st_mode)
				? safefile_read_tail(fd, st.st_size, max, ret, ret_len, NULL)
				: -EINVAL;
		close(fd);
		return r;
	}
	size_t cap = max + 8192, len = 0;
	char *buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, 8192);
		if (n < 0 && errno == EPIPE)
			continue; /* records were overwritten: go on */
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len > max)
			len = kmsg_drop_oldest(buf, len, max / 2);
	}
	close(fd);
	buf[len] = '\0';
	*ret = buf;
	if (ret_len)
		*ret_len = len;
	return 0;
}
