/* SPDX-License-Identifier: MIT */
/* The command line: the global options, the command table's row, the
 * commands' handlers and what several of them share. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "opts.h"

struct sys;

/* The global options, parsed once (main.c), before or after the command. */
struct cli {
	const char *sim_dir; /* --sim[=DIR]: NULL unless --sim=DIR was given */
	bool sim;
	const char *root;   /* --root DIR */
	const char *kernel; /* --kernel REL (simulated kernel release; mkfixture's) */
	const char *theme;  /* --theme NAME|PATH (the console) */
	bool json;
	/* --kubelet-socket PATH (as on the node), --kubelet-timeout MS: the
	 * kubelet's pod-resources API (core/sys/podres.h); NULL, 0: defaults. */
	const char *kubelet_socket;
	int kubelet_timeout_ms;
};

/* What a command takes of the global options. */
enum cmd_flags {
	CMD_NODE = 1u << 0,	     /* reads the node: --sim, --root, --kernel */
	CMD_JSON = 1u << 1,	     /* has JSON output: --json */
	CMD_THEME = 1u << 2,	     /* draws: --theme */
	CMD_KERNEL = 1u << 3,	     /* takes --kernel without --sim (mkfixture) */
	CMD_ANY = 1u << 4,	     /* ignores every global option (help) */
	CMD_SEVERITY_EXIT = 1u << 5, /* exits 0/1/2 by severity; any error EXIT_UNKNOWN (3) */
};

/* What a command's positional arguments are, for the completions. */
enum cmd_pos {
	CMD_POS_NONE,
	CMD_POS_DEV, /* devices of the node */
	CMD_POS_DIR, /* a directory */
	CMD_POS_CMD, /* a command of this table */
};

/* One row of the command table (commands.c). argv[0] of the handler is the
 * command's name; it returns the exit status. */
struct cmd {
	const char *name;
	int (*run)(const struct cli *c, int argc, char **argv);
	unsigned int flags;
	const char *summary;	    /* one line in `ibvf help` */
	const char *usage;	    /* after "usage: ibvf " */
	const char *help;	    /* before the options */
	const struct opt *options;  /* what it takes (opts.h); NULL: none */
	const struct opt_sub *subs; /* its subcommands, up to a NULL name; NULL: none */
	enum cmd_pos pos;
};

#define EXIT_USAGE 2
/* `ibvf check` exits 0 (clean or info), 1 (warnings), 2 (critical) as the
 * Nagios plugin convention has it; when it could not check (a bad argument,
 * an unknown device, a node it could not read) it exits 3, Nagios' UNKNOWN. */
#define EXIT_UNKNOWN 3

/* commands.c: the global options, before or after the command (main.c
 * parses them), and whether a command takes one. */
enum cli_global_id {
	CLI_G_SIM = 1,
	CLI_G_ROOT,
	CLI_G_KERNEL,
	CLI_G_THEME,
	CLI_G_JSON,
	CLI_G_KUBELET_SOCKET,
	CLI_G_KUBELET_TIMEOUT,
	CLI_G_HELP,
	CLI_G_VERSION,
};
extern const struct opt cli_globals[];
bool cmd_takes_global(const struct cmd *cmd, const struct opt *g);

/* commands.c: the table, and help rendered from it. */
const struct cmd *cmd_find(const char *name);
const struct cmd *cmd_table(size_t *ret_n);
void cmd_print_overview(FILE *f);
/* The help of cmd, or of its subcommand sub (>= 0: its usage and options). */
void cmd_print_help(FILE *f, const struct cmd *cmd, int sub);
/* The index of cmd's visible-or-hidden subcommand name in cmd->subs; -1. */
int cmd_find_sub(const struct cmd *cmd, const char *name);
void cmd_print_usage(FILE *f, const struct cmd *cmd);
/* "global options it takes: --sim[=DIR], ..., -h/--help" and a newline. */
void cmd_print_globals(FILE *f, const struct cmd *cmd);
/* The overview's usage, after "usage: ". */
#define CMD_SYNOPSIS "ibvf [--sim[=DIR] | --root DIR] [--kernel REL] <command> [<args>]"

/* cli.c: prints "ibvf: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* While e is set, cli_error() keeps its first message in e instead of
 * printing (the console parsing a command line); NULL prints again. */
struct err;
void cli_error_capture(struct err *e);
/* Opens the node the options name (real, --root tree or simulated), with
 * the kubelet options applied. */
int cli_open(const struct cli *c, struct sys **ret);
/* --kubelet-socket's and --kubelet-timeout's values checked into c: -1 and
 * one line said when one is not what it must be. */
int cli_kubelet_socket(struct cli *c, const char *v);
int cli_kubelet_timeout(struct cli *c, const char *v);
/* A stray argument of a command that takes none: one line, EXIT_USAGE. */
int cli_bad_arg(const char *cmd, const char *arg);
/* Prints a JSON document on stdout the way every command does: valid UTF-8
 * whatever the node's strings hold (core/base/escape.h). _ext with json-c's
 * JSON_C_TO_STRING_* flags. */
struct json_object;
void cli_print_json(struct json_object *o);
void cli_print_json_ext(struct json_object *o, int flags);

/* The handlers, one file each, and the options each takes (opts.h). */
int cmd_console(const struct cli *c, int argc, char **argv);
extern const struct opt console_options[]; /* console.c */
extern const struct opt_sub console_subs[];
int cmd_list(const struct cli *c, int argc, char **argv);
extern const struct opt list_options[];
int cmd_check(const struct cli *c, int argc, char **argv);
extern const struct opt check_options[];
int cmd_watch(const struct cli *c, int argc, char **argv);
int cmd_vf(const struct cli *c, int argc, char **argv);
extern const struct opt vf_options[];
extern const struct opt_sub vf_subs[];
int cmd_persist(const struct cli *c, int argc, char **argv);
extern const struct opt persist_options[];
int cmd_journal(const struct cli *c, int argc, char **argv);
extern const struct opt journal_options[];
extern const struct opt_sub journal_subs[];
int cmd_bench(const struct cli *c, int argc, char **argv);
extern const struct opt bench_options[];
extern const struct opt_sub bench_subs[];
int cmd_mkfixture(const struct cli *c, int argc, char **argv);
extern const struct opt mkfixture_options[];
int cmd_debug(const struct cli *c, int argc, char **argv);
extern const struct opt debug_options[];
extern const struct opt_sub debug_subs[];
int cmd_metrics(const struct cli *c, int argc, char **argv);
extern const struct opt metrics_options[];
int cmd_record(const struct cli *c, int argc, char **argv);
extern const struct opt record_options[];
int cmd_timeline(const struct cli *c, int argc, char **argv);
extern const struct opt timeline_options[];
int cmd_help(const struct cli *c, int argc, char **argv);

/* cmd_reboot.c: a reboot of the simulated node c names (power cycle, the
 * boot unit as systemd runs it, the kubelet's pods); its exit status. The
 * seed of the VF probe order: --seed's argument, else $IBVF_SIM_SEED, else
 * a random one; -EINVAL (said) for a bad one. */
#include <stdint.h>
/* at_us: when the node boots (wall clock microseconds; 0: now). */
int reboot_run(const struct cli *c, uint64_t seed, int64_t at_us);
int reboot_seed(const char *arg, uint64_t *ret);
/* Runs this binary on the simulated node dir with args (no shell, stdin
 * /dev/null), as the boot unit's ibvf lines run: the exit status (-1:
 * killed) and the last line of its output in why. */
#include <stddef.h>
int reboot_exec_ibvf(const char *dir, char *const *args, size_t n_args, char *why, size_t size);
/* mkfixture_history.c: two days of recorded history, from start_us on, in
 * the simulated node just made in dir (mkfixture --history); its exit
 * status (said). seed: the reboot's VF probe order. */
int mkfixture_history(const char *dir, int64_t start_us, uint64_t seed);
/* cmd_podstart.c: `debug pod-start` on the simulated node c names: pod is
 * NAMESPACE/NAME, vf what the user typed (the resolver's), ifname and uid
 * may be NULL. Its exit status (said). */
int podstart_run(const struct cli *c, const char *pod, const char *vf, const char *ifname,
		 const char *uid);

/* Renders `ibvf list` text from the node's JSON (core/snapshot/json.c). */
struct node;
/* The tree as text; fit: the columns to fit in (a terminal's width), 0 for
 * every column. */
void list_print_text(FILE *f, const struct node *n, struct json_object *node, int fit);
/* Renders `ibvf list --pods` text from node_pods_to_json(). */
void list_print_pods_text(FILE *f, struct json_object *pods);

/* The terminal's width when stdout is one ($COLUMNS, else the tty's), else
 * 0: a pipe or file gets whole lines. */
int cli_terminal_width(void);
