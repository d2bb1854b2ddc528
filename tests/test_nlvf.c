// SPDX-License-Identifier: MIT
/* The rtnetlink link parser against messages laid out as the kernel's
 * rtnl_fill_ifinfo() and rtnl_fill_vfinfo() write them. */
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

#define PUT(x) ck_assert_int_ge((x), 0)

/* What one VF's IFLA_VF_INFO nest carries. */
struct vf_spec {
	uint32_t vf;
	uint8_t mac[6];
	uint32_t vlan, qos, min_rate, max_rate, spoofchk, link_state, trust;
	bool guids;
	uint64_t node_guid, port_guid;
};

static const uint8_t ipoib_addr[20] = {0x00, 0x00, 0x10, 0x49, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00,
				       0x00, 0x00, 0xb8, 0x59, 0x9f, 0x03, 0x00, 0xf9, 0x8f, 0x86};

static struct nl_msg *msg_new(int ifindex, unsigned int type)
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
static void put_link_head(struct nl_msg *m, const char *name, unsigned int mtu)
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

static void put_vf_stats(struct nl_msg *m)
{
	struct nlattr *stats = nla_nest_start(m, IFLA_VF_STATS);
	ck_assert_ptr_nonnull(stats);
	for (int t = IFLA_VF_STATS_RX_PACKETS; t <= IFLA_VF_STATS_TX_DROPPED; t++)
		if (t != IFLA_VF_STATS_PAD)
			PUT(nla_put_u64(m, t, 1000u + (unsigned)t));
	nla_nest_end(m, stats);
}

/* In the order of rtnl_fill_vfinfo(). */
static void put_vf(struct nl_msg *m, const struct vf_spec *v)
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

static void put_vf_list(struct nl_msg *m, const struct vf_spec *vfs, size_t n)
{
	struct nlattr *list;

	PUT(nla_put_u32(m, IFLA_NUM_VF, (uint32_t)n));
	ck_assert_ptr_nonnull(list = nla_nest_start(m, IFLA_VFINFO_LIST));
	for (size_t i = 0; i < n; i++)
		put_vf(m, &vfs[i]);
	nla_nest_end(m, list);
}

static void put_altnames(struct nl_msg *m, const char *const *names, size_t n)
{
	struct nlattr *props = nla_nest_start(m, IFLA_PROP_LIST);

	ck_assert_ptr_nonnull(props);
	for (size_t i = 0; i < n; i++)
		PUT(nla_put_string(m, IFLA_ALT_IFNAME, names[i]));
	nla_nest_end(m, props);
}

/* The attributes rtnl_fill_ifinfo() writes after the VF list. */
static void put_link_tail(struct nl_msg *m)
{
	static const char *const alt[] = {"ibp24s0", "enP1p24s0"};
	uint8_t perm[20] = {0};

	put_altnames(m, alt, 2);
	PUT(nla_put(m, IFLA_PERM_ADDRESS, sizeof(perm), perm));
	PUT(nla_put_string(m, IFLA_PARENT_DEV_NAME, "0000:18:00.0"));
	PUT(nla_put_string(m, IFLA_PARENT_DEV_BUS_NAME, "pci"));
}

static const struct vf_spec pf_vfs[3] = {
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
static struct nl_msg *msg_pf(void)
{
	struct nl_msg *m = msg_new(7, ARPHRD_INFINIBAND);
	put_link_head(m, "ibp24s0", 4092);
	put_vf_list(m, pf_vfs, 3);
	put_link_tail(m);
	return m;
}

static void check_vf(const struct sys_vf_info *got, const struct vf_spec *want)
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

START_TEST(link_reads_every_field_of_an_ipoib_pf)
{
	struct nl_msg *m = msg_pf();
	struct sys_link l;

	ck_assert_int_eq(nlvf_parse_link(nlmsg_hdr(m), &l), 0);
	ck_assert_int_eq(l.ifindex, 7);
	ck_assert_str_eq(l.name, "ibp24s0");
	ck_assert_uint_eq(l.flags,
			  IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST | IFF_LOWER_UP);
	ck_assert_uint_eq(l.type, ARPHRD_INFINIBAND);
	ck_assert_int_eq(l.operstate, IF_OPER_UP);
	ck_assert_uint_eq(l.mtu, 4092);
	ck_assert_uint_eq(l.addr_len, 20);
	ck_assert_mem_eq(l.addr, ipoib_addr, 20);
	ck_assert_uint_eq(l.n_altnames, 2);
	ck_assert_str_eq(l.altnames[0], "ibp24s0");
	ck_assert_str_eq(l.altnames[1], "enP1p24s0");
	ck_assert_int_eq(l.num_vf, 3);
	ck_assert_uint_eq(l.n_vfs, 3);
	for (size_t i = 0; i < 3; i++)
		check_vf(&l.vfs[i], &pf_vfs[i]);
	free(l.vfs);
	nlmsg_free(m);
}
END_TEST

START_TEST(link_without_vf_info_has_no_vfs)
{
	struct nl_msg *m = msg_new(3, ARPHRD_ETHER);
	uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x03};
	struct sys_link l;

	PUT(nla_put_string(m, IFLA_IFNAME, "veth0"));
	PUT(nla_put_u32(m, IFLA_MTU, 1500));
	PUT(nla_put(m, IFLA_ADDRESS, sizeof(mac), mac));
	ck_assert_int_eq(nlvf_parse_link(nlmsg_hdr(m), &l), 0);
	ck_assert_str_eq(l.name, "veth0");
	ck_assert_int_eq(l.num_vf, -1);
	ck_assert_uint_eq(l.n_vfs, 0);
	ck_assert_ptr_null(l.vfs);
	ck_assert_int_eq(l.operstate, -1);
	ck_assert_uint_eq(l.n_altnames, 0);
	ck_assert_uint_eq(l.addr_len, 6);
	ck_assert_mem_eq(l.addr, mac, 6);
	nlmsg_free(m);
}
END_TEST

START_TEST(empty_vf_list_gives_no_vfs)
{
	struct nl_msg *m = msg_new(3, ARPHRD_INFINIBAND);
	struct sys_link l;

	PUT(nla_put_string(m, IFLA_IFNAME, "ib0"));
	put_vf_list(m, NULL, 0);
	ck_assert_int_eq(nlvf_parse_link(nlmsg_hdr(m), &l), 0);
	ck_assert_int_eq(l.num_vf, 0);
	ck_assert_uint_eq(l.n_vfs, 0);
	ck_assert_ptr_null(l.vfs);
	nlmsg_free(m);
}
END_TEST

START_TEST(vfs_out_of_order_come_back_sorted)
{
	struct vf_spec vfs[4];
	const uint32_t order[4] = {3, 0, 2, 1};
	struct nl_msg *m = msg_new(9, ARPHRD_INFINIBAND);
	struct sys_link l;

	for (size_t i = 0; i < 4; i++) {
		vfs[i] = pf_vfs[1];
		vfs[i].vf = order[i];
		vfs[i].port_guid = 0x100 + order[i];
	}
	PUT(nla_put_string(m, IFLA_IFNAME, "ib1"));
	put_vf_list(m, vfs, 4);
	ck_assert_int_eq(nlvf_parse_link(nlmsg_hdr(m), &l), 0);
	ck_assert_uint_eq(l.n_vfs, 4);
	for (uint32_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(l.vfs[i].vf, i);
		ck_assert_uint_eq(l.vfs[i].port_guid, 0x100 + i);
	}
	free(l.vfs);
	nlmsg_free(m);
}
END_TEST

/* A nest holding the given raw IFLA_VF_INFO payload attributes. */
static struct nl_msg *msg_vf_list_raw(int attr, const void *data, int len, int copies)
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

static struct nlattr *first_attr(struct nl_msg *m)
{
	return (struct nlattr *)nlmsg_data(nlmsg_hdr(m));
}

START_TEST(vf_settings_not_sent_stay_unknown)
{
	struct ifla_vf_mac mac = {.vf = 5, .mac = {0x02, 1, 2, 3, 4, 5}};
	struct nl_msg *m = msg_vf_list_raw(IFLA_VF_MAC, &mac, sizeof(mac), 1);
	struct sys_vf_info *vfs = NULL;
	size_t n = 0;

	ck_assert_int_eq(nlvf_parse_vfinfo_list(first_attr(m), &vfs, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(vfs[0].vf, 5);
	ck_assert_int_eq(vfs[0].vlan, -1);
	ck_assert_int_eq(vfs[0].qos, -1);
	ck_assert_int_eq(vfs[0].min_tx_rate, -1);
	ck_assert_int_eq(vfs[0].max_tx_rate, -1);
	ck_assert_int_eq(vfs[0].spoofchk, -1);
	ck_assert_int_eq(vfs[0].trust, -1);
	ck_assert_int_eq(vfs[0].link_state, -1);
	ck_assert(!vfs[0].node_guid_known && !vfs[0].port_guid_known);
	free(vfs);
	nlmsg_free(m);
}
END_TEST

START_TEST(old_tx_rate_alone_gives_max_rate)
{
	struct ifla_vf_tx_rate tx = {.vf = 0, .rate = 25000};
	struct nl_msg *m = msg_vf_list_raw(IFLA_VF_TX_RATE, &tx, sizeof(tx), 1);
	struct sys_vf_info *vfs = NULL;
	size_t n = 0;

	ck_assert_int_eq(nlvf_parse_vfinfo_list(first_attr(m), &vfs, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(vfs[0].max_tx_rate, 25000);
	ck_assert_int_eq(vfs[0].min_tx_rate, -1);
	free(vfs);
	nlmsg_free(m);
}
END_TEST

static const int vf_struct_attrs[] = {
	IFLA_VF_MAC,   IFLA_VF_VLAN,	     IFLA_VF_TX_RATE,
	IFLA_VF_RATE,  IFLA_VF_SPOOFCHK,     IFLA_VF_LINK_STATE,
	IFLA_VF_TRUST, IFLA_VF_IB_NODE_GUID, IFLA_VF_IB_PORT_GUID,
};

START_TEST(short_vf_attribute_is_rejected)
{
	int attr = vf_struct_attrs[_i];
	uint8_t payload[8] = {1, 0, 0, 0, 0xaa, 0xbb, 0xcc, 0xdd};
	/* ifla_vf_guid is 16 bytes, the two-field structs 8: give 4 or 12. */
	int len = attr == IFLA_VF_IB_NODE_GUID || attr == IFLA_VF_IB_PORT_GUID ? 8 : 4;
	struct nl_msg *m = msg_vf_list_raw(attr, payload, len, 1);
	struct sys_vf_info *vfs = (struct sys_vf_info *)0x1;
	size_t n = 77;

	ck_assert_int_eq(nlvf_parse_vfinfo_list(first_attr(m), &vfs, &n), -EBADMSG);
	ck_assert_ptr_eq(vfs, (struct sys_vf_info *)0x1);
	ck_assert_uint_eq(n, 77);
	nlmsg_free(m);
}
END_TEST

START_TEST(unknown_vf_attributes_are_skipped)
{
	uint8_t blob[24] = {0};
	struct nl_msg *m = msg_vf_list_raw(IFLA_VF_MAX + 5, blob, sizeof(blob), 2);
	struct sys_vf_info *vfs = NULL;
	size_t n = 0;

	ck_assert_int_eq(nlvf_parse_vfinfo_list(first_attr(m), &vfs, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(vfs[0].vf, 0);
	ck_assert_uint_eq(vfs[1].vf, 1);
	free(vfs);
	nlmsg_free(m);
}
END_TEST

START_TEST(vf_count_is_bounded)
{
	/* Each VF nest holds one empty unknown attribute: libnl drops empty nests. */
	struct nl_msg *ok = msg_vf_list_raw(IFLA_VF_MAX + 1, NULL, 0, NLVF_VFS_MAX);
	struct nl_msg *big = msg_vf_list_raw(IFLA_VF_MAX + 1, NULL, 0, NLVF_VFS_MAX + 1);
	struct sys_vf_info *vfs = NULL;
	size_t n = 0;

	ck_assert_int_eq(nlvf_parse_vfinfo_list(first_attr(ok), &vfs, &n), 0);
	ck_assert_uint_eq(n, NLVF_VFS_MAX);
	ck_assert_uint_eq(vfs[NLVF_VFS_MAX - 1].vf, NLVF_VFS_MAX - 1);
	free(vfs);
	vfs = NULL;
	ck_assert_int_eq(nlvf_parse_vfinfo_list(first_attr(big), &vfs, &n), -EBADMSG);
	ck_assert_ptr_null(vfs);
	nlmsg_free(ok);
	nlmsg_free(big);
}
END_TEST

START_TEST(duplicate_vf_index_is_rejected)
{
	struct ifla_vf_mac mac = {.vf = 2};
	struct nl_msg *m = msg_vf_list_raw(IFLA_VF_MAC, &mac, sizeof(mac), 2);
	struct sys_vf_info *vfs = NULL;
	size_t n = 0;

	ck_assert_int_eq(nlvf_parse_vfinfo_list(first_attr(m), &vfs, &n), -EBADMSG);
	nlmsg_free(m);
}
END_TEST

START_TEST(altnames_past_the_limit_are_dropped)
{
	static const char *const names[] = {"a0", "a1", "a2", "a3", "a4", "a5"};
	struct nl_msg *m = msg_new(4, ARPHRD_ETHER);
	struct sys_link l;

	PUT(nla_put_string(m, IFLA_IFNAME, "eth0"));
	put_altnames(m, names, 6);
	ck_assert_int_eq(nlvf_parse_link(nlmsg_hdr(m), &l), 0);
	ck_assert_uint_eq(l.n_altnames, SYS_ALTNAMES_MAX);
	ck_assert_str_eq(l.altnames[SYS_ALTNAMES_MAX - 1], names[SYS_ALTNAMES_MAX - 1]);
	nlmsg_free(m);
}
END_TEST

/* A message that is well-framed but says something impossible. */
static void check_link_rejected(struct nl_msg *m)
{
	struct sys_link l;
	memset(&l, 0x5a, sizeof(l));
	ck_assert_int_eq(nlvf_parse_link(nlmsg_hdr(m), &l), -EBADMSG);
	ck_assert_int_eq(l.ifindex, 0x5a5a5a5a);
	nlmsg_free(m);
}

START_TEST(bad_top_level_attributes_are_rejected)
{
	uint8_t addr[33] = {0};
	char unterminated[4] = {'i', 'b', '0', 'x'};
	struct nl_msg *m;

	m = msg_new(1, ARPHRD_ETHER); /* no IFLA_IFNAME */
	PUT(nla_put_u32(m, IFLA_MTU, 1500));
	check_link_rejected(m);

	m = msg_new(1, ARPHRD_ETHER);
	PUT(nla_put_string(m, IFLA_IFNAME, "0123456789abcdef"));
	check_link_rejected(m);

	m = msg_new(1, ARPHRD_ETHER);
	PUT(nla_put(m, IFLA_IFNAME, sizeof(unterminated), unterminated));
	check_link_rejected(m);

	m = msg_new(1, ARPHRD_ETHER);
	PUT(nla_put_string(m, IFLA_IFNAME, "ib0"));
	PUT(nla_put_u16(m, IFLA_MTU, 1500));
	check_link_rejected(m);

	m = msg_new(1, ARPHRD_ETHER);
	PUT(nla_put_string(m, IFLA_IFNAME, "ib0"));
	PUT(nla_put(m, IFLA_ADDRESS, sizeof(addr), addr));
	check_link_rejected(m);

	m = msg_new(1, ARPHRD_ETHER);
	PUT(nla_put_string(m, IFLA_IFNAME, "ib0"));
	PUT(nla_put(m, IFLA_NUM_VF, 2, addr));
	check_link_rejected(m);
}
END_TEST

START_TEST(wrong_type_and_short_header_are_rejected)
{
	struct nl_msg *m = msg_pf();
	struct nlmsghdr *h = nlmsg_hdr(m);
	struct sys_link l;

	h->nlmsg_type = RTM_NEWADDR;
	ck_assert_int_eq(nlvf_parse_link(h, &l), -EINVAL);
	h->nlmsg_type = RTM_NEWLINK;
	h->nlmsg_len = NLMSG_HDRLEN + sizeof(struct ifinfomsg) - 1;
	ck_assert_int_eq(nlvf_parse_link(h, &l), -EBADMSG);
	h->nlmsg_len = 0;
	ck_assert_int_eq(nlvf_parse_link(h, &l), -EBADMSG);
	nlmsg_free(m);
}
END_TEST

/* Every prefix of a real message, copied to a buffer of exactly that size
 * so that ASan sees any read past nlmsg_len. */
START_TEST(every_truncation_is_parsed_safely)
{
	struct nl_msg *m = msg_pf();
	struct nlmsghdr *full = nlmsg_hdr(m);
	size_t rejected = 0;

	for (uint32_t len = NLMSG_HDRLEN; len < full->nlmsg_len; len++) {
		struct nlmsghdr *h = malloc(len);
		struct sys_link l;
		ck_assert_ptr_nonnull(h);
		memcpy(h, full, len);
		h->nlmsg_len = len;
		int r = nlvf_parse_link(h, &l);
		ck_assert_msg(r == 0 || r == -EBADMSG, "length %u gave %d", len, r);
		if (r == 0)
			free(l.vfs);
		else
			rejected++;
		free(h);
	}
	ck_assert_uint_gt(rejected, 0);
	nlmsg_free(m);
}
END_TEST

/* Deterministic noise after a valid header: no crash, no read past the end. */
START_TEST(garbage_is_parsed_safely)
{
	uint32_t seed = 0x1badcafe;

	for (int round = 0; round < 2000; round++) {
		size_t len = NLMSG_HDRLEN + sizeof(struct ifinfomsg) + (size_t)(round % 300);
		uint8_t *buf = malloc(len);
		ck_assert_ptr_nonnull(buf);
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = (uint8_t)(seed >> 16);
		}
		/* Small attribute lengths and types make the noise parse deeper. */
		for (size_t i = NLMSG_HDRLEN + sizeof(struct ifinfomsg); i + 4 <= len; i += 8) {
			buf[i] = (uint8_t)(4 + buf[i] % 40);
			buf[i + 1] = 0;
			buf[i + 2] = (uint8_t)(buf[i + 2] % (IFLA_MAX + 1));
			buf[i + 3] = 0;
		}
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		struct sys_link l;
		h->nlmsg_len = (uint32_t)len;
		h->nlmsg_type = RTM_NEWLINK;
		int r = nlvf_parse_link(h, &l);
		ck_assert_msg(r == 0 || r == -EBADMSG, "round %d gave %d", round, r);
		if (r == 0)
			free(l.vfs);
		free(buf);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nlvf");
	TCase *tc = tcase_create("nlvf");
	const int n_struct_attrs = sizeof(vf_struct_attrs) / sizeof(vf_struct_attrs[0]);

	nlmsg_set_default_size(256 * 1024);
	tcase_add_test(tc, link_reads_every_field_of_an_ipoib_pf);
	tcase_add_test(tc, link_without_vf_info_has_no_vfs);
	tcase_add_test(tc, empty_vf_list_gives_no_vfs);
	tcase_add_test(tc, vfs_out_of_order_come_back_sorted);
	tcase_add_test(tc, vf_settings_not_sent_stay_unknown);
	tcase_add_test(tc, old_tx_rate_alone_gives_max_rate);
	tcase_add_loop_test(tc, short_vf_attribute_is_rejected, 0, n_struct_attrs);
	tcase_add_test(tc, unknown_vf_attributes_are_skipped);
	tcase_add_test(tc, vf_count_is_bounded);
	tcase_add_test(tc, duplicate_vf_index_is_rejected);
	tcase_add_test(tc, altnames_past_the_limit_are_dropped);
	tcase_add_test(tc, bad_top_level_attributes_are_rejected);
	tcase_add_test(tc, wrong_type_and_short_header_are_rejected);
	tcase_add_test(tc, every_truncation_is_parsed_safely);
	tcase_add_test(tc, garbage_is_parsed_safely);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
