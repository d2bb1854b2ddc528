/* SPDX-License-Identifier: MIT */
/* Inside core/actions: the planners (one per action kind, dispatched by
 * action_plan() in actions.c) and the helpers they share (planner_util.c).
 * Nothing outside core/actions includes this. */
#pragma once

#include "actions.h"

/* How long a plan's waits last: req->timeout_s, else ACTION_TIMEOUT_S. */
unsigned int action_timeout(const struct action_req *req);
int actions_plan_create(struct sys *s, const struct node *n, const struct action_req *req,
			struct plan *p, struct err *e);
int actions_plan_state(struct sys *s, const struct node *n, const struct action_req *req,
		       struct plan *p, struct err *e);

/* The PF or VF an action's target names, through node_resolve() (resolve.h);
 * *ret_vf is NULL when the name is a PF. 0 or a negative errno with e. */
int action_resolve(const struct node *n, const char *name, const struct pf **ret_pf,
		   const struct vf **ret_vf, struct err *e);

/* Kernel release "6.1.0-18-amd64" older than major.minor? Unknown is old. */
bool action_kernel_older(const char *release, int major, int minor);

/* Internal to the actions: GUID plans (core/actions/plan_guid.c), and the refusal
 * for a VF bound to a pod (-EBUSY, naming the pod). */
int action_refuse_pod(const struct vf *vf, const char *what, struct err *e);
/* One change checked on the node as re-read after the steps (apply_verify.c). */
void action_verify_change(struct sys *s, const struct node *n, struct change *c);
int actions_plan_guid(struct sys *s, const struct node *n, const struct action_req *req,
		      struct plan *p, struct err *e);
int actions_plan_persist(struct sys *s, const struct node *n, const struct action_req *req,
			 struct plan *p, struct err *e);
int actions_plan_files_undo(struct sys *s, const struct node *n, const struct action_req *req,
			    struct plan *p, struct err *e);
int actions_plan_assign_all(struct sys *s, const struct node *n, const struct action_req *req,
			    struct plan *p, struct err *e);
/* Rename plans (core/actions/plan_rename.c). A VF's new name must pass
 * naming_check(); a kernel form (ibN, ethN) only with force or as an undo.
 *
 * RENAME_ALL renames every VF that has a netdev and no pod to its name
 * under req->scheme; with req->undo_of, to the names it had before that
 * journal entry (a rename-all) instead. Pod VFs are skipped with a note
 * naming the pod (with force they are renamed when their netdev is on the
 * host). Names moving between the renamed VFs (a chain a->b->c, a swap) are
 * ordered, and a cycle goes through a temporary name; a target held by any
 * other netdev, or the host name a pod's VF gets back, is refused. */
int actions_plan_rename(struct sys *s, const struct node *n, const struct action_req *req,
			struct plan *p, struct err *e);
int actions_plan_link_rename(struct sys *s, const struct node *n, const struct action_req *req,
			     struct plan *p, struct err *e);
int actions_plan_rename_all(struct sys *s, const struct node *n, const struct action_req *req,
			    struct plan *p, struct err *e);
/* The steps renaming a link from -> to (down, rename, up on kernels before
 * 6.2 when it is up), and the kernel release a plan is for. */
int action_rename_steps(struct plan *p, const char *kernel, const char *from, const char *to,
			bool up);
const char *action_kernel_of(const struct node *n, const struct action_req *req);
