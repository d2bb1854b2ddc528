// SPDX-License-Identifier: MIT
/* Helpers of the rtnetlink parser suites (test_nlvf.c, test_nlvf_reject.c):
 * RTM_NEWLINK messages laid out as the kernel's rtnl_fill_ifinfo() and
 * rtnl_fill_vfinfo() write them. */
#include "nlvfutil.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <net/if.h> /* before the linux/ headers, which then skip IFF_UP and co */
#include <linux/if_arp.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "core/linux/nlvf.h"

const uint8_t ipoib_addr[20] = {0x00, 0x00, 0x10, 0x49, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00,
				0x00, 0x00, 0xb8, 0x59, 0x9f, 0x03, 0x00, 0xf9, 0x8f, 0x86};

struct nl_msg *msg_new(int ifindex, unsigned int type)
{
	struct ifinfomsg ifi = {
		.ifi_family = AF_UNSPEC,
		.ifi_type = (unsigned short)type,
		.ifi_index = ifindex,
		.ifi_flags = IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST | IFF_LOWER_UP,
	};
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_MULTI);

	ck_assert_ptr_nonnull(m);
	PUT(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO));
	return m;
}

/* The head of rtnl_fill_ifinfo(), with the attributes ibvf ignores too. */
void put_link_head(struct nl_msg *m, const char *name, unsigned int mtu)
{
	struct rtnl_link_ifmap map = {0};
	uint8_t stats[200] = {0};

	PUT(nla_put_string(m, IFLA_IFNAME, name));
	PUT(nla_put_u32(m, IFLA_TXQLEN, 256));
	PUT(nla_put_u8(m, IFLA_OPERSTATE, IF_OPER_UP));
	PUT(nla_put_u8(m, IFLA_LINKMODE, 0));
	PUT(nla_put_u32(m, IFLA_MTU, mtu));
	PUT(nla_put_u32(m, IFLA_MIN_MTU, 68));
	PUT(nla_put_u32(m, IFLA_MAX_MTU, 4092));
	PUT(nla_put_u32(m, IFLA_GROUP, 0));
	PUT(nla_put_u32(m, IFLA_NUM_TX_QUEUES, 64));
	PUT(nla_put_u8(m, IFLA_CARRIER, 1));
	PUT(nla_put_string(m, IFLA_QDISC, "mq"));
	PUT(nla_put(m, IFLA_MAP, sizeof(map), &map));
	PUT(nla_put(m, IFLA_ADDRESS, sizeof(ipoib_addr), ipoib_addr));
	PUT(nla_put(m, IFLA_BROADCAST, sizeof(ipoib_addr), ipoib_addr));
	PUT(nla_put(m, IFLA_STATS64, sizeof(stats), stats));
}

void put_vf_stats(struct nl_msg *m)
{
	struct nlattr *stats = nla_nest_start(m, IFLA_VF_STATS);
	ck_assert_ptr_nonnull(stats);
	for (int t = IFLA_VF_STATS_RX_PACKETS; t <= IFLA_VF_STATS_TX_DROPPED; t++)
		if (t != IFLA_VF_STATS_PAD)
			PUT(nla_put_u64(m, t, 1000u + (unsigned)t));
	nla_nest_end(m, stats);
}

/* In the order of rtnl_fill_vfinfo(). */
void put_vf(struct nl_msg *m, const struct vf_spec *v)
{
	struct ifla_vf_mac mac = {.vf = v->vf};
	struct ifla_vf_broadcast bcast;
	struct ifla_vf_vlan vlan = {.vf = v->vf, .vlan = v->vlan, .qos = v->qos};
	struct ifla_vf_rate rate = {
		.vf = v->vf, .min_tx_rate = v->min_rate, .max_tx_rate = v->max_rate};
	struct ifla_vf_tx_rate tx_rate = {.vf = v->vf, .rate = v->max_rate};
	struct ifla_vf_spoofchk spoofchk = {.vf = v->vf, .setting = v->spoofchk};
	struct ifla_vf_link_state link_state = {.vf = v->vf, .link_state = v->link_state};
	struct ifla_vf_rss_query_en rss = {.vf = v->vf, .setting = (uint32_t)-1};
	struct ifla_vf_trust trust = {.vf = v->vf, .setting = v->trust};
	struct ifla_vf_guid node = {.vf = v->vf, .guid = v->node_guid};
	struct ifla_vf_guid port = {.vf = v->vf, .guid = v->port_guid};
	struct ifla_vf_vlan_info vlan_info = {.vf = v->vf, .vlan = v->vlan, .qos = v->qos};
	struct nlattr *info = nla_nest_start(m, IFLA_VF_INFO), *vlans;

	ck_assert_ptr_nonnull(info);
	memcpy(mac.mac, v->mac, sizeof(v->mac));
	memset(&bcast, 0xff, sizeof(bcast));
	PUT(nla_put(m, IFLA_VF_MAC, sizeof(mac), &mac));
	PUT(nla_put(m, IFLA_VF_BROADCAST, sizeof(bcast), &bcast));
	PUT(nla_put(m, IFLA_VF_VLAN, sizeof(vlan), &vlan));
	PUT(nla_put(m, IFLA_VF_RATE, sizeof(rate), &rate));
	PUT(nla_put(m, IFLA_VF_TX_RATE, sizeof(tx_rate), &tx_rate));
	PUT(nla_put(m, IFLA_VF_SPOOFCHK, sizeof(spoofchk), &spoofchk));
	PUT(nla_put(m, IFLA_VF_LINK_STATE, sizeof(link_state), &link_state));
	PUT(nla_put(m, IFLA_VF_RSS_QUERY_EN, sizeof(rss), &rss));
	PUT(nla_put(m, IFLA_VF_TRUST, sizeof(trust), &trust));
	if (v->guids) {
		PUT(nla_put(m, IFLA_VF_IB_NODE_GUID, sizeof(node), &node));
		PUT(nla_put(m, IFLA_VF_IB_PORT_GUID, sizeof(port), &port));
	}
	ck_assert_ptr_nonnull(vlans = nla_nest_start(m, IFLA_VF_VLAN_LIST));
	PUT(nla_put(m, IFLA_VF_VLAN_INFO, sizeof(vlan_info), &vlan_info));
	nla_nest_end(m, vlans);
	put_vf_stats(m);
	nla_nest_end(m, info);
}

void put_vf_list(struct nl_msg *m, const struct vf_spec *vfs, size_t n)
{
	struct nlattr *list;

	PUT(nla_put_u32(m, IFLA_NUM_VF, (uint32_t)n));
	ck_assert_ptr_nonnull(list = nla_nest_start(m, IFLA_VFINFO_LIST));
	for (size_t i = 0; i < n; i++)
		put_vf(m, &vfs[i]);
	nla_nest_end(m, list);
}

void put_altnames(struct nl_msg *m, const char *const *names, size_t n)
{
	struct nlattr *props = nla_nest_start(m, IFLA_PROP_LIST);

	ck_assert_ptr_nonnull(props);
	for (size_t i = 0; i < n; i++)
		PUT(nla_put_string(m, IFLA_ALT_IFNAME, names[i]));
	nla_nest_end(m, props);
}

/* The attributes rtnl_fill_ifinfo() writes after the VF list. */
void put_link_tail(struct nl_msg *m)
{
	static const char *const alt[] = {"ibp24s0", "enP1p24s0"};
	uint8_t perm[20] = {0};

	put_altnames(m, alt, 2);
	PUT(nla_put(m, IFLA_PERM_ADDRESS, sizeof(perm), perm));
	PUT(nla_put_string(m, IFLA_PARENT_DEV_NAME, "0000:18:00.0"));
	PUT(nla_put_string(m, IFLA_PARENT_DEV_BUS_NAME, "pci"));
}

const struct vf_spec pf_vfs[3] = {
	{.vf = 0,
	 .mac = {0, 0, 0, 0, 0, 0},
	 .spoofchk = 0,
	 .link_state = IFLA_VF_LINK_STATE_AUTO,
	 .trust = 0,
	 .guids = true},
	{.vf = 1,
	 .mac = {0x02, 0x11, 0x22, 0x33, 0x44, 0x01},
	 .vlan = 100,
	 .qos = 3,
	 .min_rate = 1000,
	 .max_rate = 200000,
	 .spoofchk = 1,
	 .link_state = IFLA_VF_LINK_STATE_ENABLE,
	 .trust = 1,
	 .guids = true,
	 .node_guid = 0x0011223344000101ULL,
	 .port_guid = 0x0011223344000102ULL},
	{.vf = 2,
	 .mac = {0x02, 0x11, 0x22, 0x33, 0x44, 0x02},
	 .vlan = 4095,
	 .max_rate = 400000,
	 .spoofchk = (uint32_t)-1,
	 .link_state = IFLA_VF_LINK_STATE_DISABLE,
	 .trust = (uint32_t)-1,
	 .guids = true,
	 .node_guid = 0xb8599f0300f98f86ULL,
	 .port_guid = 0xffffffffffffffffULL},
};

/* The IPoIB PF "ibp24s0" (ifindex 7) with pf_vfs, as the kernel dumps it. */
struct nl_msg *msg_pf(void)
{
	struct nl_msg *m = msg_new(7, ARPHRD_INFINIBAND);
	put_link_head(m, "ibp24s0", 4092);
	put_vf_list(m, pf_vfs, 3);
	put_link_tail(m);
	return m;
}

void check_vf(const struct sys_vf_info *got, const struct vf_spec *want)
{
	ck_assert_uint_eq(got->vf, want->vf);
	ck_assert_mem_eq(got->mac, want->mac, sizeof(want->mac));
	ck_assert_int_eq(got->vlan, want->vlan);
	ck_assert_int_eq(got->qos, want->qos);
	ck_assert_int_eq(got->min_tx_rate, want->min_rate);
	ck_assert_int_eq(got->max_tx_rate, want->max_rate);
	ck_assert_int_eq(got->spoofchk, want->spoofchk == (uint32_t)-1 ? -1 : (int)want->spoofchk);
	ck_assert_int_eq(got->link_state, (int)want->link_state);
	ck_assert_int_eq(got->trust, want->trust == (uint32_t)-1 ? -1 : (int)want->trust);
	ck_assert(got->node_guid_known == want->guids);
	ck_assert(got->port_guid_known == want->guids);
	ck_assert_uint_eq(got->node_guid, want->node_guid);
	ck_assert_uint_eq(got->port_guid, want->port_guid);
}

/* A nest holding the given raw IFLA_VF_INFO payload attributes. */
struct nl_msg *msg_vf_list_raw(int attr, const void *data, int len, int copies)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *list = nla_nest_start(m, IFLA_VFINFO_LIST);

	ck_assert_ptr_nonnull(list);
	for (int i = 0; i < copies; i++) {
		struct nlattr *info = nla_nest_start(m, IFLA_VF_INFO);
		ck_assert_ptr_nonnull(info);
		if (attr)
			PUT(nla_put(m, attr, len, data));
		nla_nest_end(m, info);
	}
	nla_nest_end(m, list);
	return m;
}

struct nlattr *first_attr(struct nl_msg *m)
{
	return (struct nlattr *)nlmsg_data(nlmsg_hdr(m));
}
