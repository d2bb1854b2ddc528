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

#include "bench_validate.h"
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

/* The validation profile on t: bench_validate_vf(), as `bench validate`. */
static void validate_one(struct job *j, struct target *t, struct ctx *x)
{
	struct bench_opts o = {.cfg = j->cfg, .min_ratio = MIN_RATIO, .state_root = j->root};
	struct validate_peer p = {.host = j->peer == PEER_REMOTE ? j->host : NULL,
				  .peer_dev = j->peer == PEER_LOOPBACK ? t->t.ibdev : j->peer_ibdev,
				  .peer_id = j->peer == PEER_REMOTE	? j->host
					     : j->peer == PEER_LOOPBACK ? t->t.bdf
									: j->peer_bdf};
	struct json_object *row = NULL;
	int rc = bench_validate_vf(&o, &t->t, &p, on_progress, x, &row);
	const char *why = json_object_get_string(json_object_object_get(row, "why"));
	int drops = json_object_get_int(json_object_object_get(row, "history_drops"));
	pthread_mutex_lock(&j->mu);
	if (atomic_load(&j->cancel) && rc) {
		t->state = T_CANCELLED;
		json_object_put(row);
	} else {
		t->result = row;
		t->state = rc ? T_FAIL : T_PASS;
		t->drop = drops > 0;
		snprintf(t->why, sizeof(t->why), "%s%s%s", drops ? "DROP since the last run" : "",
			 drops && why ? "; " : "",
			 why	 ? why
			 : drops ? ""
				 : "every test at its verdict");
	}
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
		if (j->validate) {
			validate_one(j, t, &x);
			continue;
		}
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
			t->state = v.pass ? T_PASS : T_FAIL;
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
