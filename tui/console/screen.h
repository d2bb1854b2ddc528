/* SPDX-License-Identifier: MIT */
/* The screen as the views see it, so that they need not call into the
 * console's core. One writer (screen.c) puts text in a span of columns:
 * made safe for the terminal (control bytes and bytes that are not UTF-8
 * shown as \xNN, core/base/escape.h), fitted by display column (wcwidth; a
 * character is never split) and padded with spaces. The services
 * (screen_services.c): a theme role's attribute, the message line, another
 * view. */
#pragma once

#include <stddef.h>

#include "keys.h"
#include "tui/base/theme.h"

struct console;
struct port;

/* The start of s as the screen shows it in at most w columns: written into
 * buf (NUL-terminated, at most size - 1 bytes, size at least 5), its
 * columns into *ret_cols; returns how many bytes of s that is. It stops at
 * the end of s, before a character that does not fit in the columns left
 * (a double-width one with one column left), or when buf is full. An
 * escaped byte is four one-column characters (\xNN), cut like any text. */
size_t screen_fit(char *buf, size_t size, const char *s, int w, int *ret_cols);
/* s in w columns at (y, x) in attr, padded with spaces to w; nothing when w
 * is not positive or (y, x) is off the screen. s may be NULL (blank). */
void screen_put(int y, int x, int w, const char *s, int attr);

/* The curses attribute of a theme role: its colour pair and style, or
 * without colour the style that still sets the role apart. */
int screen_attr(const struct console *c, enum theme_role r);
/* A message in the status line, in the colour of role, for MSG_SECS. */
void screen_message(struct console *c, enum theme_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Shows view v (entering it); a view not built yet says so instead. */
void screen_view_switch(struct console *c, enum console_view v);

/* The one rule for a port state's colour, in the tree and the details
 * alike: ACTIVE green, INIT and ARMED yellow (on the way up), anything else
 * red (down); unknown, or no port, a warning. */
enum theme_role screen_port_role(const struct port *p);
