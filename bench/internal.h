/* SPDX-License-Identifier: MIT */
/* What the engine's files share: one session's verbs objects and state. */
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "bench/bench.h"

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

	/* The session. */
	struct exchange_params params; /* as agreed */
	struct exchange_dest local, remote;
	uint8_t rd_atomic; /* this side's initiator depth */
	int fd;		   /* control connection */
	bool peer_done;	   /* a loop consumed the peer's DONE */
	struct exchange_sync peer_sync;
	int timeout_ms;
	cpu_set_t saved_affinity; /* the thread's, before place_begin() */
};

static inline bool bench_cancelled(const struct bench_ctx *c)
{
	return c->cfg->cancel && atomic_load(c->cfg->cancel);
}

uint64_t bench_now_ns(void);

/* dev.c: device, PD, MR, CQ and QPs, all in one place. */
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
int cm_listen(struct bench_ctx *c);
int cm_connect(struct bench_ctx *c, const char *peer_ip);
int cm_accept(struct bench_ctx *c);
void cm_close(struct bench_ctx *c);

/* loops.c: one message size each; fill r. */
int loop_bw(struct bench_ctx *c, unsigned int step, uint64_t size, struct bench_size_result *r);
int loop_write_lat(struct bench_ctx *c, unsigned int step, uint64_t size,
		   struct bench_size_result *r);
int loop_read_lat(struct bench_ctx *c, unsigned int step, uint64_t size,
		  struct bench_size_result *r);
/* Between loops' checks: cancelled, or the peer aborted or went away. */
int loop_check_peer(struct bench_ctx *c);
