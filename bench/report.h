/* SPDX-License-Identifier: MIT */
/* A benchmark result as JSON: the one serialisation of a run, holding every
 * figure and the verdict. `ibvf bench --json` prints it; the text report
 * (tui/bench_text.c) and the console's bench view render from it.
 *
 *   {"test", "device": {"ibdev", "bdf", "pf", "vf", "netdev", "rate", "port",
 *    "gid_index", "link_layer", "mtu"}, "params": {"connection", "qps",
 *    "tx_depth", "cq_moderation", "outstanding_reads", "max_inline",
 *    "bidirectional", "mode"}, "sizes": [{"bytes", "iterations", then
 *    "bw_peak_gbps", "bw_avg_gbps", "msg_rate_mpps", "elapsed_ns", "bw_spread" (and in duration
 *    mode "run_ns", "margin_ns") or
 *    "t_min_us" .. "p99_9_us" and "histogram": [{"lo_us", "hi_us", "count"}]}],
 *    "verdict": {"status", "judged", "figure_gbps", "expected_gbps",
 *    "ceiling_gbps", "min_ratio", "reason"}}
 *
 * Unknown values are null. */
#pragma once

#include <json-c/json.h>

#include "bench/bench.h"
#include "bench/verdict.h"

/* t and v may be NULL (a server's view of a run: no verdict). */
struct json_object *bench_result_to_json(const struct bench_result *r, const struct bench_target *t,
					 const struct bench_verdict *v);
