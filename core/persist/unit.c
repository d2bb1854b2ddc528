// SPDX-License-Identifier: MIT
/* A service unit's ExecStart= lines as systemd reads them (see unit.h;
 * systemd.unit(5) "Unit File Load Path", systemd.service(5) "Command
 * lines"). */
#include "unit.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sys/sys.h"

/* Highest precedence first. */
static const char *const unit_dirs[] = {
	"/etc/systemd/system",	   "/run/systemd/system", "/usr/local/lib/systemd/system",
	"/usr/lib/systemd/system", "/lib/systemd/system",
};
#define N_DIRS	    (sizeof(unit_dirs) / sizeof(unit_dirs[0]))
#define DROPINS_MAX 64

void unit_exec_fini(struct unit_exec *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->argc; i++)
		free(x->argv[i]);
	free(x->argv);
	free(x->file);
	*x = (struct unit_exec){0};
}

void unit_fini(struct unit *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n_execs; i++)
		unit_exec_fini(&u->execs[i]);
	free(u->execs);
	free(u->path);
	*u = (struct unit){0};
}

/* One word being built. */
struct word {
	char buf[1024];
	size_t len;
	bool any; /* quotes make a word even when empty */
};

static int word_add(struct word *w, const char *s, size_t n)
{
	if (w->len + n >= sizeof(w->buf))
		return -E2BIG;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
	w->any = true;
	return 0;
}

/* A specifier's expansion (%n, %N, %p), or NULL when ibvf has none. */
static const char *specifier(const char *name, char c, char *buf, size_t size)
{
	const char *dot = strrchr(name, '.'), *at = strchr(name, '@');
	size_t stem = dot ? (size_t)(dot - name) : strlen(name);
	if (c == '%')
		return "%";
	if (c == 'n')
		return name;
	if (c == 'N' || c == 'p') {
		size_t len =
			c == 'p' && at && (size_t)(at - name) < stem ? (size_t)(at - name) : stem;
		snprintf(buf, size, "%.*s", (int)len, name);
		return buf;
	}
	return NULL;
}

static int cescape(const char **pp, struct word *w, struct err *e, const char *value)
{
	const char *p = *pp; /* at the character after the backslash */
	static const char from[] = "abfnrtv\\\"' s", to[] = "\a\b\f\n\r\t\v\\\"' \x20";
	const char *k = *p ? strchr(from, *p) : NULL;
	char c;
	if (k) {
		c = to[k - from];
	} else if (*p == 'x' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
		char hex[3] = {p[1], p[2], 0};
		c = (char)strtol(hex, NULL, 16);
		p += 2;
	} else if (*p == '\n') {
		*pp = p + 1;
		return 0;
	} else {
		return err_setx(e, EINVAL, "unsupported escape '\\%c' in '%s'", *p ? *p : ' ',
				value);
	}
	if (!c)
		return err_setx(e, EINVAL, "a NUL byte in '%s'", value);
	*pp = p + 1;
	return word_add(w, &c, 1) < 0 ? err_setx(e, E2BIG, "a word is too long in '%s'", value) : 0;
}

static int push(struct unit_exec *x, struct word *w, struct err *e)
{
	if (x->argc + 1 >= UNIT_ARGS_MAX)
		return err_setx(e, E2BIG, "more than %d words", UNIT_ARGS_MAX - 1);
	char **v = realloc(x->argv, (x->argc + 2) * sizeof(*v));
	if (v)
		x->argv = v;
	if (!v || !(v[x->argc] = strdup(w->buf)))
		return err_set(e, ENOMEM, "cannot split the line");
	v[++x->argc] = NULL;
	*w = (struct word){.len = 0};
	return 0;
}

/* The words of p, as systemd's extract_first_word(EXTRACT_UNQUOTE |
 * EXTRACT_CUNESCAPE) gives them after specifier expansion. */
static int split_words(const char *name, const char *value, const char *p, bool no_env,
		       struct unit_exec *x, struct err *e)
{
	struct word w = {.len = 0};
	char quote = 0, sbuf[256];
	int r = 0;
	while (r == 0) {
		char c = *p;
		if (!c || (!quote && isspace((unsigned char)c))) {
			if (quote)
				return err_setx(e, EINVAL, "unbalanced quotes in '%s'", value);
			if (w.any && !strcmp(w.buf, ";") && w.len == 1)
				return err_setx(e, EINVAL,
						"';' between commands is not supported in '%s'",
						value);
			if (w.any && (r = push(x, &w, e)) < 0)
				return r;
			if (!c)
				break;
			p++;
			continue;
		}
		if (!quote && (c == '"' || c == '\'')) {
			quote = c;
			w.any = true;
			p++;
		} else if (quote && c == quote) {
			quote = 0;
			p++;
		} else if (c == '\\') {
			p++;
			r = cescape(&p, &w, e, value);
		} else if (c == '%') {
			const char *v = specifier(name, p[1], sbuf, sizeof(sbuf));
			if (!v)
				return err_setx(e, EINVAL,
						"the specifier '%%%c' in '%s' is not supported "
						"(only %%%%, %%n, %%N, %%p)",
						p[1] ? p[1] : ' ', value);
			r = word_add(&w, v, strlen(v));
			p += p[1] ? 2 : 1;
		} else if (c == '$' && !no_env && p[1] == '$') {
			r = word_add(&w, "$", 1);
			p += 2;
		} else if (c == '$' && !no_env &&
			   (p[1] == '{' || isalpha((unsigned char)p[1]) || p[1] == '_')) {
			size_t len = strcspn(p + 1, " \t\"'}");
			return err_setx(
				e, EINVAL,
				"the environment variable '%.*s%s' in '%s' is not supported",
				(int)len + 1, p, p[1] == '{' ? "}" : "", value);
		} else {
			r = word_add(&w, p, 1);
			p++;
		}
		if (r == -E2BIG)
			return err_setx(e, E2BIG, "a word is too long in '%s'", value);
	}
	return r;
}

int unit_exec_split(const char *name, const char *value, struct unit_exec *ret, struct err *e)
{
	struct unit_exec x = {0};
	const char *p = value;
	bool argv0 = false, no_env = false;
	while (isspace((unsigned char)*p))
		p++;
	for (; *p && strchr("-@:+!", *p); p++) {
		x.ignore_failure |= *p == '-';
		argv0 |= *p == '@';
		no_env |= *p == ':';
	}
	int r = split_words(name, value, p, no_env, &x, e);
	if (r == 0 && x.argc < (argv0 ? 2u : 1u))
		r = err_setx(e, EINVAL, "no command in '%s'", value);
	if (r == 0 && argv0) { /* "@": the second word is argv[0], not run */
		free(x.argv[1]);
		memmove(&x.argv[1], &x.argv[2], (x.argc - 1) * sizeof(*x.argv));
		x.argc--;
	}
	if (r < 0) {
		unit_exec_fini(&x);
		return r;
	}
	*ret = x;
	return 0;
}

static int add_exec(struct unit *u, const char *name, const char *file, unsigned int line,
		    const char *value, struct err *e)
{
	if (u->n_execs >= UNIT_EXECS_MAX)
		return err_setx(e, E2BIG, "'%s': more than %d ExecStart= lines", file,
				UNIT_EXECS_MAX);
	struct unit_exec x;
	struct err why;
	if (unit_exec_split(name, value, &x, &why) < 0)
		return err_setx(e, EINVAL, "'%s' line %u: %s", file, line, why.msg);
	struct unit_exec *v = realloc(u->execs, (u->n_execs + 1) * sizeof(*v));
	if (!v || !(x.file = strdup(file))) {
		if (v)
			u->execs = v;
		unit_exec_fini(&x);
		return err_set(e, ENOMEM, "cannot read '%s'", file);
	}
	x.line = line;
	u->execs = v;
	v[u->n_execs++] = x;
	return 0;
}

/* One file's [Service] ExecStart= lines, continuations joined. */
static int parse_text(struct unit *u, const char *name, const char *file, char *text, struct err *e)
{
	bool service = false;
	unsigned int no = 0;
	for (char *line = text, *next; line; line = next) {
		unsigned int first = ++no;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* "\" at the end joins the next line; comment lines in between are
		 * skipped and the line goes on after them (systemd.syntax(7)). */
		while (next && *line && line[strlen(line) - 1] == '\\') {
			line[strlen(line) - 1] = ' ';
			char *cont;
			bool comment;
			do {
				cont = next;
				next = strchr(cont, '\n');
				if (next)
					*next++ = '\0';
				no++;
				comment = strchr("#;", cont[strspn(cont, " \t")]) &&
					  cont[strspn(cont, " \t")];
			} while (comment && next);
			if (comment)
				break;
			memmove(line + strlen(line), cont, strlen(cont) + 1);
		}
		while (isspace((unsigned char)*line))
			line++;
		if (*line == '#' || *line == ';' || !*line)
			continue;
		if (*line == '[') {
			service = !strncmp(line, "[Service]", 9);
			continue;
		}
		size_t klen = strcspn(line, "= \t");
		char *v = line + klen;
		while (*v == ' ' || *v == '\t')
			v++;
		if (!service || klen != 9 || strncmp(line, "ExecStart", 9) || *v != '=')
			continue;
		v++;
		while (isspace((unsigned char)*v))
			v++;
		size_t len = strlen(v);
		while (len && isspace((unsigned char)v[len - 1]))
			v[--len] = '\0';
		if (!*v) {
			for (size_t i = 0; i < u->n_execs; i++)
				unit_exec_fini(&u->execs[i]);
			u->n_execs = 0;
			continue;
		}
		int r = add_exec(u, name, file, first, v, e);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A link, dangling or not: a unit masked with a link to /dev/null is there
 * even where the tree (--root, --sim) has no dev/null of its own. */
static bool is_link(struct sys *s, const char *path)
{
	char target[64];
	int r = sys_readlink(s, path, target, sizeof(target));
	return r > 0 || r == -ENAMETOOLONG;
}

static bool is_masked(struct sys *s, const char *path)
{
	char target[64], *text = NULL;
	size_t len = 1;
	if (sys_readlink(s, path, target, sizeof(target)) > 0 && !strcmp(target, "/dev/null"))
		return true;
	if (sys_read_file(s, path, 1, &text, &len) == 0 && len == 0) {
		free(text);
		return true;
	}
	free(text);
	return false;
}

static int read_file(struct sys *s, struct unit *u, const char *name, const char *path,
		     struct err *e)
{
	char *text;
	int r = sys_read_file(s, path, UNIT_SIZE_MAX, &text, NULL);
	if (r < 0)
		return err_set(e, -r, "cannot read '%s'", path);
	r = parse_text(u, name, path, text, e);
	free(text);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* NAME.d/ *.conf in every directory, a file name seen first masking others. */
static int read_dropins(struct sys *s, struct unit *u, const char *name, struct err *e)
{
	char *names[DROPINS_MAX];
	const char *dirs[DROPINS_MAX];
	size_t n = 0;
	int r = 0;
	for (size_t d = 0; d < N_DIRS; d++) {
		char dir[512], **list;
		size_t nl;
		snprintf(dir, sizeof(dir), "%s/%s.d", unit_dirs[d], name);
		if (sys_list(s, dir, &list, &nl) < 0)
			continue;
		for (size_t i = 0; i < nl && n < DROPINS_MAX; i++) {
			size_t len = strlen(list[i]);
			bool seen = false;
			for (size_t j = 0; j < n && !seen; j++)
				seen = !strcmp(names[j], list[i]);
			if (seen || len < 6 || strcmp(list[i] + len - 5, ".conf"))
				continue;
			dirs[n] = unit_dirs[d];
			names[n++] = list[i];
			list[i] = NULL;
		}
		sys_list_free(list, nl);
	}
	/* by file name, whatever the directory */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_str(&names[j - 1], &names[j]) > 0; j--) {
			char *t = names[j];
			const char *td = dirs[j];
			names[j] = names[j - 1];
			dirs[j] = dirs[j - 1];
			names[j - 1] = t;
			dirs[j - 1] = td;
		}
	for (size_t i = 0; i < n; i++) {
		char path[768];
		snprintf(path, sizeof(path), "%s/%s.d/%s", dirs[i], name, names[i]);
		if (r == 0 && !is_masked(s, path))
			r = read_file(s, u, name, path, e);
		free(names[i]);
	}
	return r;
}

int unit_load(struct sys *s, const char *name, struct unit *ret, struct err *e)
{
	struct unit u = {0};
	char path[512];
	if (!*name || strchr(name, '/'))
		return err_setx(e, EINVAL, "invalid unit name '%s'", name);
	for (size_t d = 0; d < N_DIRS && !u.path; d++) {
		snprintf(path, sizeof(path), "%s/%s", unit_dirs[d], name);
		if (sys_exists(s, path) == 0 || is_link(s, path))
			if (!(u.path = strdup(path)))
				return err_set(e, ENOMEM, "cannot read '%s'", path);
	}
	int r = 0;
	if (u.path && !(u.masked = is_masked(s, u.path))) {
		r = read_file(s, &u, name, u.path, e);
		if (r == 0)
			r = read_dropins(s, &u, name, e);
	}
	if (r < 0) {
		unit_fini(&u);
		return r;
	}
	*ret = u;
	return 0;
}
