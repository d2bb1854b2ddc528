// SPDX-License-Identifier: MIT
/* The validation profile's choices (profile.h). */
#include "profile.h"

#include <stdio.h>
#include <string.h>

const enum bench_test bench_profile_tests[BENCH_PROFILE_TESTS] = {BENCH_WRITE_BW, BENCH_READ_BW,
								  BENCH_WRITE_LAT, BENCH_READ_LAT};

/* QPs by rate band: the first band whose floor the rate reaches. */
struct band {
	double min_gbps;
	unsigned int qps;
	const char *why;
};

/* One QP of a ConnectX-7 writes ~392 Gb/s at 64-128 KiB but ~284 at 1 MiB
 * (public figures): at 400G, 4 QPs keep every size at line rate. */
static const struct band write_bands[] = {
	{300, 4, "4 QPs: one QP falls short of 400G at large messages; perftest advises 2-4"},
	{150, 2, "2 QPs: one QP is near its limit at 200G"},
	{0, 1, "1 QP fills a link of 100G or less"},
};

/* A READ requester has at most max_qp_rd_atom (16 on ConnectX) reads in
 * flight per QP and the responder serves each QP in order: perftest's
 * maintainers advise -q 4 for READ at high rates. */
static const struct band read_bands[] = {
	{150, 4, "4 QPs: outstanding reads per QP limit one QP's READ (perftest advises -q 4)"},
	{50, 2, "2 QPs: outstanding reads per QP limit one QP's READ"},
	{0, 1, "1 QP fills a link under 50G"},
};

static const struct band *pick(const struct band *b, size_t n, double rate)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (rate >= b[i].min_gbps)
			return &b[i];
	return &b[n - 1];
}

void bench_profile_choose(enum bench_test t, double rate_gbps, struct bench_profile_choice *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (bench_is_latency(t)) {
		ret->size = bench_default_size(t);
		ret->qps = 1;
		snprintf(ret->why, sizeof(ret->why),
			 "latency: one QP, one message in flight, %llu bytes",
			 (unsigned long long)ret->size);
		return;
	}
	ret->size = BENCH_PROFILE_SIZE;
	ret->tx_depth = BENCH_PROFILE_TX_DEPTH;
	if (rate_gbps < 0) {
		ret->qps = 1;
		snprintf(ret->why, sizeof(ret->why), "port rate unknown: 1 QP, TX depth %d",
			 BENCH_PROFILE_TX_DEPTH);
		return;
	}
	const struct band *b =
		t == BENCH_READ_BW
			? pick(read_bands, sizeof(read_bands) / sizeof(*read_bands), rate_gbps)
			: pick(write_bands, sizeof(write_bands) / sizeof(*write_bands), rate_gbps);
	ret->qps = b->qps;
	/* 128 x 64 KiB = 8 MiB in flight per QP, ~30x the bandwidth-delay
	 * product of a 400G link with a 5 us round trip (250 KB): the depth
	 * never limits, and deeper only grows the buffer and the CQ. */
	snprintf(ret->why, sizeof(ret->why), "%.0f Gb/s: %s; TX depth %d x 64 KiB per QP",
		 rate_gbps, b->why, BENCH_PROFILE_TX_DEPTH);
}
