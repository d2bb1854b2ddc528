/* SPDX-License-Identifier: MIT */
/* The benchmark's history: every validation result appended as one JSON
 * line to a file under ibvf's state dir, and a new result compared with the
 * previous one for the same key (the VF's PF and index, the test and the
 * peer). perftest keeps nothing between runs.
 *
 * A line: {"time", "host", "key": {"pf", "vf", "test", "peer"}, "bdf",
 * "ibdev", "status", "figure", "unit" ("Gb/s" or "us"), "better" ("higher"
 * or "lower"), "spread", "ceiling" (Gb/s, when judged), "params": {...}}.
 * The file is opened without following links (every directory too), created
 * 0640, locked (flock) for each append and read, a line at most
 * BENCH_HISTORY_LINE_MAX bytes. It is read whole, streamed, by key: every
 * key's last result is found however far back it is. An append that takes
 * the file past BENCH_HISTORY_CAP rewrites it (temporary + rename, same
 * mode, under the same lock) to the newest line of every key, its newest
 * baseline, and the most recent lines that fit in half the cap. A baseline
 * is a result later ones are compared with: any but one refused as
 * "impossible" or judged "peer-limited" (bench/verdict.h), which measured
 * nothing of the VF. A file past BENCH_HISTORY_READ_MAX
 * (not one ibvf wrote so) is read only in its last BENCH_HISTORY_READ_MAX
 * bytes, and the bytes left unread are counted; a line that is not a JSON
 * object (torn, hand-edited, too long) is skipped and counted. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"

#define BENCH_HISTORY_PATH     "/var/lib/ibvf/bench-history.jsonl"
#define BENCH_HISTORY_LINE_MAX (8u << 10)
#define BENCH_HISTORY_CAP      (8u << 20)
#define BENCH_HISTORY_READ_MAX (2 * BENCH_HISTORY_CAP) /* the cap and its slack */
/* The noise rule: a change is a drop when it is worse than both 5% and 3x
 * the larger relative spread of the two runs. */
#define BENCH_HISTORY_MIN_PCT 5.0
#define BENCH_HISTORY_SPREADS 3.0

/* The history file of the node whose root is root (NULL or "/": the
 * running node's) into buf. */
void bench_history_path(const char *root, char *buf, size_t size);

/* The key of a result: pf is the VF's PF BDF (a PF's own BDF, vf < 0),
 * peer the server's host or the peer device's BDF. A new object. */
struct json_object *bench_history_key(const char *pf, int vf, const char *test, const char *peer);

/* Appends entry (an object with a "key") as one line to path (absolute),
 * making its directory, and rewrites the file when it is then past
 * BENCH_HISTORY_CAP (above). -E2BIG beyond BENCH_HISTORY_LINE_MAX, -ELOOP
 * at a link, -EINVAL when path is not a regular file; when only the
 * rewrite failed, the error says the line was recorded. */
int bench_history_append(const char *path, struct json_object *entry, struct err *e);

/* The last baseline entry of path whose "key" equals key (*ret NULL when
 * none, or when path does not exist): what a new result is compared with; *ret_skipped the lines
 * skipped as corrupt. */
int bench_history_last(const char *path, struct json_object *key, struct json_object **ret,
		       size_t *ret_skipped, struct err *e);

struct bench_history_stats {
	size_t skipped;	 /* lines that are not JSON objects */
	uint64_t unread; /* bytes before the BENCH_HISTORY_READ_MAX bound, not read */
};

/* The last two entries of every key of path (its last one and the last
 * baseline before it), in file order, as a new array (empty when path does not
 * exist); entries without a "key" object are left out. */
int bench_history_read(const char *path, struct json_object **ret,
		       struct bench_history_stats *ret_stats, struct err *e);

struct bench_history_cmp {
	double previous;   /* the previous figure */
	double change_pct; /* (figure - previous) / previous, in % */
	double noise_pct;  /* the threshold a worse change must pass */
	bool flag;	   /* worse beyond the noise */
};

/* The noise rule on two figures; spreads < 0 are unknown (only the 5%
 * floor then). higher_better: bandwidth; else latency. -EINVAL when the
 * previous figure is not positive (nothing to compare with). */
int bench_history_compare(double previous, double prev_spread, double figure, double spread,
			  bool higher_better, struct bench_history_cmp *ret);
