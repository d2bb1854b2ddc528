/* SPDX-License-Identifier: MIT */
/* The control channel's shared secret: a key file read with care, and an
 * HMAC-SHA256 (OpenSSL libcrypto) on the hello and the accept. The server
 * opens each session with a CHALLENGE carrying a fresh nonce; the client's
 * HELLO is MACed over that nonce (a captured hello does not open another
 * session), and the server's ACCEPT over the client's nonce. Without a key
 * the tags are zero and the server says it is open. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/exchange.h"
#include "core/base/err.h"

#define EXCHANGE_KEY_MIN 16
#define EXCHANGE_KEY_MAX 1024
/* Where `--key` is taken from when it is not given. */
#define EXCHANGE_KEY_ENV "IBVF_BENCH_KEY_FILE"

struct exchange_key {
	bool set;
	size_t len;
	uint8_t bytes[EXCHANGE_KEY_MAX];
};

/* Reads the key in path: a regular file (not a link, FIFO or device), owned
 * by this user or root, readable by no one else, EXCHANGE_KEY_MIN ..
 * EXCHANGE_KEY_MAX bytes (a trailing newline is not part of it). */
int exchange_key_load(const char *path, struct exchange_key *ret, struct err *e);
void exchange_key_clear(struct exchange_key *k);
/* A fresh random nonce (getrandom). */
int exchange_nonce(uint8_t out[EXCHANGE_NONCE_LEN], struct err *e);
/* Sets m->tag.mac (m a HELLO or ACCEPT, its tag.nonce set) for the peer's
 * nonce. */
int exchange_seal(const struct exchange_key *k, struct exchange_msg *m,
		  const uint8_t peer_nonce[EXCHANGE_NONCE_LEN], struct err *e);
/* Whether m's MAC is the one k gives for peer_nonce (constant time). */
bool exchange_verify(const struct exchange_key *k, const struct exchange_msg *m,
		     const uint8_t peer_nonce[EXCHANGE_NONCE_LEN]);
