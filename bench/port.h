/* SPDX-License-Identifier: MIT */
/* This side's port as the exchange describes it to the peer (struct
 * exchange_port): its rate, lanes, the VF's transmit cap and the identity
 * of the physical port it sits on, read through the kernel boundary
 * (core/sys/sys.h) so that a simulated node answers as a real one. */
#pragma once

#include <stdint.h>

#include "core/sys/sys.h"

struct bench_port_info {
	uint32_t rate_mbps;	   /* sysfs `rate`, else active speed x width; 0: unknown */
	uint32_t max_tx_rate_mbps; /* the VF's cap on its PF; 0: none or unknown */
	uint8_t width;		   /* lanes; 0: unknown */
	char bdf[16];		   /* the device's PCI function; empty: unknown */
	char pf_bdf[16];	   /* the function owning the physical port (a VF's physfn) */
	int vf_index;		   /* -1 unless a VF */
	uint8_t phys_port[16];	   /* all zero: unknown */
	uint16_t pf_lid;	   /* a VF: its PF's LID on this port (InfiniBand); 0: unknown */
};

/* A LID as sysfs `ports/N/lid` gives it ("0x1a"); 0 when it does not parse
 * or is not a unicast LID. */
uint16_t bench_port_parse_lid(const char *s);

/* Reads what it can of ibdev's port and never fails: what it cannot read
 * stays unknown. active_speed and active_width are ibv_port_attr's codes,
 * used when sysfs has no `rate`. */
void bench_port_probe(struct sys *s, const char *ibdev, unsigned int port,
		      unsigned int active_speed, unsigned int active_width,
		      struct bench_port_info *ret);

/* The rate of verbs' speed and width codes in Mb/s (0 when unknown), as the
 * kernel's `rate` file computes it: IB_SPEED_NDR (128) x IB_WIDTH_4X (2)
 * is 400000. ret_width: the lanes (0 when unknown). */
uint32_t bench_port_verbs_rate_mbps(unsigned int active_speed, unsigned int active_width,
				    uint8_t *ret_width);

/* The physical port's identity: the host (the kernel's boot_id, the same
 * in every container of one node), the PCI function owning the port and
 * the port number. host is what identifies the machine; all zero when host
 * or pf_bdf is empty or the BDF does not parse. */
void bench_port_identity(const char *host, const char *pf_bdf, unsigned int port, uint8_t ret[16]);
