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

/* Writes the hex digits of bytes (most significant first) with sep after
 * every `group` bytes but the last; NUL-terminated. Formats without
 * printf: JSON output formats a few GUIDs per VF. */
static void hex_groups(uint64_t v, int bytes, int group, char *buf)
{
	static const char digits[] = "0123456789abcdef";
	char *p = buf;
	for (int i = bytes - 1; i >= 0; i--) {
		unsigned int b = (unsigned int)(v >> (i * 8)) & 0xff;
		*p++ = digits[b >> 4];
		*p++ = digits[b & 0xf];
		if (i && i % group == 0)
			*p++ = ':';
	}
	*p = '\0';
}

void guid_format_sysfs(uint64_t g, char buf[static GUID_STRLEN])
{
	hex_groups(g, 8, 2, buf); /* "%04x:%04x:%04x:%04x" */
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
	hex_groups(g, 8, 1, buf); /* "%02x:" eight times */
}

void hwaddr_format(const uint8_t mac[static 6], char buf[static HWADDR_STRLEN])
{
	uint64_t v = 0;
	for (int i = 0; i < 6; i++)
		v = v << 8 | mac[i];
	hex_groups(v, 6, 1, buf); /* "%02x:" six times */
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

/* The 20 bytes of an address in the kernel's own form, two hex digits each
 * and colons between ("%*phC"); false for any other text. */
static bool ipoib_addr_plain(const char *addr, uint8_t b[20])
{
	for (int i = 0; i < 20; i++) {
		const char *p = addr + i * 3;
		int hi = hexval((unsigned char)p[0]),
		    lo = hi < 0 ? -1 : hexval((unsigned char)p[1]);
		if (lo < 0 || p[2] != (i < 19 ? ':' : '\0'))
			return false;
		b[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

int guid_from_ipoib_addr(const char *addr, uint64_t *ret)
{
	uint8_t plain[20];
	if (ipoib_addr_plain(addr, plain)) {
		uint64_t g = 0;
		for (int i = 12; i < 20; i++)
			g = (g << 8) | plain[i];
		*ret = g;
		return 0;
	}
	/* Anything else as sscanf's %2x takes it. */
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
