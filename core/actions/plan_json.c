// SPDX-License-Identifier: MIT
/* A plan's JSON form: what --json prints and the journal keeps. */
#include "plan.h"

#include <stdio.h>
#include <string.h>

#include "core/base/guid.h"

static struct json_object *jstr(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static struct json_object *step_json(const struct step *s)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "desc", jstr(s->desc));
	json_object_object_add(o, "command", jstr(s->cmd));
	json_object_object_add(o, "status", json_object_new_string(step_status_name(s->status)));
	json_object_object_add(o, "detail", jstr(s->detail));
	json_object_object_add(o, "error", jstr(s->error));
	return o;
}

static struct json_object *change_json(const struct change *c)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "kind", json_object_new_string(change_kind_name(c->kind)));
	json_object_object_add(o, "bdf", jstr(c->bdf));
	if (c->kind == CHANGE_FILE || c->kind == CHANGE_SYMLINK) {
		json_object_object_add(o, "path", jstr(c->file));
		json_object_object_add(o, "old_content",
				       c->old_content ? json_object_new_string(c->old_content)
						      : NULL);
		json_object_object_add(o, "content",
				       c->new_content ? json_object_new_string(c->new_content)
						      : NULL);
	} else if (c->kind != CHANGE_NUMVFS && c->bdf[0]) {
		json_object_object_add(o, "pf", jstr(c->pf));
		json_object_object_add(o, "vf", json_object_new_int((int)c->vf));
	}
	if (!c->bdf[0] && c->kind != CHANGE_FILE && c->kind != CHANGE_SYMLINK)
		json_object_object_add(o, "ifindex", json_object_new_int(c->ifindex));
	json_object_object_add(o, "before", jstr(c->before));
	json_object_object_add(o, "after", jstr(c->after));
	json_object_object_add(o, "verified", json_object_new_boolean(c->verified));
	json_object_object_add(o, "verify_error", jstr(c->verify));
	return o;
}

struct json_object *plan_to_json(const struct plan *p)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "action", json_object_new_string(p->action));
	json_object_object_add(o, "subject", jstr(p->subject));
	json_object_object_add(o, "summary", jstr(p->summary));
	json_object_object_add(o, "destructive", json_object_new_boolean(p->destructive));
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < p->n_notes; i++)
		json_object_array_add(a, json_object_new_string(p->notes[i]));
	json_object_object_add(o, "notes", a);
	a = json_object_new_array();
	for (size_t i = 0; i < p->n_steps; i++)
		json_object_array_add(a, step_json(&p->steps[i]));
	json_object_object_add(o, "steps", a);
	a = json_object_new_array();
	for (size_t i = 0; i < p->n_changes; i++)
		json_object_array_add(a, change_json(&p->changes[i]));
	json_object_object_add(o, "changes", a);
	json_object_object_add(o, "result", json_object_new_string(plan_result_name(p->result)));
	json_object_object_add(o, "failed_step",
			       p->failed_step >= 0 ? json_object_new_int(p->failed_step + 1)
						   : NULL);
	json_object_object_add(o, "error", jstr(p->error));
	if (p->journal_id)
		json_object_object_add(o, "journal_id", json_object_new_int64(p->journal_id));
	json_object_object_add(o, "journal_error", jstr(p->journal_error));
	if (p->undo_of)
		json_object_object_add(o, "undo_of", json_object_new_int64(p->undo_of));
	if (p->restore[0])
		json_object_object_add(o, "restore", json_object_new_string(p->restore));
	if (p->undoable)
		json_object_object_add(o, "undoable", json_object_new_boolean(true));
	return o;
}

void plan_json_guids(struct json_object *entry)
{
	struct json_object *changes;
	if (!json_object_object_get_ex(entry, "changes", &changes) ||
	    !json_object_is_type(changes, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(changes); i++) {
		struct json_object *c = json_object_array_get_idx(changes, i), *kind;
		if (!json_object_is_type(c, json_type_object) ||
		    !json_object_object_get_ex(c, "kind", &kind) ||
		    !json_object_is_type(kind, json_type_string) ||
		    (strcmp(json_object_get_string(kind), "node_guid") &&
		     strcmp(json_object_get_string(kind), "port_guid")))
			continue;
		static const char *const keys[] = {"before", "after"};
		for (size_t k = 0; k < 2; k++) {
			struct json_object *v;
			char g[GUID_STRLEN];
			if (json_object_object_get_ex(c, keys[k], &v) &&
			    json_object_is_type(v, json_type_string) &&
			    guid_normalise(json_object_get_string(v), g))
				json_object_object_add(c, keys[k], json_object_new_string(g));
		}
	}
}
