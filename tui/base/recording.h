/* SPDX-License-Identifier: MIT */
/* The history the console, `watch` and `check` record as they run
 * (core/history/recorder.h), when `ibvf record` does not: on the node
 * itself as root, or on a simulated node (its user's); never in a tree
 * read with --root, which ibvf does not write. One observation at a time
 * under the writer lock, taken without waiting: while the recorder runs,
 * they record nothing (it records the same changes). */
#pragma once

#include "core/checks/checks.h"
#include "core/history/recorder.h"

struct sys;

/* A recorder for s, or NULL when this run does not record (not root, a
 * --root tree, IBVF_RECORD=0, or a store that cannot be opened: then e
 * says why, once). */
struct hist_recorder *recording_open(struct sys *s, struct err *e);
/* Records n (and fs, may be NULL); 0 or -errno (said in e). */
int recording_observe(struct hist_recorder *r, const struct node *n, const struct findings *fs,
		      struct err *e);
