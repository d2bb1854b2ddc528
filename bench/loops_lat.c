// SPDX-License-Identifier: MIT
/* The latency loops (docs/bench.md), shaped as perftest's run_iter_lat_write
 * and run_iter_lat (src/perftest_resources.c) so that neither side does work
 * per iteration that perftest does not:
 * - the work request and its SGE are built once, inline data when it fits;
 * - one tick read per iteration (bench_ticks(), perftest's get_cycles()),
 *   stored as the post's stamp; ticks become nanoseconds after the loop, at
 *   the rate measured against CLOCK_MONOTONIC over the run itself;
 * - one CQ poll per iteration (a send queue that fills up is waited on);
 * - the clock, the end of a duration run, the progress and the peer
 *   (cancelled, gone, stalled) every LAT_CHECK_ITERS iterations, and while
 *   a wait lasts (watch_spin_until(), watch_turn()).
 * A sample is the time from one post to the next, as perftest's tposted[]
 * deltas: halved for write_lat (a ping-pong), whole for read_lat. The loops
 * used to read CLOCK_MONOTONIC twice per iteration; issue 13 measured them
 * 7-15% behind perftest in the QEMU guest, and after this change 1-7% (the
 * rest not found: docs/bench.md). */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>

#define LAT_CHECK_ITERS 16	   /* iterations between clock reads */
#define MAX_STAMPS	(8u << 20) /* post stamps kept in duration mode */

/* The tick stamp of each post, and one after the last message. */
struct stamps {
	uint64_t *v;
	size_t n, cap;
	uint64_t t0_ns, t0_tk; /* read together before the first post */
};

static int stamps_init(struct bench_ctx *c, struct stamps *s)
{
	uint64_t iters = c->params.iters;
	*s = (struct stamps){.cap = iters && iters < MAX_STAMPS ? (size_t)iters + 1 : 65536};
	s->v = malloc(s->cap * sizeof(*s->v));
	if (!s->v)
		return err_setx(c->e, ENOMEM, "cannot keep %zu latency samples", s->cap);
	return 0;
}

/* Reads the clock and the tick counter together before the first post;
 * returns the end of a duration run (UINT64_MAX when sized by iterations). */
static uint64_t stamps_start(const struct bench_ctx *c, struct stamps *s)
{
	s->t0_ns = bench_now_ns();
	s->t0_tk = bench_ticks();
	return c->params.duration_s ? s->t0_ns + (uint64_t)c->params.duration_s * 1000000000ull
				    : UINT64_MAX;
}

/* Out of the loop's way: grows the array, past MAX_STAMPS drops the stamp. */
static int stamps_grow(struct bench_ctx *c, struct stamps *s, uint64_t tk)
{
	if (s->cap >= MAX_STAMPS)
		return 0;
	size_t ncap = s->cap * 2;
	uint64_t *nv = realloc(s->v, ncap * sizeof(*nv));
	if (!nv)
		return err_setx(c->e, ENOMEM, "cannot keep %zu latency samples", ncap);
	s->v = nv;
	s->cap = ncap;
	s->v[s->n++] = tk;
	return 0;
}

static inline int stamp(struct bench_ctx *c, struct stamps *s)
{
	uint64_t tk = bench_ticks();
	if (s->n < s->cap) {
		s->v[s->n++] = tk;
		return 0;
	}
	return stamps_grow(c, s, tk);
}

/* Turns the stamps into samples in nanoseconds (each delta divided by div),
 * in duration mode only those between the margins, and fills r. */
static int stamps_finish(struct bench_ctx *c, struct stamps *s, unsigned int div, uint64_t size,
			 struct bench_size_result *r)
{
	uint64_t t1_ns = bench_now_ns(), t1_tk = bench_ticks();
	r->size = size;
	if (t1_tk <= s->t0_tk || t1_ns <= s->t0_ns)
		return err_setx(c->e, EIO, "the CPU's tick counter did not advance during the run");
	const double ns_per_tk = (double)(t1_ns - s->t0_ns) / (double)(t1_tk - s->t0_tk);
	const uint64_t m = loop_margin_ns(c);
	const uint64_t dur = (uint64_t)c->params.duration_s * 1000000000ull;
	size_t out = 0;
	for (size_t k = 0; k + 1 < s->n; k++) {
		uint64_t a = s->v[k], b = s->v[k + 1];
		if (dur) {
			double from = (double)(a - s->t0_tk) * ns_per_tk;
			double to = (double)(b - s->t0_tk) * ns_per_tk;
			if (from < (double)m || to + (double)m > (double)dur)
				continue;
		}
		/* A counter read on another CPU may lag: a negative delta is 0. */
		s->v[out++] = b > a ? (uint64_t)((double)(b - a) * ns_per_tk / div + 0.5) : 0;
	}
	r->msgs = out;
	if (out &&
	    (stats_latency(s->v, out, &r->lat) < 0 || stats_histogram(s->v, out, &r->hist) < 0))
		return err_setx(c->e, EINVAL, "no latency samples");
	return 0;
}

/* Every LAT_CHECK_ITERS iterations: 1 when a duration run is over, 0 to go
 * on, < 0 on error. */
static int lat_check(struct bench_ctx *c, struct watch *w, uint64_t i, uint64_t end,
		     const char *waiting_for)
{
	uint64_t now = bench_now_ns();
	if (now >= end)
		return 1;
	watch_report(w,
		     c->params.iters ? (double)i / (double)c->params.iters
				     : (double)(now - w->start) / (double)(end - w->start),
		     0, now);
	return watch_check_at(w, now, waiting_for);
}

/* Takes the send completions there are, in one poll while no more than
 * max_left WRs stay posted and not completed (*pending), else until then. */
static int reap(struct bench_ctx *c, struct watch *w, unsigned int *pending, unsigned int max_left)
{
	struct ibv_wc wc[DEV_LAT_DEPTH];
	for (;;) {
		int got = ibv_poll_cq(c->cq, DEV_LAT_DEPTH, wc);
		if (got < 0)
			return err_setx(c->e, EIO, "cannot poll the CQ");
		for (int k = 0; k < got; k++)
			if (wc[k].status != IBV_WC_SUCCESS)
				return loop_wc_error(c, &wc[k]);
		if ((unsigned int)got > *pending)
			return err_setx(c->e, EPROTO, "%d completions for %u WRs posted", got,
					*pending);
		*pending -= (unsigned int)got;
		if (*pending <= max_left)
			return 0;
		int r = watch_turn(w, "send completion");
		if (r < 0)
			return r;
	}
}

/* Ping-pong: the client writes, the server answers on seeing the last byte
 * change; each side polls its receive slot. Latency is half the round trip. */
int loop_write_lat(struct bench_ctx *c, unsigned int step, uint64_t size,
		   struct bench_size_result *r)
{
	const bool client = !c->cfg->server;
	volatile uint8_t *in = dev_local(c, 0, 0) + size - 1;
	uint8_t *out = dev_local(c, 0, 1) + size - 1;
	struct ibv_sge sge = {.addr = (uintptr_t)dev_local(c, 0, 1),
			      .length = (uint32_t)size,
			      .lkey = c->mr->lkey};
	struct ibv_send_wr wr = {.sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED |
					       (size <= c->max_inline ? IBV_SEND_INLINE : 0),
				 .wr = {.rdma = {.remote_addr = dev_remote_addr(c, 0, 0),
						 .rkey = c->remote.rkey}}},
			   *bad;
	struct stamps s = {0};
	int ret = client ? stamps_init(c, &s) : 0;
	if (ret < 0)
		return ret;
	const uint64_t iters = c->params.iters;
	const uint64_t end = stamps_start(c, &s);
	struct watch w = watch_start(c, step, size, s.t0_ns);
	unsigned int pending = 0;
	uint8_t v = 0;
	for (uint64_t i = 0; !iters || i < iters; i++) {
		v = (uint8_t)(v == 255 ? 1 : v + 1); /* never 0, the cleared buffer */
		if (i % LAT_CHECK_ITERS == 0 && i &&
		    (ret = lat_check(c, &w, i, client ? end : UINT64_MAX, "answer from the peer")))
			break;
		if (client) {
			if ((ret = stamp(c, &s)) < 0)
				goto out;
			*out = v;
			if (ibv_post_send(c->qps[0].qp, &wr, &bad)) {
				ret = err_set(c->e, errno, "cannot post the ping");
				goto out;
			}
			pending++;
		}
		/* < 0 an error, 0 (the server) the client stopped */
		if ((ret = watch_spin_until(&w, in, v, "answer from the peer")) <= 0)
			break;
		if (!client) {
			*out = v;
			if (ibv_post_send(c->qps[0].qp, &wr, &bad)) {
				ret = err_set(c->e, errno, "cannot post the pong");
				goto out;
			}
			pending++;
		}
		if ((ret = reap(c, &w, &pending, DEV_LAT_DEPTH / 2)) < 0)
			goto out;
		w.events++;
	}
	if (ret < 0)
		goto out;
	if (client && (ret = stamp(c, &s)) < 0)
		goto out;
	if ((ret = reap(c, &w, &pending, 0)) == 0 && client)
		ret = stamps_finish(c, &s, 2, size, r);
out:
	free(s.v);
	return ret;
}

/* One READ at a time, each a full round trip. The server is passive. */
int loop_read_lat(struct bench_ctx *c, unsigned int step, uint64_t size,
		  struct bench_size_result *r)
{
	struct ibv_sge sge = {.addr = (uintptr_t)dev_local(c, 0, 1),
			      .length = (uint32_t)size,
			      .lkey = c->mr->lkey};
	struct ibv_send_wr wr = {.sg_list = &sge,
				 .num_sge = 1,
				 .opcode = IBV_WR_RDMA_READ,
				 .send_flags = IBV_SEND_SIGNALED,
				 .wr = {.rdma = {.remote_addr = dev_remote_addr(c, 0, 0),
						 .rkey = c->remote.rkey}}},
			   *bad;
	struct stamps s;
	int ret = stamps_init(c, &s);
	if (ret < 0)
		return ret;
	const uint64_t iters = c->params.iters;
	const uint64_t end = stamps_start(c, &s);
	struct watch w = watch_start(c, step, size, s.t0_ns);
	for (uint64_t i = 0; !iters || i < iters; i++) {
		if (i % LAT_CHECK_ITERS == 0 && i &&
		    (ret = lat_check(c, &w, i, end, "READ completion")))
			break;
		if ((ret = stamp(c, &s)) < 0)
			goto out;
		if (ibv_post_send(c->qps[0].qp, &wr, &bad)) {
			ret = err_set(c->e, errno, "cannot post the READ");
			goto out;
		}
		struct ibv_wc wc;
		int got;
		while ((got = ibv_poll_cq(c->cq, 1, &wc)) == 0)
			if ((ret = watch_turn(&w, "READ completion")) < 0)
				goto out;
		if (got < 0) {
			ret = err_setx(c->e, EIO, "cannot poll the CQ");
			goto out;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			ret = loop_wc_error(c, &wc);
			goto out;
		}
		w.events++;
	}
	if (ret < 0)
		goto out;
	if ((ret = stamp(c, &s)) == 0)
		ret = stamps_finish(c, &s, 1, size, r);
out:
	free(s.v);
	return ret;
}
