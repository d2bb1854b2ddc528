/* SPDX-License-Identifier: MIT */
/* A sweep's report (the members of `--all-vfs`'s document that are computed,
 * tui/bench/bench_sweep.h): pure functions of its "vfs" rows, each with
 * "pf_bdf", "status", "start_s" and "end_s" (null when not run) and the
 * verdict's figure.
 *
 * A VF's figure is its row's "verdict"."figure_gbps" (bench_result_to_json()'s
 * layout); only rows that ran to a verdict (PASS or FAIL with a figure) count.
 * Per PF: the best and the median figure of its VFs (they ran one after
 * another, so they do not add up), and its port's rate. For the node,
 * aggregate_gbps is the largest sum of figures of runs that were in progress
 * at the same moment (each run's average over its own run; the sum is taken
 * at every run's start over the runs whose [start_s, end_s) holds it) and
 * concurrent_runs how many runs made that sum; sequentially it is the best
 * single figure. wall_s is the whole sweep's wall time. Unknown: null. */
#pragma once

#include <json-c/json.h>

/* A document's "summary": {pass, fail, skip, total}. */
struct json_object *bench_sweep_summary(int pass, int fail, int skip, int total);
/* The "pfs" member: {pf_bdf, port_rate_gbps, vfs, run, pass, fail, skip,
 * best_gbps, median_gbps, busy_s} per PF; the port rates come from rates
 * (pf_bdf -> Gb/s, NULL or absent: unknown). */
struct json_object *bench_sweep_pf_aggregates(struct json_object *vfs, struct json_object *rates);
/* The "node" member: {aggregate_gbps, concurrent_runs, port_rate_gbps, wall_s}. */
struct json_object *bench_sweep_node_aggregate(struct json_object *vfs, struct json_object *pfs,
					       double wall_s);
/* Seconds as JSON, to the microsecond ("0.123456"). */
struct json_object *bench_sweep_json_secs(double s);
