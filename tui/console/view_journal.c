// SPDX-License-Identifier: MIT
/* The journal view: a list of journal entries in the tree's place and the
 * selected entry's changes or steps in the details' place. */
#include "view_journal.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "console_int.h"
#include "core/actions/journal.h"
#include "dialog.h"
#include "screen.h"
#include "tui/render/journal_text.h"
#include "keys.h"

struct journal_view {
	struct json_object *entries; /* oldest first, as journal_read gives them */
	size_t n, skipped;
	size_t *shown, n_shown; /* the entries the filter lets through, newest first */
	struct listw list;	/* over shown */
	bool steps;		/* the details show the steps, not the changes */
	char error[512];
};

static void journal_free(struct view *v)
{
	struct journal_view *jv = v->state;
	if (jv) {
		json_object_put(jv->entries);
		free(jv->shown);
	}
	free(jv);
	v->state = NULL;
}

/* The entries whose line in the list has the filter's text, newest first. */
static void refilter(struct journal_view *jv)
{
	size_t *shown = realloc(jv->shown, (jv->n ? jv->n : 1) * sizeof(*shown));
	if (!shown)
		return; /* the old list stays */
	jv->shown = shown;
	jv->n_shown = 0;
	for (size_t i = jv->n; i-- > 0;) {
		struct json_object *o = json_object_array_get_idx(jv->entries, i);
		struct text row = {0};
		journal_text_row(&row, o, JOURNAL_TEXT_COMPACT); /* the line shown */
		if (listw_match(&jv->list, row.n ? row.lines[0].s : ""))
			jv->shown[jv->n_shown++] = i;
		text_clear(&row);
	}
	listw_set_rows(&jv->list, (long)jv->n_shown);
}

void console_journal_reload(struct console *c)
{
	struct journal_view *jv = c->views[VIEW_JOURNAL].state;
	struct err e = {{0}};
	struct json_object *entries = NULL;
	jv->error[0] = '\0';
	if (journal_read(c->sys, &entries, &jv->skipped, &e) < 0) {
		snprintf(jv->error, sizeof(jv->error), "%s", e.msg);
		return;
	}
	json_object_put(jv->entries);
	jv->entries = entries;
	jv->n = json_object_array_length(entries);
	refilter(jv);
	c->dirty = true;
}

/* The row'th entry on screen. */
static struct json_object *entry(const struct journal_view *jv, long row)
{
	if (row < 0 || row >= (long)jv->n_shown)
		return NULL;
	return json_object_array_get_idx(jv->entries, jv->shown[row]);
}

static void undo(struct console *c, struct journal_view *jv)
{
	struct json_object *o = entry(jv, jv->list.sel);
	struct action_req req = {0};
	struct err e = {{0}};
	if (!o)
		return;
	struct json_object *id;
	if (!json_object_object_get_ex(o, "id", &id))
		return;
	long long n = json_object_get_int64(id);
	if (journal_undo_req(jv->entries, n, &req, &e) < 0) {
		screen_message(c, TR_ERROR, "%s", e.msg);
		return;
	}
	char title[64];
	snprintf(title, sizeof(title), "Undo journal entry %lld", n);
	dialog_open_req(c, &req, title);
}

static bool journal_action(struct console *c, struct view *v, enum key_action a)
{
	struct journal_view *jv = v->state;
	switch (a) {
	case KA_ENTRY_STEPS:
		jv->steps = !jv->steps;
		return true;
	case KA_ENTRY_UNDO:
		undo(c, jv);
		return true;
	case KA_RELOAD:
		console_journal_reload(c);
		return true;
	default:
		return false;
	}
}

/* One rendered line at row y of r, in its role's colour unless sel. */
static void put_line(struct console *c, const struct text *t, int y, int x, int w, bool sel)
{
	for (size_t i = 0; i < t->n; i++)
		screen_put(y + (int)i, x, w, t->lines[i].s,
			   screen_attr(c, sel ? TR_SELECTION
					      : text_theme_role(t->lines[i].role, TR_NORMAL)));
}

static void draw_list(struct console *c, struct journal_view *jv, const struct rect *t)
{
	struct text head = {0};
	journal_text_header(&head, JOURNAL_TEXT_COMPACT);
	screen_put(t->y, 0, t->w, head.n ? head.lines[0].s : "", screen_attr(c, TR_COLUMN_HEADER));
	text_clear(&head);
	if (jv->error[0] || !jv->n_shown) {
		screen_put(t->y + 1, 1, t->w - 1,
			   jv->error[0] ? jv->error
			   : jv->n	? "nothing matches the filter (/ to change it)"
					: "the journal is empty: F6 F7 F8 and : commands add to it",
			   screen_attr(c, jv->error[0] ? TR_ERROR : TR_STATUS));
		return;
	}
	struct listw *l = &jv->list;
	listw_fit(l, t->h - 1);
	for (long y = 0; y < l->page && l->top + y < (long)jv->n_shown; y++) {
		struct text row = {0};
		journal_text_row(&row, entry(jv, l->top + y), JOURNAL_TEXT_COMPACT);
		put_line(c, &row, t->y + 1 + (int)y, 0, t->w, l->top + y == l->sel);
		text_clear(&row);
	}
}

static void draw_entry(struct console *c, struct journal_view *jv, const struct rect *d)
{
	struct json_object *o = entry(jv, jv->list.sel);
	const char *f[3] = {"id", "user", "time"};
	struct text body = {0};
	if (d->h < 2)
		return;
	for (int i = 0; i < 3; i++) {
		struct json_object *v;
		f[i] = !o					     ? "-"
		       : json_object_object_get_ex(o, f[i], &v) && v ? json_object_get_string(v)
								     : "?";
	}
	/* text_add escapes what the journal file holds */
	text_add(&body, TEXT_HEADING, " entry %s by %s at %s: %s  (Enter: %s, u: undo)", f[0], f[1],
		 f[2], jv->steps ? "steps" : "changes", jv->steps ? "changes" : "steps");
	screen_put(d->y, 0, d->w, body.n ? body.lines[0].s : "", screen_attr(c, TR_DETAILS_TITLE));
	text_clear(&body);
	if (!o)
		return;
	journal_text_entry(&body, o, JOURNAL_TEXT_SUMMARY | (jv->steps ? JOURNAL_TEXT_STEPS : 0));
	struct text shown = body;
	shown.n = body.n < (size_t)d->h - 1 ? body.n : (size_t)d->h - 1;
	put_line(c, &shown, d->y + 1, 1, d->w - 1, false);
	text_clear(&body);
}

static void journal_draw(struct console *c, struct view *v)
{
	struct journal_view *jv = v->state;
	if (!jv->entries && !jv->error[0])
		console_journal_reload(c);
	draw_list(c, jv, &c->lay.tree);
	draw_entry(c, jv, &c->lay.details);
}

static void journal_filtered(struct console *c, struct view *v)
{
	(void)c;
	refilter(v->state);
}

static void journal_enter(struct console *c, struct view *v)
{
	(void)v;
	console_journal_reload(c);
}

void view_journal_init(struct console *c, struct view *v)
{
	(void)c;
	struct journal_view *jv = calloc(1, sizeof(*jv));
	*v = (struct view){.name = "Journal",
			   .state = jv,
			   .list = jv ? &jv->list : NULL,
			   .action = journal_action,
			   .draw = journal_draw,
			   .filtered = journal_filtered,
			   .enter = journal_enter,
			   .free = journal_free};
}
