/* SPDX-License-Identifier: MIT */
/* `ibvf bench`: the benchmark's command line and its reports. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench/bench.h"
#include "bench/report.h"
#include "bench/verdict.h"
#include "cli.h"

/* `ibvf bench ...`: argv[0] is "bench". */
int cmd_bench(const struct cli *c, int argc, char **argv);

/* The command line's choices. */
struct bench_opts {
	struct bench_config cfg;
	double min_ratio;
	bool json, force, all_vfs, once, mbps;
	const char *dev;
	/* The validation profile (tui/bench_validate.c). */
	bool validate, no_history;
	double max_lat_us;	/* latency judged against it when > 0 */
	const char *state_root; /* the node's root: the history is under it */
};

/* Set by SIGINT/SIGTERM: runs stop cleanly and the peer is told. */
extern atomic_bool bench_interrupted;

struct node;
struct node_ref;
/* The whole target of a resolved name (node_resolve()): names, rate, PF, index;
 * the function's first RDMA device when ref names none. */
void bench_target_from_ref(const struct node_ref *ref, struct bench_target *t);

/* bench_run.c: one run of cfg on this node's device b (a client) against
 * device a of this node (a server thread; a == b for loopback) or against a
 * server at host. progress is called from the calling thread. Return 0 or a
 * negative errno with the reason in e. */
int bench_pair_run(const struct bench_config *cfg, const char *a, const char *b,
		   bench_progress_fn progress, void *progress_arg, struct bench_result *ret,
		   struct err *e);
int bench_client_run(const struct bench_config *cfg, const char *host, const char *dev,
		     bench_progress_fn progress, void *progress_arg, struct bench_result *ret,
		     struct err *e);

/* Each returns the exit status (0 PASS, 1 FAIL or error). */
int bench_cli_run_one(const struct bench_opts *o, const struct bench_target *t, const char *host,
		      const char *peer_dev);
int bench_cli_all_vfs(const struct bench_opts *o, const struct node *n, const char *host,
		      const char *peer_dev);
int bench_cli_server(const struct bench_opts *o, const char *dev);

/* A device named as node_resolve() takes names, placed; a VF in a pod
 * refused unless force (said). 0, or -EBUSY (a pod) or another -errno. */
int bench_cli_resolve(const struct node *n, const char *name, bool force, struct bench_target *t);
