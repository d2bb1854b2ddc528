// SPDX-License-Identifier: MIT
#include "nstest.h"

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <net/if.h> /* before the linux/ headers, which then skip IFF_UP and co */
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>

static int report_fd = -1;
static void (*on_fail)(void);

void nst_on_fail(void (*fn)(void))
{
	on_fail = fn;
}

void nst_fail(const char *file, int line, const char *fmt, ...)
{
	const char *base = strrchr(file, '/');
	char msg[1024];
	int n = snprintf(msg, sizeof(msg), "%s:%d: ", base ? base + 1 : file, line);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (on_fail)
		on_fail();
	if (report_fd < 0 || write(report_fd, msg, strlen(msg)) < 0)
		fprintf(stderr, "%s\n", msg);
	_exit(1);
}

void nst_enter(unsigned int flags)
{
	NS_CHECK(unshare(CLONE_NEWNET | CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
	NS_CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, "make / private: %s",
		 strerror(errno));
	if (flags & NST_SYSFS)
		NS_CHECK(mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) ==
				 0,
			 "mount sysfs: %s", strerror(errno));
	if (flags & NST_VAR_LIB)
		NS_CHECK(mount("tmpfs", "/var/lib", "tmpfs", 0, NULL) == 0, "tmpfs on /var/lib: %s",
			 strerror(errno));
}

struct nl_sock *nst_socket(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	NS_CHECK(sk != NULL, "nl_socket_alloc");
	NS_CHECK(nl_connect(sk, NETLINK_ROUTE) == 0, "nl_connect");
	return sk;
}

void nst_veth(const char *a, const char *b)
{
	struct nl_sock *sk = nst_socket();
	int r = rtnl_link_veth_add(sk, a, b, getpid());
	NS_CHECK(r == 0, "veth %s <-> %s: %s", a, b, nl_geterror(r));
	nl_socket_free(sk);
}

/* Applies the attributes set in ch (freed here) to the link NAME. */
static void change(const char *name, struct rtnl_link *ch, const char *what)
{
	struct nl_sock *sk = nst_socket();
	struct rtnl_link *orig = NULL;
	NS_CHECK(ch != NULL, "rtnl_link_alloc");
	int r = rtnl_link_get_kernel(sk, 0, name, &orig);
	NS_CHECK(r == 0, "no link '%s': %s", name, nl_geterror(r));
	r = rtnl_link_change(sk, orig, ch, 0);
	NS_CHECK(r == 0, "%s on '%s': %s", what, name, nl_geterror(r));
	rtnl_link_put(orig);
	rtnl_link_put(ch);
	nl_socket_free(sk);
}

void nst_set_up(const char *name)
{
	struct rtnl_link *ch = rtnl_link_alloc();
	if (ch)
		rtnl_link_set_flags(ch, IFF_UP);
	change(name, ch, "set up");
}

void nst_set_mtu(const char *name, unsigned int mtu)
{
	struct rtnl_link *ch = rtnl_link_alloc();
	if (ch)
		rtnl_link_set_mtu(ch, mtu);
	change(name, ch, "set MTU");
}

void nst_altname(const char *ifname, const char *altname)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = (int)if_nametoindex(ifname)};
	struct nl_sock *sk = nst_socket();
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINKPROP, NLM_F_CREATE | NLM_F_APPEND);
	struct nlattr *props;

	NS_CHECK(ifi.ifi_index > 0, "no '%s'", ifname);
	NS_CHECK(m && nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) == 0, "nlmsg_append");
	NS_CHECK((props = nla_nest_start(m, IFLA_PROP_LIST)) != NULL, "nest");
	NS_CHECK(nla_put_string(m, IFLA_ALT_IFNAME, altname) == 0, "put altname");
	nla_nest_end(m, props);
	int r = nl_send_sync(sk, m);
	NS_CHECK(r == 0, "add altname '%s' to '%s': %s", altname, ifname, nl_geterror(r));
	nl_socket_free(sk);
}

bool nst_link_up(const char *name)
{
	char path[128], buf[32] = "";
	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", name);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtoul(buf, NULL, 0) & IFF_UP;
}

bool nst_run(void (*fn)(void *), void *arg)
{
	char msg[1024] = "";
	size_t len = 0;
	int p[2], status;

	if (geteuid() != 0) {
		printf("SKIP: needs root to make network namespaces\n");
		return false;
	}
	ck_assert_int_eq(pipe(p), 0);
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		report_fd = p[1];
		fn(arg);
		exit(0); /* exit, not _exit: LeakSanitizer runs at exit */
	}
	close(p[1]);
	for (ssize_t n;
	     len < sizeof(msg) - 1 && (n = read(p[0], msg + len, sizeof(msg) - 1 - len));) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		len += (size_t)n;
	}
	msg[len] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "netns child %s %d: %s",
		      WIFEXITED(status) ? "exited with" : "killed by signal",
		      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		      *msg ? msg : "(no message; see stderr)");
	return true;
}
