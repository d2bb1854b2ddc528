// SPDX-License-Identifier: MIT
/* Options described once (tui/base/opts.h). Walking the command table the
 * binary parses with (this suite links its objects), for every command and
 * subcommand: `ibvf help CMD [SUB]` (and `CMD SUB --help`), the man page and
 * the bash and zsh completion tables list exactly the options its table
 * holds, with the global ones it takes; the parser accepts each of them where
 * the table says and refuses it elsewhere, and refuses an option no table
 * holds, in one line with the usage status. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tui/base/cli.h"

#define NOT_AN_OPTION "--zz-not-an-option"

/* A set of option names ("--dev", "-d"), kept sorted. */
struct names {
	char w[128][40];
	size_t n;
};

static void names_add(struct names *ns, const char *w, size_t len)
{
	char word[40];
	ck_assert_uint_lt(len, sizeof(word));
	memcpy(word, w, len);
	word[len] = '\0';
	size_t i = 0;
	while (i < ns->n && strcmp(ns->w[i], word) < 0)
		i++;
	if (i < ns->n && !strcmp(ns->w[i], word))
		return;
	ck_assert_uint_lt(ns->n, sizeof(ns->w) / sizeof(ns->w[0]));
	memmove(ns->w[i + 1], ns->w[i], (ns->n - i) * sizeof(ns->w[0]));
	strcpy(ns->w[i], word);
	ns->n++;
}

/* "--a --b -c", for comparing and for messages. */
static const char *names_str(const struct names *ns, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < ns->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", ns->w[i]);
	return buf;
}

static void names_eq(const struct names *got, const struct names *want, const char *what)
{
	char g[8192], w[8192];
	names_str(got, g, sizeof(g));
	names_str(want, w, sizeof(w));
	ck_assert_msg(!strcmp(g, w), "%s lists '%s', the table '%s'", what, g, w);
}

/* The names of an option: "--dev", "-d". */
static void add_names(struct names *ns, const struct opt *o)
{
	char s[3] = {'-', o->short_name, '\0'}, l[40];
	if (o->long_name) {
		snprintf(l, sizeof(l), "--%s", o->long_name);
		names_add(ns, l, strlen(l));
	}
	if (o->short_name)
		names_add(ns, s, 2);
}

static bool is_option(const struct opt *o)
{
	return o->kind == OPT_FLAG || o->kind == OPT_VALUE || o->kind == OPT_OPTIONAL;
}

/* What the table says sub takes (-1: the whole command), shown ones. */
static void table_names(const struct cmd *cmd, int sub, struct names *ns)
{
	for (const struct opt *o = cmd->options; o && o->kind != OPT_END; o++)
		if (is_option(o) && !o->hidden && opts_sub_takes(cmd, o, sub))
			add_names(ns, o);
}

static void global_names(const struct cmd *cmd, struct names *ns)
{
	for (const struct opt *g = cli_globals; g->kind != OPT_END; g++)
		if (!cmd || cmd_takes_global(cmd, g))
			add_names(ns, g);
}

/* The words of a term ("-d, --dev DEV", "--sim[=DIR]", "-h/--help") that
 * are options, into ns. */
static void term_names(const char *t, size_t len, struct names *ns)
{
	for (size_t i = 0; i < len;) {
		size_t n = strcspn(t + i, " ,/[");
		if (n > len - i)
			n = len - i;
		if (n > 1 && t[i] == '-')
			names_add(ns, t + i, n);
		i += n ? n : 1;
	}
}

/* The options a help text lists: its items, the lines that start with two
 * spaces and an option; the global ones from its last line. */
static void help_names(const char *text, struct names *ns, struct names *globals)
{
	static const char g[] = "global options it takes:";
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		if (n > 3 && !strncmp(p, "  -", 3)) {
			const char *gap = strstr(p + 2, "  ");
			size_t end = gap && gap < p + n ? (size_t)(gap - p) : n;
			term_names(p + 2, end - 2, ns);
		} else if (!strncmp(p, g, strlen(g))) {
			/* ", "-separated items, each an option's term (and "(with --sim)") */
			for (const char *q = p + strlen(g); q < p + n;) {
				q += strspn(q, " ,");
				size_t k = strcspn(q, " ,\n");
				term_names(q, k, globals);
				q += strcspn(q, ",\n");
			}
		}
		p += n + (p[n] == '\n');
	}
}

static char *run_ok(const char *const *argv)
{
	char *out, *err;
	int rc = tu_run(argv, &out, &err);
	ck_assert_msg(rc == 0, "ibvf %s %s: exit %d: %s", argv[0], argv[1] ? argv[1] : "", rc, err);
	free(err);
	return out;
}

static const struct cmd *command(int i)
{
	size_t n;
	const struct cmd *cmds = cmd_table(&n);
	ck_assert_int_lt(i, (int)n);
	return &cmds[i];
}

static int n_commands(void)
{
	size_t n;
	cmd_table(&n);
	return (int)n;
}

static int n_subs(const struct cmd *cmd)
{
	int n = 0;
	while (cmd->subs && cmd->subs[n].name)
		n++;
	return n;
}

/* Each table: options named, ids above 0 and its own, a placeholder for
 * each value, no name twice and none a global option's (main.c takes those
 * out of the command line before the command sees it). */
START_TEST(every_table_is_well_formed)
{
	const struct cmd *cmd = command(_i);
	struct names all = {0};
	global_names(NULL, &all);
	size_t n_globals = all.n, n = 0;
	for (const struct opt *o = cmd->options; o && o->kind != OPT_END; o++) {
		if (o->kind == OPT_TEXT) {
			ck_assert_msg(o->help && !o->long_name && !o->short_name, "%s", cmd->name);
			continue;
		}
		ck_assert_msg(o->long_name, "%s: an option without a long name", cmd->name);
		ck_assert_msg(o->id > 0, "%s --%s: id %d", cmd->name, o->long_name, o->id);
		ck_assert_msg((o->kind == OPT_FLAG) == !o->arg, "%s --%s: placeholder", cmd->name,
			      o->long_name);
		ck_assert_msg(o->help && *o->help, "%s --%s: no help", cmd->name, o->long_name);
		ck_assert_msg(!o->subs || o->subs < OPT_SUB(n_subs(cmd)),
			      "%s --%s: a subcommand it does not have", cmd->name, o->long_name);
		for (const struct opt *p = cmd->options; p < o; p++)
			ck_assert_msg(!is_option(p) || p->id != o->id, "%s: id %d twice", cmd->name,
				      o->id);
		add_names(&all, o);
		n += o->short_name ? 2 : 1;
		ck_assert_msg(all.n == n_globals + n, "%s --%s: a name another option has",
			      cmd->name, o->long_name);
	}
}
END_TEST

/* `ibvf help CMD`: every shown option of the table, and the global options
 * the command takes; `ibvf help CMD SUB` and `ibvf CMD SUB --help`: the ones
 * SUB takes. */
START_TEST(help_lists_the_table)
{
	const struct cmd *cmd = command(_i);
	for (int sub = -1; sub < n_subs(cmd); sub++) {
		if (sub >= 0 && (cmd->subs[sub].hidden || !cmd->subs[sub].name[0]))
			continue;
		const char *h[] = {"help", cmd->name, sub >= 0 ? cmd->subs[sub].name : NULL, NULL};
		char *out = run_ok(h), what[96];
		struct names got = {0}, want = {0}, gg = {0}, gw = {0};
		help_names(out, &got, &gg);
		table_names(cmd, sub, &want);
		snprintf(what, sizeof(what), "'ibvf help %s %s'", cmd->name,
			 sub >= 0 ? cmd->subs[sub].name : "");
		names_eq(&got, &want, what);
		if (!(cmd->flags & CMD_ANY))
			global_names(cmd, &gw);
		names_eq(&gg, &gw, what);
		if (sub >= 0) {
			const char *a[] = {cmd->name, cmd->subs[sub].name, "--help", NULL};
			char *again = run_ok(a);
			ck_assert_str_eq(again, out);
			free(again);
		}
		free(out);
	}
}
END_TEST

START_TEST(the_overview_lists_the_global_options)
{
	const char *h[] = {"help", NULL};
	char *out = run_ok(h);
	const char *opts = strstr(out, "\noptions (before or after the command):\n");
	ck_assert_ptr_nonnull(opts);
	struct names got = {0}, want = {0}, none = {0};
	help_names(opts, &got, &none);
	global_names(NULL, &want);
	names_eq(&got, &want, "'ibvf help'");
	free(out);
}
END_TEST

/* The man page's section of cmd (its .SS to the next heading), or the
 * OPTIONS section (cmd NULL). */
static char *man_section(const char *page, const struct cmd *cmd)
{
	char head[64];
	snprintf(head, sizeof(head), cmd ? "\n.SS %s\n" : "\n.SH OPTIONS\n", cmd ? cmd->name : "");
	const char *s = strstr(page, head);
	ck_assert_msg(s, "the man page has no '%s'", head + 1);
	s += strlen(head);
	const char *e = s + strcspn(s, "");
	for (const char *h = s; (h = strstr(h, "\n.S")); h++)
		if (h[3] == 'S' || h[3] == 'H') {
			e = h;
			break;
		}
	return strndup(s, (size_t)(e - s));
}

/* The options of a man page section's .TP items ("\fB\-d\fR, \fB\-\-dev\fR
 * \fIDEV\fR"), those sub takes: no "a|b:" line under the term, or one
 * naming it (sub NULL: all). */
static void man_names(const char *sec, const char *sub, struct names *ns)
{
	for (const char *p = sec; (p = strstr(p, ".TP\n")); p++) {
		const char *t = p + 4, *next = t + strcspn(t, "\n");
		if (strncmp(t, "\\fB\\-", 5))
			continue;
		struct names these = {0};
		for (const char *q = t; (q = strstr(q, "\\fB")) && q < next; q++) {
			char name[40];
			size_t k = 0;
			for (q += 3; strncmp(q, "\\fR", 3) && k + 1 < sizeof(name); q++)
				if (strncmp(q, "\\-", 2))
					name[k++] = *q;
			names_add(&these, name, k);
		}
		/* the subcommands that take it, when not all do */
		const char *tag = *next ? next + 1 : next;
		size_t tl = strcspn(tag, "\n");
		bool takes = true;
		if (tl > 1 && tag[tl - 1] == ':' &&
		    strspn(tag, "abcdefghijklmnopqrstuvwxyz-|") == tl - 1) {
			takes = !sub;
			for (const char *w = tag; sub && w < tag + tl - 1;
			     w += strcspn(w, "|:") + 1)
				takes |= strcspn(w, "|:") == strlen(sub) &&
					 !strncmp(w, sub, strlen(sub));
		}
		for (size_t i = 0; takes && i < these.n; i++)
			names_add(ns, these.w[i], strlen(these.w[i]));
	}
}

START_TEST(the_man_page_lists_the_tables)
{
	const char *m[] = {"help", "--man", NULL};
	char *page = run_ok(m), what[96];
	if (_i == n_commands()) {
		char *sec = man_section(page, NULL);
		struct names got = {0}, want = {0};
		man_names(sec, NULL, &got);
		global_names(NULL, &want);
		names_eq(&got, &want, "the man page's OPTIONS");
		free(sec);
		free(page);
		return;
	}
	const struct cmd *cmd = command(_i);
	char *sec = man_section(page, cmd);
	for (int sub = -1; sub < n_subs(cmd); sub++) {
		if (sub >= 0 && cmd->subs[sub].hidden)
			continue;
		struct names got = {0}, want = {0};
		man_names(sec, sub >= 0 ? cmd->subs[sub].name : NULL, &got);
		table_names(cmd, sub, &want);
		snprintf(what, sizeof(what), "the man page on '%s %s'", cmd->name,
			 sub >= 0 ? cmd->subs[sub].name : "");
		names_eq(&got, &want, what);
	}
	free(sec);
	free(page);
}
END_TEST

/* The value of _ibvf_VAR='...' in a completion table, as names. */
static bool table_var(const char *table, const char *var, struct names *ns)
{
	char head[96];
	snprintf(head, sizeof(head), "\n%s='", var);
	const char *s = strstr(table, head);
	if (!s)
		return false;
	s += strlen(head);
	for (size_t n; *s != '\''; s += n + (s[n] == ' ')) {
		n = strcspn(s, " '");
		names_add(ns, s, n);
	}
	return true;
}

START_TEST(the_completions_list_the_tables)
{
	static const char *const shells[] = {"--completion=bash", "--completion=zsh"};
	for (size_t k = 0; k < 2; k++) {
		const char *a[] = {"help", shells[k], NULL};
		char *table = run_ok(a), var[96], what[128];
		if (_i == n_commands()) {
			struct names got = {0}, want = {0};
			ck_assert(table_var(table, "_ibvf_globals", &got));
			global_names(NULL, &want);
			names_eq(&got, &want, shells[k]);
			free(table);
			continue;
		}
		const struct cmd *cmd = command(_i);
		for (int sub = -1; sub < n_subs(cmd); sub++) {
			if (sub >= 0 && (cmd->subs[sub].hidden || !cmd->subs[sub].name[0]))
				continue;
			struct names got = {0}, want = {0};
			snprintf(var, sizeof(var), "_ibvf_opts_%s%s%s", cmd->name,
				 sub >= 0 ? "_" : "", sub >= 0 ? cmd->subs[sub].name : "");
			for (char *c = var; *c; c++) /* a shell name: pod-start is pod_start */
				*c = *c == '-' ? '_' : *c;
			ck_assert_msg(table_var(table, var, &got), "%s: no %s", shells[k], var);
			table_names(cmd, sub, &want);
			global_names(cmd, &want);
			snprintf(what, sizeof(what), "%s's %s", shells[k], var);
			names_eq(&got, &want, what);
		}
		/* the placeholder of each that takes a value */
		struct names got = {0}, want = {0};
		snprintf(var, sizeof(var), "_ibvf_vals_%s", cmd->name);
		ck_assert(table_var(table, var, &got));
		for (const struct opt *o = cmd->options; o && o->kind != OPT_END; o++) {
			char v[96];
			if (!is_option(o) || o->hidden || !o->arg)
				continue;
			snprintf(v, sizeof(v), "--%s:%s", o->long_name, o->arg);
			names_add(&want, v, strlen(v));
			snprintf(v, sizeof(v), "-%c:%s", o->short_name, o->arg);
			if (o->short_name)
				names_add(&want, v, strlen(v));
		}
		for (const struct opt *g = cli_globals; g->kind != OPT_END; g++) {
			char v[96];
			snprintf(v, sizeof(v), "--%s:%s", g->long_name, g->arg ? g->arg : "");
			if (g->arg && cmd_takes_global(cmd, g))
				names_add(&want, v, strlen(v));
		}
		snprintf(what, sizeof(what), "%s's %s", shells[k], var);
		names_eq(&got, &want, what);
		free(table);
	}
}
END_TEST

/* `ibvf CMD [SUB] NAME [x] --zz-not-an-option`: accepted, the parser goes
 * on to the next word and refuses that; refused, it says NAME is not
 * taken. Either way before anything runs. */
static void try_option(const struct cmd *cmd, int sub, const struct opt *o, const char *name)
{
	const char *argv[6];
	int n = 0;
	argv[n++] = cmd->name;
	if (sub >= 0 && cmd->subs[sub].name[0])
		argv[n++] = cmd->subs[sub].name;
	argv[n++] = name;
	if (o->kind == OPT_VALUE)
		argv[n++] = "x";
	argv[n++] = NOT_AN_OPTION;
	argv[n] = NULL;
	char *out, *err, want[160];
	int rc = tu_run(argv, &out, &err);
	int usage = cmd->flags & CMD_SEVERITY_EXIT ? EXIT_UNKNOWN : EXIT_USAGE;
	const char *in = sub >= 0 ? cmd->subs[sub].name : "";
	ck_assert_msg(rc == usage, "'ibvf %s %s %s': exit %d: %s", cmd->name, in, name, rc, err);
	if (opts_sub_takes(cmd, o, sub))
		snprintf(want, sizeof(want), "ibvf: unknown option '%s' (see 'ibvf %s --help')\n",
			 NOT_AN_OPTION, cmd->name);
	else
		snprintf(want, sizeof(want), "' takes no %s: it goes with '%s ", name, cmd->name);
	ck_assert_msg(opts_sub_takes(cmd, o, sub) ? !strcmp(err, want) : strstr(err, want) != NULL,
		      "'ibvf %s %s %s': '%s', not '%s'", cmd->name, in, name, err, want);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
}

/* The context no subcommand is named in: the row named "" when there is
 * one (journal: listing), else none (every option, the command says what
 * it lacks). */
static int no_sub(const struct cmd *cmd)
{
	for (int i = 0; i < n_subs(cmd); i++)
		if (!cmd->subs[i].name[0])
			return i;
	return -1;
}

START_TEST(the_parser_takes_the_table)
{
	const struct cmd *cmd = command(_i);
	for (int sub = -1; sub < n_subs(cmd); sub++) {
		if (sub == -1 && no_sub(cmd) >= 0)
			continue;
		for (const struct opt *o = cmd->options; o && o->kind != OPT_END; o++) {
			char l[48], s[3] = {'-', o->short_name, '\0'};
			if (!is_option(o))
				continue;
			snprintf(l, sizeof(l), "--%s", o->long_name);
			try_option(cmd, sub, o, l);
			if (o->short_name)
				try_option(cmd, sub, o, s);
		}
	}
}
END_TEST

/* An option no table holds, one of another command's table, and a global
 * option the command does not take: refused, in one line. */
START_TEST(the_parser_refuses_what_the_table_lacks)
{
	const struct cmd *cmd = command(_i);
	int usage = cmd->flags & CMD_SEVERITY_EXIT ? EXIT_UNKNOWN : EXIT_USAGE;
	struct names mine = {0}, others = {0};
	for (const struct opt *o = cmd->options; o && o->kind != OPT_END; o++)
		if (is_option(o))
			add_names(&mine, o);
	names_add(&others, NOT_AN_OPTION, strlen(NOT_AN_OPTION));
	for (int i = 0; i < n_commands(); i++)
		for (const struct opt *o = command(i)->options; o && o->kind != OPT_END; o++)
			if (is_option(o))
				add_names(&others, o);
	for (size_t i = 0; i < others.n; i++) {
		bool taken = false;
		for (size_t k = 0; k < mine.n && !taken; k++)
			taken = !strcmp(mine.w[k], others.w[i]);
		if (taken)
			continue;
		const char *argv[] = {cmd->name, others.w[i], "x", NULL};
		char *out, *err, want[128];
		int rc = tu_run(argv, &out, &err);
		snprintf(want, sizeof(want), "ibvf: unknown option '%s' (see 'ibvf %s --help')\n",
			 others.w[i], cmd->name);
		ck_assert_msg(rc == usage, "'ibvf %s %s': exit %d", cmd->name, others.w[i], rc);
		ck_assert_str_eq(err, want);
		free(out);
		free(err);
	}
	if (cmd->flags & CMD_ANY)
		return; /* help: it ignores them */
	for (const struct opt *g = cli_globals; g->kind != OPT_END; g++) {
		if (cmd_takes_global(cmd, g) || g->id == CLI_G_VERSION)
			continue;
		char l[48];
		snprintf(l, sizeof(l), "--%s%s", g->long_name, g->kind == OPT_VALUE ? "=x" : "");
		const char *argv[] = {cmd->name, l, NULL};
		char *out, *err;
		int rc = tu_run(argv, &out, &err);
		ck_assert_msg(rc == usage, "'ibvf %s %s': exit %d: %s", cmd->name, l, rc, err);
		ck_assert_msg(!strncmp(err, "ibvf: ", 6) &&
				      strchr(err, '\n') == err + strlen(err) - 1,
			      "'ibvf %s %s': %s", cmd->name, l, err);
		free(out);
		free(err);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("opts");
	TCase *tc = tcase_create("opts");
	tcase_set_timeout(tc, 120);
	int n = n_commands();
	tcase_add_loop_test(tc, every_table_is_well_formed, 0, n);
	tcase_add_loop_test(tc, help_lists_the_table, 0, n);
	tcase_add_test(tc, the_overview_lists_the_global_options);
	tcase_add_loop_test(tc, the_man_page_lists_the_tables, 0, n + 1);
	tcase_add_loop_test(tc, the_completions_list_the_tables, 0, n + 1);
	tcase_add_loop_test(tc, the_parser_takes_the_table, 0, n);
	tcase_add_loop_test(tc, the_parser_refuses_what_the_table_lacks, 0, n);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
