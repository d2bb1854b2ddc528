/* SPDX-License-Identifier: MIT */
/* `ibvf bench`: the benchmark's command line and its reports. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench/bench.h"
#include "cli.h"

/* A device as the operator named it, placed in the node model. */
struct bench_target {
	char ibdev[64];
	char netdev[32];  /* empty when unknown */
	char bdf[16];	  /* the PCI function, empty for an unplaced device */
	char pf_bdf[16];  /* for a VF: its PF */
	int vf_index;	  /* -1 unless a VF */
	double rate_gbps; /* port rate from sysfs `rate`; < 0 when unknown */
	char rate[48];	  /* the kernel's words: "400 Gb/sec (4X NDR)" */
};

struct bench_verdict {
	bool pass;
	bool judged;	      /* false for latency tests: no rate threshold */
	double figure_gbps;   /* the best average over the sizes run */
	double expected_gbps; /* min_ratio x payload ceiling (x2 bidirectional) */
	double ceiling_gbps;
	double min_ratio;
	char reason[160];
};

/* `ibvf bench ...`: argv[0] is "bench". */
int cmd_bench(const struct cli *c, int argc, char **argv);

/* The command line's choices. */
struct bench_opts {
	struct bench_config cfg;
	double min_ratio;
	bool json, force, all_vfs, once, mbps;
	const char *dev;
};

/* Set by SIGINT/SIGTERM: runs stop cleanly and the peer is told. */
extern atomic_bool bench_interrupted;

struct node;
struct vf;
struct fn;
struct rdma;
/* The pod holding a VF ("ns/name" in buf), or NULL. */
const char *bench_vf_pod_holder(const struct vf *vf, char *buf, size_t size);
void bench_target_from_fn(const struct fn *f, const struct rdma *rd, struct bench_target *t);

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

/* bench_report.c */
void bench_judge(const struct bench_result *r, const struct bench_target *t, double min_ratio,
		 struct bench_verdict *ret);
void bench_report_text(FILE *f, const struct bench_result *r, const struct bench_target *t,
		       bool mbps);
void bench_report_verdict(FILE *f, const struct bench_target *t, const struct bench_verdict *v);
struct json_object *bench_report_json(const struct bench_result *r, const struct bench_target *t,
				      const struct bench_verdict *v);
