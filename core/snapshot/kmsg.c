// SPDX-License-Identifier: MIT
/* The kernel log's RDMA driver records (docs/kernel.md): /dev/kmsg, or a
 * captured copy under the root, which may hold /dev/kmsg records
 * ("3,812,123456789,-;msg", continuation lines start with a space) or a
 * dmesg text ("[   12.345678] msg", "<3>[   12.345678] msg", or no stamp).
 * Every record that names an RDMA driver is kept, the last KMSG_LINES_MAX
 * of them, and the failures are marked. */
#include "kmsg.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "refresh.h"

#define KMSG_MAX     (1u << 20) /* bytes of log read */
#define KMSG_MSG_MAX 1024	/* bytes of a message kept (the kernel's own bound) */

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c);
}

/* Whether word starts a token of msg (at the start, or after a character
 * that is no letter or digit: "rdma_rxe", "mlx5_ib:"); case-insensitive. */
static bool has_token(const char *msg, const char *word, bool whole)
{
	size_t wl = strlen(word);
	for (const char *p = msg; *p; p++) {
		if (p > msg && is_word_char(p[-1]))
			continue;
		if (strncasecmp(p, word, wl))
			continue;
		if (!whole || !is_word_char(p[wl]))
			return true;
	}
	return false;
}

static bool names_rdma_driver(const char *msg)
{
	static const char *const drivers[] = {"mlx5", "mlx4",  "mlx_compat", "mlxfw", "ib_",
					      "rdma", "irdma", "rxe",	     "ipoib", "infiniband"};
	for (size_t i = 0; i < sizeof(drivers) / sizeof(*drivers); i++)
		if (has_token(msg, drivers[i], false))
			return true;
	return false;
}

bool kmsg_is_failure(const char *msg, int prio)
{
	if (prio >= 0 && prio <= 3)
		return true; /* KERN_ERR and worse: the kernel's own word */
	return strstr(msg, "Unknown symbol") || strstr(msg, "disagrees about version of symbol") ||
	       has_token(msg, "failed", true) || has_token(msg, "error", true);
}

/* Copies a message, writing a control character or a byte past ASCII as
 * \xNN, as /dev/kmsg does: a captured text (dmesg decodes the escapes) may
 * hold raw ones. */
static char *msg_dup(const char *s, size_t len)
{
	if (len > KMSG_MSG_MAX)
		len = KMSG_MSG_MAX;
	char *c = malloc(len * 4 + 1), *o = c;
	if (!c)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch < 0x20 || ch >= 0x7f)
			o += sprintf(o, "\\x%02x", ch);
		else
			*o++ = (char)ch;
	}
	*o = '\0';
	return c;
}

/* "[   12.345678]" at *p: the stamp in microseconds; p moves past it. */
static bool parse_stamp(const char **p, int64_t *ret)
{
	const char *s = *p;
	if (*s != '[')
		return false;
	s++;
	while (*s == ' ')
		s++;
	char *end;
	unsigned long long sec = strtoull(s, &end, 10);
	if (end == s || *end != '.' || sec > 100000000000ull)
		return false;
	s = end + 1;
	int64_t usec = 0;
	int digits = 0;
	for (; isdigit((unsigned char)*s); s++, digits++)
		if (digits < 6)
			usec = usec * 10 + (*s - '0');
	if (!digits || *s != ']')
		return false;
	for (; digits < 6; digits++)
		usec *= 10;
	*ret = (int64_t)sec * 1000000 + usec;
	*p = s + 1 + (s[1] == ' ');
	return true;
}

/* A /dev/kmsg record header "prio,seq,usec,flags;": fills l, returns the
 * message, or NULL when line is no such record. */
static const char *parse_record(const char *line, struct kmsg_line *l)
{
	const char *semi = strchr(line, ';');
	if (!semi || !isdigit((unsigned char)*line))
		return NULL;
	char *end;
	unsigned long prio = strtoul(line, &end, 10);
	if (*end != ',')
		return NULL;
	strtoull(end + 1, &end, 10); /* seq */
	if (*end != ',')
		return NULL;
	const char *u = end + 1;
	unsigned long long usec = strtoull(u, &end, 10);
	if (end == u || (*end != ',' && *end != ';') || end > semi)
		return NULL;
	l->prio = (int)(prio & 7); /* facility * 8 + level */
	l->ts_usec = (struct kval){true, (int64_t)(usec > INT64_MAX ? INT64_MAX : usec)};
	return semi + 1;
}

/* A dmesg text line: "<3>[  12.3] msg", "[  12.3] msg", "msg". */
/* dmesg -x's "kern  :err   : ": the level by name; p moves past it. */
static bool parse_decoded_level(const char **p, int *ret)
{
	static const char *const levels[] = {"emerg", "alert",	"crit", "err",
					     "warn",  "notice", "info", "debug"};
	const char *colon = strchr(*p, ':');
	if (!colon || colon - *p > 8)
		return false;
	const char *lv = colon + 1;
	size_t len = strcspn(lv, " :");
	const char *end = lv + len;
	while (*end == ' ')
		end++;
	if (*end != ':')
		return false;
	for (int i = 0; i < 8; i++)
		if (len == strlen(levels[i]) && !strncmp(lv, levels[i], len)) {
			*ret = i;
			*p = end + 1 + (end[1] == ' ');
			return true;
		}
	return false;
}

/* "Dec 01 07:00:00 host kernel: msg" (journalctl -k, syslog): the message
 * after "kernel: ". */
static const char *skip_syslog_prefix(const char *p)
{
	const char *k = strstr(p, " kernel: ");
	return k && k - p < 64 && isalpha((unsigned char)p[0]) && strchr(p, ':') < k ? k + 9 : p;
}

/* A dmesg text line: "<3>[  12.3] msg", "[  12.3] msg", "kern  :err   : [  12.3]
 * msg" (dmesg -x), "[Tue Dec  1 07:00:00 2026] msg" (dmesg -T: no time since
 * boot), a journal line, or a bare message. */
static const char *parse_text(const char *line, struct kmsg_line *l)
{
	const char *p = skip_syslog_prefix(line);
	l->prio = -1;
	if (parse_decoded_level(&p, &l->prio)) {
	} else if (p[0] == '<' && isdigit((unsigned char)p[1])) {
		char *end;
		unsigned long prio = strtoul(p + 1, &end, 10);
		if (*end == '>' && end - p <= 5) {
			l->prio = (int)(prio & 7);
			p = end + 1;
		}
	}
	int64_t us;
	const char *close = p[0] == '[' ? strchr(p, ']') : NULL;
	if (parse_stamp(&p, &us))
		l->ts_usec = (struct kval){true, us};
	else if (close && close - p > 20 && close - p < 40 && isalpha((unsigned char)p[1]))
		p = close + 1 + (close[1] == ' '); /* dmesg -T */
	return p;
}

/* Adds a record; when full, the oldest record that is no failure makes room
 * (a flood of link messages must not push out the boot's Unknown symbol),
 * else the oldest. Returns 1 when a record was dropped, 0, or -1. */
static int keep(struct node *n, const struct kmsg_line *l, const char *msg, size_t len)
{
	struct kmsg_line k = *l;
	int dropped = 0;
	if (!(k.msg = msg_dup(msg, len)))
		return -1;
	k.error = kmsg_is_failure(k.msg, k.prio);
	if (n->n_kmsg == KMSG_LINES_MAX) {
		size_t i = 0;
		while (i < n->n_kmsg && n->kmsg[i].error)
			i++;
		if (i == n->n_kmsg)
			i = 0;
		free(n->kmsg[i].msg);
		memmove(n->kmsg + i, n->kmsg + i + 1, (KMSG_LINES_MAX - 1 - i) * sizeof(*n->kmsg));
		n->n_kmsg--;
		dropped = 1;
	} else if (!n->n_kmsg) {
		if (!(n->kmsg = calloc(KMSG_LINES_MAX, sizeof(*n->kmsg)))) {
			free(k.msg);
			return -1;
		}
	}
	n->kmsg[n->n_kmsg++] = k;
	return dropped;
}

int kmsg_parse(struct node *n, const char *text, size_t len)
{
	bool records = false; /* the text is /dev/kmsg records */
	int dropped = 0;
	const char *end = text + len;
	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t ll = nl ? (size_t)(nl - line) : (size_t)(end - line);
		char buf[KMSG_MSG_MAX + 64];
		if (ll >= sizeof(buf))
			ll = sizeof(buf) - 1;
		memcpy(buf, line, ll);
		buf[ll] = '\0';
		line = nl ? nl + 1 : end;
		if (ll && buf[ll - 1] == '\r')
			buf[--ll] = '\0';
		if (!ll || (records && buf[0] == ' '))
			continue; /* continuation lines (SUBSYSTEM=, DEVICE=) */
		struct kmsg_line l = {.prio = -1};
		const char *msg = parse_record(buf, &l);
		if (msg)
			records = true;
		else
			msg = parse_text(buf, &l);
		int r = names_rdma_driver(msg) ? keep(n, &l, msg, strlen(msg)) : 0;
		if (r < 0)
			return -1;
		dropped += r && dropped < INT_MAX;
	}
	return dropped;
}

int discover_kmsg(struct discover *d, int *ret_err)
{
	char *buf;
	size_t len;
	int r = sys_read_kmsg(d->s, KMSG_MAX, &buf, &len);
	if (r < 0) {
		d->n->kmsg_unknown = true;
		*ret_err = r;
		return 0;
	}
	r = kmsg_parse(d->n, buf, len);
	free(buf);
	return r;
}

size_t kmsg_count_errors(const struct node *n)
{
	size_t c = 0;
	for (size_t i = 0; i < n->n_kmsg; i++)
		c += n->kmsg[i].error;
	return c;
}
