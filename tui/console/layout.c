// SPDX-License-Identifier: MIT
#include "layout.h"

#include <string.h>

static struct rect rect_make(int y, int x, int h, int w)
{
	struct rect r = {.y = y, .x = x, .h = h > 0 ? h : 0, .w = w > 0 ? w : 0};
	return r;
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void layout_compute(int cols, int rows, struct layout *ret)
{
	struct layout l;
	memset(&l, 0, sizeof(l));
	l.cols = cols;
	l.rows = rows;
	if (cols < LAYOUT_MIN_COLS || rows < LAYOUT_MIN_ROWS) {
		l.mode = LAYOUT_TOO_SMALL;
		*ret = l;
		return;
	}
	l.status = rect_make(rows - 2, 0, 1, cols);
	l.fkeys = rect_make(rows - 1, 0, 1, cols);
	if (cols < LAYOUT_FULL_COLS || rows < LAYOUT_FULL_ROWS) {
		l.mode = LAYOUT_TREE_ONLY;
		l.header = rect_make(0, 0, 1, cols);
		l.tree = rect_make(1, 0, rows - 3, cols);
		*ret = l;
		return;
	}
	l.mode = LAYOUT_FULL;
	l.header = rect_make(0, 0, 2, cols);
	l.views = rect_make(2, 0, 1, cols);
	int avail = rows - 5; /* header 2, views, status, keys */
	int details = clamp(avail * 2 / 5, 8, 18);
	l.tree = rect_make(3, 0, avail - details, cols);
	l.details = rect_make(3 + l.tree.h, 0, details, cols);
	*ret = l;
}

enum {
	POD_MIN = 5,
	POD_MAX = 40
};

static const int full_w[TC_N] = {
	[TC_NETDEV] = 13, [TC_IBDEV] = 9, [TC_STATE] = 6, [TC_PHYS] = 8,      [TC_RATE] = 19,
	[TC_LINK] = 10,	  [TC_FW] = 10,	  [TC_GUID] = 19, [TC_POD] = POD_MIN,
};

static int cols_width(const struct tree_cols *c)
{
	int w = -1;
	for (int i = 0; i < TC_N; i++)
		if (c->shown[i])
			w += c->w[i] + 1;
	return w;
}

void layout_tree_columns(int width, int device_w, struct tree_cols *ret)
{
	struct tree_cols c;
	memset(&c, 0, sizeof(c));
	for (int i = 0; i < TC_N; i++) {
		c.shown[i] = true;
		c.w[i] = full_w[i];
	}
	c.w[TC_DEVICE] = device_w > 0 ? device_w : 1;

	/* Least useful first: each step makes the line narrower. */
	for (int step = 0; cols_width(&c) > width && step < 11; step++) {
		switch (step) {
		case 0:
			c.compact[TC_RATE] = true;
			c.w[TC_RATE] = 8;
			break;
		case 1:
			c.shown[TC_PHYS] = false;
			break;
		case 2: /* "28.39.1002": where the width allows */
			c.shown[TC_FW] = false;
			break;
		case 3:
			c.compact[TC_LINK] = true;
			c.w[TC_LINK] = 4;
			break;
		case 4:
			c.shown[TC_RATE] = false;
			break;
		case 5:
			c.w[TC_NETDEV] = 9;
			break;
		case 6:
			c.shown[TC_POD] = false;
			break;
		case 7:
			c.shown[TC_IBDEV] = false;
			break;
		case 8:
			c.shown[TC_LINK] = false;
			break;
		case 9:
			c.shown[TC_GUID] = false;
			break;
		case 10:
			c.w[TC_DEVICE] -= cols_width(&c) - width;
			if (c.w[TC_DEVICE] < 1)
				c.w[TC_DEVICE] = 1;
			break;
		}
	}
	/* The pod column takes what is left. */
	if (c.shown[TC_POD]) {
		int extra = width - cols_width(&c);
		if (extra > 0)
			c.w[TC_POD] += extra < POD_MAX - POD_MIN ? extra : POD_MAX - POD_MIN;
	}
	int x = 0;
	for (int i = 0; i < TC_N; i++) {
		if (!c.shown[i])
			continue;
		c.x[i] = x;
		x += c.w[i] + 1;
	}
	*ret = c;
}
