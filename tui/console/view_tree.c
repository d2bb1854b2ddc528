// SPDX-License-Identifier: MIT
/* The console's keys: an overlay (dialog, help, question) takes every key,
 * then a prompt, then the view's own form keys; the rest go through the key
 * table (tui/console/keys.c) to the actions here. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "console_int.h"
#include "screen.h"

long console_visible_rows(const struct console *c)
{
	long h = c->lay.tree.h - 1;
	return h > 0 ? h : 1;
}

static void tree_selected(struct console *c)
{
	listw_fit(&c->tl, console_visible_rows(c));
	if (c->tree.n)
		snprintf(c->sel, sizeof(c->sel), "%s", c->tree.rows[c->tl.sel].bdf);
	c->dirty = true;
}

static void select_row(struct console *c, long row)
{
	if (!c->tree.n)
		return;
	listw_select(&c->tl, row);
	tree_selected(c);
}

static void set_collapsed(struct console *c, const char *bdf, bool collapse)
{
	for (size_t i = 0; i < c->n_collapsed; i++) {
		if (strcmp(c->collapsed[i], bdf))
			continue;
		if (!collapse)
			memmove(&c->collapsed[i], &c->collapsed[i + 1],
				(--c->n_collapsed - i) * sizeof(c->collapsed[0]));
		console_tree_update(c);
		return;
	}
	if (!collapse)
		return;
	char(*nc)[16] = console_grow(c->collapsed, &c->cap_collapsed, c->n_collapsed, 16);
	if (!nc)
		return;
	c->collapsed = nc;
	snprintf(c->collapsed[c->n_collapsed++], 16, "%s", bdf);
	console_tree_update(c);
}

static void set_all_collapsed(struct console *c, bool collapse)
{
	c->n_collapsed = 0;
	for (size_t i = 0; collapse && c->node && i < c->node->n_pfs; i++)
		set_collapsed(c, c->node->pfs[i].fn.bdf, true);
	console_tree_update(c);
}

bool console_tree_jump(struct console *c, const char *bdf)
{
	const struct pf *pf = NULL;
	if (!c->node || !node_find_fn(c->node, bdf, &pf, NULL)) {
		screen_message(c, TR_WARNING, "%s is no PF or VF of the tree", bdf);
		return false;
	}
	set_collapsed(c, pf->fn.bdf, false);
	if (tree_find(&c->tree, bdf) < 0 && c->tl.filter[0]) {
		c->tl.filter[0] = '\0';
		console_tree_update(c);
	}
	long row = tree_find(&c->tree, bdf);
	if (row < 0)
		return false;
	c->zoom = false;
	screen_view_switch(c, VIEW_TREE);
	select_row(c, row);
	return true;
}

static void key_left_right(struct console *c, bool right)
{
	if (!c->tree.n)
		return;
	const struct tree_row *r = &c->tree.rows[c->tl.sel];
	if (r->kind != ROW_PF) { /* a VF, or a port of its PF: Left goes to the PF */
		if (!right) {
			char pf[16];
			snprintf(pf, sizeof(pf), "%s", r->pf ? r->pf->fn.bdf : r->ghost->pf_bdf);
			select_row(c, tree_find(&c->tree, pf));
		}
		return;
	}
	if (right && !r->collapsed && r->n_children)
		select_row(c, c->tl.sel + 1);
	else
		set_collapsed(c, r->bdf, !right);
}

/* The wheel scrolls the view's list; a click selects in the tree. */
static void key_mouse(struct console *c, struct view *v)
{
	MEVENT ev;
	if (getmouse(&ev) != OK || !v->list)
		return;
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		listw_wheel(v->list, ev.bstate & BUTTON4_PRESSED ? -1 : 1);
	} else if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)) {
		const struct rect *t = &c->lay.tree;
		if (c->zoom || ev.y <= t->y || ev.y >= t->y + t->h)
			return;
		long was = v->list->sel, row = listw_click(v->list, ev.y - t->y - 1);
		if (row < 0)
			return;
		if (v == &c->views[VIEW_TREE] && row == was && c->tree.rows[row].kind == ROW_PF &&
		    ev.x < 5) /* the mark and the expander */
			set_collapsed(c, c->tree.rows[row].bdf, !c->tree.rows[row].collapsed);
	}
	if (v->moved)
		v->moved(c, v);
	c->dirty = true;
}

static bool tree_action(struct console *c, enum key_action a)
{
	const struct tree_row *r = c->tree.n ? &c->tree.rows[c->tl.sel] : NULL;
	switch (a) {
	case KA_TOGGLE:
		if (r && r->kind == ROW_PF)
			set_collapsed(c, r->bdf, !r->collapsed);
		return true;
	case KA_LEFT:
	case KA_RIGHT:
		key_left_right(c, a == KA_RIGHT);
		return true;
	case KA_EXPAND_ALL:
	case KA_COLLAPSE_ALL:
		set_all_collapsed(c, a == KA_COLLAPSE_ALL);
		return true;
	case KA_TOGGLE_ALL:
		set_all_collapsed(c, c->n_collapsed == 0);
		return true;
	case KA_ZOOM:
		c->zoom = !c->zoom;
		return true;
	default:
		return false;
	}
}

void console_filter_set(struct console *c, struct view *v, const char *text)
{
	if (!v->list || !v->filtered)
		return;
	snprintf(v->list->filter, sizeof(v->list->filter), "%s", text);
	v->filtered(c, v);
	c->dirty = true;
}

/* `/`: the prompt edits the filter of the view's list, if it has one. */
static void filter_start(struct console *c, struct view *v)
{
	if (!v->list || !v->filtered)
		return;
	snprintf(v->list->filter_saved, sizeof(v->list->filter_saved), "%s", v->list->filter);
	c->filtering = v;
	c->mode = MODE_FILTER;
}

static void run_action(struct console *c, struct view *v, const struct key_binding *b)
{
	enum key_action a = b->action;
	c->dirty = true;
	if (a >= KA_UP && a <= KA_END) {
		if (v->list && listw_move(v->list, (enum listw_move)(a - KA_UP)) && v->moved)
			v->moved(c, v);
		return;
	}
	if ((v->action && v->action(c, v, a)) || tree_action(c, a))
		return;
	switch (a) {
	case KA_QUIT:
		c->quit = true;
		break;
	case KA_FILTER:
		filter_start(c, v);
		break;
	case KA_COMMAND:
		c->cmd[0] = '\0';
		c->mode = MODE_COMMAND;
		break;
	case KA_HELP:
		console_overlay(c, &c->help);
		break;
	case KA_SNAPSHOT:
		console_snapshot_ask(c, NULL);
		break;
	case KA_BACK:
		c->zoom = false;
		break;
	case KA_NEXT_VIEW:
		screen_view_switch(c, (c->view + 1) % VIEW_N);
		break;
	case KA_VIEW:
		screen_view_switch(c, (enum console_view)b->arg);
		break;
	case KA_REDRAW:
		clearok(curscr, TRUE);
		break;
	case KA_MOUSE:
		key_mouse(c, v);
		break;
	case KA_CREATE:
	case KA_RENAME:
	case KA_GUID:
	case KA_DESTROY:
	case KA_LINK_STATE:
		console_actions_open(c, a);
		break;
	case KA_KMSG:
		console_kmsg_show(c, -1);
		break;
	case KA_TIMELINE:
		console_timeline_show(c, c->sel);
		break;
	case KA_PERSIST:
		console_cmd_persist(c, "");
		break;
	default:
		break;
	}
}

/* A key for the view under any overlay and prompt. */
void console_key_view(struct console *c, int k)
{
	struct view *v = &c->views[c->view];
	if (v->key && v->key(c, v, k))
		return;
	const struct key_binding *b = keys_find(c->view, k);
	if (b)
		run_action(c, v, b);
}

void console_key(struct console *c, int k)
{
	if (k == KEY_RESIZE) {
		layout_compute(COLS, LINES, &c->lay);
		listw_fit(&c->tl, console_visible_rows(c));
		c->dirty = true;
		return;
	}
	if (c->overlay) {
		c->dirty = true;
		c->overlay->key(c, c->overlay, k);
		return;
	}
	if (c->mode == MODE_FILTER || c->mode == MODE_COMMAND) {
		console_key_prompt(c, k);
		return;
	}
	console_key_view(c, k);
}

static void tree_filtered(struct console *c, struct view *v)
{
	(void)v;
	console_tree_update(c);
}

static void tree_moved(struct console *c, struct view *v)
{
	(void)v;
	tree_selected(c);
}

static void tree_draw(struct console *c, struct view *v)
{
	(void)v;
	struct view *d = &c->details;
	d->at = c->lay.details;
	if (c->zoom) {
		d->at = c->lay.tree;
		d->at.h += c->lay.details.h;
	} else {
		console_draw_tree(c);
	}
	d->draw(c, d);
}

void view_tree_init(struct console *c, struct view *v)
{
	*v = (struct view){.name = "Tree",
			   .list = &c->tl,
			   .draw = tree_draw,
			   .moved = tree_moved,
			   .filtered = tree_filtered};
}
