/* SPDX-License-Identifier: MIT */
/* What a link carries besides the payload, and what that leaves: the headers
 * of each encapsulation, the payload ceiling of a rate at a path MTU, which
 * end of a connection limits it, whether InfiniBand needs a GRH, and whether
 * both ends share one physical port. Pure functions (docs/bench-verdict.md). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/exchange.h"

/* How an RDMA packet is framed on the wire. */
enum bench_wire {
	BENCH_WIRE_IB,		 /* LRH 8, BTH 12, ICRC 4, VCRC 2: 26 bytes */
	BENCH_WIRE_IB_GRH,	 /* the same and a 40-byte GRH: 66 bytes */
	BENCH_WIRE_ROCE_V2_IPV4, /* Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4: 62 */
	BENCH_WIRE_ROCE_V2_IPV6, /* Ethernet 14, IPv6 40, UDP 8, BTH 12, ICRC 4, FCS 4: 82 */
	BENCH_WIRE_ROCE_V1,	 /* Ethernet 14, GRH 40, BTH 12, ICRC 4, FCS 4: 74 */
	BENCH_WIRE_N
};

/* Bytes of headers and trailers each packet carries besides its payload. */
unsigned int bench_wire_overhead(enum bench_wire w);
/* "InfiniBand, no GRH", "RoCE v2 over IPv4", ...; NULL out of range. */
const char *bench_wire_name(enum bench_wire w);
/* Its JSON name: "ib", "ib_grh", "roce_v2_ipv4", "roce_v2_ipv6", "roce_v1". */
const char *bench_wire_key(enum bench_wire w);

/* The payload a link of rate_mbps carries at path MTU mtu in Gb/s:
 * rate x mtu / (mtu + overhead). 0 when either is 0. */
double bench_wire_ceiling_gbps(uint32_t rate_mbps, unsigned int mtu, enum bench_wire w);

/* Whether InfiniBand packets of a connection carry a GRH. RoCE always does
 * (its IP header is the GRH's stand-in, counted by bench_wire_overhead()).
 * On InfiniBand: when a GID index was asked for (either side's --gid-index,
 * as perftest's -x), or when both ends have the same LID (a VF behind its
 * PF's LID: only the GID tells them apart); otherwise not, as perftest. */
bool bench_wire_needs_grh(bool ethernet, bool gid_index_asked, uint16_t lid, uint16_t peer_lid);
/* An InfiniBand VF that answers to its PF's LID (pf_lid, 0: unknown): the
 * LID does not tell the two apart, so its peer reaches it by GID and its
 * packets need a GRH; that side asks for one (EXCHANGE_F_GRH). */
bool bench_wire_shares_pf_lid(bool ethernet, bool is_vf, uint16_t lid, uint16_t pf_lid);

/* Both ends on one physical port: their identities are known (non-zero)
 * and equal. Traffic between them turns in the HCA (or NIC) and never
 * crosses the link. */
bool bench_wire_same_port(const struct exchange_port *self, const struct exchange_port *peer);

/* The link layer in the words the report uses: "InfiniBand" or "Ethernet (RoCE)". */
const char *bench_wire_link_layer_name(bool ethernet);

/* Who limits a connection's payload ceiling. */
enum bench_limiter {
	BENCH_LIMIT_NONE,      /* no rate known */
	BENCH_LIMIT_SELF_RATE, /* this port's rate */
	BENCH_LIMIT_SELF_CAP,  /* this VF's max_tx_rate */
	BENCH_LIMIT_PEER_RATE, /* the peer port's rate */
	BENCH_LIMIT_PEER_CAP,  /* the peer VF's max_tx_rate */
};

/* The rate that limits data sent one way: the lower of both ports' rates
 * and the sender's cap (max_tx_rate limits what a VF transmits, not what it
 * receives). self_sends: this side sends the data. Rates and caps of 0 are
 * unknown or none and do not count. ret_who says which one it is. */
uint32_t bench_wire_limit_mbps(uint32_t self_rate, uint32_t self_cap, uint32_t peer_rate,
			       uint32_t peer_cap, bool self_sends, enum bench_limiter *ret_who);
