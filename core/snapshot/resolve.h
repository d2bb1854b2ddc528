/* SPDX-License-Identifier: MIT */
/* From what a user types to a function of the node: the one resolver every
 * command, the console and the benchmark use. */
#pragma once

#include "core/model/node.h"

/* The forms a name can take, in the order they are tried. */
enum node_name_kind {
	NODE_NAME_BDF = 1u << 0,     /* 0000:18:00.2 or 18:00.2, any case */
	NODE_NAME_NETDEV = 1u << 1,  /* ib0, ibp24s0f2 */
	NODE_NAME_ALTNAME = 1u << 2, /* a netdev's alternative name */
	NODE_NAME_RDMA = 1u << 3,    /* mlx5_0; rxe0, or the parent netdev of one on no function */
	NODE_NAME_POD = 1u << 4,     /* namespace/name of the pod holding one VF */
	NODE_NAME_ANY = (1u << 5) - 1,
};

/* What a name resolved to. */
struct node_ref {
	const struct pf *pf;	 /* NULL: an RDMA device placed on no PCI function */
	const struct vf *vf;	 /* NULL: the PF itself (or no function) */
	const struct fn *fn;	 /* &vf->fn or &pf->fn; NULL with pf */
	const struct rdma *rdma; /* the RDMA device named, else the function's first, else NULL */
	const struct netdev *netdev; /* the netdev named (by its name or an altname), else NULL */
	enum node_name_kind how;     /* the form that matched */
};

/* Finds the PF or VF (or unplaced RDMA device) that name designates, trying
 * every form. Returns 0, -ENODEV (nothing has that name) or -ENOTUNIQ (a pod
 * holding several VFs: they are listed) with one message in e. */
int node_resolve(const struct node *n, const char *name, struct node_ref *ret, struct err *e);

/* The same, limited to the forms in kinds (enum node_name_kind bits) and
 * without a message: 0, -ENODEV or -ENOTUNIQ. */
int node_lookup(const struct node *n, const char *name, unsigned int kinds, struct node_ref *ret);
