// SPDX-License-Identifier: MIT
/* The one screen writer (screen.h). */
#include "screen.h"

#include <curses.h>
#include <stdbool.h>
#include <string.h>
#include <wchar.h>

#include "core/base/escape.h"
#include "core/model/node.h"
#include "core/model/names.h"

/* The columns of the valid UTF-8 character u (n bytes, 1 to 4). One the
 * locale cannot print (wcwidth -1: any non-ASCII one in the C locale) is
 * counted as one column. */
static int char_cols(const unsigned char *u, size_t n)
{
	static const unsigned char lead[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
	wchar_t wc = u[0] & lead[n];
	for (size_t k = 1; k < n; k++)
		wc = wc << 6 | (u[k] & 0x3f);
	int cols = wcwidth(wc);
	return cols < 0 ? 1 : cols;
}

size_t screen_fit(char *buf, size_t size, const char *s, int w, int *ret_cols)
{
	size_t len = 0, used = 0;
	int cols = 0;
	while (s && s[used] && cols < w) {
		char u[5];
		bool hex;
		size_t n = escape_term_char(s + used, u, &hex), k = strlen(u);
		int cw = hex ? (int)k : char_cols((const unsigned char *)u, n);
		if (hex && cols + cw > w) { /* as much of \xNN as fits, then no more */
			k = (size_t)(w - cols);
			cw = (int)k;
		}
		if (cols + cw > w || len + k >= size)
			break;
		memcpy(buf + len, u, k);
		len += k;
		cols += cw;
		used += n;
	}
	/* Zero-width characters (combining marks) after the last one shown. */
	while (s && s[used] && cols > 0 && len + 4 < size) {
		char u[5];
		bool hex;
		size_t n = escape_term_char(s + used, u, &hex);
		if (hex || char_cols((const unsigned char *)u, n))
			break;
		memcpy(buf + len, u, n);
		len += n;
		used += n;
	}
	if (size)
		buf[len] = '\0';
	*ret_cols = cols;
	return used;
}

void screen_put(int y, int x, int w, const char *s, int attr)
{
	if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS || move(y, x) == ERR)
		return;
	char buf[512];
	int cols = 0;
	attron(attr);
	for (size_t used = 1; used && s;) {
		int n;
		used = screen_fit(buf, sizeof(buf), s, w - cols, &n);
		addstr(buf);
		cols += n;
		s += used;
	}
	for (; cols < w; cols++)
		addch(' ');
	attroff(attr);
}

enum theme_role screen_port_role(const struct port *p)
{
	if (!p || !p->state.known)
		return TR_WARNING;
	switch (p->state.v) {
	case PORT_STATE_ACTIVE:
		return TR_PORT_ACTIVE;
	case PORT_STATE_INIT:
	case PORT_STATE_ARMED:
		return TR_PORT_INIT;
	default:
		return TR_PORT_DOWN;
	}
}
