/* SPDX-License-Identifier: MIT */
/* The all-VF scheduler: a list of jobs (a VF each, to run against its peer)
 * run on lanes, worker threads that each take one rail at a time. A rail is
 * a PF: its VFs share its port, so a rail's jobs run one after another, in
 * the order given. Without `parallel` one lane runs every job in the order
 * given; with it the rails run at once, a lane per rail (at most max_lanes;
 * a lane through with its rail takes the next rail no lane has taken, rails
 * in the order of their first job). The calling thread is one of the lanes.
 *
 * What runs a job is the caller's function (bench_sweep_fn): the command
 * line's test or validation, the console's, a test's fake. The scheduler
 * decides which job runs, on which lane and when, and records what became
 * of it; it never prints and knows nothing of the node model or the
 * terminal. The command line's `--all-vfs`, `bench validate --all-vfs` and
 * the console's bench view all run on it.
 *
 * NUMA placement is each run's: bench_run() pins the thread that calls it
 * (the lane) to its HCA's local CPUs and puts its buffer on the HCA's node
 * (bench/place.h), and gives the thread its affinity back at the end, so a
 * lane that moves on to another rail follows that rail's HCA.
 *
 * With `strikes`, a peer that fails the same way BENCH_SWEEP_STRIKES times in
 * a row is out: the jobs left for it are not run and say why ("not run: the
 * peer failed 3 times: <cause>"). The peer is one for the sweep, or one per
 * rail with rail_ports (each rail meets its own server on PORT+rail).
 *
 * Once *cancel is set no lane starts another job; a run under way is the
 * runner's to stop (bench_config.cancel). A run that then ends in an error
 * is SKIP "interrupted", not a failure of its VF; the jobs not reached stay
 * not done. */
#pragma once

#include <json-c/json.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "bench/verdict.h"

enum bench_sweep_status {
	BENCH_SWEEP_PASS,
	BENCH_SWEEP_FAIL,  /* it ran and its verdict failed */
	BENCH_SWEEP_ERROR, /* it could not run: why is the cause (reported as FAIL) */
	BENCH_SWEEP_SKIP,  /* not run, why says why */
};

/* One VF to run and what became of it. */
struct bench_sweep_job {
	/* The caller's. */
	struct bench_target t; /* the VF, placed */
	size_t rail;	       /* its PF's place in the node (BDF order) */
	bool skip;	       /* skipped before any run: why says why */
	void *arg;	       /* for the caller's runner and hooks */
	/* The scheduler's (why also the runner's, or the caller's with skip). */
	enum bench_sweep_status status;
	char why[600];		 /* the reason of a FAIL, ERROR or SKIP; a PASS's verdict */
	bool done;		 /* finished (run, skipped, or not run: its peer is out); false: not
				  * reached (cancelled) */
	bool ran;		 /* the runner ran it: start_s and end_s hold */
	bool peer_out;		 /* its failure put its peer out */
	size_t lane;		 /* the lane that took it */
	double start_s, end_s;	 /* its run, in seconds from the sweep's start */
	struct json_object *row; /* the runner's, or NULL: the caller's to put */
};

/* What a runner is handed for one job. */
struct bench_sweep_task {
	const struct bench_sweep_job *job;
	size_t lane;
	uint16_t port; /* the peer's TCP port: the config's, + the job's rail with rail_ports */
	/* To pass on to bench_run(): it reaches on_progress, for this job (NULL
	 * without on_progress). */
	bench_progress_fn progress;
	void *progress_arg;
};

/* Runs one job: returns its status, sets *ret_row to its JSON row (or
 * leaves it NULL) and writes the reason of a FAIL, ERROR or SKIP (or the
 * verdict's reason of a PASS) to why. Called from the lanes, one job per
 * lane at a time and several lanes at once: it must be thread-safe across
 * lanes. Never called for a skipped job, nor once its peer is out. */
typedef enum bench_sweep_status bench_sweep_fn(const struct bench_sweep_task *task, void *arg,
					       struct json_object **ret_row, char *why,
					       size_t why_size);

struct bench_sweep_config {
	struct bench_sweep_job *jobs; /* in order: PF by PF, a PF's VFs in order */
	size_t n_jobs;
	bench_sweep_fn *run;
	void *run_arg;
	bool parallel;	     /* a lane per rail, the rails at once; else one lane */
	size_t max_lanes;    /* with parallel: at most this many lanes (0: a lane per rail) */
	uint16_t port;	     /* the peer's TCP port, for the runner */
	bool rail_ports;     /* rail r's peer is its own, on port + r (`bench server --all-pfs`) */
	bool strikes;	     /* a peer failing the same way BENCH_SWEEP_STRIKES times is out */
	atomic_bool *cancel; /* set: no lane starts another job; may be NULL */
	/* Hooks, each optional, called from the lanes one at a time (under the
	 * sweep's lock: quick, and never back into the sweep). Per job, in
	 * order: on_start, on_progress any number of times (whenever the run
	 * calls the task's progress), on_done; a job not run (skipped, or its
	 * peer out) gets on_done alone. done counts the jobs finished so far
	 * (in on_done, this one included), total is n_jobs. */
	void (*on_start)(const struct bench_sweep_job *job, void *arg);
	void (*on_progress)(const struct bench_sweep_job *job, size_t done, size_t total,
			    const struct bench_progress *p, void *arg);
	void (*on_done)(struct bench_sweep_job *job, size_t done, size_t total, void *arg);
	void *hook_arg;
};

/* How a sweep went. */
struct bench_sweep_stats {
	size_t lanes;  /* the lanes that ran, the calling thread's included */
	size_t done;   /* the jobs finished */
	double wall_s; /* the sweep's wall time */
};

/* Runs c's jobs on the lanes and fills each job's results (a skipped job's
 * why is kept, every other's is cleared first) and *ret (may be NULL).
 * Returns 0, or -ENOMEM before any job was touched. A lane whose thread
 * cannot start is not missed: the other lanes take its rails. */
int bench_sweep_run(const struct bench_sweep_config *c, struct bench_sweep_stats *ret);

/* How many rails hold a job to run (not skipped). */
size_t bench_sweep_rails(const struct bench_sweep_job *jobs, size_t n);

/* The last of n_rails ports from port on, a port per rail (port for none):
 * above 65535 when they do not fit. */
static inline unsigned long bench_sweep_last_port(uint16_t port, size_t n_rails)
{
	return (unsigned long)port + (n_rails ? n_rails - 1 : 0);
}

/* --- a peer's strikes, pure, for the tests ---------------------------------- */

#define BENCH_SWEEP_STRIKES 3

/* A peer's record of failures in a row. */
struct bench_sweep_strikes {
	unsigned int n;
	char cause[512];
};

/* Notes a VF's outcome: an ERROR whose cause does not name the VF itself
 * (ibdev or netdev in quotes, or its PCI address) is the peer's; the same
 * cause again adds a strike, another starts over, any other outcome clears.
 * True when the peer is now out (BENCH_SWEEP_STRIKES in a row). */
bool bench_sweep_strike(struct bench_sweep_strikes *s, const struct bench_target *t,
			enum bench_sweep_status st, const char *why);
/* True once out; "not run: the peer failed 3 times: <cause>" into why. */
bool bench_sweep_peer_out(const struct bench_sweep_strikes *s, char *why, size_t why_size);
