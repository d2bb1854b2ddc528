/* SPDX-License-Identifier: MIT */
/* The options and the run of the commands that act (`vf`, `journal undo`,
 * and `persist`'s options). */
#pragma once

#include "cli.h"
#include "core/actions/actions.h"

struct act_opts {
	bool dry_run, yes;
	bool no_wait; /* another ibvf holds the node's lock: fail at once */
};

/* A command's options and its positional arguments. */
struct act_args {
	struct act_opts o;
	struct action_req req;
	bool all, rename_all; /* --assign-all, --all */
	bool verify;	      /* persist --verify */
	const char *action;   /* journal --action */
	const char *node, *port, *output, *ibvf;
	char **args;
	int n_args;
};

/* The ids of the options the acting commands' tables share (vf, persist,
 * journal: opts.h); each table has those its command takes. */
enum act_opt_id {
	ACT_O_DRY_RUN = 1,
	ACT_O_YES,
	ACT_O_FORCE,
	ACT_O_NO_WAIT,
	ACT_O_TIMEOUT,
	ACT_O_NODE,
	ACT_O_PORT,
	ACT_O_ASSIGN_ALL,
	ACT_O_PREFIX,
	ACT_O_ALL,
	ACT_O_SCHEME,
	ACT_O_OUTPUT,
	ACT_O_IBVF,
	ACT_O_VERIFY,
	ACT_O_ACTION,
};

/* Parses argv (argv[0] the command's name) with that command's options
 * (its table: cmd_find(argv[0])->options); options may come before,
 * between or after the arguments. 0, or -EINVAL said in one line. */
int cli_action_parse(int argc, char **argv, struct act_args *ret);
/* Exactly n positional arguments, else one line naming usage: -EINVAL. */
int cli_want_args(const struct act_args *p, int n, const char *usage);
/* Parses `vf ACTION ARGS... [OPTIONS]` (argv[0] "vf") into a request, as
 * `ibvf vf` does: 0, or -EINVAL said in one line (cli_error). */
int vf_request_parse(int argc, char **argv, struct act_args *ret);
/* Reads the node, plans req, shows it, asks (unless --yes), applies it and
 * shows the result. SIGINT and SIGTERM during the apply end the step in
 * progress, then the plan stops, is journaled and the exit says where.
 * Returns the exit status. */
int cli_action_run(const struct cli *c, const struct act_opts *o, const struct action_req *req);
