// SPDX-License-Identifier: MIT
/* `ibvf help --completion=bash|zsh`: the table the shell completions read
 * (completion/ibvf.bash, completion/_ibvf.zsh), as shell variables, from what
 * `ibvf help` and `ibvf help CMD` print: each command's summary, its
 * subcommands (the word after its name in each usage alternative), its
 * options (every --word its help names, with the placeholder that follows
 * one: "--key FILE") and what its positional arguments are (devices, a
 * directory, a command). The build writes it once; completing then runs no
 * ibvf (cheap, and `sudo ibvf <TAB>` works with /usr/sbin off the PATH). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tui/base/cli.h"
#include "help_gen.h"

#define MAX_WORDS 128
#define WORD_LEN  64

struct words {
	char w[MAX_WORDS][WORD_LEN];
	size_t n;
};

/* Adds s[0..n) unless a word already has its first key bytes. */
static void words_add(struct words *ws, const char *s, size_t n, size_t key)
{
	if (n == 0 || n >= WORD_LEN || ws->n == MAX_WORDS)
		return;
	for (size_t i = 0; i < ws->n; i++)
		if (!strncmp(ws->w[i], s, key) && (ws->w[i][key] == '\0' || ws->w[i][key] == ':'))
			return;
	memcpy(ws->w[ws->n], s, n);
	ws->w[ws->n++][n] = '\0';
}

static bool is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_opt_char(char c)
{
	return is_lower(c) || (c >= '0' && c <= '9') || c == '-';
}

/* Options where a word starts ("--name", "-d"), each with the placeholder
 * after it into vals as "--name:PLACEHOLDER" (" FILE", "=DIR", "[=DIR]"). */
static void scan_options(const char *t, struct words *opts, struct words *vals)
{
	for (const char *p = t; (p = strchr(p, '-')); p++) {
		if ((p > t && !strchr(" [(|/,'`\n", p[-1])) || p[1] == ' ')
			continue;
		const char *q = p[1] == '-' ? p + 2 : p + 1;
		if (!is_lower(*q) && !(p[1] != '-' && *q >= 'A' && *q <= 'Z'))
			continue;
		if (p[1] == '-')
			while (is_opt_char(*q))
				q++;
		else if (!strchr(" ,/]\n", *++q))
			continue; /* a short option is one letter */
		size_t n = (size_t)(q - p);
		words_add(opts, p, n, n);
		const char *v = q;
		if (v[0] == '[' && v[1] == '=')
			v += 2;
		else if (*v == ' ' || *v == '=')
			v++;
		else
			continue;
		if (!(*v >= 'A' && *v <= 'Z'))
			continue;
		size_t vn = strcspn(v, " ]),.;'\n");
		char buf[WORD_LEN];
		int len = snprintf(buf, sizeof(buf), "%.*s:%.*s", (int)n, p, (int)vn, v);
		if (len > 0 && (size_t)len < sizeof(buf))
			words_add(vals, buf, (size_t)len, n);
		p = q - 1;
	}
}

/* A command's own options: those of its usage, of its help's lines that
 * start with one (its items), and of the "global options it takes" line;
 * not the ones its prose mentions ("run 'ibvf check --fix ID'"). */
static void scan_help(const char *help, struct words *opts, struct words *vals)
{
	bool usage = true;
	for (const char *p = help; *p;) {
		size_t n = strcspn(p, "\n"), in = strspn(p, " ");
		if (n == 0)
			usage = false;
		if (usage || (in <= 2 && in < n && p[in] == '-') ||
		    !strncmp(p, "global options it takes:", 24)) {
			char *line = strndup(p, n), *quote;
			if (line && (quote = strstr(line, " '")))
				*quote = '\0'; /* a quoted command line, another's options */
			if (line)
				scan_options(line, opts, vals);
			free(line);
		}
		p += n + (p[n] == '\n');
	}
}

/* The word after the command's name in each alternative of its usage. */
static void scan_subs(const char *name, const char *usage, struct words *subs)
{
	size_t nl = strlen(name);
	for (const char *p = usage; *p;) {
		p += strspn(p, " \n|");
		if (!strncmp(p, "ibvf ", 5))
			p += 5;
		if (!strncmp(p, name, nl) && p[nl] == ' ') {
			const char *w = p + nl + 1, *e = w;
			while (is_lower(*e))
				e++;
			if (e > w && strchr(" \n|", *e))
				words_add(subs, w, (size_t)(e - w), (size_t)(e - w));
		}
		p += strcspn(p, "|\n");
	}
}

/* What a command's positional arguments are, from its usage's placeholders
 * that no option takes: "dev", "dir", "cmd" or "". */
static const char *pos_kind(const char *usage)
{
	static const char *const devs[] = {"PF",    "VF",	"DEV",	 "DEV_A",
					   "DEV_B", "PEER_DEV", "DEVICE"};
	const char *kind = "";
	bool after_opt = false;
	for (const char *p = usage; *p;) {
		p += strspn(p, " \n");
		size_t n = strcspn(p, " \n");
		const char *w = p;
		p += n;
		bool opt = n && (w[0] == '-' || (w[0] == '[' && n > 1 && w[1] == '-'));
		for (const char *q = w; q < w + n && !after_opt && !opt;) {
			q += strspn(q, "[|");
			size_t k = strcspn(q, "|]. \n");
			if (k > (size_t)(w + n - q))
				k = (size_t)(w + n - q);
			for (size_t d = 0; d < sizeof(devs) / sizeof(devs[0]); d++)
				if (strlen(devs[d]) == k && !strncmp(q, devs[d], k))
					return "dev";
			if (k == 3 && !strncmp(q, "DIR", 3))
				kind = "dir";
			else if (k == 7 && !strncmp(q, "COMMAND", 7) && !*kind)
				kind = "cmd";
			q += k ? k : 1;
		}
		after_opt = opt;
	}
	return kind;
}

static void print_var(FILE *f, const char *var, const char *name, const char *value)
{
	fprintf(f, "_ibvf_%s%s%s='", var, name ? "_" : "", name ? name : "");
	for (const char *c = value; *c; c++)
		if (*c == '\'')
			fputs("'\\''", f);
		else
			fputc(*c, f);
	fputs("'\n", f);
}

static void print_words(FILE *f, const char *var, const char *name, const struct words *ws)
{
	char buf[MAX_WORDS * WORD_LEN] = "";
	size_t len = 0;
	for (size_t i = 0; i < ws->n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "",
					ws->w[i]);
	print_var(f, var, name, buf);
}

/* The overview's options: the ones every command is checked against. */
static int print_globals(FILE *f)
{
	char *overview = help_text(NULL);
	const char *opts = overview ? strstr(overview, "\noptions") : NULL;
	struct words ws = {0}, vals = {0};
	if (!opts) {
		free(overview);
		return -1;
	}
	scan_options(opts, &ws, &vals);
	print_words(f, "globals", NULL, &ws);
	print_words(f, "global_vals", NULL, &vals);
	free(overview);
	return 0;
}

int help_completion(FILE *f, const char *shell)
{
	if (strcmp(shell, "bash") && strcmp(shell, "zsh")) {
		cli_error("invalid --completion '%s': bash or zsh", shell);
		return EXIT_USAGE;
	}
	if (!strcmp(shell, "zsh"))
		fputs("#compdef ibvf\n", f);
	fprintf(f,
		"# The %s completion of ibvf: this table is generated by 'ibvf help\n"
		"# --completion=%s' from the command table (tui/commands/commands.c).\n",
		shell, shell);
	size_t n;
	const struct cmd *cmds = cmd_table(&n);
	struct words names = {0};
	for (size_t i = 0; i < n; i++)
		words_add(&names, cmds[i].name, strlen(cmds[i].name), strlen(cmds[i].name) + 1);
	print_words(f, "commands", NULL, &names);
	if (print_globals(f) < 0) {
		cli_error("cannot write the completion table: the help has no options");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct words subs = {0}, opts = {0}, vals = {0};
		char *help = help_text(&cmds[i]);
		if (!help) {
			cli_error("cannot write the completion table: out of memory");
			return 1;
		}
		/* the usage: what help prints before its first blank line */
		const char *end = strstr(help, "\n\n");
		char *usage = strndup(help + 12, end ? (size_t)(end - help - 12) : 0);
		scan_subs(cmds[i].name, usage ? usage : "", &subs);
		scan_help(help, &opts, &vals);
		free(help);
		print_var(f, "summary", cmds[i].name, cmds[i].summary);
		print_words(f, "subs", cmds[i].name, &subs);
		print_words(f, "opts", cmds[i].name, &opts);
		print_words(f, "vals", cmds[i].name, &vals);
		print_var(f, "pos", cmds[i].name, pos_kind(usage ? usage : ""));
		free(usage);
	}
	return fflush(f) == 0 ? 0 : 1;
}
