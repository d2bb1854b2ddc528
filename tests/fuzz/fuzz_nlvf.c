// SPDX-License-Identifier: MIT
/* The rtnetlink link parser (core/linux/nlvf.c) against any RTM_NEWLINK a
 * netlink socket could hand it. The harness keeps the caller's promise (the
 * message length lies within the buffer) and nothing else. Oracle: a message
 * that parses gives a named link whose VF list is bounded, sorted by VF
 * index and free of duplicates. */
#include <stdlib.h>
#include <string.h>

#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "core/linux/nlvf.h"
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_vfs(const struct sys_vf_info *v, size_t n)
{
	if (n > NLVF_VFS_MAX || (n && !v) || (!n && v))
		fuzz_fail("a VF list of %zu entries at %p", n, (const void *)v);
	for (size_t i = 1; i < n; i++)
		if (v[i].vf <= v[i - 1].vf)
			fuzz_fail("VF %u after VF %u", v[i].vf, v[i - 1].vf);
}

/* The message as the link dump sees it. */
static void parse_link(const uint8_t *data, size_t size)
{
	if (size < sizeof(struct nlmsghdr))
		return;
	struct nlmsghdr *h = malloc(size);
	if (!h)
		abort();
	memcpy(h, data, size);
	if (h->nlmsg_len > size)
		h->nlmsg_len = (uint32_t)size;
	struct sys_link l;
	if (nlvf_parse_link(h, &l) == 0) {
		if (!l.name[0] || !memchr(l.name, '\0', sizeof(l.name)))
			fuzz_fail("a link without a terminated name");
		if (l.addr_len > sizeof(l.addr) || l.n_altnames > SYS_ALTNAMES_MAX)
			fuzz_fail("address of %zu bytes, %zu altnames", l.addr_len, l.n_altnames);
		for (size_t i = 0; i < l.n_altnames; i++)
			if (!memchr(l.altnames[i], '\0', sizeof(l.altnames[i])))
				fuzz_fail("altname %zu not terminated", i);
		check_vfs(l.vfs, l.n_vfs);
		free(l.vfs);
	}
	free(h);
}

/* The same bytes as an IFLA_VFINFO_LIST nest on its own. */
static void parse_list(const uint8_t *data, size_t size)
{
	if (size < sizeof(struct nlattr) || size > 0xffff)
		return;
	struct nlattr *a = malloc(size);
	if (!a)
		abort();
	memcpy(a, data, size);
	if (a->nla_len > size)
		a->nla_len = (uint16_t)size;
	struct sys_vf_info *v = NULL;
	size_t n = 0;
	if (nlvf_parse_vfinfo_list(a, &v, &n) == 0) {
		check_vfs(v, n);
		free(v);
	}
	free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse_link(data, size);
	parse_list(data, size);
	return 0;
}
