/* SPDX-License-Identifier: MIT */
/* The journal of applied plans: /var/lib/ibvf/journal.jsonl under the node's
 * root prefix (mode 0640, in a directory opened link by link, never through
 * a symbolic link), one JSON object per line, appended under an flock:
 *
 *   {"id":3,"time":"2025-11-30T03:28:00Z","user":"root","uid":0,"host":"dgx-h200-07",
 *    "action":"vf rename","subject":"0000:18:00.4","summary":"...","result":"ok",
 *    "steps":[{"desc","command","status","detail","error"}...],
 *    "changes":[{"kind":"name","bdf","pf","vf","before","after","verified"}...], ...}
 *
 * That is plan_to_json() plus id, time, user, uid and host. A plan writes
 * three kinds of records, all with its id:
 *   "record":"started"   before the first step: the whole plan, result
 *                        "interrupted" (what it stays if nothing follows)
 *   "record":"step"      as each step ends: "step" (1-based), "status",
 *                        "detail", "error"
 *   the entry itself     after the verify: the whole plan as it ended (no
 *                        "record" key: the format older journals have)
 * so a plan killed outright is listed as interrupted after the steps that
 * completed, and undoable as far as it went (undo plans are made against the
 * node as it is: a change that never happened is nothing to do).
 *
 * The reader merges records by id; ids come from the records, a new one is
 * the largest seen + 1. A line that is not such a record (a crash
 * mid-append, NULs, garbage) is skipped and its number reported. Undo turns
 * a rename or GUID entry back into a request; a persist entry's file changes
 * carry each file's path, its content before (old_content, absent when it
 * did not exist) and after, and its undo restores them. */
#pragma once

#include <json-c/json.h>

#include "actions.h"
#include "plan.h"

#define JOURNAL_PATH	"/var/lib/ibvf/journal.jsonl"
#define JOURNAL_MAX	(64u << 20) /* bytes read back at most: the newest */
#define JOURNAL_LOCK_MS 5000u	    /* the longest wait for the journal's flock */

/* The "started" record; sets p->journal_id (a new id). */
int journal_begin(struct sys *s, struct plan *p, struct err *e);
/* Step i's "step" record (its status as the apply left it). */
int journal_step(struct sys *s, const struct plan *p, size_t i, struct err *e);
/* The entry as the plan ended, with p->journal_id when journal_begin gave
 * one, else a new id (which it sets). */
int journal_append(struct sys *s, struct plan *p, struct err *e);

#define JOURNAL_DAMAGE_LINES 8

/* The lines the reader skipped: how many, and the first few (1-based). */
struct journal_damage {
	size_t n;
	size_t line[JOURNAL_DAMAGE_LINES];
};

/* Every entry, oldest first, as a JSON array (empty when there is no
 * journal). Damaged lines are skipped and counted in *ret_skipped (may be
 * NULL). */
int journal_read(struct sys *s, struct json_object **ret, size_t *ret_skipped, struct err *e);
/* journal_read() naming the damaged lines (ret_damage may be NULL). */
int journal_read_lines(struct sys *s, struct json_object **ret, struct journal_damage *ret_damage,
		       struct err *e);

/* Entry id of entries (borrowed), its fields type-checked: -ENOENT, or
 * -EINVAL naming the field of the wrong JSON type. */
int journal_find(struct json_object *entries, long long id, struct json_object **ret,
		 struct err *e);

/* The request that undoes entry id of entries (as journal_read gives them):
 * renames (a rename-all too), GUID changes and persist's files (ACTION_FILES_UNDO).
 * -ENOENT, -EINVAL (a malformed entry), -EALREADY (undone already),
 * -EOPNOTSUPP (another action, or a GUID that was zero before). */
int journal_undo_req(struct json_object *entries, long long id, struct action_req *ret,
		     struct err *e);
