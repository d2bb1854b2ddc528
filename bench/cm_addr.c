// SPDX-License-Identifier: MIT
/* rdma_cm's address on this side (bench/cm_addr.h): the device's netdevs
 * from sysfs, their IPv4 addresses from an rtnetlink dump (libnl-route),
 * and the rule that picks one or refuses --cm-addr. */
#include "bench/cm_addr.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/socket.h>

#include "bench/sysfile.h"
#include "core/model/attr.h"

/* A name safe to put in a path and a message: printable, no '/', not a
 * dot entry, shorter than size. */
static bool plain_name(const char *s, size_t size)
{
	size_t n = strnlen(s, size);
	if (n == 0 || n == size || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f || s[i] == '/')
			return false;
	return true;
}

/* Copies a name plain_name() took: shorter than IF_NAMESIZE. */
static void copy_name(char dst[IF_NAMESIZE], const char *src)
{
	size_t n = strnlen(src, IF_NAMESIZE - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void add_netdev(struct cm_local *l, const char *name)
{
	if (l->n_netdevs < CM_MAX_NETDEVS && plain_name(name, IF_NAMESIZE))
		copy_name(l->netdevs[l->n_netdevs++], name);
}

int cm_netdevs_read(const char *root, const char *ibdev, unsigned int port, struct cm_local *l,
		    struct err *e)
{
	memset(l, 0, sizeof(*l));
	if (!plain_name(ibdev, 64))
		return err_setx(e, EINVAL, "not an RDMA device name");
	char dir[512], path[640], buf[64];
	struct err ignored; /* a file that is not there: no dev_port, no parent */
	snprintf(dir, sizeof(dir), "%s/sys/class/infiniband/%s/device/net", root, ibdev);
	DIR *d = opendir(dir);
	if (d) {
		/* Each netdev with its dev_port: a two-port function has one per port. */
		char names[CM_MAX_NETDEVS][IF_NAMESIZE];
		long ports[CM_MAX_NETDEVS];
		size_t n = 0;
		struct dirent *de;
		while ((de = readdir(d)) && n < CM_MAX_NETDEVS) {
			if (!plain_name(de->d_name, IF_NAMESIZE))
				continue;
			copy_name(names[n], de->d_name);
			int len = snprintf(path, sizeof(path), "%s/%s/dev_port", dir, de->d_name);
			struct kval k = {0};
			if (len > 0 && (size_t)len < sizeof(path) &&
			    bench_read_line(path, buf, sizeof(buf), &ignored) == 0)
				k = attr_parse_int(buf);
			ports[n++] = k.known && k.v >= 0 ? (long)k.v : -1;
		}
		closedir(d);
		for (size_t i = 0; i < n; i++)
			if (n == 1 || ports[i] == (long)port - 1)
				add_netdev(l, names[i]);
	}
	if (l->n_netdevs == 0) {
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/parent", root, ibdev);
		if (bench_read_line(path, buf, sizeof(buf), &ignored) == 0)
			add_netdev(l, buf);
	}
	return 0;
}

int cm_addrs_read(struct cm_local *l, struct err *e)
{
	unsigned int ifindex[CM_MAX_NETDEVS];
	l->n_addrs = 0;
	for (size_t i = 0; i < l->n_netdevs; i++)
		ifindex[i] = if_nametoindex(l->netdevs[i]);
	if (l->n_netdevs == 0)
		return 0;
	struct nl_sock *sk = nl_socket_alloc();
	if (!sk)
		return err_setx(e, ENOMEM, "cannot allocate a netlink socket");
	struct nl_cache *cache = NULL;
	int r = nl_connect(sk, NETLINK_ROUTE);
	if (r == 0)
		r = rtnl_addr_alloc_cache(sk, &cache);
	if (r < 0) {
		nl_socket_free(sk);
		return err_setx(e, EIO, "cannot read the IPv4 addresses of %s: %s", l->netdevs[0],
				nl_geterror(r));
	}
	for (struct nl_object *o = nl_cache_get_first(cache); o && l->n_addrs < CM_MAX_ADDRS;
	     o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *)o;
		struct nl_addr *local = rtnl_addr_get_local(a);
		if (rtnl_addr_get_family(a) != AF_INET || !local || nl_addr_get_len(local) != 4)
			continue;
		for (size_t i = 0; i < l->n_netdevs; i++) {
			if (!ifindex[i] || (int)ifindex[i] != rtnl_addr_get_ifindex(a))
				continue;
			struct cm_addr *c = &l->addrs[l->n_addrs++];
			memcpy(c->ipv4, nl_addr_get_binary_addr(local), 4);
			c->netdev = (unsigned int)i;
			break;
		}
	}
	nl_cache_free(cache);
	nl_socket_free(sk);
	return 0;
}

int cm_local_read(const char *ibdev, unsigned int port, struct cm_local *l, struct err *e)
{
	int r = cm_netdevs_read("", ibdev, port, l, e);
	return r < 0 ? r : cm_addrs_read(l, e);
}

static void ipv4_text(const uint8_t a[4], char *buf, size_t size)
{
	snprintf(buf, size, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
}

void cm_local_describe(const struct cm_local *l, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < l->n_addrs && used < size; i++) {
		char ip[16];
		ipv4_text(l->addrs[i].ipv4, ip, sizeof(ip));
		int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", ip);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (!l->n_addrs)
		snprintf(buf, size, "none");
}

/* l's netdev names, "ib0" or "eth0, eth1", for messages. */
static void netdev_names(const struct cm_local *l, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < l->n_netdevs && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", l->netdevs[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static const struct cm_addr *find(const struct cm_local *l, const uint8_t a[4])
{
	for (size_t i = 0; i < l->n_addrs; i++)
		if (!memcmp(l->addrs[i].ipv4, a, 4))
			return &l->addrs[i];
	return NULL;
}

bool cm_local_has(const struct cm_local *l, const char *text)
{
	uint8_t a[4];
	return inet_pton(AF_INET, text, a) == 1 && find(l, a);
}

int cm_addr_choose(const struct cm_local *l, const char *ibdev, const char *want,
		   const uint8_t *gid_ipv4, uint8_t out[4], char *text, size_t size, struct err *e)
{
	char names[CM_MAX_NETDEVS * (IF_NAMESIZE + 2)], have[CM_MAX_ADDRS * 17];
	netdev_names(l, names, sizeof(names));
	cm_local_describe(l, have, sizeof(have));
	const struct cm_addr *pick = NULL;
	if (want) {
		uint8_t a[4];
		if (inet_pton(AF_INET, want, a) != 1)
			return err_setx(e, EINVAL, "--cm-addr wants an IPv4 address (rdma_cm's)");
		char ip[16];
		ipv4_text(a, ip, sizeof(ip));
		if (!l->n_netdevs)
			return err_setx(e, ENODEV,
					"--cm-addr %s: '%s' has no netdev (sysfs device/net/ or "
					"parent) to hold it",
					ip, ibdev);
		if (!(pick = find(l, a)) && !l->n_addrs)
			return err_setx(e, EADDRNOTAVAIL,
					"--cm-addr %s is not an address of '%s' (its netdev %s has "
					"no IPv4 address)",
					ip, ibdev, names);
		if (!pick)
			return err_setx(e, EADDRNOTAVAIL,
					"--cm-addr %s is not an address of '%s' (its netdev %s has "
					"%s)",
					ip, ibdev, names, have);
	} else if (gid_ipv4 && (pick = find(l, gid_ipv4))) {
		/* RoCE: the address of the GID the QPs use. */
	} else if (l->n_addrs) {
		pick = &l->addrs[0];
	} else if (gid_ipv4) {
		memcpy(out, gid_ipv4, 4);
		ipv4_text(out, text, size);
		return 0;
	} else if (l->n_netdevs) {
		return err_setx(e, EADDRNOTAVAIL,
				"'%s' has no IPv4 address on its netdev %s: rdma_cm needs one (on "
				"InfiniBand, an address on the IPoIB netdev)",
				ibdev, names);
	} else {
		return err_setx(e, EADDRNOTAVAIL,
				"'%s' has no netdev (sysfs device/net/ or parent) and no IPv4 "
				"address in its GID: rdma_cm needs one",
				ibdev);
	}
	memcpy(out, pick->ipv4, 4);
	ipv4_text(out, text, size);
	return 0;
}
