// SPDX-License-Identifier: MIT
/* The kernel's CPU list syntax (cpulist.h). */
#include "cpulist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* s for a message: printable ASCII as is, anything else as \xNN, at most
 * ~40 characters of it. */
static void quote(const char *s, char *buf, size_t size)
{
	size_t j = 0;
	for (size_t i = 0; s[i] && j + 8 < size; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (i >= 40) {
			j += (size_t)snprintf(buf + j, size - j, "...");
			break;
		}
		if (ch >= 0x20 && ch < 0x7f && ch != '\\')
			buf[j++] = (char)ch;
		else
			j += (size_t)snprintf(buf + j, size - j, "\\x%02x", ch);
	}
	buf[j < size ? j : size - 1] = '\0';
}

static int bad(struct err *e, const char *what, const char *s, const char *why, size_t pos)
{
	char q[200];
	quote(s, q, sizeof(q));
	return err_setx(e, EINVAL, "%s '%s' is not a CPU list: %s at character %zu", what, q, why,
			pos + 1);
}

/* One CPU number at s[*i]: digits only, below CPU_SETSIZE. */
static int number(const char *s, size_t *i, const char *what, unsigned int *ret, struct err *e)
{
	size_t start = *i;
	unsigned long v = 0;
	if (s[*i] < '0' || s[*i] > '9')
		return bad(e, what, s, "a CPU number expected", *i);
	while (s[*i] >= '0' && s[*i] <= '9') {
		if (v < 1000000)
			v = v * 10 + (unsigned long)(s[*i] - '0');
		(*i)++;
	}
	if (*i - start > 1 && s[start] == '0')
		return bad(e, what, s, "a number with a leading zero", start);
	if (v >= CPU_SETSIZE) {
		char q[200], cpu[32] = "a CPU";
		quote(s, q, sizeof(q));
		if (v < 1000000)
			snprintf(cpu, sizeof(cpu), "CPU %lu", v);
		return err_setx(e, ERANGE, "%s '%s' names %s, beyond %d (the most ibvf handles)",
				what, q, cpu, CPU_SETSIZE - 1);
	}
	*ret = (unsigned int)v;
	return 0;
}

int cpulist_parse(const char *s, const char *what, cpu_set_t *ret, struct err *e)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	size_t len = strnlen(s, CPULIST_MAX_LEN + 1), i = 0;
	if (len > CPULIST_MAX_LEN)
		return err_setx(e, EINVAL, "%s is not a CPU list: longer than %d characters", what,
				CPULIST_MAX_LEN);
	if (len && s[len - 1] == '\n')
		len--; /* sysfs ends its line; nothing may follow it */
	while (i < len) {
		unsigned int a, b;
		int r = number(s, &i, what, &a, e);
		if (r < 0)
			return r;
		b = a;
		if (s[i] == '-') {
			i++;
			if ((r = number(s, &i, what, &b, e)) < 0)
				return r;
			if (b < a)
				return bad(e, what, s, "a range that runs backwards", i - 1);
		}
		if (s[i] == ':')
			return bad(e, what, s, "the a-b:used/group form is not supported", i);
		for (unsigned int c = a; c <= b; c++)
			CPU_SET(c, &set);
		if (i == len)
			break;
		if (s[i] != ',')
			return bad(e, what, s, "',' or the end expected", i);
		if (++i == len)
			return bad(e, what, s, "a CPU number expected", i);
	}
	*ret = set;
	return 0;
}

int cpulist_read(const char *path, cpu_set_t *ret, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return err_set(e, errno, "cannot open '%s'", path);
	char *buf = malloc(CPULIST_MAX_LEN + 2);
	if (!buf) {
		close(fd);
		return err_setx(e, ENOMEM, "out of memory reading '%s'", path);
	}
	size_t n = 0;
	int r = 0;
	while (n < CPULIST_MAX_LEN + 1) {
		ssize_t k = read(fd, buf + n, CPULIST_MAX_LEN + 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = err_set(e, errno, "cannot read '%s'", path);
			break;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	if (!r && n > CPULIST_MAX_LEN)
		r = err_setx(e, EINVAL, "'%s' is longer than %d bytes", path, CPULIST_MAX_LEN);
	if (!r && memchr(buf, '\0', n))
		r = err_setx(e, EINVAL, "'%s' holds a NUL byte", path);
	if (!r) {
		buf[n] = '\0';
		r = cpulist_parse(buf, path, ret, e);
	}
	free(buf);
	return r;
}

void cpulist_format(const cpu_set_t *s, char *buf, size_t size)
{
	size_t j = 0;
	if (!size)
		return;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, s))
			continue;
		int end = c;
		while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, s))
			end++;
		char piece[32];
		int n = end > c ? snprintf(piece, sizeof(piece), "%s%d-%d", j ? "," : "", c, end)
				: snprintf(piece, sizeof(piece), "%s%d", j ? "," : "", c);
		/* Room for the piece and, if more follows, ",...". */
		if (j + (size_t)n + 5 > size) {
			if (j + 5 <= size)
				memcpy(buf + j, j ? ",..." : "...", j ? 5 : 4);
			return;
		}
		memcpy(buf + j, piece, (size_t)n + 1);
		j += (size_t)n;
		c = end;
	}
}

int cpulist_first_missing(const cpu_set_t *a, const cpu_set_t *b)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, a) && !CPU_ISSET(c, b))
			return c;
	return -1;
}
