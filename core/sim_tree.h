/* SPDX-License-Identifier: MIT */
/* Writes the simulated node's tree (docs/fixture.md) in the exact kernel
 * formats of REFERENCE.md §1. Used by `ibvf mkfixture`, by `ibvf --sim` on
 * first use, and by sys_sim.c when the simulated kernel creates VFs. */
#pragma once

#include <stdbool.h>

#include "err.h"

struct sim_fixture_opts {
	bool healthy;	   /* no seeded faults */
	unsigned int pfs;  /* compute PFs (InfiniBand); 0 = 8 */
	unsigned int vfs;  /* VFs per compute PF; 0 = 8 */
	const char *kernel; /* release to report; NULL = 6.8.0-55-generic */
};

/* Creates the tree in dir (which must be absent or empty). */
int sim_fixture_create(const char *dir, const struct sim_fixture_opts *o, struct err *e);
