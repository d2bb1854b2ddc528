// SPDX-License-Identifier: MIT
/* A journal entry found and type-checked, and the request that undoes it:
 * every field an undo reads is checked for its JSON type first, so an
 * entry edited by hand or damaged on disk is one line, never an abort in
 * json-c. */
#include "journal.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/base/guid.h"
#include "journal_int.h"
#include "core/model/names.h"

/* Each key of keys in o: absent, null or of type t. */
static int check_keys(struct json_object *o, const char *where, const char *const *keys,
		      enum json_type t, long long id, struct err *e)
{
	for (; *keys; keys++) {
		struct json_object *v;
		if (json_object_object_get_ex(o, *keys, &v) && v && !is(v, t))
			return err_setx(e, EINVAL,
					"journal entry %lld is malformed: %s'%s' is %s, not %s", id,
					where, *keys, json_type_to_name(json_object_get_type(v)),
					json_type_to_name(t));
	}
	return 0;
}

/* An array of objects under key k (absent or null is empty). */
static int check_array(struct json_object *ent, const char *k, long long id, struct err *e)
{
	struct json_object *a;
	if (!json_object_object_get_ex(ent, k, &a) || !a)
		return 0;
	if (!is(a, json_type_array))
		return err_setx(e, EINVAL,
				"journal entry %lld is malformed: '%s' is %s, not an array", id, k,
				json_type_to_name(json_object_get_type(a)));
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		if (!is(o, json_type_object))
			return err_setx(e, EINVAL,
					"journal entry %lld is malformed: '%s' item %zu is %s, not "
					"an object",
					id, k, i + 1, json_type_to_name(json_object_get_type(o)));
	}
	return 0;
}

static int entry_check(struct json_object *ent, long long id, struct err *e)
{
	static const char *const top_str[] = {"action", "subject", "summary", "result", "error",
					      "time",	"user",	   "host",    "record", NULL};
	static const char *const top_int[] = {"undo_of", "failed_step", NULL};
	static const char *const change_str[] = {"kind",	 "bdf",	 "pf",	    "before",
						 "after",	 "path", "content", "old_content",
						 "verify_error", NULL};
	static const char *const change_int[] = {"vf", "ifindex", NULL};
	static const char *const step_str[] = {"desc",	 "command", "status",
					       "detail", "error",   NULL};
	int r;
	if ((r = check_keys(ent, "", top_str, json_type_string, id, e)) < 0 ||
	    (r = check_keys(ent, "", top_int, json_type_int, id, e)) < 0 ||
	    (r = check_array(ent, "changes", id, e)) < 0 ||
	    (r = check_array(ent, "steps", id, e)) < 0)
		return r;
	if (!jget_str(ent, "action"))
		return err_setx(e, EINVAL, "journal entry %lld is malformed: it has no 'action'",
				id);
	struct json_object *a;
	if (json_object_object_get_ex(ent, "changes", &a) && a)
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			struct json_object *c = json_object_array_get_idx(a, i);
			if ((r = check_keys(c, "a change's ", change_str, json_type_string, id,
					    e)) < 0 ||
			    (r = check_keys(c, "a change's ", change_int, json_type_int, id, e)) <
				    0)
				return r;
		}
	if (json_object_object_get_ex(ent, "steps", &a) && a)
		for (size_t i = 0; i < json_object_array_length(a); i++)
			if ((r = check_keys(json_object_array_get_idx(a, i), "a step's ", step_str,
					    json_type_string, id, e)) < 0)
				return r;
	return 0;
}

int journal_find(struct json_object *entries, long long id, struct json_object **ret, struct err *e)
{
	struct json_object *ent = NULL;
	for (size_t i = 0; is(entries, json_type_array) && i < json_object_array_length(entries);
	     i++) {
		struct json_object *o = json_object_array_get_idx(entries, i);
		if (jget_int(o, "id") == id)
			ent = o; /* the last of a repeated id, as journals before 0.2 had them */
	}
	if (!ent)
		return err_setx(e, ENOENT, "no journal entry %lld", id);
	int r = entry_check(ent, id, e);
	if (r == 0)
		*ret = ent;
	return r;
}

/* vf create (its PF's count back) or vf state (the VF's policy back): one
 * change, the value before it as the request, through the same planner and
 * guards (a pod's VFs only with --force). */
static int undo_one(struct json_object *changes, long long id, int act, struct action_req *ret,
		    struct err *e)
{
	struct action_req req = {.undo_of = id, .kind = (enum action_kind)act};
	struct json_object *c = json_object_array_get_idx(changes, 0);
	const char *before = jget_str(c, "before"), *bdf = jget_str(c, "bdf");
	if (json_object_array_length(changes) != 1 || !before || !*before || !bdf)
		return err_setx(e, EOPNOTSUPP,
				"cannot undo journal entry %lld: the value before is unknown", id);
	snprintf(req.target, sizeof(req.target), "%s", bdf);
	if (act == ACTION_CREATE) {
		char *end;
		unsigned long v = strtoul(before, &end, 10);
		if (*end || v > 65535)
			return err_setx(e, EINVAL, "journal entry %lld is malformed: VF count '%s'",
					id, before);
		req.count = (unsigned int)v;
	} else if ((req.state = vf_link_state_from_string(before)) < 0) {
		return err_setx(e, EINVAL, "journal entry %lld is malformed: link state '%s'", id,
				before);
	}
	*ret = req;
	return 0;
}

int journal_undo_req(struct json_object *entries, long long id, struct action_req *ret,
		     struct err *e)
{
	struct json_object *ent, *changes = NULL;
	int r = journal_find(entries, id, &ent, e);
	if (r < 0)
		return r;
	for (size_t i = 0; i < json_object_array_length(entries); i++) {
		struct json_object *o = json_object_array_get_idx(entries, i);
		if (jget_int(o, "undo_of") == id && strcmp(jget_str(o, "result") ?: "", "ok") == 0)
			return err_setx(e, EALREADY, "journal entry %lld was undone by entry %lld",
					id, jget_int(o, "id"));
	}
	const char *action = jget_str(ent, "action");
	if (!json_object_object_get_ex(ent, "changes", &changes) || !changes ||
	    json_object_array_length(changes) == 0)
		return err_setx(e, EOPNOTSUPP, "journal entry %lld ('%s') changed nothing to undo",
				id, action);
	struct action_req req = {.undo_of = id};
	int act = action_kind_from_string(action);
	if (act == ACTION_RENAME_ALL) {
		/* The plan reads the names back from this entry (actions_rename_all.c). */
		req.kind = ACTION_RENAME_ALL;
		*ret = req;
		return 0;
	}
	if (act == ACTION_PERSIST || act == ACTION_FILES_UNDO) {
		req.kind = ACTION_FILES_UNDO; /* the plan reads the files from the entry */
		*ret = req;
		return 0;
	}
	if (act == ACTION_ASSIGN_ALL)
		return err_setx(e, EOPNOTSUPP,
				"cannot undo journal entry %lld ('%s'): it gave GUIDs to VFs whose "
				"GUIDs were zero or another's, and ibvf sets neither back; give a "
				"VF another GUID with 'ibvf vf guid VF --node G --port G'",
				id, action);
	if (act == ACTION_CREATE || act == ACTION_STATE)
		return undo_one(changes, id, act, ret, e);
	bool rename = act == ACTION_RENAME || act == ACTION_RENAME_LINK;
	if (!rename && act != ACTION_GUID)
		return err_setx(e, EOPNOTSUPP,
				"cannot undo journal entry %lld: undo covers VF counts, link "
				"states, renames, GUID changes and persist, not '%s'",
				id, action);
	for (size_t i = 0; i < json_object_array_length(changes); i++) {
		struct json_object *c = json_object_array_get_idx(changes, i);
		const char *before = jget_str(c, "before"), *after = jget_str(c, "after");
		const char *bdf = jget_str(c, "bdf");
		int kind = change_kind_parse(jget_str(c, "kind"));
		uint64_t g;
		if (!before || !after)
			return err_setx(
				e, EOPNOTSUPP,
				"cannot undo journal entry %lld: the value before is unknown", id);
		if (kind == CHANGE_NAME) {
			req.kind = bdf ? ACTION_RENAME : ACTION_RENAME_LINK;
			snprintf(req.target, sizeof(req.target), "%s", bdf ? bdf : after);
			snprintf(req.name, sizeof(req.name), "%s", before);
			continue;
		}
		if (kind != CHANGE_NODE_GUID && kind != CHANGE_PORT_GUID)
			return err_setx(e, EINVAL,
					"journal entry %lld is malformed: a change of kind '%s' in "
					"a '%s' entry",
					id, jget_str(c, "kind") ?: "(none)", action);
		if (guid_parse(before, &g) < 0 || g == 0)
			return err_setx(e, EOPNOTSUPP,
					"cannot undo journal entry %lld: the %s was %s before, and "
					"ibvf does not set zero GUIDs",
					id, change_kind_name((enum change_kind)kind), before);
		req.kind = ACTION_GUID;
		snprintf(req.target, sizeof(req.target), "%s", bdf ? bdf : "");
		if (kind == CHANGE_NODE_GUID) {
			req.set_node = true;
			req.node_guid = g;
		} else {
			req.set_port = true;
			req.port_guid = g;
		}
	}
	*ret = req;
	return 0;
}
