/* SPDX-License-Identifier: MIT */
/* Inside the journal: its path, its file opened safely, the largest id in it. */
#pragma once

#include <limits.h>
#include <stdbool.h>

#include <json-c/json.h>

#include "core/base/err.h"
#include "core/sys/sys.h"

void journal_path(struct sys *s, char buf[static PATH_MAX]);
/* The journal's fd: its directory opened link by link (made, with write),
 * the file O_NOFOLLOW, a regular file, 0640 (with write). Without write, a
 * missing journal is -ENOENT, unsaid. */
int journal_open(struct sys *s, bool write, int *ret_fd, struct err *e);
/* The largest id of the records in the open journal (0: none). */
long long journal_max_id(int fd);

/* Typed reads of a record: NULL / 0 when the key is missing or of another
 * JSON type (a damaged entry is never a json-c abort). */
static inline bool is(struct json_object *o, enum json_type t)
{
	return json_object_is_type(o, t);
}

static inline const char *jget_str(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && is(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

static inline long long jget_int(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && is(v, json_type_int)
		       ? json_object_get_int64(v)
		       : 0;
}
