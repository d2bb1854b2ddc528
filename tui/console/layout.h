/* SPDX-License-Identifier: MIT */
/* The console's layout as a pure function of the terminal size, so it can be
 * tested over every size without a terminal. */
#pragma once

#include <stdbool.h>

#define LAYOUT_MIN_COLS	 40
#define LAYOUT_MIN_ROWS	 10
#define LAYOUT_FULL_COLS 80
#define LAYOUT_FULL_ROWS 24

struct rect {
	int y, x, h, w; /* h or w 0: not shown */
};

enum layout_mode {
	LAYOUT_TOO_SMALL, /* only a "terminal too small" message */
	LAYOUT_TREE_ONLY, /* one header line, the tree, status and key bar */
	LAYOUT_FULL,	  /* header, view bar, tree, details, status, key bar */
};

struct layout {
	enum layout_mode mode;
	int cols, rows;
	struct rect header; /* 2 lines in full mode, 1 in tree-only */
	struct rect views;  /* the view bar (Tree, Checks, ...) */
	struct rect tree;   /* first line: column headings */
	struct rect details;
	struct rect status; /* messages, the / and : prompts */
	struct rect fkeys;  /* htop-style function-key bar */
};

void layout_compute(int cols, int rows, struct layout *ret);

/* The tree's columns, shared by PF and VF lines. */
enum tcol {
	TC_DEVICE, /* tree glyphs, PF BDF or "vfN BDF" */
	TC_NETDEV,
	TC_IBDEV,
	TC_STATE,
	TC_PHYS,
	TC_RATE,
	TC_LINK,
	TC_FW,	 /* the RDMA device's firmware version */
	TC_GUID, /* port GUID */
	TC_POD,
	TC_N,
};

struct tree_cols {
	bool shown[TC_N];
	bool compact[TC_N]; /* RATE "400 NDR", LINK "IB"/"Eth" */
	int x[TC_N], w[TC_N];
};

/* Fits the columns into width; device_w is the widest DEVICE cell (its
 * first two columns are the row's findings mark). DEVICE, NETDEV and STATE
 * are always shown (narrowed if need be); the others are compacted, then
 * dropped, least useful first: RATE compacted, PHYS, FW, ... */
void layout_tree_columns(int width, int device_w, struct tree_cols *ret);
