/* SPDX-License-Identifier: MIT */
/* Colour themes: INI files (themes/NAME.theme) read with inih. Roles are named
 * for what they mean, not for their colour. This file knows nothing of
 * curses: the console maps a theme onto colour pairs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum theme_role {
	TR_NORMAL,
	TR_HEADER,
	TR_HEADER_VALUE,
	TR_VIEW_ACTIVE,
	TR_VIEW_INACTIVE,
	TR_VIEW_ABSENT,
	TR_COLUMN_HEADER,
	TR_PF,
	TR_VF,
	TR_PORT_ACTIVE,
	TR_PORT_INIT,
	TR_PORT_DOWN,
	TR_ETHERNET, /* a port in Ethernet where InfiniBand is expected */
	TR_GUID_ZERO,
	TR_CHANGED,
	TR_SELECTION,
	TR_GONE,
	TR_WARNING,
	TR_ERROR,
	TR_DETAILS_TITLE,
	TR_DETAILS_LABEL,
	TR_FKEY,
	TR_FKEY_LABEL,
	TR_STATUS,
	TR_PROMPT,
	TR_HELP,
	TR_BENCH_PASS,
	TR_BENCH_FAIL,
	TR_CHECK_CRITICAL, /* a finding's mark and count: critical */
	TR_CHECK_WARNING,
	TR_CHECK_INFO,
	TR_N,
};

enum {
	THEME_BOLD = 1 << 0,
	THEME_DIM = 1 << 1,
	THEME_UNDERLINE = 1 << 2,
	THEME_REVERSE = 1 << 3,
	THEME_ITALIC = 1 << 4,
};

#define THEME_DEFAULT_COLOR (-1)

struct theme_style {
	short fg, bg; /* 0-255, or THEME_DEFAULT_COLOR */
	unsigned int attrs;
};

struct theme {
	char name[64];
	struct theme_style role[TR_N];
};

const char *theme_role_name(enum theme_role r);
/* The built-in default theme (what themes/default.theme says). */
void theme_default(struct theme *ret);
/* "green", "brightred on blue bold", "231 on 24 underline": a foreground,
 * optionally "on" a background, then attributes. Returns 0 or -EINVAL. */
int theme_parse_style(const char *spec, struct theme_style *ret);
/* Reads a theme file over the default: unknown keys are ignored, missing keys
 * keep the default. Returns 0, or a negative errno with a one-line reason in
 * err (and ret untouched). */
int theme_load_file(const char *path, struct theme *ret, char *err, size_t err_size);
/* Finds NAME.theme in $XDG_CONFIG_HOME/ibvf/themes, then the source tree's
 * themes/ (a build-tree binary), then the installed themes. A NAME with a '/'
 * or ending in ".theme" is a path. Returns 0 or -ENOENT. */
int theme_find(const char *name, char *ret_path, size_t size);
/* theme_find + theme_load_file; on failure ret is the default theme and warn
 * holds one line saying why. Returns 0 or the negative errno. */
int theme_load(const char *name, struct theme *ret, char *warn, size_t warn_size);
/* Names of the themes found in the search path, sorted and unique; returns
 * how many (at most max). */
size_t theme_list(char (*names)[64], size_t max);
/* A colour for a terminal with ncolors colours (8, 16, 256). */
short theme_color_fit(short c, int ncolors);
