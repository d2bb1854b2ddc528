// SPDX-License-Identifier: MIT
/* Drawing the action dialog: its text as lines (fields, the plan's steps,
 * the running step, the verified result), wrapped, scrolled by the list
 * widget. */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/actions/lock.h"
#include "dialog.h"
#include "screen.h"
#include "dialog_int.h"

#define LINES_MAX 2048 /* 64 VFs of guid --assign-all: 6 steps of 2-3 lines, 2 changes each */

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

/* A text longer than a body line (a refusal listing findings) as several,
 * cut at spaces, the later ones indented as wrap() indents. */
static void add_long(struct body *b, enum theme_role role, const char *s)
{
	bool first = true;
	while (*s) {
		int room = (int)sizeof(b->text[0]) - 1 - (first ? 0 : 4), len = (int)strlen(s);
		if (len > room) {
			len = room;
			for (int k = room; k > room / 2; k--)
				if (s[k] == ' ') {
					len = k;
					break;
				}
		}
		add(b, role, "%s%.*s", first ? "" : "    ", len, s);
		s += len;
		while (*s == ' ')
			s++;
		first = false;
	}
}

static void body_lines(struct body *b, const struct text *t)
{
	for (size_t i = 0; i < t->n; i++)
		add(b, text_theme_role(t->lines[i].role, TR_HELP), "%s", t->lines[i].s);
	if (t->truncated)
		add(b, TR_ERROR, "%s", "(out of memory: lines are missing)");
}

static void body_fields(const struct dialog *dlg, struct body *b)
{
	for (int i = 0; i < dlg->n_fields; i++) {
		char why[160];
		const struct field *f = &dlg->fields[i];
		bool ok = field_check(f, why, sizeof(why));
		add(b, i == dlg->focus ? TR_SELECTION : TR_HELP, "%-10s [%-23s] %s", f->label,
		    f->text, why);
		if (!ok)
			b->role[b->n - 1] = i == dlg->focus ? TR_SELECTION : TR_WARNING;
	}
	add(b, TR_HELP, "%s", "");
	if (dlg->flash[0])
		add(b, TR_WARNING, "%s", dlg->flash);
	if (dlg->refusal[0])
		add(b, TR_ERROR, "%s", dlg->refusal);
}

static const char *phase_name(const struct dialog *dlg, char *buf, size_t size)
{
	switch (dlg->phase) {
	case ACTION_PHASE_CHECK:
		return "checking privilege and the node";
	case ACTION_PHASE_STEP:
		snprintf(buf, size, "step %zu of %zu: %s", dlg->step + 1, dlg->plan->n_steps,
			 dlg->plan->steps[dlg->step].desc);
		return buf;
	case ACTION_PHASE_VERIFY:
		return "reading the node again to verify";
	case ACTION_PHASE_JOURNAL:
		return "writing the journal";
	case ACTION_PHASE_WAIT_LOCK:
		snprintf(buf, size,
			 "waiting for another ibvf (pid %ld) holding " NODE_LOCK_PATH
			 " (Esc stops; nothing was changed yet)",
			 dlg->holder);
		return buf;
	}
	return "?";
}

/* While the worker applies: the step it is in and for how long. The steps'
 * descriptions do not change while it runs; their status does (not read). */
static void body_running(const struct dialog *dlg, struct body *b)
{
	char step[256];
	add(b, TR_HELP, "%s", dlg->plan->summary);
	add(b, TR_HELP, "running: %s", phase_name(dlg, step, sizeof(step)));
	add(b, TR_HELP, "elapsed %.0f s", console_now() - dlg->started);
	if (dlg->cancelling)
		add(b, TR_WARNING, "stopping: the apply ends before its next step");
}

static void body_of(struct dialog *dlg, struct body *b, char *hint, size_t size)
{
	switch (dlg->stage) {
	case STAGE_EDIT:
		body_fields(dlg, b);
		snprintf(hint, size, "Enter preview  %sEsc cancel",
			 dlg->n_fields > 1 ? "Tab next field  " : "");
		break;
	case STAGE_PREVIEW:
		body_lines(b, &dlg->lines);
		snprintf(hint, size, "%s[ Apply ]%s  %s[ Cancel ]%s   %s",
			 dlg->on_cancel ? " " : ">", dlg->on_cancel ? " " : "<",
			 dlg->on_cancel ? ">" : " ", dlg->on_cancel ? "<" : " ",
			 dlg->plan->destructive ? "VF traffic is interrupted" : "");
		break;
	case STAGE_RUNNING:
		body_running(dlg, b);
		snprintf(hint, size, "%s", dlg->cancelling ? "stopping ..." : "Esc stops waiting");
		break;
	case STAGE_DONE:
		body_lines(b, &dlg->lines);
		if (dlg->apply_rc < 0 && !dlg->plan->error[0]) /* else a line of the plan's */
			add(b, TR_ERROR, "error: %s", dlg->apply_error);
		snprintf(hint, size, "any key closes");
		break;
	case STAGE_NOTE:
		body_lines(b, &dlg->lines);
		snprintf(hint, size, "any key closes");
		break;
	case STAGE_REFUSED:
		add_long(b, TR_ERROR, dlg->refusal);
		add(b, TR_HELP, "nothing was changed");
		snprintf(hint, size, "any key closes");
		break;
	default:
		break;
	}
}

struct wrapped {
	char text[LINES_MAX * 2][208];
	enum theme_role role[LINES_MAX * 2];
	int n;
};

/* Long lines (shell commands, refusals) wrap under their own indent. */
static void wrap(const struct body *b, int tw, struct wrapped *w)
{
	w->n = 0;
	for (int i = 0; i < b->n && tw > 8; i++) {
		const char *t = b->text[i];
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
			if (w->n < LINES_MAX * 2) {
				snprintf(w->text[w->n], sizeof(w->text[0]), "%*s%.*s", indent, "",
					 len, t);
				w->role[w->n++] = b->role[i];
			}
			t += len;
			if (indent == 0 && *t)
				indent = cont;
			while (*t == ' ' && indent)
				t++;
		} while (*t);
	}
}

void dialog_draw(struct console *c, struct view *v)
{
	struct dialog *dlg = v->state;
	struct scratch {
		struct body b;
		struct wrapped w;
	} *sc = dlg->scratch; /* too big for the stack */
	char hint[160] = "";
	if (!sc && !(sc = dlg->scratch = calloc(1, sizeof(*sc))))
		return;
	struct body *bp = &sc->b;
	struct wrapped *wp = &sc->w;
#define b (*bp)
#define w (*wp)
	b.n = 0;
	if (dlg->stage == STAGE_CLOSED)
		return;
	body_of(dlg, &b, hint, sizeof(hint));
	int bw = COLS < 100 ? COLS : 100, x0 = (COLS - bw) / 2, tw = bw - 2;
	wrap(&b, tw, &w);
	int nw = w.n;
	int room = LINES - 4 - 3; /* title, blank, hint */
	int shown = nw < room ? nw : room;
	if (shown < 1)
		shown = 1;
	listw_set_rows(&dlg->body, nw);
	listw_fit(&dlg->body, shown);
	long top = dlg->body.top;
	int bh = shown + 4, y0 = (LINES - bh) / 2, a = screen_attr(c, TR_HELP);
	for (int y = 0; y < bh; y++)
		screen_put(y0 + y, x0, bw, "", a);
	screen_put(y0, x0 + 1, bw - 2, dlg->title, a | A_BOLD);
	for (int i = 0; i < shown && top + i < nw; i++)
		screen_put(y0 + 2 + i, x0 + 1, bw - 2, w.text[top + i],
			   screen_attr(c, w.role[top + i]));
	if (nw > shown) {
		char more[96];
		snprintf(more, sizeof(more), " %ld-%ld of %d (Up/Down PgUp/PgDn) ", top + 1,
			 top + shown, nw);
		screen_put(y0, x0 + bw - (int)strlen(more) - 1, (int)strlen(more), more, a);
	}
	screen_put(y0 + bh - 1, x0 + 1, bw - 2, hint, a | A_BOLD);
	if (dlg->stage == STAGE_EDIT) {
		curs_set(1);
		move(y0 + 2 + dlg->focus, x0 + 1 + 12 + (int)strlen(dlg->fields[dlg->focus].text));
	} else {
		curs_set(0);
	}
#undef b
#undef w
}
