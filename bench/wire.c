// SPDX-License-Identifier: MIT
/* What a link carries besides the payload (wire.h). */
#include "wire.h"

#include <string.h>

static const struct {
	unsigned int overhead;
	const char *name, *key;
} wires[BENCH_WIRE_N] = {
	/* InfiniBand: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 (REFERENCE.md section 5). */
	[BENCH_WIRE_IB] = {26, "InfiniBand, no GRH", "ib"},
	[BENCH_WIRE_IB_GRH] = {26 + 40, "InfiniBand with a GRH", "ib_grh"},
	/* RoCE: the Ethernet header 14 and FCS 4 around IP/UDP or a GRH, BTH 12,
	 * ICRC 4. The preamble and inter-frame gap are not counted (as the
	 * InfiniBand figures count no symbol-level framing either). */
	[BENCH_WIRE_ROCE_V2_IPV4] = {14 + 20 + 8 + 12 + 4 + 4, "RoCE v2 over IPv4", "roce_v2_ipv4"},
	[BENCH_WIRE_ROCE_V2_IPV6] = {14 + 40 + 8 + 12 + 4 + 4, "RoCE v2 over IPv6", "roce_v2_ipv6"},
	[BENCH_WIRE_ROCE_V1] = {14 + 40 + 12 + 4 + 4, "RoCE v1", "roce_v1"},
};

unsigned int bench_wire_overhead(enum bench_wire w)
{
	return (unsigned int)w < BENCH_WIRE_N ? wires[w].overhead : 0;
}

const char *bench_wire_name(enum bench_wire w)
{
	return (unsigned int)w < BENCH_WIRE_N ? wires[w].name : NULL;
}

const char *bench_wire_key(enum bench_wire w)
{
	return (unsigned int)w < BENCH_WIRE_N ? wires[w].key : NULL;
}

double bench_wire_ceiling_gbps(uint32_t rate_mbps, unsigned int mtu, enum bench_wire w)
{
	if (!rate_mbps || !mtu)
		return 0.0;
	return (double)rate_mbps / 1000.0 * mtu / (double)(mtu + bench_wire_overhead(w));
}

bool bench_wire_needs_grh(bool ethernet, bool gid_index_asked, uint16_t lid, uint16_t peer_lid)
{
	return ethernet || gid_index_asked || lid == peer_lid;
}

bool bench_wire_shares_pf_lid(bool ethernet, bool is_vf, uint16_t lid, uint16_t pf_lid)
{
	return !ethernet && is_vf && pf_lid && pf_lid == lid;
}

bool bench_wire_same_port(const struct exchange_port *self, const struct exchange_port *peer)
{
	static const uint8_t zero[sizeof(self->phys_port)];
	return memcmp(self->phys_port, zero, sizeof(zero)) &&
	       !memcmp(self->phys_port, peer->phys_port, sizeof(zero));
}

const char *bench_wire_link_layer_name(bool ethernet)
{
	return ethernet ? "Ethernet (RoCE)" : "InfiniBand";
}

uint32_t bench_wire_limit_mbps(uint32_t self_rate, uint32_t self_cap, uint32_t peer_rate,
			       uint32_t peer_cap, bool self_sends, enum bench_limiter *ret_who)
{
	/* In order of precedence on a tie: this port, then the peer's; a rate
	 * before a cap (a cap equal to the rate limits nothing). */
	const struct {
		uint32_t v;
		enum bench_limiter who;
	} c[] = {
		{self_rate, BENCH_LIMIT_SELF_RATE},
		{peer_rate, BENCH_LIMIT_PEER_RATE},
		{self_sends ? self_cap : 0, BENCH_LIMIT_SELF_CAP},
		{self_sends ? 0 : peer_cap, BENCH_LIMIT_PEER_CAP},
	};
	uint32_t best = 0;
	enum bench_limiter who = BENCH_LIMIT_NONE;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		if (c[i].v && (!best || c[i].v < best)) {
			best = c[i].v;
			who = c[i].who;
		}
	}
	*ret_who = who;
	return best;
}
