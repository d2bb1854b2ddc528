// SPDX-License-Identifier: MIT
/* The bandwidth loop (docs/bench.md) and what every loop watches while it
 * runs. Bandwidth: up to tx_depth WRs in flight per QP, round robin over the
 * QPs, one signalled WR every cq_mod (CQ moderation), slots cycled; timed
 * from the first post to the last completion with CLOCK_MONOTONIC
 * nanoseconds. The latency loops are in loops_lat.c. Every loop checks, at
 * most every 50 ms, for cancellation, for the peer going away and for
 * completions that stopped coming. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SPIN_TURNS    (1u << 20)   /* memory poll turns between clock reads */
#define CHECK_NS      50000000ull  /* 50 ms between checks of the peer */
#define PROGRESS_NS   100000000ull /* 100 ms */
#define MAX_SAMPLES   (8u << 20)   /* latency samples kept in duration mode */
#define SPREAD_SLICES 10
#define ALIVE_NS      250000000ull /* between ALIVE syncs to the peer */
/* Completion records kept per size (16 bytes each): past it, every other
 * record is dropped and one in twice as many kept, so a long run is
 * sampled, not refused, and the memory a peer's parameters cost is bound. */
#define MAX_RECORDS (4u << 20)

/* Duration mode: warm-up and cool-down margins, excluded from the figures. */
uint64_t loop_margin_ns(const struct bench_ctx *c)
{
	return stats_margin_ns(c->params.duration_s);
}

int loop_check_peer(struct bench_ctx *c)
{
	if (bench_cancelled(c))
		return err_setx(c->e, ECANCELED, "cancelled");
	struct exchange_msg m;
	/* ALIVE is taken here, the deadline checked (exchange_session.h). */
	int r = exchange_session_poll(&c->sess, c->fd, &m, c->e);
	if (r < 0)
		return r == -ECONNRESET ? err_setx(c->e, ECONNRESET, "the peer went away mid-run")
					: r;
	if (r == 0)
		return 0;
	if (m.type == EXCHANGE_ABORT)
		return err_setx(c->e, ECONNABORTED, "the peer stopped the run: %s", m.abort.text);
	if (m.type == EXCHANGE_SYNC && m.sync.phase == EXCHANGE_PHASE_DONE && !c->peer_done) {
		c->peer_done = true; /* the peer finished first: keep it for the engine */
		c->peer_sync = m.sync;
		return 0;
	}
	return err_setx(c->e, EPROTO, "unexpected message type %u from the peer mid-run", m.type);
}

struct watch watch_start(struct bench_ctx *c, unsigned int step, uint64_t size, uint64_t start)
{
	return (struct watch){.c = c,
			      .step = step,
			      .size = size,
			      .start = start,
			      .last_progress = start,
			      .last_event = start,
			      .last_check = start};
}

void watch_report(struct watch *w, double fraction, uint64_t bytes, uint64_t now)
{
	if (!w->c->progress || now - w->last_progress < PROGRESS_NS)
		return;
	w->last_progress = now;
	struct bench_progress p = {.size_index = w->step,
				   .n_sizes = w->c->res->n_sizes,
				   .size = w->size,
				   .fraction = fraction > 1 ? 1 : fraction,
				   .gbps = stats_gbps(bytes, now - w->start)};
	w->c->progress(&p, w->c->progress_arg);
}

/* Cancelled, peer gone, or stalled: at most every CHECK_NS. The check is a
 * system call, so it is paced by the clock and not by loop turns. A loop that
 * counts its progress in w->events instead of setting w->last_event has it
 * taken as an event seen now. */
int watch_check_at(struct watch *w, uint64_t now, const char *waiting_for)
{
	if (now - w->last_check < CHECK_NS)
		return 0;
	w->last_check = now;
	if (w->events != w->seen_events) {
		w->seen_events = w->events;
		w->last_event = now;
	}
	int r = loop_check_peer(w->c);
	if (r < 0)
		return r;
	/* The peer's waits are bounded by its timeout: tell it we run. */
	if (now - w->c->last_alive >= ALIVE_NS) {
		struct exchange_msg m = {.type = EXCHANGE_SYNC,
					 .sync = {.step = w->step, .phase = EXCHANGE_PHASE_ALIVE}};
		w->c->last_alive = now;
		if ((r = bench_send(w->c, &m)) < 0)
			return r;
	}
	if (now - w->last_event > (uint64_t)w->c->timeout_ms * 1000000ull)
		return err_setx(w->c->e, ETIMEDOUT,
				"no %s for %d ms: the peer or the path is stuck", waiting_for,
				w->c->timeout_ms);
	return 0;
}

int watch_check(struct watch *w, const char *waiting_for)
{
	return watch_check_at(w, bench_now_ns(), waiting_for);
}

/* Spins until *p == v in a loop as tight as perftest's: no clock read, no
 * call, for SPIN_TURNS turns between checks. Reading the clock every few
 * thousand turns made write_lat 6-8% slower than perftest on Soft-RoCE in
 * the QEMU guest (scripts/bench/vs-perftest, 5+5 runs of 1000 iterations).
 * 1 when seen; 0 when the client finished first (the server in duration
 * mode); < 0 on error. */
int watch_spin_until(struct watch *w, volatile const uint8_t *p, uint8_t v, const char *waiting_for)
{
	for (;;) {
		for (unsigned int k = SPIN_TURNS; k; k--)
			if (*p == v)
				return 1;
		int r = watch_check(w, waiting_for);
		if (r < 0)
			return r;
		if (w->c->peer_done && w->c->cfg->server)
			return 0;
	}
}

int loop_wc_error(struct bench_ctx *c, const struct ibv_wc *wc)
{
	return err_setx(c->e, EIO, "work request failed on QP 0x%x: %s (vendor error 0x%x)",
			wc->qp_num, ibv_wc_status_str(wc->status), wc->vendor_err);
}

static void fill_bw(struct bench_ctx *c, struct bench_size_result *r, uint64_t size, uint64_t start,
		    const uint64_t *t, const uint64_t *cum, size_t n, size_t every)
{
	r->size = size;
	if (n == 0)
		return;
	size_t i0 = 0, i1 = n - 1;
	uint64_t t0 = start, m0 = 0;
	/* Duration mode: the figure covers the completions between the margins. */
	if (c->params.duration_s &&
	    stats_measured_window(t, n, start, loop_margin_ns(c), &i0, &i1)) {
		t0 = t[i0];
		m0 = cum[i0];
		r->margin_ns = loop_margin_ns(c);
	}
	if (c->params.duration_s)
		r->run_ns = t[n - 1] - start;
	r->msgs = cum[i1] - m0;
	r->bytes = r->msgs * size;
	r->ns = t[i1] - t0;
	r->bw_avg_gbps = stats_gbps(r->bytes, r->ns);
	r->msg_rate_mpps = stats_mpps(r->msgs, r->ns);
	/* Peak: the best window of ~5% of the completions (CQEs cover cq_mod
	 * messages), and at least two rounds over the QPs, whose completions
	 * can land together. */
	size_t cqes = i1 - i0 + 1, window = cqes / 20;
	if (window < 2 * (size_t)c->n_qps)
		window = 2 * (size_t)c->n_qps;
	r->bw_peak_gbps =
		cqes > window ? stats_peak_gbps(t + i0, cqes, window, size * c->res->cq_mod * every)
			      : 0;
	if (r->bw_peak_gbps < r->bw_avg_gbps)
		r->bw_peak_gbps = r->bw_avg_gbps;
	r->bw_spread = stats_bw_spread(t, cum, i0, i1, SPREAD_SLICES);
}

/* Completion times and running message counts, for fill_bw(): one record
 * in `every` kept, the latest always in t[n], cum[n] (counted by `tail`). */
struct cqe_log {
	uint64_t *t, *cum;
	size_t n, cap, every, seen;
	bool tail;
};

/* The first capacity: what the run needs, up to MAX_RECORDS (+1 for the tail). */
size_t loop_records_cap(uint64_t iters, unsigned int qps, unsigned int cq_mod)
{
	uint64_t want = iters ? iters * qps / (cq_mod ? cq_mod : 1) + 2ull * qps + 16 : 65536;
	return (size_t)(want < MAX_RECORDS ? want : MAX_RECORDS) + 1;
}

/* Full at MAX_RECORDS: keep every other record, and one in twice as many. */
static void cqe_log_thin(struct cqe_log *l)
{
	size_t i = 0;
	for (; 2 * i + 1 < l->n; i++) {
		l->t[i] = l->t[2 * i + 1];
		l->cum[i] = l->cum[2 * i + 1];
	}
	l->n = i;
	l->every *= 2;
}

static int cqe_log_add(struct bench_ctx *c, struct cqe_log *l, uint64_t now, uint64_t total)
{
	if (++l->seen % l->every) { /* not kept, but the latest */
		l->t[l->n] = now;
		l->cum[l->n] = total;
		l->tail = true;
		return 0;
	}
	l->tail = false;
	if (l->n + 1 >= MAX_RECORDS)
		cqe_log_thin(l);
	if (l->n + 1 == l->cap) {
		size_t ncap = l->cap * 2 < MAX_RECORDS + 1 ? l->cap * 2 : MAX_RECORDS + 1;
		uint64_t *nt = realloc(l->t, ncap * sizeof(*nt));
		if (nt)
			l->t = nt;
		uint64_t *nc = nt ? realloc(l->cum, ncap * sizeof(*nc)) : NULL;
		if (!nc)
			return err_setx(c->e, ENOMEM, "cannot keep %zu completion records", ncap);
		l->cum = nc;
		l->cap = ncap;
	}
	l->t[l->n] = now;
	l->cum[l->n++] = total;
	return 0;
}

/* The send side of a bandwidth run: one WR reused for every post. */
struct bw_post {
	uint64_t posted[EXCHANGE_MAX_QPS], done[EXCHANGE_MAX_QPS], unsig[EXCHANGE_MAX_QPS];
	uint64_t target;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	unsigned int inline_flag;
};

/* Fills QP q up to tx_depth WRs in flight, signalling one in cq_mod (and the
 * last, and every one once stopping). Sets *active while q has work left. */
static int bw_post_qp(struct bench_ctx *c, struct bw_post *p, unsigned int q, bool stopping,
		      bool *active)
{
	const unsigned int depth = c->params.tx_depth, mod = c->res->cq_mod;
	struct ibv_send_wr *bad;
	while (p->posted[q] < p->target && p->posted[q] - p->done[q] < depth &&
	       !(stopping && p->unsig[q] == 0)) {
		unsigned int slot = (unsigned int)(p->posted[q] % c->slots);
		bool sig = ++p->unsig[q] == mod || p->posted[q] + 1 == p->target || stopping;
		p->sge.addr = (uintptr_t)dev_local(c, q, slot);
		p->wr.wr.rdma.remote_addr = dev_remote_addr(c, q, slot);
		p->wr.wr.rdma.rkey = c->remote.rkey;
		p->wr.wr_id = (uint64_t)q | (uint64_t)p->unsig[q] << 8;
		p->wr.send_flags = p->inline_flag | (sig ? IBV_SEND_SIGNALED : 0);
		if (ibv_post_send(c->qps[q].qp, &p->wr, &bad))
			return err_set(c->e, errno, "cannot post to QP %u", q);
		p->posted[q]++;
		if (sig)
			p->unsig[q] = 0;
	}
	if (p->posted[q] != p->done[q] || (p->posted[q] < p->target && !stopping))
		*active = true;
	return 0;
}

int loop_bw(struct bench_ctx *c, unsigned int step, uint64_t size, struct bench_size_result *r)
{
	const bool read = c->params.test == BENCH_READ_BW;
	const unsigned int n = c->n_qps, mod = c->res->cq_mod;
	struct bw_post p = {
		.target = c->params.iters ? c->params.iters : UINT64_MAX,
		.sge = {.length = (uint32_t)size, .lkey = c->mr->lkey},
		.wr = {.num_sge = 1, .opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE},
		.inline_flag = !read && size <= c->max_inline ? IBV_SEND_INLINE : 0,
	};
	p.wr.sg_list = &p.sge;
	struct cqe_log log = {.cap = loop_records_cap(c->params.iters, n, mod), .every = 1};
	log.t = malloc(log.cap * sizeof(*log.t));
	log.cum = malloc(log.cap * sizeof(*log.cum));
	int ret = 0;
	if (!log.t || !log.cum) {
		ret = err_setx(c->e, ENOMEM, "cannot allocate %zu completion records", log.cap);
		goto out;
	}
	uint64_t total = 0;
	const uint64_t start = bench_now_ns();
	const uint64_t end = c->params.duration_s
				     ? start + (uint64_t)c->params.duration_s * 1000000000ull
				     : UINT64_MAX;
	struct watch w = watch_start(c, step, size, start);
	bool stopping = false;
	for (;;) {
		bool active = false;
		for (unsigned int q = 0; q < n; q++)
			if ((ret = bw_post_qp(c, &p, q, stopping, &active)) < 0)
				goto out;
		if (!active)
			break;
		struct ibv_wc wc[16];
		int got = ibv_poll_cq(c->cq, 16, wc);
		if (got < 0) {
			ret = err_setx(c->e, EIO, "cannot poll the CQ");
			goto out;
		}
		uint64_t now = got ? bench_now_ns() : w.last_event;
		for (int i = 0; i < got; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				ret = loop_wc_error(c, &wc[i]);
				goto out;
			}
			uint64_t count = wc[i].wr_id >> 8;
			p.done[wc[i].wr_id & 0xff] += count;
			total += count;
			if ((ret = cqe_log_add(c, &log, now, total)) < 0)
				goto out;
		}
		if (got) {
			w.last_event = now;
			double frac = c->params.iters
					      ? (double)total / ((double)p.target * n)
					      : (double)(now - start) / (double)(end - start);
			watch_report(&w, frac, total * size, now);
		}
		if (!stopping && now >= end)
			stopping = true;
		if ((ret = watch_turn(&w, "completion")) < 0)
			goto out;
	}
	fill_bw(c, r, size, start, log.t, log.cum, log.n + log.tail, log.every);
out:
	free(log.t);
	free(log.cum);
	return ret;
}
