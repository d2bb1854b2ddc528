/* SPDX-License-Identifier: MIT */
/* The console's state, shared by console*.c. Only the terminal layer holds
 * mutable state; it lives here, in one struct passed around. */
#pragma once

#include "tui/base/recording.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/checks/checks.h"
#include "core/snapshot/snapshot_diff.h"
#include "keys.h"
#include "layout.h"
#include "listw.h"
#include "tui/base/theme.h"
#include "tui/render/tree.h"

struct exchange_key;

struct cli;
struct sys;

/* A netdev rename seen during this run: "ib7 -> ib3 at 14:02:11". The
 * newest CONSOLE_RENAMES_MAX are kept. */
#define CONSOLE_RENAMES_MAX 256
struct console_rename {
	char bdf[16];
	bool ibdev; /* an RDMA device name (kept to name a function that is gone) */
	char old[SNAP_VALUE_MAX], new[SNAP_VALUE_MAX];
	time_t at;
};

/* A field that changed recently, shown in the `changed` colour until `until`. */
struct highlight {
	char bdf[16];
	enum snap_field field;
	double until;
};

enum console_mode {
	MODE_NORMAL,
	MODE_FILTER,
	MODE_COMMAND,
};

/* The findings of one PCI function (its subject), for its row's mark. */
struct console_mark {
	char bdf[16];
	enum check_severity max;
	size_t first, n; /* into console_checks.by_subject */
};

/* checks_run() over the current snapshot, once per snapshot (never per
 * frame), and the index the tree's marks and the details read. */
struct console_checks {
	struct findings fs;	    /* critical first (checks_run's order) */
	size_t *by_subject;	    /* indices into fs.v, by subject then fs order */
	struct console_mark *marks; /* one per subject, sorted by BDF */
	size_t n_marks;
	size_t counts[3];  /* by enum check_severity */
	size_t pcounts[3]; /* the problems (fs.problems), by severity */
	double cost;	   /* seconds the last run took */
	bool history_said; /* the history store's failure was shown */
};

struct console;

/* A view: a tab of the view bar (tree, checks, bench, journal), a pane
 * (details) or an overlay (the action dialog, help, a question). Its state
 * is its own and lives in the console. Every hook may be NULL; a tab
 * without draw is not built yet (the checks view, until issue 11). */
struct view {
	const char *name;
	void *state;
	struct listw *list; /* moved by the table's list keys and the mouse */
	struct rect at;	    /* a pane inside another view: where it draws */
	/* Keys before the table (a form, a text field); false: not used. */
	bool (*key)(struct console *c, struct view *v, int k);
	/* A table action the view does its own way; false: the console's. */
	bool (*action)(struct console *c, struct view *v, enum key_action a);
	void (*draw)(struct console *c, struct view *v);
	void (*enter)(struct console *c, struct view *v);
	void (*moved)(struct console *c, struct view *v); /* the list's selection moved */
	void (*node_changed)(struct console *c, struct view *v);
	void (*filtered)(struct console *c, struct view *v); /* list->filter changed */
	void (*tick)(struct console *c, struct view *v);     /* shown: once a second */
	int (*fd)(struct view *v); /* a worker's pipe for the poll loop; -1: none */
	void (*fd_ready)(struct console *c, struct view *v);
	void (*free)(struct view *v);
};

#define HIGHLIGHT_SECS 5.0
#define GONE_SECS      60.0
#define MSG_SECS       8.0

struct console {
	struct sys *sys;
	struct node *node;
	struct tree tree;
	struct ghost *ghosts;
	size_t n_ghosts, cap_ghosts;
	char (*collapsed)[16];
	size_t n_collapsed, cap_collapsed;
	struct console_rename *names;
	size_t n_names, cap_names;
	struct highlight *hl;
	size_t n_hl, cap_hl;
	struct console_checks checks; /* the findings of the current snapshot */

	char sel[16];	 /* the selected function's BDF */
	struct listw tl; /* the tree's rows */
	bool zoom;	 /* details take the tree's place */
	enum console_view view;
	struct view views[VIEW_N];
	struct view details; /* the tree's pane (the whole screen with `d`) */
	struct view dialog, help, ask;
	struct view *overlay;	/* on top of the view, taking every key; NULL: none */
	struct view *filtering; /* the view whose filter the / prompt edits */
	bool refuse_notice;	/* an F-key opens the dialog: a refusal is a notice */

	enum console_mode mode;
	char cmd[256];

	char msg[256];
	enum theme_role msg_role;
	double msg_until;

	struct theme theme;
	bool no_color, colors, utf8;
	int ncolors;

	struct layout lay;
	bool dirty, quit;
	double rebuild_due, refresh_due, rebuild_cost, discover_cost;
	/* The bench view's shared key (--key, $IBVF_BENCH_KEY_FILE); NULL: none. */
	struct exchange_key *bench_key;
	/* The history this console records while no recorder runs
	 * (tui/base/recording.h); NULL: not recording. */
	struct hist_recorder *rec;
};

double console_now(void);
/* Rebuilds the rows after the node, ghosts, filter or collapsed set changed,
 * keeping the selection on the same PCI address. */
void console_tree_update(struct console *c);
bool console_is_changed(const struct console *c, const char *bdf, enum snap_field f);
/* Discovers the node again and diffs it against the current snapshot. */
int console_rebuild(struct console *c);
/* The change events read since the last rebuild, for node_refresh(). */
struct console_pending {
	struct sys_event *v;
	size_t n;
	bool lost; /* more than NODE_REFRESH_EVENTS_MAX, or the source lost some */
};

/* Reads every pending event into p; returns whether there was any. */
bool console_pending_read(struct console *c, struct console_pending *p);
/* A new snapshot, diffed against the current one: read again where the
 * events point (all of the node when p is NULL or events were lost). */
int console_update(struct console *c, struct console_pending *p);
/* p, grown (doubled) when n items of size reach *cap; NULL when out of memory. */
void *console_grow(void *p, size_t *cap, size_t n, size_t size);

/* console_keys.c */
void console_key(struct console *c, int k);
/* A key for the view itself (under the overlays and prompts). */
void console_key_view(struct console *c, int k);
/* Tree rows that fit on screen below the header row. */
long console_visible_rows(const struct console *c);
/* The view's list filter changed (typed, restored, `:filter`). */
void console_filter_set(struct console *c, struct view *v, const char *text);

/* console_views.c: every view made, entered, told, freed */
/* -ENOMEM when a view's state could not be made. */
int console_views_init(struct console *c);
void console_views_free(struct console *c);
void console_views_node_changed(struct console *c);
/* Once a second: the view shown looks for news (the timeline's store). */
void console_views_tick(struct console *c);
void view_tree_init(struct console *c, struct view *v);
void view_checks_init(struct console *c, struct view *v);
void view_help_init(struct console *c, struct view *v);
void view_ask_init(struct console *c, struct view *v);
void console_overlay(struct console *c, struct view *v);
/* The view bar: each view's number and name, the Checks tab's count. */
void console_draw_views(struct console *c);
/* A question in the status line: y runs yes(c, arg) (arg is copied),
 * anything else drops it. With yes NULL a notice: Enter or Esc closes it,
 * other keys are swallowed (text typed for a dialog that did not open acts
 * on nothing). */
void console_ask(struct console *c, void (*yes)(struct console *c, const char *arg),
		 const char *arg, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

void console_curses_setup(struct console *c);
/* Erases, draws and refreshes the whole screen. */
void console_redraw(struct console *c);
/* console_bench.c: medians of a full redraw and a rebuild+diff; of the
 * rebuild+diff after each kind of change (simulated node only). */
int console_bench(struct console *c, int runs);
int console_bench_refresh(struct console *c, int runs);

/* console_draw.c */
void console_theme_apply(struct console *c);
void console_draw(struct console *c);

/* console_details.c */
struct dline {
	char label[24];
	char value[128];
	enum theme_role role;
	bool changed;
};
/* The selected function's fields; returns how many (at most max). */
size_t console_details(const struct console *c, struct dline *ret, size_t max, int value_w);
void console_details_title(const struct console *c, char *buf, size_t size);

/* console_cmd.c */
void console_key_prompt(struct console *c, int key);
int console_command(struct console *c, const char *line);
int console_set_theme(struct console *c, const char *name);

/* console_snapshot.c: asks, showing the path, then writes the node's JSON
 * safely (a new 0600 file, never through a link). */
void console_snapshot_ask(struct console *c, const char *file);
int console_snapshot_write(struct console *c, const char *name);

/* console_findings.c: the findings of each snapshot; console_checks.c: view 2 */
/* Runs the checks over c->node with the renames seen so far. */
void console_checks_run(struct console *c);
void console_checks_free(struct console_checks *k);
/* The findings whose subject is bdf, or NULL. */
const struct console_mark *console_mark_find(const struct console *c, const char *bdf);
const struct finding *console_mark_finding(const struct console *c, const struct console_mark *m,
					   size_t i);
/* "!!", "!", "i"; and the theme role of a severity. */
const char *console_severity_mark(enum check_severity s);
enum theme_role console_severity_role(enum check_severity s);
/* The kernel-log line a finding's evidence quotes, or -1. */
long console_finding_kmsg(const struct console *c, const struct finding *f);
struct text;
/* The finding in lines of at most w columns: severity and id, title,
 * subject, evidence, why, remedy (the ibvf command line shell-quoted, or
 * the manual steps). */
void console_finding_text(const struct console *c, struct text *t, const struct finding *f, int w);
/* A problem (findings_group()) in lines of at most w columns: severity and
 * check, title, its findings by check, its subjects, its one remedy. */
void console_problem_text(const struct console *c, struct text *t, const struct problem *p, int w);

/* console_kmsg.c: view 5, the kernel log's RDMA driver records */
void view_kmsg_init(struct console *c, struct view *v);
/* Switches to the kernel log with line (an index of node->kmsg; -1: the
 * first error) selected. */
void console_kmsg_show(struct console *c, long line);

/* view_topo.c: view 7, the GPUs against the HCAs */
void view_topo_init(struct console *c, struct view *v);
/* view_timeline.c: view 6, the recorded history */
void view_timeline_init(struct console *c, struct view *v);
/* The timeline of bdf (a PF: its VFs too; NULL or "": the node's), unfiltered. */
void console_timeline_show(struct console *c, const char *bdf);
/* `:timeline [DEV|all]` */
int console_cmd_timeline(struct console *c, const char *arg);

/* console_keys.c: the tree view with bdf's row selected (its PF expanded,
 * the filter dropped if it hides the row); false when there is no such row. */
bool console_tree_jump(struct console *c, const char *bdf);

/* console_draw.c */
void console_draw_tree(struct console *c);
void view_details_init(struct console *c, struct view *v);
