/* SPDX-License-Identifier: MIT */
/* The bench server's door: every connection on the listening socket is
 * held to a deadline, bounded in number, and has to say OPEN, take the
 * CHALLENGE and send a valid (with a key: authenticated) HELLO before the
 * server opens its device for it. Everything else is refused with a named
 * reason, or dropped at its deadline, and the gate keeps listening: a
 * crowd of silent or hostile peers does not keep a good client out. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/exchange.h"
#include "bench/exchange_auth.h"
#include "core/base/err.h"

#define GATE_MAX_PENDING 256 /* connections in their handshake at once */
#define GATE_BACKLOG	 128 /* the listening socket's backlog (exchange_listen) */

/* One line about a client the gate refused or dropped. */
typedef void (*gate_log_fn)(const char *line, void *arg);

struct gate_config {
	int lfd;			/* listening, non-blocking */
	const struct exchange_key *key; /* NULL or unset: open */
	int timeout_ms;			/* each connection's deadline for its hello */
	atomic_bool *cancel;		/* may be NULL */
	gate_log_fn log;		/* may be NULL */
	void *log_arg;
};

/* A client through the gate: its connection, hello and our challenge. */
struct gate_client {
	int fd;
	struct exchange_msg hello;
	uint8_t server_nonce[EXCHANGE_NONCE_LEN];
	char peer[64]; /* "address:port" */
};

struct gate;

int gate_new(const struct gate_config *cfg, struct gate **ret, struct err *e);
/* Closes the connections still in their handshake. NULL is fine. */
void gate_free(struct gate *g);
/* Serves the door until a client is through: 0 and ret filled (the caller
 * owns ret->fd), or -ECANCELED, or another -errno when the listening
 * socket fails. */
int gate_next(struct gate *g, struct gate_client *ret, struct err *e);
/* Refuses a client after the gate (busy, a local failure): one ABORT. */
void gate_refuse(int fd, uint32_t code, const char *text);
