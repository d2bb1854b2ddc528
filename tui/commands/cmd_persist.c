// SPDX-License-Identifier: MIT
/* `ibvf persist`: .link files and a boot unit for the current VF layout, as
 * a plan (core/actions/plan_persist.c) run the one way `vf` runs its plans. */
#include <stdlib.h>
#include <string.h>

#include "tui/base/cli_action.h"
#include "core/actions/actions.h"

#define USAGE "persist [--ibvf PATH] [--output DIR] [--force] [--dry-run] [--yes]"

int cmd_persist(const struct cli *c, int argc, char **argv)
{
	struct act_args p;
	struct action_req req = {.kind = ACTION_PERSIST};

	if (cli_action_parse(argc, argv, "output dry-run ibvf force yes no-wait", &p) < 0 ||
	    cli_want_args(&p, 0, USAGE) < 0)
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
	req.force = p.req.force;
	if (p.ibvf)
		strcpy(req.path, p.ibvf);
	if (p.output)
		strcpy(req.outdir, p.output);
	return cli_action_run(c, &p.o, &req);
}
