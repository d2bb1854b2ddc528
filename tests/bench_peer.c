// SPDX-License-Identifier: MIT
/* A bench control-channel peer for tests: a good client's handshake (it
 * prints the server's answer), and a flood of hostile ones. No device is
 * needed: the server's gate answers before it opens one.
 *
 *   bench_peer good HOST PORT [KEYFILE] [--eth] [--hang S]
 *                                            OPEN, CHALLENGE, HELLO; prints
 *                                            "answer: ..." and "ms: N"; --eth:
 *                                            a RoCE hello; --hang: after an
 *                                            ACCEPT, S seconds of silence
 *   bench_peer mute PORT SECONDS             a server that accepts and says
 *                                            nothing
 *   bench_peer flood HOST PORT N SECONDS     N threads at once, each of one
 *                                            kind (silent, garbage, huge hello,
 *                                            huge length, half-close, wrong
 *                                            key, old version, drip), each
 *                                            reconnecting (50 ms later) when
 *                                            dropped */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
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

static bool eth;
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
	int r = exchange_send(fd, &m, 5000, &e);
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

static void *abuse(void *arg)
{
	unsigned int kind = (unsigned int)(uintptr_t)arg % 8;
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
		}
		hold(fd);
		usleep(50000); /* at most 20 connections a second per thread */
	}
	return NULL;
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
		for (unsigned int i = 0; i < n; i++)
			pthread_create(&th[i], NULL, abuse, (void *)(uintptr_t)i);
		for (unsigned int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		printf("flood: %u at once, %u connections in %s s\n", n, atomic_load(&connects),
		       argv[5]);
		(void)answered;
		return 0;
	}
	fprintf(stderr, "usage: bench_peer good HOST PORT [KEYFILE] | flood HOST PORT N SECONDS\n");
	return 2;
}
