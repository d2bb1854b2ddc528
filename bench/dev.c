// SPDX-License-Identifier: MIT
/* Device, PD, MR, CQ and QP setup in one place, and the exchange's QP
 * connection (INIT -> RTR -> RTS). The GID index is chosen the same way on
 * both sides: on an Ethernet link layer the lowest RoCE v2 GID holding an
 * IPv4 address (sysfs gid_attrs/types/<i> and gids/<i>), on InfiniBand
 * index 0 with the LID, and a GRH only when needed (bench/wire.h). */
#include "internal.h"
#include "place.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sys/sys.h"

/* Buffers beyond this are not worth a second slot. */
#define SLOT_BUDGET (256u << 20)
#define INLINE_WANT 220

uint64_t bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool dev_gid_ipv4(const uint8_t gid[16], char *buf, size_t size)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (memcmp(gid, prefix, 12))
		return false;
	snprintf(buf, size, "%u.%u.%u.%u", gid[12], gid[13], gid[14], gid[15]);
	return true;
}

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	bool ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The lowest RoCE v2 GID with an IPv4 address, as the sysfs files say. */
static int pick_roce_v2_ipv4(struct bench_ctx *c)
{
	for (int i = 0; i < c->pattr.gid_tbl_len; i++) {
		char path[256], type[32];
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/gid_attrs/types/%d",
			 c->cfg->ibdev, c->port, i);
		if (read_line(path, type, sizeof(type)) < 0 || strcmp(type, "RoCE v2"))
			continue;
		union ibv_gid g;
		char ip[16];
		if (ibv_query_gid(c->ctx, (uint8_t)c->port, i, &g) == 0 &&
		    dev_gid_ipv4(g.raw, ip, sizeof(ip)))
			return i;
	}
	return err_setx(c->e, ENOENT,
			"no RoCE v2 IPv4 GID on '%s' port %u (is there an IPv4 address on its "
			"netdev? --gid-index overrides)",
			c->cfg->ibdev, c->port);
}

static struct ibv_context *open_by_name(struct bench_ctx *c, const char *name)
{
	if (c->cfg->cm) {
		int n = 0;
		c->cm_list = rdma_get_devices(&n);
		for (int i = 0; c->cm_list && i < n; i++)
			if (!strcmp(ibv_get_device_name(c->cm_list[i]->device), name))
				return c->cm_list[i];
		return NULL;
	}
	c->dev_list = ibv_get_device_list(NULL);
	for (int i = 0; c->dev_list && c->dev_list[i]; i++)
		if (!strcmp(ibv_get_device_name(c->dev_list[i]), name))
			return ibv_open_device(c->dev_list[i]);
	return NULL;
}

/* --sl and --pkey-index against this port: a level out of range, an index
 * out of the P_Key table or an empty entry is refused by name. rdma_cm
 * takes both from the path it resolves. */
static int path_check(struct bench_ctx *c)
{
	const struct bench_config *cfg = c->cfg;
	if (cfg->sl > 15)
		return err_setx(c->e, EINVAL, "service level %u out of range 0..15", cfg->sl);
	if (cfg->cm && (cfg->sl || cfg->pkey_index >= 0))
		return err_setx(c->e, EINVAL,
				"--sl and --pkey-index cannot be used with --cm: rdma_cm takes the "
				"service level and P_Key from the path and interface it resolves");
	c->pkey_index = cfg->pkey_index >= 0 ? (unsigned int)cfg->pkey_index : 0;
	if (c->pkey_index >= (unsigned int)c->pattr.pkey_tbl_len)
		return err_setx(
			c->e, EINVAL, "P_Key index %u out of '%s' port %u's table (%u entries)",
			c->pkey_index, cfg->ibdev, c->port, (unsigned int)c->pattr.pkey_tbl_len);
	__be16 pkey = 0;
	if (ibv_query_pkey(c->ctx, (uint8_t)c->port, (int)c->pkey_index, &pkey))
		return err_set(c->e, errno, "cannot read P_Key index %u of '%s' port %u",
			       c->pkey_index, cfg->ibdev, c->port);
	c->pkey = be16toh(pkey);
	if (!(c->pkey & 0x7fff))
		return err_setx(c->e, EINVAL, "P_Key index %u of '%s' port %u is empty (0x%04x)",
				c->pkey_index, cfg->ibdev, c->port, c->pkey);
	return 0;
}

/* How this side's packets are framed, the GRH decision aside: RoCE v1 or v2
 * by the GID's type, IPv4 or IPv6 by its address. */
static enum bench_wire framing(struct bench_ctx *c)
{
	char path[256], type[32], ip[16];
	if (!c->eth)
		return BENCH_WIRE_IB;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/gid_attrs/types/%d",
		 c->cfg->ibdev, c->port, c->gid_index);
	if (read_line(path, type, sizeof(type)) == 0 && strcmp(type, "RoCE v2"))
		return BENCH_WIRE_ROCE_V1;
	return dev_gid_ipv4(c->gid.raw, ip, sizeof(ip)) ? BENCH_WIRE_ROCE_V2_IPV4
							: BENCH_WIRE_ROCE_V2_IPV6;
}

/* Rate, cap, lanes and physical port, from the real node's sysfs and
 * netlink: what is not found stays unknown. */
static void probe_port(struct bench_ctx *c)
{
	struct sys *s;
	struct err e;
	c->pinfo = (struct bench_port_info){.vf_index = -1};
	if (sys_open_linux("/", &s, &e) < 0)
		return;
	bench_port_probe(s, c->cfg->ibdev, c->port, c->pattr.active_speed, c->pattr.active_width,
			 &c->pinfo);
	sys_close(s);
}

int dev_open(struct bench_ctx *c)
{
	const struct bench_config *cfg = c->cfg;
	c->port = cfg->ib_port ? cfg->ib_port : 1;
	c->ctx = open_by_name(c, cfg->ibdev);
	if (!c->ctx)
		return err_setx(c->e, ENODEV, "no RDMA device '%s' (or it cannot be opened)",
				cfg->ibdev);
	if (ibv_query_device(c->ctx, &c->dattr))
		return err_set(c->e, errno, "cannot query device '%s'", cfg->ibdev);
	if (ibv_query_port(c->ctx, (uint8_t)c->port, &c->pattr))
		return err_set(c->e, errno, "cannot query '%s' port %u", cfg->ibdev, c->port);
	if (c->pattr.state != IBV_PORT_ACTIVE)
		return err_setx(c->e, ENETDOWN, "'%s' port %u is not ACTIVE (state %d)", cfg->ibdev,
				c->port, c->pattr.state);
	c->eth = c->pattr.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (cfg->gid_index >= 0) {
		if (cfg->gid_index >= c->pattr.gid_tbl_len)
			return err_setx(c->e, EINVAL, "GID index %d out of '%s' table (%d entries)",
					cfg->gid_index, cfg->ibdev, c->pattr.gid_tbl_len);
		c->gid_index = cfg->gid_index;
	} else if (c->eth) {
		int r = pick_roce_v2_ipv4(c);
		if (r < 0)
			return r;
		c->gid_index = r;
	} else {
		c->gid_index = 0;
	}
	if (ibv_query_gid(c->ctx, (uint8_t)c->port, c->gid_index, &c->gid))
		return err_set(c->e, errno, "cannot read GID %d of '%s'", c->gid_index, cfg->ibdev);
	int r = path_check(c);
	if (r < 0)
		return r;
	c->wire = framing(c);
	probe_port(c);
	if (cfg->cm && (r = cm_pick_local(c)) < 0)
		return r;
	c->pd = ibv_alloc_pd(c->ctx);
	if (!c->pd)
		return err_set(c->e, errno, "cannot allocate a PD on '%s'", cfg->ibdev);
	return 0;
}

/* Buffer layout, computed the same way on both sides from the agreed
 * parameters: per QP a region of `slots` slots, each a cache line longer
 * than the largest message, so consecutive messages do not reuse lines. */
static int layout(struct bench_ctx *c)
{
	const struct exchange_params *p = &c->params;
	uint64_t max = (p->flags & EXCHANGE_F_ALL_SIZES) ? EXCHANGE_MAX_SIZE : p->size;
	bool lat = bench_is_latency(p->test);
	c->stride = (size_t)((max + 63) / 64 * 64 + 64);
	c->slots = lat ? 2 : 4; /* latency: one to receive, one to send */
	while (!lat && c->slots > 1 && (uint64_t)p->qps * c->slots * c->stride > SLOT_BUDGET)
		c->slots--;
	c->region = c->slots * c->stride;
	uint64_t total = (uint64_t)p->qps * c->region;
	if (total > EXCHANGE_MAX_BUF)
		return err_setx(c->e, ENOMEM,
				"%u QPs of %llu-byte messages need %llu MiB, over "
				"the %llu MiB limit",
				p->qps, (unsigned long long)max, (unsigned long long)(total >> 20),
				EXCHANGE_MAX_BUF >> 20);
	c->buf_size = (size_t)total;
	return 0;
}

int dev_qp_init_attr(struct bench_ctx *c, struct ibv_qp_init_attr *a)
{
	bool lat = bench_is_latency(c->params.test);
	*a = (struct ibv_qp_init_attr){
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = {.max_send_wr = lat ? DEV_LAT_DEPTH : c->params.tx_depth,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = INLINE_WANT},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
	};
	return 0;
}

static int create_qp(struct bench_ctx *c, unsigned int q)
{
	struct ibv_qp_init_attr a;
	dev_qp_init_attr(c, &a);
	c->qps[q].qp = ibv_create_qp(c->pd, &a);
	if (!c->qps[q].qp) { /* some providers refuse inline data: ask for none */
		a.cap.max_inline_data = 0;
		c->qps[q].qp = ibv_create_qp(c->pd, &a);
	}
	if (!c->qps[q].qp)
		return err_set(c->e, errno, "cannot create QP %u on '%s' (send depth %u)", q,
			       c->cfg->ibdev, a.cap.max_send_wr);
	c->max_inline = a.cap.max_inline_data;
	c->qps[q].psn = (uint32_t)(bench_now_ns() ^ (q * 0x9e3779b9u)) & 0xffffff;
	return 0;
}

int dev_setup(struct bench_ctx *c)
{
	int r = layout(c);
	if (r < 0)
		return r;
	void *buf;
	if ((r = place_buffer_alloc(c->buf_size, &c->res->placement, &buf, &c->buf_map_len, c->e)) <
	    0)
		return r;
	c->buf = buf;
	c->mr = ibv_reg_mr(c->pd, c->buf, c->buf_size,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
	if (!c->mr)
		return err_set(c->e, errno, "cannot register %zu bytes on '%s'", c->buf_size,
			       c->cfg->ibdev);
	bool lat = bench_is_latency(c->params.test);
	c->n_qps = c->params.qps;
	c->cq_size = c->n_qps * (lat ? DEV_LAT_DEPTH : c->params.tx_depth) + 16;
	c->cq = ibv_create_cq(c->ctx, (int)c->cq_size, NULL, NULL, 0);
	if (!c->cq)
		return err_set(c->e, errno, "cannot create a CQ of %u entries on '%s'", c->cq_size,
			       c->cfg->ibdev);
	if (c->cfg->cm)
		return 0; /* rdma_cm creates the QPs on its ids */
	for (unsigned int q = 0; q < c->n_qps; q++)
		if ((r = create_qp(c, q)) < 0)
			return r;
	return 0;
}

void dev_fill_dest(struct bench_ctx *c, struct exchange_dest *d)
{
	memset(d, 0, sizeof(*d));
	d->lid = c->pattr.lid;
	d->link_layer = c->eth ? EXCHANGE_LL_ETH : EXCHANGE_LL_IB;
	d->gid_index = (uint8_t)c->gid_index;
	memcpy(d->gid, c->gid.raw, 16);
	d->addr = (uint64_t)(uintptr_t)c->buf;
	d->rkey = c->mr->rkey;
	d->buf_size = c->buf_size;
	d->n_qps = (uint16_t)c->params.qps;
	/* The port block (version 2): what verbs says here; the rate, cap,
	 * placement and identity are filled where they are known. */
	/* A code out of range (a driver's) is unknown, never shifted. */
	d->port.mtu = c->pattr.active_mtu >= IBV_MTU_256 && c->pattr.active_mtu <= IBV_MTU_4096
			      ? (uint16_t)(128u << c->pattr.active_mtu)
			      : 0;
	d->port.rate_mbps = c->pinfo.rate_mbps;
	d->port.max_tx_rate_mbps = c->pinfo.max_tx_rate_mbps;
	d->port.width = c->pinfo.width;
	memcpy(d->port.phys_port, c->pinfo.phys_port, sizeof(d->port.phys_port));
	struct bench_placement *pl = &c->res->placement;
	place_sample_cpu(pl);
	d->port.numa_node = (int16_t)pl->hca_node;
	d->port.buf_node = (int16_t)pl->buf_node;
	d->port.cpu = pl->cpu >= 0 ? (uint16_t)pl->cpu : EXCHANGE_NO_CPU;
	if (c->cfg->cm)
		memcpy(d->port.cm_ipv4, c->cm_ipv4, 4);
	for (unsigned int q = 0; q < c->params.qps; q++) {
		/* With --cm the QPs do not exist yet: rdma_cm carries their numbers. */
		d->qps[q].qpn = c->qps[q].qp ? c->qps[q].qp->qp_num : 0;
		d->qps[q].psn = c->qps[q].psn;
	}
}

int dev_connect(struct bench_ctx *c)
{
	enum ibv_mtu mtu = (enum ibv_mtu)c->params.mtu;
	for (unsigned int q = 0; q < c->n_qps; q++) {
		struct ibv_qp *qp = c->qps[q].qp;
		struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT,
					.pkey_index = (uint16_t)c->pkey_index,
					.port_num = (uint8_t)c->port,
					.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
							   IBV_ACCESS_REMOTE_READ |
							   IBV_ACCESS_LOCAL_WRITE};
		if (ibv_modify_qp(qp, &a,
				  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					  IBV_QP_ACCESS_FLAGS))
			return err_set(c->e, errno, "cannot move QP %u to INIT", q);
		a = (struct ibv_qp_attr){
			.qp_state = IBV_QPS_RTR,
			.path_mtu = mtu,
			.dest_qp_num = c->remote.qps[q].qpn,
			.rq_psn = c->remote.qps[q].psn,
			.max_dest_rd_atomic =
				(uint8_t)(c->dattr.max_qp_rd_atom > 255 ? 255
									: c->dattr.max_qp_rd_atom),
			.min_rnr_timer = 12,
			.ah_attr = {.dlid = c->remote.lid,
				    .sl = (uint8_t)c->cfg->sl,
				    .port_num = (uint8_t)c->port},
		};
		if (!a.max_dest_rd_atomic)
			a.max_dest_rd_atomic = 1;
		if (c->grh) {
			a.ah_attr.is_global = 1;
			memcpy(a.ah_attr.grh.dgid.raw, c->remote.gid, 16);
			a.ah_attr.grh.sgid_index = (uint8_t)c->gid_index;
			a.ah_attr.grh.hop_limit = 64;
		}
		if (ibv_modify_qp(qp, &a,
				  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER))
			return err_set(c->e, errno, "cannot move QP %u to RTR (peer QP 0x%x)", q,
				       c->remote.qps[q].qpn);
		a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS,
					 .timeout = 14,
					 .retry_cnt = 7,
					 .rnr_retry = 7,
					 .sq_psn = c->qps[q].psn,
					 .max_rd_atomic = c->rd_atomic};
		if (ibv_modify_qp(qp, &a,
				  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					  IBV_QP_MAX_QP_RD_ATOMIC))
			return err_set(c->e, errno, "cannot move QP %u to RTS", q);
	}
	return 0;
}

uint64_t dev_remote_addr(const struct bench_ctx *c, unsigned int q, unsigned int slot)
{
	return c->remote.addr + q * c->region + slot * c->stride;
}

uint8_t *dev_local(const struct bench_ctx *c, unsigned int q, unsigned int slot)
{
	return c->buf + q * c->region + slot * c->stride;
}

void dev_close(struct bench_ctx *c)
{
	for (unsigned int q = 0; q < EXCHANGE_MAX_QPS; q++) {
		if (c->qps[q].id) {
			if (c->qps[q].id->qp)
				rdma_destroy_qp(c->qps[q].id);
			rdma_destroy_id(c->qps[q].id);
		} else if (c->qps[q].qp) {
			ibv_destroy_qp(c->qps[q].qp);
		}
		c->qps[q] = (struct bench_qp){0};
	}
	cm_close(c);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	place_buffer_free(c->buf, c->buf_map_len);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->dev_list) {
		if (c->ctx)
			ibv_close_device(c->ctx);
		ibv_free_device_list(c->dev_list);
	}
	if (c->cm_list)
		rdma_free_devices(c->cm_list);
	c->cq = NULL;
	c->mr = NULL;
	c->buf = NULL;
	c->pd = NULL;
	c->ctx = NULL;
	c->dev_list = NULL;
	c->cm_list = NULL;
}
