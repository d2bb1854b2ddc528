/* SPDX-License-Identifier: MIT */
/* What changed between two snapshots of the node. Functions are matched by
 * identity (the PF's PCI address and the VF index), never by name, so a VF
 * whose netdev was renamed shows up as one function with a changed name. */
#pragma once

#include <stddef.h>

#include "core/model/node.h"

enum snap_field {
	SNAP_PRESENT, /* the function appeared or vanished */
	SNAP_DRIVER,
	SNAP_NETDEV,
	SNAP_OPERSTATE,
	SNAP_MTU,
	SNAP_ADDRESS,
	SNAP_IBDEV,
	SNAP_FW,
	SNAP_NODE_GUID,
	SNAP_PORT_GUID,
	SNAP_PORT_STATE,
	SNAP_PHYS_STATE,
	SNAP_RATE,
	SNAP_LINK_LAYER,
	SNAP_LID,
	SNAP_SM_LID,
	SNAP_NUMVFS,
	SNAP_ADMIN_MAC,
	SNAP_ADMIN_NODE_GUID,
	SNAP_ADMIN_PORT_GUID,
	SNAP_ADMIN_LINK_STATE,
	SNAP_MOFED_POLICY,
	SNAP_N_FIELDS,
};

#define SNAP_VALUE_MAX 48

struct snap_change {
	char bdf[16];	 /* the function that changed */
	char pf_bdf[16]; /* its PF; equal to bdf for a PF */
	int vf;		 /* VF index, -1 for a PF */
	enum snap_field field;
	/* The values as shown ("" when absent or unknown). For SNAP_PRESENT,
	 * old or new is "present": "" -> "present" is an arrival. */
	char old[SNAP_VALUE_MAX], new[SNAP_VALUE_MAX];
};

struct snap_diff {
	struct snap_change *changes;
	size_t n, cap;
};

/* Fills ret (zero it first) with every change from old to new; either node
 * may be NULL (all present or all gone). Returns 0 or -ENOMEM. */
int snapshot_diff(const struct node *old, const struct node *new, struct snap_diff *ret);
void snapshot_diff_free(struct snap_diff *d);
