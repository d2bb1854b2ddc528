/* SPDX-License-Identifier: MIT */
/* `ibvf bench validate` and --profile validate: the post-setup validation of
 * a VF (docs/bench-validate.md). bench_validate_vf() is one VF's whole
 * sequence, write_bw, read_bw, write_lat, read_lat by duration with the
 * profile's QPs and depth, judged, compared with the history and recorded;
 * it returns the VF's row, so a sweep over VFs calls it per VF. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#include "bench_cli.h"
#include "tui/base/text.h"

/* The profile's options' ids in bench's option table (cmd_bench.c). */
enum {
	BENCH_O_PROFILE = 0x1000,
	BENCH_O_NO_HISTORY,
	BENCH_O_MAX_LAT,
};

/* The validation's peer: a server at host, or a device of this node. */
struct validate_peer {
	const char *host;     /* client mode; NULL in pair mode */
	const char *peer_dev; /* pair mode: the peer's RDMA device */
	const char *peer_id;  /* the history key's peer: host, or the peer's BDF */
};

/* One VF's validation. *ret_row (always set, even on error):
 *   {"device": {...}, "vf_bdf", "peer", "authenticated" (client mode: was
 *    the server's word keyed; null in pair mode), "status" ("PASS"/"FAIL"),
 *    "why", "tests": [bench_result_to_json() + {"status" (PASS, FAIL,
 *    peer-limited, impossible: bench_status_name()), "profile": {"qps",
 *    "tx_depth", "size", "chosen_by", "why"}, "figure", "unit", "spread",
 *    "history": {"previous", "previous_time", "change_pct", "noise_pct",
 *    "flag"} or null} or {"test", "status": "ERROR", "error"}],
 *    "history_drops", "warnings": [...], "verdict": {"status", "figure_gbps"
 *    (write_bw's, for a sweep's aggregates), "reason"}}
 * progress gets each test's figures (label names the test). Returns 0 when
 * the VF passed, 1 when not. Thread-safe: no printing, no globals. */
int bench_validate_vf(const struct bench_opts *o, const struct bench_target *t,
		      const struct validate_peer *p, bench_progress_fn progress, void *progress_arg,
		      struct json_object **ret_row);

/* One test's result res (run on t against p) judged: its object, the
 * history compared and (unless o->no_history) recorded with the test's
 * status; prof (taken) is its "profile". *ret_pass when PASS, *ret_drop when
 * the history flags a drop; warnings go to row's "warnings". */
struct json_object *bench_validate_test_result(const struct bench_opts *o,
					       const struct bench_target *t,
					       const struct validate_peer *p,
					       const struct bench_result *res,
					       struct json_object *prof, struct json_object *row,
					       bool *ret_pass, bool *ret_drop);

/* The history file of o (o->state_root + BENCH_HISTORY_PATH) into buf. */
void bench_validate_history_path(const struct bench_opts *o, char *buf, size_t size);

/* Options of the profile (--profile, --no-history, --max-lat): 1 when code
 * is one (*r 0 or -EINVAL, said), else 0. */
int bench_validate_parse_opt(struct bench_opts *o, int code, const char *arg, int *r);
/* Sets o->validate for mode "validate"; options (and modes: server,
 * loopback) that do not go with the profile: 0 or -EINVAL, said. */
int bench_validate_check_opts(struct bench_opts *o, const char *mode);

/* `bench validate [DEV] PEER`, `--all-vfs PEER`: the exit status. */
int bench_cli_validate(const struct bench_opts *o, const struct node *n, char **pos, int npos);
/* client/pair --profile validate: t (NULL: every VF) against host or peer. */
int bench_validate_run(const struct bench_opts *o, const struct node *n,
		       const struct bench_target *t, const struct validate_peer *p);

/* The same, the peer a host (client mode) or a device here (peer). */
int bench_validate_with(const struct bench_opts *o, const struct node *n,
			const struct bench_target *t, const char *host,
			const struct bench_target *peer);

/* tui/bench/bench_validate_text.c: one VF's row as text (every test's line, the
 * profile's reasons, the history, the verdict); full adds each test's
 * perftest-style report first. */
void bench_validate_text_row(struct text *out, struct json_object *row, bool full);
void bench_validate_text_row_full(struct text *out, struct json_object *row);
void bench_validate_text_row_short(struct text *out, struct json_object *row);
