// SPDX-License-Identifier: MIT
#include "when.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "text.h"

static int duration(const char *s, int64_t *ret_us)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	long long n = strtoll(s, &end, 10);
	static const struct {
		const char *unit;
		int64_t us;
	} units[] = {{"s", 1000000},	   {"sec", 1000000},	{"m", 60000000},
		     {"min", 60000000},	   {"h", 3600000000ll}, {"d", 86400000000ll},
		     {"w", 604800000000ll}};
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (!strcmp(end, units[i].unit) && n >= 0 && n <= INT64_MAX / units[i].us) {
			*ret_us = n * units[i].us;
			return 0;
		}
	return -EINVAL;
}

/* The fraction and zone after the seconds: ".5", "Z", "+01:00". */
static int zone_tail(const char *p, struct tm *tm, bool *utc, int64_t *frac_us, long *off_s)
{
	*frac_us = 0;
	*off_s = 0;
	if (*p == '.') {
		int64_t scale = 100000;
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			*frac_us += (*p - '0') * scale;
	}
	if (*p == 'Z' || *p == 'z') {
		*utc = true;
		p++;
	} else if (*p == '+' || *p == '-') {
		/* Exactly "+HH:MM": never a step past the string's end. */
		if (!isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2]) || p[3] != ':' ||
		    !isdigit((unsigned char)p[4]) || !isdigit((unsigned char)p[5]))
			return -EINVAL;
		int h = (p[1] - '0') * 10 + (p[2] - '0'), m = (p[4] - '0') * 10 + (p[5] - '0');
		if (h > 23 || m > 59)
			return -EINVAL;
		*off_s = (*p == '-' ? -1 : 1) * (h * 3600L + m * 60L);
		*utc = true;
		p += 6;
	}
	(void)tm;
	return *p ? -EINVAL : 0;
}

static int absolute(const char *s, int64_t now_us, int64_t *ret_us)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	tm.tm_isdst = -1;
	const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p) {
		memset(&tm, 0, sizeof(tm));
		tm.tm_isdst = -1;
		p = strptime(s, "%Y-%m-%d %H:%M:%S", &tm);
	}
	if (!p) {
		memset(&tm, 0, sizeof(tm));
		tm.tm_isdst = -1;
		p = strptime(s, "%Y-%m-%d %H:%M", &tm);
	}
	if (!p) {
		/* A time of day: today's. */
		time_t now = (time_t)(now_us / 1000000);
		localtime_r(&now, &tm);
		tm.tm_sec = 0;
		tm.tm_isdst = -1;
		p = strptime(s, "%H:%M:%S", &tm);
		if (!p)
			p = strptime(s, "%H:%M", &tm);
	}
	if (!p)
		return -EINVAL;
	bool utc = false;
	int64_t frac;
	long off;
	if (zone_tail(p, &tm, &utc, &frac, &off) < 0)
		return -EINVAL;
	time_t t = utc ? timegm(&tm) - off : mktime(&tm);
	if (t == (time_t)-1)
		return -EINVAL;
	*ret_us = (int64_t)t * 1000000 + frac;
	return 0;
}

int when_parse(const char *what, const char *s, int64_t now_us, int64_t *ret_us)
{
	int64_t d;
	if (duration(s, &d) == 0) {
		*ret_us = now_us - d;
		return 0;
	}
	if (absolute(s, now_us, ret_us) == 0)
		return 0;
	char esc[128];
	text_escape_into(esc, sizeof(esc), s);
	cli_error("--%s '%s': not a duration (90s, 30m, 6h, 2d) or a time "
		  "(2026-12-04T03:00:00Z, '2026-12-04 03:00', 03:00)",
		  what, esc);
	return -EINVAL;
}
