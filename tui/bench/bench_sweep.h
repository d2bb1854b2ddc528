/* SPDX-License-Identifier: MIT */
/* `--all-vfs`: every VF of the node run against a peer on the all-VF
 * scheduler (bench/sweep.h): one VF after another (the old order: PF by PF
 * in BDF order) or, with `parallel`, every PF at once (each PF's port is its
 * own link, a PF a rail) and the VFs of one PF one after another. What runs
 * one VF is the scheduler's runner (bench_sweep_fn), so another run (a
 * validation sequence) plugs in.
 *
 * The sweep skips before any run a VF without an RDMA device, one bound to a
 * pod (unless forced), the peer itself, and a VF whose link layer differs
 * from the peer's (both read from the node model). A peer that fails the same
 * way three times in a row is not tried again (the scheduler's strikes): the
 * VFs left for it are not run and say why ("not run: the peer failed 3
 * times: <cause>").
 *
 * Its JSON document:
 *   {"test", "peer", "parallel", "interrupted",
 *    "vfs": [row...],      each the runner's row plus "device" (when the row
 *                          has none), "vf_bdf", "pf_bdf", "status" ("PASS",
 *                          "FAIL", "SKIP"), "why" (unless PASS), "start_s" and
 *                          "end_s" (seconds from the sweep's start; null when
 *                          not run), "peer_out": true on the row whose
 *                          failure put the peer out
 *    "pfs": [{"pf_bdf", "port_rate_gbps", "vfs", "run", "pass", "fail", "skip",
 *             "best_gbps", "median_gbps", "busy_s"}],
 *    "node": {"aggregate_gbps", "concurrent_runs", "port_rate_gbps", "wall_s"},
 *    "summary": {"pass", "fail", "skip", "total"}}
 * The "pfs", "node" and "summary" members are bench/sweep_report.h's. */
#pragma once

#include <json-c/json.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "bench/sweep.h"
#include "bench/sweep_report.h"
#include "bench/verdict.h"

struct node;

struct bench_cli_sweep_config {
	/* One VF's run, handed the job (its target, its PF's index as the
	 * rail) and the port to meet. */
	bench_sweep_fn *run;
	void *run_arg;
	const char *test; /* the test's name, for the document */
	const char *host; /* remote server, or NULL */
	/* Its TCP port; with parallel, the i-th PF of the node in BDF order
	 * meets PORT+i (`bench server --all-pfs`). */
	uint16_t port;
	const char *peer_dev; /* pair mode */
	bool parallel, force;
	atomic_bool *cancel; /* stops starting VFs (runs under way are the runner's) */
	/* Optional, from the lanes, serialised by the scheduler: a VF's row as
	 * it finishes, and each lane's progress (rows_done VFs finished so far). */
	void (*on_row)(struct json_object *row, void *arg);
	void (*on_progress)(size_t lane, size_t rows_done, size_t total,
			    const struct bench_progress *p, void *arg);
	void *hook_arg;
};

/* Runs the sweep over n's VFs; *ret_doc gets the document above. Returns the
 * exit status: 0 when no VF failed and at least one passed, else 1; -ENOMEM
 * when it could not start. */
int bench_cli_sweep_run(const struct bench_cli_sweep_config *cfg, const struct node *n,
			struct json_object **ret_doc);

struct bench_opts;
/* --parallel and --all-pfs where they apply (said; -EINVAL) or 0. */
int bench_cli_sweep_check_opts(const struct bench_opts *o);
/* --parallel against a remote host meets PF i on port+i: -EINVAL, said,
 * when that passes 65535 for n's PFs, else 0. */
int bench_cli_sweep_check_ports(uint16_t port, bool parallel, const char *host,
				const struct node *n);
