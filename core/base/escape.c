// SPDX-License-Identifier: MIT
/* Text made safe for a shell line, a terminal or JSON (escape.h). */
#include "escape.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t escape_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0];
	size_t n = c < 0x80		    ? 1
		   : c >= 0xc2 && c <= 0xdf ? 2
		   : c >= 0xe0 && c <= 0xef ? 3
		   : c >= 0xf0 && c <= 0xf4 ? 4
					    : 0;
	if (!c)
		return 0;
	for (size_t k = 1; k < n; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) || /* overlong, surrogate */
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))	 /* overlong, > U+10FFFF */
		return 0;
	return n;
}

bool escape_utf8_valid(const char *s)
{
	size_t n;
	while ((n = escape_utf8_len(s)))
		s += n;
	return !*s;
}

/* The character at s as a terminal may get it: the number of bytes it
 * takes; *ret_hex and *ret_val when it is to be written \xNN (a control,
 * or a byte that is not UTF-8), else its bytes are copied. */
static size_t term_unit(const char *s, bool *ret_hex, unsigned int *ret_val)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = escape_utf8_len(s);
	*ret_hex = true;
	if (n == 0) {
		*ret_val = u[0];
		return 1;
	}
	if (n == 1 && (u[0] < 0x20 || u[0] == 0x7f)) {
		*ret_val = u[0];
		return 1;
	}
	if (n == 2 && u[0] == 0xc2 && u[1] <= 0x9f) { /* C1: U+0080..U+009F */
		*ret_val = u[1];
		return 2;
	}
	*ret_hex = false;
	return n;
}

bool escape_term_needed(const char *s)
{
	bool hex = false;
	unsigned int v;
	for (; s && *s && !hex; s += term_unit(s, &hex, &v))
		;
	return hex;
}

size_t escape_term_char(const char *s, char out[static 5], bool *ret_hex)
{
	bool hex = false;
	unsigned int v = 0;
	size_t n = s && *s ? term_unit(s, &hex, &v) : 0;
	*ret_hex = hex;
	if (hex) {
		snprintf(out, 5, "\\x%02x", (unsigned char)v);
		return n;
	}
	if (n)
		memcpy(out, s, n);
	out[n] = '\0';
	return n;
}

void escape_term_into(char *buf, size_t size, const char *s)
{
	size_t len = 0;
	if (!size)
		return;
	while (s && *s) {
		bool hex;
		char u[5];
		size_t n = escape_term_char(s, u, &hex), ulen = strlen(u);
		if (len + ulen >= size)
			break;
		memcpy(buf + len, u, ulen);
		len += ulen;
		s += n;
	}
	buf[len] = '\0';
}

static bool shell_plain(const char *w)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				 "-_./:=@%+,";
	return *w && strspn(w, ok) == strlen(w);
}

/* Appends n bytes of s; false when they do not fit with the NUL. */
static bool put(char *buf, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len + n >= size)
		return false;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
	return true;
}

/* The $'...' body of w: \ooo for the bytes of controls and of bytes that
 * are not UTF-8, \' and \\, the rest as it is. */
static bool put_dollar(char *buf, size_t size, size_t *len, const char *w)
{
	bool ok = put(buf, size, len, "$'", 2);
	while (ok && *w) {
		bool hex;
		unsigned int v;
		size_t n = term_unit(w, &hex, &v);
		for (size_t k = 0; ok && hex && k < n; k++) {
			char oct[5];
			snprintf(oct, sizeof(oct), "\\%03o", (unsigned char)w[k]);
			ok = put(buf, size, len, oct, 4);
		}
		if (!hex && (*w == '\'' || *w == '\\'))
			ok = put(buf, size, len, *w == '\'' ? "\\'" : "\\\\", 2);
		else if (!hex)
			ok = put(buf, size, len, w, n);
		w += n;
	}
	return ok && put(buf, size, len, "'", 1);
}

bool escape_shell_word(char *buf, size_t size, size_t *len, const char *w)
{
	size_t start = *len;
	bool ok;
	if (!w)
		w = "";
	if (shell_plain(w)) {
		ok = put(buf, size, len, w, strlen(w));
	} else if (escape_term_needed(w)) {
		ok = put_dollar(buf, size, len, w);
	} else {
		ok = put(buf, size, len, "'", 1);
		for (const char *q = w; ok && *q; q++)
			ok = *q == '\'' ? put(buf, size, len, "'\\''", 4)
					: put(buf, size, len, q, 1);
		ok = ok && put(buf, size, len, "'", 1);
	}
	if (!ok && size) {
		*len = start;
		buf[start] = '\0';
	}
	return ok;
}

void escape_shell_join(char *buf, size_t size, const char *const *argv, size_t n)
{
	size_t len = 0;
	bool ok = true;
	if (!size)
		return;
	buf[0] = '\0';
	for (size_t i = 0; ok && i < n; i++)
		ok = (!i || put(buf, size, &len, " ", 1)) &&
		     escape_shell_word(buf, size, &len, argv[i]);
	if (!ok && size > 4)
		memcpy(buf + (len + 4 < size ? len : size - 4), "...", 4);
}

/* Writes the JSON text of json into out (when not NULL); returns its length.
 * json-c writes bytes >= 0x80 and DEL only inside strings, so each can be
 * replaced there on its own. Runs of the other bytes (nearly all of a
 * document) are copied as they are, a run at a time. */
static size_t json_fix(const char *json, size_t json_len, char *out)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	const char *end = json + json_len;
	size_t len = 0;
	for (const char *s = json; *s;) {
		const char *run = s;
		/* Eight bytes at a time while none is >= 0x7f (b + 1 carries into
		 * no neighbour for b < 0x7f) or NUL (json_len is the text's). */
		for (uint64_t w; end - s >= 8; s += 8) {
			memcpy(&w, s, 8);
			if ((w | (w + ones)) & highs)
				break;
		}
		while ((unsigned char)(*s - 1) < 0x7e) /* 0x01..0x7e */
			s++;
		if (out)
			memcpy(out + len, run, (size_t)(s - run));
		len += (size_t)(s - run);
		if (!*s)
			break;
		const unsigned char *u = (const unsigned char *)s;
		size_t n = escape_utf8_len(s);
		char tmp[8];
		const char *w = s;
		size_t wn = n;
		if (n == 0) { /* not UTF-8: U+FFFD */
			w = "\xef\xbf\xbd";
			wn = 3;
			n = 1;
		} else if ((n == 1 && u[0] == 0x7f) || (n == 2 && u[0] == 0xc2 && u[1] <= 0x9f)) {
			snprintf(tmp, sizeof(tmp), "\\u%04x", n == 1 ? 0x7fu : u[1]);
			w = tmp;
			wn = 6;
		}
		if (out)
			memcpy(out + len, w, wn);
		len += wn;
		s += n;
	}
	if (out)
		out[len] = '\0';
	return len;
}

char *escape_json_text(const char *json)
{
	if (!json) /* json-c out of memory */
		return NULL;
	size_t len = strlen(json);
	char *out = malloc(json_fix(json, len, NULL) + 1);
	if (out)
		json_fix(json, len, out);
	return out;
}

bool escape_safe_word(const char *s)
{
	size_t n = 0;
	for (; s && s[n]; n++)
		if (!isalnum((unsigned char)s[n]) && !strchr("._:/-", s[n]))
			return false;
	return n > 0 && n <= 253;
}

const char *escape_word_or(const char *s, const char *placeholder)
{
	return escape_safe_word(s) ? s : placeholder;
}
