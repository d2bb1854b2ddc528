/* SPDX-License-Identifier: MIT */
/* Operator actions on VFs: each request becomes a plan (core/actions/plan.h) that is
 * previewed, checked, applied, verified and journaled.
 *
 *   struct action_req req = {.kind = ACTION_RENAME, .target = "ib3", .name = "ibp24s0v3"};
 *   action_plan(s, node, &req, &plan, &e);   // refuses bad input, node untouched
 *   ... show plan_to_json(plan), ask ...
 *   action_apply(s, plan, &after, &e);       // privilege, re-check, steps, verify, journal
 *
 * Preconditions are checked when the plan is made and again, on a freshly
 * read node, when it is applied: a plan whose steps would differ by then is
 * refused (the node changed since the preview).
 *
 * GUIDs for --assign-all (ACTION_ASSIGN_ALL), one deterministic scheme, the
 * same GUID for a VF's node and port:
 *   with a prefix P (5 bytes, "00:11:22:33:44"):
 *       P0:P1:P2:P3:P4:BB:DF:VV    BB = the PF's PCI bus, DF = its device << 3 |
 *                                  function, VV = the VF index (< 256)
 *       so VF 3 of PF 0000:18:00.0 gets 0011:2233:4418:0003 (rdma's form);
 *   without one, from the PF's node GUID G:
 *       02:G3:G4:G5:G6:G7:VH:VL    G3..G7 = the low 40 bits of G, VH:VL = the VF
 *                                  index (16 bits); 0x02 in the first byte is the
 *                                  EUI-64 "locally administered" bit, so the GUID
 *                                  cannot be any vendor-assigned GUID, and two PFs
 *                                  (whose G are unique) never share a VF GUID.
 * Every VF whose node or port GUID is zero, or equal to a GUID a PF or a
 * function at a lower PCI address holds (the guid-duplicate check's later
 * holder: the first keeps its GUID), gets one; a VF bound to a pod is
 * skipped unless forced.
 * The new GUIDs are checked against every GUID left on the node. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/base/err.h"
#include "core/model/node.h"
#include "core/model/request.h"
#include "plan.h"

/* Makes the plan for a request over a snapshot of the node. Refusals (bad
 * or taken name, invalid or duplicate GUID, VF bound to a pod, unknown
 * target) return -EINVAL, -EEXIST, -EBUSY or -ENODEV with one line in e. A
 * plan with no steps means the node already is as asked. */
int action_plan(struct sys *s, const struct node *n, const struct action_req *req,
		struct plan **ret, struct err *e);

/* Checks privilege (root or CAP_NET_ADMIN, as the steps need) before
 * anything, takes the node's lock (lock.h), re-reads the node and re-makes
 * the plan (refusing when its steps changed; PLAN_NOTHING, 0, when it has
 * none left: another ibvf did it), journals it as started, runs the steps
 * (each journaled as it ends), stops at the first failure, re-reads the
 * node and verifies each change, then journals the plan as it ended and
 * lets go of the lock. The plan keeps each step's status, the result, and
 * for a plan stopped part way the commands that bind again what it left
 * unbound (restore) and whether undo reverts it. *ret_after (may be NULL)
 * gets the node as re-read after the steps. Returns 0 when the plan ran and
 * verified. */
int action_apply(struct sys *s, struct plan *p, const struct action_req *req,
		 struct node **ret_after, struct err *e);

/* Where an apply is, for action_hooks.progress. */
enum action_phase {
	ACTION_PHASE_CHECK,	/* privilege and a fresh look at the node */
	ACTION_PHASE_STEP,	/* step `step` starts */
	ACTION_PHASE_VERIFY,	/* the node is read again and each change checked */
	ACTION_PHASE_JOURNAL,	/* the journal entry is written */
	ACTION_PHASE_WAIT_LOCK, /* another ibvf holds the node's lock (lock.h): step is its pid */
};

/* For an apply that runs beside something else (the console's worker
 * thread): progress is called as each phase and step starts, from the
 * applying thread; cancel, when it becomes true, stops the apply before the
 * next step (a wait stops at once: it changes nothing). What ran is
 * verified and journaled; the result is PLAN_CANCELLED and the return
 * -ECANCELED. */
struct action_hooks {
	void (*progress)(void *arg, enum action_phase phase, size_t step);
	void *arg;
	const atomic_bool *cancel;
	bool no_wait; /* another ibvf holds the lock: fail at once (-EWOULDBLOCK) */
};

/* action_apply() with hooks (NULL: none). */
int action_apply_hooked(struct sys *s, struct plan *p, const struct action_req *req,
			const struct action_hooks *h, struct node **ret_after, struct err *e);

/* Privilege for the plan's steps: 0, or -EPERM with the reason in e. */
int action_check_privilege(const struct plan *p, struct err *e);
