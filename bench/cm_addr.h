/* SPDX-License-Identifier: MIT */
/* rdma_cm's address on this side (--cm): an IPv4 address of the RDMA
 * device's own netdev (an InfiniBand VF's IPoIB netdev, a RoCE function's
 * Ethernet netdev, Soft-RoCE's parent), found from sysfs and read over
 * rtnetlink, or the one --cm-addr names, refused when it is not on that
 * netdev. The choice itself is a pure function (cm_addr_choose) so the rules
 * are tested apart from any device. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"

#define CM_MAX_NETDEVS 4
#define CM_MAX_ADDRS   16

struct cm_addr {
	uint8_t ipv4[4];     /* network order */
	unsigned int netdev; /* index into cm_local.netdevs */
};

/* What this side has: its netdevs, then their IPv4 addresses in the order
 * the kernel lists them (each netdev's primary address first). */
struct cm_local {
	char netdevs[CM_MAX_NETDEVS][IF_NAMESIZE];
	size_t n_netdevs;
	struct cm_addr addrs[CM_MAX_ADDRS];
	size_t n_addrs;
};

/* The netdevs of ibdev's port (1-based) under sysfs root `root` ("" for the
 * real /sys): the entries of /sys/class/infiniband/IBDEV/device/net/ whose
 * dev_port is port - 1 (all when only one is there), else the netdev the
 * `parent` file names (Soft-RoCE, siw). None found is not an error. */
int cm_netdevs_read(const char *root, const char *ibdev, unsigned int port, struct cm_local *l,
		    struct err *e);

/* The IPv4 addresses of l's netdevs, from an rtnetlink address dump. */
int cm_addrs_read(struct cm_local *l, struct err *e);

/* Both of the above on the real node. */
int cm_local_read(const char *ibdev, unsigned int port, struct cm_local *l, struct err *e);

/* The address rdma_cm uses on ibdev: `want` (--cm-addr) when it is one of
 * l's addresses, refused by name otherwise; without want, the address in
 * the RoCE v2 GID (gid_ipv4, NULL when the GID holds none, as on
 * InfiniBand) when the netdev has it, else the netdev's first address, else
 * gid_ipv4. Writes it to out (network order) and its text to text. */
int cm_addr_choose(const struct cm_local *l, const char *ibdev, const char *want,
		   const uint8_t *gid_ipv4, uint8_t out[4], char *text, size_t size, struct err *e);

/* Whether the IPv4 address in text is one of l's. */
bool cm_local_has(const struct cm_local *l, const char *text);

/* "10.0.0.1, 10.0.0.2" (or "none"): l's addresses, for messages. */
void cm_local_describe(const struct cm_local *l, char *buf, size_t size);
