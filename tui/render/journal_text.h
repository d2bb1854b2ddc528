/* SPDX-License-Identifier: MIT */
/* Journal entries as text, from their JSON lines (core/actions/journal.h): the one
 * rendering of `ibvf journal` and the console's journal view. */
#pragma once

#include <stdbool.h>

#include <json-c/json.h>

#include "tui/base/text.h"

enum journal_text_flags {
	JOURNAL_TEXT_COMPACT = 1, /* rows: the time of day, no user (the console's list) */
	JOURNAL_TEXT_SUMMARY = 2, /* an entry: its summary first */
	JOURNAL_TEXT_STEPS = 4,	  /* an entry: its steps instead of its changes */
};

/* The column header of the rows. */
void journal_text_header(struct text *out, int flags);
/* One entry as a row of the list: id, time, user, action, result, summary. */
void journal_text_row(struct text *out, struct json_object *entry, int flags);
/* One entry's body: what it undoes, its changes (or steps), its error. */
void journal_text_entry(struct text *out, struct json_object *entry, int flags);
/* `ibvf journal`: every entry (oldest first) with its changes under it. */
void journal_text(struct text *out, struct json_object *entries);
