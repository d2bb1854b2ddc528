// SPDX-License-Identifier: MIT
/* Refusing to fight an operator over a PF's VF count and GUIDs. */
#include "refuse_operator.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/pods/operators.h"
#include "core/snapshot/resolve.h"

bool action_persists_pf(const struct pf *pf)
{
	return pf->numvfs.known && pf->numvfs.v > 0;
}

int action_refuse_operator(const struct node *n, const struct pf *pf, enum action_kind kind,
			   bool force, const char *what, struct plan *p, struct err *e)
{
	const struct op_claim *c = operators_conflict(n, pf->fn.bdf, kind);
	char ev[OP_EVIDENCE_MAX * 200];
	if (!c)
		return 0;
	operators_evidence(c, ev, sizeof(ev));
	if (force) {
		if (p)
			plan_note(p,
				  "forced: %s sets the %s of %s (%s) and may undo this at its next "
				  "sync",
				  operators_name(c->op), operators_sets(c), pf->fn.bdf, ev);
		return 0;
	}
	return err_setx(
		e, EBUSY,
		"cannot %s: %s sets the %s of PF %s (evidence: %s); " ACTION_OPERATOR_REFUSED, what,
		operators_name(c->op), operators_sets(c), pf->fn.bdf, ev);
}

static void append(char *buf, size_t size, size_t *at, const char *s)
{
	int k = snprintf(buf + *at, size - *at, "%s", s);
	if (k > 0)
		*at = *at + (size_t)k < size ? *at + (size_t)k : size - 1;
}

void action_operator_remedy(const struct node *n, const struct action_req *req, char *buf,
			    size_t size)
{
	char yaml[2048];
	size_t at = 0;
	buf[0] = '\0';
	if (req->force || !size)
		return;
	const struct pf *only = NULL;
	if (req->kind != ACTION_PERSIST && req->kind != ACTION_ASSIGN_ALL) {
		struct node_ref ref;
		struct err e;
		if (node_resolve(n, req->target, &ref, &e) < 0 || !ref.pf)
			return;
		only = ref.pf;
	}
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		const struct op_claim *c = operators_conflict(n, pf->fn.bdf, req->kind);
		if ((only && pf != only) || !c ||
		    (req->kind == ACTION_PERSIST && !action_persists_pf(pf)))
			continue;
		operators_policy_yaml(n, pf, c, false, yaml, sizeof(yaml));
		append(buf, size, &at, at ? "---\n" : "");
		append(buf, size, &at, yaml);
	}
}
