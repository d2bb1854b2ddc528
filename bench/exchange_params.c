// SPDX-License-Identifier: MIT
/* The run's parameters as both sides see them: the names of tests and
 * parameters, their bounds, and whether a server and a client agree (the
 * server's value wins where it is pinned; a mismatch is named on both
 * sides). */
#include "exchange.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const test_names[] = {"write_bw", "read_bw", "write_lat", "read_lat"};

static const char *const param_names[] = {
	[EXCHANGE_P_TEST] = "test",
	[EXCHANGE_P_SIZE] = "size",
	[EXCHANGE_P_ITERS] = "iterations",
	[EXCHANGE_P_DURATION] = "duration",
	[EXCHANGE_P_QPS] = "qps",
	[EXCHANGE_P_TX_DEPTH] = "tx-depth",
	[EXCHANGE_P_BIDIR] = "bidirectional",
	[EXCHANGE_P_ALL_SIZES] = "all-sizes",
	[EXCHANGE_P_CM] = "connection (rdma_cm)",
	[EXCHANGE_P_LINK_LAYER] = "link layer",
};

const char *exchange_test_name(unsigned int test)
{
	return test < 4 ? test_names[test] : "unknown";
}

int exchange_test_parse(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, test_names[i]))
			return i;
	return -EINVAL;
}

const char *exchange_param_name(unsigned int param)
{
	return param >= 1 && param <= EXCHANGE_P_MAX ? param_names[param] : "unknown";
}

int exchange_params_validate(const struct exchange_params *p, struct err *e)
{
	if (p->test > BENCH_READ_LAT)
		return err_setx(e, EPROTO, "unknown test kind %u", p->test);
	if (p->flags & ~EXCHANGE_F_KNOWN)
		return err_setx(e, EPROTO, "unknown flags 0x%02x", p->flags);
	if (p->mtu < 1 || p->mtu > 5)
		return err_setx(e, EPROTO, "path MTU code %u out of range 1..5", p->mtu);
	if (p->qps < 1 || p->qps > EXCHANGE_MAX_QPS)
		return err_setx(e, EPROTO, "%u QPs out of range 1..%u", p->qps, EXCHANGE_MAX_QPS);
	if (p->tx_depth < 1 || p->tx_depth > EXCHANGE_MAX_DEPTH)
		return err_setx(e, EPROTO, "tx depth %u out of range 1..%u", p->tx_depth,
				EXCHANGE_MAX_DEPTH);
	if (p->size < 1 || p->size > EXCHANGE_MAX_SIZE)
		return err_setx(e, EPROTO, "message size %llu out of range 1..%u",
				(unsigned long long)p->size, EXCHANGE_MAX_SIZE);
	if ((p->iters == 0) == (p->duration_s == 0))
		return err_setx(e, EPROTO,
				"exactly one of iterations (%llu) and duration (%u s) "
				"must be set",
				(unsigned long long)p->iters, p->duration_s);
	if (p->iters > EXCHANGE_MAX_ITERS)
		return err_setx(e, EPROTO, "%llu iterations over the limit %llu",
				(unsigned long long)p->iters, EXCHANGE_MAX_ITERS);
	if (p->duration_s > EXCHANGE_MAX_SECONDS)
		return err_setx(e, EPROTO, "duration %u s over the limit %u s", p->duration_s,
				EXCHANGE_MAX_SECONDS);
	uint64_t largest = (p->flags & EXCHANGE_F_ALL_SIZES) ? EXCHANGE_MAX_SIZE : p->size;
	if (largest * p->qps > EXCHANGE_MAX_MR_BYTES)
		return err_setx(e, EPROTO,
				"%u QPs of %llu-byte messages ask for %llu MiB, over the %llu MiB "
				"limit",
				p->qps, (unsigned long long)largest,
				(unsigned long long)((largest * p->qps) >> 20),
				EXCHANGE_MAX_MR_BYTES >> 20);
	uint64_t floor_s = exchange_params_floor_s(p);
	if (p->iters && floor_s > EXCHANGE_MAX_SECONDS)
		return err_setx(
			e, EPROTO,
			"%u QPs x %s%llu B x %llu iterations take %llu s at %u Gb/s, over the "
			"%u s limit",
			p->qps, (p->flags & EXCHANGE_F_ALL_SIZES) ? "2.." : "",
			(unsigned long long)largest, (unsigned long long)p->iters,
			(unsigned long long)floor_s, EXCHANGE_FLOOR_MBPS / 1000,
			EXCHANGE_MAX_SECONDS);
	if (!p->iters && floor_s > EXCHANGE_MAX_SECONDS)
		return err_setx(e, EPROTO,
				"%llu sizes x %u s take %llu s, over the %u s limit of a session",
				(unsigned long long)(floor_s / (p->duration_s ? p->duration_s : 1)),
				p->duration_s, (unsigned long long)floor_s, EXCHANGE_MAX_SECONDS);
	bool lat = p->test == BENCH_WRITE_LAT || p->test == BENCH_READ_LAT;
	if (lat && (p->qps != 1 || (p->flags & EXCHANGE_F_BIDIR)))
		return err_setx(e, EPROTO, "latency tests run on one QP, one way");
	bool read = p->test == BENCH_READ_BW || p->test == BENCH_READ_LAT;
	if (read && p->rd_atomic == 0)
		return err_setx(e, EPROTO, "a READ test needs at least 1 outstanding read");
	return 0;
}

uint64_t exchange_params_floor_s(const struct exchange_params *p)
{
	bool all = p->flags & EXCHANGE_F_ALL_SIZES;
	bool lat = p->test == BENCH_WRITE_LAT || p->test == BENCH_READ_LAT;
	uint64_t sizes = 0, per_msg_ns = 0,
		 least = lat ? EXCHANGE_FLOOR_LAT_NS : EXCHANGE_FLOOR_MSG_NS;
	/* A sweep's sizes: 2 B .. EXCHANGE_MAX_SIZE, powers of two. */
	for (uint64_t size = all ? 2 : p->size; size && size <= EXCHANGE_MAX_SIZE;
	     size = all ? size * 2 : 0) {
		/* size bytes at EXCHANGE_FLOOR_MBPS: size * 8000 / rate ns. */
		uint64_t ns = size * 8000 / EXCHANGE_FLOOR_MBPS;
		per_msg_ns += ns > least ? ns : least;
		sizes++;
	}
	if (!p->iters)
		return (uint64_t)p->duration_s * sizes;
	/* Bounded: iters <= 1e8, qps <= 64, per_msg_ns < 2^29: no overflow. */
	uint64_t iters = p->iters > EXCHANGE_MAX_ITERS ? EXCHANGE_MAX_ITERS : p->iters;
	uint64_t qps = p->qps > EXCHANGE_MAX_QPS ? EXCHANGE_MAX_QPS : p->qps;
	return (iters * qps * per_msg_ns + 999999999ull) / 1000000000ull;
}

/* --- parameter agreement ---------------------------------------------------- */

int exchange_params_compare(const struct exchange_params *s, const struct exchange_params *c,
			    uint32_t pinned, struct exchange_mismatch *ret)
{
	const struct {
		unsigned int param;
		uint64_t sv, cv;
	} fields[] = {
		{EXCHANGE_P_TEST, s->test, c->test},
		{EXCHANGE_P_SIZE, s->size, c->size},
		{EXCHANGE_P_ITERS, s->iters, c->iters},
		{EXCHANGE_P_DURATION, s->duration_s, c->duration_s},
		{EXCHANGE_P_QPS, s->qps, c->qps},
		{EXCHANGE_P_TX_DEPTH, s->tx_depth, c->tx_depth},
		{EXCHANGE_P_BIDIR, !!(s->flags & EXCHANGE_F_BIDIR),
		 !!(c->flags & EXCHANGE_F_BIDIR)},
		{EXCHANGE_P_ALL_SIZES, !!(s->flags & EXCHANGE_F_ALL_SIZES),
		 !!(c->flags & EXCHANGE_F_ALL_SIZES)},
		{EXCHANGE_P_CM, !!(s->flags & EXCHANGE_F_CM), !!(c->flags & EXCHANGE_F_CM)},
	};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!(pinned & EXCHANGE_PIN(fields[i].param)) || fields[i].sv == fields[i].cv)
			continue;
		ret->param = (uint16_t)fields[i].param;
		ret->server_value = fields[i].sv;
		ret->client_value = fields[i].cv;
		return 1;
	}
	return 0;
}

static void value_str(unsigned int param, uint64_t v, char *buf, size_t size)
{
	switch (param) {
	case EXCHANGE_P_TEST:
		snprintf(buf, size, "%s", exchange_test_name((unsigned int)v));
		break;
	case EXCHANGE_P_BIDIR:
	case EXCHANGE_P_ALL_SIZES:
	case EXCHANGE_P_CM:
		snprintf(buf, size, "%s", v ? "on" : "off");
		break;
	case EXCHANGE_P_LINK_LAYER:
		snprintf(buf, size, "%s",
			 v == EXCHANGE_LL_IB	? "InfiniBand"
			 : v == EXCHANGE_LL_ETH ? "Ethernet"
						: "?");
		break;
	case EXCHANGE_P_DURATION:
		snprintf(buf, size, "%llu s", (unsigned long long)v);
		break;
	default:
		snprintf(buf, size, "%llu", (unsigned long long)v);
	}
}

void exchange_mismatch_describe(const struct exchange_mismatch *m, char *buf, size_t size)
{
	char sv[48], cv[48];
	value_str(m->param, m->server_value, sv, sizeof(sv));
	value_str(m->param, m->client_value, cv, sizeof(cv));
	snprintf(buf, size, "parameter '%s' differs: server has %s, client asked for %s",
		 exchange_param_name(m->param), sv, cv);
}

/* Bounds a figure can have whatever the link: the decoder's check. */
static int sync_bounds(const struct exchange_sync *s, struct err *e)
{
	const char *what = "the peer reported an impossible figure";
	uint64_t peak_max = 2ull * EXCHANGE_MAX_RATE_MBPS * 1000;
	if (s->bytes > EXCHANGE_MAX_BYTES)
		return err_setx(e, EPROTO, "%s: %llu bytes (limit %llu)", what,
				(unsigned long long)s->bytes, EXCHANGE_MAX_BYTES);
	if (s->ns > EXCHANGE_MAX_NS)
		return err_setx(e, EPROTO, "%s: %llu ns (limit %llu)", what,
				(unsigned long long)s->ns, EXCHANGE_MAX_NS);
	/* Latency runs report messages and no bytes. */
	if (s->msgs > (s->bytes ? s->bytes : EXCHANGE_MAX_BYTES))
		return err_setx(e, EPROTO, "%s: %llu messages for %llu bytes", what,
				(unsigned long long)s->msgs, (unsigned long long)s->bytes);
	if (s->peak_kbps > peak_max)
		return err_setx(e, EPROTO, "%s: peak %llu kb/s (limit %llu)", what,
				(unsigned long long)s->peak_kbps, (unsigned long long)peak_max);
	return 0;
}

int exchange_sync_validate(const struct exchange_sync *s, struct err *e)
{
	return sync_bounds(s, e);
}

int exchange_sync_check(const struct exchange_sync *s, uint64_t size, struct err *e)
{
	const char *what = "the peer reported an impossible figure";
	int r = sync_bounds(s, e);
	if (r < 0)
		return r;
	/* Not the port's rate: traffic through the HCA (two VFs of one port)
	 * and Soft-RoCE's local path run faster than the link, and a peak over
	 * a short window more so; only what no port or bus carries. */
	uint64_t limit_mbps = 2ull * EXCHANGE_MAX_RATE_MBPS;
	/* Integer arithmetic: bytes < 2^50, so bytes * 8000 < 2^63. */
	if (s->bytes && (!s->ns || s->bytes * 8000 / s->ns > limit_mbps))
		return err_setx(e, EPROTO, "%s: %llu bytes in %llu ns, over %llu Mb/s", what,
				(unsigned long long)s->bytes, (unsigned long long)s->ns,
				(unsigned long long)limit_mbps);
	if (size && s->msgs > UINT64_MAX / size)
		return err_setx(e, EPROTO, "%s: %llu messages of %llu bytes", what,
				(unsigned long long)s->msgs, (unsigned long long)size);
	if (size && s->bytes > s->msgs * size)
		return err_setx(e, EPROTO, "%s: %llu bytes in %llu messages of %llu bytes", what,
				(unsigned long long)s->bytes, (unsigned long long)s->msgs,
				(unsigned long long)size);
	return 0;
}
