// SPDX-License-Identifier: MIT
/* The all-VF scheduler (sweep.h): the rails, the lanes that take them, a
 * peer's strikes, cancel and the hooks. */
#include "sweep.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sweep;

struct lane {
	struct sweep *s;
	size_t index;
	pthread_t th;
	bool started; /* th runs it */
};

struct sweep {
	const struct bench_sweep_config *c;
	size_t *slot;	  /* each job's rail as 0..n_rails-1, in order of first job */
	size_t n_rails;	  /* the rails the lanes take: every rail, or one holding all */
	size_t next_rail; /* the next rail no lane has taken */
	struct bench_sweep_strikes *strikes; /* per rail with rail_ports, else one */
	size_t done;
	pthread_mutex_t mu; /* next_rail, strikes, done, the hooks */
	struct timespec t0;
};

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static bool cancelled(const struct sweep *s)
{
	return s->c->cancel && atomic_load(s->c->cancel);
}

/* Each job's rail slot; returns how many rails there are. */
static size_t rail_slots(const struct bench_sweep_job *jobs, size_t n, size_t *slot)
{
	size_t n_rails = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < i && jobs[k].rail != jobs[i].rail)
			k++;
		slot[i] = k < i ? slot[k] : n_rails++;
	}
	return n_rails;
}

size_t bench_sweep_rails(const struct bench_sweep_job *jobs, size_t n)
{
	size_t n_rails = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < i && (jobs[k].skip || jobs[k].rail != jobs[i].rail))
			k++;
		n_rails += !jobs[i].skip && k == i;
	}
	return n_rails;
}

struct progress_ctx {
	struct sweep *s;
	const struct bench_sweep_job *job;
};

static void on_progress(const struct bench_progress *p, void *arg)
{
	struct progress_ctx *x = arg;
	struct sweep *s = x->s;
	pthread_mutex_lock(&s->mu);
	s->c->on_progress(x->job, s->done, s->c->n_jobs, p, s->c->hook_arg);
	pthread_mutex_unlock(&s->mu);
}

static void run_job(struct sweep *s, size_t lane, size_t i)
{
	const struct bench_sweep_config *c = s->c;
	struct bench_sweep_job *j = &c->jobs[i];
	struct bench_sweep_strikes *k = &s->strikes[c->rail_ports ? s->slot[i] : 0];
	j->lane = lane;
	j->status = BENCH_SWEEP_SKIP;
	pthread_mutex_lock(&s->mu);
	bool runs = !j->skip && !(c->strikes && bench_sweep_peer_out(k, j->why, sizeof(j->why)));
	if (runs && c->on_start)
		c->on_start(j, c->hook_arg);
	pthread_mutex_unlock(&s->mu);
	if (runs) {
		struct progress_ctx x = {.s = s, .job = j};
		struct bench_sweep_task task = {
			.job = j,
			.lane = lane,
			.port = (uint16_t)(c->port + (c->rail_ports ? j->rail : 0)),
			.progress = c->on_progress ? on_progress : NULL,
			.progress_arg = &x,
		};
		j->start_s = since(&s->t0);
		j->status = c->run(&task, c->run_arg, &j->row, j->why, sizeof(j->why));
		j->end_s = since(&s->t0);
		j->ran = j->status != BENCH_SWEEP_SKIP;
		/* A run the interruption stopped is not a failure of the VF. */
		if (j->status == BENCH_SWEEP_ERROR && cancelled(s)) {
			j->status = BENCH_SWEEP_SKIP;
			snprintf(j->why, sizeof(j->why), "interrupted");
		}
	}
	pthread_mutex_lock(&s->mu);
	if (j->ran && c->strikes && !cancelled(s))
		j->peer_out = k->n < BENCH_SWEEP_STRIKES &&
			      bench_sweep_strike(k, &j->t, j->status, j->why);
	j->done = true;
	s->done++;
	if (c->on_done)
		c->on_done(j, s->done, c->n_jobs, c->hook_arg);
	pthread_mutex_unlock(&s->mu);
}

/* The next rail no lane has taken, into *ret; false when none is left. */
static bool take_rail(struct sweep *s, size_t *ret)
{
	pthread_mutex_lock(&s->mu);
	bool ok = s->next_rail < s->n_rails;
	if (ok)
		*ret = s->next_rail++;
	pthread_mutex_unlock(&s->mu);
	return ok;
}

static void *lane_main(void *arg)
{
	struct lane *l = arg;
	struct sweep *s = l->s;
	size_t rail;
	while (take_rail(s, &rail))
		for (size_t i = 0; i < s->c->n_jobs; i++) {
			if (cancelled(s))
				return NULL;
			if (!s->c->parallel || s->slot[i] == rail)
				run_job(s, l->index, i);
		}
	return NULL;
}

int bench_sweep_run(const struct bench_sweep_config *c, struct bench_sweep_stats *ret)
{
	struct sweep s = {.c = c};
	size_t n = c->n_jobs;
	struct lane *lanes = NULL;
	s.slot = calloc(n ? n : 1, sizeof(*s.slot));
	if (!s.slot)
		return -ENOMEM;
	size_t n_rails = rail_slots(c->jobs, n, s.slot);
	size_t n_lanes = c->parallel ? n_rails : 1;
	if (c->max_lanes && n_lanes > c->max_lanes)
		n_lanes = c->max_lanes;
	n_lanes = n_lanes ? n_lanes : 1;
	s.n_rails = c->parallel ? n_rails : 1;
	s.strikes = calloc(n_rails ? n_rails : 1, sizeof(*s.strikes));
	lanes = calloc(n_lanes, sizeof(*lanes));
	if (!s.strikes || !lanes) {
		free(s.slot);
		free(s.strikes);
		free(lanes);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct bench_sweep_job *j = &c->jobs[i];
		if (!j->skip)
			j->why[0] = '\0';
		j->status = BENCH_SWEEP_SKIP;
		j->done = j->ran = j->peer_out = false;
		j->lane = 0;
		j->start_s = j->end_s = 0;
		j->row = NULL;
	}
	pthread_mutex_init(&s.mu, NULL);
	clock_gettime(CLOCK_MONOTONIC, &s.t0);
	size_t started = 1;
	for (size_t l = 0; l < n_lanes; l++)
		lanes[l] = (struct lane){.s = &s, .index = l};
	/* Lane 0 is this thread; a lane that cannot start leaves its rails to the others. */
	for (size_t l = 1; l < n_lanes; l++) {
		lanes[l].started = !pthread_create(&lanes[l].th, NULL, lane_main, &lanes[l]);
		started += lanes[l].started;
	}
	lane_main(&lanes[0]);
	for (size_t l = 1; l < n_lanes; l++)
		if (lanes[l].started)
			pthread_join(lanes[l].th, NULL);
	if (ret)
		*ret = (struct bench_sweep_stats){
			.lanes = started, .done = s.done, .wall_s = since(&s.t0)};
	pthread_mutex_destroy(&s.mu);
	free(s.slot);
	free(s.strikes);
	free(lanes);
	return 0;
}

/* --- a peer's strikes -------------------------------------------------------- */

/* Whether why names the VF t itself: its RDMA device or netdev in quotes
 * (how the engine quotes a subject), or its PCI address. */
static bool names_vf(const struct bench_target *t, const char *why)
{
	const char *names[] = {t->ibdev, t->netdev};
	char q[80];
	for (size_t i = 0; i < 2; i++) {
		if (!names[i][0])
			continue;
		snprintf(q, sizeof(q), "'%s'", names[i]);
		if (strstr(why, q))
			return true;
	}
	return t->bdf[0] && strstr(why, t->bdf);
}

bool bench_sweep_strike(struct bench_sweep_strikes *s, const struct bench_target *t,
			enum bench_sweep_status st, const char *why)
{
	if (s->n >= BENCH_SWEEP_STRIKES)
		return true;
	if (st == BENCH_SWEEP_SKIP) /* not run: says nothing of the peer */
		return false;
	if (st != BENCH_SWEEP_ERROR || !why || !why[0] || names_vf(t, why)) {
		s->n = 0;
		s->cause[0] = '\0';
		return false;
	}
	if (s->n && !strcmp(s->cause, why)) {
		s->n++;
	} else {
		s->n = 1;
		snprintf(s->cause, sizeof(s->cause), "%s", why);
	}
	return s->n >= BENCH_SWEEP_STRIKES;
}

bool bench_sweep_peer_out(const struct bench_sweep_strikes *s, char *why, size_t why_size)
{
	if (s->n < BENCH_SWEEP_STRIKES)
		return false;
	snprintf(why, why_size, "not run: the peer failed %d times: %s", BENCH_SWEEP_STRIKES,
		 s->cause);
	return true;
}
