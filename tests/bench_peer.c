// SPDX-License-Identifier: MIT
/* A bench control-channel peer for tests: a good client's handshake (it
 * prints the server's answer), and a flood of hostile ones. No device is
 * needed: the server's gate answers before it opens one.
 *
 *   bench_peer good HOST PORT [KEYFILE] [--eth] [--big] [--hang S]
 *                                            OPEN, CHALLENGE, HELLO; prints
 *                                            "answer: ..." and "ms: N"; --eth:
 *                                            a RoCE hello; --big: 32 QPs x
 *                                            8 MiB x 1e8 iterations, both
 *                                            ways; --hang: after an
 *                                            ACCEPT, S seconds of silence
 *   bench_peer mute PORT SECONDS             a server that accepts and says
 *                                            nothing
 *   bench_peer flood HOST PORT N SECONDS     N threads at once, each of one
 *                                            kind (silent, garbage, huge hello,
 *                                            huge length, half-close, wrong
 *                                            key, old version, drip), each
 *                                            reconnecting (50 ms later) when
 *                                            dropped; with N > 8 the last one
 *                                            says OPEN, then ALIVE every 200 ms
 *   bench_peer session SCENARIO TIMEOUT_MS [KEYFILE]
 *                                            the engine's own session code
 *                                            (bench_client_handshake(),
 *                                            bench_run_size(), bench_recv())
 *                                            against a hand-made peer, in
 *                                            threads of this process:
 *     alive-flood   a server answering OPEN with ALIVE every 200 ms; the
 *                   engine's client: "client: error: ..." and "ms: N"
 *     alive-early   the engine's server (the gate, a passive write_bw run)
 *                   for two clients: the first says ALIVE after the ACCEPT
 *                   instead of START, the second runs
 *     alive-hold    one client that says START, then only ALIVE
 *     rewrite       a client reporting 40 Gb/s through a relay that
 *                   multiplies the DONE's figures by 5
 *     direct        the same client without the relay
 *                   Each server session prints "server: client K: result
 *                   G Gb/s" or "server: client K: error after N ms: ...";
 *                   the exit status is the number that ended in an error. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench/exchange.h"
#include "bench/exchange_auth.h"
#include "bench/exchange_session.h"
#include "bench/gate.h"
#include "bench/internal.h"

static const char *host, *port;
static double until;
static atomic_uint connects, answered;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int dial(void)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
	if (getaddrinfo(host, port, &hints, &res))
		return -1;
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) < 0) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd >= 0) {
		/* Closed with a reset: thousands of connections leave no
		 * TIME_WAIT holding this machine's ephemeral ports. */
		struct linger lg = {.l_onoff = 1, .l_linger = 0};
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		atomic_fetch_add(&connects, 1);
	}
	return fd;
}

static bool eth, big;
static double hang_s;

static struct exchange_msg hello(void)
{
	struct exchange_msg m = {.type = EXCHANGE_HELLO};
	m.params = (struct exchange_params){.test = BENCH_WRITE_BW,
					    .rd_atomic = 16,
					    .mtu = 5,
					    .qps = 1,
					    .tx_depth = 128,
					    .size = 65536,
					    .iters = 5000};
	m.dest.lid = 0x1a;
	m.dest.link_layer = EXCHANGE_LL_IB;
	m.dest.addr = 0x7f0000001000ull;
	m.dest.rkey = 0x1234;
	/* The server's layout (bench/dev.c): 4 slots of a cache line more. */
	m.dest.buf_size = 4 * ((65536 + 63) / 64 * 64 + 64);
	m.dest.n_qps = 1;
	m.dest.port = (struct exchange_port){
		.rate_mbps = 400000, .width = 4, .mtu = 4096, .numa_node = -1, .buf_node = -1};
	m.dest.qps[0] = (struct exchange_qp){.qpn = 0x100, .psn = 0x1234};
	if (big) { /* 32 QPs x 8 MiB x 1e8, both ways: ~12 days at 200 Gb/s */
		m.params.qps = m.dest.n_qps = 32;
		m.params.size = 8u << 20;
		m.params.iters = 1; /* 1e8 in the bytes sent: good() */
		m.params.flags |= EXCHANGE_F_BIDIR;
		for (unsigned int i = 0; i < 32; i++)
			m.dest.qps[i] = (struct exchange_qp){.qpn = 0x100 + i, .psn = 0x1234};
	}
	if (eth) { /* RoCE v2, 10.11.0.2 (rxe1 in the guest's bench scenarios) */
		m.dest.link_layer = EXCHANGE_LL_ETH;
		m.dest.lid = 0;
		m.dest.gid_index = 1;
		m.dest.gid[10] = m.dest.gid[11] = 0xff;
		m.dest.gid[12] = 10;
		m.dest.gid[13] = 11;
		m.dest.gid[15] = 2;
		m.params.mtu = 3;
		m.dest.port.mtu = 1024;
	}
	return m;
}

/* OPEN and the CHALLENGE: 0 with the nonce, -1 when the server said else. */
static int open_session(int fd, struct exchange_msg *ch, int tmo)
{
	struct exchange_msg m = {.type = EXCHANGE_OPEN};
	struct err e;
	if (exchange_send(fd, &m, tmo, &e) < 0 || exchange_recv(fd, ch, tmo, NULL, &e) < 0)
		return -1;
	return ch->type == EXCHANGE_CHALLENGE ? 0 : -1;
}

static int good(const char *keyfile)
{
	struct exchange_key key = {0};
	struct err e = {{0}};
	if (keyfile && exchange_key_load(keyfile, &key, &e) < 0) {
		fprintf(stderr, "bench_peer: %s\n", e.msg);
		return 2;
	}
	double t0 = now_s();
	int fd = dial();
	struct exchange_msg ch, m = hello(), a;
	if (fd < 0 || open_session(fd, &ch, 20000) < 0) {
		printf("answer: none (no challenge)\n");
		return 1;
	}
	if (key.set) {
		m.params.flags |= EXCHANGE_F_KEYED;
		memset(m.tag.nonce, 0x5a, sizeof(m.tag.nonce));
		exchange_seal(&key, &m, ch.challenge.nonce, &e);
	}
	int r;
	if (big) { /* the encoder refuses it: iterations (params + 24) by hand */
		uint8_t buf[EXCHANGE_MAX_MSG];
		int n = exchange_encode(&m, buf, sizeof(buf), &e);
		for (int i = 0; i < 8 && n > 0; i++)
			buf[EXCHANGE_HEADER_LEN + 24 + i] =
				(uint8_t)(100000000ull >> (8 * (7 - i)));
		r = n < 0 ? n : exchange_send_frame(fd, buf, (size_t)n, 5000, &e);
	} else {
		r = exchange_send(fd, &m, 5000, &e);
	}
	if (r == 0)
		r = exchange_recv(fd, &a, 20000, NULL, &e);
	if (r < 0)
		printf("answer: none (%s)\n", e.msg);
	else if (a.type == EXCHANGE_ABORT)
		printf("answer: abort %u: %s\n", a.abort.code, a.abort.text);
	else
		printf("answer: type %u\n", a.type);
	printf("ms: %.0f\n", (now_s() - t0) * 1000);
	fflush(stdout);
	if (r == 0 && a.type == EXCHANGE_ACCEPT && hang_s > 0) {
		/* Silent after the handshake: the server must give up on us. */
		until = now_s() + hang_s;
		double h0 = now_s();
		char b[256];
		ssize_t n = 0;
		while (now_s() < until) {
			struct pollfd p = {.fd = fd, .events = POLLIN};
			if (poll(&p, 1, 100) > 0 && (n = recv(fd, b, sizeof(b), 0)) <= 0)
				break;
		}
		printf("hang: the server closed after %.1f s\n", now_s() - h0);
	}
	close(fd);
	return r < 0;
}

/* Waits for the server to drop fd (or the flood to end). */
static void hold(int fd)
{
	char b[256];
	while (now_s() < until) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 100) > 0 && recv(fd, b, sizeof(b), 0) <= 0)
			break;
	}
	close(fd);
}

static unsigned int flood_n;

static void *abuse(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg, kind = id % 8;
	if (flood_n > 8 && id == flood_n - 1)
		kind = 8; /* one ALIVE-holding client among them */
	uint8_t buf[EXCHANGE_MAX_MSG];
	struct err e;
	while (now_s() < until) {
		int fd = dial();
		if (fd < 0) {
			usleep(20000);
			continue;
		}
		struct exchange_msg ch, m = hello();
		int n;
		switch (kind) {
		case 0: /* silent */
			break;
		case 1: /* garbage */
			(void)!write(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
			break;
		case 2: /* a hello asking for 64 QPs of 8 MiB */
			if (open_session(fd, &ch, 2000) == 0 &&
			    (n = exchange_encode(&m, buf, sizeof(buf), &e)) > 0) {
				buf[12 + 4 + 3] = 64;
				buf[12 + 16 + 5] = 0x80; /* size 8 MiB */
				(void)!write(fd, buf, (size_t)n);
			}
			break;
		case 3: { /* a header promising 4 GiB */
			uint8_t h[12] = {'I', 'B', 'V',	 'F',  0,    EXCHANGE_VERSION,
					 0,   1,   0xff, 0xff, 0xff, 0xff};
			(void)!write(fd, h, sizeof(h));
			break;
		}
		case 4: /* half-close */
			shutdown(fd, SHUT_WR);
			break;
		case 5: /* a key the server does not have */
			if (open_session(fd, &ch, 2000) == 0) {
				struct exchange_key k = {.set = true, .len = 16};
				memset(k.bytes, 0x42, 16);
				m.params.flags |= EXCHANGE_F_KEYED;
				exchange_seal(&k, &m, ch.challenge.nonce, &e);
				exchange_send(fd, &m, 2000, &e);
			}
			break;
		case 6: { /* an older ibvf's hello */
			uint8_t h[12] = {'I', 'B', 'V', 'F', 0, 2, 0, 1, 0, 0, 0, 152};
			(void)!write(fd, h, sizeof(h));
			break;
		}
		case 7: /* OPEN one byte at a time, slowly */
			for (int i = 0; i < 12 && now_s() < until; i++) {
				uint8_t h[12] = {'I', 'B', 'V', 'F', 0, EXCHANGE_VERSION, 0, 7};
				if (write(fd, h + i, 1) != 1)
					break;
				usleep(300000);
			}
			break;
		case 8: /* OPEN, then ALIVE every 200 ms instead of a hello */
			if (open_session(fd, &ch, 2000) == 0) {
				struct exchange_msg a = {.type = EXCHANGE_SYNC};
				a.sync.phase = EXCHANGE_PHASE_ALIVE;
				while (now_s() < until && exchange_send(fd, &a, 1000, &e) == 0)
					usleep(200000);
			}
			break;
		}
		hold(fd);
		usleep(50000); /* at most 20 connections a second per thread */
	}
	return NULL;
}

/* --- sessions: the engine's code against a hand-made peer ------------------ */

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&out_lock);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static int listen_any(uint16_t *ret_port)
{
	int lfd;
	struct err e;
	if (exchange_listen("127.0.0.1", 0, &lfd, ret_port, &e) < 0) {
		fprintf(stderr, "bench_peer: %s\n", e.msg);
		exit(2);
	}
	return lfd;
}

struct alive_server {
	int lfd;
	double seconds;
};

/* Answers one client's OPEN with ALIVE every 200 ms. */
static void *alive_server(void *arg)
{
	struct alive_server *a = arg;
	struct err e;
	struct exchange_msg m;
	int fd;
	if (exchange_accept(a->lfd, 5000, NULL, &fd, &e) < 0)
		return NULL;
	if (exchange_recv(fd, &m, 5000, NULL, &e) == 0 && m.type == EXCHANGE_OPEN) {
		struct exchange_msg alive = {.type = EXCHANGE_SYNC};
		alive.sync.phase = EXCHANGE_PHASE_ALIVE;
		for (double end = now_s() + a->seconds; now_s() < end; usleep(200000))
			if (exchange_send(fd, &alive, 1000, &e) < 0)
				break;
	}
	close(fd);
	return NULL;
}

/* The engine's client handshake against the ALIVE server. */
static int alive_flood(int timeout_ms)
{
	uint16_t lport;
	struct alive_server a = {.lfd = listen_any(&lport), .seconds = 10 * timeout_ms / 1000.0};
	pthread_t th;
	pthread_create(&th, NULL, alive_server, &a);
	struct bench_config cfg = bench_config_default();
	cfg.ibdev = "fake0";
	cfg.host = "127.0.0.1";
	cfg.tcp_port = lport;
	cfg.timeout_ms = timeout_ms;
	struct bench_result *res = calloc(1, sizeof(*res));
	struct bench_ctx c = {
		.cfg = &cfg, .res = res, .e = &res->err, .fd = -1, .timeout_ms = timeout_ms};
	double t0 = now_s();
	int r = bench_client_handshake(&c);
	say("client: %s%s\nms: %.0f\n", r < 0 ? "error: " : "through", r < 0 ? res->err.msg : "",
	    (now_s() - t0) * 1000);
	if (c.fd >= 0)
		close(c.fd);
	pthread_join(th, NULL);
	close(a.lfd);
	free(res);
	return r < 0;
}

struct serve {
	int lfd, n, timeout_ms, failed;
	const struct exchange_key *key;
};

/* The engine's server side of a session: the gate, an ACCEPT, then a
 * passive write_bw run (no device is touched: the client's figures are
 * the result), and the BYE. */
static void *serve(void *arg)
{
	struct serve *s = arg;
	struct gate *g;
	struct err e = {{0}};
	struct gate_config gc = {.lfd = s->lfd, .key = s->key, .timeout_ms = s->timeout_ms};
	if (gate_new(&gc, &g, &e) < 0)
		return NULL;
	for (int i = 1; i <= s->n; i++) {
		struct gate_client cl;
		if (gate_next(g, &cl, &e) < 0)
			break;
		struct bench_config cfg = bench_config_default();
		cfg.ibdev = "fake0";
		cfg.server = true;
		cfg.key = s->key;
		cfg.timeout_ms = s->timeout_ms;
		struct bench_result *res = calloc(1, sizeof(*res));
		struct bench_ctx c = {.cfg = &cfg,
				      .res = res,
				      .e = &res->err,
				      .fd = cl.fd,
				      .timeout_ms = s->timeout_ms,
				      .params = cl.hello.params};
		res->n_sizes = 1;
		struct exchange_msg a = {
			.type = EXCHANGE_ACCEPT, .params = cl.hello.params, .dest = cl.hello.dest};
		memcpy(a.tag.nonce, cl.server_nonce, EXCHANGE_NONCE_LEN);
		double t0 = now_s();
		int r = 0;
		if (s->key && s->key->set)
			r = exchange_seal(s->key, &a, cl.hello.tag.nonce, c.e);
		if (r == 0)
			r = bench_send(&c, &a);
		if (r == 0)
			r = bench_session_begin(&c, &a.params, cl.hello.tag.nonce, cl.server_nonce,
						false);
		if (r == 0)
			r = bench_run_size(&c, 0, c.params.size);
		struct exchange_msg bye;
		if (r == 0)
			r = bench_recv(&c, &bye, c.timeout_ms, EXCHANGE_BYE,
				       "waiting for the client's bye");
		if (r < 0) {
			s->failed++;
			say("server: client %d: error after %.0f ms: %s\n", i,
			    (now_s() - t0) * 1000, res->err.msg);
		} else {
			say("server: client %d: result %.2f Gb/s\n", i, res->sizes[0].bw_avg_gbps);
		}
		say("server: client %d: budget %llu ms\n", i,
		    (unsigned long long)exchange_session_budget_ms(&c.params, s->timeout_ms));
		exchange_session_clear(&c.sess);
		close(cl.fd);
		free(res);
	}
	gate_free(g);
	return NULL;
}

enum run_kind {
	RUN_GOOD,
	RUN_ALIVE_EARLY, /* ALIVE after the ACCEPT, before START */
	RUN_ALIVE_HOLD,	 /* START, then only ALIVE */
};

/* A client: the handshake, then one passive-server write_bw size reporting
 * 40 Gb/s (msgs of 64 KiB over 1 s), or ALIVE as kind says. */
static void client_run(uint16_t to, const struct exchange_key *key, enum run_kind kind,
		       double hold_s)
{
	char pbuf[8];
	snprintf(pbuf, sizeof(pbuf), "%u", to);
	host = "127.0.0.1";
	port = pbuf;
	struct err e = {{0}};
	struct exchange_msg ch, m = hello(), a;
	struct exchange_session s = {0};
	int fd = dial();
	if (fd < 0 || open_session(fd, &ch, 5000) < 0) {
		say("client: no challenge\n");
		return;
	}
	m.params.iters = 1000; /* 0.5 s at the floor: a short deadline */
	if (key) {
		m.params.flags |= EXCHANGE_F_KEYED;
		memset(m.tag.nonce, 0x5a, sizeof(m.tag.nonce));
		exchange_seal(key, &m, ch.challenge.nonce, &e);
	}
	int r = exchange_send(fd, &m, 5000, &e);
	if (r == 0)
		r = exchange_recv(fd, &a, 5000, NULL, &e);
	if (r == 0 && a.type != EXCHANGE_ACCEPT)
		r = -1, snprintf(e.msg, sizeof(e.msg), "answer type %u", a.type);
	if (r == 0 && key && !exchange_verify(key, &a, m.tag.nonce))
		r = -1, snprintf(e.msg, sizeof(e.msg), "the accept's HMAC is wrong");
	if (r == 0 && key)
		r = exchange_session_key(&s, key, m.tag.nonce, ch.challenge.nonce, true, &e);
	struct exchange_msg x = {.type = EXCHANGE_SYNC};
	if (r == 0 && kind != RUN_ALIVE_EARLY) {
		x.sync.phase = EXCHANGE_PHASE_START;
		r = exchange_session_send(&s, fd, &x, 5000, &e);
		if (r == 0)
			r = exchange_session_recv(&s, fd, &x, 5000, NULL, &e);
	}
	if (r == 0 && kind != RUN_GOOD) {
		x = (struct exchange_msg){.type = EXCHANGE_SYNC};
		x.sync.phase = EXCHANGE_PHASE_ALIVE;
		for (double end = now_s() + hold_s; r == 0 && now_s() < end; usleep(200000))
			r = exchange_session_send(&s, fd, &x, 1000, &e);
		say("client: ALIVE until %s\n", r < 0 ? "the server closed" : "the end");
	} else if (r == 0) {
		const uint64_t msgs = 76294; /* x 64 KiB in 1 s: 40.0 Gb/s */
		x = (struct exchange_msg){.type = EXCHANGE_SYNC};
		x.sync = (struct exchange_sync){.phase = EXCHANGE_PHASE_DONE,
						.bytes = msgs * 65536,
						.ns = 1000000000,
						.msgs = msgs,
						.peak_kbps = 41000000};
		struct exchange_msg bye = {.type = EXCHANGE_BYE};
		r = exchange_session_send(&s, fd, &x, 5000, &e);
		if (r == 0)
			r = exchange_session_recv(&s, fd, &x, 5000, NULL, &e);
		if (r == 0)
			r = exchange_session_send(&s, fd, &bye, 5000, &e);
		say("client: %s%s\n", r < 0 ? "error: " : "done", r < 0 ? e.msg : "");
	} else {
		say("client: error: %s\n", e.msg);
	}
	exchange_session_clear(&s);
	usleep(100000); /* the server reads the BYE before the close */
	close(fd);
}

struct relay {
	int from, to;
	unsigned int rewritten;
	bool rewrite;
};

/* Forwards frames from -> to; with rewrite, a DONE's figures times 5
 * (bytes, msgs, peak: body offsets 8, 24, 32), its MAC left as it was. */
static void *relay_dir(void *arg)
{
	struct relay *r = arg;
	uint8_t buf[EXCHANGE_MAX_MSG];
	struct err e;
	for (;;) {
		int n = exchange_recv_frame(r->from, buf, sizeof(buf), 20000, NULL, &e);
		if (n < 0)
			break;
		uint8_t *b = buf + EXCHANGE_HEADER_LEN;
		if (r->rewrite && buf[7] == EXCHANGE_SYNC && n >= EXCHANGE_HEADER_LEN + 40 &&
		    b[7] == EXCHANGE_PHASE_DONE) {
			for (int off = 8; off <= 32; off += off == 8 ? 16 : 8) {
				uint64_t v = 0;
				for (int i = 0; i < 8; i++)
					v = v << 8 | b[off + i];
				v *= 5;
				for (int i = 0; i < 8; i++)
					b[off + i] = (uint8_t)(v >> (8 * (7 - i)));
			}
			r->rewritten++;
		}
		if (exchange_send_frame(r->to, buf, (size_t)n, 5000, &e) < 0)
			break;
	}
	shutdown(r->to, SHUT_WR);
	return NULL;
}

struct relay_args {
	int lfd;
	uint16_t server_port;
	unsigned int rewritten;
};

/* An on-path host: one connection, relayed to the server. */
static void *relay(void *arg)
{
	struct relay_args *ra = arg;
	struct err e;
	int in, out;
	if (exchange_accept(ra->lfd, 10000, NULL, &in, &e) < 0)
		return NULL;
	if (exchange_connect("127.0.0.1", ra->server_port, 5000, &out, &e) < 0) {
		close(in);
		return NULL;
	}
	struct relay up = {.from = in, .to = out, .rewrite = true}, down = {.from = out, .to = in};
	pthread_t t;
	pthread_create(&t, NULL, relay_dir, &down);
	relay_dir(&up);
	pthread_join(t, NULL);
	ra->rewritten = up.rewritten;
	say("relay: rewrote %u DONE figures\n", up.rewritten);
	close(in);
	close(out);
	return NULL;
}

static int session(const char *scenario, int timeout_ms, const char *keyfile)
{
	struct exchange_key key = {0};
	struct err e = {{0}};
	if (keyfile && exchange_key_load(keyfile, &key, &e) < 0) {
		fprintf(stderr, "bench_peer: %s\n", e.msg);
		return 2;
	}
	const struct exchange_key *k = key.set ? &key : NULL;
	if (!strcmp(scenario, "alive-flood"))
		return alive_flood(timeout_ms);
	bool early = !strcmp(scenario, "alive-early"), hold = !strcmp(scenario, "alive-hold");
	bool rewrite = !strcmp(scenario, "rewrite"), direct = !strcmp(scenario, "direct");
	if (!early && !hold && !rewrite && !direct) {
		fprintf(stderr, "bench_peer: unknown scenario '%s'\n", scenario);
		return 2;
	}
	uint16_t sport, rport = 0;
	struct serve sv = {
		.lfd = listen_any(&sport), .n = early ? 2 : 1, .timeout_ms = timeout_ms, .key = k};
	pthread_t st, rt;
	pthread_create(&st, NULL, serve, &sv);
	struct relay_args ra = {.lfd = -1, .server_port = sport};
	if (rewrite) {
		ra.lfd = listen_any(&rport);
		pthread_create(&rt, NULL, relay, &ra);
	}
	double hold_s = 20 * timeout_ms / 1000.0;
	if (early) {
		client_run(sport, k, RUN_ALIVE_EARLY, hold_s);
		client_run(sport, k, RUN_GOOD, 0);
	} else if (hold) {
		client_run(sport, k, RUN_ALIVE_HOLD, hold_s);
	} else {
		client_run(rewrite ? rport : sport, k, RUN_GOOD, 0);
	}
	pthread_join(st, NULL);
	if (rewrite) {
		pthread_join(rt, NULL);
		close(ra.lfd);
	}
	close(sv.lfd);
	exchange_key_clear(&key);
	return sv.failed;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 4 && !strcmp(argv[1], "good")) {
		const char *keyfile = NULL;
		host = argv[2];
		port = argv[3];
		for (int i = 4; i < argc; i++) {
			if (!strcmp(argv[i], "--eth"))
				eth = true;
			else if (!strcmp(argv[i], "--big"))
				big = true;
			else if (!strcmp(argv[i], "--hang") && i + 1 < argc)
				hang_s = atof(argv[++i]);
			else
				keyfile = argv[i];
		}
		return good(keyfile);
	}
	if (argc == 4 && !strcmp(argv[1], "mute")) {
		int lfd;
		struct err e;
		if (exchange_listen(NULL, (uint16_t)atoi(argv[2]), &lfd, NULL, &e) < 0) {
			fprintf(stderr, "bench_peer: %s\n", e.msg);
			return 1;
		}
		int fds[64], n = 0;
		until = now_s() + atof(argv[3]);
		while (now_s() < until) {
			int fd = -1;
			if (n < 64 && exchange_accept(lfd, 100, NULL, &fd, &e) == 0)
				fds[n++] = fd;
		}
		for (int i = 0; i < n; i++)
			close(fds[i]);
		close(lfd);
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "flood")) {
		host = argv[2];
		port = argv[3];
		unsigned int n = (unsigned int)atoi(argv[4]);
		until = now_s() + atof(argv[5]);
		pthread_t th[256];
		if (n > 256)
			n = 256;
		flood_n = n;
		for (unsigned int i = 0; i < n; i++)
			pthread_create(&th[i], NULL, abuse, (void *)(uintptr_t)i);
		for (unsigned int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		printf("flood: %u at once, %u connections in %s s\n", n, atomic_load(&connects),
		       argv[5]);
		(void)answered;
		return 0;
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "session"))
		return session(argv[2], atoi(argv[3]), argc == 5 ? argv[4] : NULL);
	fprintf(stderr, "usage: bench_peer good HOST PORT [KEYFILE] | flood HOST PORT N SECONDS | "
			"session SCENARIO TIMEOUT_MS [KEYFILE]\n");
	return 2;
}
