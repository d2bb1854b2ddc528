// SPDX-License-Identifier: MIT
/* The bench view's worker thread: the same bench_pair_run() and
 * bench_client_run() as `ibvf bench`, judged by the same bench_judge(). It
 * sends its progress through a pipe; what it finishes (a VF's result) it
 * puts under the job's mutex and wakes the poll loop through the same pipe. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "console_benchview_int.h"

#define MIN_RATIO 0.9 /* `ibvf bench`'s default --min-ratio */

struct ctx {
	struct job *job;
	unsigned int target;
};

static void send_msg(struct job *j, unsigned int target, double fraction, double gbps)
{
	struct progress_msg m;
	memset(&m, 0, sizeof(m)); /* no uninitialised padding through the pipe */
	m.target = target;
	m.fraction = fraction;
	m.gbps = gbps;
	/* A full pipe drops a figure; the loop is reading anyway. */
	if (write(j->wfd, &m, sizeof(m)) < 0)
		return;
}

static void on_progress(const struct bench_progress *p, void *arg)
{
	struct ctx *x = arg;
	double frac = p->n_sizes ? ((double)p->size_index + p->fraction) / p->n_sizes : p->fraction;
	send_msg(x->job, x->target, frac, p->gbps);
}

static void set_state(struct job *j, struct target *t, enum tstate s)
{
	pthread_mutex_lock(&j->mu);
	t->state = s;
	pthread_mutex_unlock(&j->mu);
	send_msg(j, TARGET_WHOLE, 0, 0);
}

void *bv_worker(void *arg)
{
	struct job *j = arg;
	for (size_t i = 0; i < j->n; i++) {
		struct target *t = &j->t[i];
		if (t->state == T_SKIP)
			continue;
		if (atomic_load(&j->cancel)) {
			set_state(j, t, T_CANCELLED);
			continue;
		}
		set_state(j, t, T_RUN);
		struct ctx x = {.job = j, .target = (unsigned int)i};
		struct err e = {{0}};
		memset(&j->res, 0, sizeof(j->res));
		const char *peer = j->peer == PEER_LOOPBACK ? t->t.ibdev : j->peer_ibdev;
		int r = j->peer == PEER_REMOTE ? bench_client_run(&j->cfg, j->host, t->t.ibdev,
								  on_progress, &x, &j->res, &e)
					       : bench_pair_run(&j->cfg, peer, t->t.ibdev,
								on_progress, &x, &j->res, &e);
		struct bench_verdict v = {0};
		struct json_object *o = NULL;
		if (r == 0) {
			bench_judge(&j->res, &t->t, MIN_RATIO, &v);
			o = bench_result_to_json(&j->res, &t->t, &v);
		}
		pthread_mutex_lock(&j->mu);
		if (r == -ECANCELED && atomic_load(&j->cancel)) {
			t->state = T_CANCELLED;
		} else if (r < 0) {
			t->state = T_ERROR;
			snprintf(t->why, sizeof(t->why), "%s", e.msg);
		} else {
			t->result = o;
			/* A run through the HCA that met the threshold is not a
			 * failure of the VF, nor a validation of its link. */
			t->state = v.pass ? T_PASS
				   : v.same_port && v.judged && v.figure_gbps >= v.expected_gbps
					   ? T_HCA
					   : T_FAIL;
			snprintf(t->why, sizeof(t->why), "%s", v.reason);
		}
		pthread_mutex_unlock(&j->mu);
		send_msg(j, TARGET_WHOLE, 0, 0);
	}
	pthread_mutex_lock(&j->mu);
	j->finished = true;
	pthread_mutex_unlock(&j->mu);
	send_msg(j, TARGET_WHOLE, 0, 0);
	return NULL;
}

void bv_job_free(struct job *j)
{
	if (!j)
		return;
	atomic_store(&j->cancel, true);
	pthread_join(j->th, NULL);
	close(j->rfd);
	close(j->wfd);
	pthread_mutex_destroy(&j->mu);
	for (size_t i = 0; i < j->n; i++)
		json_object_put(j->t[i].result);
	free(j->t);
	free(j);
}

bool bv_job_running(const struct bench_view *bv)
{
	if (!bv->job)
		return false;
	pthread_mutex_lock(&bv->job->mu);
	bool done = bv->job->finished;
	pthread_mutex_unlock(&bv->job->mu);
	return !done;
}
