/* SPDX-License-Identifier: MIT */
/* Every default of a bench run, spelled once: the engine, the command line
 * (its options and their help), the console's form and the validation
 * profile take them from here. Plain number tokens, so the help text can
 * quote them (BENCH_STR). */
#pragma once

#define BENCH_DEFAULT_PORT	 18515 /* the control TCP port */
#define BENCH_DEFAULT_MIN_RATIO	 0.9   /* PASS at this share of the payload ceiling */
#define BENCH_DEFAULT_TIMEOUT_MS 10000 /* control replies and stalled completions */

/* The test's message size and iterations when none is given (perftest's). */
#define BENCH_DEFAULT_BW_SIZE	     65536 /* bytes, bandwidth tests */
#define BENCH_DEFAULT_LAT_SIZE	     2	   /* bytes, latency tests */
#define BENCH_DEFAULT_WRITE_BW_ITERS 5000
#define BENCH_DEFAULT_ITERS	     1000 /* every other test */

#define BENCH_DEFAULT_QPS      1
#define BENCH_DEFAULT_TX_DEPTH 128 /* work requests in flight per QP */
#define BENCH_DEFAULT_CQ_MOD   100 /* signalled completion every N sends */

/* The validation profile (bench/profile.h): each test runs this long
 * (--duration wins), bandwidth with these messages and this TX depth. */
#define BENCH_PROFILE_DURATION_S 5
#define BENCH_PROFILE_SIZE	 65536
#define BENCH_PROFILE_TX_DEPTH	 128

/* A default as a string literal, for help text: BENCH_STR(BENCH_DEFAULT_PORT). */
#define BENCH_STR_(x) #x
#define BENCH_STR(x)  BENCH_STR_(x)
