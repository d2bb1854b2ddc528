// SPDX-License-Identifier: MIT
/* One benchmark session: agree on parameters over the control channel, set
 * up the device and QPs, connect them (exchange or rdma_cm), then for each
 * message size a START barrier, the loop, and a DONE exchange carrying each
 * side's figures; BYE at the end, ABORT when anything fails or is cancelled
 * so the peer never waits for nothing. */
#include "internal.h"
#include "place.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_TIMEOUT_MS 10000
#define DEFAULT_CQ_MOD	   100

bool bench_is_latency(enum bench_test t)
{
	return t == BENCH_WRITE_LAT || t == BENCH_READ_LAT;
}

uint64_t bench_default_size(enum bench_test t)
{
	return bench_is_latency(t) ? 2 : 65536;
}

uint64_t bench_default_iters(enum bench_test t)
{
	return t == BENCH_WRITE_BW ? 5000 : 1000;
}

static uint8_t clamp_u8(int v)
{
	return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* An InfiniBand VF that answers to its PF's LID (the LID does not tell the
 * two apart): it is addressed by its GID, so its packets need a GRH. Either
 * side asks for one with EXCHANGE_F_GRH; the server's answer is what both
 * send. */
static bool shares_pf_lid(const struct bench_ctx *c)
{
	return bench_wire_shares_pf_lid(c->eth, c->pinfo.vf_index >= 0, c->pattr.lid,
					c->pinfo.pf_lid);
}

/* The parameters this side would run with, from its configuration. */
static int local_params(struct bench_ctx *c, struct exchange_params *p)
{
	const struct bench_config *cfg = c->cfg;
	*p = (struct exchange_params){
		.test = (uint8_t)cfg->test,
		.flags = (uint8_t)((cfg->bidir ? EXCHANGE_F_BIDIR : 0) |
				   (cfg->all_sizes ? EXCHANGE_F_ALL_SIZES : 0) |
				   (cfg->cm ? EXCHANGE_F_CM : 0) |
				   (cfg->gid_index >= 0 || shares_pf_lid(c) ? EXCHANGE_F_GRH : 0)),
		/* What this side can answer as a responder: the device's max. */
		.rd_atomic = clamp_u8(c->dattr.max_qp_rd_atom),
		.mtu = (uint8_t)c->pattr.active_mtu,
		.qps = cfg->qps ? cfg->qps : 1,
		.tx_depth = cfg->tx_depth ? cfg->tx_depth : 128,
		.duration_s = cfg->duration_s,
		.size = cfg->size ? cfg->size : bench_default_size(cfg->test),
		.iters = cfg->duration_s ? 0
			 : cfg->iters	 ? cfg->iters
					 : bench_default_iters(cfg->test),
	};
	if (p->rd_atomic == 0)
		p->rd_atomic = 1;
	return exchange_params_validate(p, c->e);
}

/* This side's initiator depth: its device's max, the peer's responder max
 * and the user's --outstanding, whichever is least. */
static void pick_rd_atomic(struct bench_ctx *c, uint8_t peer_resp)
{
	int v = c->dattr.max_qp_init_rd_atom;
	if (v > peer_resp)
		v = peer_resp;
	if (c->cfg->rd_atomic && (int)c->cfg->rd_atomic < v)
		v = (int)c->cfg->rd_atomic;
	c->rd_atomic = clamp_u8(v ? v : 1);
}

static int send_msg(struct bench_ctx *c, const struct exchange_msg *m)
{
	return exchange_send(c->fd, m, c->timeout_ms, c->e);
}

/* A device name as it may cross the wire: printable, without quotes. */
static void wire_name(const char *name, char *buf, size_t size)
{
	size_t j = 0;
	for (const char *p = name; *p && j + 1 < size; p++)
		buf[j++] = (*p > 0x20 && *p < 0x7f && *p != '\'' && *p != '"') ? *p : '?';
	buf[j] = '\0';
}

static void send_link_layer_abort(struct bench_ctx *c)
{
	struct exchange_msg m = {.type = EXCHANGE_ABORT,
				 .abort = {.code = EXCHANGE_ABORT_LINK_LAYER}};
	struct err ignored;
	wire_name(c->cfg->ibdev, m.abort.text, sizeof(m.abort.text));
	exchange_send(c->fd, &m, c->timeout_ms, &ignored);
}

/* Link layers that differ, refused by name on both sides: each sends the
 * other its device's name (EXCHANGE_ABORT_LINK_LAYER). peer: the peer's
 * name, or NULL when it did not say. */
static int link_layer_refusal(struct bench_ctx *c, const char *peer)
{
	return err_setx(c->e, EPROTONOSUPPORT,
			"'%s' is %s, the peer's %s%s%s is %s: both ends of a connection need "
			"the same link layer",
			c->cfg->ibdev, bench_wire_link_layer_name(c->eth), peer ? "'" : "",
			peer ? peer : "device", peer ? "'" : "",
			bench_wire_link_layer_name(!c->eth));
}

/* Receives one message, turning ABORT into an error naming the peer's reason. */
static int recv_msg(struct bench_ctx *c, struct exchange_msg *m, int timeout_ms, uint16_t want,
		    const char *waiting_for)
{
	int r = exchange_recv(c->fd, m, timeout_ms, c->cfg->cancel, c->e);
	if (r == -ECONNRESET)
		return err_setx(c->e, ECONNRESET, "the peer closed the connection while %s",
				waiting_for);
	if (r == -ETIMEDOUT)
		return err_setx(c->e, ETIMEDOUT, "no answer from the peer within %d ms while %s",
				timeout_ms, waiting_for);
	if (r < 0)
		return r;
	if (m->type == EXCHANGE_ABORT && m->abort.code == EXCHANGE_ABORT_LINK_LAYER) {
		send_link_layer_abort(c);
		c->link_layer_told = true;
		return link_layer_refusal(c, m->abort.text);
	}
	if (m->type == EXCHANGE_ABORT)
		return err_setx(c->e, ECONNABORTED, "the peer stopped: %s", m->abort.text);
	if (want && m->type != want && m->type != EXCHANGE_MISMATCH)
		return err_setx(c->e, EPROTO, "unexpected message type %u while %s", m->type,
				waiting_for);
	return 0;
}

static int check_remote(struct bench_ctx *c)
{
	if (c->remote.buf_size != c->buf_size || c->remote.n_qps != c->n_qps)
		return err_setx(c->e, EPROTO,
				"the peer's buffer (%llu bytes, %u QPs) does not match ours (%zu "
				"bytes, %u QPs)",
				(unsigned long long)c->remote.buf_size, c->remote.n_qps,
				c->buf_size, c->n_qps);
	return 0;
}

static int client_handshake(struct bench_ctx *c)
{
	const struct bench_config *cfg = c->cfg;
	int r = exchange_connect(cfg->host, cfg->tcp_port, c->timeout_ms, &c->fd, c->e);
	if (r < 0 || (r = local_params(c, &c->params)) < 0 || (r = dev_setup(c)) < 0)
		return r;
	struct exchange_msg m = {.type = EXCHANGE_HELLO, .params = c->params};
	dev_fill_dest(c, &m.dest);
	c->res->self_port = m.dest.port;
	if ((r = send_msg(c, &m)) < 0)
		return r;
	if ((r = recv_msg(c, &m, c->timeout_ms, EXCHANGE_ACCEPT,
			  "waiting for the server to "
			  "accept")) < 0)
		return r;
	if (m.type == EXCHANGE_MISMATCH) {
		char text[200];
		exchange_mismatch_describe(&m.mismatch, text, sizeof(text));
		return err_setx(c->e, EINVAL, "the server refused the test: %s", text);
	}
	struct exchange_params want = c->params, got = m.params;
	want.rd_atomic = got.rd_atomic;
	want.mtu = got.mtu;
	want.flags = (uint8_t)((want.flags & ~EXCHANGE_F_GRH) | (got.flags & EXCHANGE_F_GRH));
	if (memcmp(&want, &got, sizeof(want)))
		return err_setx(c->e, EPROTO, "the server accepted different parameters");
	c->remote = m.dest;
	c->res->peer_port = m.dest.port;
	c->params.flags = want.flags;
	/* rdma_cm resolves its own path: a GRH on InfiniBand only across subnets. */
	c->grh = c->eth || (!cfg->cm && (got.flags & EXCHANGE_F_GRH));
	if (got.mtu < c->params.mtu)
		c->params.mtu = got.mtu;
	pick_rd_atomic(c, got.rd_atomic);
	if ((r = check_remote(c)) < 0)
		return r;
	if (!cfg->cm)
		return dev_connect(c);
	return cm_connect(c);
}

/* The server tells the client its device's name and waits for the
 * client's, to name both. */
static int server_link_layer_refusal(struct bench_ctx *c)
{
	struct exchange_msg m;
	struct err ignored;
	send_link_layer_abort(c);
	c->link_layer_told = true;
	if (exchange_recv(c->fd, &m, c->timeout_ms, c->cfg->cancel, &ignored) == 0 &&
	    m.type == EXCHANGE_ABORT && m.abort.code == EXCHANGE_ABORT_LINK_LAYER)
		return link_layer_refusal(c, m.abort.text);
	return link_layer_refusal(c, NULL);
}

static int server_handshake(struct bench_ctx *c, int lfd)
{
	const struct bench_config *cfg = c->cfg;
	int r;
	if (cfg->cm && (r = cm_listen(c)) < 0)
		return r;
	if ((r = exchange_accept(lfd, -1, cfg->cancel, &c->fd, c->e)) < 0)
		return r;
	struct exchange_msg m;
	if ((r = recv_msg(c, &m, c->timeout_ms, EXCHANGE_HELLO,
			  "waiting for the client's "
			  "hello")) < 0)
		return r;
	if (m.type != EXCHANGE_HELLO)
		return err_setx(c->e, EPROTO, "the client sent message type %u instead of hello",
				m.type);
	/* Before any parameter: nothing else matters between two link layers. */
	if (m.dest.link_layer != (c->eth ? EXCHANGE_LL_ETH : EXCHANGE_LL_IB))
		return server_link_layer_refusal(c);
	struct exchange_params mine;
	if ((r = local_params(c, &mine)) < 0)
		return r;
	struct exchange_mismatch mm = {0};
	int differs = exchange_params_compare(&mine, &m.params,
					      cfg->pinned | EXCHANGE_PIN(EXCHANGE_P_CM), &mm);
	if (differs) {
		struct exchange_msg a = {.type = EXCHANGE_MISMATCH, .mismatch = mm};
		send_msg(c, &a);
		char text[200];
		exchange_mismatch_describe(&mm, text, sizeof(text));
		return err_setx(c->e, EINVAL, "refused the client's test: %s", text);
	}
	c->params = m.params;
	c->params.rd_atomic = mine.rd_atomic;
	c->grh = cfg->cm ? c->eth
			 : bench_wire_needs_grh(c->eth,
						(m.params.flags | mine.flags) & EXCHANGE_F_GRH,
						c->pattr.lid, m.dest.lid);
	c->params.flags = (uint8_t)((c->params.flags & ~EXCHANGE_F_GRH) |
				    (c->grh && !c->eth ? EXCHANGE_F_GRH : 0));
	if (mine.mtu < c->params.mtu)
		c->params.mtu = mine.mtu;
	pick_rd_atomic(c, m.params.rd_atomic);
	c->remote = m.dest;
	c->res->peer_port = m.dest.port;
	if ((r = dev_setup(c)) < 0 || (r = check_remote(c)) < 0)
		return r;
	struct exchange_msg a = {.type = EXCHANGE_ACCEPT, .params = c->params};
	dev_fill_dest(c, &a.dest);
	c->res->self_port = a.dest.port;
	a.dest.cm_port = cfg->cm ? cfg->tcp_port : 0;
	if ((r = send_msg(c, &a)) < 0)
		return r;
	return cfg->cm ? cm_accept(c) : dev_connect(c);
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

static int run_size(struct bench_ctx *c, unsigned int step, uint64_t size)
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
		if ((r_ = send_msg(c, &m)) < 0 ||
		    (r_ = recv_msg(c, &m, c->timeout_ms, EXCHANGE_SYNC, "starting a size")) < 0)
			return r_;
	} else {
		if ((r_ = recv_msg(c, &m, -1, EXCHANGE_SYNC, "waiting for the next size")) < 0)
			return r_;
		if (m.sync.phase != EXCHANGE_PHASE_START || m.sync.step != step)
			return err_setx(c->e, EPROTO, "the client is at size step %u, we are at %u",
					m.sync.step, step);
		m.sync.phase = EXCHANGE_PHASE_START;
		if ((r_ = send_msg(c, &m)) < 0)
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
		if ((r_ = send_msg(c, &d)) < 0)
			return r_;
	}
	struct exchange_sync peer = c->peer_sync;
	if (!c->peer_done) {
		if ((r_ = recv_msg(c, &m, -1, EXCHANGE_SYNC, "waiting for the peer to finish")) < 0)
			return r_;
		if (m.sync.phase != EXCHANGE_PHASE_DONE || m.sync.step != step)
			return err_setx(c->e, EPROTO, "out-of-step sync from the peer (step %u)",
					m.sync.step);
		peer = m.sync;
	}
	if (!active) { /* a passive side answers the active one's DONE */
		struct exchange_msg d = {.type = EXCHANGE_SYNC,
					 .sync = {.step = step, .phase = EXCHANGE_PHASE_DONE}};
		if ((r_ = send_msg(c, &d)) < 0)
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
	exchange_send(c->fd, &m, 500, &ignored);
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
			      .timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : DEFAULT_TIMEOUT_MS};
	res->test = cfg->test;
	int lfd = cfg->listen_fd, r = 0;
	/* Before the device is opened and the buffer allocated: both then
	 * come from the HCA's node. */
	struct place_want want = {
		.no_pin = cfg->no_pin, .cpus_given = cfg->cpu_given, .cpus = cfg->cpus};
	if ((r = place_begin(cfg->ibdev, &want, &res->placement, &c.saved_affinity, c.e)) < 0)
		goto out;
	if ((r = dev_open(&c)) < 0)
		goto out;
	if (cfg->server && lfd < 0 &&
	    (r = exchange_listen(NULL, cfg->tcp_port, &lfd, NULL, c.e)) < 0)
		goto out;
	r = cfg->server ? server_handshake(&c, lfd) : client_handshake(&c);
	if (r < 0)
		goto out;
	fill_result_header(&c);
	uint64_t cq_mod = cfg->cq_mod ? cfg->cq_mod : DEFAULT_CQ_MOD;
	if (cq_mod > c.params.tx_depth)
		cq_mod = c.params.tx_depth;
	/* A short run still gets a few completions to time and a peak to find. */
	if (c.params.iters && cq_mod > c.params.iters / 8)
		cq_mod = c.params.iters / 8 ? c.params.iters / 8 : 1;
	res->cq_mod = (unsigned int)cq_mod;
	for (unsigned int k = 0; k < res->n_sizes; k++) {
		uint64_t size = res->n_sizes > 1 ? 2ull << k : c.params.size;
		if ((r = run_size(&c, k, size)) < 0)
			goto out;
	}
	struct exchange_msg bye = {.type = EXCHANGE_BYE};
	if (!cfg->server)
		r = send_msg(&c, &bye);
	else
		r = recv_msg(&c, &bye, c.timeout_ms, EXCHANGE_BYE, "waiting for the client's bye");
out:
	if (r < 0)
		abort_peer(&c, r == -ECANCELED ? EXCHANGE_ABORT_CANCELLED : EXCHANGE_ABORT_ERROR);
	dev_close(&c);
	place_end(&res->placement, &c.saved_affinity);
	if (c.fd >= 0)
		close(c.fd);
	if (lfd >= 0 && lfd != cfg->listen_fd)
		close(lfd);
	return r < 0 ? r : 0;
}
