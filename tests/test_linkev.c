// SPDX-License-Identifier: MIT
/* Link notifications into events (core/linux/linkev.c), fed messages built
 * with libnl as the kernel's rtnl_fill_ifinfo() lays them out: a notification
 * (no VF list, as rtmsg_ifinfo() sends) and a PF's message carrying its
 * IFLA_VFINFO_LIST. */
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

#include "core/linux/linkev.h"
#include "testutil.h"

#define PUT(x) ck_assert_int_ge((x), 0)
#define UP     (IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST | IFF_LOWER_UP)

/* One link's state as a message says it. */
struct link_spec {
	int ifindex;
	const char *name;
	unsigned int flags, mtu;
	uint8_t operstate;
	int num_vf;	    /* -1: no IFLA_NUM_VF nor VF list (a notification) */
	uint64_t port_guid; /* VF 3's, when num_vf > 3 */
	int family;
};

static struct nl_msg *link_msg(int type, const struct link_spec *l)
{
	struct ifinfomsg ifi = {
		.ifi_family = (unsigned char)l->family,
		.ifi_type = ARPHRD_INFINIBAND,
		.ifi_index = l->ifindex,
		.ifi_flags = l->flags,
	};
	struct nl_msg *m = nlmsg_alloc_simple(type, 0);
	ck_assert_ptr_nonnull(m);
	PUT(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO));
	PUT(nla_put_string(m, IFLA_IFNAME, l->name));
	PUT(nla_put_u32(m, IFLA_TXQLEN, 256));
	PUT(nla_put_u8(m, IFLA_OPERSTATE, l->operstate));
	PUT(nla_put_u32(m, IFLA_MTU, l->mtu));
	PUT(nla_put_u8(m, IFLA_CARRIER, (l->flags & IFF_LOWER_UP) != 0));
	if (l->num_vf < 0)
		return m;
	PUT(nla_put_u32(m, IFLA_NUM_VF, (uint32_t)l->num_vf));
	struct nlattr *list = nla_nest_start(m, IFLA_VFINFO_LIST);
	ck_assert_ptr_nonnull(list);
	for (int vf = 0; vf < l->num_vf; vf++) {
		struct ifla_vf_mac mac = {.vf = (uint32_t)vf};
		struct ifla_vf_link_state ls = {.vf = (uint32_t)vf, .link_state = 0};
		struct ifla_vf_guid node = {.vf = (uint32_t)vf, .guid = 0};
		struct ifla_vf_guid port = {.vf = (uint32_t)vf, .guid = vf == 3 ? l->port_guid : 0};
		struct nlattr *info = nla_nest_start(m, IFLA_VF_INFO);
		ck_assert_ptr_nonnull(info);
		PUT(nla_put(m, IFLA_VF_MAC, sizeof(mac), &mac));
		PUT(nla_put(m, IFLA_VF_LINK_STATE, sizeof(ls), &ls));
		PUT(nla_put(m, IFLA_VF_IB_NODE_GUID, sizeof(node), &node));
		PUT(nla_put(m, IFLA_VF_IB_PORT_GUID, sizeof(port), &port));
		nla_nest_end(m, info);
	}
	nla_nest_end(m, list);
	return m;
}

static int pf_calls;

/* The sysfs answer for a notification: ib-pf is a PF with VFs. */
static bool is_pf(void *arg, const char *ifname)
{
	pf_calls++;
	return !strcmp(ifname, (const char *)arg);
}

/* Parses one message of type for l; returns the event count. */
static int feed(struct linkev *t, int type, const struct link_spec *l, bool quiet,
		struct sys_event ev[LINKEV_MAX])
{
	struct nl_msg *m = link_msg(type, l);
	memset(ev, 0, LINKEV_MAX * sizeof(*ev));
	int n = linkev_parse(t, nlmsg_hdr(m), quiet, is_pf, "ib-pf", ev);
	nlmsg_free(m);
	return n;
}

static void expect(const struct sys_event *ev, const char *action, const char *name,
		   const char *old)
{
	ck_assert_str_eq(ev->action, action);
	ck_assert_str_eq(ev->subsystem, "net");
	ck_assert_str_eq(ev->name, name);
	ck_assert_str_eq(ev->old_name, old);
	ck_assert_str_eq(ev->devpath, "");
}

START_TEST(a_links_changes_map_to_change_and_move)
{
	struct linkev *t = linkev_new();
	struct sys_event ev[LINKEV_MAX];
	struct link_spec l = {.ifindex = 7,
			      .name = "ib0",
			      .flags = UP,
			      .mtu = 2044,
			      .operstate = IF_OPER_UP,
			      .num_vf = -1};
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &l, true, ev), 0);  /* the first dump */
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &l, false, ev), 0); /* nothing ibvf shows */
	l.mtu = 4092;
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &l, false, ev), 1);
	expect(&ev[0], "change", "ib0", "");
	l.name = "mlx-7";
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &l, false, ev), 1);
	expect(&ev[0], "move", "mlx-7", "ib0");
	l.flags = IFF_BROADCAST | IFF_MULTICAST; /* down */
	l.operstate = IF_OPER_DOWN;
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &l, false, ev), 1);
	expect(&ev[0], "change", "mlx-7", "");
	l.flags = UP & ~IFF_LOWER_UP & ~IFF_RUNNING; /* up, no carrier */
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &l, false, ev), 1);
	expect(&ev[0], "change", "mlx-7", "");
	/* Gone: the uevent says it; back under the same index it is new. */
	ck_assert_int_eq(feed(t, RTM_DELLINK, &l, false, ev), 0);
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &l, false, ev), 1);
	expect(&ev[0], "change", "mlx-7", "");
	linkev_free(t);
}
END_TEST

START_TEST(a_pf_message_with_its_vf_list_is_the_vf_admin_event)
{
	struct linkev *t = linkev_new();
	struct sys_event ev[LINKEV_MAX];
	struct link_spec pf = {.ifindex = 9,
			       .name = "ibp24s0",
			       .flags = UP,
			       .mtu = 4092,
			       .operstate = IF_OPER_UP,
			       .num_vf = 8,
			       .port_guid = 0};
	pf_calls = 0;
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &pf, true, ev), 0);
	pf.port_guid = 0xa088c20300180003ull; /* VF 3's GUID set by another tool */
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &pf, false, ev), 1);
	expect(&ev[0], SYS_EVENT_VF_ADMIN, "ibp24s0", "");
	/* The PF going down: its own change, and maybe its VFs'. */
	pf.flags = IFF_BROADCAST;
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &pf, false, ev), 2);
	expect(&ev[0], "change", "ibp24s0", "");
	expect(&ev[1], SYS_EVENT_VF_ADMIN, "ibp24s0", "");
	/* A rename alone says nothing of the VFs. */
	pf.name = "ibpf24";
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &pf, false, ev), 1);
	expect(&ev[0], "move", "ibpf24", "ibp24s0");
	/* The message says it has no VFs: not a PF, whatever sysfs says. */
	struct link_spec none = {.ifindex = 10,
				 .name = "ib-pf",
				 .flags = UP,
				 .mtu = 4092,
				 .operstate = IF_OPER_UP,
				 .num_vf = 0};
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &none, true, ev), 0);
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &none, false, ev), 0);
	ck_assert_int_eq(pf_calls, 0);
	linkev_free(t);
}
END_TEST

START_TEST(a_notification_without_vf_list_asks_whether_the_link_is_a_pf)
{
	struct linkev *t = linkev_new();
	struct sys_event ev[LINKEV_MAX];
	struct link_spec pf = {.ifindex = 3,
			       .name = "ib-pf",
			       .flags = UP,
			       .mtu = 4092,
			       .operstate = IF_OPER_UP,
			       .num_vf = -1};
	struct link_spec other = {.ifindex = 4,
				  .name = "eth0",
				  .flags = UP,
				  .mtu = 1500,
				  .operstate = IF_OPER_UP,
				  .num_vf = -1};
	pf_calls = 0;
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &pf, true, ev), 0);
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &other, true, ev), 0);
	ck_assert_int_eq(pf_calls, 0); /* the dump's replies ask nothing */
	/* netdev_state_change() after a VF setting: nothing of the link moved. */
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &pf, false, ev), 1);
	expect(&ev[0], SYS_EVENT_VF_ADMIN, "ib-pf", "");
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &other, false, ev), 0);
	ck_assert_int_eq(pf_calls, 2);
	linkev_free(t);
}
END_TEST

START_TEST(malformed_and_foreign_messages)
{
	struct linkev *t = linkev_new();
	struct sys_event ev[LINKEV_MAX];
	struct link_spec l = {.ifindex = 5,
			      .name = "ib1",
			      .flags = UP,
			      .mtu = 4092,
			      .operstate = IF_OPER_UP,
			      .num_vf = -1,
			      .family = AF_BRIDGE};
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &l, false, ev), 0); /* a bridge port's view */
	l.family = AF_UNSPEC;
	struct nl_msg *m = link_msg(RTM_NEWLINK, &l);
	struct nlmsghdr *h = nlmsg_hdr(m);
	h->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)) + 6; /* cut in IFLA_IFNAME */
	ck_assert_int_eq(linkev_parse(t, h, false, is_pf, "ib-pf", ev), -EBADMSG);
	h->nlmsg_len = NLMSG_LENGTH(2); /* not even the ifinfomsg */
	ck_assert_int_eq(linkev_parse(t, h, false, is_pf, "ib-pf", ev), -EBADMSG);
	nlmsg_free(m);
	/* Nothing of the bad messages was kept: the link is still new. */
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &l, false, ev), 1);
	expect(&ev[0], "change", "ib1", "");
	linkev_clear(t);
	ck_assert_int_eq(feed(t, RTM_NEWLINK, &l, false, ev), 1);
	linkev_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("linkev");
	TCase *tc = tcase_create("linkev");
	tcase_add_test(tc, a_links_changes_map_to_change_and_move);
	tcase_add_test(tc, a_pf_message_with_its_vf_list_is_the_vf_admin_event);
	tcase_add_test(tc, a_notification_without_vf_list_asks_whether_the_link_is_a_pf);
	tcase_add_test(tc, malformed_and_foreign_messages);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
