// SPDX-License-Identifier: MIT
/* Connection by rdma_cm (--cm): each side takes an IPv4 address of its
 * device's netdev (cm_addr.h: --cm-addr, or the netdev's own, IPoIB on
 * InfiniBand) and sends it in its port block; the server listens on its
 * address at the control port's number; the client resolves the server's
 * address, creates each QP on its id and connects them one by one. The control channel still
 * carries the parameters, buffer address and rkey. Every wait is bounded. */
#include "internal.h"

#include "bench/cm_addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

static int make_channel(struct bench_ctx *c)
{
	if (c->ch)
		return 0;
	c->ch = rdma_create_event_channel();
	if (!c->ch)
		return err_set(c->e, errno, "cannot create an rdma_cm event channel");
	int fl = fcntl(c->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(c->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return err_set(c->e, errno, "cannot make the rdma_cm channel non-blocking");
	return 0;
}

/* The next event within the timeout; the caller acks it. */
static int next_event(struct bench_ctx *c, struct rdma_cm_event **ret, const char *waiting_for)
{
	uint64_t deadline = bench_now_ns() + (uint64_t)c->timeout_ms * 1000000ull;
	for (;;) {
		if (rdma_get_cm_event(c->ch, ret) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return err_set(c->e, errno, "rdma_cm failed while waiting for %s",
				       waiting_for);
		if (bench_cancelled(c))
			return err_setx(c->e, ECANCELED, "cancelled");
		uint64_t now = bench_now_ns();
		if (now >= deadline)
			return err_setx(c->e, ETIMEDOUT, "rdma_cm: no %s within %d ms", waiting_for,
					c->timeout_ms);
		struct pollfd p = {.fd = c->ch->fd, .events = POLLIN};
		poll(&p, 1, 100);
	}
}

/* Waits for one event of the wanted type on id; anything else is an error. */
static int expect_event(struct bench_ctx *c, enum rdma_cm_event_type want, const char *what)
{
	struct rdma_cm_event *ev;
	int r = next_event(c, &ev, what);
	if (r < 0)
		return r;
	enum rdma_cm_event_type got = ev->event;
	int status = ev->status;
	rdma_ack_cm_event(ev);
	if (got != want)
		return err_setx(c->e, ECONNREFUSED, "rdma_cm: %s instead of %s (status %d)",
				rdma_event_str(got), rdma_event_str(want), status);
	return 0;
}

static int parse_ipv4(struct bench_ctx *c, const char *ip, uint16_t port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &sa->sin_addr) != 1)
		return err_setx(c->e, EINVAL, "'%s' is not an IPv4 address (rdma_cm needs one)",
				ip);
	return 0;
}

int cm_pick_local(struct bench_ctx *c)
{
	struct cm_local l;
	int r = cm_local_read(c->cfg->ibdev, c->port, &l, c->e);
	if (r < 0)
		return r;
	char gid_ip[16];
	const uint8_t *gid4 =
		dev_gid_ipv4(c->gid.raw, gid_ip, sizeof(gid_ip)) ? c->gid.raw + 12 : NULL;
	return cm_addr_choose(&l, c->cfg->ibdev, c->cfg->cm_addr, gid4, c->cm_ipv4, c->cm_ip,
			      sizeof(c->cm_ip), c->e);
}

/* The server's address: what it sent, else its GID's, else the host. */
static const char *peer_ip_of(struct bench_ctx *c, char *buf, size_t size)
{
	const uint8_t *a = c->remote.port.cm_ipv4;
	if (a[0] | a[1] | a[2] | a[3]) {
		snprintf(buf, size, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
		return buf;
	}
	return dev_gid_ipv4(c->remote.gid, buf, size) ? buf : c->cfg->host;
}

static int check_device(struct bench_ctx *c, struct rdma_cm_id *id, const char *ip)
{
	if (id->verbs == c->ctx)
		return 0;
	return err_setx(c->e, EXDEV, "rdma_cm maps %s to '%s', not '%s'", ip,
			id->verbs ? ibv_get_device_name(id->verbs->device) : "no device",
			c->cfg->ibdev);
}

int cm_listen(struct bench_ctx *c)
{
	const char *ip = c->cm_ip;
	struct sockaddr_in sa;
	int r = make_channel(c);
	if (r < 0 || (r = parse_ipv4(c, ip, c->cfg->tcp_port, &sa)) < 0)
		return r;
	if (rdma_create_id(c->ch, &c->listen_id, NULL, RDMA_PS_TCP))
		return err_set(c->e, errno, "cannot create an rdma_cm id");
	if (rdma_bind_addr(c->listen_id, (struct sockaddr *)&sa))
		return err_set(c->e, errno, "rdma_cm cannot bind %s port %u", ip, c->cfg->tcp_port);
	if ((r = check_device(c, c->listen_id, ip)) < 0)
		return r;
	if (rdma_listen(c->listen_id, EXCHANGE_MAX_QPS))
		return err_set(c->e, errno, "rdma_cm cannot listen on %s port %u", ip,
			       c->cfg->tcp_port);
	return 0;
}

static void conn_param(struct bench_ctx *c, struct rdma_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->initiator_depth = c->rd_atomic;
	p->responder_resources =
		(uint8_t)(c->dattr.max_qp_rd_atom > 255 ? 255 : c->dattr.max_qp_rd_atom);
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

int cm_connect(struct bench_ctx *c)
{
	const char *ip = c->cm_ip;
	char peer[64];
	const char *peer_ip = peer_ip_of(c, peer, sizeof(peer));
	struct sockaddr_in src, dst;
	int r = make_channel(c);
	if (r < 0 || (r = parse_ipv4(c, ip, 0, &src)) < 0 ||
	    (r = parse_ipv4(c, peer_ip, c->remote.cm_port, &dst)) < 0)
		return r;
	for (unsigned int q = 0; q < c->n_qps; q++) {
		struct rdma_cm_id *id;
		if (rdma_create_id(c->ch, &id, NULL, RDMA_PS_TCP))
			return err_set(c->e, errno, "cannot create an rdma_cm id");
		c->qps[q].id = id;
		if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst,
				      c->timeout_ms))
			return err_set(c->e, errno, "rdma_cm cannot resolve %s from %s", peer_ip,
				       ip);
		if ((r = expect_event(c, RDMA_CM_EVENT_ADDR_RESOLVED, "address resolution")) < 0)
			return r;
		if ((r = check_device(c, id, ip)) < 0)
			return r;
		if (rdma_resolve_route(id, c->timeout_ms))
			return err_set(c->e, errno, "rdma_cm cannot resolve a route to %s",
				       peer_ip);
		if ((r = expect_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED, "route resolution")) < 0)
			return r;
		struct ibv_qp_init_attr a;
		dev_qp_init_attr(c, &a);
		if (rdma_create_qp(id, c->pd, &a)) {
			a.cap.max_inline_data = 0;
			if (rdma_create_qp(id, c->pd, &a))
				return err_set(c->e, errno, "rdma_cm cannot create QP %u", q);
		}
		c->max_inline = a.cap.max_inline_data;
		c->qps[q].qp = id->qp;
		struct rdma_conn_param p;
		conn_param(c, &p);
		if (rdma_connect(id, &p))
			return err_set(c->e, errno, "rdma_cm cannot connect QP %u to %s", q,
				       peer_ip);
		if ((r = expect_event(c, RDMA_CM_EVENT_ESTABLISHED, "connection")) < 0)
			return r;
	}
	return 0;
}

int cm_accept(struct bench_ctx *c)
{
	unsigned int established = 0, requested = 0;
	while (established < c->n_qps) {
		struct rdma_cm_event *ev;
		int r = next_event(c, &ev, "a connection from the client");
		if (r < 0)
			return r;
		enum rdma_cm_event_type type = ev->event;
		struct rdma_cm_id *id = ev->id;
		rdma_ack_cm_event(ev);
		if (type == RDMA_CM_EVENT_ESTABLISHED) {
			established++;
			continue;
		}
		if (type != RDMA_CM_EVENT_CONNECT_REQUEST)
			return err_setx(c->e, ECONNABORTED, "rdma_cm: %s while accepting",
					rdma_event_str(type));
		if (requested >= c->n_qps) {
			rdma_reject(id, NULL, 0);
			rdma_destroy_id(id);
			return err_setx(c->e, EPROTO,
					"rdma_cm: more connections than the %u QPs "
					"agreed",
					c->n_qps);
		}
		c->qps[requested].id = id;
		if ((r = check_device(c, id, "the client's connection")) < 0)
			return r;
		struct ibv_qp_init_attr a;
		dev_qp_init_attr(c, &a);
		if (rdma_create_qp(id, c->pd, &a)) {
			a.cap.max_inline_data = 0;
			if (rdma_create_qp(id, c->pd, &a))
				return err_set(c->e, errno, "rdma_cm cannot create QP %u",
					       requested);
		}
		c->max_inline = a.cap.max_inline_data;
		c->qps[requested].qp = id->qp;
		struct rdma_conn_param p;
		conn_param(c, &p);
		if (rdma_accept(id, &p))
			return err_set(c->e, errno, "rdma_cm cannot accept QP %u", requested);
		requested++;
	}
	return 0;
}

void cm_close(struct bench_ctx *c)
{
	if (c->listen_id)
		rdma_destroy_id(c->listen_id);
	c->listen_id = NULL;
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	c->ch = NULL;
}
