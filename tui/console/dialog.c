// SPDX-License-Identifier: MIT
/* The action dialog: fields -> action_plan -> preview -> apply (in a worker,
 * dialog_apply.c) -> result. One dialog at a time, an overlay view whose
 * state the console holds. */
#include "dialog.h"

#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "dialog_int.h"
#include "screen.h"
#include "tui/base/text.h"
#include "tui/render/plan_text.h"
#include "core/model/names.h"

static struct dialog *dlg_of(struct console *c)
{
	return c->dialog.state;
}

void dialog_close(struct console *c)
{
	struct dialog *d = dlg_of(c);
	dialog_apply_free(d);
	plan_free(d->plan);
	text_clear(&d->lines);
	void *scratch = d->scratch;
	memset(d, 0, sizeof(*d));
	d->scratch = scratch;
	if (c->overlay == &c->dialog)
		c->overlay = NULL;
	c->dirty = true;
}

static struct field *field_add(struct dialog *d, enum field_kind kind, const char *label,
			       const char *text, bool optional)
{
	struct field *f = &d->fields[d->n_fields++];
	field_init(f, kind, label, text, optional);
	return f;
}

/* ---- plan and apply ---- */

void dialog_render_plan(struct dialog *d)
{
	struct json_object *o = plan_to_json(d->plan);
	text_clear(&d->lines);
	plan_text(&d->lines, o);
	json_object_put(o);
}

static void plan_made(struct console *c)
{
	struct dialog *dlg = dlg_of(c);
	/* A forced plan acts on a pod's VF: as dangerous as a destructive one;
	 * a rename breaks whatever refers to the live netdev by name; persist
	 * changes what the next boot does; removing VFs is, whatever the plan says. */
	enum action_kind k = dlg->req.kind;
	dlg->on_cancel = dlg->plan->destructive || dlg->req.force || k == ACTION_RENAME ||
			 k == ACTION_RENAME_ALL || k == ACTION_RENAME_LINK || k == ACTION_PERSIST ||
			 k == ACTION_FILES_UNDO || (k == ACTION_CREATE && dlg->req.count == 0);
	dlg->body = (struct listw){.text = true};
	dlg->stage = STAGE_PREVIEW;
	dialog_render_plan(dlg);
	c->dirty = true;
}

static int make_plan(struct console *c, struct action_req *req)
{
	struct dialog *dlg = dlg_of(c);
	struct err e = {{0}};
	plan_free(dlg->plan);
	dlg->plan = NULL;
	dlg->refusal[0] = '\0';
	int r = action_plan(c->sys, c->node, req, &dlg->plan, &e);
	if (r < 0) {
		plan_fmt(dlg->refusal, sizeof(dlg->refusal), "refused: %s", e.msg);
		return r;
	}
	if (!dlg->plan->n_steps) {
		snprintf(dlg->refusal, sizeof(dlg->refusal), "nothing to do: %s",
			 dlg->plan->summary);
		plan_free(dlg->plan);
		dlg->plan = NULL;
		return -EALREADY;
	}
	return 0;
}

/* Enter in the fields: the request from the fields, then its plan. */
static void submit(struct console *c)
{
	struct dialog *dlg = dlg_of(c);
	struct action_req req = dlg->req;
	char why[160];
	for (int i = 0; i < dlg->n_fields; i++) {
		const struct field *f = &dlg->fields[i];
		if (!field_check(f, why, sizeof(why))) {
			snprintf(dlg->refusal, sizeof(dlg->refusal), "%s: %s", f->label, why);
			return;
		}
	}
	switch (req.kind) {
	case ACTION_CREATE:
		req.count = (unsigned int)atol(dlg->fields[0].text);
		break;
	case ACTION_RENAME:
		plan_fmt(req.name, sizeof(req.name), "%s", dlg->fields[0].text);
		break;
	case ACTION_STATE:
		req.state = vf_link_state_from_string(dlg->fields[0].text);
		break;
	case ACTION_GUID:
		req.set_node = dlg->fields[0].text[0];
		req.set_port = dlg->fields[1].text[0];
		if (!req.set_node && !req.set_port) {
			snprintf(dlg->refusal, sizeof(dlg->refusal),
				 "give a node GUID, a port GUID or both");
			return;
		}
		if (req.set_node)
			guid_parse(dlg->fields[0].text, &req.node_guid);
		if (req.set_port)
			guid_parse(dlg->fields[1].text, &req.port_guid);
		break;
	default:
		break;
	}
	dlg->req = req;
	if (make_plan(c, &req) == 0)
		plan_made(c);
}

/* ---- opening ---- */

static struct dialog *open_common(struct console *c, enum action_kind kind, const char *target,
				  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static struct dialog *open_common(struct console *c, enum action_kind kind, const char *target,
				  const char *fmt, ...)
{
	va_list ap;
	struct dialog *dlg = dlg_of(c);
	dialog_close(c);
	console_overlay(c, &c->dialog);
	dlg->stage = STAGE_EDIT;
	dlg->req.kind = kind;
	snprintf(dlg->req.target, sizeof(dlg->req.target), "%s", target);
	va_start(ap, fmt);
	vsnprintf(dlg->title, sizeof(dlg->title), fmt, ap);
	va_end(ap);
	return dlg;
}

void dialog_open_create(struct console *c, const char *pf_bdf, const char *count, bool force,
			bool submit_now)
{
	struct dialog *dlg = open_common(c, ACTION_CREATE, pf_bdf, "Create VFs on %s%s", pf_bdf,
					 force ? " (forced)" : "");
	dlg->req.force = force;
	struct field *f = field_add(dlg, FIELD_NUMBER, "VF count", count, false);
	const struct pf *pf = node_find_pf(c->node, pf_bdf);
	if (pf && pf->totalvfs.known) {
		f->max = pf->totalvfs.v;
		snprintf(f->max_why, sizeof(f->max_why), "sriov_totalvfs");
	}
	if (submit_now)
		submit(c);
	c->dirty = true;
}

void dialog_open_rename(struct console *c, const char *vf_bdf, const char *name, bool force,
			bool submit_now)
{
	struct dialog *dlg = open_common(c, ACTION_RENAME, vf_bdf, "Rename the netdev of VF %s%s",
					 vf_bdf, force ? " (forced)" : "");
	dlg->req.force = force;
	field_add(dlg, FIELD_IFNAME, "new name", name, false)->kernel_ok = force;
	if (submit_now)
		submit(c);
	c->dirty = true;
}

void dialog_open_guid(struct console *c, const char *vf_bdf, const char *node, const char *port,
		      bool force, bool submit_now)
{
	struct dialog *dlg = open_common(c, ACTION_GUID, vf_bdf, "Set the GUIDs of VF %s%s", vf_bdf,
					 force ? " (forced)" : "");
	dlg->req.force = force;
	field_add(dlg, FIELD_GUID, "node GUID", node, true);
	field_add(dlg, FIELD_GUID, "port GUID", port, true);
	if (submit_now)
		submit(c);
	c->dirty = true;
}

void dialog_open_state(struct console *c, const char *vf_bdf, const char *state, bool force,
		       bool submit_now)
{
	struct dialog *dlg = open_common(c, ACTION_STATE, vf_bdf, "Link state of VF %s%s", vf_bdf,
					 force ? " (forced)" : "");
	dlg->req.force = force;
	field_add(dlg, FIELD_LINK_STATE, "link state", state, false);
	if (submit_now)
		submit(c);
	c->dirty = true;
}

void dialog_open_note(struct console *c, const char *title, const char *summary,
		      const char *const *steps, size_t n_steps)
{
	struct dialog *dlg = open_common(c, ACTION_CREATE, "", "%s", title);
	dlg->stage = STAGE_NOTE;
	dlg->body = (struct listw){.text = true};
	text_add(&dlg->lines, TEXT_NORMAL, "%s", summary);
	text_add(&dlg->lines, TEXT_NORMAL, "%s", "");
	text_add(&dlg->lines, TEXT_WARNING, "%s",
		 "ibvf does not run these steps: they are the operator's to run");
	for (size_t i = 0; i < n_steps; i++)
		text_add(&dlg->lines, TEXT_NORMAL, "  %zu. %s", i + 1, steps[i]);
	c->dirty = true;
}

void dialog_open_req(struct console *c, const struct action_req *req, const char *title)
{
	struct dialog *dlg = open_common(c, req->kind, req->target, "%s", title);
	dlg->req = *req;
	if (make_plan(c, &dlg->req) == 0)
		plan_made(c);
	else
		dlg->stage = STAGE_REFUSED;
	c->dirty = true;
}

/* ---- keys ---- */

static void key_edit(struct console *c, struct dialog *dlg, int k)
{
	dlg->flash[0] = '\0';
	if (k == '\n' || k == '\r' || k == KEY_ENTER)
		submit(c);
	else if (k == '\t' || k == KEY_DOWN)
		dlg->focus = (dlg->focus + 1) % dlg->n_fields;
	else if (k == KEY_BTAB || k == KEY_UP)
		dlg->focus = (dlg->focus + dlg->n_fields - 1) % dlg->n_fields;
	else if (field_key(&dlg->fields[dlg->focus], k, dlg->flash, sizeof(dlg->flash)) > 0)
		dlg->refusal[0] = '\0';
}

/* The list keys of the table scroll a long preview or result. */
static bool body_scroll(struct console *c, struct dialog *dlg, int k)
{
	const struct key_binding *b = keys_find(c->view, k);
	if (!b || b->action < KA_UP || b->action > KA_END || (k >= 'a' && k <= 'z') ||
	    (k >= 'A' && k <= 'Z'))
		return false;
	listw_move(&dlg->body, (enum listw_move)(b->action - KA_UP));
	return true;
}

static void key_preview(struct console *c, struct dialog *dlg, int k)
{
	if (body_scroll(c, dlg, k))
		return;
	switch (k) {
	case KEY_LEFT:
	case KEY_RIGHT:
	case '\t':
	case KEY_BTAB:
		dlg->on_cancel = !dlg->on_cancel;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (dlg->on_cancel) {
			screen_message(c, TR_STATUS, "cancelled: nothing was changed");
			dialog_close(c);
		} else if (dialog_apply_start(c, dlg) < 0) {
			dlg->stage = STAGE_DONE;
			dialog_render_plan(dlg);
		}
		break;
	}
}

static void key_done(struct console *c, struct dialog *dlg, int k)
{
	if (body_scroll(c, dlg, k))
		return;
	if (dlg->plan)
		screen_message(c, dlg->apply_rc < 0 ? TR_ERROR : TR_STATUS, "%s: %s",
			       dlg->plan->summary,
			       dlg->plan->result == PLAN_CANCELLED ? "cancelled"
			       : dlg->apply_rc < 0		   ? "failed"
								   : "applied and verified");
	dialog_close(c);
}

static bool dialog_key(struct console *c, struct view *v, int k)
{
	struct dialog *dlg = v->state;
	c->dirty = true;
	if (dlg->stage == STAGE_RUNNING) {
		if (k == 27)
			dialog_apply_cancel(dlg);
		return true; /* the node is followed under the dialog meanwhile */
	}
	if (k == 27 && dlg->stage != STAGE_DONE) {
		screen_message(c, TR_STATUS, "cancelled: nothing was changed");
		dialog_close(c);
		return true;
	}
	switch (dlg->stage) {
	case STAGE_EDIT:
		key_edit(c, dlg, k);
		break;
	case STAGE_PREVIEW:
		key_preview(c, dlg, k);
		break;
	case STAGE_DONE:
		key_done(c, dlg, k);
		break;
	case STAGE_NOTE:
		if (!body_scroll(c, dlg, k))
			dialog_close(c);
		break;
	default:
		dialog_close(c);
		break;
	}
	return true;
}

static void dialog_free(struct view *v)
{
	struct dialog *dlg = v->state;
	if (dlg) {
		dialog_apply_free(dlg);
		plan_free(dlg->plan);
		text_clear(&dlg->lines);
		free(dlg->scratch);
	}
	free(dlg);
	v->state = NULL;
}

void view_dialog_init(struct console *c, struct view *v)
{
	(void)c;
	*v = (struct view){.name = "dialog",
			   .state = calloc(1, sizeof(struct dialog)),
			   .key = dialog_key,
			   .draw = dialog_draw,
			   .fd = dialog_apply_fd,
			   .fd_ready = dialog_apply_ready,
			   .free = dialog_free};
}
