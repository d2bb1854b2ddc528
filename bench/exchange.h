/* SPDX-License-Identifier: MIT */
/* The benchmark's control channel: a small TCP exchange of test parameters
 * and connection details (QP numbers, PSNs, GID/LID, buffer address, rkey),
 * then start/done barriers, results, aborts.
 *
 * Wire format, all integers in network byte order:
 *   header  u32 magic 'IBVF', u16 version, u16 type, u32 body length
 *   body    fixed layout per type (see exchange.c), length-checked
 * Every field is validated on decode: a peer is not trusted. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"

#define EXCHANGE_MAGIC 0x49425646u /* "IBVF" */
/* Version 3: OPEN and CHALLENGE before the hello, a nonce and an HMAC on
 * HELLO and ACCEPT (exchange_auth.h), ALIVE syncs during a run.
 * Version 4: after a keyed ACCEPT every message carries a sequence number
 * and a MAC under a session key (exchange_session.h); ALIVE only during a
 * run; iteration runs bounded by EXCHANGE_MAX_SECONDS at the floor rate. */
#define EXCHANGE_VERSION     4
#define EXCHANGE_HEADER_LEN  12
#define EXCHANGE_MAX_QPS     64
#define EXCHANGE_MAX_SIZE    (8u << 20) /* 8 MiB, the top of a sweep */
#define EXCHANGE_MAX_ITERS   100000000ull
#define EXCHANGE_MAX_SECONDS 3600u
#define EXCHANGE_MAX_DEPTH   8192u
/* The floor a run is held to: its data at 1 Gb/s, and at least 1 us per
 * message (1 M messages/s over all QPs). An iteration run that would take longer
 * than EXCHANGE_MAX_SECONDS at the floor is refused; every session's
 * deadline is its run at the floor (exchange_params_floor_s()). */
#define EXCHANGE_FLOOR_MBPS   1000u
#define EXCHANGE_FLOOR_MSG_NS 1000u
/* A latency test's iteration is a round trip, one at a time (2-4 us on
 * InfiniBand, tens of us on Soft-RoCE): its floor is 50 us. */
#define EXCHANGE_FLOOR_LAT_NS 50000u
#define EXCHANGE_MAX_BUF      (1ull << 30)
/* The largest message times the QPs: the registered buffer a peer can ask
 * for (32 QPs of 8 MiB; a 400G port is full with far less). */
#define EXCHANGE_MAX_MR_BYTES (256ull << 20)
/* What a peer may report for one size: bytes, messages, nanoseconds. */
#define EXCHANGE_MAX_BYTES (1ull << 50)
#define EXCHANGE_MAX_NS	   (4ull * EXCHANGE_MAX_SECONDS * 1000000000ull)
#define EXCHANGE_NONCE_LEN 32
#define EXCHANGE_MAC_LEN   32
/* A keyed session's trailer on every message after the ACCEPT: u64
 * sequence number, HMAC-SHA256 truncated to 16 bytes (exchange_session.h). */
#define EXCHANGE_SEAL_LEN (8 + 16)
#define EXCHANGE_MAX_BODY (32 + 44 + 40 + 8 * EXCHANGE_MAX_QPS + 64 + EXCHANGE_SEAL_LEN)
#define EXCHANGE_MAX_MSG  (EXCHANGE_HEADER_LEN + EXCHANGE_MAX_BODY)
#define EXCHANGE_TEXT_LEN 96

enum exchange_type {
	EXCHANGE_HELLO = 1,    /* client -> server: params + dest */
	EXCHANGE_ACCEPT = 2,   /* server -> client: params as run + dest */
	EXCHANGE_MISMATCH = 3, /* server -> client: which parameter differs */
	EXCHANGE_SYNC = 4,     /* barrier, optionally carrying a result */
	EXCHANGE_ABORT = 5,    /* the peer gives up: code and reason */
	EXCHANGE_BYE = 6,
	EXCHANGE_OPEN = 7,	/* client -> server, first: empty */
	EXCHANGE_CHALLENGE = 8, /* server -> client: flags and the server's nonce */
};

/* Test kinds, as on the wire. */
enum bench_test {
	BENCH_WRITE_BW = 0,
	BENCH_READ_BW = 1,
	BENCH_WRITE_LAT = 2,
	BENCH_READ_LAT = 3,
};

#define EXCHANGE_F_BIDIR     0x01
#define EXCHANGE_F_ALL_SIZES 0x02
#define EXCHANGE_F_CM	     0x04
/* HELLO: the client asks for a GRH (its --gid-index); ACCEPT: the
 * connection sends one (the server decides for both, bench/wire.h). */
#define EXCHANGE_F_GRH 0x08
/* HELLO: the client has a key and its MAC is set (ACCEPT echoes it). */
#define EXCHANGE_F_KEYED 0x10
#define EXCHANGE_F_KNOWN 0x1f

struct exchange_params {
	uint8_t test;	   /* enum bench_test */
	uint8_t flags;	   /* EXCHANGE_F_* */
	uint8_t rd_atomic; /* outstanding reads the sender can do (initiator depth) */
	uint8_t mtu;	   /* enum ibv_mtu, 1..5 */
	uint32_t qps;
	uint32_t tx_depth;
	uint32_t duration_s; /* exactly one of duration_s and iters is non-zero */
	uint64_t size;
	uint64_t iters;
};

struct exchange_qp {
	uint32_t qpn, psn; /* 24 bits each */
};

#define EXCHANGE_LL_IB	1
#define EXCHANGE_LL_ETH 2

#define EXCHANGE_MAX_RATE_MBPS 3200000u /* 3.2 Tb/s: above any port today */
#define EXCHANGE_MAX_NODE      1023
#define EXCHANGE_NO_CPU	       0xffffu

/* Version 2: the sender's port and placement, for a verdict that knows both
 * ends and a report that says where each side ran. Zero (-1 for the nodes,
 * EXCHANGE_NO_CPU for cpu) is "unknown". */
struct exchange_port {
	uint32_t rate_mbps;	   /* the port's rate, as sysfs `rate` gives it */
	uint32_t max_tx_rate_mbps; /* the VF's cap on its PF (IFLA_VF_TX_RATE), 0: none */
	uint8_t width;		   /* lanes: 1, 2, 4, 8, 12 */
	uint16_t mtu;		   /* active MTU in bytes: 256 .. 4096 */
	uint8_t phys_port[16];	   /* the physical port's identity: equal on both sides
				      when they share one port (through the HCA) */
	uint8_t cm_ipv4[4];	   /* with rdma_cm: the sender's address, network order */
	int16_t numa_node;	   /* the HCA's NUMA node */
	int16_t buf_node;	   /* where the sender's buffer lies */
	uint16_t cpu;		   /* the CPU the sender's thread ran on */
};

struct exchange_dest {
	uint16_t lid;
	uint8_t link_layer; /* EXCHANGE_LL_* */
	uint8_t gid_index;
	uint8_t gid[16];
	uint64_t addr, buf_size;
	uint32_t rkey;
	uint16_t cm_port; /* rdma_cm listen port with EXCHANGE_F_CM, else 0 */
	uint16_t n_qps;
	struct exchange_port port;
	struct exchange_qp qps[EXCHANGE_MAX_QPS];
};

/* Parameters that must agree; named in a MISMATCH answer. */
enum exchange_param {
	EXCHANGE_P_TEST = 1,
	EXCHANGE_P_SIZE,
	EXCHANGE_P_ITERS,
	EXCHANGE_P_DURATION,
	EXCHANGE_P_QPS,
	EXCHANGE_P_TX_DEPTH,
	EXCHANGE_P_BIDIR,
	EXCHANGE_P_ALL_SIZES,
	EXCHANGE_P_CM,
	EXCHANGE_P_LINK_LAYER,
	EXCHANGE_P_MAX = EXCHANGE_P_LINK_LAYER,
};
#define EXCHANGE_PIN(p) (1u << (p))

struct exchange_mismatch {
	uint16_t param; /* enum exchange_param */
	uint64_t server_value, client_value;
};

enum exchange_phase {
	EXCHANGE_PHASE_START = 1,
	EXCHANGE_PHASE_DONE = 2,
	EXCHANGE_PHASE_ALIVE = 3, /* the active side, every 250 ms of a loop */
};

struct exchange_sync {
	uint32_t step;	/* index of the message size in a sweep */
	uint32_t phase; /* enum exchange_phase */
	uint64_t bytes, ns, msgs;
	uint64_t peak_kbps; /* peak bandwidth in kbit/s */
};

enum exchange_abort_code {
	EXCHANGE_ABORT_CANCELLED = 1,
	EXCHANGE_ABORT_ERROR = 2,
	/* The link layers differ; the text is the sender's device name, so
	 * that each side names both devices. */
	EXCHANGE_ABORT_LINK_LAYER = 3,
	EXCHANGE_ABORT_AUTH = 4, /* the server refused the client's key (or none) */
	EXCHANGE_ABORT_BUSY = 5, /* the server is serving another client */
};

struct exchange_abort {
	uint32_t code;
	char text[EXCHANGE_TEXT_LEN]; /* NUL-terminated, printable ASCII */
};

#define EXCHANGE_CH_KEYED 0x1 /* CHALLENGE: the server wants a key */

struct exchange_challenge {
	uint32_t flags; /* EXCHANGE_CH_* */
	uint8_t nonce[EXCHANGE_NONCE_LEN];
};

/* HELLO and ACCEPT: the sender's nonce and the HMAC (exchange_auth.h); all
 * zero without a key. */
struct exchange_tag {
	uint8_t nonce[EXCHANGE_NONCE_LEN];
	uint8_t mac[EXCHANGE_MAC_LEN];
};

struct exchange_msg {
	uint16_t type;			     /* enum exchange_type */
	struct exchange_tag tag;	     /* HELLO, ACCEPT */
	struct exchange_challenge challenge; /* CHALLENGE */
	struct exchange_params params;	     /* HELLO, ACCEPT */
	struct exchange_dest dest;	     /* HELLO, ACCEPT */
	struct exchange_mismatch mismatch;   /* MISMATCH */
	struct exchange_sync sync;	     /* SYNC */
	struct exchange_abort abort;	     /* ABORT */
};

/* Pure encoding: writes the message into buf and returns its length, or
 * -ENOSPC / -EINVAL (a field out of range: we never send what we would reject). */
int exchange_encode(const struct exchange_msg *m, uint8_t *buf, size_t size, struct err *e);
/* Checks a header; returns the body length that follows, or -EPROTO /
 * -EMSGSIZE with the reason in e. len must be at least EXCHANGE_HEADER_LEN. */
int exchange_decode_header(const uint8_t *buf, size_t len, uint16_t *ret_type, struct err *e);
/* Decodes and validates a whole message (header and body). */
int exchange_decode(const uint8_t *buf, size_t len, struct exchange_msg *ret, struct err *e);

int exchange_params_validate(const struct exchange_params *p, struct err *e);
/* Seconds the run takes at the floor (rounded up): an iteration run's
 * messages over every size at EXCHANGE_FLOOR_MBPS and EXCHANGE_FLOOR_MSG_NS
 * (a latency test's at EXCHANGE_FLOOR_LAT_NS), a duration run's duration times its sizes. */
uint64_t exchange_params_floor_s(const struct exchange_params *p);
/* The figures' bounds whatever the link (the decoder checks every SYNC). */
int exchange_sync_validate(const struct exchange_sync *s, struct err *e);
/* A peer's figures for one size of messages of `size` bytes: bounded in
 * themselves, their average rate at most twice EXCHANGE_MAX_RATE_MBPS
 * (not the port's rate: traffic through the HCA and Soft-RoCE's local
 * path outrun the link), their bytes what their messages
 * carry. -EPROTO "the peer reported an impossible figure: ...". */
int exchange_sync_check(const struct exchange_sync *s, uint64_t size, struct err *e);
/* Compares the pinned parameters (a mask of EXCHANGE_PIN()) of the server
 * with the client's; fills ret and returns 1 on the first difference, else 0. */
int exchange_params_compare(const struct exchange_params *server,
			    const struct exchange_params *client, uint32_t pinned,
			    struct exchange_mismatch *ret);
/* "parameter 'size' differs: server has 65536, client asked for 4096". */
void exchange_mismatch_describe(const struct exchange_mismatch *m, char *buf, size_t size);
const char *exchange_param_name(unsigned int param);
const char *exchange_test_name(unsigned int test);
/* Parses "write_bw" etc.; -EINVAL when unknown. */
int exchange_test_parse(const char *s);

/* Sockets. Every wait is bounded by timeout_ms and ends early when *cancel
 * becomes true (cancel may be NULL). */
int exchange_listen(const char *addr, uint16_t port, int *ret_fd, uint16_t *ret_port,
		    struct err *e);
int exchange_accept(int lfd, int timeout_ms, atomic_bool *cancel, int *ret_fd, struct err *e);
int exchange_connect(const char *host, uint16_t port, int timeout_ms, int *ret_fd, struct err *e);
/* The same from the local address src (numeric; NULL: the kernel's choice). */
int exchange_connect_from(const char *host, uint16_t port, const char *src, int timeout_ms,
			  int *ret_fd, struct err *e);
int exchange_send(int fd, const struct exchange_msg *m, int timeout_ms, struct err *e);
int exchange_recv(int fd, struct exchange_msg *ret, int timeout_ms, atomic_bool *cancel,
		  struct err *e);
/* Sends / reads one message's bytes as they are (header and body, checked by
 * exchange_decode_header()): a keyed session's frames (exchange_session.h).
 * exchange_recv_frame() returns the frame's length. */
int exchange_send_frame(int fd, const uint8_t *buf, size_t len, int timeout_ms, struct err *e);
int exchange_recv_frame(int fd, uint8_t *buf, size_t size, int timeout_ms, atomic_bool *cancel,
			struct err *e);
