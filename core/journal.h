/* SPDX-License-Identifier: MIT */
/* The journal of applied plans: /var/lib/ibvf/journal.jsonl under the node's
 * root prefix, one JSON object per line, appended under an flock:
 *
 *   {"id":3,"time":"2025-11-30T03:28:00Z","user":"root","uid":0,"host":"dgx-h200-07",
 *    "action":"vf rename","subject":"0000:18:00.4","summary":"...","result":"ok",
 *    "steps":[{"desc","command","status","detail","error"}...],
 *    "changes":[{"kind":"name","bdf","pf","vf","before","after","verified"}...], ...}
 *
 * That is plan_to_json() plus id, time, user, uid and host. Undo turns a
 * rename or GUID entry back into a request; a persist entry's file changes
 * carry each file's path, its content before (old_content, absent when it
 * did not exist) and after, and its undo restores them. */
#pragma once

#include <json-c/json.h>

#include "actions.h"
#include "plan.h"

#define JOURNAL_PATH "/var/lib/ibvf/journal.jsonl"
#define JOURNAL_MAX  (64u << 20) /* bytes read back at most */

/* Appends the plan; sets p->journal_id. */
int journal_append(struct sys *s, struct plan *p, struct err *e);

/* Every entry, oldest first, as a JSON array (empty when there is no
 * journal). Lines that do not parse are skipped and counted in
 * *ret_skipped (may be NULL). */
int journal_read(struct sys *s, struct json_object **ret, size_t *ret_skipped, struct err *e);

/* The request that undoes entry id of entries (as journal_read gives them):
 * renames (a rename-all too), GUID changes and persist's files (ACTION_FILES_UNDO).
 * -ENOENT, -EALREADY (undone already), -EOPNOTSUPP (another action, or a GUID
 * that was zero before). */
int journal_undo_req(struct json_object *entries, long long id, struct action_req *ret,
		     struct err *e);
