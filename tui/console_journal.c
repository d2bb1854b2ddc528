// SPDX-License-Identifier: MIT
/* The journal view: a list of journal entries in the tree's place and the
 * selected entry's changes or steps in the details' place. */
#include "console_journal.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "console_int.h"
#include "core/journal.h"
#include "dialog.h"
#include "journal_text.h"

struct journal_view {
	struct json_object *entries; /* oldest first, as journal_read gives them */
	size_t n, skipped;
	long sel, top;
	bool steps; /* the details show the steps, not the changes */
	char error[512];
};

static struct journal_view jv;

void console_journal_free(void)
{
	json_object_put(jv.entries);
	memset(&jv, 0, sizeof(jv));
}

void console_journal_reload(struct console *c)
{
	struct err e = {{0}};
	struct json_object *entries = NULL;
	jv.error[0] = '\0';
	if (journal_read(c->sys, &entries, &jv.skipped, &e) < 0) {
		snprintf(jv.error, sizeof(jv.error), "%s", e.msg);
		return;
	}
	json_object_put(jv.entries);
	jv.entries = entries;
	jv.n = json_object_array_length(entries);
	if (jv.sel >= (long)jv.n)
		jv.sel = jv.n ? (long)jv.n - 1 : 0;
	c->dirty = true;
}

/* The row'th entry on screen: newest first. */
static struct json_object *entry(long row)
{
	if (row < 0 || row >= (long)jv.n)
		return NULL;
	return json_object_array_get_idx(jv.entries, jv.n - 1 - (size_t)row);
}

static void undo(struct console *c)
{
	struct json_object *o = entry(jv.sel);
	struct action_req req = {0};
	struct err e = {{0}};
	if (!o)
		return;
	struct json_object *id;
	if (!json_object_object_get_ex(o, "id", &id))
		return;
	long long n = json_object_get_int64(id);
	if (journal_undo_req(jv.entries, n, &req, &e) < 0) {
		console_message(c, TR_ERROR, "%s", e.msg);
		return;
	}
	char title[64];
	snprintf(title, sizeof(title), "Undo journal entry %lld", n);
	dialog_open_req(c, &req, title);
}

bool console_journal_key(struct console *c, int k)
{
	long page = c->lay.tree.h > 2 ? c->lay.tree.h - 1 : 1, to = jv.sel;
	switch (k) {
	case KEY_UP:
	case 'k':
		to--;
		break;
	case KEY_DOWN:
	case 'j':
		to++;
		break;
	case KEY_PPAGE:
		to -= page;
		break;
	case KEY_NPAGE:
		to += page;
		break;
	case KEY_HOME:
	case 'g':
		to = 0;
		break;
	case KEY_END:
	case 'G':
		to = (long)jv.n - 1;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case ' ':
		jv.steps = !jv.steps;
		c->dirty = true;
		return true;
	case 'u':
		undo(c);
		return true;
	case 'r':
		console_journal_reload(c);
		return true;
	default:
		return false;
	}
	jv.sel = to >= (long)jv.n ? (long)jv.n - 1 : to;
	if (jv.sel < 0)
		jv.sel = 0;
	c->dirty = true;
	return true;
}

/* One rendered line at row y of r, in its role's colour unless sel. */
static void put_line(struct console *c, const struct text *t, int y, int x, int w, bool sel)
{
	for (size_t i = 0; i < t->n; i++)
		dialog_put(y + (int)i, x, w, t->lines[i].s,
			   console_attr(c, sel ? TR_SELECTION
					       : text_theme_role(t->lines[i].role, TR_NORMAL)));
}

static void draw_list(struct console *c, const struct rect *t)
{
	struct text head = {0};
	journal_text_header(&head, JOURNAL_TEXT_COMPACT);
	dialog_put(t->y, 0, t->w, head.n ? head.lines[0].s : "", console_attr(c, TR_COLUMN_HEADER));
	text_clear(&head);
	if (jv.error[0] || !jv.n) {
		dialog_put(t->y + 1, 1, t->w - 1,
			   jv.error[0] ? jv.error
				       : "the journal is empty: F6 F7 F8 and : commands add to it",
			   console_attr(c, jv.error[0] ? TR_ERROR : TR_STATUS));
		return;
	}
	long vis = t->h - 1;
	if (jv.sel < jv.top)
		jv.top = jv.sel;
	if (jv.sel >= jv.top + vis)
		jv.top = jv.sel - vis + 1;
	for (long y = 0; y < vis && jv.top + y < (long)jv.n; y++) {
		struct text row = {0};
		journal_text_row(&row, entry(jv.top + y), JOURNAL_TEXT_COMPACT);
		put_line(c, &row, t->y + 1 + (int)y, 0, t->w, jv.top + y == jv.sel);
		text_clear(&row);
	}
}

static void draw_entry(struct console *c, const struct rect *d)
{
	struct json_object *o = entry(jv.sel);
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
		 f[2], jv.steps ? "steps" : "changes", jv.steps ? "changes" : "steps");
	dialog_put(d->y, 0, d->w, body.n ? body.lines[0].s : "", console_attr(c, TR_DETAILS_TITLE));
	text_clear(&body);
	if (!o)
		return;
	journal_text_entry(&body, o, JOURNAL_TEXT_SUMMARY | (jv.steps ? JOURNAL_TEXT_STEPS : 0));
	struct text shown = body;
	shown.n = body.n < (size_t)d->h - 1 ? body.n : (size_t)d->h - 1;
	put_line(c, &shown, d->y + 1, 1, d->w - 1, false);
	text_clear(&body);
}

void console_journal_draw(struct console *c)
{
	if (!jv.entries && !jv.error[0])
		console_journal_reload(c);
	draw_list(c, &c->lay.tree);
	draw_entry(c, &c->lay.details);
}
