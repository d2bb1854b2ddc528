// SPDX-License-Identifier: MIT
/* Journal entries rendered from their JSON (journal_text.h). */
#include "journal_text.h"

#include <string.h>

#include "plan_text.h"

void journal_text_header(struct text *out, int flags)
{
	if (flags & JOURNAL_TEXT_COMPACT)
		text_add(out, TEXT_HEADING, "%-4s %-8s %-15s %-8s %s", "ID", "UTC", "ACTION",
			 "RESULT", "SUMMARY");
	else
		text_add(out, TEXT_HEADING, "%-4s %-20s %-8s %-16s %-13s %s", "ID", "TIME", "USER",
			 "ACTION", "RESULT", "SUMMARY");
}

void journal_text_row(struct text *out, struct json_object *o, int flags)
{
	const char *id = text_jstr(o, "id") ?: "?", *when = text_jstr(o, "time") ?: "?";
	const char *res = text_jstr(o, "result") ?: "?", *action = text_jstr(o, "action") ?: "?";
	const char *summary = text_jstr(o, "summary") ?: "";
	enum text_role role = strcmp(res, "ok") ? TEXT_ERROR : TEXT_NORMAL;
	/* "2025-11-30T03:28:00Z": the compact row leaves the day to the details */
	if (flags & JOURNAL_TEXT_COMPACT)
		text_add(out, role, "%-4s %-8.8s %-15s %-8s %s", id,
			 strlen(when) >= 19 ? when + 11 : when, action, res, summary);
	else
		text_add(out, role, "%-4s %-20s %-8s %-16s %-13s %s", id, when,
			 text_jstr(o, "user") ?: "?", action, res, summary);
}

void journal_text_entry(struct text *out, struct json_object *o, int flags)
{
	if (flags & JOURNAL_TEXT_SUMMARY)
		text_add(out, TEXT_NORMAL, "%s", text_jstr(o, "summary") ?: "");
	if (flags & JOURNAL_TEXT_STEPS) {
		plan_text_steps(out, text_jarr(o, "steps"), true);
	} else {
		struct json_object *a = text_jarr(o, "changes");
		if (text_jstr(o, "undo_of"))
			text_add(out, TEXT_NORMAL, "undoes entry %s", text_jstr(o, "undo_of"));
		for (size_t i = 0; a && i < json_object_array_length(a); i++) {
			struct json_object *c = json_object_array_get_idx(a, i);
			bool ok = text_jbool(c, "verified");
			text_add(out, ok ? TEXT_NORMAL : TEXT_ERROR, "%s %s: %s -> %s%s",
				 text_jstr(c, "bdf") ?: text_jstr(c, "path") ?: "link", text_jstr(c, "kind") ?: "?",
				 text_jstr(c, "before") ?: "?", text_jstr(c, "after") ?: "?",
				 ok ? "  verified" : "  NOT verified");
		}
	}
	/* A plan stopped part way: how far it went (a killed one has only the
	 * steps that completed marked ok). */
	const char *res = text_jstr(o, "result") ?: "";
	struct json_object *steps = text_jarr(o, "steps");
	if (steps && (!strcmp(res, "cancelled") || !strcmp(res, "interrupted"))) {
		size_t done = 0, n = json_object_array_length(steps);
		for (size_t i = 0; i < n; i++)
			if (strcmp(text_jstr(json_object_array_get_idx(steps, i), "status") ?: "",
				   "not-run"))
				done = i + 1;
		text_add(out, TEXT_ERROR, "interrupted after %zu of %zu steps", done, n);
	}
	if (text_jstr(o, "error"))
		text_add(out, TEXT_ERROR, "error: %s", text_jstr(o, "error"));
	if (!(flags & JOURNAL_TEXT_COMPACT))
		plan_text_hints(out, o);
}

void journal_text(struct text *out, struct json_object *entries)
{
	size_t n = entries ? json_object_array_length(entries) : 0;
	if (!n) {
		text_add(out, TEXT_NORMAL, "the journal is empty");
		return;
	}
	journal_text_header(out, 0);
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(entries, i);
		journal_text_row(out, o, 0);
		size_t from = out->n;
		journal_text_entry(out, o, 0);
		text_indent(out, from, 7);
	}
}
