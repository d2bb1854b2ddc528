/* SPDX-License-Identifier: MIT */
/* The recorded history as the checks read it: renames, port state changes
 * and GUIDs a boot reset, read from the store into the plain facts of
 * struct check_past (core/checks/checks.h), so no check touches SQLite.
 *
 *   struct checks_opts o = {0};
 *   int64_t since;
 *   if (hist_facts_boot_start(st, boot_id, boot_wall, &since, &e) == 0 &&
 *       hist_facts_read(st, since, &o, &e) == 0)
 *           checks_run(n, &o, &fs);
 *   hist_facts_free(&o);
 */
#pragma once

#include <stdint.h>

#include "core/base/err.h"
#include "core/checks/checks.h"
#include "store.h"

struct sys;

#define HIST_FACTS_MAX 4096 /* facts of each kind kept; beyond, the newest */

/* When the boot with id boot_id began: its `boot` event's time; when the
 * store has none for it (not recorded yet), fallback_us (the node's boot
 * time, hist_boot_wall_us(); 0: all), never an older boot's. */
int hist_facts_boot_start(struct hist_store *st, const char *boot_id, int64_t fallback_us,
			  int64_t *ret_us, struct err *e);

/* Fills ret->past with the facts of the events since since_us (0: all the
 * store holds): renames (sorted by function, then time; each with the
 * event before it that may explain it; not an RDMA device's in a boot's
 * group, which the kernel numbers afresh at every boot), port state changes summed per
 * function, and VF GUIDs that became zero in a boot's group (events that
 * share their group id with a `boot` event). Frees what ret->past held
 * first; leaves the rest of ret. 0 or -errno (said); on failure ret->past
 * is empty. */
int hist_facts_read(struct hist_store *st, int64_t since_us, struct checks_opts *ret,
		    struct err *e);
void hist_facts_free(struct checks_opts *o);

/* What the terminal commands and the console do: the node's store opened
 * read-only, the window (since_us; HIST_FACTS_SINCE_BOOT: the current
 * boot's start) found and the facts read into ret->past. 0 with facts;
 * -ENOENT (unsaid) when the node has no store; another -errno (said) when
 * the store cannot be read: the checks then run without it. */
#define HIST_FACTS_SINCE_BOOT (-1)
int hist_facts_load(struct sys *s, int64_t since_us, struct checks_opts *ret, struct err *e);
