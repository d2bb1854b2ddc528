// SPDX-License-Identifier: MIT
/* A plan rendered from its JSON (plan_text.h). */
#include "plan_text.h"

#include <string.h>

void plan_text_steps(struct text *out, struct json_object *steps, bool ran)
{
	for (size_t i = 0; steps && i < json_object_array_length(steps); i++) {
		struct json_object *s = json_object_array_get_idx(steps, i);
		const char *st = text_jstr(s, "status") ?: "?";
		bool failed = !strcmp(st, "failed");
		if (ran)
			text_add(out,
				 failed		     ? TEXT_ERROR
				 : !strcmp(st, "ok") ? TEXT_NORMAL
						     : TEXT_WARNING,
				 "  %2zu. %-7s %s", i + 1, st, text_jstr(s, "desc") ?: "");
		else
			text_add(out, TEXT_NORMAL, "  %2zu. %s", i + 1, text_jstr(s, "desc") ?: "");
		text_add(out, TEXT_NORMAL, "      $ %s", text_jstr(s, "command") ?: "");
		if (text_jstr(s, "detail"))
			text_add(out, TEXT_NORMAL, "      %s", text_jstr(s, "detail"));
		if (text_jstr(s, "error"))
			text_add(out, TEXT_ERROR, "      error: %s", text_jstr(s, "error"));
	}
}

static void changes(struct text *out, struct json_object *a, bool ran)
{
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		struct json_object *c = json_object_array_get_idx(a, i);
		const char *who = text_jstr(c, "bdf") ?: "link",
			   *kind = text_jstr(c, "kind") ?: "?";
		const char *before = text_jstr(c, "before") ?: "?",
			   *after = text_jstr(c, "after") ?: "?";
		if (!ran)
			text_add(out, TEXT_CHANGED, "  change: %s %s: %s -> %s", who, kind, before,
				 after);
		else if (text_jstr(c, "verify_error") || !text_jbool(c, "verified"))
			text_add(out, TEXT_ERROR, "  NOT verified: %s %s should be %s: %s", who,
				 kind, after, text_jstr(c, "verify_error") ?: "not checked");
		else
			text_add(out, TEXT_OK, "  verified: %s %s is %s (was %s)", who, kind, after,
				 before);
	}
}

static void result(struct text *out, struct json_object *plan, const char *res)
{
	bool ok = !strcmp(res, "ok");
	if (json_object_object_get_ex(plan, "journal_id", NULL))
		text_add(out, ok ? TEXT_OK : TEXT_ERROR, "result: %s (journal entry %lld)", res,
			 (long long)text_jint(plan, "journal_id"));
	else
		text_add(out, ok ? TEXT_OK : TEXT_ERROR, "result: %s", res);
	if (text_jstr(plan, "error"))
		text_add(out, TEXT_ERROR, "error: %s", text_jstr(plan, "error"));
	if (text_jstr(plan, "journal_error"))
		text_add(out, TEXT_ERROR, "the journal was not written: %s",
			 text_jstr(plan, "journal_error"));
}

void plan_text(struct text *out, struct json_object *plan)
{
	const char *res = text_jstr(plan, "result") ?: "not-run";
	bool ran = strcmp(res, "not-run") && strcmp(res, "nothing-to-do");
	struct json_object *a = text_jarr(plan, "notes");
	text_add(out, TEXT_HEADING, "%s: %s", text_jstr(plan, "action") ?: "?",
		 text_jstr(plan, "summary") ?: "");
	for (size_t i = 0; a && i < json_object_array_length(a); i++)
		text_add(out, TEXT_WARNING, "  note: %s",
			 json_object_get_string(json_object_array_get_idx(a, i)));
	plan_text_steps(out, text_jarr(plan, "steps"), ran);
	changes(out, text_jarr(plan, "changes"), ran);
	if (ran)
		result(out, plan, res);
}
