// SPDX-License-Identifier: MIT
/* `ibvf persist`: .link files and a boot unit for the current VF layout, as
 * a plan (core/actions/plan_persist.c) run the one way `vf` runs its plans. */
#include <stdlib.h>
#include <string.h>

#include "tui/base/cli_action.h"
#include "core/actions/actions.h"

#define USAGE "persist [--ibvf PATH] [--output DIR] [--dry-run] [--yes]"

const struct opt persist_options[] = {
	{OPT_ARG("ibvf", 0, "PATH", ACT_O_IBVF,
		 "the ibvf the unit runs: absolute, a root-owned executable not "
		 "writable by group or others; without it, this binary, refused "
		 "in a build tree, under /tmp or in a directory users can write")},
	{OPT_ARG("output", 0, "DIR", ACT_O_OUTPUT,
		 "write the files flat into DIR (an absolute path) instead")},
	{OPT_BOOL("dry-run", 0, ACT_O_DRY_RUN,
		  "print the plan (each file's content) and write nothing")},
	{OPT_BOOL("yes", 'y', ACT_O_YES,
		  "write without asking (needed when stdin is not a terminal)")},
	{OPT_BOOL("no-wait", 0, ACT_O_NO_WAIT,
		  "fail at once when another ibvf holds the node's lock")},
	{OPT_PARA("Each file is journaled with what it replaced: 'ibvf journal undo ID' removes\n"
		  "the files persist wrote and restores the ones it replaced or removed.")},
	{OPT_TABLE_END},
};

int cmd_persist(const struct cli *c, int argc, char **argv)
{
	struct act_args p;
	struct action_req req = {.kind = ACTION_PERSIST};

	if (cli_action_parse(argc, argv, &p) < 0 || cli_want_args(&p, 0, USAGE) < 0)
		return EXIT_USAGE;
	if (p.ibvf && (p.ibvf[0] != '/' || strlen(p.ibvf) >= sizeof(req.path))) {
		cli_error("invalid --ibvf '%s': the unit needs an absolute path under %zu bytes",
			  p.ibvf, sizeof(req.path));
		return EXIT_USAGE;
	}
	if (p.output && (p.output[0] != '/' || strlen(p.output) >= sizeof(req.outdir))) {
		cli_error("invalid --output '%s': an absolute directory under %zu bytes", p.output,
			  sizeof(req.outdir));
		return EXIT_USAGE;
	}
	if (p.ibvf)
		strcpy(req.path, p.ibvf);
	if (p.output)
		strcpy(req.outdir, p.output);
	return cli_action_run(c, &p.o, &req);
}
