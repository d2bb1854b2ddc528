// SPDX-License-Identifier: MIT
/* The console's findings: checks_run() once per snapshot (never per frame),
 * an index by subject for the tree's marks and the details, and view 2, the
 * Checks view: the findings grouped by severity in the list widget, the
 * selected one's evidence, why and remedy, a jump to its row. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console_int.h"
#include "dialog.h"
#include "text.h"

/* ---- the findings of the current snapshot ---- */

static int by_subject_cmp(const void *a, const void *b, void *ctx)
{
	const struct findings *fs = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int r = strcmp(fs->v[x].subject, fs->v[y].subject);
	return r ? r : x < y ? -1 : x > y;
}

void console_checks_free(struct console_checks *k)
{
	findings_fini(&k->fs);
	free(k->by_subject);
	free(k->marks);
	k->by_subject = NULL;
	k->marks = NULL;
	k->n_marks = 0;
}

/* The netdev renames seen so far, as the checks take them. */
static struct name_change *renames(const struct console *c, size_t *ret_n)
{
	struct name_change *r = calloc(c->n_names ? c->n_names : 1, sizeof(*r));
	size_t n = 0;
	for (size_t i = 0; r && i < c->n_names; i++) {
		const struct console_rename *cr = &c->names[i];
		if (cr->ibdev)
			continue;
		snprintf(r[n].bdf, sizeof(r[n].bdf), "%s", cr->bdf);
		snprintf(r[n].old_name, sizeof(r[n].old_name), "%.15s", cr->old);
		snprintf(r[n].new_name, sizeof(r[n].new_name), "%.15s", cr->new);
		n++;
	}
	*ret_n = n;
	return r;
}

static void index_marks(struct console_checks *k)
{
	size_t n = k->fs.n;
	k->by_subject = malloc((n ? n : 1) * sizeof(*k->by_subject));
	k->marks = calloc(n ? n : 1, sizeof(*k->marks));
	if (!k->by_subject || !k->marks) {
		console_checks_free(k);
		return;
	}
	for (size_t i = 0; i < n; i++)
		k->by_subject[i] = i;
	qsort_r(k->by_subject, n, sizeof(*k->by_subject), by_subject_cmp, &k->fs);
	for (size_t i = 0; i < n; i++) {
		const struct finding *f = &k->fs.v[k->by_subject[i]];
		k->counts[f->severity]++;
		if (!f->subject[0])
			continue;
		struct console_mark *m = k->n_marks ? &k->marks[k->n_marks - 1] : NULL;
		if (!m || strcmp(m->bdf, f->subject)) {
			m = &k->marks[k->n_marks++];
			snprintf(m->bdf, sizeof(m->bdf), "%s", f->subject);
			m->first = i;
			m->max = f->severity;
		}
		m->n++;
		m->max = f->severity > m->max ? f->severity : m->max;
	}
}

void console_checks_run(struct console *c)
{
	struct console_checks *k = &c->checks;
	double t0 = console_now();
	console_checks_free(k);
	memset(k->counts, 0, sizeof(k->counts));
	if (!c->node)
		return;
	size_t nr;
	struct name_change *r = renames(c, &nr);
	struct checks_opts o = {.renames = r, .n_renames = nr};
	if (checks_run(c->node, &o, &k->fs) < 0)
		console_message(c, TR_ERROR, "out of memory while running the checks");
	free(r);
	index_marks(k);
	k->cost = console_now() - t0;
}

static int mark_cmp(const void *key, const void *m)
{
	return strcmp(key, ((const struct console_mark *)m)->bdf);
}

const struct console_mark *console_mark_find(const struct console *c, const char *bdf)
{
	if (!c->checks.n_marks || !bdf)
		return NULL;
	return bsearch(bdf, c->checks.marks, c->checks.n_marks, sizeof(*c->checks.marks),
		       mark_cmp);
}

const struct finding *console_mark_finding(const struct console *c, const struct console_mark *m,
					   size_t i)
{
	return i < m->n ? &c->checks.fs.v[c->checks.by_subject[m->first + i]] : NULL;
}

const char *console_severity_mark(enum check_severity s)
{
	return s == CHECK_CRITICAL ? "!!" : s == CHECK_WARNING ? "!" : "i";
}

enum theme_role console_severity_role(enum check_severity s)
{
	return s == CHECK_CRITICAL  ? TR_CHECK_CRITICAL
	       : s == CHECK_WARNING ? TR_CHECK_WARNING
				    : TR_CHECK_INFO;
}

long console_finding_kmsg(const struct console *c, const struct finding *f)
{
	const struct node *n = c->node;
	for (size_t e = 0; n && e < f->n_evidence; e++) {
		const struct finding_evidence *ev = &f->evidence[e];
		if (strncmp(ev->where, "kernel log", 10) || !ev->value)
			continue;
		for (size_t i = 0; i < n->n_kmsg; i++)
			if (n->kmsg[i].msg && *n->kmsg[i].msg &&
			    (strstr(ev->value, n->kmsg[i].msg) || strstr(n->kmsg[i].msg, ev->value)))
				return (long)i;
	}
	return -1;
}

/* ---- view 2: the Checks view ---- */

#define ROW_HEADING(sev) ((size_t)-1 - (size_t)(sev)) /* a row that names a severity */

struct checks_view {
	size_t *rows; /* a finding's index in fs.v, or ROW_HEADING(severity) */
	size_t n_rows, cap_rows;
	size_t shown[3]; /* findings shown, by severity */
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

/* Rows: each severity's heading, then its findings (critical first), the
 * filter applied; the selection stays on the same finding. */
static void rebuild(struct console *c, struct checks_view *cv)
{
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
		cv->open = false;
}

static void remember(struct console *c, struct checks_view *cv)
{
	const struct finding *f = selected(c, cv);
	snprintf(cv->sel_id, sizeof(cv->sel_id), "%s", f ? f->id : "");
	snprintf(cv->sel_subject, sizeof(cv->sel_subject), "%s", f ? f->subject : "");
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
	rebuild(c, v->state);
}

static void checks_filtered(struct console *c, struct view *v)
{
	rebuild(c, v->state);
	remember(c, v->state);
}

static void set_open(struct view *v, bool open)
{
	struct checks_view *cv = v->state;
	cv->open = open;
	cv->text = (struct listw){.text = true};
	v->list = open ? &cv->text : &cv->list;
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
			console_message(c, TR_STATUS, "the finding is about the node, not one row");
		return true;
	case KA_KMSG:
		console_kmsg_show(c, f ? console_finding_kmsg(c, f) : -1);
		return true;
	case KA_BACK: /* Esc: the list, then back to the tree */
		if (cv->open)
			set_open(v, false);
		else
			console_view_switch(c, VIEW_TREE);
		return true;
	case KA_FILTER:
		return cv->open; /* the list's filter, not the finding's text */
	default:
		return false;
	}
}

/* The subject as people know it: "VF 0000:18:00.2 (ib0, mlx5_12)". */
static void subject_line(const struct console *c, const struct finding *f, char *buf, size_t size)
{
	if (!f->subject[0]) {
		snprintf(buf, size, "the node");
		return;
	}
	const struct fn *fn = c->node ? node_find_fn(c->node, f->subject, NULL, NULL) : NULL;
	const char *nd = fn && fn->n_netdevs ? fn->netdevs[0].name : NULL;
	const char *ib = fn && fn->n_rdmas ? fn->rdmas[0].name : NULL;
	int n = snprintf(buf, size, "%s %s", f->kind == SUBJECT_VF ? "VF" : "PF", f->subject);
	if ((nd || ib) && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " (%s%s%s)", nd ? nd : "", nd && ib ? ", " : "",
			 ib ? ib : "");
}

/* Words of s on lines of at most w columns, each indented by ind. */
static void wrap(struct text *t, enum text_role role, const char *s, int w, int ind)
{
	int max = w - ind > 20 ? w - ind : 20;
	while (s && *s) {
		int len = (int)strlen(s), cut = len;
		if (len > max) {
			cut = max;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (!cut)
				cut = max;
		}
		text_add(t, role, "%*s%.*s", ind, "", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

/* A command line on lines of at most w columns, broken at spaces with the
 * shell's backslash, so that what is read is what runs. */
static void wrap_cmd(struct text *t, const char *cmd, int w)
{
	int max = w - 8 > 20 ? w - 8 : 20, first = 1;
	while (*cmd) {
		int len = (int)strlen(cmd), cut = len;
		if (len > max) {
			cut = max;
			while (cut > 0 && cmd[cut] != ' ')
				cut--;
			if (!cut)
				cut = max;
		}
		text_add(t, TEXT_CHANGED, "%s%.*s%s", first ? "  $ " : "      ", cut, cmd,
			 cut < len ? " \\" : "");
		first = 0;
		cmd += cut;
		while (*cmd == ' ')
			cmd++;
	}
}

/* The finding as text: every string is escaped by text_add. */
static void finding_text(const struct console *c, struct text *t, const struct finding *f, int w)
{
	char buf[1024];
	text_add(t, f->severity == CHECK_INFO ? TEXT_NORMAL : TEXT_ERROR, "%s %s  %s",
		 console_severity_mark(f->severity), check_severity_name(f->severity), f->id);
	wrap(t, TEXT_HEADING, f->title, w, 0);
	subject_line(c, f, buf, sizeof(buf));
	text_add(t, TEXT_NORMAL, "subject   %s", buf);
	text_add(t, TEXT_HEADING, "evidence");
	for (size_t i = 0; i < f->n_evidence; i++)
		wrap(t, TEXT_NORMAL, (snprintf(buf, sizeof(buf), "%s: %s", f->evidence[i].where,
					       f->evidence[i].value),
				      buf),
		     w, 2);
	if (!f->n_evidence)
		text_add(t, TEXT_NORMAL, "  (none recorded)");
	text_add(t, TEXT_HEADING, "why");
	wrap(t, TEXT_NORMAL, f->why, w, 2);
	const struct finding_remedy *r = &f->remedy;
	text_add(t, TEXT_HEADING, "remedy%s",
		 r->kind == REMEDY_IBVF	    ? " (ibvf runs it: preview, confirm, journal)"
		 : r->kind == REMEDY_MANUAL ? " (manual: ibvf never runs these)"
					    : "");
	if (r->summary)
		wrap(t, TEXT_NORMAL, r->summary, w, 2);
	if (r->kind == REMEDY_IBVF) {
		const char *argv[FINDING_STEPS_MAX + 1] = {"ibvf"};
		for (size_t i = 0; i < r->n_steps; i++)
			argv[i + 1] = r->steps[i];
		text_shell_join(buf, sizeof(buf), argv, r->n_steps + 1);
		wrap_cmd(t, buf, w);
	}
	for (size_t i = 0; r->kind == REMEDY_MANUAL && i < r->n_steps; i++) {
		snprintf(buf, sizeof(buf), "%zu. %s", i + 1, r->steps[i]);
		wrap(t, TEXT_CHANGED, buf, w, 2);
	}
	if (r->kind == REMEDY_NONE && !r->summary)
		text_add(t, TEXT_NORMAL, "  nothing to do but look");
}

static void put_text(struct console *c, const struct text *t, size_t from, int y, int h, int w)
{
	for (int i = 0; i < h && from + (size_t)i < t->n; i++)
		dialog_put(y + i, 1, w - 1, t->lines[from + i].s,
			   console_attr(c, text_theme_role(t->lines[from + i].role, TR_NORMAL)));
}

static void draw_row(struct console *c, const struct checks_view *cv, long row, int y, int w)
{
	size_t v = cv->rows[row];
	bool sel = row == cv->list.sel;
	struct text t = {0};
	if (is_heading(v)) {
		enum check_severity s = (enum check_severity)((size_t)-1 - v);
		text_add(&t, TEXT_HEADING, "%s (%zu)", check_severity_name(s), cv->shown[s]);
		dialog_put(y, 0, w, t.n ? t.lines[0].s : "", console_attr(c, console_severity_role(s)));
		text_clear(&t);
		return;
	}
	const struct finding *f = &c->checks.fs.v[v];
	if (w >= 120)
		text_add(&t, TEXT_NORMAL, "%-12s  %-24s %s", f->subject[0] ? f->subject : "node",
			 f->id, f->title);
	else
		text_add(&t, TEXT_NORMAL, "%-12s  %s", f->subject[0] ? f->subject : "node", f->title);
	int a = console_attr(c, sel ? TR_SELECTION : TR_NORMAL);
	dialog_put(y, 0, w, "", a);
	dialog_put(y, 1, 2, console_severity_mark(f->severity),
		   sel ? a : console_attr(c, console_severity_role(f->severity)));
	dialog_put(y, 4, w - 4, t.n ? t.lines[0].s : "", a);
	text_clear(&t);
}

static void draw_head(struct console *c, int y, int w, const char *hint)
{
	const struct console_checks *k = &c->checks;
	char line[256];
	snprintf(line, sizeof(line), " Findings: %zu critical, %zu warning, %zu info%s%s", k->counts[2],
		 k->counts[1], k->counts[0], k->fs.n_dropped ? " (some dropped)" : "", hint);
	dialog_put(y, 0, w, line, console_attr(c, TR_COLUMN_HEADER));
}

static void draw_list(struct console *c, struct checks_view *cv, const struct rect *r)
{
	draw_head(c, r->y, r->w, r->w >= 100 ? "   Enter: open  t: its row  L: kernel log" : "");
	if (!cv->n_rows) {
		dialog_put(r->y + 1, 1, r->w - 1,
			   c->checks.fs.n ? "nothing matches the filter (/ to change it)"
					  : "no findings: every check passed on this snapshot",
			   console_attr(c, TR_STATUS));
		return;
	}
	listw_fit(&cv->list, r->h - 1);
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
			  all.w >= 100 ? "   Enter: its row  L: kernel log  Esc: back"
				       : "  Enter: its row  Esc: back");
		finding_text(c, &t, f, all.w - 1);
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
	dialog_put(d.y, 0, d.w, f ? " Finding  (Enter: all of it, t: its row)" : " Finding",
		   console_attr(c, TR_DETAILS_TITLE));
	if (f) {
		finding_text(c, &t, f, d.w - 1);
		put_text(c, &t, 0, d.y + 1, d.h - 1, d.w);
	}
	text_clear(&t);
}

static void checks_enter(struct console *c, struct view *v)
{
	rebuild(c, v->state);
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
