// SPDX-License-Identifier: MIT
/* `ibvf bench`'s devices: a name the operator typed, placed in the node
 * model (bench_target: names, PF, VF index, port rate); a VF in a pod
 * refused unless forced. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench_cli.h"
#include "core/model/node.h"
#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"

static void target_from_fn(const struct fn *f, const struct rdma *rd, struct bench_target *t)
{
	snprintf(t->bdf, sizeof(t->bdf), "%s", f->bdf);
	snprintf(t->ibdev, sizeof(t->ibdev), "%s", rd ? rd->name : "");
	if (f->n_netdevs)
		snprintf(t->netdev, sizeof(t->netdev), "%s", f->netdevs[0].name);
	else if (rd && rd->parent)
		snprintf(t->netdev, sizeof(t->netdev), "%s", rd->parent);
	if (rd && rd->n_ports) {
		const struct port *p = &rd->ports[0];
		if (p->rate_mbps.known)
			t->rate_gbps = (double)p->rate_mbps.v / 1000.0;
		if (p->rate)
			snprintf(t->rate, sizeof(t->rate), "%s", p->rate);
	}
}

void bench_target_from_ref(const struct node_ref *ref, struct bench_target *t)
{
	static const struct fn none;
	const struct fn *f = ref->fn ? ref->fn : &none;
	memset(t, 0, sizeof(*t));
	t->vf_index = -1;
	t->rate_gbps = -1;
	target_from_fn(f, ref->rdma ? ref->rdma : f->n_rdmas ? &f->rdmas[0] : NULL, t);
	if (ref->vf) {
		snprintf(t->pf_bdf, sizeof(t->pf_bdf), "%s", ref->pf->fn.bdf);
		t->vf_index = (int)ref->vf->index;
	}
}

/* Places a device named as node_resolve() takes names; refuses a VF in a pod. */
int bench_cli_resolve(const struct node *n, const char *name, bool force, struct bench_target *t)
{
	struct node_ref ref;
	struct err e = {{0}};
	char pod[320];
	int r = node_resolve(n, name, &ref, &e);
	if (r < 0) {
		cli_error("%s", e.msg);
		return r;
	}
	if (ref.vf && pods_holder_label(ref.vf, pod, sizeof(pod)) && !force) {
		cli_error("VF %s is bound to pod '%s': benchmarking it would disturb the pod "
			  "(--force to run anyway)",
			  ref.vf->fn.bdf, pod);
		return -EBUSY;
	}
	bench_target_from_ref(&ref, t);
	if (!t->ibdev[0]) {
		cli_error("'%s' (%s) has no RDMA device", name, ref.fn ? ref.fn->bdf : "-");
		return -ENODEV;
	}
	return 0;
}

int bench_cli_resolve_status(int r)
{
	return r == -EBUSY ? 1 : EXIT_USAGE;
}
