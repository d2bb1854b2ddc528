// SPDX-License-Identifier: MIT
/* What a peer can make the bench server allocate, wait for and print: the
 * registered buffer, the completion records, the figures it reports. Each
 * bound still lets a 400G run through. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "bench/exchange.h"
#include "testutil.h"

static struct exchange_params params(unsigned int qps, uint64_t size)
{
	return (struct exchange_params){.test = BENCH_WRITE_BW,
					.rd_atomic = 16,
					.mtu = 5,
					.qps = qps,
					.tx_depth = 128,
					.size = size,
					.iters = 5000};
}

START_TEST(the_buffer_a_peer_asks_for_is_bounded)
{
	struct err e = {{0}};
	struct exchange_params p = params(64, 8u << 20);
	ck_assert_int_eq(exchange_params_validate(&p, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "64 QPs of 8388608-byte messages ask for 512 MiB, over the "
				"256 MiB limit");
	/* A sweep's buffer holds its largest message, whatever size is given. */
	p = params(33, 65536);
	p.flags = EXCHANGE_F_ALL_SIZES;
	ck_assert_int_eq(exchange_params_validate(&p, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "33 QPs of 8388608-byte messages ask for 264 MiB, over the "
				"256 MiB limit");
	/* What fills a 400G port: 32 QPs of 8 MiB, 64 of 4 MiB, a sweep on 32. */
	p = params(32, 8u << 20);
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
	p = params(64, 4u << 20);
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
	p = params(32, 2);
	p.flags = EXCHANGE_F_ALL_SIZES;
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
}
END_TEST

static int decode_sync(const struct exchange_sync *s, struct exchange_msg *d, struct err *e)
{
	uint8_t buf[EXCHANGE_MAX_MSG];
	/* Encoded by hand: the encoder refuses what the decoder would. */
	const uint8_t hdr[12] = {'I', 'B', 'V', 'F', 0, EXCHANGE_VERSION, 0, EXCHANGE_SYNC,
				 0,   0,   0,   40};
	uint64_t f[6] = {s->step, s->phase, s->bytes, s->ns, s->msgs, s->peak_kbps};
	int w[6] = {4, 4, 8, 8, 8, 8};
	size_t n = 12;
	memcpy(buf, hdr, sizeof(hdr));
	for (int i = 0; i < 6; i++)
		for (int b = w[i] - 1; b >= 0; b--)
			buf[n++] = (uint8_t)(f[i] >> (8 * b));
	memset(e, 0, sizeof(*e));
	return exchange_decode(buf, n, d, e);
}

START_TEST(a_peer_cannot_report_an_impossible_figure)
{
	struct exchange_msg d;
	struct err e;
	const struct {
		struct exchange_sync s;
		const char *want;
	} bad[] = {
		{{.phase = EXCHANGE_PHASE_DONE, .bytes = UINT64_MAX, .ns = 1000000000, .msgs = 1},
		 "the peer reported an impossible figure: 18446744073709551615 bytes (limit "
		 "1125899906842624)"},
		{{.phase = EXCHANGE_PHASE_DONE, .bytes = 1 << 20, .ns = UINT64_MAX, .msgs = 16},
		 "the peer reported an impossible figure: 18446744073709551615 ns (limit "
		 "14400000000000)"},
		{{.phase = EXCHANGE_PHASE_DONE, .bytes = 1 << 20, .ns = 1000, .msgs = 1ull << 40},
		 "the peer reported an impossible figure: 1099511627776 messages for 1048576 "
		 "bytes"},
		{{.phase = EXCHANGE_PHASE_DONE, .bytes = 1 << 20, .ns = 1000, .msgs = 16,
		  .peak_kbps = UINT64_MAX},
		 "the peer reported an impossible figure: peak 18446744073709551615 kb/s (limit "
		 "6400000000)"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(decode_sync(&bad[i].s, &d, &e), -EPROTO);
		ck_assert_str_eq(e.msg, bad[i].want);
	}
	/* 400 Gb/s for 10 s: 500 GB, 7.6 M messages of 64 KiB. */
	struct exchange_sync ok = {.phase = EXCHANGE_PHASE_DONE,
				   .bytes = 500000000000ull,
				   .ns = 10000000000ull,
				   .msgs = 7629394,
				   .peak_kbps = 398000000};
	ck_assert_int_eq(decode_sync(&ok, &d, &e), 0);
}
END_TEST

static Suite *limits_suite(void)
{
	Suite *s = suite_create("exchange_limits");
	TCase *tc = tcase_create("limits");
	tcase_add_test(tc, the_buffer_a_peer_asks_for_is_bounded);
	tcase_add_test(tc, a_peer_cannot_report_an_impossible_figure);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(limits_suite());
}
