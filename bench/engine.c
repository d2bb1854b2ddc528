// SPDX-License-Identifier: MIT
/* One benchmark session: agree on parameters over the control channel, set
 * up the device and QPs, connect them (exchange or rdma_cm), then for each
 * message size a START barrier, the loop, and a DONE exchange carrying each
 * side's figures; BYE at the end, ABORT when anything fails or is cancelled
 * so the peer never waits for nothing. */
#include "internal.h"
#include "gate.h"
#include "place.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool bench_is_latency(enum bench_test t)
{
	return t == BENCH_WRITE_LAT || t == BENCH_READ_LAT;
}

struct bench_config bench_config_default(void)
{
	return (struct bench_config){
		.gid_index = -1, .pkey_index = -1, .listen_fd = -1, .tcp_port = BENCH_DEFAULT_PORT};
}

uint64_t bench_default_size(enum bench_test t)
{
	return bench_is_latency(t) ? BENCH_DEFAULT_LAT_SIZE : BENCH_DEFAULT_BW_SIZE;
}

uint64_t bench_default_iters(enum bench_test t)
{
	return t == BENCH_WRITE_BW ? BENCH_DEFAULT_WRITE_BW_ITERS : BENCH_DEFAULT_ITERS;
}

int bench_send(struct bench_ctx *c, const struct exchange_msg *m)
{
	return exchange_session_send(&c->sess, c->fd, m, c->timeout_ms, c->e);
}

/* Receives one message, turning ABORT into an error naming the peer's reason. */
int bench_recv(struct bench_ctx *c, struct exchange_msg *m, int timeout_ms, uint16_t want,
	       const char *waiting_for)
{
	/* An ALIVE restarts the wait during a run and is refused outside one;
	 * no wait passes the session's deadline (exchange_session.h). */
	int r = exchange_session_recv(&c->sess, c->fd, m, timeout_ms, c->cfg->cancel, c->e);
	if (r == -ECONNRESET)
		return err_setx(c->e, ECONNRESET, "the peer closed the connection while %s",
				waiting_for);
	if (r == -ETIMEDOUT)
		return err_setx(c->e, ETIMEDOUT, "no answer from the peer within %d ms while %s",
				timeout_ms, waiting_for);
	if (r < 0)
		return r;
	if (m->type == EXCHANGE_ABORT && m->abort.code == EXCHANGE_ABORT_LINK_LAYER) {
		bench_send_link_layer_abort(c);
		c->link_layer_told = true;
		return bench_link_layer_refusal(c, m->abort.text);
	}
	if (m->type == EXCHANGE_ABORT && m->abort.code == EXCHANGE_ABORT_AUTH)
		return err_setx(c->e, EACCES, "server refused: %s", m->abort.text);
	if (m->type == EXCHANGE_ABORT && m->abort.code == EXCHANGE_ABORT_BUSY)
		return err_setx(c->e, EBUSY, "server busy: %s", m->abort.text);
	if (m->type == EXCHANGE_ABORT)
		return err_setx(c->e, ECONNABORTED, "the peer stopped: %s", m->abort.text);
	if (want && m->type != want && m->type != EXCHANGE_MISMATCH)
		return err_setx(c->e, EPROTO, "unexpected message type %u while %s", m->type,
				waiting_for);
	return 0;
}

static void to_sync(const struct bench_size_result *r, unsigned int step, struct exchange_sync *s)
{
	*s = (struct exchange_sync){.step = step,
				    .phase = EXCHANGE_PHASE_DONE,
				    .bytes = r->bytes,
				    .ns = r->ns,
				    .msgs = r->msgs,
				    .peak_kbps = (uint64_t)(r->bw_peak_gbps * 1e6)};
}

/* Adds the peer's direction to this side's figures (bidirectional), or takes
 * the peer's figures as they are (a passive server). */
static void merge_peer(struct bench_size_result *r, const struct exchange_sync *s)
{
	double gbps = stats_gbps(s->bytes, s->ns);
	r->bw_avg_gbps += gbps;
	r->bw_peak_gbps += (double)s->peak_kbps / 1e6;
	r->msg_rate_mpps += stats_mpps(s->msgs, s->ns);
	r->bytes += s->bytes;
	r->msgs += s->msgs;
	if (s->ns > r->ns)
		r->ns = s->ns;
}

int bench_run_size(struct bench_ctx *c, unsigned int step, uint64_t size)
{
	const bool server = c->cfg->server, lat = bench_is_latency(c->params.test);
	const bool bidir = c->params.flags & EXCHANGE_F_BIDIR;
	struct bench_size_result *r = &c->res->sizes[step];
	struct exchange_msg m = {.type = EXCHANGE_SYNC,
				 .sync = {.step = step, .phase = EXCHANGE_PHASE_START}};
	int r_;
	memset(r, 0, sizeof(*r));
	r->size = size;
	r->bw_spread = -1; /* a passive side times nothing */
	if (lat)
		memset(c->buf, 0, c->buf_size);
	if (!server) {
		if ((r_ = bench_send(c, &m)) < 0 ||
		    (r_ = bench_recv(c, &m, c->timeout_ms, EXCHANGE_SYNC, "starting a size")) < 0)
			return r_;
	} else {
		if ((r_ = bench_recv(c, &m, c->timeout_ms, EXCHANGE_SYNC,
				     "waiting for the next size")) < 0)
			return r_;
		if (m.sync.phase != EXCHANGE_PHASE_START || m.sync.step != step)
			return err_setx(c->e, EPROTO, "the client is at size step %u, we are at %u",
					m.sync.step, step);
		m.sync.phase = EXCHANGE_PHASE_START;
		if ((r_ = bench_send(c, &m)) < 0)
			return r_;
	}
	c->peer_done = false;
	bool active = !server || bidir || c->params.test == BENCH_WRITE_LAT;
	if (active) {
		switch (c->params.test) {
		case BENCH_WRITE_BW:
		case BENCH_READ_BW:
			r_ = loop_bw(c, step, size, r);
			break;
		case BENCH_WRITE_LAT:
			r_ = loop_write_lat(c, step, size, r);
			break;
		default:
			r_ = loop_read_lat(c, step, size, r);
		}
		if (r_ < 0)
			return r_;
		struct exchange_msg d = {.type = EXCHANGE_SYNC};
		to_sync(r, step, &d.sync);
		if ((r_ = bench_send(c, &d)) < 0)
			return r_;
	}
	struct exchange_sync peer = c->peer_sync;
	if (!c->peer_done) {
		/* The peer's loop sends ALIVE every 250 ms: a silent peer is
		 * dropped after the timeout, however long its run. */
		if ((r_ = bench_recv(c, &m, c->timeout_ms, EXCHANGE_SYNC,
				     "waiting for the peer to finish")) < 0)
			return r_;
		if (m.sync.phase != EXCHANGE_PHASE_DONE || m.sync.step != step)
			return err_setx(c->e, EPROTO, "out-of-step sync from the peer (step %u)",
					m.sync.step);
		peer = m.sync;
	}
	if ((r_ = exchange_sync_check(&peer, size, c->e)) < 0)
		return r_;
	if (!active) { /* a passive side answers the active one's DONE */
		struct exchange_msg d = {.type = EXCHANGE_SYNC,
					 .sync = {.step = step, .phase = EXCHANGE_PHASE_DONE}};
		if ((r_ = bench_send(c, &d)) < 0)
			return r_;
	}
	if (server && !bidir && !lat) {
		merge_peer(r, &peer);
		c->res->from_peer = true;
	} else if (bidir) {
		merge_peer(r, &peer);
	}
	return 0;
}

static void abort_peer(struct bench_ctx *c, int code)
{
	if (c->fd < 0 || c->link_layer_told)
		return;
	struct exchange_msg m = {.type = EXCHANGE_ABORT, .abort = {.code = (uint32_t)code}};
	/* Only printable ASCII crosses the wire. */
	size_t j = 0;
	for (const char *p = c->e->msg; *p && j < sizeof(m.abort.text) - 1; p++)
		if (*p >= 0x20 && *p <= 0x7e)
			m.abort.text[j++] = *p;
	struct err ignored;
	exchange_session_send(&c->sess, c->fd, &m, 500, &ignored);
}

static void fill_result_header(struct bench_ctx *c)
{
	struct bench_result *res = c->res;
	snprintf(res->ibdev, sizeof(res->ibdev), "%s", c->cfg->ibdev);
	res->port = c->port;
	res->gid_index = c->gid_index;
	res->ethernet = c->eth;
	res->mtu = 128u << c->params.mtu;
	res->qps = c->params.qps;
	res->tx_depth = c->params.tx_depth;
	res->rd_atomic = c->rd_atomic;
	res->max_inline = c->max_inline;
	res->bidir = c->params.flags & EXCHANGE_F_BIDIR;
	res->cm = c->params.flags & EXCHANGE_F_CM;
	res->duration_mode = c->params.duration_s != 0;
	res->test = (enum bench_test)c->params.test;
	res->wire = c->eth ? c->wire : c->grh ? BENCH_WIRE_IB_GRH : BENCH_WIRE_IB;
	res->grh = c->grh;
	res->sl = c->cfg->sl;
	res->pkey_index = c->pkey_index;
	res->pkey = c->pkey;
	snprintf(res->pf_bdf, sizeof(res->pf_bdf), "%s", c->pinfo.pf_bdf);
	if (!c->cfg->server && c->cfg->host && !res->peer[0])
		snprintf(res->peer, sizeof(res->peer), "%s", c->cfg->host);
	res->allow_same_port = c->cfg->allow_same_port;
	res->n_sizes = (c->params.flags & EXCHANGE_F_ALL_SIZES) ? BENCH_MAX_SIZES : 1;
}

/* This side's placement and device: a failure here is the server's own
 * (res->local_fault), told to the client it was for. */
static int open_local(struct bench_ctx *c, struct place_want *want)
{
	int r = place_begin(c->cfg->ibdev, want, &c->res->placement, &c->saved_affinity, c->e);
	if (r == 0)
		r = dev_open(c);
	c->res->local_fault = r < 0 && c->cfg->server;
	return r;
}

int bench_run(const struct bench_config *cfg, bench_progress_fn progress, void *progress_arg,
	      struct bench_result *res)
{
	memset(res, 0, sizeof(*res));
	struct bench_ctx c = {.cfg = cfg,
			      .res = res,
			      .progress = progress,
			      .progress_arg = progress_arg,
			      .e = &res->err,
			      .fd = -1,
			      .timeout_ms =
				      cfg->timeout_ms ? cfg->timeout_ms : BENCH_DEFAULT_TIMEOUT_MS};
	res->test = cfg->test;
	int lfd = cfg->listen_fd, r = 0;
	struct gate_client client;
	/* Before the device is opened and the buffer allocated: both then
	 * come from the HCA's node. */
	struct place_want want = {
		.no_pin = cfg->no_pin, .cpus_given = cfg->cpu_given, .cpus = cfg->cpus};
	/* A server opens its device for a client through the door, not before:
	 * nothing of the node is touched for a peer that has not said hello. */
	if (cfg->server) {
		if (!cfg->gated && lfd < 0 &&
		    (r = exchange_listen(NULL, cfg->tcp_port, &lfd, NULL, c.e)) < 0)
			goto out;
		if ((r = bench_server_door(&c, lfd, &client)) < 0 ||
		    (r = open_local(&c, &want)) < 0 ||
		    (r = bench_server_handshake(&c, &client)) < 0)
			goto out;
	} else if ((r = open_local(&c, &want)) < 0 || (r = bench_client_handshake(&c)) < 0) {
		goto out;
	}
	fill_result_header(&c);
	uint64_t cq_mod = cfg->cq_mod ? cfg->cq_mod : BENCH_DEFAULT_CQ_MOD;
	if (cq_mod > c.params.tx_depth)
		cq_mod = c.params.tx_depth;
	/* A short run still gets a few completions to time and a peak to find. */
	if (c.params.iters && cq_mod > c.params.iters / 8)
		cq_mod = c.params.iters / 8 ? c.params.iters / 8 : 1;
	res->cq_mod = (unsigned int)cq_mod;
	for (unsigned int k = 0; k < res->n_sizes; k++) {
		uint64_t size = res->n_sizes > 1 ? 2ull << k : c.params.size;
		if ((r = bench_run_size(&c, k, size)) < 0)
			goto out;
	}
	struct exchange_msg bye = {.type = EXCHANGE_BYE};
	if (!cfg->server)
		r = bench_send(&c, &bye);
	else
		r = bench_recv(&c, &bye, c.timeout_ms, EXCHANGE_BYE,
			       "waiting for the client's bye");
out:
	if (r < 0)
		abort_peer(&c, r == -ECANCELED ? EXCHANGE_ABORT_CANCELLED : EXCHANGE_ABORT_ERROR);
	dev_close(&c);
	place_end(&res->placement, &c.saved_affinity);
	exchange_session_clear(&c.sess);
	if (c.fd >= 0)
		close(c.fd);
	else if (cfg->gated && cfg->gated->fd >= 0)
		close(cfg->gated->fd);
	if (lfd >= 0 && lfd != cfg->listen_fd)
		close(lfd);
	return r < 0 ? r : 0;
}
