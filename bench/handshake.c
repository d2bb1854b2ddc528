// SPDX-License-Identifier: MIT
/* A session's start: the door (OPEN, CHALLENGE, an authenticated HELLO,
 * bench/gate.h), the parameters both sides run with, and the connection of
 * the QPs (exchange or rdma_cm). */
#include "gate.h"
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
				   (cfg->gid_index >= 0 || shares_pf_lid(c) ? EXCHANGE_F_GRH : 0) |
				   (cfg->key && cfg->key->set ? EXCHANGE_F_KEYED : 0)),
		/* What this side can answer as a responder: the device's max. */
		.rd_atomic = clamp_u8(c->dattr.max_qp_rd_atom),
		.mtu = (uint8_t)c->pattr.active_mtu,
		.qps = cfg->qps ? cfg->qps : BENCH_DEFAULT_QPS,
		.tx_depth = cfg->tx_depth ? cfg->tx_depth : BENCH_DEFAULT_TX_DEPTH,
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

/* A device name as it may cross the wire: printable, without quotes. */
static void wire_name(const char *name, char *buf, size_t size)
{
	size_t j = 0;
	for (const char *p = name; *p && j + 1 < size; p++)
		buf[j++] = (*p > 0x20 && *p < 0x7f && *p != '\'' && *p != '"') ? *p : '?';
	buf[j] = '\0';
}

void bench_send_link_layer_abort(struct bench_ctx *c)
{
	struct exchange_msg m = {.type = EXCHANGE_ABORT,
				 .abort = {.code = EXCHANGE_ABORT_LINK_LAYER}};
	struct err ignored;
	wire_name(c->cfg->ibdev, m.abort.text, sizeof(m.abort.text));
	exchange_session_send(&c->sess, c->fd, &m, c->timeout_ms, &ignored);
}

/* Link layers that differ, refused by name on both sides: each sends the
 * other its device's name (EXCHANGE_ABORT_LINK_LAYER). peer: the peer's
 * name, or NULL when it did not say. */
int bench_link_layer_refusal(struct bench_ctx *c, const char *peer)
{
	return err_setx(c->e, EPROTONOSUPPORT,
			"'%s' is %s, the peer's %s%s%s is %s: both ends of a connection need "
			"the same link layer",
			c->cfg->ibdev, bench_wire_link_layer_name(c->eth), peer ? "'" : "",
			peer ? peer : "device", peer ? "'" : "",
			bench_wire_link_layer_name(!c->eth));
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

int bench_session_begin(struct bench_ctx *c, const struct exchange_params *p,
			const uint8_t client_nonce[EXCHANGE_NONCE_LEN],
			const uint8_t server_nonce[EXCHANGE_NONCE_LEN], bool client)
{
	const struct exchange_key *k = c->cfg->key;
	exchange_session_start(&c->sess, exchange_session_budget_ms(p, c->timeout_ms));
	if (k && k->set)
		return exchange_session_key(&c->sess, k, client_nonce, server_nonce, client, c->e);
	return 0;
}

/* OPEN, then the server's CHALLENGE: its nonce, and whether it wants a
 * key; a client with a key does not run against an open server. */
static int client_open(struct bench_ctx *c)
{
	const bool keyed = c->cfg->key && c->cfg->key->set;
	struct exchange_msg m = {.type = EXCHANGE_OPEN};
	int r = bench_send(c, &m);
	if (r < 0 ||
	    (r = bench_recv(c, &m, c->timeout_ms, EXCHANGE_CHALLENGE,
			    "waiting for the server's challenge (it serves one client at a "
			    "time: busy with another?)")) < 0)
		return r;
	memcpy(c->peer_nonce, m.challenge.nonce, EXCHANGE_NONCE_LEN);
	if (keyed && !(m.challenge.flags & EXCHANGE_CH_KEYED))
		return err_setx(c->e, EACCES,
				"the server is open (no --key) and this client has a key: not "
				"running against a server it cannot authenticate");
	if (!keyed && (m.challenge.flags & EXCHANGE_CH_KEYED))
		return err_setx(c->e, EACCES,
				"server refused: key mismatch: the server wants a key (--key or "
				"$" EXCHANGE_KEY_ENV ") and this client has none");
	return 0;
}

int bench_client_handshake(struct bench_ctx *c)
{
	const struct bench_config *cfg = c->cfg;
	int r = exchange_connect_from(cfg->host, cfg->tcp_port, cfg->src_addr, c->timeout_ms,
				      &c->fd, c->e);
	if (r < 0 || (r = client_open(c)) < 0 || (r = local_params(c, &c->params)) < 0 ||
	    (r = dev_setup(c)) < 0)
		return r;
	struct exchange_msg m = {.type = EXCHANGE_HELLO, .params = c->params};
	dev_fill_dest(c, &m.dest);
	c->res->self_port = m.dest.port;
	uint8_t nonce[EXCHANGE_NONCE_LEN] = {0};
	if (cfg->key && cfg->key->set &&
	    ((r = exchange_nonce(nonce, c->e)) < 0 ||
	     (memcpy(m.tag.nonce, nonce, sizeof(nonce)),
	      (r = exchange_seal(cfg->key, &m, c->peer_nonce, c->e)) < 0)))
		return r;
	if ((r = bench_send(c, &m)) < 0)
		return r;
	if ((r = bench_recv(c, &m, c->timeout_ms, EXCHANGE_ACCEPT,
			    "waiting for the server to accept")) < 0)
		return r;
	if (m.type == EXCHANGE_MISMATCH) {
		char text[200];
		exchange_mismatch_describe(&m.mismatch, text, sizeof(text));
		return err_setx(c->e, EINVAL, "the server refused the test: %s", text);
	}
	if (cfg->key && cfg->key->set && !exchange_verify(cfg->key, &m, nonce))
		return err_setx(c->e, EACCES,
				"key mismatch: the server's accept does not carry this key's HMAC");
	/* From here on: a deadline, and with a key a MAC on every message. */
	if ((r = bench_session_begin(c, &m.params, nonce, c->peer_nonce, true)) < 0)
		return r;
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
	bench_send_link_layer_abort(c);
	c->link_layer_told = true;
	if (exchange_recv(c->fd, &m, c->timeout_ms, c->cfg->cancel, &ignored) == 0 &&
	    m.type == EXCHANGE_ABORT && m.abort.code == EXCHANGE_ABORT_LINK_LAYER)
		return bench_link_layer_refusal(c, m.abort.text);
	return bench_link_layer_refusal(c, NULL);
}

/* The first client through the door of lfd (pair and loopback runs; a
 * `bench server` keeps its own gate across sessions). */
static int server_door(struct bench_ctx *c, int lfd, struct gate_client *ret)
{
	struct gate *g;
	struct gate_config gc = {.lfd = lfd,
				 .key = c->cfg->key,
				 .timeout_ms = c->timeout_ms,
				 .cancel = c->cfg->cancel};
	int r = gate_new(&gc, &g, c->e);
	if (r < 0)
		return r;
	r = gate_next(g, ret, c->e);
	gate_free(g);
	return r;
}

int bench_server_door(struct bench_ctx *c, int lfd, struct gate_client *ret)
{
	if (c->cfg->gated) {
		*ret = *c->cfg->gated;
		c->fd = ret->fd;
		return 0;
	}
	int r = server_door(c, lfd, ret);
	if (r == 0)
		c->fd = ret->fd;
	return r;
}

int bench_server_handshake(struct bench_ctx *c, const struct gate_client *client)
{
	const struct bench_config *cfg = c->cfg;
	int r;
	if (cfg->cm && (r = cm_listen(c)) < 0)
		return r;
	struct exchange_msg m = client->hello;
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
		bench_send(c, &a);
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
	memcpy(a.tag.nonce, client->server_nonce, EXCHANGE_NONCE_LEN);
	if (cfg->key && cfg->key->set && (r = exchange_seal(cfg->key, &a, m.tag.nonce, c->e)) < 0)
		return r;
	if ((r = bench_send(c, &a)) < 0 ||
	    (r = bench_session_begin(c, &a.params, m.tag.nonce, client->server_nonce, false)) < 0)
		return r;
	return cfg->cm ? cm_accept(c) : dev_connect(c);
}
