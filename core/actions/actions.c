// SPDX-License-Identifier: MIT
/* Actions: a request and a node snapshot in, a checked plan out, by the
 * planner of its kind (plan_*.c, sharing planner_util.c's helpers through
 * planners.h); the apply in apply.c. */
#include "actions.h"
#include "planners.h"

#include <errno.h>

#include "core/model/names.h"

/* Each action's planner, by kind (its name: names.h). */
typedef int (*planner_fn)(struct sys *s, const struct node *n, const struct action_req *req,
			  struct plan *p, struct err *e);
static const planner_fn planners[ACTION_KIND_MAX] = {
	[ACTION_CREATE] = actions_plan_create,
	[ACTION_RENAME] = actions_plan_rename,
	[ACTION_GUID] = actions_plan_guid,
	[ACTION_ASSIGN_ALL] = actions_plan_assign_all,
	[ACTION_STATE] = actions_plan_state,
	[ACTION_RENAME_LINK] = actions_plan_link_rename,
	[ACTION_RENAME_ALL] = actions_plan_rename_all,
	[ACTION_PERSIST] = actions_plan_persist,
	[ACTION_FILES_UNDO] = actions_plan_files_undo,
};

int action_plan(struct sys *s, const struct node *n, const struct action_req *req,
		struct plan **ret, struct err *e)
{
	struct plan *p;
	int r = plan_new(action_kind_to_string(req->kind) ?: "?", req->target, &p);
	if (r < 0)
		return err_set(e, -r, "cannot make a plan");
	r = (unsigned int)req->kind < ACTION_KIND_MAX && planners[req->kind]
		    ? planners[req->kind](s, n, req, p, e)
		    : err_setx(e, EINVAL, "unknown action %d", (int)req->kind);
	if (r == -ENOMEM) /* the plan builders leave e to this one message */
		err_set(e, ENOMEM, "cannot make a plan");
	if (r < 0) {
		plan_free(p);
		return r;
	}
	p->undo_of = req->undo_of;
	if (!p->n_steps)
		p->result = PLAN_NOTHING;
	*ret = p;
	return 0;
}
