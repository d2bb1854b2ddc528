/* SPDX-License-Identifier: MIT */
/* Rendered text: lines, each with a role. A result (a plan, a bench run, a
 * journal entry) is rendered once, from its JSON, into lines; the CLI
 * prints them plainly and the console draws them in the colour of their
 * role. Every line is safe for a terminal: control characters from names
 * and files are escaped as \xNN when the line is added. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "theme.h"

enum text_role {
	TEXT_NORMAL,
	TEXT_HEADING, /* a title or a table's header */
	TEXT_OK,      /* done, verified, PASS */
	TEXT_CHANGED, /* a change that a plan will make */
	TEXT_WARNING, /* a note that asks for attention, a skipped step */
	TEXT_ERROR,   /* failed, NOT verified, FAIL */
};

struct text_line {
	enum text_role role;
	char *s;
};

struct text {
	struct text_line *lines;
	size_t n, cap;
	bool truncated; /* out of memory, or past TEXT_LINES_MAX: lines are missing */
};

#define TEXT_LINES_MAX 100000

/* Appends a line (printf-style); a failed allocation sets t->truncated. */
void text_add(struct text *t, enum text_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A malloc'd copy of s escaped for a terminal, as
 * text_add() does to each line (for text printed otherwise); NULL on ENOMEM. */
char *text_escape(const char *s);
/* Frees the lines; t is empty and reusable after. */
void text_clear(struct text *t);
/* Puts n spaces before the lines from index `from` on (a nested block). */
void text_indent(struct text *t, size_t from, int n);
/* The lines, one per line of f, without their roles. */
void text_print(FILE *f, const struct text *t);
/* Renders o with render and prints the lines on f (the CLI's way). */
void text_render_print(FILE *f, struct json_object *o,
		       void (*render)(struct text *, struct json_object *));
/* The first line containing needle, or NULL (for tests and searches). */
const struct text_line *text_find(const struct text *t, const char *needle);

/* s for a terminal (core/base/escape.h): C0 and C1 controls, DEL and bytes that
 * are not UTF-8 written as \xNN, so nothing read from the node or a file
 * can move the cursor or retitle a terminal; cut at a character to fit
 * size. text_add escapes this way, and so does the console's screen writer
 * (tui/console/screen.h), a character at a time. */
void text_escape_into(char *buf, size_t size, const char *s);
bool text_needs_escape(const char *s);

/* argv (n words) as one shell command line, quoted as core/base/escape.h says
 * ('it'\''s', $'\033' for a control character). Truncated to size (and
 * then ends in "..."). */
void text_shell_join(char *buf, size_t size, const char *const *argv, size_t n);

/* The console's colour for a line of this role, on a background of base. */
enum theme_role text_theme_role(enum text_role role, enum theme_role base);

/* Reading the JSON results: NULL, 0 or false when the key is absent or null. */
const char *text_jstr(struct json_object *o, const char *key);
struct json_object *text_jarr(struct json_object *o, const char *key);
int64_t text_jint(struct json_object *o, const char *key);
double text_jnum(struct json_object *o, const char *key);
bool text_jbool(struct json_object *o, const char *key);
