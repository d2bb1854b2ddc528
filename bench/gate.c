// SPDX-License-Identifier: MIT
/* The bench server's door (gate.h): one poll loop over the listening
 * socket and up to GATE_MAX_PENDING connections, each reading OPEN then
 * HELLO into its own bounded buffer before its deadline. */
#include "gate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SLICE_MS 100 /* cancellation is seen within this */

enum conn_state {
	CONN_FREE,
	CONN_WANT_OPEN,
	CONN_WANT_HELLO
};

struct conn {
	enum conn_state state;
	int fd;
	int64_t deadline, since;
	uint64_t round;	   /* the poll round it was accepted in */
	size_t have, want; /* bytes read, bytes the current message needs */
	uint8_t buf[EXCHANGE_MAX_MSG];
	uint8_t nonce[EXCHANGE_NONCE_LEN];
	char peer[64];
};

#define LOG_PER_S 10 /* lines about clients per second; past it, a count */

struct gate {
	struct gate_config cfg;
	uint64_t round;
	int64_t log_second;
	unsigned int logged, held;
	struct conn conns[GATE_MAX_PENDING];
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int gate_new(const struct gate_config *cfg, struct gate **ret, struct err *e)
{
	struct gate *g = calloc(1, sizeof(*g));
	if (!g)
		return err_setx(e, ENOMEM, "out of memory");
	g->cfg = *cfg;
	for (size_t i = 0; i < GATE_MAX_PENDING; i++)
		g->conns[i].fd = -1;
	*ret = g;
	return 0;
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->state = CONN_FREE;
}

void gate_free(struct gate *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < GATE_MAX_PENDING; i++)
		conn_close(&g->conns[i]);
	free(g);
}

/* One line about a client, at most LOG_PER_S a second: a flood of
 * connections is not a flood of lines. */
static void say(struct gate *g, const struct conn *c, const char *fmt, const char *what)
{
	if (!g->cfg.log)
		return;
	char line[600];
	int64_t second = now_ms() / 1000;
	if (second != g->log_second) {
		if (g->held) {
			snprintf(line, sizeof(line),
				 "%u more clients refused or dropped in the last second (not "
				 "listed)",
				 g->held);
			g->cfg.log(line, g->cfg.log_arg);
		}
		g->log_second = second;
		g->logged = g->held = 0;
	}
	if (g->logged >= LOG_PER_S) {
		g->held++;
		return;
	}
	g->logged++;
	snprintf(line, sizeof(line), fmt, c->peer, what);
	g->cfg.log(line, g->cfg.log_arg);
}

void gate_refuse(int fd, uint32_t code, const char *text)
{
	struct exchange_msg m = {.type = EXCHANGE_ABORT, .abort = {.code = code}};
	size_t j = 0;
	for (const char *p = text; *p && j + 1 < sizeof(m.abort.text); p++)
		m.abort.text[j++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
	struct err ignored;
	exchange_send(fd, &m, 200, &ignored);
}

/* A peer of another protocol version gets its answer in its own version:
 * an ABORT's layout has not changed since version 1. */
static void refuse_version(int fd, uint16_t version)
{
	uint8_t b[EXCHANGE_HEADER_LEN + 4 + EXCHANGE_TEXT_LEN] = {'I', 'B', 'V', 'F'};
	b[4] = (uint8_t)(version >> 8);
	b[5] = (uint8_t)version;
	b[7] = EXCHANGE_ABORT;
	b[11] = 4 + EXCHANGE_TEXT_LEN;
	b[15] = EXCHANGE_ABORT_ERROR;
	snprintf((char *)b + 16, EXCHANGE_TEXT_LEN,
		 "this server speaks bench protocol %u, the client %u: use the same ibvf",
		 EXCHANGE_VERSION, version);
	(void)!send(fd, b, sizeof(b), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Refuses and forgets a connection, with one line in the log. */
static void refuse(struct gate *g, struct conn *c, uint32_t code, const char *why)
{
	gate_refuse(c->fd, code, why);
	say(g, c, "client %s refused: %s", why);
	conn_close(c);
}

static void peer_name(int fd, char *buf, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
			inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
			port = ntohs(a->sin6_port);
		} else if (ss.ss_family == AF_INET) {
			struct sockaddr_in *a = (struct sockaddr_in *)&ss;
			inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
			port = ntohs(a->sin_port);
		}
	}
	snprintf(buf, size, "%s:%u", host, port);
}

/* The connection that makes room: one that has had a poll round to speak,
 * the longest waiting for its OPEN, else the longest waiting for its hello.
 * NULL when every one came in this round. */
static struct conn *evictable(struct gate *g)
{
	struct conn *best = NULL;
	for (size_t i = 0; i < GATE_MAX_PENDING; i++) {
		struct conn *c = &g->conns[i];
		if (c->state == CONN_FREE || c->round == g->round)
			continue;
		if (!best || (c->state == CONN_WANT_OPEN && best->state != CONN_WANT_OPEN) ||
		    (c->state == best->state && c->since < best->since))
			best = c;
	}
	return best;
}

/* Takes the connections waiting on the listening socket; with the table
 * full one makes room (evictable()), else the rest wait in the backlog. */
static int take_new(struct gate *g, int64_t now, struct err *e)
{
	for (;;) {
		struct conn *slot = NULL;
		for (size_t i = 0; i < GATE_MAX_PENDING && !slot; i++)
			if (g->conns[i].state == CONN_FREE)
				slot = &g->conns[i];
		if (!slot && (slot = evictable(g))) {
			say(g, slot, "client %s dropped: %s",
			    "too many connections in their handshake");
			conn_close(slot);
		}
		if (!slot)
			return 0;
		int fd = accept4(g->cfg.lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
				return 0;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM)
				return 0; /* the deadlines free some */
			return err_set(e, errno, "cannot accept a client");
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		*slot = (struct conn){.state = CONN_WANT_OPEN,
				      .fd = fd,
				      .round = g->round,
				      .since = now,
				      .deadline = now + g->cfg.timeout_ms,
				      .want = EXCHANGE_HEADER_LEN};
		peer_name(fd, slot->peer, sizeof(slot->peer));
	}
}

/* The hello's key, against ours: NULL when it passes, else the reason. */
static const char *auth_check(const struct gate *g, const struct conn *c,
			      const struct exchange_msg *m)
{
	bool ours = g->cfg.key && g->cfg.key->set, theirs = m->params.flags & EXCHANGE_F_KEYED;
	if (ours && !theirs)
		return "key mismatch: this server wants a key (--key) and the client has none";
	if (!ours && theirs)
		return "key mismatch: the client has a key and this server has none";
	if (ours && !exchange_verify(g->cfg.key, m, c->nonce))
		return "key mismatch: the hello's HMAC is not this server's key's";
	return NULL;
}

/* A whole message is in c->buf: 1 when a client is through (ret filled). */
static int on_message(struct gate *g, struct conn *c, struct gate_client *ret)
{
	struct exchange_msg m;
	struct err e = {{0}};
	if (exchange_decode(c->buf, c->have, &m, &e) < 0) {
		refuse(g, c, EXCHANGE_ABORT_ERROR, e.msg);
		return 0;
	}
	if (c->state == CONN_WANT_OPEN) {
		if (m.type != EXCHANGE_OPEN) {
			refuse(g, c, EXCHANGE_ABORT_ERROR, "the first message is not OPEN");
			return 0;
		}
		struct exchange_msg ch = {.type = EXCHANGE_CHALLENGE};
		ch.challenge.flags = g->cfg.key && g->cfg.key->set ? EXCHANGE_CH_KEYED : 0;
		if (exchange_nonce(c->nonce, &e) < 0 ||
		    (memcpy(ch.challenge.nonce, c->nonce, EXCHANGE_NONCE_LEN),
		     exchange_send(c->fd, &ch, 200, &e) < 0)) {
			say(g, c, "client %s dropped: %s", e.msg);
			conn_close(c);
			return 0;
		}
		c->state = CONN_WANT_HELLO;
		c->have = 0;
		c->want = EXCHANGE_HEADER_LEN;
		return 0;
	}
	if (m.type == EXCHANGE_ABORT) { /* e.g. it has no key and we want one */
		say(g, c, "client %s left: %s", m.abort.text);
		conn_close(c);
		return 0;
	}
	if (m.type != EXCHANGE_HELLO) {
		refuse(g, c, EXCHANGE_ABORT_ERROR,
		       "the message after the challenge is not a hello");
		return 0;
	}
	const char *why = auth_check(g, c, &m);
	if (why) {
		refuse(g, c, EXCHANGE_ABORT_AUTH, why);
		return 0;
	}
	*ret = (struct gate_client){.fd = c->fd, .hello = m};
	memcpy(ret->server_nonce, c->nonce, EXCHANGE_NONCE_LEN);
	snprintf(ret->peer, sizeof(ret->peer), "%s", c->peer);
	c->fd = -1;
	conn_close(c);
	return 1;
}

/* Reads what c's socket has: 1 when a client is through. */
static int on_readable(struct gate *g, struct conn *c, struct gate_client *ret)
{
	while (c->state != CONN_FREE) {
		ssize_t n = recv(c->fd, c->buf + c->have, c->want - c->have, MSG_DONTWAIT);
		if (n == 0) {
			say(g, c, "client %s dropped: %s",
			    "it closed the connection before its hello");
			conn_close(c);
			return 0;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			say(g, c, "client %s dropped: %s", strerror(errno));
			conn_close(c);
			return 0;
		}
		c->have += (size_t)n;
		if (c->have < c->want)
			continue;
		if (c->want == EXCHANGE_HEADER_LEN) {
			struct err e = {{0}};
			uint16_t type, version = (uint16_t)(c->buf[4] << 8 | c->buf[5]);
			int blen = exchange_decode_header(c->buf, c->have, &type, &e);
			if (blen < 0 && !memcmp(c->buf, "IBVF", 4) && version != EXCHANGE_VERSION) {
				refuse_version(c->fd, version);
				say(g, c, "client %s refused: %s", e.msg);
				conn_close(c);
				return 0;
			}
			if (blen < 0) {
				refuse(g, c, EXCHANGE_ABORT_ERROR, e.msg);
				return 0;
			}
			c->want += (size_t)blen;
			if (c->want > c->have)
				continue;
		}
		if (on_message(g, c, ret))
			return 1;
	}
	return 0;
}

int gate_next(struct gate *g, struct gate_client *ret, struct err *e)
{
	struct pollfd p[GATE_MAX_PENDING + 1];
	struct conn *of[GATE_MAX_PENDING + 1];
	for (;;) {
		if (g->cfg.cancel && atomic_load(g->cfg.cancel))
			return err_setx(e, ECANCELED, "cancelled while waiting for a client");
		int64_t now = now_ms(), next = now + SLICE_MS;
		size_t n = 0;
		g->round++;
		p[n] = (struct pollfd){.fd = g->cfg.lfd, .events = POLLIN};
		of[n++] = NULL;
		for (size_t i = 0; i < GATE_MAX_PENDING; i++) {
			struct conn *c = &g->conns[i];
			if (c->state == CONN_FREE)
				continue;
			if (now >= c->deadline) {
				char why[96];
				snprintf(why, sizeof(why), "sent no %s within %d ms",
					 c->state == CONN_WANT_OPEN ? "OPEN" : "hello",
					 g->cfg.timeout_ms);
				gate_refuse(c->fd, EXCHANGE_ABORT_ERROR, why);
				say(g, c, "client %s dropped: %s", why);
				conn_close(c);
				continue;
			}
			if (c->deadline < next)
				next = c->deadline;
			p[n] = (struct pollfd){.fd = c->fd, .events = POLLIN};
			of[n++] = c;
		}
		int r = poll(p, (nfds_t)n, (int)(next - now));
		if (r < 0 && errno != EINTR)
			return err_set(e, errno, "cannot wait for clients");
		if (r <= 0)
			continue;
		for (size_t i = 1; i < n; i++)
			if (p[i].revents && on_readable(g, of[i], ret))
				return 0;
		if (p[0].revents & (POLLERR | POLLNVAL))
			return err_setx(e, EIO, "the listening socket failed");
		if (p[0].revents && (r = take_new(g, now_ms(), e)) < 0)
			return r;
	}
}
