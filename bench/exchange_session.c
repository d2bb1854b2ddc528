// SPDX-License-Identifier: MIT
/* A session on the control channel: phase, deadline, MACs (exchange_session.h). */
#include "exchange_session.h"

#include <errno.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#define DIR_CLIENT 'C' /* client -> server */
#define DIR_SERVER 'S'

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int exchange_session_derive(const struct exchange_key *k,
			    const uint8_t client_nonce[EXCHANGE_NONCE_LEN],
			    const uint8_t server_nonce[EXCHANGE_NONCE_LEN],
			    uint8_t out[EXCHANGE_SESSION_KEY_LEN], struct err *e)
{
	static const char label[] = "ibvf-bench-v4 session";
	uint8_t buf[sizeof(label) - 1 + 2 * EXCHANGE_NONCE_LEN];
	if (!k || !k->set)
		return err_setx(e, EINVAL, "no key to derive a session key from");
	memcpy(buf, label, sizeof(label) - 1);
	memcpy(buf + sizeof(label) - 1, client_nonce, EXCHANGE_NONCE_LEN);
	memcpy(buf + sizeof(label) - 1 + EXCHANGE_NONCE_LEN, server_nonce, EXCHANGE_NONCE_LEN);
	unsigned int len = EXCHANGE_SESSION_KEY_LEN;
	if (!HMAC(EVP_sha256(), k->bytes, (int)k->len, buf, sizeof(buf), out, &len) ||
	    len != EXCHANGE_SESSION_KEY_LEN)
		return err_setx(e, EIO, "cannot compute the session key");
	return 0;
}

int exchange_session_key(struct exchange_session *s, const struct exchange_key *k,
			 const uint8_t client_nonce[EXCHANGE_NONCE_LEN],
			 const uint8_t server_nonce[EXCHANGE_NONCE_LEN], bool client, struct err *e)
{
	int r = exchange_session_derive(k, client_nonce, server_nonce, s->key, e);
	if (r < 0)
		return r;
	s->keyed = true;
	s->client = client;
	s->tx_seq = s->rx_seq = 0;
	return 0;
}

uint64_t exchange_session_budget_ms(const struct exchange_params *p, int timeout_ms)
{
	uint64_t sizes = 1;
	if (p->flags & EXCHANGE_F_ALL_SIZES) /* 2 B .. EXCHANGE_MAX_SIZE */
		for (uint64_t size = 4; size <= EXCHANGE_MAX_SIZE; size *= 2)
			sizes++;
	uint64_t tmo = timeout_ms > 0 ? (uint64_t)timeout_ms : 0;
	return exchange_params_floor_s(p) * 1000 + (sizes + 2) * tmo;
}

void exchange_session_start(struct exchange_session *s, uint64_t budget_ms)
{
	if (budget_ms > (uint64_t)INT64_MAX / 2)
		budget_ms = (uint64_t)INT64_MAX / 2;
	s->budget_s = (budget_ms + 999) / 1000;
	s->deadline_ms = now_ms() + (int64_t)budget_ms;
}

void exchange_session_clear(struct exchange_session *s)
{
	OPENSSL_cleanse(s, sizeof(*s));
}

/* HMAC-SHA256(session key, dir || frame), truncated. */
static int mac_of(const struct exchange_session *s, uint8_t dir, const uint8_t *frame, size_t len,
		  uint8_t out[EXCHANGE_SESSION_MAC_LEN], struct err *e)
{
	uint8_t buf[1 + EXCHANGE_MAX_MSG], full[EVP_MAX_MD_SIZE];
	unsigned int n = sizeof(full);
	if (len > EXCHANGE_MAX_MSG)
		return err_setx(e, EMSGSIZE, "a frame of %zu bytes to MAC", len);
	buf[0] = dir;
	memcpy(buf + 1, frame, len);
	if (!HMAC(EVP_sha256(), s->key, EXCHANGE_SESSION_KEY_LEN, buf, 1 + len, full, &n) ||
	    n < EXCHANGE_SESSION_MAC_LEN)
		return err_setx(e, EIO, "cannot compute the HMAC");
	memcpy(out, full, EXCHANGE_SESSION_MAC_LEN);
	OPENSSL_cleanse(full, sizeof(full));
	return 0;
}

static void put_be(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

static uint64_t get_be(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

int exchange_session_seal(struct exchange_session *s, const struct exchange_msg *m, uint8_t *buf,
			  size_t size, struct err *e)
{
	int n = exchange_encode(m, buf, size, e);
	if (n < 0 || !s->keyed)
		return n;
	if ((size_t)n + EXCHANGE_SEAL_LEN > size)
		return err_setx(e, ENOSPC, "no room for the MAC");
	put_be(buf + 8, (uint64_t)(n - EXCHANGE_HEADER_LEN + EXCHANGE_SEAL_LEN), 4);
	put_be(buf + n, s->tx_seq, 8);
	int r = mac_of(s, s->client ? DIR_CLIENT : DIR_SERVER, buf, (size_t)n + 8, buf + n + 8, e);
	if (r < 0)
		return r;
	s->tx_seq++;
	return n + EXCHANGE_SEAL_LEN;
}

int exchange_session_open(struct exchange_session *s, uint8_t *buf, size_t len,
			  struct exchange_msg *ret, struct err *e)
{
	if (!s->keyed)
		return exchange_decode(buf, len, ret, e);
	if (len < EXCHANGE_HEADER_LEN + EXCHANGE_SEAL_LEN || len > EXCHANGE_MAX_MSG)
		return err_setx(e, EBADMSG,
				"a message of %zu bytes without the session's MAC in a keyed "
				"session: session ended",
				len);
	uint8_t want[EXCHANGE_SESSION_MAC_LEN];
	int r = mac_of(s, s->client ? DIR_SERVER : DIR_CLIENT, buf, len - EXCHANGE_SESSION_MAC_LEN,
		       want, e);
	if (r < 0)
		return r;
	bool ok = !CRYPTO_memcmp(want, buf + len - EXCHANGE_SESSION_MAC_LEN, sizeof(want));
	OPENSSL_cleanse(want, sizeof(want));
	if (!ok)
		return err_setx(e, EBADMSG,
				"a message from the peer has a bad MAC (altered on the way, or "
				"not from the key's holder): session ended, no result");
	uint64_t seq = get_be(buf + len - EXCHANGE_SEAL_LEN, 8);
	if (seq != s->rx_seq)
		return err_setx(e, EBADMSG,
				"a message from the peer is out of sequence (number %llu, want "
				"%llu: replayed or reordered): session ended, no result",
				(unsigned long long)seq, (unsigned long long)s->rx_seq);
	s->rx_seq++;
	len -= EXCHANGE_SEAL_LEN;
	put_be(buf + 8, len - EXCHANGE_HEADER_LEN, 4);
	return exchange_decode(buf, len, ret, e);
}

int exchange_session_send(struct exchange_session *s, int fd, const struct exchange_msg *m,
			  int timeout_ms, struct err *e)
{
	uint8_t buf[EXCHANGE_MAX_MSG];
	int n = exchange_session_seal(s, m, buf, sizeof(buf), e);
	if (n < 0)
		return n;
	return exchange_send_frame(fd, buf, (size_t)n, timeout_ms, e);
}

static int recv_one(struct exchange_session *s, int fd, struct exchange_msg *ret, int timeout_ms,
		    atomic_bool *cancel, struct err *e)
{
	uint8_t buf[EXCHANGE_MAX_MSG];
	int n = exchange_recv_frame(fd, buf, sizeof(buf), timeout_ms, cancel, e);
	if (n < 0)
		return n;
	return exchange_session_open(s, buf, (size_t)n, ret, e);
}

/* The phase a good message moves the session to: 1 for an ALIVE during a
 * run (nothing for the caller), 0 for anything else, -EPROTO for an ALIVE
 * outside one. */
static int take(struct exchange_session *s, const struct exchange_msg *m, struct err *e)
{
	if (m->type != EXCHANGE_SYNC)
		return 0;
	if (m->sync.phase == EXCHANGE_PHASE_START)
		s->running = true;
	else if (m->sync.phase == EXCHANGE_PHASE_DONE)
		s->running = false;
	else if (!s->running)
		return err_setx(e, EPROTO,
				"the peer sent ALIVE outside a run (before its START or after its "
				"DONE): session ended");
	else
		return 1;
	return 0;
}

static int past_deadline(const struct exchange_session *s, struct err *e)
{
	return err_setx(e, ETIME,
			"the session ran past its deadline (%llu s: its run at the floor of %u "
			"Gb/s and a --timeout per size): session ended",
			(unsigned long long)s->budget_s, EXCHANGE_FLOOR_MBPS / 1000);
}

int exchange_session_recv(struct exchange_session *s, int fd, struct exchange_msg *ret,
			  int timeout_ms, atomic_bool *cancel, struct err *e)
{
	for (;;) {
		int wait = timeout_ms;
		bool capped = false;
		if (s->deadline_ms) {
			int64_t left = s->deadline_ms - now_ms();
			if (left <= 0)
				return past_deadline(s, e);
			if (wait < 0 || left < wait) {
				wait = left > INT_MAX ? INT_MAX : (int)left;
				capped = true;
			}
		}
		int r = recv_one(s, fd, ret, wait, cancel, e);
		if (r == -ETIMEDOUT && capped)
			return past_deadline(s, e);
		if (r < 0)
			return r;
		if ((r = take(s, ret, e)) <= 0)
			return r;
		/* An ALIVE during the run: the wait starts again. */
	}
}

int exchange_session_poll(struct exchange_session *s, int fd, struct exchange_msg *ret,
			  struct err *e)
{
	if (s->deadline_ms && now_ms() >= s->deadline_ms)
		return past_deadline(s, e);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int r = poll(&p, 1, 0);
	if (r < 0)
		return errno == EINTR ? 0 : err_set(e, errno, "cannot poll the peer");
	if (r == 0)
		return 0;
	/* Something arrived (or EOF): the rest of a message follows promptly. */
	if ((r = recv_one(s, fd, ret, 2000, NULL, e)) < 0 || (r = take(s, ret, e)) < 0)
		return r;
	return r == 0;
}
