// SPDX-License-Identifier: MIT
/* Malformed rtnetlink link messages rejected by the parser (core/linux/nlvf.c):
 * short VF attributes, too many or duplicate VFs, bad top-level attributes,
 * wrong types and short headers, every truncation and garbage parsed safely. */
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
	Suite *s = suite_create("nlvf_reject");
	TCase *tc = tcase_create("nlvf");
	const int n_struct_attrs = sizeof(vf_struct_attrs) / sizeof(vf_struct_attrs[0]);

	nlmsg_set_default_size(256 * 1024);
	tcase_add_loop_test(tc, short_vf_attribute_is_rejected, 0, n_struct_attrs);
	tcase_add_test(tc, vf_count_is_bounded);
	tcase_add_test(tc, duplicate_vf_index_is_rejected);
	tcase_add_test(tc, bad_top_level_attributes_are_rejected);
	tcase_add_test(tc, wrong_type_and_short_header_are_rejected);
	tcase_add_test(tc, every_truncation_is_parsed_safely);
	tcase_add_test(tc, garbage_is_parsed_safely);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
