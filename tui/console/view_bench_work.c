// SPDX-License-Identifier: MIT
/* The bench view's worker thread: the same bench_pair_run() and
 * bench_client_run() as `ibvf bench`, judged by the same bench_judge(), every
 * PF at once as `bench --all-vfs --parallel` (a lane thread per PF). It
 * sends its progress through a pipe; what it finishes (a VF's result) it
 * puts under the job's mutex and wakes the poll loop through the same pipe. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/bench/bench_validate.h"
#include "view_bench_int.h"

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
static void validate_one(struct job *j, struct target *t, const struct bench_config *cfg,
			 struct ctx *x)
{
	struct bench_opts o = {
		.cfg = *cfg, .min_ratio = BENCH_DEFAULT_MIN_RATIO, .state_root = j->root};
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

/* Runs target i with res; its state and result under the job's mutex. */
static void run_target(struct job *j, size_t i, struct bench_result *res)
{
	struct target *t = &j->t[i];
	if (atomic_load(&j->cancel)) {
		set_state(j, t, T_CANCELLED);
		return;
	}
	set_state(j, t, T_RUN);
	struct ctx x = {.job = j, .target = (unsigned int)i};
	struct err e = {{0}};
	struct bench_config cfg = j->cfg;
	memset(res, 0, sizeof(*res));
	/* Every PF at once against a remote peer: PF i meets PORT+i, as
	 * `bench client --all-vfs --parallel` does (`bench server --all-pfs`). */
	if (j->peer == PEER_REMOTE && j->n_lanes > 1)
		cfg.tcp_port = (uint16_t)(cfg.tcp_port + t->pf_index);
	if (j->validate) {
		validate_one(j, t, &cfg, &x);
		return;
	}
	const char *peer = j->peer == PEER_LOOPBACK ? t->t.ibdev : j->peer_ibdev;
	int r = j->peer == PEER_REMOTE
			? bench_client_run(&cfg, j->host, t->t.ibdev, on_progress, &x, res, &e)
			: bench_pair_run(&cfg, peer, t->t.ibdev, on_progress, &x, res, &e);
	struct bench_verdict v = {0};
	struct json_object *o = NULL;
	if (r == 0) {
		bench_judge(res, &t->t, BENCH_DEFAULT_MIN_RATIO, &v);
		o = bench_result_to_json(res, &t->t, &v);
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
		t->state = v.pass							 ? T_PASS
			   : v.same_port && v.judged && v.figure_gbps >= v.expected_gbps ? T_HCA
											 : T_FAIL;
		snprintf(t->why, sizeof(t->why), "%s", v.reason);
	}
	pthread_mutex_unlock(&j->mu);
	send_msg(j, TARGET_WHOLE, 0, 0);
}

/* One PF's targets, one after another. */
struct lane {
	struct job *j;
	unsigned int pf_index;
	pthread_t th;
	bool started; /* th runs it */
	struct bench_result res;
};

static void *lane_main(void *arg)
{
	struct lane *l = arg;
	/* pf_index first: another lane writes its own targets' state (under
	 * the job's mutex); this lane reads only the state of its own. */
	for (size_t i = 0; i < l->j->n; i++)
		if (l->j->t[i].pf_index == l->pf_index && l->j->t[i].state != T_SKIP)
			run_target(l->j, i, &l->res);
	return NULL;
}

/* The run: one lane per PF holding targets, all at once (each PF's port is
 * its own link); a lane that cannot start runs in this thread after. */
void *bv_worker(void *arg)
{
	struct job *j = arg;
	struct lane *lanes = calloc(j->n ? j->n : 1, sizeof(*lanes));
	size_t n = 0;
	for (size_t i = 0; lanes && i < j->n; i++) {
		bool seen = j->t[i].state == T_SKIP;
		for (size_t k = 0; !seen && k < n; k++)
			seen = lanes[k].pf_index == j->t[i].pf_index;
		if (!seen)
			lanes[n++] = (struct lane){.j = j, .pf_index = j->t[i].pf_index};
	}
	j->n_lanes = n;
	if (!lanes) /* out of memory: the old order, on the job's result */
		for (size_t i = 0; i < j->n; i++)
			if (j->t[i].state != T_SKIP)
				run_target(j, i, &j->res);
	for (size_t k = 0; k < n; k++)
		lanes[k].started =
			n > 1 && !pthread_create(&lanes[k].th, NULL, lane_main, &lanes[k]);
	for (size_t k = 0; k < n; k++)
		if (!lanes[k].started)
			lane_main(&lanes[k]);
	for (size_t k = 0; k < n; k++)
		if (lanes[k].started)
			pthread_join(lanes[k].th, NULL);
	free(lanes);
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
	exchange_key_clear(&j->key);
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
