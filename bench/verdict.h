/* SPDX-License-Identifier: MIT */
/* The benchmark's verdict: a result judged against its port's rate. Pure:
 * no printing, no reading of the node; the caller places the device
 * (struct bench_target) and chooses the threshold. */
#pragma once

#include <stdbool.h>

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

struct bench_verdict {
	bool pass;
	bool judged;	      /* false for latency tests and unknown rates: no threshold */
	double figure_gbps;   /* the best average over the sizes run */
	double expected_gbps; /* min_ratio x payload ceiling (x2 bidirectional) */
	double ceiling_gbps;  /* of one direction; 0 when not judged */
	double min_ratio;
	char reason[160];
};

/* Judges r, a run on t, at min_ratio (0.9: 90%) of the payload ceiling of
 * t's port rate (x2 when bidirectional). Latency tests are not judged: they
 * pass when they have samples. A bandwidth test on a port of unknown rate
 * is not judged either and passes only when min_ratio <= 0. */
void bench_judge(const struct bench_result *r, const struct bench_target *t, double min_ratio,
		 struct bench_verdict *ret);
