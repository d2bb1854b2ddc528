/* SPDX-License-Identifier: MIT */
/* The recorder: turns what changed on the node into events in the store
 * (docs/history.md). Each observation compares the node (its functions,
 * names, GUIDs, ports, pods), the kernel log, ibvf's journal, the bench
 * history and the checks' findings with the state the store last recorded,
 * and writes the differences and the new state in one transaction. The
 * first observation of a boot records the boot and the difference from the
 * last recorded state as one group (a reboot's effect: VFs gone, names
 * changed, GUIDs reset).
 *
 * One writer at a time: a flock on /run/ibvf/history.lock under the node's
 * root. `ibvf record` holds it for its life (hold_lock); the console,
 * `watch` and `check` take it for each observation without waiting, and
 * record nothing while the recorder runs (it records the same changes).
 * When the file cannot be written (read-only directory, full disk, a
 * damaged or foreign file), a recorder with memory_fallback keeps the
 * events in memory, says so once, and tries the file again every
 * HIST_RETRY_SECS, moving the memory's events there when it can. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"
#include "core/checks/checks.h"
#include "core/model/node.h"
#include "store.h"

struct sys;
struct hist_recorder;

#define HIST_LOCK_PATH	"/run/ibvf/history.lock"
#define HIST_RETRY_SECS 60

struct hist_recorder_opts {
	bool hold_lock;	      /* take the writer lock for the recorder's life */
	bool memory_fallback; /* keep recording in memory when the file fails */
	struct hist_limits limits;
	const char *path; /* the store; NULL: hist_store_path() */
};

/* -EBUSY (said, with the holder's pid) when hold_lock and another writer
 * holds the lock. Without memory_fallback a store that cannot be opened is
 * an error; with it, the recorder starts in memory (hist_recorder_note()). */
int hist_recorder_open(struct sys *s, const struct hist_recorder_opts *o,
		       struct hist_recorder **ret, struct err *e);
void hist_recorder_close(struct hist_recorder *r);

/* Records what changed since the last observation (or the last recorded
 * state) with n, and fs (may be NULL: findings are not compared), seen at
 * t_us (0: now). *ret_events (may be NULL) the events written; 0 of them
 * when another writer holds the lock (not an error). With memory_fallback
 * a failing file moves the recorder to memory and the call succeeds. */
int hist_recorder_observe(struct hist_recorder *r, const struct node *n, const struct findings *fs,
			  int64_t t_us, size_t *ret_events, struct err *e);

/* The last thing worth telling about the store (kept in memory, the file
 * back), once: NULL when nothing new. */
const char *hist_recorder_note(struct hist_recorder *r);
bool hist_recorder_in_memory(const struct hist_recorder *r);
/* Makes the next observation of a recorder in memory try the file at once
 * rather than HIST_RETRY_SECS after the last try (the tests' way to a due
 * retry; a no-op for a recorder on its file). */
void hist_recorder_retry_now(struct hist_recorder *r);
struct hist_store *hist_recorder_store(struct hist_recorder *r);
/* Whether another process holds the writer lock: 1, 0, or -errno. */
int hist_writer_running(struct sys *s);

/* The node's boot id ("" when it has none to read) and when it booted,
 * wall clock, for turning kernel-log stamps into times. */
void hist_boot_id(struct sys *s, char buf[static HIST_BOOT_MAX]);
int64_t hist_boot_wall_us(struct sys *s);
int64_t hist_now_us(void);
