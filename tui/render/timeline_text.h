/* SPDX-License-Identifier: MIT */
/* The recorded history as text (core/history/event.h): the one rendering
 * of `ibvf timeline` and the console's Timeline view, from each event's
 * JSON (hist_event_to_json() with its "causes"). journalctl's shape: one
 * line per event, oldest first, a boot's line set apart; under an effect
 * (a rename, a GUID change, a port going down) the events that came just
 * before it on the same function or PF, with the gap in seconds. */
#pragma once

#include <stdint.h>

#include <json-c/json.h>

#include "tui/base/text.h"

enum timeline_flags {
	TIMELINE_UTC = 1,	/* times in UTC (else local) */
	TIMELINE_NO_CAUSES = 2, /* no cause lines */
	TIMELINE_NO_DATE = 4,	/* the time of day only (the console's narrow rows) */
};

/* "rename ib1 -> ib5", "moved into pod ml/trainer-0 as net1": what the
 * event says, in one line (unescaped: text_add escapes). */
void timeline_describe(struct json_object *ev, char *buf, size_t size);
/* One event's lines: its row and its cause lines. */
void timeline_text_event(struct text *out, struct json_object *ev, int flags);
/* The column header. */
void timeline_text_header(struct text *out, int flags);
/* The "time" of an event's JSON as microseconds (0 when unreadable). */
int64_t timeline_time_us(struct json_object *ev);
/* The time as the rows show it: "2026-12-04 03:12:07.412" (local or UTC). */
void timeline_time_format(int64_t t_us, int flags, char *buf, size_t size);
