// SPDX-License-Identifier: MIT
#include "guid.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

const char *guid_unassignable(uint64_t g)
{
	if (g == 0)
		return "an all-zero GUID is what ibvf fixes";
	if (g == UINT64_MAX)
		return "all-ones is reserved";
	if (g >> 56 & 0x01)
		return "the group (multicast) bit, 0x01 of the first byte, is set: a port GUID "
		       "names one port";
	return NULL;
}

/* Reads exactly `digits` hex digits in groups of `group`, separated by sep. */
static int parse_groups(const char *s, int group, char sep, uint64_t *ret)
{
	uint64_t g = 0;
	int n = 0;
	for (const char *p = s; *p; p++) {
		if (n > 0 && n % group == 0 && *p == sep && n < 16) {
			if (p[1] == '\0' || p[1] == sep)
				return -EINVAL;
			continue;
		}
		int v = hexval((unsigned char)*p);
		if (v < 0 || n == 16)
			return -EINVAL;
		if (n > 0 && n % group == 0 && p[-1] != sep)
			return -EINVAL;
		g = (g << 4) | (uint64_t)v;
		n++;
	}
	if (n != 16)
		return -EINVAL;
	*ret = g;
	return 0;
}

int guid_parse(const char *s, uint64_t *ret)
{
	if (!s)
		return -EINVAL;
	size_t len = strlen(s);
	if (len == 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		uint64_t g = 0;
		for (size_t i = 2; i < len; i++) {
			int v = hexval((unsigned char)s[i]);
			if (v < 0)
				return -EINVAL;
			g = (g << 4) | (uint64_t)v;
		}
		*ret = g;
		return 0;
	}
	if (len == 23)
		return parse_groups(s, 2, ':', ret);
	if (len == 19)
		return parse_groups(s, 4, ':', ret);
	return -EINVAL;
}

void guid_format_sysfs(uint64_t g, char buf[static GUID_STRLEN])
{
	snprintf(buf, GUID_STRLEN, "%04x:%04x:%04x:%04x", (unsigned)(g >> 48) & 0xffff,
		 (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff, (unsigned)g & 0xffff);
}

bool guid_normalise(const char *s, char buf[static GUID_STRLEN])
{
	uint64_t g;
	if (guid_parse(s, &g) < 0)
		return false;
	guid_format_sysfs(g, buf);
	return true;
}

void guid_format_colon(uint64_t g, char buf[static GUID_STRLEN])
{
	char *p = buf;
	for (int i = 7; i >= 0; i--)
		p += sprintf(p, i ? "%02x:" : "%02x", (unsigned)(g >> (i * 8)) & 0xff);
}

void hwaddr_format(const uint8_t mac[static 6], char buf[static HWADDR_STRLEN])
{
	snprintf(buf, HWADDR_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2],
		 mac[3], mac[4], mac[5]);
}

int guid_from_gid(const char *gid, uint64_t *ret_prefix, uint64_t *ret_guid)
{
	/* Eight groups of four hex digits. */
	uint64_t half[2] = {0, 0};
	const char *p = gid;
	for (int grp = 0; grp < 8; grp++) {
		for (int i = 0; i < 4; i++, p++) {
			int v = hexval((unsigned char)*p);
			if (v < 0)
				return -EINVAL;
			half[grp / 4] = (half[grp / 4] << 4) | (uint64_t)v;
		}
		if (grp < 7 && *p++ != ':')
			return -EINVAL;
	}
	while (*p == '\n' || *p == ' ')
		p++;
	if (*p)
		return -EINVAL;
	if (ret_prefix)
		*ret_prefix = half[0];
	if (ret_guid)
		*ret_guid = half[1];
	return 0;
}

int guid_from_ipoib_addr(const char *addr, uint64_t *ret)
{
	unsigned int b[20];
	int n = 0, used = 0;
	const char *p = addr;
	while (n < 20 && sscanf(p, "%2x%n", &b[n], &used) == 1) {
		p += used;
		n++;
		if (*p == ':')
			p++;
		else
			break;
	}
	if (n != 20 || *p)
		return -EINVAL;
	uint64_t g = 0;
	for (int i = 12; i < 20; i++)
		g = (g << 8) | b[i];
	*ret = g;
	return 0;
}
