/* SPDX-License-Identifier: MIT */
/* The screen as the views see it. One writer puts text in a span of
 * columns: made safe for the terminal (control bytes and bytes that are not
 * UTF-8 shown as \xNN, core/base/escape.h), fitted by display column
 * (wcwidth; a character is never split) and padded with spaces. */
#pragma once

#include <stddef.h>

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
