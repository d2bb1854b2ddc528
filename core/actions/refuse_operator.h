/* SPDX-License-Identifier: MIT */
/* The one rule for actions on a PF an operator configures (core/pods/operators.h,
 * docs/coexistence.md): the VF count, the VF GUIDs and persist (which sets
 * both at boot) are refused there unless forced, with the operator-side way. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/actions/plan.h"
#include "core/base/err.h"
#include "core/model/node.h"
#include "core/model/request.h"

/* The end of that refusal's line: what tells it from other -EBUSY ones (a
 * VF a pod holds). */
#define ACTION_OPERATOR_REFUSED                                                                    \
	"change its SriovNetworkNodePolicy instead, or --force to do it anyway"

/* 0 when no operator sets what an action of kind (doing what) changes on pf;
 * else -EBUSY with one line naming the PF, the operator, its evidence and
 * --force, or, forced, 0 with a plan note (p may be NULL then). */
int action_refuse_operator(const struct node *n, const struct pf *pf, enum action_kind kind,
			   bool force, const char *what, struct plan *p, struct err *e);
/* Whether persist pins pf's VFs (it has some): the PFs it would fight over. */
bool action_persists_pf(const struct pf *pf);
/* The operator-side way for what req is refused for (not forced): a
 * SriovNetworkNodePolicy per PF it names, as YAML lines; "" when req is
 * not refused for an operator. */
void action_operator_remedy(const struct node *n, const struct action_req *req, char *buf,
			    size_t size);
