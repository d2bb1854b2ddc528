// SPDX-License-Identifier: MIT
/* The console's keys and mouse: moving the selection, expanding and
 * collapsing PFs, switching views and modes. Dialogs, the bench view and the
 * prompts get their keys first (console_actions_key, console_benchview_key,
 * console_key_prompt). */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "console_actions.h"
#include "console_benchview.h"
#include "console_int.h"
#include "console_journal.h"

long console_visible_rows(const struct console *c)
{
	long h = c->lay.tree.h - 1;
	return h > 0 ? h : 1;
}

static void select_row(struct console *c, long row)
{
	if (!c->tree.n)
		return;
	if (row < 0)
		row = 0;
	if (row >= (long)c->tree.n)
		row = (long)c->tree.n - 1;
	c->sel_row = row;
	snprintf(c->sel, sizeof(c->sel), "%s", c->tree.rows[row].bdf);
	c->dirty = true;
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

static void key_left_right(struct console *c, bool right)
{
	if (!c->tree.n)
		return;
	const struct tree_row *r = &c->tree.rows[c->sel_row];
	if (r->kind == ROW_VF) {
		if (!right) {
			char pf[16];
			snprintf(pf, sizeof(pf), "%s", r->pf ? r->pf->fn.bdf : r->ghost->pf_bdf);
			select_row(c, tree_find(&c->tree, pf));
		}
		return;
	}
	if (right && !r->collapsed && r->n_children)
		select_row(c, c->sel_row + 1);
	else
		set_collapsed(c, r->bdf, !right);
}

static void key_mouse(struct console *c)
{
	MEVENT ev;
	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & BUTTON4_PRESSED) {
		select_row(c, c->sel_row - 3);
	} else if (ev.bstate & BUTTON5_PRESSED) {
		select_row(c, c->sel_row + 3);
	} else if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)) {
		const struct rect *t = &c->lay.tree;
		if (c->zoom || ev.y <= t->y || ev.y >= t->y + t->h)
			return;
		long row = c->top + (ev.y - t->y - 1);
		if (row >= (long)c->tree.n)
			return;
		if (row == c->sel_row && c->tree.rows[row].kind == ROW_PF && ev.x < 2)
			set_collapsed(c, c->tree.rows[row].bdf, !c->tree.rows[row].collapsed);
		select_row(c, row);
	}
}

static void view_switch(struct console *c, int view)
{
	static const char *const names[VIEW_N] = {"Tree", "Checks", "Bench", "Journal"};
	if (view == VIEW_BENCH) {
		console_benchview_enter(c);
		return;
	}
	if (view == VIEW_TREE || view == VIEW_JOURNAL) {
		if (view == VIEW_JOURNAL)
			console_journal_reload(c);
		c->view = view;
		c->dirty = true;
		return;
	}
	console_message(c, TR_WARNING, "the %s view is not built yet", names[view]);
}

static void key_normal(struct console *c, int k)
{
	const struct tree_row *r = c->tree.n ? &c->tree.rows[c->sel_row] : NULL;
	switch (k) {
	case 'q':
	case KEY_F(10):
		c->quit = true;
		break;
	case KEY_UP:
	case 'k':
		select_row(c, c->sel_row - 1);
		break;
	case KEY_DOWN:
	case 'j':
		select_row(c, c->sel_row + 1);
		break;
	case KEY_PPAGE:
		select_row(c, c->sel_row - console_visible_rows(c));
		break;
	case KEY_NPAGE:
		select_row(c, c->sel_row + console_visible_rows(c));
		break;
	case KEY_HOME:
	case 'g':
		select_row(c, 0);
		break;
	case KEY_END:
	case 'G':
		select_row(c, (long)c->tree.n - 1);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case ' ':
		if (r && r->kind == ROW_PF)
			set_collapsed(c, r->bdf, !r->collapsed);
		break;
	case KEY_LEFT:
	case 'h':
		key_left_right(c, false);
		break;
	case KEY_RIGHT:
	case 'l':
		key_left_right(c, true);
		break;
	case '+':
		set_all_collapsed(c, false);
		break;
	case '-':
		set_all_collapsed(c, true);
		break;
	case KEY_F(5):
		set_all_collapsed(c, c->n_collapsed == 0);
		break;
	case '/':
	case KEY_F(3):
		snprintf(c->filter_saved, sizeof(c->filter_saved), "%s", c->filter);
		c->mode = MODE_FILTER;
		c->dirty = true;
		break;
	case ':':
	case KEY_F(2):
		c->cmd[0] = '\0';
		c->mode = MODE_COMMAND;
		c->dirty = true;
		break;
	case '?':
	case KEY_F(1):
		c->mode = MODE_HELP;
		c->dirty = true;
		break;
	case 's':
	case KEY_F(9):
		console_snapshot(c, NULL);
		break;
	case 'd':
		c->zoom = !c->zoom;
		c->dirty = true;
		break;
	case 27: /* Esc */
		if (c->zoom)
			c->zoom = false;
		c->dirty = true;
		break;
	case '\t':
		view_switch(c, (c->view + 1) % VIEW_N);
		break;
	case '1':
	case '2':
	case '3':
	case '4':
		view_switch(c, k - '1');
		break;
	case 12: /* Ctrl-L */
		clearok(curscr, TRUE);
		c->dirty = true;
		break;
	case KEY_MOUSE:
		key_mouse(c);
		break;
	default:
		break;
	}
}

void console_key(struct console *c, int k)
{
	if (k == KEY_RESIZE) {
		layout_compute(COLS, LINES, &c->lay);
		c->dirty = true;
		return;
	}
	if (console_actions_key(c, k)) /* the action dialog, F6-F8, the journal view */
		return;
	if (c->view == VIEW_BENCH && c->mode == MODE_NORMAL && console_benchview_key(c, k))
		return;
	switch (c->mode) {
	case MODE_HELP:
		c->mode = MODE_NORMAL;
		c->dirty = true;
		if (k == 'q' || k == KEY_F(10) || k == 27 || k == '?' || k == KEY_F(1))
			return;
		key_normal(c, k);
		break;
	case MODE_FILTER:
	case MODE_COMMAND:
		console_key_prompt(c, k);
		break;
	default:
		key_normal(c, k);
		break;
	}
}
