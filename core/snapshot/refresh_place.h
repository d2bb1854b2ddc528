/* SPDX-License-Identifier: MIT */
/* The incremental rebuild's state (refresh.c) and where change events put
 * it to work (refresh_place.c): which functions of the old snapshot are
 * read again, and how much of each. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/model/node.h"
#include "refresh.h"
#include "core/sys/sys.h"

/* What is read again of an old PF (bits). */
enum touch {
	TOUCH_NONE = 0,
	TOUCH_FN = 1 << 0,    /* the function itself */
	TOUCH_ADMIN = 1 << 1, /* its VFs' admin state: its link, and the VFs it changed */
	TOUCH_VFS = 1 << 2,   /* its VF list and every VF's admin state */
};

/* A function of the old snapshot, found by BDF. */
struct old_fn {
	const char *bdf;
	size_t pf;
	long vf; /* index into pf->vfs, -1 for the PF */
};

struct refresh {
	struct discover d;
	const struct node *old;
	struct old_fn *index;
	size_t n_index;
	unsigned char *pf_touch; /* per old PF, enum touch bits */
	unsigned char *vf_touch; /* per old VF, from vf_base[pf] */
	size_t *vf_base;
	bool full_links; /* take the link dump; else d.links holds the links looked up */
	bool lookups_ok; /* the old snapshot's dump did not fail */
};

/* The old snapshot's functions by BDF, and the touch arrays. */
int refresh_index_build(struct refresh *rf);
/* Marks what the events name; -EXDEV when one cannot be placed (then the
 * whole node is read). */
int refresh_place_events(struct refresh *rf, const struct sys_event *events, size_t n);
