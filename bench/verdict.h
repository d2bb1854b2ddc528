/* SPDX-License-Identifier: MIT */
/* The benchmark's verdict: a result judged against the payload ceiling of
 * the slower end of its connection. Pure: no printing, no reading of the
 * node; the caller places the device (struct bench_target) and chooses the
 * threshold; the result carries both ends' exchanged port blocks. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "bench/bench.h"

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

/* A figure above this many times the ceiling it is judged against cannot
 * have crossed the link: a measurement error or a peer misreporting its
 * port. Over 1.05, not 1.0: RoCE's ceiling leaves out the Ethernet
 * preamble and gap (about 0.5%), and a window's clock reads are not exact. */
#define BENCH_IMPOSSIBLE_RATIO 1.05

/* The verdict's outcome; only PASS validates. */
enum bench_status {
	BENCH_STATUS_PASS,
	BENCH_STATUS_FAIL,
	/* The peer's port (rate or, when it sends, its VF cap) set a ceiling
	 * below this side's own: what the peer says cannot validate this VF. */
	BENCH_STATUS_PEER_LIMITED,
	/* Over BENCH_IMPOSSIBLE_RATIO x the ceiling: refused, not judged. */
	BENCH_STATUS_IMPOSSIBLE,
};

struct bench_verdict {
	enum bench_status status;
	bool pass;	      /* status == BENCH_STATUS_PASS */
	bool judged;	      /* false for latency tests and unknown rates: no threshold */
	double figure_gbps;   /* the best average over the sizes run */
	double expected_gbps; /* min_ratio x payload ceiling (both ways' when bidirectional) */
	double ceiling_gbps;  /* of the direction this side measured; 0 when not judged */
	/* What this side alone (its port's rate and, when it sends, its VF
	 * cap) allows that direction: above ceiling_gbps when peer-limited. */
	double own_ceiling_gbps;
	double min_ratio;
	/* What the ceiling came from. */
	enum bench_limiter limited_by;
	uint32_t limit_mbps;   /* the rate that limits: a port's, or a VF's cap */
	unsigned int mtu;      /* the path MTU used */
	unsigned int overhead; /* bytes of headers a packet carried */
	bool same_port;	       /* both ends on one physical port: not a link validation */
	char limit[96];	       /* "peer mlx5_7 at 200 Gb/s", "VF cap 100000 Mb/s" */
	char reason[400];
};

/* Judges r, a run on t, at min_ratio (0.9: 90%) of the payload ceiling:
 * the lowest of both ports' rates and the sending VF's max_tx_rate, at the
 * path MTU, less the headers actually sent (docs/bench-verdict.md).
 * Latency tests are not judged: they pass when they have samples. A
 * bandwidth test on a port of unknown rate is not judged either and passes
 * only when min_ratio <= 0. A run whose two ends share one physical port
 * never passes unless r->allow_same_port. */
void bench_judge(const struct bench_result *r, const struct bench_target *t, double min_ratio,
		 struct bench_verdict *ret);

/* "PASS", "FAIL", "peer-limited", "impossible": the JSON's, the history's
 * and the text's word for s. */
const char *bench_status_name(enum bench_status s);

/* "self_rate", "self_cap", "peer_rate", "peer_cap"; NULL for none. */
const char *bench_limiter_key(enum bench_limiter l);
