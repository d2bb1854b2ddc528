// SPDX-License-Identifier: MIT
/* Lines of rendered text with their roles (text.h). */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"

bool text_needs_escape(const char *s)
{
	return escape_term_needed(s);
}

void text_escape_into(char *buf, size_t size, const char *s)
{
	escape_term_into(buf, size, s);
}

/* A copy of s as escape_term_into() writes it: nothing read from the node
 * or a file can move the cursor or retitle a terminal. */
char *text_escape(const char *s)
{
	size_t size = strlen(s) * 4 + 1;
	char *out = malloc(size);
	if (out)
		text_escape_into(out, size, s);
	return out;
}

void text_add(struct text *t, enum text_role role, const char *fmt, ...)
{
	char *raw = NULL, *s;
	va_list ap;
	if (t->n >= TEXT_LINES_MAX) {
		t->truncated = true;
		return;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		struct text_line *l = realloc(t->lines, cap * sizeof(*l));
		if (!l) {
			t->truncated = true;
			return;
		}
		t->lines = l;
		t->cap = cap;
	}
	va_start(ap, fmt);
	int r = vasprintf(&raw, fmt, ap);
	va_end(ap);
	if (r < 0 || !(s = text_escape(raw))) {
		free(r < 0 ? NULL : raw);
		t->truncated = true;
		return;
	}
	free(raw);
	t->lines[t->n++] = (struct text_line){.role = role, .s = s};
}

void text_shell_join(char *buf, size_t size, const char *const *argv, size_t n)
{
	escape_shell_join(buf, size, argv, n);
}

void text_clear(struct text *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->lines[i].s);
	free(t->lines);
	memset(t, 0, sizeof(*t));
}

void text_indent(struct text *t, size_t from, int n)
{
	for (size_t i = from; i < t->n; i++) {
		char *s;
		if (asprintf(&s, "%*s%s", n, "", t->lines[i].s) < 0) {
			t->truncated = true;
			return;
		}
		free(t->lines[i].s);
		t->lines[i].s = s;
	}
}

void text_print(FILE *f, const struct text *t)
{
	for (size_t i = 0; i < t->n; i++)
		fprintf(f, "%s\n", t->lines[i].s);
}

void text_render_print(FILE *f, struct json_object *o,
		       void (*render)(struct text *, struct json_object *))
{
	struct text t = {0};
	render(&t, o);
	text_print(f, &t);
	text_clear(&t);
}

const struct text_line *text_find(const struct text *t, const char *needle)
{
	for (size_t i = 0; i < t->n; i++)
		if (strstr(t->lines[i].s, needle))
			return &t->lines[i];
	return NULL;
}

enum theme_role text_theme_role(enum text_role role, enum theme_role base)
{
	switch (role) {
	case TEXT_OK:
		return TR_BENCH_PASS;
	case TEXT_CHANGED:
		return TR_CHANGED;
	case TEXT_WARNING:
		return TR_WARNING;
	case TEXT_ERROR:
		return TR_ERROR;
	default:
		return base;
	}
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v;
	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

const char *text_jstr(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);
	return v ? json_object_get_string(v) : NULL;
}

struct json_object *text_jarr(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);
	return json_object_is_type(v, json_type_array) ? v : NULL;
}

int64_t text_jint(struct json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key));
}

double text_jnum(struct json_object *o, const char *key)
{
	return json_object_get_double(get(o, key));
}

bool text_jbool(struct json_object *o, const char *key)
{
	return json_object_get_boolean(get(o, key));
}
