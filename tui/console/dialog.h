/* SPDX-License-Identifier: MIT */
/* The console's modal dialog for operator actions: entry fields that filter
 * keystrokes and validate as they are typed, the plan's preview (each step
 * with its shell command, from action_plan), Apply/Cancel, then the verified
 * result. It goes through core/actions/actions.h like `ibvf vf`, never around it;
 * the apply runs in a worker thread (dialog_apply.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct console;
struct action_req;
struct view;

/* The dialog as an overlay view (console_views.c makes it). */
void view_dialog_init(struct console *c, struct view *v);

/* The dialogs; an initial value may be NULL. A dialog whose fields are all
 * given by a `:` command goes straight to the preview (or the refusal).
 * force acts on VFs bound to pods (`:rename NAME --force`); the focus of
 * such a plan starts on Cancel, as for destructive ones. */
void dialog_open_create(struct console *c, const char *pf_bdf, const char *count, bool force,
			bool submit);
void dialog_open_rename(struct console *c, const char *vf_bdf, const char *name, bool force,
			bool submit);
void dialog_open_guid(struct console *c, const char *vf_bdf, const char *node, const char *port,
		      bool force, bool submit);
void dialog_open_state(struct console *c, const char *vf_bdf, const char *state, bool force,
		       bool submit);
/* A request without fields (assign-guids, destroy, a journal undo, a
 * finding's remedy): straight to the plan. */
void dialog_open_req(struct console *c, const struct action_req *req, const char *title);
/* Text only, no plan: what the operator does (a finding's manual steps,
 * each numbered), under a line saying ibvf does not run them. */
void dialog_open_note(struct console *c, const char *title, const char *summary,
		      const char *const *steps, size_t n_steps);
