// SPDX-License-Identifier: MIT
/* What a view asks of the console (screen.h): the attribute of a theme
 * role, the message line, another view. */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>

#include "console_int.h"
#include "screen.h"

static attr_t style_attrs(unsigned int a)
{
	attr_t r = A_NORMAL;
	r |= a & THEME_BOLD ? A_BOLD : 0;
	r |= a & THEME_DIM ? A_DIM : 0;
	r |= a & THEME_UNDERLINE ? A_UNDERLINE : 0;
	r |= a & THEME_REVERSE ? A_REVERSE : 0;
#ifdef A_ITALIC
	r |= a & THEME_ITALIC ? A_ITALIC : 0;
#endif
	return r;
}

int screen_attr(const struct console *c, enum theme_role r)
{
	const struct theme_style *s = &c->theme.role[r];
	attr_t a = style_attrs(s->attrs);
	if (c->colors)
		return (int)(a | COLOR_PAIR(r + 1));
	/* Without colour the roles that matter most still stand out. */
	if (r == TR_SELECTION || r == TR_FKEY_LABEL || r == TR_COLUMN_HEADER ||
	    r == TR_VIEW_ACTIVE || r == TR_DETAILS_TITLE)
		a |= A_REVERSE;
	if (r == TR_CHANGED || r == TR_PORT_DOWN || r == TR_GUID_ZERO || r == TR_ETHERNET ||
	    r == TR_CHECK_CRITICAL || r == TR_CHECK_WARNING)
		a |= A_BOLD;
	return (int)a;
}

void screen_message(struct console *c, enum theme_role role, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	c->msg_role = role;
	c->msg_until = console_now() + MSG_SECS;
	c->dirty = true;
}

void screen_view_switch(struct console *c, enum console_view view)
{
	struct view *v = &c->views[view];
	if (!v->draw) {
		screen_message(c, TR_WARNING, "the %s view is not built yet", v->name);
		return;
	}
	c->view = view;
	if (v->enter)
		v->enter(c, v);
	c->dirty = true;
}
