// SPDX-License-Identifier: MIT
/* The control channel's wire format: pure encode/decode and validation of
 * the messages (the run's parameters: exchange_params.c).
 *
 * Bodies (network byte order):
 *   params  u8 test, u8 flags, u8 rd_atomic, u8 mtu, u32 qps, u32 tx_depth,
 *           u32 duration_s, u64 size, u64 iters                       32 bytes
 *   dest    u16 lid, u8 link_layer, u8 gid_index, u8 gid[16], u64 addr,
 *           u32 rkey, u16 cm_port, u16 n_qps, u64 buf_size,       44 bytes
 *   port    u32 rate_mbps, u32 max_tx_rate_mbps, u8 width, u8 zero,
 *           u16 mtu, u8 phys_port[16], u8 cm_ipv4[4], s16 numa_node,
 *           s16 buf_node, u16 cpu, u16 zero                          40 bytes
 *   qps     n_qps x (u32 qpn, u32 psn)                               8n bytes
 *   tag     u8 nonce[32], u8 mac[32] (exchange_auth.h)                64 bytes
 *   HELLO, ACCEPT  params + dest + port + qps + tag
 *   OPEN           empty
 *   CHALLENGE      u32 flags, u8 nonce[32]
 *   MISMATCH       u16 param, u16 zero, u64 server value, u64 client value
 *   SYNC           u32 step, u32 phase, u64 bytes, u64 ns, u64 msgs, u64 peak_kbps
 *   ABORT          u32 code, char text[96] (NUL-terminated, printable)
 *   BYE            empty
 * After a keyed ACCEPT each body is followed by u64 sequence number and
 * u8 mac[16], counted in the header's length (exchange_session.h); this
 * file sees the message without them. */
#include "exchange.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define PARAMS_LEN   32
#define DEST_LEN     44
#define PORT_LEN     40
#define MISMATCH_LEN 20
#define SYNC_LEN     40
#define ABORT_LEN    (4 + EXCHANGE_TEXT_LEN)
#define TAG_LEN	     (EXCHANGE_NONCE_LEN + EXCHANGE_MAC_LEN)
#define CHAL_LEN     (4 + EXCHANGE_NONCE_LEN)

/* --- byte order ----------------------------------------------------------- */

struct wbuf {
	uint8_t *p;
	size_t len, size;
	bool overflow;
};

static void put(struct wbuf *w, uint64_t v, int bytes)
{
	if (w->len + (size_t)bytes > w->size) {
		w->overflow = true;
		return;
	}
	for (int i = bytes - 1; i >= 0; i--)
		w->p[w->len++] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(struct wbuf *w, const void *src, size_t n)
{
	if (w->len + n > w->size) {
		w->overflow = true;
		return;
	}
	memcpy(w->p + w->len, src, n);
	w->len += n;
}

struct rbuf {
	const uint8_t *p;
	size_t pos, len;
};

/* The caller has checked the length; reads past it return 0. */
static uint64_t get(struct rbuf *r, int bytes)
{
	uint64_t v = 0;
	if (r->pos + (size_t)bytes > r->len)
		return 0;
	for (int i = 0; i < bytes; i++)
		v = v << 8 | r->p[r->pos++];
	return v;
}

static void get_bytes(struct rbuf *r, void *dst, size_t n)
{
	if (r->pos + n > r->len) {
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, r->p + r->pos, n);
	r->pos += n;
}

/* --- validation ------------------------------------------------------------ */

/* With rdma_cm the QP numbers travel in the CM messages: 0 here. */
static int dest_validate(const struct exchange_dest *d, bool cm, struct err *e)
{
	static const uint8_t zero[16];
	if (d->link_layer != EXCHANGE_LL_IB && d->link_layer != EXCHANGE_LL_ETH)
		return err_setx(e, EPROTO, "unknown link layer %u", d->link_layer);
	if (d->link_layer == EXCHANGE_LL_IB && (d->lid == 0 || d->lid >= 0xc000))
		return err_setx(e, EPROTO, "LID 0x%x is not a unicast LID", d->lid);
	if (d->link_layer == EXCHANGE_LL_ETH && !memcmp(d->gid, zero, 16))
		return err_setx(e, EPROTO, "zero GID on an Ethernet link layer");
	if (d->addr == 0)
		return err_setx(e, EPROTO, "zero buffer address");
	if (d->rkey == 0)
		return err_setx(e, EPROTO, "zero rkey");
	if (d->buf_size == 0 || d->buf_size > EXCHANGE_MAX_BUF)
		return err_setx(e, EPROTO, "buffer size %llu out of range 1..%llu",
				(unsigned long long)d->buf_size, EXCHANGE_MAX_BUF);
	if (d->addr + d->buf_size < d->addr)
		return err_setx(e, EPROTO, "buffer wraps the address space");
	if (d->n_qps < 1 || d->n_qps > EXCHANGE_MAX_QPS)
		return err_setx(e, EPROTO, "%u QPs out of range 1..%u", d->n_qps, EXCHANGE_MAX_QPS);
	for (unsigned int i = 0; i < d->n_qps; i++) {
		if ((!cm && d->qps[i].qpn == 0) || d->qps[i].qpn > 0xffffff)
			return err_setx(e, EPROTO, "QP %u: number 0x%x out of range", i,
					d->qps[i].qpn);
		if (d->qps[i].psn > 0xffffff)
			return err_setx(e, EPROTO, "QP %u: PSN 0x%x over 24 bits", i,
					d->qps[i].psn);
	}
	return 0;
}

/* With rdma_cm, the sender's address is where the other side connects: a
 * host's unicast address, not 0.0.0.0/8, multicast (224/4), 240/4 or the
 * broadcast. */
static int cm_addr_validate(const uint8_t a[4], struct err *e)
{
	if (a[0] == 0 || a[0] >= 224)
		return err_setx(e, EPROTO,
				"rdma_cm address %u.%u.%u.%u is not a unicast host address", a[0],
				a[1], a[2], a[3]);
	return 0;
}

static int port_validate(const struct exchange_port *p, bool cm, struct err *e)
{
	static const uint16_t mtus[] = {0, 256, 512, 1024, 2048, 4096};
	bool mtu_ok = false;
	if (p->rate_mbps > EXCHANGE_MAX_RATE_MBPS || p->max_tx_rate_mbps > EXCHANGE_MAX_RATE_MBPS)
		return err_setx(e, EPROTO, "port rate %u / cap %u Mb/s over the limit %u",
				p->rate_mbps, p->max_tx_rate_mbps, EXCHANGE_MAX_RATE_MBPS);
	if (p->width != 0 && p->width != 1 && p->width != 2 && p->width != 4 && p->width != 8 &&
	    p->width != 12)
		return err_setx(e, EPROTO, "port width %u is not 1, 2, 4, 8 or 12", p->width);
	for (size_t i = 0; i < sizeof(mtus) / sizeof(mtus[0]); i++)
		mtu_ok |= p->mtu == mtus[i];
	if (!mtu_ok)
		return err_setx(e, EPROTO, "port MTU %u is not 256 .. 4096", p->mtu);
	if (p->numa_node < -1 || p->numa_node > EXCHANGE_MAX_NODE || p->buf_node < -1 ||
	    p->buf_node > EXCHANGE_MAX_NODE)
		return err_setx(e, EPROTO, "NUMA node %d / %d out of range -1..%d", p->numa_node,
				p->buf_node, EXCHANGE_MAX_NODE);
	return cm ? cm_addr_validate(p->cm_ipv4, e) : 0;
}

static int hello_validate(const struct exchange_msg *m, struct err *e)
{
	int r = exchange_params_validate(&m->params, e);
	if (r < 0)
		return r;
	r = dest_validate(&m->dest, m->params.flags & EXCHANGE_F_CM, e);
	if (r < 0)
		return r;
	r = port_validate(&m->dest.port, m->params.flags & EXCHANGE_F_CM, e);
	if (r < 0)
		return r;
	if (m->dest.n_qps != m->params.qps)
		return err_setx(e, EPROTO, "%u QPs described, %u announced", m->dest.n_qps,
				m->params.qps);
	return 0;
}

static int text_validate(const char *t, struct err *e)
{
	size_t n = strnlen(t, EXCHANGE_TEXT_LEN);
	if (n == EXCHANGE_TEXT_LEN)
		return err_setx(e, EPROTO, "abort text is not terminated");
	for (size_t i = 0; i < n; i++)
		if (t[i] < 0x20 || t[i] > 0x7e)
			return err_setx(e, EPROTO, "abort text has a non-printable byte 0x%02x",
					(unsigned char)t[i]);
	return 0;
}

static int msg_validate(const struct exchange_msg *m, struct err *e)
{
	switch (m->type) {
	case EXCHANGE_HELLO:
	case EXCHANGE_ACCEPT:
		return hello_validate(m, e);
	case EXCHANGE_MISMATCH:
		if (m->mismatch.param < 1 || m->mismatch.param > EXCHANGE_P_MAX)
			return err_setx(e, EPROTO, "mismatch names unknown parameter %u",
					m->mismatch.param);
		return 0;
	case EXCHANGE_SYNC:
		if (m->sync.phase < EXCHANGE_PHASE_START || m->sync.phase > EXCHANGE_PHASE_ALIVE)
			return err_setx(e, EPROTO, "unknown sync phase %u", m->sync.phase);
		if (m->sync.step > 64)
			return err_setx(e, EPROTO, "sync step %u out of range", m->sync.step);
		return exchange_sync_validate(&m->sync, e);
	case EXCHANGE_ABORT:
		if (m->abort.code < EXCHANGE_ABORT_CANCELLED || m->abort.code > EXCHANGE_ABORT_BUSY)
			return err_setx(e, EPROTO, "unknown abort code %u", m->abort.code);
		return text_validate(m->abort.text, e);
	case EXCHANGE_CHALLENGE:
		if (m->challenge.flags & ~(uint32_t)EXCHANGE_CH_KEYED)
			return err_setx(e, EPROTO, "unknown challenge flags 0x%x",
					m->challenge.flags);
		return 0;
	case EXCHANGE_BYE:
	case EXCHANGE_OPEN:
		return 0;
	}
	return err_setx(e, EPROTO, "unknown message type %u", m->type);
}

/* --- encode ----------------------------------------------------------------- */

static void put_params(struct wbuf *w, const struct exchange_params *p)
{
	put(w, p->test, 1);
	put(w, p->flags, 1);
	put(w, p->rd_atomic, 1);
	put(w, p->mtu, 1);
	put(w, p->qps, 4);
	put(w, p->tx_depth, 4);
	put(w, p->duration_s, 4);
	put(w, p->size, 8);
	put(w, p->iters, 8);
}

static void put_dest(struct wbuf *w, const struct exchange_dest *d)
{
	put(w, d->lid, 2);
	put(w, d->link_layer, 1);
	put(w, d->gid_index, 1);
	put_bytes(w, d->gid, 16);
	put(w, d->addr, 8);
	put(w, d->rkey, 4);
	put(w, d->cm_port, 2);
	put(w, d->n_qps, 2);
	put(w, d->buf_size, 8);
	put(w, d->port.rate_mbps, 4);
	put(w, d->port.max_tx_rate_mbps, 4);
	put(w, d->port.width, 1);
	put(w, 0, 1);
	put(w, d->port.mtu, 2);
	put_bytes(w, d->port.phys_port, 16);
	put_bytes(w, d->port.cm_ipv4, 4);
	put(w, (uint16_t)d->port.numa_node, 2);
	put(w, (uint16_t)d->port.buf_node, 2);
	put(w, d->port.cpu, 2);
	put(w, 0, 2);
	for (unsigned int i = 0; i < d->n_qps && i < EXCHANGE_MAX_QPS; i++) {
		put(w, d->qps[i].qpn, 4);
		put(w, d->qps[i].psn, 4);
	}
}

int exchange_encode(const struct exchange_msg *m, uint8_t *buf, size_t size, struct err *e)
{
	int r = msg_validate(m, e);
	if (r < 0)
		return -EINVAL; /* the caller's mistake, not the peer's (EPROTO) */
	struct wbuf w = {.p = buf, .size = size};
	put(&w, EXCHANGE_MAGIC, 4);
	put(&w, EXCHANGE_VERSION, 2);
	put(&w, m->type, 2);
	put(&w, 0, 4); /* body length, filled below */
	switch (m->type) {
	case EXCHANGE_HELLO:
	case EXCHANGE_ACCEPT:
		put_params(&w, &m->params);
		put_dest(&w, &m->dest);
		put_bytes(&w, m->tag.nonce, EXCHANGE_NONCE_LEN);
		put_bytes(&w, m->tag.mac, EXCHANGE_MAC_LEN);
		break;
	case EXCHANGE_CHALLENGE:
		put(&w, m->challenge.flags, 4);
		put_bytes(&w, m->challenge.nonce, EXCHANGE_NONCE_LEN);
		break;
	case EXCHANGE_MISMATCH:
		put(&w, m->mismatch.param, 2);
		put(&w, 0, 2);
		put(&w, m->mismatch.server_value, 8);
		put(&w, m->mismatch.client_value, 8);
		break;
	case EXCHANGE_SYNC:
		put(&w, m->sync.step, 4);
		put(&w, m->sync.phase, 4);
		put(&w, m->sync.bytes, 8);
		put(&w, m->sync.ns, 8);
		put(&w, m->sync.msgs, 8);
		put(&w, m->sync.peak_kbps, 8);
		break;
	case EXCHANGE_ABORT: {
		char text[EXCHANGE_TEXT_LEN] = {0};
		memcpy(text, m->abort.text, strnlen(m->abort.text, EXCHANGE_TEXT_LEN - 1));
		put(&w, m->abort.code, 4);
		put_bytes(&w, text, sizeof(text));
		break;
	}
	}
	if (w.overflow)
		return err_setx(e, ENOSPC, "message of type %u does not fit in %zu bytes", m->type,
				size);
	uint32_t body = (uint32_t)(w.len - EXCHANGE_HEADER_LEN);
	for (int i = 0; i < 4; i++)
		buf[8 + i] = (uint8_t)(body >> (8 * (3 - i)));
	return (int)w.len;
}

/* --- decode ----------------------------------------------------------------- */

/* The body length a type must have, given the QP count for HELLO/ACCEPT. */
static int body_len(uint16_t type, unsigned int n_qps)
{
	switch (type) {
	case EXCHANGE_HELLO:
	case EXCHANGE_ACCEPT:
		return PARAMS_LEN + DEST_LEN + PORT_LEN + 8 * (int)n_qps + TAG_LEN;
	case EXCHANGE_MISMATCH:
		return MISMATCH_LEN;
	case EXCHANGE_SYNC:
		return SYNC_LEN;
	case EXCHANGE_ABORT:
		return ABORT_LEN;
	case EXCHANGE_CHALLENGE:
		return CHAL_LEN;
	case EXCHANGE_BYE:
	case EXCHANGE_OPEN:
		return 0;
	}
	return -1;
}

int exchange_decode_header(const uint8_t *buf, size_t len, uint16_t *ret_type, struct err *e)
{
	if (len < EXCHANGE_HEADER_LEN)
		return err_setx(e, EPROTO, "truncated header: %zu of %d bytes", len,
				EXCHANGE_HEADER_LEN);
	struct rbuf r = {.p = buf, .len = len};
	uint32_t magic = (uint32_t)get(&r, 4);
	uint16_t version = (uint16_t)get(&r, 2);
	uint16_t type = (uint16_t)get(&r, 2);
	uint32_t blen = (uint32_t)get(&r, 4);
	if (magic != EXCHANGE_MAGIC)
		return err_setx(e, EPROTO,
				"not an ibvf bench peer (magic 0x%08x, want 0x%08x 'IBVF')", magic,
				EXCHANGE_MAGIC);
	if (version != EXCHANGE_VERSION)
		return err_setx(e, EPROTO, "protocol version %u, this ibvf speaks version %u",
				version, EXCHANGE_VERSION);
	if (body_len(type, 0) < 0)
		return err_setx(e, EPROTO, "unknown message type %u", type);
	if (blen > EXCHANGE_MAX_BODY)
		return err_setx(e, EMSGSIZE, "message body of %u bytes over the limit %d", blen,
				EXCHANGE_MAX_BODY);
	*ret_type = type;
	return (int)blen;
}

/* The body of a hello or accept: parameters, then the sender's endpoint with
 * its n_qps QPs (bounded and length-checked by the caller). */
static int decode_port(struct rbuf *r, struct exchange_port *p, struct err *e)
{
	p->rate_mbps = (uint32_t)get(r, 4);
	p->max_tx_rate_mbps = (uint32_t)get(r, 4);
	p->width = (uint8_t)get(r, 1);
	uint64_t pad = get(r, 1);
	p->mtu = (uint16_t)get(r, 2);
	get_bytes(r, p->phys_port, 16);
	get_bytes(r, p->cm_ipv4, 4);
	p->numa_node = (int16_t)(uint16_t)get(r, 2);
	p->buf_node = (int16_t)(uint16_t)get(r, 2);
	p->cpu = (uint16_t)get(r, 2);
	pad |= get(r, 2);
	return pad ? err_setx(e, EPROTO, "port padding is not zero") : 0;
}

static int decode_hello(struct rbuf *r, struct exchange_msg *m, unsigned int n_qps, struct err *e)
{
	struct exchange_params *p = &m->params;
	struct exchange_dest *d = &m->dest;
	p->test = (uint8_t)get(r, 1);
	p->flags = (uint8_t)get(r, 1);
	p->rd_atomic = (uint8_t)get(r, 1);
	p->mtu = (uint8_t)get(r, 1);
	p->qps = (uint32_t)get(r, 4);
	p->tx_depth = (uint32_t)get(r, 4);
	p->duration_s = (uint32_t)get(r, 4);
	p->size = get(r, 8);
	p->iters = get(r, 8);
	d->lid = (uint16_t)get(r, 2);
	d->link_layer = (uint8_t)get(r, 1);
	d->gid_index = (uint8_t)get(r, 1);
	get_bytes(r, d->gid, 16);
	d->addr = get(r, 8);
	d->rkey = (uint32_t)get(r, 4);
	d->cm_port = (uint16_t)get(r, 2);
	d->n_qps = (uint16_t)get(r, 2);
	d->buf_size = get(r, 8);
	int rv = decode_port(r, &d->port, e);
	for (unsigned int i = 0; i < n_qps; i++) {
		d->qps[i].qpn = (uint32_t)get(r, 4);
		d->qps[i].psn = (uint32_t)get(r, 4);
	}
	return rv;
}

int exchange_decode(const uint8_t *buf, size_t len, struct exchange_msg *ret, struct err *e)
{
	uint16_t type;
	int blen = exchange_decode_header(buf, len, &type, e);
	if (blen < 0)
		return blen;
	if (len != EXCHANGE_HEADER_LEN + (size_t)blen)
		return err_setx(e, EPROTO, "message of %zu bytes, header says %d", len,
				EXCHANGE_HEADER_LEN + blen);
	struct rbuf r = {.p = buf, .pos = EXCHANGE_HEADER_LEN, .len = len};
	struct exchange_msg m = {.type = type};
	unsigned int n_qps = 0;
	if (type == EXCHANGE_HELLO || type == EXCHANGE_ACCEPT) {
		/* n_qps sits at a fixed offset; bound it before trusting the length. */
		if (blen < PARAMS_LEN + DEST_LEN + PORT_LEN + TAG_LEN)
			return err_setx(e, EPROTO, "truncated %s: %d bytes",
					type == EXCHANGE_HELLO ? "hello" : "accept", blen);
		size_t at = EXCHANGE_HEADER_LEN + PARAMS_LEN + 34;
		n_qps = (unsigned int)buf[at] << 8 | buf[at + 1];
		if (n_qps > EXCHANGE_MAX_QPS)
			return err_setx(e, EPROTO, "%u QPs over the limit %u", n_qps,
					EXCHANGE_MAX_QPS);
	}
	if (blen != body_len(type, n_qps))
		return err_setx(e, EPROTO, "message type %u with a %d-byte body, want %d", type,
				blen, body_len(type, n_qps));
	switch (type) {
	case EXCHANGE_HELLO:
	case EXCHANGE_ACCEPT:
		if (decode_hello(&r, &m, n_qps, e) < 0)
			return -EPROTO;
		get_bytes(&r, m.tag.nonce, EXCHANGE_NONCE_LEN);
		get_bytes(&r, m.tag.mac, EXCHANGE_MAC_LEN);
		break;
	case EXCHANGE_CHALLENGE:
		m.challenge.flags = (uint32_t)get(&r, 4);
		get_bytes(&r, m.challenge.nonce, EXCHANGE_NONCE_LEN);
		break;
	case EXCHANGE_MISMATCH:
		m.mismatch.param = (uint16_t)get(&r, 2);
		if (get(&r, 2) != 0)
			return err_setx(e, EPROTO, "mismatch padding is not zero");
		m.mismatch.server_value = get(&r, 8);
		m.mismatch.client_value = get(&r, 8);
		break;
	case EXCHANGE_SYNC:
		m.sync.step = (uint32_t)get(&r, 4);
		m.sync.phase = (uint32_t)get(&r, 4);
		m.sync.bytes = get(&r, 8);
		m.sync.ns = get(&r, 8);
		m.sync.msgs = get(&r, 8);
		m.sync.peak_kbps = get(&r, 8);
		break;
	case EXCHANGE_ABORT:
		m.abort.code = (uint32_t)get(&r, 4);
		get_bytes(&r, m.abort.text, EXCHANGE_TEXT_LEN);
		break;
	}
	int rv = msg_validate(&m, e);
	if (rv < 0)
		return rv;
	*ret = m;
	return 0;
}
