// SPDX-License-Identifier: MIT
/* Benchmark statistics against hand-computed figures. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "bench/stats.h"
#include "testutil.h"

#define EPS 1e-9

START_TEST(latency_of_ten_samples)
{
	/* 1..10 µs, shuffled; in ns. mean 5.5, median 5.5, population stdev
	 * sqrt(8.25) = 2.8722813232690143; nearest-rank p99 = 10th = 10. */
	uint64_t s[] = {7000, 1000, 10000, 3000, 5000, 2000, 9000, 4000, 6000, 8000};
	struct lat_stats st;
	ck_assert_int_eq(stats_latency(s, 10, &st), 0);
	ck_assert_uint_eq(st.n, 10);
	ck_assert_double_eq_tol(st.min_us, 1.0, EPS);
	ck_assert_double_eq_tol(st.max_us, 10.0, EPS);
	ck_assert_double_eq_tol(st.mean_us, 5.5, EPS);
	ck_assert_double_eq_tol(st.median_us, 5.5, EPS);
	ck_assert_double_eq_tol(st.stdev_us, 2.8722813232690143, 1e-12);
	ck_assert_double_eq_tol(st.p99_us, 10.0, EPS);
	ck_assert_double_eq_tol(st.p999_us, 10.0, EPS);
}
END_TEST

START_TEST(latency_keeps_sub_microsecond_precision)
{
	/* perftest truncates stdev to whole µs; these differ by 0.25 µs. */
	uint64_t s[] = {1250, 1750, 1250, 1750};
	struct lat_stats st;
	ck_assert_int_eq(stats_latency(s, 4, &st), 0);
	ck_assert_double_eq_tol(st.mean_us, 1.5, EPS);
	ck_assert_double_eq_tol(st.stdev_us, 0.25, EPS);
	ck_assert_double_eq_tol(st.median_us, 1.5, EPS);
	ck_assert_double_eq_tol(st.min_us, 1.25, EPS);
}
END_TEST

START_TEST(percentiles_use_nearest_rank)
{
	/* 1000 samples 1..1000 ns: p99 is the 990th, p99.9 the 999th. */
	uint64_t *s = malloc(1000 * sizeof(*s));
	for (int i = 0; i < 1000; i++)
		s[i] = (uint64_t)(1000 - i);
	struct lat_stats st;
	ck_assert_int_eq(stats_latency(s, 1000, &st), 0);
	ck_assert_double_eq_tol(st.p99_us, 0.990, EPS);
	ck_assert_double_eq_tol(st.p999_us, 0.999, EPS);
	ck_assert_double_eq_tol(st.median_us, 0.5005, EPS);
	free(s);
	ck_assert_int_eq(stats_latency(NULL, 0, &st), -EINVAL);
}
END_TEST

/* n samples all equal to v: one bucket [v, v + 1) holding them all. */
static void assert_one_bucket(uint64_t *s, size_t n, uint64_t v)
{
	struct lat_hist h;
	ck_assert_int_eq(stats_histogram(s, n, &h), 0);
	ck_assert_uint_eq(h.n_buckets, 1);
	ck_assert_uint_eq(h.b[0].lo_ns, v);
	ck_assert_uint_eq(h.b[0].hi_ns, v + 1);
	ck_assert_uint_eq(h.b[0].count, n);
}

START_TEST(histogram_of_one_sample_is_one_bucket)
{
	uint64_t s[] = {5000};
	struct lat_hist h;
	assert_one_bucket(s, 1, 5000);
	ck_assert_int_eq(stats_histogram(NULL, 0, &h), -EINVAL);
}
END_TEST

START_TEST(histogram_of_equal_samples_is_one_bucket)
{
	uint64_t s[] = {700, 700, 700, 700};
	assert_one_bucket(s, 4, 700);
}
END_TEST

START_TEST(histogram_narrower_than_the_buckets_uses_one_ns_each)
{
	/* Span 3 ns: width ceil(4 / 24) = 1, so 4 buckets, one empty. */
	uint64_t s[] = {10, 11, 13};
	struct lat_hist h;
	ck_assert_int_eq(stats_histogram(s, 3, &h), 0);
	ck_assert_uint_eq(h.n_buckets, 4);
	const uint64_t lo[] = {10, 11, 12, 13}, count[] = {1, 1, 0, 1};
	for (size_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(h.b[i].lo_ns, lo[i]);
		ck_assert_uint_eq(h.b[i].hi_ns, lo[i] + 1);
		ck_assert_uint_eq(h.b[i].count, count[i]);
	}
}
END_TEST

START_TEST(histogram_cuts_the_range_into_equal_buckets)
{
	/* 1000..1047 ns: 48 ns in 24 buckets of 2. 1023 is in [1022, 1024),
	 * the 12th; 1046 and 1047 share the last, [1046, 1048). */
	uint64_t s[] = {1000, 1001, 1002, 1023, 1046, 1047};
	struct lat_hist h;
	ck_assert_int_eq(stats_histogram(s, 6, &h), 0);
	ck_assert_uint_eq(h.n_buckets, 24);
	for (size_t i = 0; i < 24; i++) {
		ck_assert_uint_eq(h.b[i].lo_ns, 1000 + 2 * i);
		ck_assert_uint_eq(h.b[i].hi_ns, 1002 + 2 * i);
	}
	ck_assert_uint_eq(h.b[0].count, 2);
	ck_assert_uint_eq(h.b[1].count, 1);
	ck_assert_uint_eq(h.b[11].count, 1);
	ck_assert_uint_eq(h.b[23].count, 2);
	uint64_t total = 0;
	for (size_t i = 0; i < 24; i++)
		total += h.b[i].count;
	ck_assert_uint_eq(total, 6);
}
END_TEST

START_TEST(histogram_puts_an_outlier_in_the_last_bucket)
{
	/* Nine at 1 µs and one at 25 µs: span 24000 ns, width 24000 / 24 + 1
	 * = 1001 (ceil(24001 / 24)), 24 buckets; the last is [24023, 25024). */
	uint64_t s[] = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 25000};
	struct lat_hist h;
	ck_assert_int_eq(stats_histogram(s, 10, &h), 0);
	ck_assert_uint_eq(h.n_buckets, 24);
	ck_assert_uint_eq(h.b[0].lo_ns, 1000);
	ck_assert_uint_eq(h.b[0].hi_ns, 2001);
	ck_assert_uint_eq(h.b[0].count, 9);
	for (size_t i = 1; i < 23; i++)
		ck_assert_uint_eq(h.b[i].count, 0);
	ck_assert_uint_eq(h.b[23].lo_ns, 24023);
	ck_assert_uint_eq(h.b[23].hi_ns, 25024);
	ck_assert_uint_eq(h.b[23].count, 1);
}
END_TEST

START_TEST(gbps_and_message_rate)
{
	/* 5000 x 64 KiB in 10 ms: 327680000 B * 8 / 1e7 ns = 262.144 Gb/s. */
	ck_assert_double_eq_tol(stats_gbps(5000ULL * 65536, 10000000), 262.144, EPS);
	ck_assert_double_eq_tol(stats_mpps(5000, 10000000), 0.5, EPS);
	ck_assert_double_eq_tol(stats_gbps(1, 0), 0.0, EPS);
}
END_TEST

START_TEST(peak_is_the_best_window)
{
	/* 1000-byte messages. Gaps: 10,10,2,2,10 ns. Best 2-message window is
	 * [2..4]: 2 msgs in 4 ns = 2000 B * 8 / 4 = 4000 Gb/s. */
	uint64_t t[] = {0, 10, 20, 22, 24, 34};
	ck_assert_double_eq_tol(stats_peak_gbps(t, 6, 2, 1000), 4000.0, EPS);
	ck_assert_double_eq_tol(stats_peak_gbps(t, 6, 1, 1000), 4000.0, EPS);
	ck_assert_double_eq_tol(stats_peak_gbps(t, 2, 2, 1000), 0.0, EPS);
	/* Past 20000 completions the peak is still computed. */
	size_t n = 50001;
	uint64_t *big = malloc(n * sizeof(*big));
	for (size_t i = 0; i < n; i++)
		big[i] = i * 100 - (i > 40000 ? (i - 40000) * 50 : 0);
	ck_assert_double_eq_tol(stats_peak_gbps(big, n, 1000, 1000), 160.0, 1e-6);
	free(big);
}
END_TEST

START_TEST(payload_ceiling_of_ndr)
{
	/* 400 * 4096 / 4122 = 397.477 Gb/s; with GRH 4096/4162 -> 393.657. */
	ck_assert_double_eq_tol(stats_payload_ceiling_gbps(400, 4096, 0), 397.4769529354682, 1e-9);
	ck_assert_double_eq_tol(stats_payload_ceiling_gbps(400, 4096, 1), 393.6569, 1e-3);
}
END_TEST

START_TEST(duration_margin_is_a_fifth_at_most_two_seconds)
{
	ck_assert_uint_eq(stats_margin_ns(1), 200000000ull);
	ck_assert_uint_eq(stats_margin_ns(5), 1000000000ull);
	ck_assert_uint_eq(stats_margin_ns(10), 2000000000ull);
	ck_assert_uint_eq(stats_margin_ns(60), 2000000000ull);
	ck_assert_uint_eq(stats_margin_ns(0), 0);
}
END_TEST

START_TEST(duration_window_excludes_warm_up_and_cool_down)
{
	/* A 10 s run (margins 2 s) posting from 0, one completion every
	 * 100 ms from 100 ms to 10 s, 10 messages each: counted are those
	 * completing after the one at 2.0 s up to the one at 8.0 s, 600
	 * messages in 6 s; the 200 of the warm-up and the 200 after 8 s not. */
	uint64_t t[100], cum[100];
	for (size_t k = 0; k < 100; k++) {
		t[k] = (k + 1) * 100000000ull;
		cum[k] = (k + 1) * 10;
	}
	size_t i0, i1;
	ck_assert(stats_measured_window(t, 100, 0, stats_margin_ns(10), &i0, &i1));
	ck_assert_uint_eq(t[i0], 2000000000ull);
	ck_assert_uint_eq(t[i1], 8000000000ull);
	ck_assert_uint_eq(cum[i1] - cum[i0], 600);
	ck_assert_uint_eq(t[i1] - t[i0], 6000000000ull);
	/* The warm-up is measured from the first post, not the first completion. */
	ck_assert(stats_measured_window(t, 100, 500000000ull, stats_margin_ns(10), &i0, &i1));
	ck_assert_uint_eq(t[i0], 2500000000ull);
}
END_TEST

START_TEST(duration_window_too_short_keeps_the_whole_run)
{
	uint64_t t[] = {1000, 2000, 3000};
	size_t i0 = 7, i1 = 7;
	ck_assert(!stats_measured_window(t, 3, 0, 1000000, &i0, &i1));
	ck_assert_uint_eq(i0, 0);
	ck_assert_uint_eq(i1, 2);
	i0 = i1 = 7; /* set again: the call before left them at 0 already */
	ck_assert(!stats_measured_window(t, 1, 0, 0, &i0, &i1));
	ck_assert_uint_eq(i0, 0);
	ck_assert_uint_eq(i1, 0);
}
END_TEST

START_TEST(spread_of_a_steady_run_is_zero)
{
	uint64_t t[41], cum[41];
	for (size_t k = 0; k <= 40; k++)
		t[k] = k * 1000, cum[k] = k * 7;
	ck_assert_double_eq_tol(stats_bw_spread(t, cum, 0, 40, 10), 0.0, EPS);
}
END_TEST

START_TEST(spread_is_the_slices_stdev_over_their_mean)
{
	/* 10 slices of 4 ms: the first five move 4 messages, the last five
	 * 12: mean 8, population stdev 4, spread 0.5. */
	uint64_t t[41], cum[41] = {0};
	for (size_t k = 0; k <= 40; k++) {
		t[k] = k * 1000;
		if (k)
			cum[k] = cum[k - 1] + (k <= 20 ? 1 : 3);
	}
	ck_assert_double_eq_tol(stats_bw_spread(t, cum, 0, 40, 10), 0.5, 1e-12);
	/* The first half alone is steady: 20 completions make 5 slices of 4
	 * (fewer than asked), spread 0. Under 3 slices: unknown. */
	ck_assert_double_gt(stats_bw_spread(t, cum, 0, 20, 10), -1);
	ck_assert_double_eq_tol(stats_bw_spread(t, cum, 0, 20, 10), 0.0, EPS);
	ck_assert_double_lt(stats_bw_spread(t, cum, 0, 8, 10), 0);
	ck_assert_double_lt(stats_bw_spread(t, cum, 5, 5, 10), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("stats");
	tcase_add_test(tc, latency_of_ten_samples);
	tcase_add_test(tc, latency_keeps_sub_microsecond_precision);
	tcase_add_test(tc, percentiles_use_nearest_rank);
	tcase_add_test(tc, histogram_of_one_sample_is_one_bucket);
	tcase_add_test(tc, histogram_of_equal_samples_is_one_bucket);
	tcase_add_test(tc, histogram_narrower_than_the_buckets_uses_one_ns_each);
	tcase_add_test(tc, histogram_cuts_the_range_into_equal_buckets);
	tcase_add_test(tc, histogram_puts_an_outlier_in_the_last_bucket);
	tcase_add_test(tc, gbps_and_message_rate);
	tcase_add_test(tc, peak_is_the_best_window);
	tcase_add_test(tc, payload_ceiling_of_ndr);
	tcase_add_test(tc, duration_margin_is_a_fifth_at_most_two_seconds);
	tcase_add_test(tc, duration_window_excludes_warm_up_and_cool_down);
	tcase_add_test(tc, duration_window_too_short_keeps_the_whole_run);
	tcase_add_test(tc, spread_of_a_steady_run_is_zero);
	tcase_add_test(tc, spread_is_the_slices_stdev_over_their_mean);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
