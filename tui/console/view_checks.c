// SPDX-License-Identifier: MIT
/* View 2, the Checks view: the problems of the current snapshot
 * (findings.c, findings_group()) by severity in the list widget, Enter
 * unfolding one into its findings (its group's, then those it explains);
 * the selected one's evidence, why and remedy, a jump to its row or its
 * kernel-log line. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "console_int.h"
#include "screen.h"
#include "tui/base/text.h"

enum check_row {
	CROW_HEADING, /* a severity's heading */
	CROW_PROBLEM, /* a problem (fs.problems) */
	CROW_FINDING, /* a finding of the unfolded problem */
};

struct check_row_ref {
	enum check_row kind;
	size_t i; /* the severity, the problem's index, or the finding's */
};

struct checks_view {
	struct check_row_ref *rows;
	size_t n_rows, cap_rows;
	size_t shown[3];   /* problems shown, by severity */
	struct listw list; /* over rows */
	struct listw text; /* the opened finding or problem, scrolled */
	bool open;
	long prev_sel;
	/* kept across snapshots: the selected row's finding (a problem's
	 * first), and the unfolded problem's first finding */
	char sel_id[64], sel_subject[16];
	bool sel_problem;
	char unfold_id[64], unfold_subject[16];
};

static const struct problem *row_problem(const struct console *c, const struct check_row_ref *r)
{
	return r->kind == CROW_PROBLEM ? &c->checks.fs.problems[r->i] : NULL;
}

/* The finding a row stands for: its own, or a problem's first. */
static const struct finding *row_finding(const struct console *c, const struct check_row_ref *r)
{
	const struct findings *fs = &c->checks.fs;
	if (r->kind == CROW_FINDING)
		return &fs->v[r->i];
	if (r->kind == CROW_PROBLEM)
		return &fs->v[fs->problems[r->i].members[0]];
	return NULL;
}

static const struct check_row_ref *selected_row(const struct checks_view *cv)
{
	return cv->n_rows ? &cv->rows[cv->list.sel] : NULL;
}

static const struct finding *selected(const struct console *c, const struct checks_view *cv)
{
	const struct check_row_ref *r = selected_row(cv);
	return r ? row_finding(c, r) : NULL;
}

/* The selected problem when it has more than one finding (a group, or a
 * cause with its consequences): what the view shows for it. */
static const struct problem *selected_group(const struct console *c, const struct checks_view *cv)
{
	const struct check_row_ref *r = selected_row(cv);
	const struct problem *p = r ? row_problem(c, r) : NULL;
	return p && p->n_members + p->n_consequences > 1 ? p : NULL;
}

static bool row_add(struct checks_view *cv, enum check_row kind, size_t i)
{
	struct check_row_ref *r = console_grow(cv->rows, &cv->cap_rows, cv->n_rows, sizeof(*r));
	if (!r)
		return false;
	cv->rows = r;
	cv->rows[cv->n_rows++] = (struct check_row_ref){.kind = kind, .i = i};
	return true;
}

static bool finding_matches(const struct listw *l, const struct finding *f)
{
	return listw_match(l, f->id) || listw_match(l, f->subject) || listw_match(l, f->title) ||
	       listw_match(l, check_severity_name(f->severity));
}

static bool problem_matches(const struct console *c, const struct listw *l, const struct problem *p)
{
	const struct findings *fs = &c->checks.fs;
	if (listw_match(l, p->title) || listw_match(l, p->check) ||
	    listw_match(l, check_severity_name(p->severity)))
		return true;
	for (size_t i = 0; i < p->n_members; i++)
		if (finding_matches(l, &fs->v[p->members[i]]))
			return true;
	for (size_t i = 0; i < p->n_consequences; i++)
		if (finding_matches(l, &fs->v[p->consequences[i]]))
			return true;
	return false;
}

static void remember(struct console *c, struct checks_view *cv)
{
	const struct check_row_ref *r = selected_row(cv);
	const struct finding *f = selected(c, cv);
	snprintf(cv->sel_id, sizeof(cv->sel_id), "%s", f ? f->id : "");
	snprintf(cv->sel_subject, sizeof(cv->sel_subject), "%s", f ? f->subject : "");
	cv->sel_problem = r && r->kind == CROW_PROBLEM;
}

static void set_open(struct view *v, bool open)
{
	struct checks_view *cv = v->state;
	cv->open = open;
	cv->text = (struct listw){.text = true};
	v->list = open ? &cv->text : &cv->list;
}

static bool is_finding(const struct finding *f, const char *id, const char *subject)
{
	return !strcmp(f->id, id) && !strcmp(f->subject, subject);
}

/* The unfolded problem's findings under it: its group's, then the ones it
 * explains. */
static void add_unfolded(struct checks_view *cv, const struct findings *fs, const struct problem *p,
			 const struct check_row_ref *want, long *sel)
{
	/* With a filter, the findings it matches (all when it matched only
	 * the problem's title) */
	bool any = false;
	for (size_t k = 0; k < p->n_members + p->n_consequences && !any; k++)
		any = finding_matches(&cv->list,
				      &fs->v[k < p->n_members ? p->members[k]
							      : p->consequences[k - p->n_members]]);
	for (int part = 0; part < 2; part++) {
		const size_t *v = part ? p->consequences : p->members;
		size_t n = part ? p->n_consequences : p->n_members;
		for (size_t k = 0; k < n; k++) {
			if (any && !finding_matches(&cv->list, &fs->v[v[k]]))
				continue;
			if (*sel < 0 && want->kind == CROW_FINDING &&
			    is_finding(&fs->v[v[k]], cv->sel_id, cv->sel_subject))
				*sel = (long)cv->n_rows;
			if (!row_add(cv, CROW_FINDING, v[k]))
				return;
		}
	}
}

/* Rows: each severity's heading, then its problems (critical first), the
 * unfolded one's findings under it, the filter applied; the selection
 * stays on the same problem or finding. */
static void rebuild(struct console *c, struct view *v)
{
	struct checks_view *cv = v->state;
	const struct findings *fs = &c->checks.fs;
	const struct check_row_ref want = {.kind = cv->sel_problem ? CROW_PROBLEM : CROW_FINDING};
	cv->n_rows = 0;
	memset(cv->shown, 0, sizeof(cv->shown));
	long sel = -1;
	for (int s = CHECK_CRITICAL; s >= CHECK_INFO; s--) {
		size_t head = cv->n_rows;
		if (!row_add(cv, CROW_HEADING, (size_t)s))
			break;
		for (size_t i = 0; i < fs->n_problems; i++) {
			const struct problem *p = &fs->problems[i];
			const struct finding *first = &fs->v[p->members[0]];
			if ((int)p->severity != s || !problem_matches(c, &cv->list, p))
				continue;
			if (sel < 0 && want.kind == CROW_PROBLEM &&
			    is_finding(first, cv->sel_id, cv->sel_subject))
				sel = (long)cv->n_rows;
			if (!row_add(cv, CROW_PROBLEM, i))
				break;
			cv->shown[s]++;
			if (is_finding(first, cv->unfold_id, cv->unfold_subject))
				add_unfolded(cv, fs, p, &want, &sel);
		}
		if (!cv->shown[s])
			cv->n_rows = head; /* no heading over nothing */
	}
	listw_set_rows(&cv->list, (long)cv->n_rows);
	listw_select(&cv->list, sel >= 0 ? sel : cv->list.sel);
	if (cv->n_rows && cv->rows[cv->list.sel].kind == CROW_HEADING &&
	    cv->list.sel + 1 < cv->list.n)
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
	if (cv->n_rows && cv->rows[s].kind == CROW_HEADING) {
		long to = s >= cv->prev_sel ? s + 1 : s - 1;
		if (to < 0 || to >= cv->list.n)
			to = s + 1 < cv->list.n ? s + 1 : cv->prev_sel;
		listw_select(&cv->list, to);
	}
	cv->prev_sel = cv->list.sel;
	remember(c, cv);
}

/* Enter on a problem of several findings: unfolds it (folding the one
 * open), or folds it again. */
static void toggle_unfold(struct console *c, struct view *v, const struct problem *p)
{
	struct checks_view *cv = v->state;
	const struct finding *first = &c->checks.fs.v[p->members[0]];
	if (is_finding(first, cv->unfold_id, cv->unfold_subject)) {
		cv->unfold_id[0] = cv->unfold_subject[0] = 0;
	} else {
		snprintf(cv->unfold_id, sizeof(cv->unfold_id), "%s", first->id);
		snprintf(cv->unfold_subject, sizeof(cv->unfold_subject), "%s", first->subject);
	}
	rebuild(c, v);
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
	const struct problem *g = selected_group(c, cv);
	switch (a) {
	case KA_FINDING:
		if (g && !cv->open)
			toggle_unfold(c, v, g);
		else if (f && !cv->open)
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
		if (g && g->n_members > 1 && !g->for_each) /* the group's one remedy */
			console_fix_problem(c, g);
		else if (f)
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
	const struct check_row_ref *r = &cv->rows[row];
	bool sel = row == cv->list.sel;
	struct text t = {0};
	if (r->kind == CROW_HEADING) {
		enum check_severity s = (enum check_severity)r->i;
		text_add(&t, TEXT_HEADING, "%s (%zu)", check_severity_name(s), cv->shown[s]);
		screen_put(y, 0, w, t.n ? t.lines[0].s : "",
			   screen_attr(c, console_severity_role(s)));
		text_clear(&t);
		return;
	}
	const struct problem *p = row_problem(c, r);
	const struct finding *f = row_finding(c, r);
	enum check_severity sev = p ? p->severity : f->severity;
	int x = p ? 4 : 6;
	if (p) {
		bool unfolded = is_finding(f, cv->unfold_id, cv->unfold_subject);
		const char *fold = p->n_members + p->n_consequences < 2 ? "  "
				   : unfolded				? "- "
									: "+ ";
		char subj[40], more[48] = "";
		if (p->n_members > 1)
			snprintf(subj, sizeof(subj), "%zu %s", p->n_members,
				 f->kind == SUBJECT_VF ? "VFs" : "subjects");
		else
			snprintf(subj, sizeof(subj), "%s", f->subject[0] ? f->subject : "node");
		if (p->n_consequences)
			snprintf(more, sizeof(more), "  (+%zu it explains)", p->n_consequences);
		if (w >= 120)
			text_add(&t, TEXT_NORMAL, "%s%-12s  %-24s %s%s", fold, subj, p->check,
				 p->title, more);
		else
			text_add(&t, TEXT_NORMAL, "%s%s%s", fold, p->title, more);
	} else {
		const char *how = findings_find(&c->checks.fs, &f->cause) ? "  <- " : "";
		if (w >= 120)
			text_add(&t, TEXT_NORMAL, "%-12s  %-24s %s%s%s",
				 f->subject[0] ? f->subject : "node", f->id, f->title, how,
				 *how ? f->cause.id : "");
		else
			text_add(&t, TEXT_NORMAL, "%-12s  %s%s%s",
				 f->subject[0] ? f->subject : "node", f->title, how,
				 *how ? f->cause.id : "");
	}
	int a = screen_attr(c, sel ? TR_SELECTION : TR_NORMAL);
	screen_put(y, 0, w, "", a);
	screen_put(y, x - 3, 2, console_severity_mark(sev),
		   sel ? a : screen_attr(c, console_severity_role(sev)));
	screen_put(y, x, w - x, t.n ? t.lines[0].s : "", a);
	text_clear(&t);
}

static void draw_head(struct console *c, int y, int w, const char *hint)
{
	const struct console_checks *k = &c->checks;
	char line[256];
	snprintf(line, sizeof(line),
		 " Problems: %zu critical, %zu warning, %zu info (%zu findings)%s%s", k->pcounts[2],
		 k->pcounts[1], k->pcounts[0], k->fs.n, k->fs.n_dropped ? " (some dropped)" : "",
		 hint);
	screen_put(y, 0, w, line, screen_attr(c, TR_COLUMN_HEADER));
}

static void draw_list(struct console *c, struct checks_view *cv, const struct rect *r)
{
	draw_head(c, r->y, r->w,
		  r->w >= 120 ? "   Enter: open/unfold  t: its row  L: kernel log  f: fix" : "");
	if (!cv->n_rows) {
		screen_put(r->y + 1, 1, r->w - 1,
			   c->checks.fs.n ? "nothing matches the filter (/ to change it)"
					  : "no findings: every check passed on this snapshot",
			   screen_attr(c, TR_STATUS));
		return;
	}
	listw_fit(&cv->list, r->h - 1);
	struct listw *l = &cv->list; /* a heading stays in sight above its first finding */
	if (l->page > 1 && l->top > 0 && l->top == l->sel &&
	    cv->rows[l->top - 1].kind == CROW_HEADING)
		l->top--;
	for (long i = 0; i < cv->list.page && cv->list.top + i < cv->list.n; i++)
		draw_row(c, cv, cv->list.top + i, r->y + 1 + (int)i, r->w);
}

static void checks_draw(struct console *c, struct view *v)
{
	struct checks_view *cv = v->state;
	const struct finding *f = selected(c, cv);
	const struct problem *g = selected_group(c, cv);
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
	screen_put(d.y, 0, d.w,
		   g   ? " Problem  (Enter: its findings, f: fix them)"
		   : f ? " Finding  (Enter: all of it, t: its row, f: fix)"
		       : " Finding",
		   screen_attr(c, TR_DETAILS_TITLE));
	if (g) {
		console_problem_text(c, &t, g, d.w - 1);
		put_text(c, &t, 0, d.y + 1, d.h - 1, d.w);
	} else if (f) {
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
