// SPDX-License-Identifier: MIT
/* The list widget (htop's Panel): selection, scroll, page keys, mouse. */
#include "listw.h"

#include <string.h>
#include <strings.h>

#define WHEEL_ROWS 3

static long clamp(long v, long lo, long hi)
{
	return v > hi ? hi : v < lo ? lo : v;
}

static long last_top(const struct listw *l)
{
	long page = l->page > 0 ? l->page : 1;
	return l->n > page ? l->n - page : 0;
}

void listw_select(struct listw *l, long row)
{
	l->sel = l->n ? clamp(row, 0, l->n - 1) : 0;
}

void listw_set_rows(struct listw *l, long n)
{
	bool at_end = l->top >= last_top(l);
	l->n = n > 0 ? n : 0;
	listw_select(l, l->sel);
	if (l->text && l->follow && at_end)
		l->top = last_top(l);
	l->top = clamp(l->top, 0, last_top(l));
}

void listw_fit(struct listw *l, long page)
{
	l->page = page > 0 ? page : 1;
	if (!l->text) {
		if (l->sel < l->top)
			l->top = l->sel;
		if (l->sel >= l->top + l->page)
			l->top = l->sel - l->page + 1;
	}
	l->top = clamp(l->top, 0, last_top(l));
}

bool listw_move(struct listw *l, enum listw_move m)
{
	long page = l->page > 1 ? l->page - (l->text ? 1 : 0) : 1;
	long at = l->text ? l->top : l->sel, to = at;
	switch (m) {
	case LISTW_UP:
		to--;
		break;
	case LISTW_DOWN:
		to++;
		break;
	case LISTW_PGUP:
		to -= page;
		break;
	case LISTW_PGDN:
		to += page;
		break;
	case LISTW_HOME:
		to = 0;
		break;
	case LISTW_END:
		to = l->n;
		break;
	}
	if (l->text)
		l->top = clamp(to, 0, last_top(l));
	else
		listw_select(l, to);
	return (l->text ? l->top : l->sel) != at;
}

long listw_click(struct listw *l, int y)
{
	long row = l->top + y;
	if (y < 0 || y >= l->page || row >= l->n)
		return -1;
	if (!l->text)
		l->sel = row;
	return row;
}

void listw_wheel(struct listw *l, int dir)
{
	if (l->text)
		l->top = clamp(l->top + dir * WHEEL_ROWS, 0, last_top(l));
	else
		listw_select(l, l->sel + dir * WHEEL_ROWS);
}

bool listw_match(const struct listw *l, const char *text)
{
	size_t fl = strlen(l->filter);
	if (!fl)
		return true;
	for (const char *p = text; p && *p; p++)
		if (!strncasecmp(p, l->filter, fl))
			return true;
	return false;
}
