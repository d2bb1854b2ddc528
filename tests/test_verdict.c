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

START_TEST(roce_v2_counts_ethernet_ip_and_udp)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){360.0}, 1);
	struct bench_verdict v;
	r.ethernet = true;
	r.wire = BENCH_WIRE_ROCE_V2_IPV4;
	bench_judge(&r, &t, 0.9, &v);
	/* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 = 62:
	 * 400 x 4096 / 4158 */
	ck_assert_double_eq_tol(v.ceiling_gbps, 394.035594035594, 1e-9);
	ck_assert_uint_eq(v.overhead, 62);
	ck_assert(v.pass); /* 360 >= 354.63 */
}
END_TEST

START_TEST(infiniband_with_a_grh_is_held_to_393_66)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){355.0}, 1);
	struct bench_verdict v;
	r.wire = BENCH_WIRE_IB_GRH;
	r.grh = true;
	bench_judge(&r, &t, 0.9, &v);
	/* 400 x 4096 / (4096 + 26 + 40) = 393.66; 90% of it 354.29 */
	ck_assert_double_eq_tol(v.ceiling_gbps, 393.65689572321, 1e-9);
	ck_assert_double_eq_tol(v.expected_gbps, 0.9 * 393.65689572321, 1e-9);
	ck_assert(v.pass);
	/* Without the GRH the same figure is under 90% of 397.48 (357.73). */
	r.wire = BENCH_WIRE_IB;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert(!v.pass);
}
END_TEST

START_TEST(a_slower_peer_sets_the_ceiling_and_is_named)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){190.0}, 1);
	struct bench_verdict v;
	r.self_port.rate_mbps = 400000;
	r.peer_port.rate_mbps = 200000;
	strcpy(r.peer, "mlx5_7");
	bench_judge(&r, &t, 0.9, &v);
	/* HDR peer: 200 x 4096 / 4122 = 198.74; 190 is 96% of it. */
	ck_assert_double_eq_tol(v.ceiling_gbps, 198.7384764677341, 1e-9);
	ck_assert_int_eq(v.limited_by, BENCH_LIMIT_PEER_RATE);
	ck_assert_uint_eq(v.limit_mbps, 200000);
	ck_assert_str_eq(v.limit, "peer mlx5_7 at 200 Gb/s");
	/* It reached the peer's ceiling, which says nothing of this 400G VF. */
	ck_assert(!v.pass);
	ck_assert_int_eq(v.status, BENCH_STATUS_PEER_LIMITED);
	ck_assert_str_eq(bench_status_name(v.status), "peer-limited");
	ck_assert_double_eq_tol(v.own_ceiling_gbps, NDR_CEILING, 1e-9);
	ck_assert_str_eq(v.reason, "peer-limited: not validated: 190.00 Gb/s is 96% of the 198.74 "
				   "Gb/s payload ceiling of peer mlx5_7 at 200 Gb/s, below this "
				   "side's 397.48 Gb/s (threshold 90%)");
	/* Below the peer's threshold it is a FAIL: the peer cannot hide that. */
	r.sizes[0].bw_avg_gbps = 150.0;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert_int_eq(v.status, BENCH_STATUS_FAIL);
	/* --min-ratio 0 measures: it passes, the peer's limit named. */
	r.sizes[0].bw_avg_gbps = 190.0;
	bench_judge(&r, &t, 0, &v);
	ck_assert(v.pass);
	ck_assert_ptr_nonnull(strstr(v.reason, "below this side's 397.48 Gb/s (threshold 0%)"));
}
END_TEST

START_TEST(a_vf_cap_limits_what_it_sends)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){95.0}, 1);
	struct bench_verdict v;
	r.self_port.rate_mbps = 400000;
	r.self_port.max_tx_rate_mbps = 100000;
	r.peer_port.rate_mbps = 400000;
	bench_judge(&r, &t, 0.9, &v);
	/* 100 x 4096 / 4122 = 99.37; 95 is 96% of it. */
	ck_assert_double_eq_tol(v.ceiling_gbps, 99.36923823386705, 1e-9);
	ck_assert_int_eq(v.limited_by, BENCH_LIMIT_SELF_CAP);
	ck_assert_str_eq(v.limit, "VF cap 100000 Mb/s");
	ck_assert(v.pass);
	/* A READ is sent by the peer: this VF's cap does not limit it. */
	r.test = BENCH_READ_BW;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert_double_eq_tol(v.ceiling_gbps, NDR_CEILING, 1e-9);
	ck_assert(!v.pass);
	/* The peer's cap does: 50 x 4096 / 4122 = 49.68. */
	r.peer_port.max_tx_rate_mbps = 50000;
	r.sizes[0].bw_avg_gbps = 48.0;
	strcpy(r.peer, "10.0.0.2");
	bench_judge(&r, &t, 0.9, &v);
	ck_assert_double_eq_tol(v.ceiling_gbps, 49.684619116933526, 1e-9);
	ck_assert_int_eq(v.limited_by, BENCH_LIMIT_PEER_CAP);
	ck_assert_str_eq(v.limit, "peer 10.0.0.2's VF cap 50000 Mb/s");
	/* The peer's cap is the peer's word: no validation of this VF. */
	ck_assert_int_eq(v.status, BENCH_STATUS_PEER_LIMITED);
	ck_assert(!v.pass);
}
END_TEST

START_TEST(bidirectional_counts_each_senders_cap)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){440.0}, 1);
	struct bench_verdict v;
	r.bidir = true;
	r.self_port.rate_mbps = r.peer_port.rate_mbps = 400000;
	r.peer_port.max_tx_rate_mbps = 100000;
	bench_judge(&r, &t, 0.9, &v);
	/* This way 397.48, back 99.37 (the peer's cap): 0.9 x 496.85 = 447.16 */
	ck_assert_double_eq_tol(v.expected_gbps, 0.9 * (NDR_CEILING + 99.36923823386705), 1e-9);
	ck_assert(!v.pass);
	ck_assert_ptr_nonnull(strstr(v.reason, "and 99.37 Gb/s the other way (bidirectional)"));
}
END_TEST

START_TEST(the_same_physical_port_is_no_link_validation)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){390.0}, 1);
	struct bench_verdict v;
	r.port = 1;
	strcpy(r.pf_bdf, "0000:18:00.0");
	memset(r.self_port.phys_port, 0xab, 16);
	memset(r.peer_port.phys_port, 0xab, 16);
	bench_judge(&r, &t, 0.9, &v);
	ck_assert(v.same_port);
	ck_assert(v.judged);
	ck_assert(!v.pass); /* 390 is 98%, but it never left the HCA */
	ck_assert_str_eq(v.reason,
			 "390.00 Gb/s is 98% of the 397.48 Gb/s payload ceiling of 400 "
			 "Gb/sec (4X NDR) (threshold 90%); through the HCA, not the link: "
			 "both ends on PF 0000:18:00.0 port 1, no link validation "
			 "(--allow-same-port accepts it)");
	r.allow_same_port = true;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert(v.pass);
	ck_assert_ptr_nonnull(strstr(v.reason,
				     "(threshold 90%); through the HCA, not the link: both ends on "
				     "PF 0000:18:00.0 port 1 (--allow-same-port)"));
	/* --min-ratio 0 measures without validating: it passes, named. */
	r.allow_same_port = false;
	bench_judge(&r, &t, 0, &v);
	ck_assert(v.pass);
	ck_assert_ptr_nonnull(
		strstr(v.reason, "(threshold 0%); through the HCA, not the link: both ends on PF "
				 "0000:18:00.0 port 1"));
	r.allow_same_port = true;
	/* Allowed, it is still held to the threshold. */
	r.sizes[0].bw_avg_gbps = 300;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert(!v.pass);
	/* Another port: a link run, judged as such. */
	r.allow_same_port = false;
	r.sizes[0].bw_avg_gbps = 390;
	r.peer_port.phys_port[12] = 2;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert(!v.same_port);
	ck_assert(v.pass);
}
END_TEST

START_TEST(the_rate_exchanged_stands_in_for_an_unplaced_device)
{
	/* A server, or a device the model does not place: the engine's own
	 * reading of its port (exchanged as self_port) is the rate. */
	struct bench_target t = {.vf_index = -1, .rate_gbps = -1};
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){2.2}, 1);
	struct bench_verdict v;
	strcpy(t.ibdev, "rxe0");
	r.mtu = 1024;
	r.ethernet = true;
	r.wire = BENCH_WIRE_ROCE_V2_IPV4;
	r.self_port.rate_mbps = 2500;
	bench_judge(&r, &t, 0.9, &v);
	/* 2.5 x 1024 / 1086 = 2.357; 2.2 is 93% of it. */
	ck_assert_double_eq_tol(v.ceiling_gbps, 2.357274401473297, 1e-12);
	ck_assert(v.pass);
	ck_assert_str_eq(v.limit, "rxe0 at 2.5 Gb/s");
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

/* Issue 28's report: a 40 Gb/s VF on a 400G 4X NDR port, the peer claiming
 * 1X SDR, was "40.00 Gb/s is 1610% of the 2.48 Gb/s payload ceiling of peer
 * ... PASS". */
START_TEST(a_peer_claiming_1x_sdr_earns_no_pass)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){40.0}, 1);
	struct bench_verdict v;
	r.self_port.rate_mbps = 400000;
	r.peer_port.rate_mbps = 2500; /* "2.5 Gb/sec (1X SDR)" */
	strcpy(r.peer, "10.0.0.2");
	bench_judge(&r, &t, 0.9, &v);
	/* 2.5 x 4096 / 4122 = 2.48; 40 is 16.1 times it. */
	ck_assert_double_eq_tol(v.ceiling_gbps, 2.5 * 4096 / 4122.0, 1e-12);
	ck_assert(!v.pass);
	ck_assert_int_eq(v.status, BENCH_STATUS_IMPOSSIBLE);
	ck_assert_str_eq(bench_status_name(v.status), "impossible");
	ck_assert_str_eq(
		v.reason,
		"impossible (peer-limited: not validated): 40.00 Gb/s is 1610% of the "
		"2.48 Gb/s payload ceiling of peer 10.0.0.2 at 2.5 Gb/s, below this side's "
		"397.48 Gb/s (threshold 90%), over 105%: more than the link carries (a "
		"measurement error, or a peer misreporting its port)");
	/* Keyed or not, threshold or not: impossible stays impossible. */
	bench_judge(&r, &t, 0, &v);
	ck_assert_int_eq(v.status, BENCH_STATUS_IMPOSSIBLE);
	/* A figure the SDR ceiling allows is the peer's limit, not a PASS. */
	r.sizes[0].bw_avg_gbps = 2.4;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert_int_eq(v.status, BENCH_STATUS_PEER_LIMITED);
	ck_assert(!v.pass);
	ck_assert_str_eq(v.reason, "peer-limited: not validated: 2.40 Gb/s is 97% of the 2.48 Gb/s "
				   "payload ceiling of peer 10.0.0.2 at 2.5 Gb/s, below this "
				   "side's 397.48 Gb/s (threshold 90%)");
}
END_TEST

START_TEST(over_105_percent_of_the_ceiling_is_impossible)
{
	struct bench_target t = ndr_vf();
	struct bench_result r = bw_run(BENCH_WRITE_BW, (double[]){1.04 * NDR_CEILING}, 1);
	struct bench_verdict v;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert_int_eq(v.status, BENCH_STATUS_PASS);
	ck_assert(v.pass);
	r.sizes[0].bw_avg_gbps = 1.05 * NDR_CEILING; /* the bound itself is possible */
	bench_judge(&r, &t, 0.9, &v);
	ck_assert_int_eq(v.status, BENCH_STATUS_PASS);
	r.sizes[0].bw_avg_gbps = 1.06 * NDR_CEILING;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert_int_eq(v.status, BENCH_STATUS_IMPOSSIBLE);
	ck_assert(!v.pass);
	ck_assert_ptr_nonnull(strstr(v.reason, "impossible: 421.33 Gb/s is 106% of the 397.48"));
	/* Bidirectional: against both ways' sum. */
	r.bidir = true;
	r.sizes[0].bw_avg_gbps = 2 * 1.04 * NDR_CEILING;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert_int_eq(v.status, BENCH_STATUS_PASS);
	r.sizes[0].bw_avg_gbps = 2 * 1.06 * NDR_CEILING;
	bench_judge(&r, &t, 0.9, &v);
	ck_assert_int_eq(v.status, BENCH_STATUS_IMPOSSIBLE);
	/* Latency has no ceiling to exceed. */
	struct bench_result l = {.test = BENCH_WRITE_LAT, .mtu = 4096, .n_sizes = 1};
	l.sizes[0].lat.n = 10;
	bench_judge(&l, &t, 0.9, &v);
	ck_assert_int_eq(v.status, BENCH_STATUS_PASS);
}
END_TEST

START_TEST(status_names)
{
	ck_assert_str_eq(bench_status_name(BENCH_STATUS_PASS), "PASS");
	ck_assert_str_eq(bench_status_name(BENCH_STATUS_FAIL), "FAIL");
	ck_assert_str_eq(bench_status_name(BENCH_STATUS_PEER_LIMITED), "peer-limited");
	ck_assert_str_eq(bench_status_name(BENCH_STATUS_IMPOSSIBLE), "impossible");
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
	tcase_add_test(tc, roce_v2_counts_ethernet_ip_and_udp);
	tcase_add_test(tc, infiniband_with_a_grh_is_held_to_393_66);
	tcase_add_test(tc, a_slower_peer_sets_the_ceiling_and_is_named);
	tcase_add_test(tc, a_vf_cap_limits_what_it_sends);
	tcase_add_test(tc, bidirectional_counts_each_senders_cap);
	tcase_add_test(tc, the_same_physical_port_is_no_link_validation);
	tcase_add_test(tc, the_rate_exchanged_stands_in_for_an_unplaced_device);
	tcase_add_test(tc, an_unknown_rate_is_not_judged_and_says_why);
	tcase_add_test(tc, latency_is_not_judged);
	tcase_add_test(tc, a_peer_claiming_1x_sdr_earns_no_pass);
	tcase_add_test(tc, over_105_percent_of_the_ceiling_is_impossible);
	tcase_add_test(tc, status_names);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
