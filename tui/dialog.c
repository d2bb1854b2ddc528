// SPDX-License-Identifier: MIT
/* The action dialog: fields -> action_plan -> preview -> action_apply ->
 * result. One dialog at a time; its state is the terminal layer's. */
#include "dialog.h"

#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console_int.h"
#include "console_journal.h"
#include "core/actions.h"
#include "core/guid.h"
#include "field.h"
#include "plan_text.h"

enum stage {
	STAGE_CLOSED,
	STAGE_EDIT,
	STAGE_PREVIEW,
	STAGE_APPLYING,
	STAGE_DONE,
	STAGE_REFUSED, /* a request without fields was refused: any key closes */
};

#define FIELDS_MAX 2
#define LINES_MAX  2048 /* 64 VFs of assign-guids: 6 steps of 2-3 lines, 2 changes each */

struct dialog {
	enum stage stage;
	char title[96];
	struct action_req req; /* kind and target; the fields fill in the rest */
	struct field fields[FIELDS_MAX];
	int n_fields, focus;
	char flash[128];   /* why the last keystroke was refused */
	char refusal[512]; /* why the plan was refused (nothing was done) */
	struct plan *plan;
	struct text lines; /* the plan's preview or result, from plan_text() */
	bool on_cancel;	   /* the preview's focus */
	int scroll, page;  /* page: the body lines shown at the last draw */
	int apply_rc;
	char apply_error[512];
};

static struct dialog dlg;

bool dialog_active(void)
{
	return dlg.stage != STAGE_CLOSED;
}

void dialog_close(void)
{
	plan_free(dlg.plan);
	text_clear(&dlg.lines);
	memset(&dlg, 0, sizeof(dlg));
}

void dialog_put(int y, int x, int w, const char *s, int attr)
{
	if (w <= 0 || y < 0 || y >= LINES)
		return;
	int n = (int)strlen(s ? s : "");
	n = n > w ? w : n;
	attron(attr);
	mvaddnstr(y, x, s ? s : "", n);
	for (int i = n; i < w; i++)
		addch(' ');
	attroff(attr);
}

static struct field *field_add(enum field_kind kind, const char *label, const char *text,
			       bool optional)
{
	struct field *f = &dlg.fields[dlg.n_fields++];
	field_init(f, kind, label, text, optional);
	return f;
}

/* ---- plan and apply ---- */

/* The plan's lines, as `ibvf vf` prints them: rendered from its JSON. */
static void render_plan(void)
{
	struct json_object *o = plan_to_json(dlg.plan);
	text_clear(&dlg.lines);
	plan_text(&dlg.lines, o);
	json_object_put(o);
}

static void plan_made(struct console *c)
{
	/* A forced plan acts on a pod's VF: as dangerous as a destructive one. */
	dlg.on_cancel = dlg.plan->destructive || dlg.req.force;
	dlg.scroll = 0;
	dlg.stage = STAGE_PREVIEW;
	render_plan();
	c->dirty = true;
}

static int make_plan(struct console *c, struct action_req *req)
{
	struct err e = {{0}};
	plan_free(dlg.plan);
	dlg.plan = NULL;
	dlg.refusal[0] = '\0';
	int r = action_plan(c->sys, c->node, req, &dlg.plan, &e);
	if (r < 0) {
		plan_fmt(dlg.refusal, sizeof(dlg.refusal), "refused: %s", e.msg);
		return r;
	}
	if (!dlg.plan->n_steps) {
		snprintf(dlg.refusal, sizeof(dlg.refusal), "nothing to do: %s", dlg.plan->summary);
		plan_free(dlg.plan);
		dlg.plan = NULL;
		return -EALREADY;
	}
	return 0;
}

/* Enter in the fields: the request from the fields, then its plan. */
static void submit(struct console *c)
{
	struct action_req req = dlg.req;
	char why[160];
	for (int i = 0; i < dlg.n_fields; i++) {
		const struct field *f = &dlg.fields[i];
		if (!field_check(f, why, sizeof(why))) {
			snprintf(dlg.refusal, sizeof(dlg.refusal), "%s: %s", f->label, why);
			return;
		}
	}
	switch (req.kind) {
	case ACTION_CREATE:
		req.count = (unsigned int)atol(dlg.fields[0].text);
		break;
	case ACTION_RENAME:
		plan_fmt(req.name, sizeof(req.name), "%s", dlg.fields[0].text);
		break;
	case ACTION_GUID:
		req.set_node = dlg.fields[0].text[0];
		req.set_port = dlg.fields[1].text[0];
		if (!req.set_node && !req.set_port) {
			snprintf(dlg.refusal, sizeof(dlg.refusal),
				 "give a node GUID, a port GUID or both");
			return;
		}
		if (req.set_node)
			guid_parse(dlg.fields[0].text, &req.node_guid);
		if (req.set_port)
			guid_parse(dlg.fields[1].text, &req.port_guid);
		break;
	default:
		break;
	}
	dlg.req = req;
	if (make_plan(c, &req) == 0)
		plan_made(c);
}

static void apply(struct console *c)
{
	struct err e = {{0}};
	dlg.stage = STAGE_APPLYING;
	console_redraw(c);
	dlg.apply_rc = action_apply(c->sys, dlg.plan, &dlg.req, NULL, &e);
	if (dlg.apply_rc < 0)
		snprintf(dlg.apply_error, sizeof(dlg.apply_error), "%s",
			 dlg.plan->error[0] ? dlg.plan->error : e.msg);
	dlg.stage = STAGE_DONE;
	dlg.scroll = 0;
	render_plan();
	console_rebuild(c); /* the events would get there too, a moment later */
	console_journal_reload(c);
	c->dirty = true;
}

/* ---- opening ---- */

static void open_common(enum action_kind kind, const char *target, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void open_common(enum action_kind kind, const char *target, const char *fmt, ...)
{
	va_list ap;
	dialog_close();
	dlg.stage = STAGE_EDIT;
	dlg.req.kind = kind;
	snprintf(dlg.req.target, sizeof(dlg.req.target), "%s", target);
	va_start(ap, fmt);
	vsnprintf(dlg.title, sizeof(dlg.title), fmt, ap);
	va_end(ap);
}

void dialog_open_create(struct console *c, const char *pf_bdf, const char *count, bool force,
			bool submit_now)
{
	open_common(ACTION_CREATE, pf_bdf, "Create VFs on %s%s", pf_bdf, force ? " (forced)" : "");
	dlg.req.force = force;
	struct field *f = field_add(FIELD_NUMBER, "VF count", count, false);
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
	open_common(ACTION_RENAME, vf_bdf, "Rename the netdev of VF %s%s", vf_bdf,
		    force ? " (forced)" : "");
	dlg.req.force = force;
	field_add(FIELD_IFNAME, "new name", name, false);
	if (submit_now)
		submit(c);
	c->dirty = true;
}

void dialog_open_guid(struct console *c, const char *vf_bdf, const char *node, const char *port,
		      bool force, bool submit_now)
{
	open_common(ACTION_GUID, vf_bdf, "Set the GUIDs of VF %s%s", vf_bdf,
		    force ? " (forced)" : "");
	dlg.req.force = force;
	field_add(FIELD_GUID, "node GUID", node, true);
	field_add(FIELD_GUID, "port GUID", port, true);
	if (submit_now)
		submit(c);
	c->dirty = true;
}

void dialog_open_req(struct console *c, const struct action_req *req, const char *title)
{
	open_common(req->kind, req->target, "%s", title);
	dlg.req = *req;
	if (make_plan(c, &dlg.req) == 0)
		plan_made(c);
	else
		dlg.stage = STAGE_REFUSED;
	c->dirty = true;
}

/* ---- keys ---- */

static void key_edit(struct console *c, int k)
{
	dlg.flash[0] = '\0';
	if (k == '\n' || k == '\r' || k == KEY_ENTER)
		submit(c);
	else if (k == '\t' || k == KEY_DOWN)
		dlg.focus = (dlg.focus + 1) % dlg.n_fields;
	else if (k == KEY_BTAB || k == KEY_UP)
		dlg.focus = (dlg.focus + dlg.n_fields - 1) % dlg.n_fields;
	else if (field_key(&dlg.fields[dlg.focus], k, dlg.flash, sizeof(dlg.flash)) > 0)
		dlg.refusal[0] = '\0';
}

/* Up/Down, PgUp/PgDn, Home/End in a long preview or result; the draw
 * clamps the end. */
static void body_scroll(int k)
{
	int page = dlg.page > 1 ? dlg.page - 1 : 1;
	dlg.scroll += k == KEY_UP ? -1 : k == KEY_DOWN ? 1 : k == KEY_PPAGE ? -page : page;
	if (k == KEY_HOME)
		dlg.scroll = 0;
	else if (k == KEY_END)
		dlg.scroll = LINES_MAX * 4;
	if (dlg.scroll < 0)
		dlg.scroll = 0;
}

static void key_preview(struct console *c, int k)
{
	switch (k) {
	case KEY_LEFT:
	case KEY_RIGHT:
	case '\t':
	case KEY_BTAB:
		dlg.on_cancel = !dlg.on_cancel;
		break;
	case KEY_UP:
	case KEY_DOWN:
	case KEY_PPAGE:
	case KEY_NPAGE:
	case KEY_HOME:
	case KEY_END:
		body_scroll(k);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (dlg.on_cancel) {
			console_message(c, TR_STATUS, "cancelled: nothing was changed");
			dialog_close();
		} else {
			apply(c);
		}
		break;
	}
}

void dialog_key(struct console *c, int k)
{
	c->dirty = true;
	if (k == 27 && dlg.stage != STAGE_DONE) {
		console_message(c, TR_STATUS, "cancelled: nothing was changed");
		dialog_close();
		return;
	}
	switch (dlg.stage) {
	case STAGE_EDIT:
		key_edit(c, k);
		break;
	case STAGE_PREVIEW:
		key_preview(c, k);
		break;
	case STAGE_DONE:
		if (k == KEY_UP || k == KEY_DOWN || k == KEY_PPAGE || k == KEY_NPAGE ||
		    k == KEY_HOME || k == KEY_END) {
			body_scroll(k);
			break;
		}
		if (dlg.plan)
			console_message(c, dlg.apply_rc < 0 ? TR_ERROR : TR_STATUS, "%s: %s",
					dlg.plan->summary,
					dlg.apply_rc < 0 ? "failed" : "applied and verified");
		dialog_close();
		break;
	default:
		dialog_close();
		break;
	}
}

/* ---- drawing ---- */

struct body {
	char text[LINES_MAX][200];
	enum theme_role role[LINES_MAX];
	int n;
};

static void add(struct body *b, enum theme_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add(struct body *b, enum theme_role role, const char *fmt, ...)
{
	if (b->n >= LINES_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->text[b->n], sizeof(b->text[0]), fmt, ap);
	va_end(ap);
	b->role[b->n++] = role;
}

static void body_lines(struct body *b, const struct text *t)
{
	for (size_t i = 0; i < t->n; i++)
		add(b, text_theme_role(t->lines[i].role, TR_HELP), "%s", t->lines[i].s);
	if (t->truncated)
		add(b, TR_ERROR, "%s", "(out of memory: lines are missing)");
}

static void body_fields(const struct console *c, struct body *b)
{
	for (int i = 0; i < dlg.n_fields; i++) {
		char why[160];
		const struct field *f = &dlg.fields[i];
		bool ok = field_check(f, why, sizeof(why));
		add(b, i == dlg.focus ? TR_SELECTION : TR_HELP, "%-10s [%-23s] %s", f->label,
		    f->text, why);
		if (!ok)
			b->role[b->n - 1] = i == dlg.focus ? TR_SELECTION : TR_WARNING;
	}
	add(b, TR_HELP, "%s", "");
	if (dlg.flash[0])
		add(b, TR_WARNING, "%s", dlg.flash);
	if (dlg.refusal[0])
		add(b, TR_ERROR, "%s", dlg.refusal);
}

void dialog_draw(struct console *c)
{
	static struct body b;
	char hint[160];
	b.n = 0;
	switch (dlg.stage) {
	case STAGE_EDIT:
		body_fields(c, &b);
		snprintf(hint, sizeof(hint), "Enter preview  %sEsc cancel",
			 dlg.n_fields > 1 ? "Tab next field  " : "");
		break;
	case STAGE_PREVIEW:
		body_lines(&b, &dlg.lines);
		snprintf(hint, sizeof(hint), "%s[ Apply ]%s  %s[ Cancel ]%s   %s",
			 dlg.on_cancel ? " " : ">", dlg.on_cancel ? " " : "<",
			 dlg.on_cancel ? ">" : " ", dlg.on_cancel ? "<" : " ",
			 dlg.plan->destructive ? "VF traffic is interrupted" : "");
		break;
	case STAGE_APPLYING:
		add(&b, TR_HELP, "%s", dlg.plan->summary);
		add(&b, TR_HELP, "applying %zu steps ...", dlg.plan->n_steps);
		snprintf(hint, sizeof(hint), "please wait");
		break;
	case STAGE_DONE:
		body_lines(&b, &dlg.lines);
		if (dlg.apply_rc < 0 && !dlg.plan->error[0]) /* else a line of the plan's */
			add(&b, TR_ERROR, "error: %s", dlg.apply_error);
		snprintf(hint, sizeof(hint), "any key closes");
		break;
	case STAGE_REFUSED:
		add(&b, TR_ERROR, "%s", dlg.refusal);
		add(&b, TR_HELP, "nothing was changed");
		snprintf(hint, sizeof(hint), "any key closes");
		break;
	default:
		return;
	}
	/* Long lines (shell commands, refusals) wrap under their own indent. */
	int bw = COLS < 100 ? COLS : 100, x0 = (COLS - bw) / 2, tw = bw - 2;
	static char wrapped[LINES_MAX * 2][208];
	static enum theme_role wrole[LINES_MAX * 2];
	int nw = 0;
	for (int i = 0; i < b.n && tw > 8; i++) {
		const char *t = b.text[i];
		int lead = (int)strspn(t, " "), indent = 0;
		int cont = lead + 4 < tw / 2 ? lead + 4 : tw / 2;
		do {
			int room = tw - indent, len = (int)strlen(t);
			if (len > room) {
				len = room;
				for (int k = room; k > room / 2; k--)
					if (t[k] == ' ') {
						len = k;
						break;
					}
			}
			if (nw < LINES_MAX * 2) {
				snprintf(wrapped[nw], sizeof(wrapped[0]), "%*s%.*s", indent, "",
					 len, t);
				wrole[nw++] = b.role[i];
			}
			t += len;
			if (indent == 0 && *t)
				indent = cont;
			while (*t == ' ' && indent)
				t++;
		} while (*t);
	}
	int room = LINES - 4 - 3; /* title, blank, hint */
	int shown = nw < room ? nw : room;
	if (shown < 1)
		shown = 1;
	dlg.page = shown;
	if (dlg.scroll > nw - shown)
		dlg.scroll = nw - shown > 0 ? nw - shown : 0;
	int bh = shown + 4, y0 = (LINES - bh) / 2, a = console_attr(c, TR_HELP);
	for (int y = 0; y < bh; y++)
		dialog_put(y0 + y, x0, bw, "", a);
	dialog_put(y0, x0 + 1, bw - 2, dlg.title, a | A_BOLD);
	for (int i = 0; i < shown && dlg.scroll + i < nw; i++)
		dialog_put(y0 + 2 + i, x0 + 1, bw - 2, wrapped[dlg.scroll + i],
			   console_attr(c, wrole[dlg.scroll + i]));
	if (nw > shown) {
		char more[64];
		snprintf(more, sizeof(more), " %d-%d of %d (Up/Down PgUp/PgDn) ", dlg.scroll + 1,
			 dlg.scroll + shown, nw);
		dialog_put(y0, x0 + bw - (int)strlen(more) - 1, (int)strlen(more), more, a);
	}
	dialog_put(y0 + bh - 1, x0 + 1, bw - 2, hint, a | A_BOLD);
	if (dlg.stage == STAGE_EDIT) {
		curs_set(1);
		move(y0 + 2 + dlg.focus, x0 + 1 + 12 + (int)strlen(dlg.fields[dlg.focus].text));
	} else {
		curs_set(0);
	}
}
