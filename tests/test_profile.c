// SPDX-License-Identifier: MIT
/* The validation profile's choices (bench/profile.h): QPs by the port's
 * rate, per test, with the reason said. */
#include <check.h>
#include <string.h>

#include "bench/profile.h"
#include "testutil.h"

static unsigned int qps(enum bench_test t, double rate)
{
	struct bench_profile_choice c;
	bench_profile_choose(t, rate, &c);
	ck_assert_msg(c.why[0], "no reason given");
	return c.qps;
}

START_TEST(write_qps_by_rate)
{
	ck_assert_uint_eq(qps(BENCH_WRITE_BW, 400), 4);
	ck_assert_uint_eq(qps(BENCH_WRITE_BW, 300), 4);
	ck_assert_uint_eq(qps(BENCH_WRITE_BW, 200), 2);
	ck_assert_uint_eq(qps(BENCH_WRITE_BW, 100), 1);
	ck_assert_uint_eq(qps(BENCH_WRITE_BW, 0.1), 1);
	ck_assert_uint_eq(qps(BENCH_WRITE_BW, -1), 1);
}
END_TEST

START_TEST(read_qps_by_rate)
{
	ck_assert_uint_eq(qps(BENCH_READ_BW, 400), 4);
	ck_assert_uint_eq(qps(BENCH_READ_BW, 200), 4);
	ck_assert_uint_eq(qps(BENCH_READ_BW, 100), 2);
	ck_assert_uint_eq(qps(BENCH_READ_BW, 50), 2);
	ck_assert_uint_eq(qps(BENCH_READ_BW, 25), 1);
	ck_assert_uint_eq(qps(BENCH_READ_BW, -1), 1);
}
END_TEST

START_TEST(depth_size_and_reason)
{
	struct bench_profile_choice c;
	bench_profile_choose(BENCH_READ_BW, 400, &c);
	ck_assert_uint_eq(c.tx_depth, 128);
	ck_assert_uint_eq(c.size, 65536);
	ck_assert_ptr_nonnull(strstr(c.why, "400 Gb/s: 4 QPs"));
	ck_assert_ptr_nonnull(strstr(c.why, "-q 4"));
	bench_profile_choose(BENCH_WRITE_BW, -1, &c);
	ck_assert_ptr_nonnull(strstr(c.why, "port rate unknown"));
	bench_profile_choose(BENCH_WRITE_LAT, 400, &c);
	ck_assert_uint_eq(c.qps, 1);
	ck_assert_uint_eq(c.tx_depth, 0);
	ck_assert_uint_eq(c.size, 2);
	ck_assert_uint_eq(bench_profile_tests[0], BENCH_WRITE_BW);
	ck_assert_uint_eq(bench_profile_tests[3], BENCH_READ_LAT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");
	tcase_add_test(tc, write_qps_by_rate);
	tcase_add_test(tc, read_qps_by_rate);
	tcase_add_test(tc, depth_size_and_reason);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
