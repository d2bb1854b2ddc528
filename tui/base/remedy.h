/* SPDX-License-Identifier: MIT */
/* A finding's ibvf remedy as the request `ibvf vf` would make of it: the
 * one way `check --fix` and the console's `f` turn a remedy into a plan. */
#pragma once

#include <stdbool.h>

#include "cli_action.h"
#include "core/checks/checks.h"

/* The order `check --fix all` runs remedies in, so each one's precondition
 * holds: the VF layout first (a create changes which VFs exist), the link
 * state, then GUIDs, then names, then persist (which writes down what the
 * others made). */
enum remedy_phase {
	REMEDY_PHASE_LAYOUT,  /* vf create / destroy */
	REMEDY_PHASE_STATE,   /* vf state */
	REMEDY_PHASE_GUID,    /* vf guid */
	REMEDY_PHASE_NAME,    /* vf rename */
	REMEDY_PHASE_PERSIST, /* persist */
	REMEDY_PHASE_OTHER,
};

enum remedy_phase remedy_phase(const struct finding_remedy *r);
/* "layout", "link state", "GUIDs", "names", "persist", "other". */
const char *remedy_phase_name(enum remedy_phase ph);

/* A REMEDY_IBVF whose argv is a `vf` action into the request `ibvf vf`
 * makes of it (its parser: vf_request_parse), with --force when force.
 * Only ret->req and ret->o are valid after. An argument that looks like an
 * option ibvf did not put there (a netdev named "--force") is refused.
 * 0; -ENOTSUP when the remedy is not a vf action (persist), -EINVAL with
 * the reason in e. */
int remedy_request(const struct finding_remedy *r, bool force, struct act_args *ret, struct err *e);
