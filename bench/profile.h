/* SPDX-License-Identifier: MIT */
/* The validation profile's choices (`ibvf bench validate`, --profile
 * validate): per test, the message size, QPs and TX depth suited to the
 * port's rate, each with the reason, so the report can say why. Pure: the
 * caller gives the rate; --qps and --tx-depth given by the operator win. */
#pragma once

#include <stdint.h>

#include "bench/bench.h"

/* The four tests a validation runs, in order. */
#define BENCH_PROFILE_TESTS 4

extern const enum bench_test bench_profile_tests[BENCH_PROFILE_TESTS];

struct bench_profile_choice {
	uint64_t size;
	unsigned int qps, tx_depth; /* tx_depth 0 for latency: the loop's own */
	char why[200];
};

/* The profile's choice for test t on a port of rate_gbps (< 0: unknown):
 *   write_bw: 4 QPs at 300 Gb/s and up (400G NDR), 2 from 150 (200G HDR),
 *             else 1; read_bw: 4 QPs from 150 Gb/s, 2 from 50, else 1;
 *   TX depth 128 per QP and 64 KiB messages; latency: 1 QP, 2 bytes.
 * docs/bench-validate.md gives the reasons. */
void bench_profile_choose(enum bench_test t, double rate_gbps, struct bench_profile_choice *ret);
