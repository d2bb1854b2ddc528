// SPDX-License-Identifier: MIT
/* node_resolve(): a PCI address (full or short), netdev, altname, RDMA device
 * or pod namespace/name to the PF, VF or unplaced RDMA device it names. */
#include "resolve.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/pods/pods.h"

static void ref_set(struct node_ref *ret, const struct pf *pf, const struct vf *vf,
		    const struct rdma *rd, enum node_name_kind how)
{
	const struct fn *f = vf ? &vf->fn : pf ? &pf->fn : NULL;
	*ret = (struct node_ref){.pf = pf, .vf = vf, .fn = f, .rdma = rd, .how = how};
	if (!rd && f && f->n_rdmas)
		ret->rdma = &f->rdmas[0];
}

/* Whether one of f's names of that kind is name; ret the netdev or RDMA
 * device that bears it. */
static bool fn_named(const struct fn *f, const char *name, enum node_name_kind kind,
		     struct node_ref *ret)
{
	for (size_t i = 0; kind != NODE_NAME_RDMA && i < f->n_netdevs; i++) {
		const struct netdev *nd = &f->netdevs[i];
		bool hit = kind == NODE_NAME_NETDEV && nd->name && !strcmp(nd->name, name);
		for (size_t j = 0; kind == NODE_NAME_ALTNAME && !hit && j < nd->n_altnames; j++)
			hit = !strcmp(nd->altnames[j], name);
		if (hit) {
			ret->netdev = nd;
			return true;
		}
	}
	for (size_t i = 0; kind == NODE_NAME_RDMA && i < f->n_rdmas; i++)
		if (f->rdmas[i].name && !strcmp(f->rdmas[i].name, name)) {
			ret->rdma = &f->rdmas[i];
			return true;
		}
	return false;
}

static bool find_named(const struct node *n, const char *name, enum node_name_kind kind,
		       struct node_ref *ret)
{
	struct node_ref hit = {0};
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		for (size_t j = 0; j <= pf->n_vfs; j++) {
			const struct vf *vf = j ? &pf->vfs[j - 1] : NULL;
			if (!fn_named(vf ? &vf->fn : &pf->fn, name, kind, &hit))
				continue;
			ref_set(ret, pf, vf, hit.rdma, kind);
			ret->netdev = hit.netdev;
			return true;
		}
	}
	for (size_t i = 0; kind == NODE_NAME_RDMA && i < n->n_orphans; i++) {
		const struct rdma *o = &n->orphans[i];
		if ((o->name && !strcmp(o->name, name)) ||
		    (o->parent && !strcmp(o->parent, name))) {
			ref_set(ret, NULL, NULL, o, kind);
			return true;
		}
	}
	return false;
}

static bool pod_is(const struct pod_binding *b, const char *name)
{
	size_t len = b && b->ns && b->name ? strlen(b->ns) : 0;
	return len && !strncmp(name, b->ns, len) && name[len] == '/' &&
	       !strcmp(name + len + 1, b->name);
}

/* The one VF the pod holds; several: -ENOTUNIQ, listed in e. */
static int find_pod(const struct node *n, const char *name, struct node_ref *ret, struct err *e)
{
	char list[256] = "";
	size_t count = 0, len = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			if (!pod_is(pods_holder(vf), name))
				continue;
			if (!count++)
				ref_set(ret, &n->pfs[i], vf, NULL, NODE_NAME_POD);
			if (len < sizeof(list))
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
							count > 1 ? ", " : "", vf->fn.bdf);
		}
	if (count > 1)
		return err_setx(e, ENOTUNIQ, "pod '%s' holds %zu VFs (%s): name one by PCI address",
				name, count, list);
	return count ? 0 : -ENODEV;
}

static int lookup(const struct node *n, const char *name, unsigned int kinds, struct node_ref *ret,
		  struct err *e)
{
	static const enum node_name_kind named[] = {NODE_NAME_NETDEV, NODE_NAME_ALTNAME,
						    NODE_NAME_RDMA};
	char bdf[16];
	const struct pf *pf;
	const struct vf *vf;
	if (!name || !*name)
		return -ENODEV;
	if (kinds & NODE_NAME_BDF && node_bdf_normalize(name, true, bdf) &&
	    node_find_fn(n, bdf, &pf, &vf)) {
		ref_set(ret, pf, vf, NULL, NODE_NAME_BDF);
		return 0;
	}
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (kinds & named[i] && find_named(n, name, named[i], ret))
			return 0;
	if (kinds & NODE_NAME_POD && strchr(name, '/'))
		return find_pod(n, name, ret, e);
	return -ENODEV;
}

int node_lookup(const struct node *n, const char *name, unsigned int kinds, struct node_ref *ret)
{
	return lookup(n, name, kinds, ret, NULL);
}

int node_resolve(const struct node *n, const char *name, struct node_ref *ret, struct err *e)
{
	/* The name goes into a message: control characters become '?'. */
	char shown[80];
	snprintf(shown, sizeof(shown), "%s", name ? name : "");
	for (char *p = shown; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	int r = lookup(n, name, NODE_NAME_ANY, ret, e);
	if (r == -ENODEV)
		return err_setx(e, ENODEV,
				"no PF or VF named '%s' on this node (tried PCI address, netdev, "
				"altname, RDMA device, pod)",
				shown);
	return r;
}
