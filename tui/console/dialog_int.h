/* SPDX-License-Identifier: MIT */
/* The action dialog's state, shared by its logic (dialog.c), its drawing
 * (dialog_draw.c) and its apply worker (dialog_apply.c). */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "console_int.h"
#include "core/actions/actions.h"
#include "field.h"
#include "tui/base/text.h"

enum stage {
	STAGE_CLOSED,
	STAGE_EDIT,
	STAGE_PREVIEW,
	STAGE_RUNNING, /* the worker applies; the console goes on */
	STAGE_DONE,
	STAGE_REFUSED, /* a request without fields was refused: any key closes */
	STAGE_NOTE,    /* text only (a finding's manual steps): any key closes */
};

#define FIELDS_MAX 2

/* The apply in its worker thread, with its own handle on the node. */
struct apply_job {
	pthread_t th;
	int rfd, wfd; /* progress, then "done", into the poll loop */
	atomic_bool cancel;
	struct sys *sys;
	struct plan *plan; /* the worker's until it is joined */
	struct action_req req;
	int rc;
	char error[512];
};

/* One progress message through the pipe. */
struct apply_msg {
	int phase; /* enum action_phase, or -1: the worker is done */
	size_t step;
};

struct dialog {
	enum stage stage;
	char title[96];
	struct action_req req; /* kind and target; the fields fill in the rest */
	struct field fields[FIELDS_MAX];
	int n_fields, focus;
	char flash[128];   /* why the last keystroke was refused */
	char refusal[512]; /* why the plan was refused (nothing was done) */
	struct plan *plan;
	struct text lines; /* the plan's preview or result, from plan_text() */
	bool on_cancel;	   /* the preview's focus */
	struct listw body; /* the preview's or result's text */
	int apply_rc;
	char apply_error[512];
	/* STAGE_RUNNING */
	struct apply_job *job;
	enum action_phase phase;
	long holder; /* ACTION_PHASE_WAIT_LOCK: the pid holding the node's lock */
	size_t step;
	double started;
	bool cancelling;
	void *scratch; /* the drawing's lines */
};

void dialog_close(struct console *c);
/* The plan's lines, as `ibvf vf` prints them: rendered from its JSON. */
void dialog_render_plan(struct dialog *d);
void dialog_draw(struct console *c, struct view *v);
/* dialog_apply.c: starts the worker (STAGE_RUNNING), or says why not. */
int dialog_apply_start(struct console *c, struct dialog *d);
int dialog_apply_fd(struct view *v);
void dialog_apply_ready(struct console *c, struct view *v);
/* Stops waiting: the worker ends at the next step boundary. */
void dialog_apply_cancel(struct dialog *d);
/* Cancels and joins a running worker. */
void dialog_apply_free(struct dialog *d);
