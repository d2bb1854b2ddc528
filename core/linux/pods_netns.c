// SPDX-License-Identifier: MIT
/* A VF moved into a pod is gone from the host's namespace: read it from inside
 * the pod's netns. setns() changes the namespace of the calling thread only,
 * so it happens in a short-lived helper thread and the caller's thread (the
 * console's poll loop, say) never leaves the host namespace. */
#include "core/pods/pods.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sys/sys.h"

#define IPOIB_ADDR_LEN 20

struct netns_job {
	struct sys *s;
	const char *netns, *ifname;
	bool guid_known;
	uint64_t guid;
	struct sys_link link; /* the match, copied out of the dump */
	int r;
};

static bool link_has_guid(const struct sys_link *l, uint64_t guid)
{
	if (l->addr_len != IPOIB_ADDR_LEN)
		return false;
	uint64_t g = 0;
	for (int i = 12; i < 20; i++)
		g = (g << 8) | l->addr[i];
	return g == guid;
}

static bool link_has_name(const struct sys_link *l, const char *name)
{
	if (!strcmp(l->name, name))
		return true;
	for (size_t i = 0; i < l->n_altnames; i++)
		if (!strcmp(l->altnames[i], name))
			return true;
	return false;
}

static int find_link(struct netns_job *j)
{
	struct sys_link *links;
	size_t n;
	struct err e;
	int r = sys_link_dump(j->s, &links, &n, &e);
	if (r < 0)
		return r;
	const struct sys_link *hit = NULL;
	for (size_t i = 0; j->ifname && !hit && i < n; i++)
		if (link_has_name(&links[i], j->ifname))
			hit = &links[i];
	for (size_t i = 0; j->guid_known && !hit && i < n; i++)
		if (link_has_guid(&links[i], j->guid))
			hit = &links[i];
	if (hit) {
		j->link = *hit;
		j->link.vfs = NULL;
		j->link.n_vfs = 0;
	}
	sys_links_free(links, n);
	return hit ? 0 : -ENODEV;
}

static void *netns_thread(void *arg)
{
	struct netns_job *j = arg;
	int fd = open(j->netns, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		j->r = -errno;
		return NULL;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		j->r = -errno;
		close(fd);
		return NULL;
	}
	close(fd);
	j->r = find_link(j);
	return NULL;
}

static const char *operstate_name(int op)
{
	static const char *const names[] = {
		[IF_OPER_UNKNOWN] = "unknown", [IF_OPER_NOTPRESENT] = "notpresent",
		[IF_OPER_DOWN] = "down",       [IF_OPER_LOWERLAYERDOWN] = "lowerlayerdown",
		[IF_OPER_TESTING] = "testing", [IF_OPER_DORMANT] = "dormant",
		[IF_OPER_UP] = "up",
	};
	if (op < 0 || (size_t)op >= sizeof(names) / sizeof(names[0]))
		return NULL;
	return names[op];
}

/* "a0:88:c2:..." as sysfs prints an address. */
static char *format_addr(const uint8_t *addr, size_t len)
{
	if (len == 0 || len > sizeof(((struct sys_link *)0)->addr))
		return NULL;
	char *buf = malloc(len * 3);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < len; i++)
		snprintf(buf + i * 3, 4, "%02x%s", addr[i], i + 1 < len ? ":" : "");
	return buf;
}

/* PROC_PID_INIT_INO: the initial PID namespace's inode, fixed by the kernel. */
#define PID_NS_INIT "pid:[4026531836]"

bool pods_in_node_pidns(void)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return !strcmp(link, PID_NS_INIT);
}

int pods_netns_read(struct sys *s, const char *netns, const char *ifname, bool guid_known,
		    uint64_t guid, struct pod_netif *ret)
{
	struct netns_job j = {
		.s = s, .netns = netns, .ifname = ifname, .guid_known = guid_known, .guid = guid};
	if (!netns || netns[0] != '/' || (!ifname && !guid_known))
		return -EINVAL;
	pthread_t t;
	int r = pthread_create(&t, NULL, netns_thread, &j);
	if (r)
		return -r;
	pthread_join(t, NULL);
	if (j.r < 0)
		return j.r;

	struct pod_netif nif = {
		.known = true,
		.ifindex = {true, j.link.ifindex},
		.flags = {true, j.link.flags},
		.mtu = {true, j.link.mtu},
	};
	const char *op = operstate_name(j.link.operstate);
	if (!(nif.name = strdup(j.link.name)) || (op && !(nif.operstate = strdup(op)))) {
		free(nif.name);
		return -ENOMEM;
	}
	nif.address = format_addr(j.link.addr, j.link.addr_len);
	*ret = nif;
	return 0;
}
