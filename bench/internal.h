/* SPDX-License-Identifier: MIT */
/* What the engine's files share: one session's verbs objects and state. */
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "bench/bench.h"
#include "bench/exchange_session.h"
#include "bench/port.h"

struct bench_qp {
	struct ibv_qp *qp;
	struct rdma_cm_id *id; /* with --cm */
	uint32_t psn;
};

struct bench_ctx {
	const struct bench_config *cfg;
	struct bench_result *res;
	bench_progress_fn progress;
	void *progress_arg;
	struct err *e;

	/* Device, from dev.c. */
	struct ibv_context *ctx;
	struct ibv_device **dev_list; /* ibv_get_device_list, without --cm */
	struct ibv_context **cm_list; /* rdma_get_devices, with --cm */
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	unsigned int port;
	int gid_index;
	union ibv_gid gid;
	bool eth;
	enum bench_wire wire; /* this side's framing before the GRH decision */
	bool grh;	      /* InfiniBand: the connection sends a GRH */
	unsigned int pkey_index;
	uint16_t pkey;
	struct bench_port_info pinfo; /* rate, cap, lanes, physical port */
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	unsigned int cq_size;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t buf_size, region, stride; /* per QP region, slot stride */
	size_t buf_map_len;		 /* the buffer's mapping (place.h) */
	unsigned int slots;
	uint32_t max_inline;
	struct bench_qp qps[EXCHANGE_MAX_QPS];
	unsigned int n_qps;

	/* rdma_cm, from cm.c. */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	uint8_t cm_ipv4[4]; /* this side's address (cm_addr.h's choice) */
	char cm_ip[16];

	/* The session. */
	struct exchange_params params; /* as agreed */
	struct exchange_dest local, remote;
	uint8_t rd_atomic;	      /* this side's initiator depth */
	int fd;			      /* control connection */
	struct exchange_session sess; /* its phase, deadline and MACs */
	bool peer_done;		      /* a loop consumed the peer's DONE */
	bool link_layer_told;	      /* the peer has our name: no second ABORT */
	struct exchange_sync peer_sync;
	int timeout_ms;
	uint64_t last_alive;			/* ns: the last ALIVE this side sent in a loop */
	uint8_t peer_nonce[EXCHANGE_NONCE_LEN]; /* the challenge (client) or hello's */
	cpu_set_t saved_affinity;		/* the thread's, before place_begin() */
};

static inline bool bench_cancelled(const struct bench_ctx *c)
{
	return c->cfg->cancel && atomic_load(c->cfg->cancel);
}

uint64_t bench_now_ns(void);

/* A cheap tick counter for the latency loops, read once per iteration like
 * perftest's get_cycles(): the TSC on x86, the virtual counter on AArch64,
 * else CLOCK_MONOTONIC nanoseconds. Its rate is not assumed: the loops
 * measure it against CLOCK_MONOTONIC over the run itself. */
static inline uint64_t bench_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return bench_now_ns();
#endif
}

/* dev.c: device, PD, MR, CQ and QPs, all in one place. */
#define DEV_LAT_DEPTH 16 /* send queue depth of the latency tests */
int dev_open(struct bench_ctx *c);
/* Buffer, MR, CQ and (without --cm) QPs for the agreed parameters. */
int dev_setup(struct bench_ctx *c);
void dev_fill_dest(struct bench_ctx *c, struct exchange_dest *d);
int dev_qp_init_attr(struct bench_ctx *c, struct ibv_qp_init_attr *attr);
/* INIT -> RTR -> RTS against c->remote (the exchange's connection). */
int dev_connect(struct bench_ctx *c);
void dev_close(struct bench_ctx *c);
/* The IPv4 address inside a RoCE v2 IPv4-mapped GID, or false. */
bool dev_gid_ipv4(const uint8_t gid[16], char *buf, size_t size);
/* The remote address of slot `slot` of QP q's region. */
uint64_t dev_remote_addr(const struct bench_ctx *c, unsigned int q, unsigned int slot);
uint8_t *dev_local(const struct bench_ctx *c, unsigned int q, unsigned int slot);

/* cm.c: rdma_cm connection establishment. */
/* This side's address (--cm-addr, or its netdev's): into c->cm_ipv4, cm_ip. */
int cm_pick_local(struct bench_ctx *c);
int cm_listen(struct bench_ctx *c);
/* To the address the server sent (its port block's cm_ipv4), else the one
 * in its RoCE v2 GID, else the control connection's host. */
int cm_connect(struct bench_ctx *c);
int cm_accept(struct bench_ctx *c);
void cm_close(struct bench_ctx *c);

/* loops.c: what every loop watches while it runs. */
struct watch {
	struct bench_ctx *c;
	unsigned int step;
	uint64_t size, start, last_progress, last_event, last_check, turns;
	uint64_t events, seen_events; /* a loop's progress count, see watch_check_at() */
};

#define WATCH_POLL_TURNS 1024 /* empty CQ polls between clock reads */

struct watch watch_start(struct bench_ctx *c, unsigned int step, uint64_t size, uint64_t start);
/* The progress callback, at most every 100 ms. */
void watch_report(struct watch *w, double fraction, uint64_t bytes, uint64_t now);
/* Cancelled, peer gone, or stalled: acts at most every 50 ms; watch_check()
 * reads the clock, watch_check_at() is given it. */
int watch_check(struct watch *w, const char *waiting_for);
int watch_check_at(struct watch *w, uint64_t now, const char *waiting_for);
/* For loops that poll a CQ: watch_check() every WATCH_POLL_TURNS turns. */
static inline int watch_turn(struct watch *w, const char *waiting_for)
{
	return ++w->turns % WATCH_POLL_TURNS ? 0 : watch_check(w, waiting_for);
}
/* Spins until *p == v: 1 when seen; 0 when the client finished first (the
 * server in duration mode); < 0 on error. */
int watch_spin_until(struct watch *w, volatile const uint8_t *p, uint8_t v,
		     const char *waiting_for);
/* Duration mode: the warm-up and cool-down margin left out of the figures. */
uint64_t loop_margin_ns(const struct bench_ctx *c);
int loop_wc_error(struct bench_ctx *c, const struct ibv_wc *wc);

/* loops.c (bandwidth) and loops_lat.c (latency): one message size each; fill r. */
int loop_bw(struct bench_ctx *c, unsigned int step, uint64_t size, struct bench_size_result *r);
int loop_write_lat(struct bench_ctx *c, unsigned int step, uint64_t size,
		   struct bench_size_result *r);
int loop_read_lat(struct bench_ctx *c, unsigned int step, uint64_t size,
		  struct bench_size_result *r);
/* Between loops' checks: cancelled, or the peer aborted or went away. */
int loop_check_peer(struct bench_ctx *c);
/* The completion records a bandwidth run first allocates: what it needs,
 * at most 4 Mi + 1 (past that the loop samples, loops.c). */
size_t loop_records_cap(uint64_t iters, unsigned int qps, unsigned int cq_mod);

/* engine.c: the control channel (c->sess: ALIVE only during a run, the
 * session's deadline, its MACs), an ABORT turned into an error naming the
 * peer's reason. */
int bench_send(struct bench_ctx *c, const struct exchange_msg *m);
int bench_recv(struct bench_ctx *c, struct exchange_msg *m, int timeout_ms, uint16_t want,
	       const char *waiting_for);
/* One message size: the START barrier, the loop (the active side), the
 * DONE exchange and the peer's figures into c->res->sizes[step]. */
int bench_run_size(struct bench_ctx *c, unsigned int step, uint64_t size);

/* handshake.c: the door, the parameters, the QPs' connection. */
struct gate_client;
int bench_client_handshake(struct bench_ctx *c);
/* The server's client: cfg->gated, else the first through lfd's door. */
int bench_server_door(struct bench_ctx *c, int lfd, struct gate_client *ret);
int bench_server_handshake(struct bench_ctx *c, const struct gate_client *client);
/* The session after the ACCEPT (both sides): its deadline on this side's
 * clock, and with a key the session key of both nonces. */
int bench_session_begin(struct bench_ctx *c, const struct exchange_params *p,
			const uint8_t client_nonce[EXCHANGE_NONCE_LEN],
			const uint8_t server_nonce[EXCHANGE_NONCE_LEN], bool client);
void bench_send_link_layer_abort(struct bench_ctx *c);
int bench_link_layer_refusal(struct bench_ctx *c, const char *peer);
