// SPDX-License-Identifier: MIT
/* The control channel's session after the ACCEPT (bench/exchange_session.h):
 * the session key, the MAC and sequence number on every keyed message
 * (altered, replayed, reordered and reflected frames), ALIVE only during a
 * run, and the deadline no ALIVE moves. Over socketpairs, no device. */
#include <check.h>
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench/exchange_session.h"
#include "testutil.h"

static struct exchange_key key_of(char c)
{
	struct exchange_key k = {.set = true, .len = 32};
	memset(k.bytes, c, k.len);
	return k;
}

static const uint8_t cn[EXCHANGE_NONCE_LEN] = {1, 2, 3}, sn[EXCHANGE_NONCE_LEN] = {9, 8, 7};

/* A client's and a server's session under the same key and nonces. */
static void pair(struct exchange_session *c, struct exchange_session *s)
{
	struct exchange_key k = key_of('k');
	struct err e = {{0}};
	*c = (struct exchange_session){0};
	*s = (struct exchange_session){0};
	ck_assert_int_eq(exchange_session_key(c, &k, cn, sn, true, &e), 0);
	ck_assert_int_eq(exchange_session_key(s, &k, cn, sn, false, &e), 0);
}

static struct exchange_msg sync_msg(uint32_t phase, uint64_t bytes)
{
	struct exchange_msg m = {.type = EXCHANGE_SYNC};
	m.sync = (struct exchange_sync){.phase = phase,
					.bytes = bytes,
					.ns = bytes ? 1000000000 : 0,
					.msgs = bytes / 65536};
	return m;
}

START_TEST(the_session_key_is_hmac_of_the_shared_key_and_both_nonces)
{
	struct exchange_key k = key_of('k'), other = key_of('o');
	struct err e = {{0}};
	uint8_t got[EXCHANGE_SESSION_KEY_LEN], want[EVP_MAX_MD_SIZE], x[EXCHANGE_SESSION_KEY_LEN];
	ck_assert_int_eq(exchange_session_derive(&k, cn, sn, got, &e), 0);
	/* HMAC-SHA256(key, "ibvf-bench-v4 session" || client nonce || server nonce). */
	uint8_t in[21 + 2 * EXCHANGE_NONCE_LEN];
	memcpy(in, "ibvf-bench-v4 session", 21);
	memcpy(in + 21, cn, EXCHANGE_NONCE_LEN);
	memcpy(in + 21 + EXCHANGE_NONCE_LEN, sn, EXCHANGE_NONCE_LEN);
	unsigned int n = 0;
	ck_assert_ptr_nonnull(HMAC(EVP_sha256(), k.bytes, (int)k.len, in, sizeof(in), want, &n));
	ck_assert_uint_eq(n, EXCHANGE_SESSION_KEY_LEN);
	ck_assert_mem_eq(got, want, EXCHANGE_SESSION_KEY_LEN);
	/* Each input counts: the nonces' order, either nonce, the key. */
	ck_assert_int_eq(exchange_session_derive(&k, sn, cn, x, &e), 0);
	ck_assert(memcmp(x, got, sizeof(x)));
	uint8_t cn2[EXCHANGE_NONCE_LEN] = {1, 2, 4};
	ck_assert_int_eq(exchange_session_derive(&k, cn2, sn, x, &e), 0);
	ck_assert(memcmp(x, got, sizeof(x)));
	ck_assert_int_eq(exchange_session_derive(&other, cn, sn, x, &e), 0);
	ck_assert(memcmp(x, got, sizeof(x)));
	struct exchange_key none = {0};
	ck_assert_int_eq(exchange_session_derive(&none, cn, sn, x, &e), -EINVAL);
}
END_TEST

START_TEST(keyed_messages_round_trip_in_sequence_both_ways)
{
	struct exchange_session c, s;
	pair(&c, &s);
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	struct err e = {{0}};
	struct exchange_msg m;
	for (int i = 0; i < 3; i++) {
		struct exchange_msg d = sync_msg(EXCHANGE_PHASE_DONE, 65536ull * (i + 1));
		ck_assert_int_eq(exchange_session_send(&c, sv[0], &d, 1000, &e), 0);
		ck_assert_msg(exchange_session_recv(&s, sv[1], &m, 1000, NULL, &e) == 0, "%.1500s",
			      e.msg);
		ck_assert_uint_eq(m.sync.bytes, 65536ull * (i + 1));
		struct exchange_msg bye = {.type = EXCHANGE_BYE};
		ck_assert_int_eq(exchange_session_send(&s, sv[1], &bye, 1000, &e), 0);
		ck_assert_msg(exchange_session_recv(&c, sv[0], &m, 1000, NULL, &e) == 0, "%.1500s",
			      e.msg);
		ck_assert_uint_eq(m.type, EXCHANGE_BYE);
	}
	ck_assert_uint_eq(c.tx_seq, 3);
	ck_assert_uint_eq(s.rx_seq, 3);
	/* The wire: the body and 24 bytes more (sequence number, MAC). */
	uint8_t buf[EXCHANGE_MAX_MSG];
	struct exchange_msg d = sync_msg(EXCHANGE_PHASE_DONE, 65536);
	ck_assert_int_eq(exchange_session_seal(&c, &d, buf, sizeof(buf), &e),
			 EXCHANGE_HEADER_LEN + 40 + EXCHANGE_SEAL_LEN);
	ck_assert_uint_eq(buf[11], 40 + EXCHANGE_SEAL_LEN);
	ck_assert_uint_eq(buf[EXCHANGE_HEADER_LEN + 40 + 7], 3); /* its sequence number */
	/* An unkeyed session's messages are as before: no trailer. */
	struct exchange_session open = {0};
	ck_assert_int_eq(exchange_session_seal(&open, &d, buf, sizeof(buf), &e),
			 EXCHANGE_HEADER_LEN + 40);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(an_altered_figure_a_replay_a_reorder_and_a_reflection_end_the_session)
{
	struct exchange_session c, s;
	struct err e = {{0}};
	struct exchange_msg m;
	uint8_t f0[EXCHANGE_MAX_MSG], f1[EXCHANGE_MAX_MSG], t[EXCHANGE_MAX_MSG];
	struct exchange_msg d0 = sync_msg(EXCHANGE_PHASE_DONE, 65536 * 100);
	struct exchange_msg d1 = sync_msg(EXCHANGE_PHASE_DONE, 65536 * 200);

	/* The figure (bytes, body offset 8) times 5 on the way: a bad MAC. */
	pair(&c, &s);
	int n0 = exchange_session_seal(&c, &d0, f0, sizeof(f0), &e);
	ck_assert_int_gt(n0, 0);
	memcpy(t, f0, (size_t)n0);
	uint64_t bytes = 65536 * 100 * 5;
	for (int i = 0; i < 8; i++)
		t[EXCHANGE_HEADER_LEN + 8 + i] = (uint8_t)(bytes >> (8 * (7 - i)));
	ck_assert_int_eq(exchange_session_open(&s, t, (size_t)n0, &m, &e), -EBADMSG);
	ck_assert_msg(strstr(e.msg, "a message from the peer has a bad MAC"), "%.1500s", e.msg);
	ck_assert_ptr_null(strchr(e.msg, '\n'));
	/* The MAC or the sequence number itself changed: the same. */
	memcpy(t, f0, (size_t)n0);
	t[n0 - 1] ^= 1;
	ck_assert_int_eq(exchange_session_open(&s, t, (size_t)n0, &m, &e), -EBADMSG);
	memcpy(t, f0, (size_t)n0);
	t[n0 - EXCHANGE_SEAL_LEN + 7] = 1;
	ck_assert_int_eq(exchange_session_open(&s, t, (size_t)n0, &m, &e), -EBADMSG);
	ck_assert_msg(strstr(e.msg, "bad MAC"), "%.1500s", e.msg);
	/* Without a trailer (an unkeyed frame, or the trailer cut off). */
	struct exchange_session open = {0};
	int u = exchange_session_seal(&open, &d0, t, sizeof(t), &e);
	ck_assert_int_eq(exchange_session_open(&s, t, (size_t)u, &m, &e), -EBADMSG);
	ck_assert_int_eq(exchange_session_open(&s, t, EXCHANGE_HEADER_LEN, &m, &e), -EBADMSG);
	/* The good frame still opens: nothing was taken from the sequence. */
	memcpy(t, f0, (size_t)n0);
	ck_assert_msg(exchange_session_open(&s, t, (size_t)n0, &m, &e) == 0, "%.1500s", e.msg);
	ck_assert_uint_eq(m.sync.bytes, 65536 * 100);

	/* Replayed: the same frame again. */
	memcpy(t, f0, (size_t)n0);
	ck_assert_int_eq(exchange_session_open(&s, t, (size_t)n0, &m, &e), -EBADMSG);
	ck_assert_msg(strstr(e.msg, "out of sequence (number 0, want 1: replayed or reordered)"),
		      "%.1500s", e.msg);

	/* Reordered: the second frame first. */
	pair(&c, &s);
	n0 = exchange_session_seal(&c, &d0, f0, sizeof(f0), &e);
	int n1 = exchange_session_seal(&c, &d1, f1, sizeof(f1), &e);
	ck_assert_int_eq(exchange_session_open(&s, f1, (size_t)n1, &m, &e), -EBADMSG);
	ck_assert_msg(strstr(e.msg, "out of sequence (number 1, want 0"), "%.1500s", e.msg);

	/* Reflected: the client's own frame sent back to it. */
	pair(&c, &s);
	n0 = exchange_session_seal(&c, &d0, f0, sizeof(f0), &e);
	ck_assert_int_eq(exchange_session_open(&c, f0, (size_t)n0, &m, &e), -EBADMSG);
	ck_assert_msg(strstr(e.msg, "bad MAC"), "%.1500s", e.msg);

	/* Another session (other nonces): its frames do not open this one. */
	struct exchange_session c2 = {0};
	struct exchange_key k = key_of('k');
	uint8_t sn2[EXCHANGE_NONCE_LEN] = {9, 8, 6};
	ck_assert_int_eq(exchange_session_key(&c2, &k, cn, sn2, true, &e), 0);
	pair(&c, &s);
	n0 = exchange_session_seal(&c2, &d0, f0, sizeof(f0), &e);
	ck_assert_int_eq(exchange_session_open(&s, f0, (size_t)n0, &m, &e), -EBADMSG);
}
END_TEST

static void send_raw(int fd, struct exchange_session *s, struct exchange_msg m)
{
	struct err e = {{0}};
	ck_assert_int_eq(exchange_session_send(s, fd, &m, 1000, &e), 0);
}

START_TEST(alive_is_taken_only_between_start_and_done)
{
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	struct exchange_session tx = {0}, rx = {0};
	struct err e = {{0}};
	struct exchange_msg m;
	/* Before START (waiting for a CHALLENGE, an ACCEPT, a START): refused
	 * at once, not waited through. */
	send_raw(sv[0], &tx, sync_msg(EXCHANGE_PHASE_ALIVE, 0));
	double t0 = tu_now_s();
	ck_assert_int_eq(exchange_session_recv(&rx, sv[1], &m, 5000, NULL, &e), -EPROTO);
	ck_assert_msg(!strcmp(e.msg, "the peer sent ALIVE outside a run (before its START or "
				     "after its DONE): session ended"),
		      "%.1500s", e.msg);
	ck_assert_double_lt(tu_now_s() - t0, 2.5);
	/* During the run: skipped, the DONE comes through. */
	rx = (struct exchange_session){0};
	send_raw(sv[0], &tx, sync_msg(EXCHANGE_PHASE_START, 0));
	for (int i = 0; i < 5; i++)
		send_raw(sv[0], &tx, sync_msg(EXCHANGE_PHASE_ALIVE, 0));
	send_raw(sv[0], &tx, sync_msg(EXCHANGE_PHASE_DONE, 65536));
	ck_assert_int_eq(exchange_session_recv(&rx, sv[1], &m, 1000, NULL, &e), 0);
	ck_assert_uint_eq(m.sync.phase, EXCHANGE_PHASE_START);
	ck_assert_msg(exchange_session_recv(&rx, sv[1], &m, 1000, NULL, &e) == 0, "%.1500s", e.msg);
	ck_assert_uint_eq(m.sync.phase, EXCHANGE_PHASE_DONE);
	/* After the peer's DONE (waiting for BYE or the next START): refused. */
	send_raw(sv[0], &tx, sync_msg(EXCHANGE_PHASE_ALIVE, 0));
	ck_assert_int_eq(exchange_session_recv(&rx, sv[1], &m, 1000, NULL, &e), -EPROTO);
	/* A loop's poll: ALIVE is nothing, a DONE is a message, ALIVE after it
	 * an error. */
	rx = (struct exchange_session){0};
	send_raw(sv[0], &tx, sync_msg(EXCHANGE_PHASE_START, 0));
	ck_assert_int_eq(exchange_session_recv(&rx, sv[1], &m, 1000, NULL, &e), 0);
	send_raw(sv[0], &tx, sync_msg(EXCHANGE_PHASE_ALIVE, 0));
	usleep(20000);
	ck_assert_int_eq(exchange_session_poll(&rx, sv[1], &m, &e), 0);
	ck_assert_int_eq(exchange_session_poll(&rx, sv[1], &m, &e), 0);
	send_raw(sv[0], &tx, sync_msg(EXCHANGE_PHASE_DONE, 65536));
	usleep(20000);
	ck_assert_int_eq(exchange_session_poll(&rx, sv[1], &m, &e), 1);
	send_raw(sv[0], &tx, sync_msg(EXCHANGE_PHASE_ALIVE, 0));
	usleep(20000);
	ck_assert_int_eq(exchange_session_poll(&rx, sv[1], &m, &e), -EPROTO);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

struct alive_writer {
	int fd;
	double seconds;
};

/* A peer that started a run and then only says ALIVE, every 50 ms. */
static void *alive_forever(void *arg)
{
	struct alive_writer *w = arg;
	struct exchange_session tx = {0};
	struct exchange_msg m = sync_msg(EXCHANGE_PHASE_START, 0);
	struct err e;
	exchange_session_send(&tx, w->fd, &m, 1000, &e);
	m.sync.phase = EXCHANGE_PHASE_ALIVE;
	for (double end = tu_now_s() + w->seconds; tu_now_s() < end; usleep(50000))
		if (exchange_session_send(&tx, w->fd, &m, 1000, &e) < 0)
			break;
	return NULL;
}

START_TEST(no_alive_holds_a_session_past_its_deadline)
{
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	const double budget_s = 0.4 * tu_time_scale(), hold_s = 10 * budget_s;
	struct alive_writer w = {.fd = sv[0], .seconds = hold_s};
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, alive_forever, &w), 0);
	struct exchange_session rx = {0};
	struct err e = {{0}};
	struct exchange_msg m;
	double t0 = tu_now_s();
	exchange_session_start(&rx, (uint64_t)(budget_s * 1000));
	ck_assert_int_eq(exchange_session_recv(&rx, sv[1], &m, -1, NULL, &e), 0); /* START */
	/* Each ALIVE would restart a 1 s wait for ever: the deadline ends it. */
	ck_assert_int_eq(
		exchange_session_recv(&rx, sv[1], &m, 1000 * (int)tu_time_scale(), NULL, &e),
		-ETIME);
	double took = tu_now_s() - t0;
	ck_assert_msg(strstr(e.msg, "the session ran past its deadline ("), "%.1500s", e.msg);
	ck_assert_msg(took >= budget_s * 0.9 && took < hold_s / 2,
		      "ended after %.2f s, deadline %.2f s, the peer held %.2f s", took, budget_s,
		      hold_s);
	/* And a loop's poll says so too. */
	ck_assert_int_eq(exchange_session_poll(&rx, sv[1], &m, &e), -ETIME);
	close(sv[1]);
	pthread_join(th, NULL);
	close(sv[0]);
}
END_TEST

START_TEST(the_deadline_is_the_run_at_the_floor_and_a_timeout_per_size)
{
	struct exchange_params p = {.test = BENCH_WRITE_BW,
				    .rd_atomic = 16,
				    .mtu = 5,
				    .qps = 1,
				    .tx_depth = 128,
				    .size = 65536,
				    .iters = 5000};
	/* 5000 x 64 KiB at 1 Gb/s: 2.62 s, rounded up; 1 size + 2 timeouts. */
	ck_assert_uint_eq(exchange_session_budget_ms(&p, 10000), 3000 + 3 * 10000);
	p.flags = EXCHANGE_F_ALL_SIZES; /* 23 sizes */
	p.iters = 10;
	ck_assert_uint_eq(exchange_session_budget_ms(&p, 1000),
			  exchange_params_floor_s(&p) * 1000 + 25 * 1000);
	p.iters = 0;
	p.duration_s = 5;
	p.flags = 0;
	ck_assert_uint_eq(exchange_session_budget_ms(&p, 2000), 5000 + 3 * 2000);
}
END_TEST

static Suite *session_suite(void)
{
	Suite *s = suite_create("exchange_session");
	TCase *tc = tcase_create("session");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, the_session_key_is_hmac_of_the_shared_key_and_both_nonces);
	tcase_add_test(tc, keyed_messages_round_trip_in_sequence_both_ways);
	tcase_add_test(tc, an_altered_figure_a_replay_a_reorder_and_a_reflection_end_the_session);
	tcase_add_test(tc, alive_is_taken_only_between_start_and_done);
	tcase_add_test(tc, no_alive_holds_a_session_past_its_deadline);
	tcase_add_test(tc, the_deadline_is_the_run_at_the_floor_and_a_timeout_per_size);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(session_suite());
}
