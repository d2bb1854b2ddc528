// SPDX-License-Identifier: MIT
/* The bench view's worker thread: the run on the all-VF scheduler
 * (bench/sweep.h), every PF at once as `bench --all-vfs --parallel`, each VF
 * by the same bench_pair_run() and bench_client_run() as `ibvf bench`,
 * judged by the same bench_judge(), or by the validation profile's
 * bench_validate_vf(). It sends its progress through a pipe; what it
 * finishes (a VF's result) it puts under the job's mutex and wakes the poll
 * loop through the same pipe. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/sweep.h"
#include "tui/bench/bench_validate.h"
#include "view_bench_int.h"

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

/* The scheduler's hooks: a VF starts, a VF's figures. */
static void on_start(const struct bench_sweep_job *job, void *arg)
{
	struct job *j = arg;
	struct target *t = job->arg;
	pthread_mutex_lock(&j->mu);
	t->state = T_RUN;
	pthread_mutex_unlock(&j->mu);
	send_msg(j, TARGET_WHOLE, 0, 0);
}

static void on_progress(const struct bench_sweep_job *job, size_t done, size_t total,
			const struct bench_progress *p, void *arg)
{
	struct job *j = arg;
	const struct target *t = job->arg;
	double frac = p->n_sizes ? ((double)p->size_index + p->fraction) / p->n_sizes : p->fraction;
	send_msg(j, (unsigned int)(t - j->t), frac, p->gbps);
}

/* The validation profile on t: bench_validate_vf(), as `bench validate`. */
static void validate_one(struct job *j, struct target *t, const struct bench_config *cfg,
			 const struct bench_sweep_task *task)
{
	struct bench_opts o = {
		.cfg = *cfg, .min_ratio = BENCH_DEFAULT_MIN_RATIO, .state_root = j->root};
	struct validate_peer p = {.host = j->peer == PEER_REMOTE ? j->host : NULL,
				  .peer_dev = j->peer == PEER_LOOPBACK ? t->t.ibdev : j->peer_ibdev,
				  .peer_id = j->peer == PEER_REMOTE	? j->host
					     : j->peer == PEER_LOOPBACK ? t->t.bdf
									: j->peer_bdf};
	struct json_object *row = NULL;
	int rc = bench_validate_vf(&o, &t->t, &p, task->progress, task->progress_arg, &row);
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
}

/* One run of the form's test on t; its state and result under the job's mutex. */
static void test_one(struct job *j, struct target *t, const struct bench_config *cfg,
		     const struct bench_sweep_task *task)
{
	struct err e = {{0}};
	struct bench_result *res = calloc(1, sizeof(*res));
	const char *peer = j->peer == PEER_LOOPBACK ? t->t.ibdev : j->peer_ibdev;
	int r = !res ? err_setx(&e, ENOMEM, "out of memory")
		: j->peer == PEER_REMOTE
			? bench_client_run(cfg, j->host, t->t.ibdev, task->progress,
					   task->progress_arg, res, &e)
			: bench_pair_run(cfg, peer, t->t.ibdev, task->progress, task->progress_arg,
					 res, &e);
	struct bench_verdict v = {0};
	struct json_object *o = NULL;
	if (r == 0) {
		bench_judge(res, &t->t, BENCH_DEFAULT_MIN_RATIO, &v);
		o = bench_result_to_json(res, &t->t, &v);
	}
	free(res);
	pthread_mutex_lock(&j->mu);
	if (r == -ECANCELED && atomic_load(&j->cancel)) {
		t->state = T_CANCELLED;
	} else if (r < 0) {
		t->state = T_ERROR;
		snprintf(t->why, sizeof(t->why), "%s", e.msg);
	} else {
		t->result = o;
		/* A run through the HCA that met the threshold is not a
		 * failure of the VF, nor a validation of its link; a figure
		 * over the ceiling (impossible) is a failure wherever it ran. */
		bool hca = v.same_port && v.judged && v.status != BENCH_STATUS_IMPOSSIBLE &&
			   v.figure_gbps >= v.expected_gbps;
		t->state = v.pass ? T_PASS : hca ? T_HCA : T_FAIL;
		snprintf(t->why, sizeof(t->why), "%s", v.reason);
	}
	pthread_mutex_unlock(&j->mu);
}

/* The scheduler's runner: the job's target run, its outcome told the loop. */
static enum bench_sweep_status run_target(const struct bench_sweep_task *task, void *arg,
					  struct json_object **ret_row, char *why, size_t why_size)
{
	struct job *j = arg;
	struct target *t = task->job->arg;
	struct bench_config cfg = j->cfg;
	(void)ret_row; /* the result stays in the target, for the drawing */
	/* Every PF at once against a remote peer: PF i meets PORT+i, as
	 * `bench client --all-vfs --parallel` does (`bench server --all-pfs`). */
	cfg.tcp_port = task->port;
	if (j->validate)
		validate_one(j, t, &cfg, task);
	else
		test_one(j, t, &cfg, task);
	pthread_mutex_lock(&j->mu);
	enum tstate s = t->state;
	snprintf(why, why_size, "%s", t->why);
	pthread_mutex_unlock(&j->mu);
	send_msg(j, TARGET_WHOLE, 0, 0);
	return s == T_PASS		   ? BENCH_SWEEP_PASS
	       : s == T_FAIL || s == T_HCA ? BENCH_SWEEP_FAIL
					   : BENCH_SWEEP_ERROR;
}

/* The run: the targets as the scheduler's jobs, a lane per PF holding them,
 * all at once (each PF's port is its own link). The targets it did not
 * reach are cancelled. */
void *bv_worker(void *arg)
{
	struct job *j = arg;
	struct bench_sweep_job *jobs = calloc(j->n ? j->n : 1, sizeof(*jobs));
	int r = -ENOMEM;
	for (size_t i = 0; jobs && i < j->n; i++) {
		jobs[i].t = j->t[i].t;
		jobs[i].rail = j->t[i].pf_index;
		jobs[i].skip = j->t[i].state == T_SKIP;
		jobs[i].arg = &j->t[i];
	}
	if (jobs) {
		struct bench_sweep_config c = {
			.jobs = jobs,
			.n_jobs = j->n,
			.run = run_target,
			.run_arg = j,
			.parallel = true,
			.port = j->cfg.tcp_port,
			/* One VF (or one PF's) against a remote peer meets it on PORT. */
			.rail_ports = j->peer == PEER_REMOTE && bench_sweep_rails(jobs, j->n) > 1,
			.cancel = &j->cancel,
			.on_start = on_start,
			.on_progress = on_progress,
			.hook_arg = j,
		};
		r = bench_sweep_run(&c, NULL);
	}
	free(jobs);
	pthread_mutex_lock(&j->mu);
	for (size_t i = 0; i < j->n; i++) {
		struct target *t = &j->t[i];
		if (t->state == T_WAIT && r < 0) {
			t->state = T_ERROR;
			snprintf(t->why, sizeof(t->why), "cannot run: %s", strerror(-r));
		} else if (t->state == T_WAIT) {
			t->state = T_CANCELLED;
		}
	}
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
