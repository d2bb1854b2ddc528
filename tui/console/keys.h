/* SPDX-License-Identifier: MIT */
/* The console's one key-binding table (htop's Action_setBindings): it drives
 * the dispatch, the `?` help screen and the key list in README.md (checked
 * by tests/test_keys.c). Pure data: console_keys.c runs the actions. */
#pragma once

#include <stddef.h>

/* The console's views, in the order of the view bar. */
enum console_view {
	VIEW_TREE,
	VIEW_CHECKS,
	VIEW_BENCH,
	VIEW_JOURNAL,
	VIEW_KMSG,     /* the kernel log's RDMA driver records */
	VIEW_TIMELINE, /* the node's recorded history (core/history) */
	VIEW_TOPO,     /* the GPUs against the HCAs, the pods on them */
	VIEW_N,
};

#define KV(view) (1u << (view))
#define KV_ALL	 0u

enum key_action {
	KA_QUIT,
	KA_UP,
	KA_DOWN,
	KA_PGUP,
	KA_PGDN,
	KA_HOME,
	KA_END,
	KA_TOGGLE, /* a PF: expand or collapse */
	KA_LEFT,   /* collapse; on a VF: its PF */
	KA_RIGHT,  /* expand; into the PF's VFs */
	KA_EXPAND_ALL,
	KA_COLLAPSE_ALL,
	KA_TOGGLE_ALL,
	KA_FILTER,
	KA_COMMAND,
	KA_HELP,
	KA_SNAPSHOT,
	KA_ZOOM,
	KA_BACK, /* Esc */
	KA_NEXT_VIEW,
	KA_VIEW, /* arg: the view */
	KA_REDRAW,
	KA_MOUSE,
	KA_CREATE,
	KA_RENAME,
	KA_GUID,
	KA_ENTRY_STEPS, /* journal: steps or changes */
	KA_ENTRY_UNDO,
	KA_RELOAD,
	KA_FIELD_PREV, /* bench form: the field above */
	KA_FIELD_NEXT,
	KA_VALUE_PREV, /* bench form: the field's previous value */
	KA_VALUE_NEXT,
	KA_RUN,	       /* bench form: run it */
	KA_FINDING,    /* checks: open the finding; opened: go to its subject */
	KA_JUMP,       /* checks: the finding's PF or VF in the tree */
	KA_KMSG,       /* the kernel log (from a finding: at its line) */
	KA_PERSIST,    /* persist's preview: .link files and the boot unit */
	KA_DESTROY,    /* the selected PF's VFs: create 0 */
	KA_LINK_STATE, /* the selected VF's link-state policy */
	KA_FIX,	       /* checks: the finding's remedy through the dialog */
	KA_TIMELINE,   /* the selected function's history; in the timeline: back to its row */
	KA_N,
};

#define KEYS_PER_BINDING 4

struct key_binding {
	unsigned int views; /* KV(VIEW_x) bits where it acts; KV_ALL: every view */
	int keys[KEYS_PER_BINDING];
	enum key_action action;
	int arg;
	const char *label; /* the keys as the help names them; NULL: the line above covers it */
	const char *help;
};

extern const struct key_binding keys_table[];
extern const size_t keys_n;

/* The binding of key in view, or NULL: view-specific bindings first. */
const struct key_binding *keys_find(enum console_view view, int key);

/* The console's `:` commands, each named and described once: the command
 * line (command.c) runs them by this index, completes and lists their
 * names from here, and the help shows their usages. */
enum console_cmd {
	CC_BENCH,
	CC_CREATE,
	CC_DESTROY,
	CC_FILTER,
	CC_GUID,
	CC_HELP,
	CC_JOURNAL,
	CC_PERSIST,
	CC_QUIT,
	CC_RENAME,
	CC_SNAPSHOT,
	CC_STATE,
	CC_THEME,
	CC_TIMELINE,
	CC_N,
};

struct console_cmd_def {
	const char *name;
	const char *usage;
};

extern const struct console_cmd_def console_cmds[CC_N];

/* The command whose name is the len bytes of s, or -1. */
int console_cmd_find(const char *s, size_t len);

/* The help text, one line a row: "LABEL  HELP" for each labelled binding,
 * then the `:` commands. Returns the number of lines (at most max). */
size_t keys_help(char (*ret)[96], size_t max);
