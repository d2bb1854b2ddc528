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

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && v ? json_object_get_string(v) : NULL;
}

static struct json_object *jarr(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_array)
		       ? v
		       : NULL;
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

static void draw_list(struct console *c, const struct rect *t)
{
	int ch = console_attr(c, TR_COLUMN_HEADER), n = console_attr(c, TR_NORMAL);
	char line[400];
	snprintf(line, sizeof(line), "%-4s %-8s %-15s %-8s %s", "ID", "UTC", "ACTION", "RESULT",
		 "SUMMARY");
	dialog_put(t->y, 0, t->w, line, ch);
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
		struct json_object *o = entry(jv.top + y);
		const char *res = jstr(o, "result") ?: "?";
		const char *when = jstr(o, "time") ?: "?";
		/* "2025-11-30T03:28:00Z": the day is in the details */
		snprintf(line, sizeof(line), "%-4s %-8.8s %-15s %-8s %s", jstr(o, "id") ?: "?",
			 strlen(when) >= 19 ? when + 11 : when, jstr(o, "action") ?: "?", res,
			 jstr(o, "summary") ?: "");
		enum theme_role r = strcmp(res, "ok") ? TR_ERROR : TR_NORMAL;
		dialog_put(t->y + 1 + (int)y, 0, t->w, line,
			   jv.top + y == jv.sel ? console_attr(c, TR_SELECTION)
						: console_attr(c, r));
	}
	(void)n;
}

static void draw_entry(struct console *c, const struct rect *d)
{
	struct json_object *o = entry(jv.sel);
	char line[700];
	int y = d->y, a = console_attr(c, TR_NORMAL);
	if (d->h < 2)
		return;
	snprintf(line, sizeof(line), " entry %s by %s at %s: %s  (Enter: %s, u: undo)",
		 o ? jstr(o, "id") ?: "?" : "-", o ? jstr(o, "user") ?: "?" : "-",
		 o ? jstr(o, "time") ?: "?" : "-", jv.steps ? "steps" : "changes",
		 jv.steps ? "changes" : "steps");
	dialog_put(y++, 0, d->w, line, console_attr(c, TR_DETAILS_TITLE));
	if (!o)
		return;
	dialog_put(y++, 1, d->w - 1, jstr(o, "summary") ?: "", a);
	struct json_object *arr = jarr(o, jv.steps ? "steps" : "changes");
	if (!jv.steps && jstr(o, "undo_of") && y < d->y + d->h) {
		snprintf(line, sizeof(line), "undoes entry %s", jstr(o, "undo_of"));
		dialog_put(y++, 1, d->w - 1, line, a);
	}
	for (size_t i = 0; arr && i < json_object_array_length(arr) && y < d->y + d->h; i++) {
		struct json_object *s = json_object_array_get_idx(arr, i);
		if (jv.steps) {
			snprintf(line, sizeof(line), "%2zu. %-7s %s", i + 1,
				 jstr(s, "status") ?: "?", jstr(s, "desc") ?: "");
			dialog_put(y++, 1, d->w - 1, line, a);
			if (y < d->y + d->h) {
				snprintf(line, sizeof(line), "      $ %s",
					 jstr(s, "command") ?: "");
				dialog_put(y++, 1, d->w - 1, line, a);
			}
			if (jstr(s, "error") && y < d->y + d->h) {
				snprintf(line, sizeof(line), "      error: %s", jstr(s, "error"));
				dialog_put(y++, 1, d->w - 1, line, console_attr(c, TR_ERROR));
			}
		} else {
			bool ok = json_object_get_boolean(json_object_object_get(s, "verified"));
			snprintf(line, sizeof(line), "%s %s: %s -> %s%s", jstr(s, "bdf") ?: "link",
				 jstr(s, "kind") ?: "?", jstr(s, "before") ?: "?",
				 jstr(s, "after") ?: "?", ok ? "  verified" : "  NOT verified");
			dialog_put(y++, 1, d->w - 1, line,
				   console_attr(c, ok ? TR_NORMAL : TR_ERROR));
		}
	}
	if (jstr(o, "error") && y < d->y + d->h) {
		snprintf(line, sizeof(line), "error: %s", jstr(o, "error"));
		dialog_put(y++, 1, d->w - 1, line, console_attr(c, TR_ERROR));
	}
}

void console_journal_draw(struct console *c)
{
	if (!jv.entries && !jv.error[0])
		console_journal_reload(c);
	draw_list(c, &c->lay.tree);
	draw_entry(c, &c->lay.details);
}
