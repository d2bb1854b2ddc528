// SPDX-License-Identifier: MIT
/* View 6, the timeline: the node's recorded history (core/history/store.h),
 * newest last, drawn by `ibvf timeline`'s renderer (a boot's line set
 * apart, an effect's cause lines under it). One row of the list is one
 * line; the filter lets whole events through. T on a tree row shows that
 * function's history (a PF's VFs too), T or Esc goes back to its row.
 *
 * The store is read, never written: opened read-only with a short busy
 * wait (WAL: a reader does not block the recorder), read whole on entering
 * and with `r`, and polled for newer rows each second while shown. A row
 * the recorder folds into an older one (a flapping port's count) shows
 * its new count at the next whole read. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console_int.h"
#include "core/history/store.h"
#include "core/model/node.h"
#include "core/snapshot/resolve.h"
#include "screen.h"
#include "tui/render/timeline_text.h"

#define TIMELINE_EVENTS_MAX 5000 /* the newest events held */
#define TIMELINE_BUSY_MS    20	 /* the longest a read waits for the recorder */
#define TIMELINE_DATE_COLS  110	 /* from this width the rows show the date */

struct tl_event {
	struct json_object *o; /* hist_store_event_json() with its causes */
	int64_t id, t_us;
	struct text t; /* rendered with the view's flags */
};

/* A row of the list: a line of an event. */
struct tl_row {
	size_t ev, line;
};

struct timeline_view {
	struct hist_store *st;
	bool missing;	 /* no store recorded yet */
	char error[512]; /* the last read failed: why */
	struct tl_event *ev;
	size_t n, cap; /* oldest first, at most TIMELINE_EVENTS_MAX */
	int64_t last_id;
	struct tl_row *rows;
	size_t n_rows, cap_rows, n_shown; /* the rows and events the filter lets through */
	struct listw list;
	int flags;
	char scope[16]; /* one function's history (a PF: its VFs too); "": the node's */
	char next_scope[16];
};

static void events_clear(struct timeline_view *tv)
{
	for (size_t i = 0; i < tv->n; i++) {
		json_object_put(tv->ev[i].o);
		text_clear(&tv->ev[i].t);
	}
	tv->n = 0;
	tv->last_id = 0;
}

/* What the filter asks for: kinds (a kind or a group: rename, guid, port,
 * pod, ...), a function (a PCI address: a PF's VFs too), else text in an
 * event's row (any case). */
struct tl_filter {
	const struct listw *list;
	uint32_t kinds;
	char bdf[16];
};

/* A string of the event's JSON, "" when absent. */
static const char *field(const struct tl_event *ev, const char *key)
{
	const char *s = text_jstr(ev->o, key);
	return s ? s : "";
}

static void filter_parse(struct tl_filter *f, const struct listw *l)
{
	*f = (struct tl_filter){.list = l};
	if (l->filter[0] && hist_kinds_parse(l->filter, &f->kinds) < 0)
		f->kinds = 0;
	if (!f->kinds && !node_bdf_normalize(l->filter, true, f->bdf))
		f->bdf[0] = '\0';
}

static bool event_matches(const struct tl_filter *f, const struct tl_event *ev)
{
	if (f->kinds) {
		int k = hist_kind_from_string(field(ev, "kind"));
		return k >= 0 && (f->kinds & (1u << k));
	}
	if (f->bdf[0])
		return !strcmp(field(ev, "pci"), f->bdf) || !strcmp(field(ev, "pf"), f->bdf);
	return listw_match(f->list, ev->t.n ? ev->t.lines[0].s : "");
}

static bool at_end(const struct timeline_view *tv)
{
	return !tv->n_rows || tv->list.sel >= (long)tv->n_rows - 1;
}

/* The rows of the events the filter lets through; to_end: the last one
 * selected (the newest, as new events scroll in). */
static void refilter(struct timeline_view *tv, bool to_end)
{
	struct tl_filter f;
	filter_parse(&f, &tv->list);
	tv->n_rows = 0;
	tv->n_shown = 0;
	for (size_t i = 0; i < tv->n; i++) {
		struct tl_event *ev = &tv->ev[i];
		if (!event_matches(&f, ev))
			continue;
		tv->n_shown++;
		for (size_t k = 0; k < ev->t.n; k++) {
			void *p = console_grow(tv->rows, &tv->cap_rows, tv->n_rows,
					       sizeof(*tv->rows));
			if (!p)
				break; /* out of memory: fewer rows */
			tv->rows = p;
			tv->rows[tv->n_rows++] = (struct tl_row){i, k};
		}
	}
	listw_set_rows(&tv->list, (long)tv->n_rows);
	if (to_end)
		listw_select(&tv->list, tv->list.n - 1);
}

static void rerender(struct timeline_view *tv, int flags)
{
	tv->flags = flags;
	for (size_t i = 0; i < tv->n; i++) {
		text_clear(&tv->ev[i].t);
		timeline_text_event(&tv->ev[i].t, tv->ev[i].o, flags);
	}
	refilter(tv, at_end(tv));
}

struct tl_read {
	struct timeline_view *tv;
	struct err *e;
	bool added;
};

/* Adds an event in time order (a late event recorded with an earlier
 * time, as a journal entry's, goes where it belongs), the oldest dropped
 * past TIMELINE_EVENTS_MAX. */
static int add_event(void *arg, const struct hist_event *hev)
{
	struct tl_read *rd = arg;
	struct timeline_view *tv = rd->tv;
	struct json_object *o = hist_store_event_json(tv->st, hev, true, rd->e);
	if (!o)
		return -EIO;
	if (hev->id > tv->last_id)
		tv->last_id = hev->id;
	if (tv->n == TIMELINE_EVENTS_MAX) {
		json_object_put(tv->ev[0].o);
		text_clear(&tv->ev[0].t);
		memmove(tv->ev, tv->ev + 1, --tv->n * sizeof(*tv->ev));
	}
	void *p = console_grow(tv->ev, &tv->cap, tv->n, sizeof(*tv->ev));
	if (!p) {
		json_object_put(o);
		return err_setx(rd->e, ENOMEM, "out of memory reading the history");
	}
	tv->ev = p;
	size_t at = tv->n;
	while (at > 0 && (tv->ev[at - 1].t_us > hev->t_us ||
			  (tv->ev[at - 1].t_us == hev->t_us && tv->ev[at - 1].id > hev->id)))
		at--;
	memmove(tv->ev + at + 1, tv->ev + at, (tv->n - at) * sizeof(*tv->ev));
	tv->ev[at] = (struct tl_event){.o = o, .id = hev->id, .t_us = hev->t_us};
	timeline_text_event(&tv->ev[at].t, o, tv->flags);
	tv->n++;
	rd->added = true;
	return 0;
}

/* Opens the store when there is one; false while there is none or it
 * cannot be opened (said in the view). */
static bool store_open(struct console *c, struct timeline_view *tv)
{
	if (tv->st)
		return true;
	char path[PATH_MAX];
	struct err e = {{0}};
	hist_store_path(c->sys, path);
	int r = hist_store_open(path, false, &tv->st, &e);
	tv->missing = r == -ENOENT;
	if (r < 0) {
		tv->st = NULL;
		snprintf(tv->error, sizeof(tv->error), "%s", r == -ENOENT ? "" : e.msg);
		return false;
	}
	hist_store_busy_ms(tv->st, TIMELINE_BUSY_MS);
	tv->error[0] = '\0';
	return true;
}

/* Reads the events after the newest held, or (whole) the newest
 * TIMELINE_EVENTS_MAX again. A busy store is tried again at the next tick;
 * the events held stay on screen. */
static void timeline_read(struct console *c, struct timeline_view *tv, bool whole)
{
	bool had = tv->missing || tv->error[0];
	if (!store_open(c, tv)) {
		if (had != (tv->missing || tv->error[0]) || whole)
			c->dirty = true;
		if (whole) {
			events_clear(tv);
			refilter(tv, true);
		}
		return;
	}
	struct err e = {{0}};
	bool to_end = whole || at_end(tv);
	const char *dev = tv->scope;
	struct hist_query q = {
		.devs = {dev}, .n_devs = tv->scope[0] ? 1 : 0, .limit = TIMELINE_EVENTS_MAX};
	if (whole)
		events_clear(tv);
	q.after_id = tv->last_id;
	struct tl_read rd = {.tv = tv, .e = &e};
	int r = hist_store_query(tv->st, &q, add_event, &rd, &e);
	if (r == -EBUSY) {
		r = 0; /* the recorder is writing: the next tick reads it */
	} else if (r < 0) {
		snprintf(tv->error, sizeof(tv->error), "%s", e.msg);
		c->dirty = true;
	} else if (tv->error[0]) {
		tv->error[0] = '\0';
		c->dirty = true;
	}
	if (rd.added || whole) {
		refilter(tv, to_end);
		c->dirty = true;
	}
}

/* The function's history in the timeline (bdf NULL or "": the node's),
 * all of it: the filter typed before goes. */
void console_timeline_show(struct console *c, const char *bdf)
{
	struct timeline_view *tv = c->views[VIEW_TIMELINE].state;
	snprintf(tv->next_scope, sizeof(tv->next_scope), "%s", bdf ? bdf : "");
	tv->list.filter[0] = '\0';
	screen_view_switch(c, VIEW_TIMELINE);
}

/* `:timeline [DEV|all]`: DEV through the one resolver; a PCI address gone
 * from the node still has its history. */
int console_cmd_timeline(struct console *c, const char *arg)
{
	char bdf[16] = "";
	if (*arg && strcmp(arg, "all") && !node_bdf_normalize(arg, true, bdf)) {
		struct node_ref ref;
		struct err e = {{0}};
		if (!c->node || node_resolve(c->node, arg, &ref, &e) < 0 || !ref.fn) {
			screen_message(c, TR_ERROR, "timeline: %s",
				       e.msg[0] ? e.msg : "not a PCI function");
			return -ENODEV;
		}
		snprintf(bdf, sizeof(bdf), "%s", ref.fn->bdf);
	}
	console_timeline_show(c, bdf);
	return 0;
}

static const struct tl_event *selected(const struct timeline_view *tv)
{
	if (!tv->n_rows)
		return NULL;
	return &tv->ev[tv->rows[tv->list.sel].ev];
}

static bool is_pf(const struct console *c, const char *bdf)
{
	const struct pf *pf = NULL;
	return c->node && node_find_fn(c->node, bdf, &pf, NULL) && !strcmp(pf->fn.bdf, bdf);
}

/* " History of 0000:18:00.0 and its VFs: 12 of 40 events (newest last)". */
static void title(const struct console *c, const struct timeline_view *tv, char *buf, size_t size)
{
	char of[64] = "";
	if (tv->scope[0])
		snprintf(of, sizeof(of), " of %s%s", tv->scope,
			 is_pf(c, tv->scope) ? " and its VFs" : "");
	if (tv->list.filter[0])
		snprintf(buf, size, " History%s: %zu of %zu events (newest last)", of, tv->n_shown,
			 tv->n);
	else
		snprintf(buf, size, " History%s: %zu event%s (newest last)", of, tv->n,
			 tv->n == 1 ? "" : "s");
}

static void draw_list(struct console *c, struct timeline_view *tv, const struct rect *r)
{
	struct text head = {0};
	timeline_text_header(&head, tv->flags);
	screen_put(r->y, 0, r->w, head.n ? head.lines[0].s : "", screen_attr(c, TR_COLUMN_HEADER));
	text_clear(&head);
	int y0 = r->y + 1;
	if (tv->error[0]) /* the events read before stay below it */
		screen_put(y0++, 1, r->w - 1, tv->error, screen_attr(c, TR_ERROR));
	if (!tv->n_rows) {
		const char *say = tv->missing	 ? "no history recorded yet: run 'ibvf record' "
						   "(ibvf-record.service)"
				  : tv->n	 ? "nothing matches the filter (/ to change it)"
				  : tv->scope[0] ? "nothing recorded on this function"
						 : "nothing recorded yet";
		if (!tv->error[0])
			screen_put(y0, 1, r->w - 1, say, screen_attr(c, TR_STATUS));
		return;
	}
	struct listw *l = &tv->list;
	listw_fit(l, r->y + r->h - y0);
	for (long i = 0; i < l->page && l->top + i < (long)tv->n_rows; i++) {
		const struct tl_row *row = &tv->rows[l->top + i];
		const struct text_line *t = &tv->ev[row->ev].t.lines[row->line];
		screen_put(y0 + (int)i, 0, r->w, t->s,
			   screen_attr(c, l->top + i == l->sel
						  ? TR_SELECTION
						  : text_theme_role(t->role, TR_NORMAL)));
	}
}

/* The selected event whole: its lines wrapped to the pane. */
static void draw_event(struct console *c, struct timeline_view *tv, const struct rect *d)
{
	char head[256];
	title(c, tv, head, sizeof(head));
	const struct tl_event *ev = selected(tv);
	size_t len = strlen(head);
	if (tv->scope[0])
		snprintf(head + len, sizeof(head) - len, "  T: back");
	screen_put(d->y, 0, d->w, head, screen_attr(c, TR_DETAILS_TITLE));
	int w = d->w - 2 > 10 ? d->w - 2 : 10, y = 1;
	for (size_t i = 0; ev && i < ev->t.n && y < d->h; i++) {
		const char *s = ev->t.lines[i].s;
		while (*s == ' ')
			s++; /* a cause line's indent: the pane sets it apart */
		int attr = screen_attr(c, text_theme_role(ev->t.lines[i].role, TR_NORMAL));
		int indent = i ? 2 : 0, cols;
		while (*s && y < d->h) { /* wrapped at a character, by display column */
			char part[1024];
			size_t used = screen_fit(part, sizeof(part), s, w - indent, &cols);
			if (!used)
				break;
			screen_put(d->y + y++, 1 + indent, d->w - 1 - indent, part, attr);
			s += used;
		}
	}
}

static void timeline_draw(struct console *c, struct view *v)
{
	struct timeline_view *tv = v->state;
	struct rect r = c->lay.tree;
	int flags = r.w >= TIMELINE_DATE_COLS ? 0 : TIMELINE_NO_DATE;
	if (flags != tv->flags)
		rerender(tv, flags);
	draw_list(c, tv, &r);
	if (c->lay.details.h)
		draw_event(c, tv, &c->lay.details);
}

static void timeline_enter(struct console *c, struct view *v)
{
	struct timeline_view *tv = v->state;
	snprintf(tv->scope, sizeof(tv->scope), "%s", tv->next_scope);
	tv->next_scope[0] = '\0';
	timeline_read(c, tv, true); /* scrolled to the end: the newest */
}

/* Back to the tree: at the function whose history this is, else at the
 * selected event's function when T asks for it. */
static void back(struct console *c, struct timeline_view *tv, bool to_event)
{
	const struct tl_event *ev = selected(tv);
	const char *bdf = tv->scope[0] ? tv->scope : to_event && ev ? field(ev, "pci") : "";
	if (!bdf[0] || !console_tree_jump(c, bdf))
		screen_view_switch(c, VIEW_TREE);
}

static bool timeline_action(struct console *c, struct view *v, enum key_action a)
{
	struct timeline_view *tv = v->state;
	switch (a) {
	case KA_BACK:
	case KA_TIMELINE:
		back(c, tv, a == KA_TIMELINE);
		return true;
	case KA_RELOAD:
		timeline_read(c, tv, true);
		return true;
	default:
		return false;
	}
}

static void timeline_tick(struct console *c, struct view *v)
{
	timeline_read(c, v->state, false);
}

static void timeline_node_changed(struct console *c, struct view *v)
{
	if (c->view == VIEW_TIMELINE)
		timeline_read(c, v->state, false);
}

static void timeline_filtered(struct console *c, struct view *v)
{
	(void)c;
	refilter(v->state, true);
}

static void timeline_free(struct view *v)
{
	struct timeline_view *tv = v->state;
	if (tv) {
		events_clear(tv);
		free(tv->ev);
		free(tv->rows);
		hist_store_close(tv->st);
	}
	free(tv);
	v->state = NULL;
}

void view_timeline_init(struct console *c, struct view *v)
{
	(void)c;
	struct timeline_view *tv = calloc(1, sizeof(*tv));
	if (tv)
		tv->flags = TIMELINE_NO_DATE;
	*v = (struct view){.name = "Timeline",
			   .state = tv,
			   .list = tv ? &tv->list : NULL,
			   .action = timeline_action,
			   .draw = timeline_draw,
			   .enter = timeline_enter,
			   .tick = timeline_tick,
			   .node_changed = timeline_node_changed,
			   .filtered = timeline_filtered,
			   .free = timeline_free};
}
