/* SPDX-License-Identifier: MIT */
/* A benchmark result as text, from bench_result_to_json() (bench/report.h):
 * the perftest-style report (same headers and columns, Gb/s or MB/s), the
 * latency histogram under it, and the verdict line. */
#pragma once

#include <stdbool.h>

#include <json-c/json.h>

#include "tui/base/text.h"

/* The header block, the table of sizes and, for latency, the histogram. */
void bench_text_report(struct text *out, struct json_object *result, bool mbps);
/* "PASS 0000:18:00.1: <reason>"; nothing when the result has no verdict. */
void bench_text_verdict(struct text *out, struct json_object *result);
/* `bench --all-vfs`: one VF's line ("PASS VF 0000:18:00.4 mlx5_15 390.00 Gb/s
 * <reason>") from its entry of the "vfs" array, and the summary line from
 * the document's "summary" ({"pass", "fail", "skip", "total"}). */
void bench_text_vf_row(struct text *out, struct json_object *vf);
/* A sweep row's "why" as its line says it: the VFs a peer put out do not
 * repeat its cause (said once, on the row that put it out). */
const char *bench_text_why(const char *why);
void bench_text_vfs_summary(struct text *out, struct json_object *summary);
/* The end of a sweep's text (tui/bench/bench_sweep.h's document): a line per PF
 * (VFs run, best and median figure, port rate), the node's line (the
 * aggregate of the runs in progress together, the wall time), then the
 * summary line. A row shows a bandwidth only when its run reached a verdict. */
void bench_text_sweep_summary(struct text *out, struct json_object *doc);
/* The histogram of one size's latency samples, bars at most width wide. */
void bench_text_histogram(struct text *out, struct json_object *size, int width);
