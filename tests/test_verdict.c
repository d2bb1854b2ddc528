// SPDX-License-Identifier: MIT
/* The bench verdict (bench/verdict.h): a run judged against its port's
 * payload ceiling, with figures worked out by hand. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/verdict.h"
#include "testutil.h"

/* 400 Gb/s x 4096 / (4096 + 26): LRH 8 + BTH 12 + ICRC 4 + VCRC 2. */
#define NDR_CEILING 397.4769529354682

static struct bench_target ndr_vf(void)
{
	struct bench_target t = {.vf_index = 3, .rate_gbps = 400};
	strcpy(t.ibdev, "mlx5_15");
	strcpy(t.bdf, "0000:18:00.4");
	strcpy(t.rate, "400 Gb/sec (4X NDR)");
	return t;
}

/* A bandwidth run: one size per figure given. */
static struct bench_result bw_run(enum bench_test test, const double *avg, unsigned int n)
{
	struct bench_result r = {.test = test, .mtu = 4096, .n_sizes = n};
	for (unsigned int i = 0; i < n; i++) {
		r.sizes[i].size = 65536u << i;
		r.sizes[i].bw_avg_gbps = avg[i];
		r.sizes[i].bw_peak_gbps = avg[i] + 1;
	}
	return r;
}

START_TEST(ndr_at_mtu_4096_is_held_to_397_48)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){380.0}, 1);
	struct bench_verdict v;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert(v.judged);
	ck_assert(v.pass);
	ck_assert_double_eq_tol(v.ceiling_gbps, NDR_CEILING, 1e-9);
	ck_assert_double_eq_tol(v.expected_gbps, NDR_CEILING * 0.9, 1e-9);
	ck_assert_double_eq_tol(v.figure_gbps, 380.0, 1e-12);
	ck_assert_str_eq(v.reason, "380.00 Gb/s is 96% of the 397.48 Gb/s payload ceiling of "
				   "400 Gb/sec (4X NDR) (threshold 90%)");
}
END_TEST

START_TEST(an_unset_mtu_counts_as_4096)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_READ_BW, (double[]){300.0}, 1);
	struct bench_verdict v;
	r.mtu = 0;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert_double_eq_tol(v.ceiling_gbps, NDR_CEILING, 1e-9);
	ck_assert(!v.pass);
	ck_assert_ptr_nonnull(strstr(v.reason, "75% of the 397.48 Gb/s"));
}
END_TEST

START_TEST(the_figure_is_the_best_average_over_the_sizes)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){120.5, 390.25, 200.0}, 3);
	struct bench_verdict v;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert_double_eq_tol(v.figure_gbps, 390.25, 1e-12);
	ck_assert(v.pass);
}
END_TEST

START_TEST(bidirectional_doubles_the_threshold)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){700.0}, 1);
	struct bench_verdict v;
	r.bidir = true;
	bench_judge(&r, &t, 0.9, &v);
	/* The ceiling is one direction's; the threshold is both's. */
	ck_assert_double_eq_tol(v.ceiling_gbps, NDR_CEILING, 1e-9);
	ck_assert_double_eq_tol(v.expected_gbps, 2 * 0.9 * NDR_CEILING, 1e-9);
	ck_assert(!v.pass); /* 700 < 715.46, though 700 > 357.73 */
	ck_assert_str_eq(v.reason, "700.00 Gb/s is 88% of the 397.48 Gb/s payload ceiling x2 "
				   "(bidirectional) of 400 Gb/sec (4X NDR) (threshold 90%)");
	r.sizes[0].bw_avg_gbps = 720.0;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert(v.pass);
}
END_TEST

START_TEST(min_ratio_passes_at_the_threshold_and_fails_just_below)
{
	struct bench_target t = ndr_vf();
	double ceiling = 400.0 * 4096 / (double)(4096 + 26), at = ceiling * 0.75;
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){at}, 1);
	struct bench_verdict v;
	bench_judge(&r, &t, 0.75, &v);
	ck_assert_double_eq(v.expected_gbps, at);
	ck_assert(v.pass);
	ck_assert_double_eq(v.min_ratio, 0.75);
	ck_assert_ptr_nonnull(strstr(v.reason, "(threshold 75%)"));
	r.sizes[0].bw_avg_gbps = nextafter(at, 0);
	bench_judge(&r, &t, 0.75, &v);
	ck_assert(!v.pass);
	/* The same figure passes a lower ratio. */
	bench_judge(&r, &t, 0.7, &v);
	ck_assert(v.pass);
}
END_TEST

START_TEST(hdr_and_a_smaller_mtu)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){150.0}, 1);
	struct bench_verdict v;
	t.rate_gbps = 200;
	strcpy(t.rate, "200 Gb/sec (4X HDR)");
	r.mtu = 2048;
	bench_judge(&r, &t, 0.9, &v);
	/* 200 x 2048 / 2074 */
	ck_assert_double_eq_tol(v.ceiling_gbps, 197.4927675988428, 1e-9);
	ck_assert(!v.pass);
	ck_assert_ptr_nonnull(strstr(v.reason, "of 200 Gb/sec (4X HDR)"));
}
END_TEST

START_TEST(ethernet_counts_a_grh)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){360.0}, 1);
	struct bench_verdict v;
	r.ethernet = true;
	bench_judge(&r, &t, 0.9, &v);
	/* 400 x 4096 / 4162 */
	ck_assert_double_eq_tol(v.ceiling_gbps, 393.6569, 1e-4);
	ck_assert(v.pass);
}
END_TEST

START_TEST(an_unknown_rate_is_not_judged_and_says_why)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){380.0}, 1);
	struct bench_verdict v;
	t.rate_gbps = -1;
	t.rate[0] = '\0';
	bench_judge(&r, &t, 0.9, &v);
	ck_assert(!v.judged);
	ck_assert(!v.pass); /* nothing to hold it to: not a pass */
	ck_assert_double_eq(v.ceiling_gbps, 0);
	ck_assert_double_eq(v.expected_gbps, 0);
	ck_assert_double_eq_tol(v.figure_gbps, 380.0, 1e-12);
	ck_assert_str_eq(v.reason, "not judged: the port rate of 'mlx5_15' is unknown");
	/* --min-ratio 0 asks for no threshold: it passes. */
	bench_judge(&r, &t, 0, &v);
	ck_assert(v.pass);
	ck_assert(!v.judged);
}
END_TEST

START_TEST(latency_is_not_judged)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = {.test = BENCH_WRITE_LAT, .mtu = 4096, .n_sizes = 1};
	struct bench_verdict v;
	r.sizes[0].size = 2;
	r.sizes[0].lat.n = 1000;
	r.sizes[0].lat.median_us = 1.9;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert(!v.judged);
	ck_assert(v.pass);
	ck_assert_double_eq(v.ceiling_gbps, 0);
	ck_assert_str_eq(v.reason, "latency measured (no rate threshold)");
	r.test = BENCH_READ_LAT;
	r.sizes[0].lat.n = 0;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert(!v.judged);
	ck_assert(!v.pass);
	ck_assert_str_eq(v.reason, "no latency samples");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verdict");
	TCase *tc = tcase_create("verdict");
	tcase_add_test(tc, ndr_at_mtu_4096_is_held_to_397_48);
	tcase_add_test(tc, an_unset_mtu_counts_as_4096);
	tcase_add_test(tc, the_figure_is_the_best_average_over_the_sizes);
	tcase_add_test(tc, bidirectional_doubles_the_threshold);
	tcase_add_test(tc, min_ratio_passes_at_the_threshold_and_fails_just_below);
	tcase_add_test(tc, hdr_and_a_smaller_mtu);
	tcase_add_test(tc, ethernet_counts_a_grh);
	tcase_add_test(tc, an_unknown_rate_is_not_judged_and_says_why);
	tcase_add_test(tc, latency_is_not_judged);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
