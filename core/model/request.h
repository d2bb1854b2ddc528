/* SPDX-License-Identifier: MIT */
/* What an operator asks ibvf to do, before it is a plan: the vocabulary
 * shared by the checks (a remedy is a request), persistence (the boot unit
 * runs requests) and the actions that plan and apply them
 * (core/actions/actions.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "core/sys/sys.h"

enum action_kind {
	ACTION_CREATE,	    /* set a PF's VF count (through 0); count 0 destroys them */
	ACTION_RENAME,	    /* rename a VF's netdev */
	ACTION_GUID,	    /* set a VF's node and/or port GUID */
	ACTION_ASSIGN_ALL,  /* unique GUIDs for every VF with zero or duplicate GUIDs */
	ACTION_STATE,	    /* a VF's link-state policy */
	ACTION_RENAME_LINK, /* rename any netdev (the rename of a VF without the VF) */
	ACTION_RENAME_ALL,  /* every VF not held by a pod to its policy name (naming.h) */
	ACTION_PERSIST,	    /* .link files and the boot unit (core/actions/plan_persist.c) */
	ACTION_FILES_UNDO,  /* restore the files journal entry undo_of wrote or removed */
	ACTION_KIND_MAX,
};

#define ACTION_TIMEOUT_S 30

struct action_req {
	enum action_kind kind;
	char target[64]; /* PF or VF: BDF (0000:18:00.1 or 18:00.1), netdev or ibdev */
	unsigned int count;
	char name[SYS_IFNAMSIZ];
	bool set_node, set_port;
	uint64_t node_guid, port_guid;
	bool has_prefix;
	uint64_t prefix;	/* the 40-bit prefix, right-aligned */
	int state;		/* IFLA_VF_LINK_STATE_* */
	bool force;		/* act on VFs bound to pods */
	unsigned int timeout_s; /* waits; 0 = ACTION_TIMEOUT_S */
	long long undo_of;	/* set by journal_undo_req */
	char kernel[64];	/* plan for this kernel release; "" = the node's */
	char scheme[64];	/* RENAME_ALL: the naming scheme; "" = the default */
	char path[256];		/* PERSIST: the ibvf the unit runs; "" = this binary */
	char outdir[256];	/* PERSIST: write the files flat here; "" = the node's /etc */
};
