// SPDX-License-Identifier: MIT
/* The bench control channel's wire format against truncated, oversized,
 * wrong-version, wrong-magic and hostile input, and its sockets against a
 * peer that sends garbage or nothing. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/exchange.h"
#include "bench/exchange_session.h"
#include "testutil.h"

static struct exchange_msg good_hello(unsigned int qps)
{
	struct exchange_msg m = {.type = EXCHANGE_HELLO};
	m.params = (struct exchange_params){.test = BENCH_WRITE_BW,
					    .flags = EXCHANGE_F_BIDIR,
					    .rd_atomic = 16,
					    .mtu = 5,
					    .qps = qps,
					    .tx_depth = 128,
					    .size = 65536,
					    .iters = 5000};
	m.dest.lid = 0x1a;
	m.dest.link_layer = EXCHANGE_LL_IB;
	m.dest.gid[0] = 0xfe;
	m.dest.gid[1] = 0x80;
	m.dest.gid[15] = 0x86;
	m.dest.addr = 0x7f0000001000ull;
	m.dest.rkey = 0x1234;
	m.dest.buf_size = 1 << 20;
	m.dest.n_qps = (uint16_t)qps;
	m.dest.port = (struct exchange_port){.rate_mbps = 400000,
					     .max_tx_rate_mbps = 200000,
					     .width = 4,
					     .mtu = 4096,
					     .phys_port = {0xde, 0xad, [15] = 0x01},
					     .cm_ipv4 = {10, 0, 0, 7},
					     .numa_node = -1,
					     .buf_node = 1,
					     .cpu = 17};
	for (unsigned int i = 0; i < qps; i++)
		m.dest.qps[i] = (struct exchange_qp){.qpn = 0x100 + i, .psn = 0xabcdef - i};
	return m;
}

static int encode(const struct exchange_msg *m, uint8_t *buf)
{
	struct err e = {{0}};
	int n = exchange_encode(m, buf, EXCHANGE_MAX_MSG, &e);
	ck_assert_msg(n > 0, "encode failed: %s", e.msg);
	return n;
}

/* Overwrites a big-endian field at off in an encoded message. */
static void poke(uint8_t *buf, size_t off, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--, v >>= 8)
		buf[off + (size_t)i] = (uint8_t)v;
}

/* Offsets inside a HELLO: header 12, params at 12, dest at 44, port at 88. */
#define P_OFF	 12
#define D_OFF	 44
#define OFF_QPS	 (P_OFF + 4)
#define OFF_SIZE (P_OFF + 16)
#define OFF_ITER (P_OFF + 24)
#define OFF_RKEY (D_OFF + 28)
#define OFF_NQPS (D_OFF + 34)
#define PT_OFF	 (D_OFF + 44)
#define OFF_QPN0 (PT_OFF + 40)

static int decode(const uint8_t *buf, size_t len, struct exchange_msg *m, struct err *e)
{
	memset(e, 0, sizeof(*e));
	return exchange_decode(buf, len, m, e);
}

START_TEST(hello_round_trips_in_network_order)
{
	struct exchange_msg m = good_hello(3), d;
	uint8_t buf[EXCHANGE_MAX_MSG];
	int n = encode(&m, buf);
	ck_assert_int_eq(n, 12 + 32 + 44 + 40 + 3 * 8 + 64);
	/* magic 'IBVF', version 4, type 1, body length, big-endian. */
	ck_assert_mem_eq(buf, "IBVF\x00\x04\x00\x01", 8);
	ck_assert_uint_eq(buf[11], 32 + 44 + 40 + 24 + 64);
	ck_assert_uint_eq(buf[OFF_SIZE + 5], 0x01); /* 65536 = 0x10000 */
	struct err e;
	ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), 0);
	ck_assert_uint_eq(d.type, EXCHANGE_HELLO);
	ck_assert_mem_eq(&d.params, &m.params, sizeof(m.params));
	ck_assert_uint_eq(d.dest.lid, 0x1a);
	ck_assert_uint_eq(d.dest.addr, m.dest.addr);
	ck_assert_uint_eq(d.dest.rkey, 0x1234);
	ck_assert_uint_eq(d.dest.n_qps, 3);
	ck_assert_uint_eq(d.dest.qps[2].qpn, 0x102);
	ck_assert_uint_eq(d.dest.qps[2].psn, 0xabcdef - 2);
	ck_assert_mem_eq(d.dest.gid, m.dest.gid, 16);
	ck_assert_mem_eq(&d.dest.port, &m.dest.port, sizeof(m.dest.port));
	ck_assert_int_eq(d.dest.port.numa_node, -1);
	ck_assert_uint_eq(buf[PT_OFF + 1], 0x06); /* 400000 Mb/s = 0x00061a80 */
	/* The GRH flag (a client's --gid-index, a server's decision) crosses. */
	m.params.flags |= EXCHANGE_F_GRH;
	n = encode(&m, buf);
	ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), 0);
	ck_assert_uint_eq(d.params.flags, EXCHANGE_F_BIDIR | EXCHANGE_F_GRH);
}
END_TEST

START_TEST(every_other_type_round_trips)
{
	struct exchange_msg in[] = {
		{.type = EXCHANGE_SYNC,
		 .sync = {.step = 3,
			  .phase = EXCHANGE_PHASE_DONE,
			  .bytes = 1ull << 40,
			  .ns = 7,
			  .msgs = 9,
			  .peak_kbps = 397500000}},
		{.type = EXCHANGE_MISMATCH,
		 .mismatch = {.param = EXCHANGE_P_SIZE,
			      .server_value = 65536,
			      .client_value = 4096}},
		{.type = EXCHANGE_ABORT,
		 .abort = {.code = EXCHANGE_ABORT_CANCELLED, .text = "bye"}},
		/* Link layers differ: the text is the sender's device. */
		{.type = EXCHANGE_ABORT,
		 .abort = {.code = EXCHANGE_ABORT_LINK_LAYER, .text = "mlx5_3"}},
		{.type = EXCHANGE_BYE},
	};
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		uint8_t buf[EXCHANGE_MAX_MSG];
		struct exchange_msg d;
		struct err e;
		int n = encode(&in[i], buf);
		ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), 0);
		ck_assert_uint_eq(d.type, in[i].type);
		ck_assert_mem_eq(&d.sync, &in[i].sync, sizeof(d.sync));
		ck_assert_mem_eq(&d.mismatch, &in[i].mismatch, sizeof(d.mismatch));
		ck_assert_str_eq(d.abort.text, in[i].abort.text);
	}
}
END_TEST

START_TEST(truncated_input_is_rejected_at_every_length)
{
	struct exchange_msg m = good_hello(2), d;
	uint8_t buf[EXCHANGE_MAX_MSG];
	int n = encode(&m, buf);
	struct err e;
	for (int len = 0; len < n; len++) {
		ck_assert_int_eq(decode(buf, (size_t)len, &d, &e), -EPROTO);
		ck_assert_str_ne(e.msg, "");
	}
	ck_assert_int_eq(decode(buf, 5, &d, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "truncated header: 5 of 12 bytes");
}
END_TEST

START_TEST(oversized_input_is_rejected)
{
	struct exchange_msg m = good_hello(1), d;
	uint8_t buf[EXCHANGE_MAX_MSG + 16] = {0};
	int n = encode(&m, buf);
	struct err e;
	/* Trailing bytes after the body the header announces. */
	ck_assert_int_eq(decode(buf, (size_t)n + 1, &d, &e), -EPROTO);
	/* A header announcing 4 GiB must be refused before any read of it. */
	poke(buf, 8, 0xffffffffu, 4);
	uint16_t type;
	ck_assert_int_eq(exchange_decode_header(buf, 12, &type, &e), -EMSGSIZE);
	ck_assert_ptr_nonnull(strstr(e.msg, "over the limit"));
	/* A body length that does not match the type. */
	poke(buf, 8, 32 + 44 + 40 + 16, 4);
	ck_assert_int_eq(decode(buf, 12 + 32 + 44 + 40 + 16, &d, &e), -EPROTO);
}
END_TEST

START_TEST(wrong_magic_and_version_are_named)
{
	struct exchange_msg m = good_hello(1), d;
	uint8_t buf[EXCHANGE_MAX_MSG];
	int n = encode(&m, buf);
	struct err e;
	memcpy(buf, "GET ", 4);
	ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), -EPROTO);
	ck_assert_str_eq(e.msg,
			 "not an ibvf bench peer (magic 0x47455420, want 0x49425646 'IBVF')");
	n = encode(&m, buf);
	poke(buf, 4, 1, 2);
	ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "protocol version 1, this ibvf speaks version 4");
	n = encode(&m, buf);
	poke(buf, 6, 99, 2);
	ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "unknown message type 99");
}
END_TEST

/* Each case pokes one field of a good HELLO into a hostile value. */
START_TEST(hostile_fields_are_rejected)
{
	const struct {
		size_t off;
		uint64_t v;
		int bytes;
		const char *want;
	} cases[] = {
		{OFF_QPS, 65, 4, "65 QPs out of range 1..64"},
		{OFF_QPS, 0, 4, "0 QPs out of range 1..64"},
		{OFF_ITER, 1ull << 40, 8, "1099511627776 iterations over the limit 100000000"},
		{OFF_ITER, 0, 8, "exactly one of iterations (0) and duration (0 s) must be set"},
		{OFF_SIZE, 0, 8, "message size 0 out of range 1..8388608"},
		{OFF_SIZE, 1ull << 33, 8, "message size 8589934592 out of range 1..8388608"},
		{P_OFF + 0, 7, 1, "unknown test kind 7"},
		{P_OFF + 1, 0x80, 1, "unknown flags 0x80"},
		{P_OFF + 3, 9, 1, "path MTU code 9 out of range 1..5"},
		{P_OFF + 8, 100000, 4, "tx depth 100000 out of range 1..8192"},
		{OFF_RKEY, 0, 4, "zero rkey"},
		{D_OFF + 20, 0, 8, "zero buffer address"},
		{D_OFF + 0, 0, 2, "LID 0x0 is not a unicast LID"},
		{D_OFF + 2, 3, 1, "unknown link layer 3"},
		{D_OFF + 36, 1ull << 40, 8, "buffer size 1099511627776 out of range 1..1073741824"},
		{PT_OFF + 0, 3200001, 4,
		 "port rate 3200001 / cap 200000 Mb/s over the limit 3200000"},
		{PT_OFF + 8, 3, 1, "port width 3 is not 1, 2, 4, 8 or 12"},
		{PT_OFF + 9, 1, 1, "port padding is not zero"},
		{PT_OFF + 10, 1500, 2, "port MTU 1500 is not 256 .. 4096"},
		{PT_OFF + 32, 0xfffe, 2, "NUMA node -2 / 1 out of range -1..1023"},
		{PT_OFF + 34, 1024, 2, "NUMA node -1 / 1024 out of range -1..1023"},
		{PT_OFF + 38, 1, 2, "port padding is not zero"},
		{OFF_QPN0, 0, 4, "QP 0: number 0x0 out of range"},
		{OFF_QPN0, 0x1000000, 4, "QP 0: number 0x1000000 out of range"},
		{OFF_QPN0 + 4, 0x1000000, 4, "QP 0: PSN 0x1000000 over 24 bits"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct exchange_msg m = good_hello(1), d;
		uint8_t buf[EXCHANGE_MAX_MSG];
		int n = encode(&m, buf);
		poke(buf, cases[i].off, cases[i].v, cases[i].bytes);
		struct err e;
		ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), -EPROTO);
		ck_assert_str_eq(e.msg, cases[i].want);
	}
}
END_TEST

/* With --cm, the peer's rdma_cm address is where this side connects: an
 * address that is no one host's (0.0.0.0/8, multicast, 240/4, broadcast) is
 * refused by name; a unicast one decodes. */
START_TEST(a_cm_address_that_is_no_host_is_rejected)
{
	static const struct {
		uint8_t a[4];
		const char *want;
	} cases[] = {
		{{0, 0, 0, 0}, "rdma_cm address 0.0.0.0 is not a unicast host address"},
		{{0, 1, 2, 3}, "rdma_cm address 0.1.2.3 is not a unicast host address"},
		{{224, 0, 0, 1}, "rdma_cm address 224.0.0.1 is not a unicast host address"},
		{{239, 255, 255, 250}, "rdma_cm address 239.255.255.250 is not a unicast host"},
		{{240, 0, 0, 1}, "rdma_cm address 240.0.0.1 is not a unicast host address"},
		{{255, 255, 255, 255}, "rdma_cm address 255.255.255.255 is not a unicast host"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct exchange_msg m = good_hello(1), d;
		m.params.flags |= EXCHANGE_F_CM;
		uint8_t buf[EXCHANGE_MAX_MSG];
		int n = encode(&m, buf);
		memcpy(buf + PT_OFF + 28, cases[i].a, 4); /* after u32 rate, cap, u8 width, pad,
							     u16 mtu, u8 phys_port[16] */
		struct err e;
		ck_assert_msg(decode(buf, (size_t)n, &d, &e) == -EPROTO, "case %zu decoded", i);
		ck_assert_msg(strstr(e.msg, cases[i].want), "case %zu: %s", i, e.msg);
	}
	struct exchange_msg m = good_hello(1), d;
	m.params.flags |= EXCHANGE_F_CM;
	uint8_t buf[EXCHANGE_MAX_MSG];
	int n = encode(&m, buf);
	struct err e;
	ck_assert_msg(decode(buf, (size_t)n, &d, &e) == 0, "10.0.0.7 refused: %s", e.msg);
}
END_TEST

START_TEST(qp_count_is_bounded_before_the_length_is_trusted)
{
	struct exchange_msg m = good_hello(1), d;
	uint8_t buf[EXCHANGE_MAX_MSG];
	int n = encode(&m, buf);
	struct err e;
	poke(buf, OFF_NQPS, 0xffff, 2);
	ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "65535 QPs over the limit 64");
	/* Two QPs described while params announce one. */
	m = good_hello(2);
	m.params.qps = 1;
	struct err e2 = {{0}};
	ck_assert_int_eq(exchange_encode(&m, buf, sizeof(buf), &e2), -EINVAL);
	m = good_hello(2);
	n = encode(&m, buf);
	poke(buf, OFF_QPS, 1, 4);
	ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "2 QPs described, 1 announced");
}
END_TEST

START_TEST(abort_text_must_be_printable_and_terminated)
{
	struct exchange_msg m = {.type = EXCHANGE_ABORT, .abort = {.code = 2, .text = "x"}}, d;
	uint8_t buf[EXCHANGE_MAX_MSG];
	int n = encode(&m, buf);
	struct err e;
	buf[16] = 0x1b; /* ESC: terminal escapes from a peer are not printed */
	ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "abort text has a non-printable byte 0x1b");
	memset(buf + 16, 'A', EXCHANGE_TEXT_LEN);
	ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "abort text is not terminated");
	n = encode(&m, buf);
	poke(buf, 12, 77, 4);
	ck_assert_int_eq(decode(buf, (size_t)n, &d, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "unknown abort code 77");
}
END_TEST

START_TEST(latency_tests_refuse_several_qps_and_reads_need_depth)
{
	struct exchange_params p = good_hello(1).params;
	struct err e = {{0}};
	p.test = BENCH_WRITE_LAT;
	ck_assert_int_eq(exchange_params_validate(&p, &e), -EPROTO); /* bidir */
	p.flags = 0;
	ck_assert_int_eq(exchange_params_validate(&p, &e), 0);
	p.test = BENCH_READ_BW;
	p.rd_atomic = 0;
	ck_assert_int_eq(exchange_params_validate(&p, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "a READ test needs at least 1 outstanding read");
	p.rd_atomic = 1;
	p.iters = 0;
	p.duration_s = 3601;
	ck_assert_int_eq(exchange_params_validate(&p, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "duration 3601 s over the limit 3600 s");
}
END_TEST

START_TEST(random_bytes_never_decode_to_a_valid_hello)
{
	/* Hostile noise: must be rejected without crashing (ASan/UBSan watch). */
	srand(42);
	uint8_t buf[EXCHANGE_MAX_MSG + 64];
	for (int round = 0; round < 20000; round++) {
		size_t len = (size_t)rand() % sizeof(buf);
		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rand();
		if (round % 2) /* half with a valid header, to reach the body checks */
			memcpy(buf, "IBVF\x00\x01\x00\x01", len < 8 ? len : 8);
		struct exchange_msg d;
		struct err e;
		int r = decode(buf, len, &d, &e);
		ck_assert(r == 0 || r == -EPROTO || r == -EMSGSIZE);
	}
}
END_TEST

START_TEST(mismatch_names_the_parameter_and_both_values)
{
	struct exchange_params s = good_hello(1).params, c = s;
	struct exchange_mismatch mm;
	c.size = 4096;
	c.test = BENCH_READ_BW;
	/* Only pinned parameters count: the server said nothing of the test. */
	ck_assert_int_eq(exchange_params_compare(&s, &c, EXCHANGE_PIN(EXCHANGE_P_SIZE), &mm), 1);
	char text[160];
	exchange_mismatch_describe(&mm, text, sizeof(text));
	ck_assert_str_eq(text, "parameter 'size' differs: server has 65536, client asked for 4096");
	ck_assert_int_eq(exchange_params_compare(&s, &c, EXCHANGE_PIN(EXCHANGE_P_QPS), &mm), 0);
	ck_assert_int_eq(exchange_params_compare(&s, &c, EXCHANGE_PIN(EXCHANGE_P_TEST), &mm), 1);
	exchange_mismatch_describe(&mm, text, sizeof(text));
	ck_assert_str_eq(text,
			 "parameter 'test' differs: server has write_bw, client asked for read_bw");
	c = s;
	c.flags = 0;
	ck_assert_int_eq(exchange_params_compare(&s, &c, ~0u, &mm), 1);
	exchange_mismatch_describe(&mm, text, sizeof(text));
	ck_assert_str_eq(text,
			 "parameter 'bidirectional' differs: server has on, client asked for off");
	ck_assert_int_eq(exchange_test_parse("read_lat"), BENCH_READ_LAT);
	ck_assert_int_eq(exchange_test_parse("send_bw"), -EINVAL);
}
END_TEST

/* --- sockets ---------------------------------------------------------------- */

START_TEST(recv_times_out_on_a_silent_peer_and_rejects_garbage)
{
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	struct exchange_msg m;
	struct err e = {{0}};
	ck_assert_int_eq(exchange_recv(sv[0], &m, 200, NULL, &e), -ETIMEDOUT);
	ck_assert_str_eq(e.msg, "the peer sent nothing (timed out)");
	const char garbage[] = "GET / HTTP/1"; /* one header's worth */
	ck_assert_int_eq(write(sv[1], garbage, sizeof(garbage) - 1), sizeof(garbage) - 1);
	ck_assert_int_eq(exchange_recv(sv[0], &m, 200, NULL, &e), -EPROTO);
	ck_assert_ptr_nonnull(strstr(e.msg, "not an ibvf bench peer"));
	/* A header that promises more than it sends: bounded by the timeout. */
	uint8_t hdr[12] = {'I', 'B', 'V', 'F', 0, EXCHANGE_VERSION, 0, EXCHANGE_SYNC, 0, 0, 0, 40};
	ck_assert_int_eq(write(sv[1], hdr, sizeof(hdr)), sizeof(hdr));
	ck_assert_int_eq(exchange_recv(sv[0], &m, 200, NULL, &e), -ETIMEDOUT);
	close(sv[1]);
	ck_assert_int_eq(exchange_recv(sv[0], &m, 200, NULL, &e), -ECONNRESET);
	ck_assert_str_eq(e.msg, "the peer closed the connection");
	close(sv[0]);
}
END_TEST

START_TEST(recv_ends_when_cancelled)
{
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	atomic_bool cancel = true;
	struct exchange_msg m;
	struct err e = {{0}};
	ck_assert_int_eq(exchange_recv(sv[0], &m, -1, &cancel, &e), -ECANCELED);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(tcp_connect_send_recv_and_refused)
{
	int lfd, cfd, afd;
	uint16_t port;
	struct err e = {{0}};
	ck_assert_int_eq(exchange_listen("127.0.0.1", 0, &lfd, &port, &e), 0);
	ck_assert_uint_ne(port, 0);
	ck_assert_int_eq(exchange_connect("127.0.0.1", port, 2000, &cfd, &e), 0);
	ck_assert_int_eq(exchange_accept(lfd, 2000, NULL, &afd, &e), 0);
	struct exchange_msg m = good_hello(4), d;
	ck_assert_int_eq(exchange_send(cfd, &m, 1000, &e), 0);
	struct exchange_session sess = {0}; /* unkeyed, no deadline */
	ck_assert_int_eq(exchange_session_poll(&sess, afd, &d, &e), 1);
	ck_assert_uint_eq(d.dest.qps[3].qpn, 0x103);
	ck_assert_int_eq(exchange_session_poll(&sess, afd, &d, &e), 0);
	close(cfd);
	close(afd);
	close(lfd);
	ck_assert_int_eq(exchange_connect("127.0.0.1", port, 1000, &cfd, &e), -ECONNREFUSED);
	ck_assert_ptr_nonnull(strstr(e.msg, "cannot connect to '127.0.0.1' port"));
	ck_assert_int_eq(exchange_accept(-1, 0, NULL, &afd, &e) < 0, 1);
}
END_TEST

static Suite *exchange_suite(void)
{
	Suite *s = suite_create("exchange");
	TCase *tc = tcase_create("wire");
	tcase_add_test(tc, hello_round_trips_in_network_order);
	tcase_add_test(tc, every_other_type_round_trips);
	tcase_add_test(tc, truncated_input_is_rejected_at_every_length);
	tcase_add_test(tc, oversized_input_is_rejected);
	tcase_add_test(tc, wrong_magic_and_version_are_named);
	tcase_add_test(tc, hostile_fields_are_rejected);
	tcase_add_test(tc, a_cm_address_that_is_no_host_is_rejected);
	tcase_add_test(tc, qp_count_is_bounded_before_the_length_is_trusted);
	tcase_add_test(tc, abort_text_must_be_printable_and_terminated);
	tcase_add_test(tc, latency_tests_refuse_several_qps_and_reads_need_depth);
	tcase_add_test(tc, random_bytes_never_decode_to_a_valid_hello);
	tcase_add_test(tc, mismatch_names_the_parameter_and_both_values);
	suite_add_tcase(s, tc);
	TCase *io = tcase_create("sockets");
	tcase_add_test(io, recv_times_out_on_a_silent_peer_and_rejects_garbage);
	tcase_add_test(io, recv_ends_when_cancelled);
	tcase_add_test(io, tcp_connect_send_recv_and_refused);
	suite_add_tcase(s, io);
	return s;
}

int main(void)
{
	return tu_run_suite(exchange_suite());
}
