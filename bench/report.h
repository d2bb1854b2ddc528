/* SPDX-License-Identifier: MIT */
/* A benchmark result as JSON: the one serialisation of a run, holding every
 * figure and the verdict. `ibvf bench --json` prints it; the text report
 * (tui/bench/bench_text.c) and the console's bench view render from it.
 *
 *   {"test", "device": {"ibdev", "bdf", "pf", "vf", "netdev", "rate", "port",
 *    "gid_index", "link_layer", "mtu"}, "params": {"connection", "qps",
 *    "tx_depth", "cq_moderation", "outstanding_reads", "max_inline",
 *    "bidirectional", "mode", with rdma_cm "cm_addr" and "cm_peer_addr"
 *    (each side's address as exchanged)}, "sizes": [{"bytes", "iterations",
 *    then "bw_peak_gbps", "bw_avg_gbps", "msg_rate_mpps", "elapsed_ns",
 *    "bw_spread" (and in duration mode "run_ns", "margin_ns") or
 *    "t_min_us" .. "p99_9_us" and "histogram": [{"lo_us", "hi_us", "count"}]}],
 *    "link": {"self" and "peer": {"rate_mbps", "max_tx_rate_mbps", "width",
 *    "mtu", the peer's also "name"}, "wire" (bench_wire_key()), "wire_name",
 *    "headers_bytes", "grh", "sl", "pkey_index", "pkey", "pf", "same_port"},
 *    "verdict": {"status" (bench_status_name()), "judged", "figure_gbps",
 *    "expected_gbps", "ceiling_gbps", "own_ceiling_gbps", "min_ratio",
 *    "reason", "limited_by" (bench_limiter_key()), "limit", "limit_mbps",
 *    "mtu", "headers_bytes", "same_port"},
 *    "placement": {"numa_node" (the HCA's), "local_cpus" (its local_cpulist),
 *    "pinned", "cpus_from" ("local_cpulist", "--cpu" or "none"), "cpus" (the
 *    list the thread was pinned to), "cpu" and "cpu_node" (where it ran),
 *    "buffer_node" (where the buffer's pages are), "buffer_bound_node" (the
 *    node it was bound to, null when not bound), "note" (why something was
 *    not placed), "peer": {"numa_node", "buffer_node", "cpu", and when the
 *    peer ran in this process "cpu_node", "pinned", "cpus"}, "warnings":
 *    [a thread or buffer on another node than its HCA, --cpu outside the
 *    local CPUs]}}
 *
 * Unknown values are null ("placement" too, for a result without one). */
#pragma once

#include <json-c/json.h>

#include "bench/bench.h"
#include "bench/verdict.h"

/* t and v may be NULL (a server's view of a run: no verdict). */
struct json_object *bench_result_to_json(const struct bench_result *r, const struct bench_target *t,
					 const struct bench_verdict *v);
/* Adds r's "placement" member to o (report_place.c). */
void bench_placement_to_json(struct json_object *o, const struct bench_result *r);
