// SPDX-License-Identifier: MIT
/* Small sysfs files read by the benchmark's placement and rdma_cm code. */
#include "sysfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* The first line of a small sysfs file, at most size - 1 bytes. */
int bench_read_line(const char *path, char *buf, size_t size, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0)
		return err_set(e, errno, "cannot open '%s'", path);
	ssize_t n;
	do
		n = read(fd, buf, size);
	while (n < 0 && errno == EINTR);
	int saved = errno;
	close(fd);
	if (n < 0)
		return err_set(e, saved, "cannot read '%s'", path);
	if ((size_t)n >= size)
		return err_setx(e, EINVAL, "'%s' is longer than %zu bytes", path, size - 1);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}
