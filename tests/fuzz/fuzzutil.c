// SPDX-License-Identifier: MIT
/* Scratch roots and small helpers of the fuzz targets (fuzzutil.h). */
#include "fuzzutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sanitizer/common_interface_defs.h>

static char root[PATH_MAX];
static pid_t owner;

static void rm_root(void);

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("fuzz: oracle failed: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	rm_root();
	abort();
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void rm_root(void)
{
	if (root[0] && getpid() == owner)
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_root(void)
{
	if (root[0])
		return root;
	/* A file written per input: tmpfs makes that 15 times faster than a disk. */
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(root, sizeof(root), "%s/ibvf-fuzz-XXXXXX", tmp);
	if (!mkdtemp(root))
		fuzz_fail("cannot make a scratch root '%s': %s", root, strerror(errno));
	owner = getpid();
	atexit(rm_root);
	__sanitizer_set_death_callback(rm_root); /* a sanitizer report ends in _exit */
	return root;
}

static void mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			fuzz_fail("cannot make '%s': %s", path, strerror(errno));
		*p = '/';
	}
}

void fuzz_write(const char *dir, const char *rel, const uint8_t *data, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s%s", dir, rel);
	mkdirs(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		fuzz_fail("cannot write '%s': %s", path, strerror(errno));
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n <= 0)
			fuzz_fail("cannot write '%s': %s", path, strerror(errno));
		data += n;
		len -= (size_t)n;
	}
	close(fd);
}

void fuzz_unlink(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s%s", dir, rel);
	unlink(path);
}

char *fuzz_strndup(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1);
	if (!s)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

char *fuzz_field(const uint8_t **data, size_t *len)
{
	const uint8_t *nul = memchr(*data, 0, *len);
	size_t n = nul ? (size_t)(nul - *data) : *len;
	char *s = fuzz_strndup(*data, n);
	*data += n + (nul ? 1 : 0);
	*len -= n + (nul ? 1 : 0);
	return s;
}
