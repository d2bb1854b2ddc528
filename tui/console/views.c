// SPDX-License-Identifier: MIT
/* The console's views as objects: made once, entered, told when the node
 * changed, freed. Overlays (help, a question, the action dialog) sit on top
 * of the view and take every key while they are up. */
#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_bench.h"
#include "console_int.h"
#include "view_journal.h"
#include "dialog.h"
#include "screen.h"

static struct view *all(struct console *c, size_t i)
{
	struct view *o[] = {&c->details, &c->dialog, &c->help, &c->ask};
	size_t n = sizeof(o) / sizeof(*o);
	return i < VIEW_N ? &c->views[i] : i < VIEW_N + n ? o[i - VIEW_N] : NULL;
}

int console_views_init(struct console *c)
{
	view_tree_init(c, &c->views[VIEW_TREE]);
	view_details_init(c, &c->details);
	view_checks_init(c, &c->views[VIEW_CHECKS]);
	view_bench_init(c, &c->views[VIEW_BENCH]);
	view_journal_init(c, &c->views[VIEW_JOURNAL]);
	view_kmsg_init(c, &c->views[VIEW_KMSG]);
	view_timeline_init(c, &c->views[VIEW_TIMELINE]);
	view_topo_init(c, &c->views[VIEW_TOPO]);
	view_dialog_init(c, &c->dialog);
	view_help_init(c, &c->help);
	view_ask_init(c, &c->ask);
	struct view *v;
	for (size_t i = 0; (v = all(c, i)); i++)
		if (v->free && !v->state)
			return -ENOMEM;
	return 0;
}

void console_views_free(struct console *c)
{
	struct view *v;
	for (size_t i = 0; (v = all(c, i)); i++)
		if (v->free) {
			v->free(v);
			v->free = NULL;
		}
}

void console_views_node_changed(struct console *c)
{
	struct view *v;
	for (size_t i = 0; (v = all(c, i)); i++)
		if (v->node_changed)
			v->node_changed(c, v);
}

void console_views_tick(struct console *c)
{
	struct view *v = &c->views[c->view];
	if (v->tick)
		v->tick(c, v);
}

void console_overlay(struct console *c, struct view *v)
{
	c->overlay = v;
	if (v && v->enter)
		v->enter(c, v);
	c->dirty = true;
}

/* ---- the view bar ---- */

/* The Checks tab's count of problems: "12!" (warnings or worse) in the
 * worst severity's role, "3" (info only), "ok" (none). */
static void checks_count(const struct console *c, char *buf, size_t size, enum theme_role *ret)
{
	const size_t *k = c->checks.pcounts;
	size_t n = k[CHECK_CRITICAL] + k[CHECK_WARNING] + k[CHECK_INFO];
	enum check_severity worst = k[CHECK_CRITICAL]  ? CHECK_CRITICAL
				    : k[CHECK_WARNING] ? CHECK_WARNING
						       : CHECK_INFO;
	if (!n) {
		snprintf(buf, size, "ok");
		return;
	}
	snprintf(buf, size, "%zu%s", n, worst > CHECK_INFO ? "!" : "");
	*ret = console_severity_role(worst);
}

/* A tab's label: " 6 Timeline ", or " 6 " when short. */
static void tab_label(const struct console *c, int i, bool shortened, char *buf, size_t size)
{
	bool built = c->views[i].draw != NULL;
	if (shortened)
		snprintf(buf, size, " %d ", i + 1);
	else
		snprintf(buf, size, " %d %s%s ", i + 1, c->views[i].name,
			 built ? "" : " (not built)");
}

/* The bar's width: each tab's label and count, a column between tabs. */
static int tabs_width(const struct console *c, const bool *shortened)
{
	int x = 1;
	for (int i = 0; i < VIEW_N; i++) {
		char label[48], count[24] = "";
		enum theme_role cr;
		tab_label(c, i, shortened[i], label, sizeof(label));
		if (i == VIEW_CHECKS)
			checks_count(c, count, sizeof(count), &cr);
		x += (int)strlen(label) + (count[0] ? (int)strlen(count) + 1 : 0) + 1;
	}
	return x;
}

void console_draw_views(struct console *c)
{
	const struct rect *v = &c->lay.views;
	if (!v->h)
		return;
	/* The view's own filter; the tree's under a view without one. */
	const struct view *fv = c->views[c->view].filtered ? &c->views[c->view] : &c->views[0];
	const struct listw *l = fv->list;
	char f[160] = "";
	if (l && l->filter[0] && c->mode != MODE_FILTER)
		snprintf(f, sizeof(f), " filter: %s ", l->filter);
	int fw = (int)strlen(f);
	/* Too narrow for the filter: the inactive tabs, rightmost first, show
	 * their number only. */
	bool shortened[VIEW_N] = {false};
	for (int i = VIEW_N - 1; i >= 0 && fw && tabs_width(c, shortened) + fw >= v->w; i--)
		shortened[i] = i != (int)c->view;
	screen_put(v->y, 0, v->w, "", screen_attr(c, TR_VIEW_INACTIVE));
	int x = 1;
	for (int i = 0; i < VIEW_N && x < v->w; i++) {
		char label[48], count[24] = "";
		bool built = c->views[i].draw != NULL;
		tab_label(c, i, shortened[i], label, sizeof(label));
		enum theme_role r = i == (int)c->view ? TR_VIEW_ACTIVE
				    : built	      ? TR_VIEW_INACTIVE
						      : TR_VIEW_ABSENT;
		enum theme_role cr = r;
		if (i == VIEW_CHECKS)
			checks_count(c, count, sizeof(count), &cr);
		int w = (int)strlen(label), cw = (int)strlen(count);
		if (x + w > v->w)
			w = v->w - x;
		screen_put(v->y, x, w, label, screen_attr(c, r));
		if (cw && x + w + cw + 1 <= v->w) { /* " 2 Checks 12! ": the count in its colour */
			screen_put(v->y, x + w, cw, count, screen_attr(c, cr));
			screen_put(v->y, x + w + cw, 1, " ", screen_attr(c, r));
			w += cw + 1;
		}
		x += w + 1;
	}
	if (fw && fw < v->w - x)
		screen_put(v->y, v->w - fw, fw, f, screen_attr(c, TR_PROMPT));
}

/* ---- a question or a notice in the status line ---- */

struct ask {
	char text[PATH_MAX + 128];
	void (*yes)(struct console *c, const char *arg);
	char arg[PATH_MAX];
	bool flash; /* a key was swallowed: say which keys close it */
};

void console_ask(struct console *c, void (*yes)(struct console *c, const char *arg),
		 const char *arg, const char *fmt, ...)
{
	struct ask *a = c->ask.state;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->text, sizeof(a->text), fmt, ap);
	va_end(ap);
	a->yes = yes;
	snprintf(a->arg, sizeof(a->arg), "%s", arg ? arg : "");
	a->flash = false;
	c->msg[0] = '\0';
	console_overlay(c, &c->ask);
}

static bool ask_key(struct console *c, struct view *v, int k)
{
	struct ask *a = v->state;
	bool enter = k == '\n' || k == '\r' || k == KEY_ENTER;
	if (!a->yes && !enter && k != 27) {
		a->flash = true; /* typed ahead into a dialog that did not open */
		return true;
	}
	c->overlay = NULL;
	if (a->yes && (k == 'y' || k == 'Y'))
		a->yes(c, a->arg);
	else if (a->yes)
		screen_message(c, TR_STATUS, "nothing was written");
	return true;
}

static void ask_draw(struct console *c, struct view *v)
{
	struct ask *a = v->state;
	const struct rect *s = &c->lay.status;
	char line[sizeof(a->text) + 32];
	snprintf(line, sizeof(line), "%s%s", a->text,
		 a->yes	    ? ""
		 : a->flash ? "  (Enter or Esc closes)"
			    : "");
	screen_put(s->y, 0, s->w, line, screen_attr(c, a->yes ? TR_PROMPT : TR_ERROR));
}

static void state_free(struct view *v)
{
	free(v->state);
	v->state = NULL;
}

void view_ask_init(struct console *c, struct view *v)
{
	(void)c;
	*v = (struct view){.name = "question",
			   .state = calloc(1, sizeof(struct ask)),
			   .key = ask_key,
			   .draw = ask_draw,
			   .free = state_free};
}

/* ---- help: the key table's lines, scrolled by the list widget ---- */

#define HELP_LINES 64

struct help {
	char lines[HELP_LINES][96];
	struct listw list;
};

static void help_enter(struct console *c, struct view *v)
{
	(void)c;
	struct help *h = v->state;
	h->list = (struct listw){.text = true};
	listw_set_rows(&h->list, (long)keys_help(h->lines, HELP_LINES));
}

/* List keys scroll; the keys that opened it, q and Esc close it; any other
 * key closes it and acts. */
static bool help_key(struct console *c, struct view *v, int k)
{
	struct help *h = v->state;
	const struct key_binding *b = keys_find(c->view, k);
	if (b && b->action >= KA_UP && b->action <= KA_END) {
		listw_move(&h->list, (enum listw_move)(b->action - KA_UP));
		return true;
	}
	c->overlay = NULL;
	if (!b || (b->action != KA_QUIT && b->action != KA_BACK && b->action != KA_HELP))
		console_key_view(c, k);
	return true;
}

static void help_draw(struct console *c, struct view *v)
{
	struct help *h = v->state;
	int w = 0;
	for (long i = 0; i < h->list.n; i++) {
		int l = (int)strlen(h->lines[i]);
		w = l > w ? l : w;
	}
	int bw = w + 4 < COLS ? w + 4 : COLS;
	int bh = h->list.n + 2 < LINES ? (int)h->list.n + 2 : LINES;
	int y0 = (LINES - bh) / 2, x0 = (COLS - bw) / 2, a = screen_attr(c, TR_HELP);
	listw_fit(&h->list, bh - 2);
	for (int y = 0; y < bh; y++)
		screen_put(y0 + y, x0, bw, "", a);
	screen_put(y0, x0 + 2, bw - 2, "Keys (any key closes)", a | A_BOLD);
	if (h->list.n > h->list.page) {
		char more[80];
		snprintf(more, sizeof(more), " %ld-%ld of %ld ", h->list.top + 1,
			 h->list.top + h->list.page, h->list.n);
		screen_put(y0, x0 + bw - (int)strlen(more) - 1, (int)strlen(more), more, a);
	}
	for (long i = 0; i < h->list.page && h->list.top + i < h->list.n; i++)
		screen_put(y0 + 1 + (int)i, x0 + 2, bw - 4, h->lines[h->list.top + i], a);
}

void view_help_init(struct console *c, struct view *v)
{
	(void)c;
	*v = (struct view){.name = "help",
			   .state = calloc(1, sizeof(struct help)),
			   .key = help_key,
			   .enter = help_enter,
			   .draw = help_draw,
			   .free = state_free};
}
