// SPDX-License-Identifier: MIT
/* Kernel attribute files (sysfs) read into values that know whether they are
 * known: a missing file, an unreadable one or a value that does not parse
 * reads as unknown, never as zero. */
#include "attr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"

/* Builds dir/file; a path that does not fit reads as missing. */
const char *attr_join(char buf[static PATH_MAX], const char *dir, const char *file)
{
	size_t dl = strlen(dir), fl = strlen(file);
	if (dl + 1 + fl >= PATH_MAX)
		return "/nonexistent";
	memcpy(buf, dir, dl);
	buf[dl] = '/';
	memcpy(buf + dl + 1, file, fl + 1);
	return buf;
}

int attr_read(struct sys *s, const char *dir, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX];
	return sys_read_attr(s, attr_join(path, dir, file), buf, size);
}

char *attr_read_str(struct sys *s, const char *dir, const char *file)
{
	char buf[ATTR_MAX];
	if (attr_read(s, dir, file, buf, sizeof(buf)) <= 0)
		return NULL;
	return strdup(buf);
}

/* Parses the leading integer of a value ("4: ACTIVE", "0x15b3", "16").
 * Anything else leaves the value unknown. */
struct kval attr_parse_int(const char *buf)
{
	struct kval k = {0};
	const char *p = buf;
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p) && *p != '-')
		return k;
	char *end;
	errno = 0;
	long long v = strtoll(p, &end, 0);
	if (errno || end == p)
		return k;
	if (*end && *end != ':' && *end != ' ')
		return k;
	k.known = true;
	k.v = v;
	return k;
}

struct kval attr_read_int(struct sys *s, const char *dir, const char *file)
{
	char buf[ATTR_MAX];
	if (attr_read(s, dir, file, buf, sizeof(buf)) <= 0)
		return (struct kval){0};
	return attr_parse_int(buf);
}

/* "4: ACTIVE" -> "ACTIVE" */
static char *word_after_colon(const char *buf)
{
	const char *c = strchr(buf, ':');
	if (!c)
		return NULL;
	c++;
	while (*c == ' ')
		c++;
	return *c ? strdup(c) : NULL;
}

struct kval attr_read_state(struct sys *s, const char *dir, const char *file, char **ret_name)
{
	char buf[ATTR_MAX];
	*ret_name = NULL;
	if (attr_read(s, dir, file, buf, sizeof(buf)) <= 0)
		return (struct kval){0};
	struct kval k = attr_parse_int(buf);
	if (k.known)
		*ret_name = word_after_colon(buf);
	return k;
}

/* "400 Gb/sec (4X NDR)" or "2.5 Gb/sec (1X SDR)" -> Mb/s */
struct kval attr_parse_rate_mbps(const char *rate)
{
	struct kval k = {0};
	const char *p = rate;
	if (!isdigit((unsigned char)*p))
		return k;
	int64_t whole = 0, frac = 0, scale = 1000;
	while (isdigit((unsigned char)*p) && whole < 100000000)
		whole = whole * 10 + (*p++ - '0');
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (scale > 1) {
				scale /= 10;
				frac += (*p - '0') * scale;
			}
			p++;
		}
	}
	if (strncmp(p, " Gb/sec", 7) != 0)
		return k;
	k.known = true;
	k.v = whole * 1000 + frac;
	return k;
}

struct kguid attr_read_guid(struct sys *s, const char *dir, const char *file)
{
	char buf[ATTR_MAX];
	uint64_t g;
	if (attr_read(s, dir, file, buf, sizeof(buf)) <= 0 || guid_parse(buf, &g) < 0)
		return (struct kguid){0};
	return (struct kguid){.known = true, .v = g};
}
