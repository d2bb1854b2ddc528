// SPDX-License-Identifier: MIT
/* The option tables' parser and their help (opts.h). */
#include "opts.h"

#include <errno.h>
#include <string.h>

#include "cli.h"

#define OPTS_COL_MAX 24 /* a longer term has its help on the next line */
#define OPTS_WIDTH   80 /* the help is filled to it */

static bool is_option(const struct opt *o)
{
	return o->kind == OPT_FLAG || o->kind == OPT_VALUE || o->kind == OPT_OPTIONAL;
}

/* The option of t the word a names, with the value the word holds
 * ("--key=F", "-dF"; NULL: none); NULL when it names none. */
static const struct opt *lookup(const struct opt *t, const char *a, const char **ret_value)
{
	const struct opt *o = NULL;
	*ret_value = NULL;
	if (a[0] != '-' || !a[1] || !strcmp(a, "--"))
		return NULL;
	if (a[1] == '-') {
		size_t len = strcspn(a + 2, "=");
		for (; t && t->kind != OPT_END && !o; t++)
			if (is_option(t) && t->long_name && strlen(t->long_name) == len &&
			    !strncmp(t->long_name, a + 2, len))
				o = t;
		if (o && a[2 + len] == '=')
			*ret_value = a + 3 + len;
		return o;
	}
	for (; t && t->kind != OPT_END && !o; t++)
		if (is_option(t) && t->short_name && t->short_name == a[1])
			o = t;
	if (o && a[2] && o->kind != OPT_VALUE)
		return NULL; /* "-yf": one option a word */
	if (o && a[2])
		*ret_value = a + 2;
	return o;
}

int opts_match(const struct opt *t, int argc, char **argv, int i, const struct opt **ret_opt,
	       const char **ret_value)
{
	const char *value;
	const struct opt *o = lookup(t, argv[i], &value);
	int used = 1;
	if (!o)
		return 0;
	if (o->kind == OPT_FLAG && value) {
		cli_error("option '--%s' takes no value", o->long_name);
		return -1;
	}
	if (o->kind == OPT_VALUE && !value) {
		if (i + 1 >= argc) {
			cli_error("option '%s' needs a value (%s)", argv[i], o->arg ? o->arg : "");
			return -1;
		}
		value = argv[i + 1];
		used = 2;
	}
	*ret_opt = o;
	*ret_value = value;
	return used;
}

bool opts_sub_takes(const struct cmd *cmd, const struct opt *o, int sub)
{
	return !o->subs || sub < 0 || (o->subs & OPT_SUB(sub));
}

bool opts_shown(const struct opt *o)
{
	return o->kind != OPT_END && !o->hidden;
}

/* The subcommand a command line names: its first positional argument (the
 * options' values skipped), else the row named "" when the command has one;
 * -1 when none. */
static int find_sub(const struct cmd *cmd, int argc, char **argv)
{
	const char *first = NULL, *v;
	for (int i = 1; i < argc && !first; i++) {
		const struct opt *o = lookup(cmd->options, argv[i], &v);
		if (!strcmp(argv[i], "--"))
			first = i + 1 < argc ? argv[i + 1] : "";
		else if (o && o->kind == OPT_VALUE && !v)
			i++;
		else if (!o && (argv[i][0] != '-' || !argv[i][1]))
			first = argv[i];
	}
	int none = -1;
	for (int i = 0; cmd->subs && cmd->subs[i].name; i++) {
		if (first && !strcmp(cmd->subs[i].name, first))
			return i;
		if (!cmd->subs[i].name[0])
			none = i;
	}
	return none;
}

/* Moves argv[from..from+n) to argv[to..), shifting what was there after. */
static void move_words(char **argv, int to, int from, int n)
{
	char *w[2];
	memcpy(w, argv + from, (size_t)n * sizeof(*w));
	memmove(argv + to + n, argv + to, (size_t)(from - to) * sizeof(*argv));
	memcpy(argv + to, w, (size_t)n * sizeof(*w));
}

static void typed_name(const char *a, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s", a[1] == '-' ? (int)strcspn(a, "=") : 2, a);
}

int opts_parse(const struct cmd *cmd, int argc, char **argv, struct opts *ret)
{
	struct opts p = {.cmd = cmd, .sub = find_sub(cmd, argc, argv), .argv = argv, .next = 1};
	int end = 1; /* argv[1..end): the options, moved before the arguments */
	char tag[128];
	for (int i = 1; i < argc; i++) {
		const struct opt *o;
		const char *v, *sub = p.sub >= 0 ? cmd->subs[p.sub].name : "";
		if (!strcmp(argv[i], "--")) {
			move_words(argv, end++, i, 1);
			break;
		}
		int used = opts_match(cmd->options, argc, argv, i, &o, &v);
		if (used < 0)
			return -EINVAL;
		if (used == 0 && argv[i][0] == '-' && argv[i][1]) {
			cli_error("unknown option '%s' (see 'ibvf %s --help')", argv[i], cmd->name);
			return -EINVAL;
		}
		if (used == 0)
			continue;
		/* A subcommand named: the options it does not take are refused. */
		if (!opts_sub_takes(cmd, o, p.sub)) {
			typed_name(argv[i], p.name, sizeof(p.name));
			opts_subs_tag(cmd, o, tag, sizeof(tag));
			cli_error("'%s%s%s' takes no %s: it goes with '%s %s'", cmd->name,
				  *sub ? " " : "", sub, p.name, cmd->name, tag);
			return -EINVAL;
		}
		move_words(argv, end, i, used);
		end += used;
		i += used - 1;
	}
	p.end = end;
	p.pos = argv + end;
	p.n_pos = argc - end;
	*ret = p;
	return 0;
}

int opts_next(struct opts *p, const char **ret_value)
{
	const char *ignored;
	if (!ret_value)
		ret_value = &ignored;
	while (p->next < p->end) {
		const struct opt *o;
		int i = p->next;
		int used = opts_match(p->cmd->options, p->end, p->argv, i, &o, ret_value);
		p->next += used > 0 ? used : 1; /* "--" */
		if (used <= 0)
			continue;
		p->opt = o;
		typed_name(p->argv[i], p->name, sizeof(p->name));
		return o->id;
	}
	return 0;
}

void opts_term(const struct opt *o, char *buf, size_t size)
{
	int n = 0;
	if (o->short_name)
		n = snprintf(buf, size, "-%c%s", o->short_name, o->long_name ? ", " : "");
	if (n < 0 || (size_t)n >= size)
		return;
	if (o->long_name)
		n += snprintf(buf + n, size - (size_t)n, "--%s", o->long_name);
	if (n < 0 || (size_t)n >= size || !o->arg)
		return;
	snprintf(buf + n, size - (size_t)n, o->kind == OPT_OPTIONAL ? "[=%s]" : " %s", o->arg);
}

void opts_subs_tag(const struct cmd *cmd, const struct opt *o, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	if (!o->subs || !cmd || !cmd->subs)
		return;
	for (int i = 0; cmd->subs[i].name && n < size; i++)
		if ((o->subs & OPT_SUB(i)) && cmd->subs[i].name[0])
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "|" : "",
					      cmd->subs[i].name);
}

/* The tag and the help filled into lines of OPTS_WIDTH, the first after the
 * term, the others under it at col; "\n" breaks a line where it stands. */
static void print_help_lines(FILE *f, const char *tag, const char *help, int col)
{
	char buf[2048];
	size_t width = col + 30 < OPTS_WIDTH ? (size_t)(OPTS_WIDTH - col) : 30;
	snprintf(buf, sizeof(buf), "%s%s%s", tag, *tag ? ": " : "", help);
	const char *p = buf;
	bool first = true;
	do {
		size_t n = strcspn(p, "\n");
		if (n > width) {
			size_t k = width;
			while (k > 0 && p[k] != ' ')
				k--;
			n = k ? k : strcspn(p, " \n");
		}
		fprintf(f, "%*s%.*s\n", first ? 0 : col, "", (int)n, p);
		first = false;
		p += n;
		if (*p == ' ' || *p == '\n')
			p++;
	} while (*p);
}

void opts_print(FILE *f, const struct cmd *cmd, const struct opt *t, int sub)
{
	char term[64], tag[128];
	int col = 0;
	for (const struct opt *o = t; o && o->kind != OPT_END; o++) {
		if (!is_option(o) || !opts_shown(o) || (sub >= 0 && !opts_sub_takes(cmd, o, sub)))
			continue;
		opts_term(o, term, sizeof(term));
		int w = 2 + (int)strlen(term) + 2;
		if (w > col && w <= OPTS_COL_MAX)
			col = w;
	}
	if (!col)
		col = OPTS_COL_MAX;
	for (const struct opt *o = t; o && o->kind != OPT_END; o++) {
		if (!opts_shown(o) || (sub >= 0 && !opts_sub_takes(cmd, o, sub)))
			continue;
		if (o->kind == OPT_TEXT) {
			fprintf(f, "%s\n", o->help);
			continue;
		}
		opts_term(o, term, sizeof(term));
		if (sub >= 0)
			tag[0] = '\0';
		else
			opts_subs_tag(cmd, o, tag, sizeof(tag));
		int w = fprintf(f, "  %s", term);
		if (w + 2 > col)
			fprintf(f, "\n%*s", col, "");
		else
			fprintf(f, "%*s", col - w, "");
		print_help_lines(f, tag, o->help ? o->help : "", col);
	}
}
