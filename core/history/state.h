/* SPDX-License-Identifier: MIT */
/* The node as the recorder remembers it between changes: per function (by
 * PCI address) the values whose changes are events, flat strings; and the
 * difference of two such states as events (state.c). The state is saved in
 * the store beside the events, so a recorder that starts again, or another
 * writer, records only what changed since. */
#pragma once

#include <stddef.h>

#include <json-c/json.h>

#include "core/model/node.h"
#include "event.h"

enum hist_field {
	HF_DRIVER,
	HF_NETDEV, /* the host netdev ("" while the VF is in a pod's netns) */
	HF_IBDEV,
	HF_NODE_GUID,
	HF_PORT_GUID,
	HF_PORT_STATE,
	HF_PHYS_STATE,
	HF_RATE,
	HF_LINK_LAYER,
	HF_NUMVFS,
	HF_POD, /* namespace/name */
	HF_POD_UID,
	HF_POD_IF, /* its interface in the pod */
	HF__N,
};

struct hist_fn {
	char bdf[16], pf[16];
	int vf; /* -1 for a PF */
	char v[HF__N][HIST_VALUE_MAX];
};

struct hist_state {
	struct hist_fn *fns; /* sorted by bdf */
	size_t n, cap;
};

/* The state of node n (sorted by PCI address). 0 or -ENOMEM. */
int hist_state_from_node(const struct node *n, struct hist_state *ret);
void hist_state_fini(struct hist_state *st);
const struct hist_fn *hist_state_find(const struct hist_state *st, const char *bdf);
/* One function as JSON text (malloc'd), and back (-EINVAL for text that is
 * not a function's state: a damaged row is dropped, its function then
 * reads as new). */
char *hist_fn_to_json(const struct hist_fn *f);
int hist_fn_from_json(const char *bdf, const char *json, struct hist_fn *ret);
int hist_state_add(struct hist_state *st, const struct hist_fn *f);
void hist_state_sort(struct hist_state *st);
/* Whether two functions' states differ. */
int hist_fn_cmp(const struct hist_fn *a, const struct hist_fn *b);

/* The events from old to new (either may be empty), each stamped t_us,
 * boot and group, in the order a reader follows cause to effect: functions
 * and drivers, pods, netns moves, names, GUIDs, ports. fn(arg, ev) gets
 * each; a non-zero return stops (and is returned). */
int hist_state_diff(const struct hist_state *old, const struct hist_state *new, int64_t t_us,
		    const char *boot, int64_t group, int (*fn)(void *arg, struct hist_event *ev),
		    void *arg);
