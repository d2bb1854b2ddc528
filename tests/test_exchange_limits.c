// SPDX-License-Identifier: MIT
/* What a peer can make the bench server allocate, wait for and print: the
 * registered buffer, the completion records, the figures it reports. Each
 * bound still lets a 400G run through. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/exchange.h"
#include "bench/exchange_auth.h"
#include "bench/internal.h"
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
	/* What fills a 400G port: 32 QPs of 8 MiB, 64 of 4 MiB, a sweep on 32
	 * (100 iterations: within EXCHANGE_MAX_SECONDS at the floor). */
	p = params(32, 8u << 20);
	p.iters = 100;
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
	p = params(64, 4u << 20);
	p.iters = 100;
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
	p = params(32, 2);
	p.iters = 100;
	p.flags = EXCHANGE_F_ALL_SIZES;
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
}
END_TEST

/* Iteration runs are held to EXCHANGE_MAX_SECONDS at the floor (1 Gb/s,
 * 1 us a message), as duration runs are: a request that would hold a
 * server for days is refused at the handshake, with the figure. */
START_TEST(an_iteration_run_past_the_time_limit_is_refused)
{
	struct err e = {{0}};
	struct exchange_params p = params(32, 8u << 20);
	p.iters = 100000000;
	p.flags = EXCHANGE_F_BIDIR;
	ck_assert_int_eq(exchange_params_validate(&p, &e), -EPROTO);
	ck_assert_msg(!strcmp(e.msg, "32 QPs x 8388608 B x 100000000 iterations take 214748365 s "
				     "at 1 Gb/s, over the 3600 s limit"),
		      "%.1500s", e.msg);
	ck_assert_int_lt(strlen(e.msg), EXCHANGE_TEXT_LEN); /* whole in an ABORT */
	ck_assert_ptr_null(strchr(e.msg, '\n'));
	/* At the floor: 8 MiB is 67.1 ms at 1 Gb/s; 53 x 32 x 67.1 ms = 113.8 s. */
	p.iters = 53;
	ck_assert_uint_eq(exchange_params_floor_s(&p), 114);
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
	/* Small messages count at 1 us each: 1e8 x 64 QPs = 6400 s. */
	p = params(64, 2);
	p.iters = 100000000;
	ck_assert_uint_eq(exchange_params_floor_s(&p), 6400);
	ck_assert_int_eq(exchange_params_validate(&p, &e), -EPROTO);
	ck_assert_msg(strstr(e.msg, "x 2 B x 100000000 iterations take 6400 s"), "%.1500s", e.msg);
	/* The limit itself passes (1e8 x 36 QPs x 1 us = 3600 s); a duration
	 * run counts its sizes. */
	p.iters = EXCHANGE_MAX_ITERS;
	p.qps = 36;
	ck_assert_uint_eq(exchange_params_floor_s(&p), 3600);
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
	p.qps = 37;
	ck_assert_int_eq(exchange_params_validate(&p, &e), -EPROTO);
	p = params(1, 65536);
	p.iters = 0;
	p.duration_s = 10;
	p.flags = EXCHANGE_F_ALL_SIZES;
	ck_assert_uint_eq(exchange_params_floor_s(&p), 230);
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
	/* A sweep's sizes x its duration is the session too: 23 x 3600 s is
	 * refused, as an iteration run past the limit is. */
	p.duration_s = EXCHANGE_MAX_SECONDS;
	ck_assert_int_eq(exchange_params_validate(&p, &e), -EPROTO);
	ck_assert_msg(!strcmp(e.msg, "23 sizes x 3600 s take 82800 s, over the 3600 s limit of a "
				     "session"),
		      "%.1500s", e.msg);
	p.flags = 0;
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
	/* A latency iteration is a round trip: 50 us at the floor, so 2e7 of
	 * them are 1000 s (a WRITE of 2 B would be 20 s), 1e8 past the limit. */
	p = params(1, 2);
	p.test = BENCH_WRITE_LAT;
	p.iters = 20000000;
	ck_assert_uint_eq(exchange_params_floor_s(&p), 1000);
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
	p.iters = EXCHANGE_MAX_ITERS;
	ck_assert_int_eq(exchange_params_validate(&p, &e), -EPROTO);
	p.test = BENCH_WRITE_BW;
	p.iters = 20000000;
	ck_assert_uint_eq(exchange_params_floor_s(&p), 20);
}
END_TEST

static int decode_sync(const struct exchange_sync *s, struct exchange_msg *d, struct err *e)
{
	uint8_t buf[EXCHANGE_MAX_MSG];
	/* Encoded by hand: the encoder refuses what the decoder would. */
	const uint8_t hdr[12] = {'I', 'B',	     'V', 'F', 0, EXCHANGE_VERSION,
				 0,   EXCHANGE_SYNC, 0,	  0,   0, 40};
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
		{{.phase = EXCHANGE_PHASE_DONE,
		  .bytes = 1 << 20,
		  .ns = 1000,
		  .msgs = 16,
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
	/* A latency run's DONE: messages, time, no bytes. */
	struct exchange_sync lat = {.phase = EXCHANGE_PHASE_DONE, .ns = 2000000, .msgs = 1000};
	ck_assert_int_eq(decode_sync(&lat, &d, &e), 0);
	ck_assert_int_eq(exchange_sync_check(&lat, 2, &e), 0);
	/* Twice the fastest port's rate (6.4 Tb/s) is the most a peer may
	 * claim; more than this port's (a real same-port or Soft-RoCE run,
	 * a short window's peak) is not refused. */
	ok.peak_kbps = 40311240; /* the peak a guest's rxe pair showed on 2.5 Gb/s */
	ok.msgs = 7629395;
	ck_assert_int_eq(exchange_sync_check(&ok, 65536, &e), 0);
	ok.bytes = 9000000000000ull;
	ok.msgs = 9000000000000ull / 65536 + 1;
	ck_assert_int_eq(exchange_sync_check(&ok, 65536, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "the peer reported an impossible figure: 9000000000000 bytes in "
				"10000000000 ns, over 6400000 Mb/s");
	ok.bytes = 500000000000ull;
	ok.msgs = 7629395; /* 500 GB in 64 KiB messages, the last one part */
	ck_assert_int_eq(exchange_sync_check(&ok, 65536, &e), 0);
	ok.bytes = 1 << 30; /* more than its messages can carry */
	ok.msgs = 10;
	ck_assert_int_eq(exchange_sync_check(&ok, 65536, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "the peer reported an impossible figure: 1073741824 bytes in 10 "
				"messages of 65536 bytes");
}
END_TEST

START_TEST(completion_records_are_bounded)
{
	/* bidir x 64 QPs x 10^8 iterations with a CQE per message asked for
	 * 6.4 G records (102 GB) a direction; the cap is 4 Mi + 1. */
	ck_assert_uint_eq(loop_records_cap(100000000ull, 64, 1), (4u << 20) + 1);
	ck_assert_uint_eq(loop_records_cap(5000, 1, 100), 5000 / 100 + 2 + 16 + 1);
	ck_assert_uint_eq(loop_records_cap(0, 8, 100), 65536 + 1);
}
END_TEST

static struct exchange_msg keyed_hello(void)
{
	struct exchange_msg m = {.type = EXCHANGE_HELLO, .params = params(1, 65536)};
	m.params.flags = EXCHANGE_F_KEYED;
	m.dest.lid = 7;
	m.dest.link_layer = EXCHANGE_LL_IB;
	m.dest.addr = 0x1000;
	m.dest.rkey = 9;
	m.dest.buf_size = 1 << 20;
	m.dest.n_qps = 1;
	m.dest.qps[0].qpn = 0x55;
	memset(m.tag.nonce, 0xc1, sizeof(m.tag.nonce));
	return m;
}

START_TEST(the_hmac_binds_the_hello_to_the_key_and_the_challenge)
{
	struct exchange_key k = {.set = true, .len = 16}, other = k;
	memcpy(k.bytes, "0123456789abcdef", 16);
	memcpy(other.bytes, "0123456789abcdeF", 16);
	uint8_t n1[EXCHANGE_NONCE_LEN], n2[EXCHANGE_NONCE_LEN];
	struct err e = {{0}};
	ck_assert_int_eq(exchange_nonce(n1, &e), 0);
	ck_assert_int_eq(exchange_nonce(n2, &e), 0);
	ck_assert_mem_ne(n1, n2, sizeof(n1));
	struct exchange_msg m = keyed_hello();
	ck_assert_int_eq(exchange_seal(&k, &m, n1, &e), 0);
	ck_assert(exchange_verify(&k, &m, n1));
	/* Replayed against another challenge, or checked with another key. */
	ck_assert(!exchange_verify(&k, &m, n2));
	ck_assert(!exchange_verify(&other, &m, n1));
	/* Any field changed, or the hello's MAC presented as an accept's. */
	struct exchange_msg t = m;
	t.params.iters++;
	ck_assert(!exchange_verify(&k, &t, n1));
	t = m;
	t.tag.nonce[0] ^= 1;
	ck_assert(!exchange_verify(&k, &t, n1));
	t = m;
	t.type = EXCHANGE_ACCEPT;
	ck_assert(!exchange_verify(&k, &t, n1));
	/* No key: nothing verifies. */
	struct exchange_key none = {0};
	ck_assert(!exchange_verify(&none, &m, n1));
}
END_TEST

START_TEST(a_key_file_is_read_with_care)
{
	char dir[] = "/tmp/ibvf-key-XXXXXX", p[300], q[300];
	struct exchange_key k;
	struct err e = {{0}};
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/key", dir);
	snprintf(q, sizeof(q), "%s/link", dir);
	tu_write(p, "short\n");
	chmod(p, 0600);
	ck_assert_int_eq(exchange_key_load(p, &k, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "holds 5 bytes, want at least 16"));
	tu_write(p, "0123456789abcdef0123\n");
	chmod(p, 0640);
	ck_assert_int_eq(exchange_key_load(p, &k, &e), -EPERM);
	ck_assert_ptr_nonnull(strstr(e.msg, "(mode 0640): chmod 600 it"));
	chmod(p, 0600);
	ck_assert_int_eq(exchange_key_load(p, &k, &e), 0);
	ck_assert(k.set);
	ck_assert_uint_eq(k.len, 20); /* without the newline */
	ck_assert_int_eq(symlink(p, q), 0);
	ck_assert_int_eq(exchange_key_load(q, &k, &e), -ELOOP);
	ck_assert_ptr_nonnull(strstr(e.msg, "(a symbolic link)"));
	unlink(q);
	ck_assert_int_eq(mkfifo(q, 0600), 0);
	ck_assert_int_eq(exchange_key_load(q, &k, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "is not a regular file"));
	unlink(q);
	unlink(p);
	rmdir(dir);
}
END_TEST

static Suite *limits_suite(void)
{
	Suite *s = suite_create("exchange_limits");
	TCase *tc = tcase_create("limits");
	tcase_add_test(tc, the_buffer_a_peer_asks_for_is_bounded);
	tcase_add_test(tc, an_iteration_run_past_the_time_limit_is_refused);
	tcase_add_test(tc, a_peer_cannot_report_an_impossible_figure);
	tcase_add_test(tc, completion_records_are_bounded);
	tcase_add_test(tc, the_hmac_binds_the_hello_to_the_key_and_the_challenge);
	tcase_add_test(tc, a_key_file_is_read_with_care);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(limits_suite());
}
