// SPDX-License-Identifier: MIT
/* The benchmark's verdict against the slower end of the connection. */
#include "verdict.h"

#include <stdio.h>
#include <string.h>

#include "wire.h"

/* The payload ceiling (docs/bench-verdict.md): rate x MTU / (MTU + headers).
 * 4X NDR carries 400 Gb/s; an InfiniBand packet at the path MTU of 4096
 * bytes has 26 bytes of headers besides its payload (LRH 8, BTH 12, ICRC 4,
 * VCRC 2), so 400 x 4096 / 4122 = 397.48 Gb/s is the figure a run is held
 * to; with a 40-byte GRH, sent only when needed, 400 x 4096 / 4162 = 393.66. */

const char *bench_status_name(enum bench_status s)
{
	static const char *const names[] = {
		[BENCH_STATUS_PASS] = "PASS",
		[BENCH_STATUS_FAIL] = "FAIL",
		[BENCH_STATUS_PEER_LIMITED] = "peer-limited",
		[BENCH_STATUS_IMPOSSIBLE] = "impossible",
	};
	return s <= BENCH_STATUS_IMPOSSIBLE ? names[s] : "FAIL";
}

static bool peer_limits(enum bench_limiter l)
{
	return l == BENCH_LIMIT_PEER_RATE || l == BENCH_LIMIT_PEER_CAP;
}

const char *bench_limiter_key(enum bench_limiter l)
{
	static const char *const keys[] = {
		[BENCH_LIMIT_SELF_RATE] = "self_rate",
		[BENCH_LIMIT_SELF_CAP] = "self_cap",
		[BENCH_LIMIT_PEER_RATE] = "peer_rate",
		[BENCH_LIMIT_PEER_CAP] = "peer_cap",
	};
	return l > BENCH_LIMIT_NONE && l <= BENCH_LIMIT_PEER_CAP ? keys[l] : NULL;
}

/* This side's rate in Mb/s: the node model's, else the one exchanged. */
static uint32_t self_rate_mbps(const struct bench_result *r, const struct bench_target *t)
{
	if (t->rate_gbps > 0 && t->rate_gbps * 1000 < EXCHANGE_MAX_RATE_MBPS)
		return (uint32_t)(t->rate_gbps * 1000 + 0.5);
	return r->self_port.rate_mbps;
}

/* Does this side send the data it measured? A client writes, or reads what
 * the peer sends; a server's figures are its client's (from_peer). */
static bool self_sends(const struct bench_result *r)
{
	return (r->test == BENCH_WRITE_BW || r->test == BENCH_WRITE_LAT) != r->from_peer;
}

static void describe_limit(const struct bench_result *r, const struct bench_target *t,
			   struct bench_verdict *v)
{
	double g = v->limit_mbps / 1000.0;
	const char *peer = r->peer[0] ? r->peer : "the peer";
	switch (v->limited_by) {
	case BENCH_LIMIT_SELF_RATE:
		if (t->rate[0] && t->rate_gbps > 0)
			snprintf(v->limit, sizeof(v->limit), "%s", t->rate);
		else
			snprintf(v->limit, sizeof(v->limit), "%.60s at %g Gb/s",
				 t->ibdev[0] ? t->ibdev : r->ibdev, g);
		break;
	case BENCH_LIMIT_PEER_RATE:
		snprintf(v->limit, sizeof(v->limit), "peer %.60s at %g Gb/s", peer, g);
		break;
	case BENCH_LIMIT_SELF_CAP:
		snprintf(v->limit, sizeof(v->limit), "VF cap %u Mb/s", v->limit_mbps);
		break;
	case BENCH_LIMIT_PEER_CAP:
		snprintf(v->limit, sizeof(v->limit), "peer %.60s's VF cap %u Mb/s", peer,
			 v->limit_mbps);
		break;
	case BENCH_LIMIT_NONE:
		break;
	}
}

/* "; through the HCA, not the link: both ends on PF 0000:18:00.0 port 1",
 * after the figure (a line cut short still shows the figure). */
static int same_port_text(const struct bench_result *r, double min_ratio, char *buf, size_t size)
{
	return snprintf(buf, size, "; through the HCA, not the link: both ends on PF %s port %u%s",
			r->pf_bdf[0] ? r->pf_bdf : "?", r->port,
			r->allow_same_port ? " (--allow-same-port)"
			: min_ratio <= 0   ? ""
					   : ", no link validation (--allow-same-port accepts it)");
}

void bench_judge(const struct bench_result *r, const struct bench_target *t, double min_ratio,
		 struct bench_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->min_ratio = min_ratio;
	v->mtu = r->mtu ? r->mtu : 4096;
	v->overhead = bench_wire_overhead(r->wire);
	v->same_port = bench_wire_same_port(&r->self_port, &r->peer_port);
	char tail[200] = "";
	if (v->same_port)
		same_port_text(r, min_ratio, tail, sizeof(tail));
	for (unsigned int i = 0; i < r->n_sizes; i++)
		if (r->sizes[i].bw_avg_gbps > v->figure_gbps)
			v->figure_gbps = r->sizes[i].bw_avg_gbps;
	if (bench_is_latency(r->test)) {
		v->pass = r->n_sizes > 0 && r->sizes[0].lat.n > 0;
		v->status = v->pass ? BENCH_STATUS_PASS : BENCH_STATUS_FAIL;
		snprintf(v->reason, sizeof(v->reason), "%s%s",
			 v->pass ? "latency measured (no rate threshold)" : "no latency samples",
			 tail);
		return;
	}
	uint32_t self = self_rate_mbps(r, t);
	if (!self) {
		v->pass = min_ratio <= 0;
		v->status = v->pass ? BENCH_STATUS_PASS : BENCH_STATUS_FAIL;
		snprintf(v->reason, sizeof(v->reason),
			 "not judged: the port rate of '%.60s' is unknown%s",
			 t->ibdev[0] ? t->ibdev : t->bdf, tail);
		return;
	}
	const struct exchange_port *pp = &r->peer_port;
	bool sends = self_sends(r);
	v->limit_mbps = bench_wire_limit_mbps(self, r->self_port.max_tx_rate_mbps, pp->rate_mbps,
					      pp->max_tx_rate_mbps, sends, &v->limited_by);
	describe_limit(r, t, v);
	v->judged = true;
	v->ceiling_gbps = bench_wire_ceiling_gbps(v->limit_mbps, v->mtu, r->wire);
	enum bench_limiter own_who;
	uint32_t own =
		bench_wire_limit_mbps(self, r->self_port.max_tx_rate_mbps, 0, 0, sends, &own_who);
	v->own_ceiling_gbps = bench_wire_ceiling_gbps(own, v->mtu, r->wire);
	bool by_peer = peer_limits(v->limited_by);
	double total = v->ceiling_gbps, back = 0;
	char both[80] = "";
	if (r->bidir) { /* the other way is limited by the other sender's cap */
		enum bench_limiter who;
		uint32_t l =
			bench_wire_limit_mbps(self, r->self_port.max_tx_rate_mbps, pp->rate_mbps,
					      pp->max_tx_rate_mbps, !sends, &who);
		by_peer |= peer_limits(who);
		back = bench_wire_ceiling_gbps(l, v->mtu, r->wire);
		total += back;
		if (back == v->ceiling_gbps)
			snprintf(both, sizeof(both), " x2 (bidirectional)");
		else
			snprintf(both, sizeof(both), " and %.2f Gb/s the other way (bidirectional)",
				 back);
	}
	v->expected_gbps = total * min_ratio;
	/* --min-ratio 0 asks for a measurement, not a validation: neither the
	 * same port nor a peer's lower ceiling turns it into a failure. */
	bool validates = min_ratio > 0;
	const char *head = "";
	char own_words[80] = "";
	if (v->figure_gbps > BENCH_IMPOSSIBLE_RATIO * total) {
		v->status = BENCH_STATUS_IMPOSSIBLE;
		head = by_peer && validates ? "impossible (peer-limited: not validated): "
					    : "impossible: ";
	} else if (v->figure_gbps < v->expected_gbps ||
		   (v->same_port && !r->allow_same_port && validates)) {
		v->status = BENCH_STATUS_FAIL;
	} else if (by_peer && validates) {
		v->status = BENCH_STATUS_PEER_LIMITED;
		head = "peer-limited: not validated: ";
	} else {
		v->status = BENCH_STATUS_PASS;
	}
	v->pass = v->status == BENCH_STATUS_PASS;
	if (by_peer)
		snprintf(own_words, sizeof(own_words), ", below this side's %.2f Gb/s",
			 v->own_ceiling_gbps);
	int n = snprintf(v->reason, sizeof(v->reason),
			 "%s%.2f Gb/s is %.0f%% of the %.2f Gb/s payload ceiling%s of %s%s "
			 "(threshold %.0f%%)",
			 head, v->figure_gbps, 100 * v->figure_gbps / total, v->ceiling_gbps, both,
			 v->limit, own_words, 100 * min_ratio);
	if (v->status == BENCH_STATUS_IMPOSSIBLE && n > 0 && (size_t)n < sizeof(v->reason))
		n += snprintf(v->reason + n, sizeof(v->reason) - (size_t)n,
			      ", over %.0f%%: more than the link carries (a measurement error, "
			      "or a peer misreporting its port)",
			      100 * BENCH_IMPOSSIBLE_RATIO);
	if (n > 0 && (size_t)n < sizeof(v->reason))
		snprintf(v->reason + n, sizeof(v->reason) - (size_t)n, "%s", tail);
}
