/* SPDX-License-Identifier: MIT */
/* A point in time as a user types it (`timeline --since`, `check
 * --since`): a duration back from now ("90s", "30m", "6h", "2d", "1w"), an
 * RFC 3339 time ("2026-12-04T03:00:00Z", "2026-12-04T03:00:00.5+01:00"), a
 * local date and time ("2026-12-04 03:00[:00]"), or a time of day today
 * ("03:00[:00]", local). */
#pragma once

#include <stdint.h>

/* s into microseconds since the epoch; -EINVAL said in one line naming
 * the option (what: "since"). */
int when_parse(const char *what, const char *s, int64_t now_us, int64_t *ret_us);
