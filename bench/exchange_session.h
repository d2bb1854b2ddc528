/* SPDX-License-Identifier: MIT */
/* A session on the control channel after the handshake: its phase, its
 * deadline, and with a key its MACs.
 *
 * - ALIVE is a peer's word that its loop runs: taken only between a START
 *   and that peer's DONE (it restarts a wait, never the deadline); anywhere
 *   else it is a protocol error.
 * - The deadline: the run at the floor (exchange_params_floor_s()) and one
 *   --timeout per size and two more, from the ACCEPT, on this side's clock.
 *   No wait goes past it, whatever the peer sends.
 * - Keyed (after a keyed ACCEPT): a session key HMAC-SHA256(shared key,
 *   "ibvf-bench-v4 session" || client nonce || server nonce); every message
 *   both ways carries a trailer of a u64 sequence number (0, 1, ... per
 *   direction) and HMAC-SHA256(session key, direction || frame) truncated to
 *   16 bytes, the frame being the header (its length counting the trailer),
 *   the body and the sequence number. A bad MAC, or a sequence number other
 *   than the next, ends the session. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/exchange.h"
#include "bench/exchange_auth.h"
#include "core/base/err.h"

#define EXCHANGE_SESSION_KEY_LEN 32
#define EXCHANGE_SESSION_MAC_LEN 16

/* Zero-initialised: unkeyed, no deadline, not in a run. */
struct exchange_session {
	bool keyed, client;
	bool running;	     /* between a START and the peer's DONE: ALIVE is taken */
	int64_t deadline_ms; /* CLOCK_MONOTONIC ms; 0: none yet */
	uint64_t budget_s;   /* what the deadline was set to, for its message */
	uint64_t tx_seq, rx_seq;
	uint8_t key[EXCHANGE_SESSION_KEY_LEN];
};

/* The session key of a shared key and both nonces. */
int exchange_session_derive(const struct exchange_key *k,
			    const uint8_t client_nonce[EXCHANGE_NONCE_LEN],
			    const uint8_t server_nonce[EXCHANGE_NONCE_LEN],
			    uint8_t out[EXCHANGE_SESSION_KEY_LEN], struct err *e);
/* Keys the session from now on (both sides, right after the ACCEPT). */
int exchange_session_key(struct exchange_session *s, const struct exchange_key *k,
			 const uint8_t client_nonce[EXCHANGE_NONCE_LEN],
			 const uint8_t server_nonce[EXCHANGE_NONCE_LEN], bool client,
			 struct err *e);
/* Milliseconds a session of these parameters may last from its ACCEPT. */
uint64_t exchange_session_budget_ms(const struct exchange_params *p, int timeout_ms);
/* Starts the deadline: budget_ms from now. */
void exchange_session_start(struct exchange_session *s, uint64_t budget_ms);
void exchange_session_clear(struct exchange_session *s);

/* Encodes (and with a key seals) m into buf: its length, or < 0. */
int exchange_session_seal(struct exchange_session *s, const struct exchange_msg *m, uint8_t *buf,
			  size_t size, struct err *e);
/* Checks (with a key) and decodes one frame of len bytes. */
int exchange_session_open(struct exchange_session *s, uint8_t *buf, size_t len,
			  struct exchange_msg *ret, struct err *e);

int exchange_session_send(struct exchange_session *s, int fd, const struct exchange_msg *m,
			  int timeout_ms, struct err *e);
/* One message within timeout_ms (< 0: none) and the deadline; ALIVE during
 * a run restarts the wait. -ETIMEDOUT when timeout_ms passed, -ETIME when
 * the deadline did, -EPROTO for an ALIVE outside a run, -EBADMSG for a bad
 * MAC or sequence number. */
int exchange_session_recv(struct exchange_session *s, int fd, struct exchange_msg *ret,
			  int timeout_ms, atomic_bool *cancel, struct err *e);
/* During a loop: 1 with a message other than ALIVE in ret, 0 when none is
 * pending, < 0 as exchange_session_recv() (and -ETIME past the deadline). */
int exchange_session_poll(struct exchange_session *s, int fd, struct exchange_msg *ret,
			  struct err *e);
