// SPDX-License-Identifier: MIT
/* The rtnetlink link parser against messages laid out as the kernel's
 * rtnl_fill_ifinfo() and rtnl_fill_vfinfo() write them: every field read
 * (malformed messages are in test_nlvf_reject.c). */
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

#include "nlvfutil.h"
#include "testutil.h"

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

int main(void)
{
	Suite *s = suite_create("nlvf");
	TCase *tc = tcase_create("nlvf");
	nlmsg_set_default_size(256 * 1024);
	tcase_add_test(tc, link_reads_every_field_of_an_ipoib_pf);
	tcase_add_test(tc, link_without_vf_info_has_no_vfs);
	tcase_add_test(tc, empty_vf_list_gives_no_vfs);
	tcase_add_test(tc, vfs_out_of_order_come_back_sorted);
	tcase_add_test(tc, vf_settings_not_sent_stay_unknown);
	tcase_add_test(tc, old_tx_rate_alone_gives_max_rate);
	tcase_add_test(tc, unknown_vf_attributes_are_skipped);
	tcase_add_test(tc, altnames_past_the_limit_are_dropped);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
