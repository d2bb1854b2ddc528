/* SPDX-License-Identifier: MIT */
/* Helpers of the rtnetlink parser suites (test_nlvf.c, test_nlvf_reject.c):
 * RTM_NEWLINK messages laid out as the kernel's rtnl_fill_ifinfo() and
 * rtnl_fill_vfinfo() write them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "core/linux/nlvf.h"

/* Check's assertion on a libnl put (check.h is the caller's). */
#define PUT(x) ck_assert_int_ge((x), 0)

/* What one VF's IFLA_VF_INFO nest carries. */
struct vf_spec {
	uint32_t vf;
	uint8_t mac[6];
	uint32_t vlan, qos, min_rate, max_rate, spoofchk, link_state, trust;
	bool guids;
	uint64_t node_guid, port_guid;
};

extern const uint8_t ipoib_addr[20];

struct nl_msg *msg_new(int ifindex, unsigned int type);

/* The head of rtnl_fill_ifinfo(), with the attributes ibvf ignores too. */
void put_link_head(struct nl_msg *m, const char *name, unsigned int mtu);

void put_vf_stats(struct nl_msg *m);

/* In the order of rtnl_fill_vfinfo(). */
void put_vf(struct nl_msg *m, const struct vf_spec *v);

void put_vf_list(struct nl_msg *m, const struct vf_spec *vfs, size_t n);

void put_altnames(struct nl_msg *m, const char *const *names, size_t n);

/* The attributes rtnl_fill_ifinfo() writes after the VF list. */
void put_link_tail(struct nl_msg *m);

extern const struct vf_spec pf_vfs[3];

/* The IPoIB PF "ibp24s0" (ifindex 7) with pf_vfs, as the kernel dumps it. */
struct nl_msg *msg_pf(void);

void check_vf(const struct sys_vf_info *got, const struct vf_spec *want);

/* A nest holding the given raw IFLA_VF_INFO payload attributes. */
struct nl_msg *msg_vf_list_raw(int attr, const void *data, int len, int copies);

struct nlattr *first_attr(struct nl_msg *m);
