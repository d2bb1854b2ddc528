// SPDX-License-Identifier: MIT
/* View 2, the Checks view: the findings of the current snapshot
 * (console_findings.c) grouped by severity in the list widget, the selected
 * one's evidence, why and remedy, a jump to its row or its kernel-log line. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "console_int.h"
#include "screen.h"
#include "tui/base/text.h"

#define ROW_HEADING(sev) ((size_t)-1 - (size_t)(sev)) /* a row that names a severity */

struct checks_view {
	size_t *rows; /* a finding's index in fs.v, or ROW_HEADING(severity) */
	size_t n_rows, cap_rows;
	size_t shown[3];   /* findings shown, by severity */
	struct listw list; /* over rows */
	struct listw text; /* the opened finding, scrolled */
	bool open;
	long prev_sel;
	char sel_id[64], sel_subject[16]; /* kept across snapshots */
};

static bool is_heading(size_t row)
{
	return row >= ROW_HEADING(CHECK_CRITICAL);
}

static const struct finding *selected(const struct console *c, const struct checks_view *cv)
{
	if (!cv->n_rows || is_heading(cv->rows[cv->list.sel]))
		return NULL;
	return &c->checks.fs.v[cv->rows[cv->list.sel]];
}

static bool row_add(struct checks_view *cv, size_t v)
{
	size_t *r = console_grow(cv->rows, &cv->cap_rows, cv->n_rows, sizeof(*r));
	if (!r)
		return false;
	cv->rows = r;
	cv->rows[cv->n_rows++] = v;
	return true;
}

static bool finding_matches(const struct listw *l, const struct finding *f)
{
	return listw_match(l, f->id) || listw_match(l, f->subject) || listw_match(l, f->title) ||
	       listw_match(l, check_severity_name(f->severity));
}

static void remember(struct console *c, struct checks_view *cv)
{
	const struct finding *f = selected(c, cv);
	snprintf(cv->sel_id, sizeof(cv->sel_id), "%s", f ? f->id : "");
	snprintf(cv->sel_subject, sizeof(cv->sel_subject), "%s", f ? f->subject : "");
}

static void set_open(struct view *v, bool open)
{
	struct checks_view *cv = v->state;
	cv->open = open;
	cv->text = (struct listw){.text = true};
	v->list = open ? &cv->text : &cv->list;
}

/* Rows: each severity's heading, then its findings (critical first), the
 * filter applied; the selection stays on the same finding. */
static void rebuild(struct console *c, struct view *v)
{
	struct checks_view *cv = v->state;
	const struct findings *fs = &c->checks.fs;
	cv->n_rows = 0;
	memset(cv->shown, 0, sizeof(cv->shown));
	long sel = -1;
	for (int s = CHECK_CRITICAL; s >= CHECK_INFO; s--) {
		size_t head = cv->n_rows;
		if (!row_add(cv, ROW_HEADING(s)))
			break;
		for (size_t i = 0; i < fs->n; i++) {
			const struct finding *f = &fs->v[i];
			if ((int)f->severity != s || !finding_matches(&cv->list, f))
				continue;
			if (sel < 0 && !strcmp(f->id, cv->sel_id) &&
			    !strcmp(f->subject, cv->sel_subject))
				sel = (long)cv->n_rows;
			if (!row_add(cv, i))
				break;
			cv->shown[s]++;
		}
		if (!cv->shown[s])
			cv->n_rows = head; /* no heading over nothing */
	}
	listw_set_rows(&cv->list, (long)cv->n_rows);
	listw_select(&cv->list, sel >= 0 ? sel : cv->list.sel);
	if (cv->n_rows && is_heading(cv->rows[cv->list.sel]) && cv->list.sel + 1 < cv->list.n)
		cv->list.sel++;
	cv->prev_sel = cv->list.sel;
	if (cv->open && !selected(c, cv))
		set_open(v, false); /* the finding is gone */
	if (sel < 0)
		remember(c, cv);
}

/* Headings are not stops: the selection moves on past them. */
static void checks_moved(struct console *c, struct view *v)
{
	struct checks_view *cv = v->state;
	if (cv->open)
		return;
	long s = cv->list.sel;
	if (cv->n_rows && is_heading(cv->rows[s])) {
		long to = s >= cv->prev_sel ? s + 1 : s - 1;
		if (to < 0 || to >= cv->list.n)
			to = s + 1 < cv->list.n ? s + 1 : cv->prev_sel;
		listw_select(&cv->list, to);
	}
	cv->prev_sel = cv->list.sel;
	remember(c, cv);
}

static void checks_node_changed(struct console *c, struct view *v)
{
	rebuild(c, v);
}

static void checks_filtered(struct console *c, struct view *v)
{
	rebuild(c, v);
}

static bool checks_action(struct console *c, struct view *v, enum key_action a)
{
	struct checks_view *cv = v->state;
	const struct finding *f = selected(c, cv);
	switch (a) {
	case KA_FINDING:
		if (f && !cv->open)
			set_open(v, true);
		else if (f && f->subject[0])
			console_tree_jump(c, f->subject);
		else if (f && console_finding_kmsg(c, f) >= 0)
			console_kmsg_show(c, console_finding_kmsg(c, f));
		return true;
	case KA_JUMP:
		if (f && f->subject[0])
			console_tree_jump(c, f->subject);
		else if (f)
			screen_message(c, TR_STATUS, "the finding is about the node, not one row");
		return true;
	case KA_KMSG:
		console_kmsg_show(c, f ? console_finding_kmsg(c, f) : -1);
		return true;
	case KA_FIX:
		if (f)
			console_fix_finding(c, f);
		else
			screen_message(c, TR_STATUS, "no finding selected to fix");
		return true;
	case KA_BACK: /* Esc: the list, then back to the tree */
		if (cv->open)
			set_open(v, false);
		else
			screen_view_switch(c, VIEW_TREE);
		return true;
	case KA_FILTER:
		return cv->open; /* the list's filter, not the finding's text */
	default:
		return false;
	}
}

static void put_text(struct console *c, const struct text *t, size_t from, int y, int h, int w)
{
	for (int i = 0; i < h && from + (size_t)i < t->n; i++)
		screen_put(y + i, 1, w - 1, t->lines[from + i].s,
			   screen_attr(c, text_theme_role(t->lines[from + i].role, TR_NORMAL)));
}

static void draw_row(struct console *c, const struct checks_view *cv, long row, int y, int w)
{
	size_t v = cv->rows[row];
	bool sel = row == cv->list.sel;
	struct text t = {0};
	if (is_heading(v)) {
		enum check_severity s = (enum check_severity)((size_t)-1 - v);
		text_add(&t, TEXT_HEADING, "%s (%zu)", check_severity_name(s), cv->shown[s]);
		screen_put(y, 0, w, t.n ? t.lines[0].s : "",
			   screen_attr(c, console_severity_role(s)));
		text_clear(&t);
		return;
	}
	const struct finding *f = &c->checks.fs.v[v];
	if (w >= 120)
		text_add(&t, TEXT_NORMAL, "%-12s  %-24s %s", f->subject[0] ? f->subject : "node",
			 f->id, f->title);
	else
		text_add(&t, TEXT_NORMAL, "%-12s  %s", f->subject[0] ? f->subject : "node",
			 f->title);
	int a = screen_attr(c, sel ? TR_SELECTION : TR_NORMAL);
	screen_put(y, 0, w, "", a);
	screen_put(y, 1, 2, console_severity_mark(f->severity),
		   sel ? a : screen_attr(c, console_severity_role(f->severity)));
	screen_put(y, 4, w - 4, t.n ? t.lines[0].s : "", a);
	text_clear(&t);
}

static void draw_head(struct console *c, int y, int w, const char *hint)
{
	const struct console_checks *k = &c->checks;
	char line[256];
	snprintf(line, sizeof(line), " Findings: %zu critical, %zu warning, %zu info%s%s",
		 k->counts[2], k->counts[1], k->counts[0], k->fs.n_dropped ? " (some dropped)" : "",
		 hint);
	screen_put(y, 0, w, line, screen_attr(c, TR_COLUMN_HEADER));
}

static void draw_list(struct console *c, struct checks_view *cv, const struct rect *r)
{
	draw_head(c, r->y, r->w,
		  r->w >= 100 ? "   Enter: open  t: its row  L: kernel log  f: fix" : "");
	if (!cv->n_rows) {
		screen_put(r->y + 1, 1, r->w - 1,
			   c->checks.fs.n ? "nothing matches the filter (/ to change it)"
					  : "no findings: every check passed on this snapshot",
			   screen_attr(c, TR_STATUS));
		return;
	}
	listw_fit(&cv->list, r->h - 1);
	struct listw *l = &cv->list; /* a heading stays in sight above its first finding */
	if (l->page > 1 && l->top > 0 && l->top == l->sel && is_heading(cv->rows[l->top - 1]))
		l->top--;
	for (long i = 0; i < cv->list.page && cv->list.top + i < cv->list.n; i++)
		draw_row(c, cv, cv->list.top + i, r->y + 1 + (int)i, r->w);
}

static void checks_draw(struct console *c, struct view *v)
{
	struct checks_view *cv = v->state;
	const struct finding *f = selected(c, cv);
	struct rect all = c->lay.tree, d = c->lay.details;
	all.h += d.h;
	struct text t = {0};
	if (cv->open && f) {
		draw_head(c, all.y, all.w,
			  all.w >= 100 ? "   Enter: its row  L: kernel log  f: fix  Esc: back"
				       : "  Enter: its row  f: fix  Esc: back");
		console_finding_text(c, &t, f, all.w - 1);
		listw_set_rows(&cv->text, (long)t.n);
		listw_fit(&cv->text, all.h - 1);
		put_text(c, &t, (size_t)cv->text.top, all.y + 1, all.h - 1, all.w);
		text_clear(&t);
		return;
	}
	if (!d.h) { /* tree-only layout: the list alone */
		draw_list(c, cv, &all);
		return;
	}
	draw_list(c, cv, &c->lay.tree);
	screen_put(d.y, 0, d.w, f ? " Finding  (Enter: all of it, t: its row, f: fix)" : " Finding",
		   screen_attr(c, TR_DETAILS_TITLE));
	if (f) {
		console_finding_text(c, &t, f, d.w - 1);
		put_text(c, &t, 0, d.y + 1, d.h - 1, d.w);
	}
	text_clear(&t);
}

static void checks_enter(struct console *c, struct view *v)
{
	rebuild(c, v);
}

static void checks_free(struct view *v)
{
	struct checks_view *cv = v->state;
	if (cv)
		free(cv->rows);
	free(cv);
	v->state = NULL;
}

void view_checks_init(struct console *c, struct view *v)
{
	(void)c;
	struct checks_view *cv = calloc(1, sizeof(*cv));
	*v = (struct view){.name = "Checks",
			   .state = cv,
			   .list = cv ? &cv->list : NULL,
			   .action = checks_action,
			   .draw = checks_draw,
			   .enter = checks_enter,
			   .moved = checks_moved,
			   .node_changed = checks_node_changed,
			   .filtered = checks_filtered,
			   .free = checks_free};
}
