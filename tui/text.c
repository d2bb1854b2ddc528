// SPDX-License-Identifier: MIT
/* Lines of rendered text with their roles (text.h). */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_control(const unsigned char *c)
{
	return *c < 0x20 || *c == 0x7f || (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f);
}

bool text_needs_escape(const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; s && *c; c++)
		if (is_control(c))
			return true;
	return false;
}

void text_escape_into(char *buf, size_t size, const char *s)
{
	size_t n = 0;
	if (!size)
		return;
	for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
		bool c1 = is_control(c) && *c == 0xc2;
		if (is_control(c)) {
			if (n + 4 >= size)
				break;
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c1 ? c[1] : *c);
			c += c1;
		} else {
			if (n + 1 >= size)
				break;
			buf[n++] = (char)*c;
		}
	}
	buf[n] = '\0';
}

/* A copy of s with C0 controls, DEL and the C1 controls' UTF-8 forms
 * (0xc2 0x80..0x9f) written as \xNN, so nothing read from the node or a
 * file can move the cursor or retitle a terminal. */
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

static bool shell_plain(const char *w)
{
	if (!*w)
		return false;
	for (; *w; w++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./"
			    ":=@%+,",
			    *w))
			return false;
	return true;
}

/* Appends s to buf at *len; false when it did not fit. */
static bool put_str(char *buf, size_t size, size_t *len, const char *s)
{
	size_t l = strlen(s);
	if (*len + l >= size)
		return false;
	memcpy(buf + *len, s, l + 1);
	*len += l;
	return true;
}

void text_shell_join(char *buf, size_t size, const char *const *argv, size_t n)
{
	size_t len = 0;
	bool ok = true;
	if (!size)
		return;
	buf[0] = '\0';
	for (size_t i = 0; ok && i < n; i++) {
		const char *w = argv[i] ? argv[i] : "";
		bool plain = shell_plain(w);
		ok = (!i || put_str(buf, size, &len, " ")) &&
		     (plain || put_str(buf, size, &len, "'"));
		for (; ok && *w; w++) {
			char ch[2] = {*w, '\0'};
			ok = put_str(buf, size, &len, *w == '\'' ? "'\\''" : ch);
		}
		ok = ok && (plain || put_str(buf, size, &len, "'"));
	}
	if (!ok && size > 4)
		memcpy(buf + (len + 4 < size ? len : size - 4), "...", 4);
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
