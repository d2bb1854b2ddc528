// SPDX-License-Identifier: MIT
/* A plan rendered from its JSON (plan_text.h). */
#include "plan_text.h"

#include <stdio.h>
#include <string.h>

#define SUMMARY_STEPS 10 /* a plan with more steps starts with a summary */
#define KINDS_MAX     8

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

/* A file's content, a line each, under its change (previews only). */
static void file_content(struct text *out, struct json_object *c)
{
	const char *t = text_jstr(c, "content");
	if (!t) {
		text_add(out, TEXT_NORMAL, "    (removed; the journal keeps its content for undo)");
		return;
	}
	for (const char *bol = t; *bol;) {
		const char *eol = strchr(bol, '\n');
		int len = eol ? (int)(eol - bol) : (int)strlen(bol);
		text_add(out, TEXT_NORMAL, "    | %.*s", len, bol);
		bol += len + (eol != NULL);
	}
}

static void changes(struct text *out, struct json_object *a, bool ran)
{
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		struct json_object *c = json_object_array_get_idx(a, i);
		const char *who = text_jstr(c, "bdf") ?: text_jstr(c, "path") ?: "link",
			   *kind = text_jstr(c, "kind") ?: "?";
		const char *before = text_jstr(c, "before") ?: "?",
			   *after = text_jstr(c, "after") ?: "?";
		if (!ran) {
			text_add(out, TEXT_CHANGED, "  change: %s %s: %s -> %s", who, kind, before,
				 after);
			if (!strcmp(kind, "file"))
				file_content(out, c);
			else if (!strcmp(kind, "symlink"))
				text_add(out, TEXT_NORMAL, "    -> %s",
					 text_jstr(c, "content") ?: "(removed)");
		} else if (text_jstr(c, "verify_error") || !text_jbool(c, "verified"))
			text_add(out, TEXT_ERROR, "  NOT verified: %s %s should be %s: %s", who,
				 kind, after, text_jstr(c, "verify_error") ?: "not checked");
		else
			text_add(out, TEXT_OK, "  verified: %s %s is %s (was %s)", who, kind, after,
				 before);
	}
}

void plan_text_hints(struct text *out, struct json_object *plan)
{
	const char *res = text_jstr(plan, "result") ?: "";
	if (strcmp(res, "failed") && strcmp(res, "cancelled") && strcmp(res, "interrupted"))
		return;
	const char *restore = text_jstr(plan, "restore");
	for (const char *l = restore; l && *l;) {
		size_t len = strcspn(l, "\n");
		/* "echo BDF > /sys/bus/pci/drivers/D/bind" */
		if (!strncmp(l, "echo ", 5) && len > 5)
			text_add(out, TEXT_ERROR,
				 "%.*s is left without a driver; to bind it again: %.*s",
				 (int)strcspn(l + 5, " \n"), l + 5, (int)len, l);
		else
			text_add(out, TEXT_ERROR, "to bind it again: %.*s", (int)len, l);
		l += len + (l[len] == '\n');
	}
	struct json_object *steps = text_jarr(plan, "steps");
	size_t ran = 0;
	for (size_t i = 0; steps && i < json_object_array_length(steps); i++)
		ran += !strcmp(text_jstr(json_object_array_get_idx(steps, i), "status") ?: "",
			       "ok");
	long long id = json_object_object_get_ex(plan, "journal_id", NULL)
			       ? (long long)text_jint(plan, "journal_id")
			       : (long long)text_jint(plan, "id");
	if (!ran || id <= 0)
		return;
	if (text_jbool(plan, "undoable"))
		text_add(out, TEXT_ERROR,
			 "'ibvf journal undo %lld' reverts the %zu step%s that ran", id, ran,
			 ran == 1 ? "" : "s");
	else
		text_add(out, TEXT_ERROR,
			 "journal entry %lld records the %zu step%s that ran (no undo for '%s')",
			 id, ran, ran == 1 ? "" : "s", text_jstr(plan, "action") ?: "?");
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
	plan_text_hints(out, plan);
}

static bool seen(struct json_object *a, size_t upto, const char *key, const char *v)
{
	for (size_t j = 0; v && j < upto; j++) {
		const char *w = text_jstr(json_object_array_get_idx(a, j), key);
		if (w && !strcmp(w, v))
			return true;
	}
	return !v;
}

/* For a long plan, first: how many VFs and PFs, what changes, how many steps. */
static void summary(struct text *out, struct json_object *plan)
{
	struct json_object *a = text_jarr(plan, "changes"), *steps = text_jarr(plan, "steps");
	size_t n_steps = steps ? json_object_array_length(steps) : 0;
	size_t n = a ? json_object_array_length(a) : 0, vfs = 0, pfs = 0, n_kinds = 0;
	const char *kinds[KINDS_MAX];
	size_t counts[KINDS_MAX] = {0};
	if (n_steps <= SUMMARY_STEPS)
		return;
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(a, i);
		const char *kind = text_jstr(c, "kind") ?: "?";
		bool vf = json_object_object_get_ex(c, "vf", NULL);
		vfs += vf && !seen(a, i, "bdf", text_jstr(c, "bdf"));
		pfs += vf && !seen(a, i, "pf", text_jstr(c, "pf"));
		size_t k = 0;
		while (k < n_kinds && strcmp(kinds[k], kind))
			k++;
		if (k == n_kinds && n_kinds < KINDS_MAX)
			kinds[n_kinds++] = kind;
		if (k < n_kinds)
			counts[k]++;
	}
	char what[200] = "";
	size_t len = 0;
	for (size_t k = 0; k < n_kinds && len < sizeof(what); k++)
		len += (size_t)snprintf(what + len, sizeof(what) - len, "%s%zu %s", k ? ", " : "",
					counts[k], kinds[k]);
	if (vfs)
		text_add(
			out, TEXT_HEADING,
			"summary: %zu VF%s on %zu PF%s; changes: %s; %zu steps%s", vfs,
			vfs == 1 ? "" : "s", pfs, pfs == 1 ? "" : "s", len ? what : "none", n_steps,
			text_jbool(plan, "destructive") ? "; VF links drop while they rebind" : "");
	else
		text_add(out, TEXT_HEADING, "summary: changes: %s; %zu steps", len ? what : "none",
			 n_steps);
}

void plan_text(struct text *out, struct json_object *plan)
{
	const char *res = text_jstr(plan, "result") ?: "not-run";
	bool ran = strcmp(res, "not-run") && strcmp(res, "nothing-to-do");
	struct json_object *a = text_jarr(plan, "notes");
	text_add(out, TEXT_HEADING, "%s: %s", text_jstr(plan, "action") ?: "?",
		 text_jstr(plan, "summary") ?: "");
	summary(out, plan);
	for (size_t i = 0; a && i < json_object_array_length(a); i++)
		text_add(out, TEXT_WARNING, "  note: %s",
			 json_object_get_string(json_object_array_get_idx(a, i)));
	plan_text_steps(out, text_jarr(plan, "steps"), ran);
	changes(out, text_jarr(plan, "changes"), ran);
	if (ran)
		result(out, plan, res);
}
