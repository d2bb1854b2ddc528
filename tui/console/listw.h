/* SPDX-License-Identifier: MIT */
/* The one list widget: the selection and scroll of every list on screen (the
 * tree, the journal, the bench's runs, the dialog's text), moved by the same
 * keys and the mouse, and the filter text a view matches its rows against.
 * Pure: the views draw the rows; the widget says which and where. */
#pragma once

#include <stdbool.h>

enum listw_move {
	LISTW_UP,
	LISTW_DOWN,
	LISTW_PGUP,
	LISTW_PGDN,
	LISTW_HOME,
	LISTW_END,
};

struct listw {
	long n;		  /* rows */
	long sel;	  /* the selected row; 0 when there is none */
	long top;	  /* the first row shown */
	long page;	  /* rows shown at the last listw_fit (at least 1) */
	bool text;	  /* a text to scroll, not rows to pick: moves scroll, no selection */
	bool follow;	  /* text: stays at the end as rows are added (a live log) */
	char filter[128]; /* what rows must contain ("": every row) */
	char filter_saved[128];
};

/* Moves the selection (or the text); returns whether anything changed. */
bool listw_move(struct listw *l, enum listw_move m);
/* Selects row (clamped to the rows). */
void listw_select(struct listw *l, long row);
/* The rows changed to n: keeps the selection inside. */
void listw_set_rows(struct listw *l, long n);
/* The view shows page rows: keeps the selection on screen, top in range. */
void listw_fit(struct listw *l, long page);
/* A click on the y'th row shown (0: the first): the row, selected, or -1. */
long listw_click(struct listw *l, int y);
/* A mouse wheel notch: dir -1 up, 1 down (three rows). */
void listw_wheel(struct listw *l, int dir);
/* Whether the filter lets text through (any case; an empty filter does). */
bool listw_match(const struct listw *l, const char *text);
