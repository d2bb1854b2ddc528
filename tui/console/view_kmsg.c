// SPDX-License-Identifier: MIT
/* View 5, the kernel log: the records of the snapshot's node->kmsg (the
 * lines that name an RDMA driver, oldest first) with dmesg's timestamps,
 * the failures in the error colour. Reached with 5, Tab, L, and from a
 * finding whose evidence is a kernel-log line (at that line). */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console_int.h"
#include "core/snapshot/kmsg.h"
#include "screen.h"
#include "tui/base/text.h"

struct kmsg_view {
	size_t *shown; /* indices into node->kmsg the filter lets through */
	size_t n_shown, cap;
	struct listw list;
	bool placed; /* the selection was set (a jump, or the first error) */
};

/* "[   12.345678] msg", as dmesg prints it. */
static void kmsg_format(struct text *t, const struct kmsg_line *l)
{
	enum text_role role = l->error ? TEXT_ERROR : TEXT_NORMAL;
	if (l->ts_usec.known)
		text_add(t, role, "[%5lld.%06lld] %s", (long long)(l->ts_usec.v / 1000000),
			 (long long)(l->ts_usec.v % 1000000), l->msg ? l->msg : "");
	else
		text_add(t, role, "[%12s] %s", "", l->msg ? l->msg : "");
}

static bool kmsg_matches(const struct listw *l, const struct kmsg_line *k)
{
	if (!l->filter[0])
		return true;
	struct text t = {0};
	kmsg_format(&t, k);
	bool m = t.n && listw_match(l, t.lines[0].s);
	text_clear(&t);
	return m;
}

static void refilter(struct console *c, struct kmsg_view *kv)
{
	const struct node *n = c->node;
	size_t want = n && n->n_kmsg ? n->n_kmsg : 1;
	if (want > kv->cap) {
		size_t *s = realloc(kv->shown, want * sizeof(*s));
		if (!s)
			return; /* the old list stays */
		kv->shown = s;
		kv->cap = want;
	}
	kv->n_shown = 0;
	for (size_t i = 0; n && i < n->n_kmsg; i++)
		if (kmsg_matches(&kv->list, &n->kmsg[i]))
			kv->shown[kv->n_shown++] = i;
	listw_set_rows(&kv->list, (long)kv->n_shown);
}

void console_kmsg_show(struct console *c, long line)
{
	struct view *v = &c->views[VIEW_KMSG];
	struct kmsg_view *kv = v->state;
	const struct node *n = c->node;
	if (line < 0)
		for (size_t i = 0; n && i < n->n_kmsg && line < 0; i++)
			if (n->kmsg[i].error)
				line = (long)i;
	if (line >= 0 && kv->list.filter[0]) { /* the line must be shown */
		kv->list.filter[0] = '\0';
		refilter(c, kv);
	}
	for (size_t i = 0; line >= 0 && i < kv->n_shown; i++)
		if (kv->shown[i] == (size_t)line)
			listw_select(&kv->list, (long)i);
	kv->placed = true;
	screen_view_switch(c, VIEW_KMSG);
}

static void draw_list(struct console *c, struct kmsg_view *kv, const struct rect *r)
{
	const struct node *n = c->node;
	size_t errors = kmsg_count_errors(n);
	char head[256];
	snprintf(head, sizeof(head),
		 " Kernel log: %zu record%s naming an RDMA driver, %zu error%s (oldest first)",
		 n ? n->n_kmsg : 0, n && n->n_kmsg == 1 ? "" : "s", errors, errors == 1 ? "" : "s");
	screen_put(r->y, 0, r->w, head, screen_attr(c, TR_COLUMN_HEADER));
	if (!kv->n_shown) {
		screen_put(r->y + 1, 1, r->w - 1,
			   n && n->n_kmsg ? "nothing matches the filter (/ to change it)"
					  : "no kernel-log record names an RDMA driver",
			   screen_attr(c, TR_STATUS));
		return;
	}
	listw_fit(&kv->list, r->h - 1);
	for (long i = 0; i < kv->list.page && kv->list.top + i < (long)kv->n_shown; i++) {
		long row = kv->list.top + i;
		const struct kmsg_line *l = &n->kmsg[kv->shown[row]];
		struct text t = {0};
		kmsg_format(&t, l); /* escaped: a log line is anyone's text */
		enum theme_role role = row == kv->list.sel ? TR_SELECTION
				       : l->error	   ? TR_ERROR
							   : TR_NORMAL;
		screen_put(r->y + 1 + (int)i, 0, r->w, t.n ? t.lines[0].s : "",
			   screen_attr(c, role));
		text_clear(&t);
	}
}

/* The selected record whole: its level and its message, wrapped. */
static void draw_record(struct console *c, struct kmsg_view *kv, const struct rect *d)
{
	static const char *const level[] = {"emerg",   "alert",	 "crit", "err",
					    "warning", "notice", "info", "debug"};
	const struct kmsg_line *l = kv->n_shown ? &c->node->kmsg[kv->shown[kv->list.sel]] : NULL;
	char title[128];
	snprintf(title, sizeof(title), " Record %ld of %zu  level %s%s", l ? kv->list.sel + 1 : 0,
		 kv->n_shown, l && l->prio >= 0 && l->prio < 8 ? level[l->prio] : "?",
		 l && l->error ? "  (a failure)" : "");
	screen_put(d->y, 0, d->w, l ? title : " Record", screen_attr(c, TR_DETAILS_TITLE));
	if (!l)
		return;
	struct text t = {0};
	kmsg_format(&t, l);
	const char *s = t.n ? t.lines[0].s : "";
	int w = d->w - 2 > 10 ? d->w - 2 : 10, len = (int)strlen(s);
	for (int y = 1, at = 0; y < d->h && at < len; y++, at += w) {
		char part[1100];
		snprintf(part, sizeof(part), "%.*s", w, s + at);
		screen_put(d->y + y, 1, d->w - 1, part,
			   screen_attr(c, l->error ? TR_ERROR : TR_NORMAL));
	}
	text_clear(&t);
}

static void kmsg_draw(struct console *c, struct view *v)
{
	struct kmsg_view *kv = v->state;
	struct rect r = c->lay.tree;
	if (!c->lay.details.h) {
		draw_list(c, kv, &r);
		return;
	}
	draw_list(c, kv, &r);
	draw_record(c, kv, &c->lay.details);
}

static void kmsg_node_changed(struct console *c, struct view *v)
{
	struct kmsg_view *kv = v->state;
	bool at_end = kv->n_shown && kv->list.sel == (long)kv->n_shown - 1;
	refilter(c, kv);
	if (at_end)
		listw_select(&kv->list, kv->list.n - 1);
}

static void kmsg_filtered(struct console *c, struct view *v)
{
	refilter(c, v->state);
}

static void kmsg_enter(struct console *c, struct view *v)
{
	struct kmsg_view *kv = v->state;
	refilter(c, kv);
	if (!kv->placed) {
		kv->placed = true;
		for (size_t i = 0; c->node && i < kv->n_shown; i++)
			if (c->node->kmsg[kv->shown[i]].error) {
				listw_select(&kv->list, (long)i);
				break;
			}
	}
}

static bool kmsg_action(struct console *c, struct view *v, enum key_action a)
{
	(void)v;
	if (a != KA_BACK)
		return false;
	screen_view_switch(c, VIEW_TREE); /* Esc: back to the tree */
	return true;
}

static void kmsg_free(struct view *v)
{
	struct kmsg_view *kv = v->state;
	if (kv)
		free(kv->shown);
	free(kv);
	v->state = NULL;
}

void view_kmsg_init(struct console *c, struct view *v)
{
	(void)c;
	struct kmsg_view *kv = calloc(1, sizeof(*kv));
	*v = (struct view){.name = "Kernel log",
			   .state = kv,
			   .list = kv ? &kv->list : NULL,
			   .action = kmsg_action,
			   .draw = kmsg_draw,
			   .enter = kmsg_enter,
			   .node_changed = kmsg_node_changed,
			   .filtered = kmsg_filtered,
			   .free = kmsg_free};
}
