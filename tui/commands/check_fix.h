/* SPDX-License-Identifier: MIT */
/* `ibvf check --fix`: the findings' ibvf remedies run through the `vf` path
 * (plan, preview, confirm, apply, verify, journal) in an order where each
 * precondition holds; manual remedies printed, never run. */
#pragma once

#include <stdbool.h>

#include "tui/base/cli.h"
#include "core/checks/checks.h"

struct fix_opts {
	bool dry_run, yes, force;
	bool no_wait; /* another ibvf holds the node's lock: fail at once */
	/* One `vf guid --assign-all` plan for the zero and duplicate GUIDs
	 * (when both kinds are selected on the whole node), not one per VF. */
	bool group_guids;
	/* One `vf rename --all` plan for the kernel-named VFs (when
	 * name-unstable is selected on the whole node), not one per VF. */
	bool group_names;
};

/* What the fixes read each round: the node as the check sees it (the
 * caller's --dp-config included), and which findings are selected. */
struct fix_source {
	int (*read)(void *ctx, struct node **ret); /* 0, or -1 said */
	bool (*keep)(const struct finding *f, void *ctx);
	void *ctx;
};

/* Runs the fixes, printing each plan and what became of it, then the manual
 * steps of what is left. Returns the exit status: 0 every ibvf remedy ran
 * and its finding is gone (or, with --dry-run, every plan could be made),
 * 1 some were refused, failed, declined or skipped, 3 (EXIT_UNKNOWN) when
 * the node could not be read. */
int check_fix_run(const struct cli *c, const struct fix_opts *o, const struct fix_source *src);
