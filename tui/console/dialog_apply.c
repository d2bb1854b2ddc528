// SPDX-License-Identifier: MIT
/* The action dialog's apply in a worker thread, as the bench view runs
 * bench_run(): the worker applies the plan on a handle of its own
 * (sys_reopen: a handle is one thread's) and sends each phase and step
 * through a pipe into the console's poll loop, which goes on drawing and
 * following the node. Esc sets the cancel flag action_apply_hooked()
 * checks between steps; the journal entry says what ran. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view_journal.h"
#include "dialog_int.h"

static void send_msg(struct apply_job *j, int phase, size_t step)
{
	struct apply_msg m;
	memset(&m, 0, sizeof(m)); /* no uninitialised padding through the pipe */
	m.phase = phase;
	m.step = step;
	/* The pipe holds thousands of messages; a plan has at most a few hundred steps. */
	if (write(j->wfd, &m, sizeof(m)) < 0)
		return;
}

static void on_progress(void *arg, enum action_phase phase, size_t step)
{
	send_msg(arg, (int)phase, step);
}

static void *worker(void *arg)
{
	struct apply_job *j = arg;
	struct err e = {{0}};
	struct action_hooks h = {.progress = on_progress, .arg = j, .cancel = &j->cancel};
	j->rc = action_apply_hooked(j->sys, j->plan, &j->req, &h, NULL, &e);
	if (j->rc < 0)
		snprintf(j->error, sizeof(j->error), "%s",
			 j->plan->error[0] ? j->plan->error : e.msg);
	send_msg(j, -1, 0);
	return NULL;
}

static void job_close(struct apply_job *j)
{
	close(j->rfd);
	close(j->wfd);
	sys_close(j->sys);
	free(j);
}

int dialog_apply_start(struct console *c, struct dialog *d)
{
	struct err e = {{0}};
	struct apply_job *j = calloc(1, sizeof(*j));
	int fds[2], r = -ENOMEM;
	if (!j || pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
		r = j ? -errno : -ENOMEM;
		snprintf(d->apply_error, sizeof(d->apply_error), "cannot start the apply: %s",
			 strerror(-r));
		free(j);
		d->apply_rc = r;
		return r;
	}
	j->rfd = fds[0];
	j->wfd = fds[1];
	j->plan = d->plan;
	j->req = d->req;
	if ((r = sys_reopen(c->sys, &j->sys, &e)) < 0 ||
	    (r = -pthread_create(&j->th, NULL, worker, j)) < 0) {
		plan_fmt(d->apply_error, sizeof(d->apply_error), "cannot start the apply: %s",
			 e.msg[0] ? e.msg : strerror(-r));
		job_close(j);
		d->apply_rc = r;
		return r;
	}
	d->job = j;
	d->stage = STAGE_RUNNING;
	d->phase = ACTION_PHASE_CHECK;
	d->started = console_now();
	d->cancelling = false;
	c->dirty = true;
	return 0;
}

int dialog_apply_fd(struct view *v)
{
	struct dialog *d = v->state;
	return d && d->job ? d->job->rfd : -1;
}

/* The worker is done: its plan and result become the dialog's. */
static void finish(struct console *c, struct dialog *d)
{
	struct apply_job *j = d->job;
	pthread_join(j->th, NULL);
	d->apply_rc = j->rc;
	snprintf(d->apply_error, sizeof(d->apply_error), "%s", j->error);
	d->job = NULL;
	job_close(j);
	d->stage = STAGE_DONE;
	d->body = (struct listw){.text = true};
	dialog_render_plan(d);
	console_rebuild(c); /* the events would get there too, a moment later */
	console_journal_reload(c);
}

void dialog_apply_ready(struct console *c, struct view *v)
{
	struct dialog *d = v->state;
	struct apply_msg m;
	while (d->job && read(d->job->rfd, &m, sizeof(m)) == (ssize_t)sizeof(m)) {
		if (m.phase < 0) {
			finish(c, d);
			break;
		}
		d->phase = (enum action_phase)m.phase;
		if (d->phase == ACTION_PHASE_WAIT_LOCK)
			d->holder = (long)m.step;
		else
			d->step = m.step < d->plan->n_steps ? m.step : 0;
	}
	c->dirty = true;
}

void dialog_apply_cancel(struct dialog *d)
{
	if (!d->job)
		return;
	atomic_store(&d->job->cancel, true);
	d->cancelling = true;
}

void dialog_apply_free(struct dialog *d)
{
	if (!d || !d->job)
		return;
	atomic_store(&d->job->cancel, true);
	pthread_join(d->job->th, NULL);
	job_close(d->job);
	d->job = NULL;
}
