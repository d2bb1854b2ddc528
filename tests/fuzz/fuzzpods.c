// SPDX-License-Identifier: MIT
/* The pod-binding targets' scratch node and oracle (fuzzpods.h). */
#include "fuzzpods.h"

#include <string.h>

#include "core/model/node.h"
#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"
#include "core/sys/sys.h"
#include "fuzzutil.h"

#define PODLOG                                                                                     \
	"/var/log/pods/ml-training_trainer-1_a2b4c6d8-e0f2-4a6c-8e0a-2c4e6f8a0b22/trainer/0.log"

struct sys *fuzz_pods_sys(void)
{
	static struct sys *s;
	if (s)
		return s;
	struct err e;
	fuzz_write(fuzz_root(), PODLOG, (const uint8_t *)"", 0);
	if (sys_open_linux(fuzz_root(), &s, &e) < 0)
		fuzz_fail("%s", e.msg);
	return s;
}

static void check_str(const char *bdf, const char *what, const char *v)
{
	if (!v)
		return;
	size_t len = strlen(v);
	if (!len || len > 255)
		fuzz_fail("%s: %s of %zu bytes", bdf, what, len);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			fuzz_fail("%s: %s holds byte 0x%02x", bdf, what, *p);
}

void fuzz_pods_check(struct sys *s)
{
	struct pods_opts o = {.netns = PODS_NETNS_NEVER};
	struct pod_set set;
	if (pods_read(s, &o, &set) < 0)
		fuzz_fail("pods_read failed");
	for (size_t i = 0; i < set.n; i++) {
		const struct pod_binding *b = &set.v[i];
		char canon[16];
		if (!node_bdf_normalize(b->bdf, false, canon) || strcmp(canon, b->bdf))
			fuzz_fail("a binding to '%.16s', no canonical PCI address", b->bdf);
		if (i && strcmp(set.v[i - 1].bdf, b->bdf) >= 0)
			fuzz_fail("binding '%s' after '%s'", b->bdf, set.v[i - 1].bdf);
		if (!b->sources)
			fuzz_fail("%s: a binding no source names", b->bdf);
		if (b->stale && b->sources != POD_SRC_CHECKPOINT)
			fuzz_fail("%s: stale, yet sources %#x confirm it", b->bdf, b->sources);
		const char *f[] = {b->ns,	b->name,    b->uid,    b->container,
				   b->resource, b->network, b->ifname, b->host_ifname,
				   b->guid,	b->pkey,    b->netns,  b->container_id};
		const char *names[] = {"ns",	   "name",    "uid",	"container",
				       "resource", "network", "ifname", "host_ifname",
				       "guid",	   "pkey",    "netns",	"container_id"};
		for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++)
			check_str(b->bdf, names[j], f[j]);
	}
	for (size_t i = 0; i < set.n_broken; i++)
		if (!set.v && set.n)
			fuzz_fail("bindings without storage");
	pods_set_fini(&set);
}
