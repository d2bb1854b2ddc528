/* SPDX-License-Identifier: MIT */
/* Tests against the running kernel in private network namespaces.
 *
 * nst_run forks a child that does the work; the child does not use Check's
 * assertions: NS_CHECK writes the first failure into a pipe and exits 1, and
 * the test process asserts on that, so the namespaces never leak into the
 * runner, whatever CK_FORK says. */
#pragma once

#include <stdbool.h>

struct nl_sock;

void nst_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

#define NS_CHECK(cond, ...)                                                                        \
	do {                                                                                       \
		if (!(cond))                                                                       \
			nst_fail(__FILE__, __LINE__, __VA_ARGS__);                                 \
	} while (0)

/* Runs in the child before it exits on a failure (say, to delete a netns). */
void nst_on_fail(void (*fn)(void));

enum {
	NST_SYSFS = 1 << 0,   /* a fresh sysfs: /sys shows the child's links */
	NST_VAR_LIB = 1 << 1, /* a tmpfs on /var/lib (the journal) */
};
/* Enters new network and mount namespaces (/ made private), then FLAGS. */
void nst_enter(unsigned int flags);

/* A connected rtnetlink socket in the current namespace. */
struct nl_sock *nst_socket(void);
/* The veth pair A <-> B, both down. */
void nst_veth(const char *a, const char *b);
void nst_set_up(const char *name);
void nst_set_mtu(const char *name, unsigned int mtu);
/* `ip link property add dev IF altname NAME`, which libnl 3.7 lacks. */
void nst_altname(const char *ifname, const char *altname);
/* IFF_UP in /sys/class/net/NAME/flags (needs NST_SYSFS). */
bool nst_link_up(const char *name);

/* Runs fn(arg) in a forked child, which exits 0 when fn returns, and asserts
 * in the test process that it did, with the child's message otherwise.
 * Returns false, having printed why, when not root (nothing ran). */
bool nst_run(void (*fn)(void *), void *arg);
