// SPDX-License-Identifier: MIT
/* The real node's event source against the running kernel: a veth pair in a
 * private network namespace, changed through libnl from outside ibvf's
 * handle, as another tool would. Each change must make the event fd
 * readable and sys_event_read() name the link with the event's kind; rtnetlink
 * is what reports up/down, carrier, MTU and address (no uevent does). */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <net/if.h> /* before the linux/ headers, which then skip IFF_UP and co */
#include <linux/if_link.h>
#include <netlink/addr.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "core/sys/sys.h"
#include "nstest.h"
#include "testutil.h"

/* Generous: the test must hold on a slow, loaded machine; a change shows in
 * well under a second on an idle one. */
#define WAIT_SECS 10.0

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads every pending event; drains what came before a change. */
static void drain(struct sys *s)
{
	struct sys_event ev;
	int r;
	while ((r = sys_event_read(s, &ev)) == 1)
		;
	NS_CHECK(r == 0, "sys_event_read: %s", strerror(-r));
}

/* Waits until an event of that action on net/name arrives; the fd must be
 * readable first (the console sleeps in poll()). */
static void expect_event(struct sys *s, const char *action, const char *name, const char *old)
{
	double deadline = now() + WAIT_SECS;
	int fd = sys_event_fd(s);
	for (double left; (left = deadline - now()) > 0;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		struct sys_event ev;
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		NS_CHECK(r >= 0 || errno == EINTR, "poll: %s", strerror(errno));
		while ((r = sys_event_read(s, &ev)) == 1)
			if (!strcmp(ev.action, action) && !strcmp(ev.subsystem, "net") &&
			    !strcmp(ev.name, name) && (!old || !strcmp(ev.old_name, old))) {
				NS_CHECK(strstr(ev.devpath, "/devices/virtual/net/") == ev.devpath,
					 "%s of '%s': devpath '%s'", action, name, ev.devpath);
				return;
			}
		NS_CHECK(r == 0, "sys_event_read: %s", strerror(-r));
	}
	nst_fail(__FILE__, __LINE__, "no '%s' event for '%s' within %.0f s", action, name,
		 WAIT_SECS);
}

/* Another tool's change: RTM_SETLINK with the attributes set in ch. */
static void link_change(const char *name, struct rtnl_link *ch)
{
	struct nl_sock *sk = nst_socket();
	struct rtnl_link *orig = NULL;
	int r = rtnl_link_get_kernel(sk, 0, name, &orig);
	NS_CHECK(r == 0, "no link '%s': %s", name, nl_geterror(r));
	r = rtnl_link_change(sk, orig, ch, 0);
	NS_CHECK(r == 0, "change of '%s': %s", name, nl_geterror(r));
	rtnl_link_put(orig);
	rtnl_link_put(ch);
	nl_socket_free(sk);
}

static struct rtnl_link *changes(void)
{
	struct rtnl_link *ch = rtnl_link_alloc();
	NS_CHECK(ch != NULL, "rtnl_link_alloc");
	return ch;
}

static void outside_changes(void *arg)
{
	static const unsigned char mac[6] = {0x02, 0x00, 0x00, 0x00, 0x49, 0x01};
	struct sys *s = NULL;
	struct err e = {{0}};
	struct rtnl_link *ch;

	nst_enter(NST_SYSFS);
	nst_veth("veth0", "veth1");
	NS_CHECK(sys_open_linux("/", &s, &e) == 0, "sys_open_linux: %s", e.msg);
	NS_CHECK(sys_event_fd(s) >= 0, "sys_event_fd: %s", strerror(-sys_event_fd(s)));
	drain(s);

	rtnl_link_set_mtu(ch = changes(), 1400);
	link_change("veth0", ch);
	expect_event(s, "change", "veth0", NULL);

	struct nl_addr *addr = nl_addr_build(AF_LLC, mac, sizeof(mac));
	NS_CHECK(addr != NULL, "nl_addr_build");
	rtnl_link_set_addr(ch = changes(), addr);
	nl_addr_put(addr);
	link_change("veth0", ch);
	expect_event(s, "change", "veth0", NULL);

	rtnl_link_set_flags(ch = changes(), IFF_UP);
	link_change("veth0", ch);
	expect_event(s, "change", "veth0", NULL);
	/* veth1 down: veth0 is up without a carrier until veth1 comes up. */
	rtnl_link_set_flags(ch = changes(), IFF_UP);
	link_change("veth1", ch);
	expect_event(s, "change", "veth0", NULL); /* its carrier */

	rtnl_link_unset_flags(ch = changes(), IFF_UP);
	link_change("veth0", ch);
	expect_event(s, "change", "veth0", NULL);

	rtnl_link_set_name(ch = changes(), "ibvf9");
	link_change("veth0", ch);
	expect_event(s, "move", "ibvf9", "veth0");
	/* One rename, one event: the uevent's and the notification's copies
	 * are one. */
	struct sys_event ev;
	struct pollfd p = {.fd = sys_event_fd(s), .events = POLLIN};
	while (poll(&p, 1, 200) > 0) {
		int r;
		while ((r = sys_event_read(s, &ev)) == 1)
			NS_CHECK(strcmp(ev.action, "move"), "a second move of '%s'", ev.name);
		NS_CHECK(r == 0, "sys_event_read: %s", strerror(-r));
	}
	sys_close(s);
}

START_TEST(changes_by_another_tool_raise_events_of_their_kind)
{
	nst_run(outside_changes, NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("events_netns");
	TCase *tc = tcase_create("events_netns");
	tcase_add_test(tc, changes_by_another_tool_raise_events_of_their_kind);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
