/* SPDX-License-Identifier: MIT */
/* The bench view's state, shared by its logic (console_benchview.c) and its
 * drawing (console_benchdraw.c). Private to those two files. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "tui/bench/bench_cli.h"
#include "console_int.h"

#define SPARK_MAX 512

enum field {
	FLD_VF,
	FLD_PEER,
	FLD_PEER_VF,
	FLD_HOST,
	FLD_PROFILE,
	FLD_TEST,
	FLD_SIZE,
	FLD_QPS,
	FLD_DURATION,
	FLD_N
};
enum peer_kind {
	PEER_PAIR,
	PEER_LOOPBACK,
	PEER_REMOTE,
	PEER_N
};
enum tstate {
	T_WAIT,
	T_RUN,
	T_PASS,
	T_FAIL,
	T_ERROR,
	T_SKIP,
	T_CANCELLED,
	T_HCA /* measured, but both ends on one physical port: no link validation */
};

/* The Size field's choices; 0 is the test's default. */
extern const uint64_t bv_sizes[];
extern const size_t bv_n_sizes;
/* The QPs and Duration fields' choices; 0: the default (or the profile's). */
extern const unsigned int bv_qps[], bv_durations[];
extern const size_t bv_n_qps, bv_n_durations;

/* One VF of a run and what became of it. */
struct target {
	struct bench_target t;
	enum tstate state;
	struct json_object *result; /* bench_result_to_json() of the run, verdict included;
				     * with the validation profile, its row (bench_validate.h) */
	char why[512];
	unsigned int pf_index; /* its PF's place in the node: its rail, PORT+i remote */
	bool drop;	       /* the history flagged a drop (validation profile) */
};

struct progress_msg {
	unsigned int target;
	double fraction, gbps;
};

struct job {
	pthread_t th;
	int rfd, wfd;
	atomic_bool cancel;
	struct bench_config cfg;
	struct exchange_key key; /* the console's, for cfg.key: the job outlives no one's copy */
	enum peer_kind peer;
	char host[128];
	char peer_ibdev[64];
	bool validate;	    /* the validation profile: bench_validate_vf() per VF */
	char peer_bdf[16];  /* the history's peer in pair mode */
	char root[4096];    /* the node's root: the history is under it */
	pthread_mutex_t mu; /* guards the targets' state and finished */
	struct target *t;
	size_t n;
	bool finished;
};

struct bench_view {
	enum field focus;
	char vf[16]; /* BDF; empty: every VF */
	enum peer_kind peer;
	char peer_vf[16];
	char host[128];
	enum bench_test test;
	size_t size;
	bool validate;	      /* the Profile field: validate, or one test */
	size_t qps, duration; /* indexes into bv_qps, bv_durations */
	char confirm[256];    /* the force question, while asked */
	bool confirm_all;     /* it asks about every VF (n skips those in pods) */
	struct job *job;
	unsigned int cur;	/* the target the figures below are of */
	double fraction, gbps;	/* its latest progress */
	float spark[SPARK_MAX]; /* its Gb/s, oldest first */
	size_t n_spark;
	char error[600];   /* a run that could not start */
	struct listw runs; /* every VF: one line each */
	bool runs_follow;  /* the list follows the run (until PgUp/PgDn) */
};

static inline struct bench_view *bench_of(const struct console *c)
{
	return c->views[VIEW_BENCH].state;
}

#define TARGET_WHOLE ((unsigned int)-1) /* a wake-up, not a progress figure */

/* console_benchwork.c: the worker thread over a job; cancels and joins it. */
void *bv_worker(void *arg);
void bv_job_free(struct job *j);

/* console_benchview.c, for the drawing */
bool bv_job_running(const struct bench_view *bv);
bool bv_field_shown(const struct bench_view *bv, enum field f);
/* The VF with an RDMA device after (dir 1) or before (-1) bdf (a BDF of 16
 * bytes), "" (every VF) around the ends when allow_all. */
void bv_step_vf(const struct console *c, char *bdf, int dir, bool allow_all);
/* console_benchform.c: Left/Right on the focused field. */
void bv_form_change(struct console *c, int dir);
void bv_draw(struct console *c, struct view *v);
const char *bv_vf_label(const struct console *c, const char *bdf, char *buf, size_t size);
/* The Peer VF field's label, noting a peer on the VF's own port. */
const char *bv_peer_vf_label(const struct console *c, char *buf, size_t size);
