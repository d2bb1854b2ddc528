/* SPDX-License-Identifier: MIT */
/* Options described once, as git's parse-options has them: each command's
 * options are a table (name, argument, help) in the command table's row, and
 * its parser, `CMD --help`, the man page and the shell completions are all
 * made from it (commands.c, help_man.c, help_complete.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_kind {
	OPT_END,      /* the end of a table */
	OPT_FLAG,     /* --name, -n */
	OPT_VALUE,    /* --name VALUE, --name=VALUE, -n VALUE, -nVALUE */
	OPT_OPTIONAL, /* --name, or --name=VALUE */
	OPT_TEXT,     /* no option: a paragraph of the help, where it stands */
};

/* One option of a command. subs: the subcommands that take it, bit i for
 * the command's subs[i] (OPT_SUB(i)); 0 for every one. */
struct opt {
	enum opt_kind kind;
	const char *long_name;
	char short_name;
	const char *arg;  /* the value's placeholder: "FILE", "DEV", "NAME|PATH" */
	int id;		  /* what opts_next() returns for it: above 0 */
	const char *help; /* lines after the first are indented under it */
	unsigned int subs;
	bool hidden; /* parsed, never shown (test and benchmark hooks) */
};

#define OPT_SUB(i) (1u << (i))

/* The parts of a table entry: {OPT_BOOL(...)}, {OPT_ARG(...), .subs = ...}. */
#define OPT_BOOL(l, s, i, h)                                                                       \
	.kind = OPT_FLAG, .long_name = (l), .short_name = (s), .id = (i), .help = (h)
#define OPT_ARG(l, s, a, i, h)                                                                     \
	.kind = OPT_VALUE, .long_name = (l), .short_name = (s), .arg = (a), .id = (i), .help = (h)
#define OPT_PARA(h)   .kind = OPT_TEXT, .help = (h)
#define OPT_TABLE_END .kind = OPT_END

/* A subcommand: the first argument of the command. A row named "" stands
 * for none (`ibvf journal` lists, `ibvf journal undo ID` undoes). */
struct opt_sub {
	const char *name;
	const char *usage; /* after "usage: ibvf " */
	bool hidden;
};

struct cmd;

/* A command line parsed against its command's table (opts_parse()). */
struct opts {
	const struct cmd *cmd;
	int sub;	       /* the index in cmd->subs of the subcommand given; -1 none */
	char **pos;	       /* the positional arguments in order, the subcommand first */
	int n_pos;	       /* (a NULL after the last, as argv) */
	const struct opt *opt; /* the option opts_next() returned ... */
	char name[40];	       /* ... as typed, without its value: "--size", "-d" */
	/* private */
	char **argv;
	int next, end; /* argv[next..end): the options not returned yet */
};

/* Parses argv (argv[0] the command's name) against cmd's options: options
 * go before, between or after the arguments, "--" ends them. Every option
 * is checked before any is returned: one unknown, a value missing or one
 * given a flag, one the subcommand given does not take, and it is said in
 * one line (cli_error) and -EINVAL returned. argv is reordered: the options
 * first, then the positional arguments (p->pos). */
int opts_parse(const struct cmd *cmd, int argc, char **argv, struct opts *ret);
/* The next option's id (its value in *ret_value, NULL for a flag; ret_value
 * may be NULL), in the order given; 0 after the last. */
int opts_next(struct opts *p, const char **ret_value);

/* argv[i] as one of t's options: the entries it takes (1 or 2), the option
 * in *ret_opt and its value in *ret_value; 0 when it is none of them; -1
 * when its value is missing or it takes none (said). For main.c's global
 * options, which stand anywhere among a command's. */
int opts_match(const struct opt *t, int argc, char **argv, int i, const struct opt **ret_opt,
	       const char **ret_value);

/* Whether subcommand sub of cmd takes o; sub -1 (none named): every option
 * does, as far as the parser goes (the command says what it lacks). */
bool opts_sub_takes(const struct cmd *cmd, const struct opt *o, int sub);
/* Whether o is an option shown in help, man page and completion. */
bool opts_shown(const struct opt *o);
/* The option as its help shows it: "-d, --dev DEV", "--sim[=DIR]". */
void opts_term(const struct opt *o, char *buf, size_t size);
/* "server|client": the subcommands that take o, when not all do ("" else). */
void opts_subs_tag(const struct cmd *cmd, const struct opt *o, char *buf, size_t size);
/* Prints the options of t a subcommand takes, with their help, as
 * `CMD --help` does: a column for the terms, the help lined up after. sub
 * -1: every option, each one only some subcommands take tagged with them. */
void opts_print(FILE *f, const struct cmd *cmd, const struct opt *t, int sub);
