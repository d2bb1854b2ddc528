// SPDX-License-Identifier: MIT
#include "node.h"

#include "linkfile.h"

#include <stdlib.h>
#include <string.h>

#include "devplugin.h"

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void rdma_fini(struct rdma *r)
{
	for (size_t i = 0; i < r->n_ports; i++) {
		struct port *p = &r->ports[i];
		free(p->state_name);
		free(p->phys_state_name);
		free(p->rate);
		free(p->link_layer);
	}
	free(r->ports);
	free(r->name);
	free(r->fw_ver);
	free(r->hca_type);
	free(r->board_id);
	free(r->parent);
}

static void fn_fini(struct fn *f)
{
	for (size_t i = 0; i < f->n_netdevs; i++) {
		struct netdev *nd = &f->netdevs[i];
		free(nd->name);
		free(nd->operstate);
		free(nd->address);
		strv_free(nd->altnames, nd->n_altnames);
	}
	free(f->netdevs);
	for (size_t i = 0; i < f->n_rdmas; i++)
		rdma_fini(&f->rdmas[i]);
	free(f->rdmas);
	free(f->driver);
}

void pod_binding_fini(struct pod_binding *b)
{
	if (!b)
		return;
	free(b->ns);
	free(b->name);
	free(b->uid);
	free(b->container);
	free(b->resource);
	free(b->network);
	free(b->ifname);
	free(b->host_ifname);
	free(b->guid);
	free(b->pkey);
	free(b->netns);
	free(b->container_id);
	free(b->in_pod.name);
	free(b->in_pod.operstate);
	free(b->in_pod.address);
	*b = (struct pod_binding){0};
}

void node_free(struct node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_pfs; i++) {
		struct pf *pf = &n->pfs[i];
		for (size_t j = 0; j < pf->n_vfs; j++) {
			struct vf *vf = &pf->vfs[j];
			fn_fini(&vf->fn);
			free(vf->admin.mac);
			free(vf->admin.mofed_policy);
			pod_binding_fini(vf->pod);
			free(vf->pod);
		}
		free(pf->vfs);
		fn_fini(&pf->fn);
	}
	free(n->pfs);
	for (size_t i = 0; i < n->n_orphans; i++)
		rdma_fini(&n->orphans[i]);
	free(n->orphans);
	for (size_t i = 0; i < n->n_pods_unplaced; i++)
		pod_binding_fini(&n->pods_unplaced[i]);
	free(n->pods_unplaced);
	for (size_t i = 0; i < n->n_kmsg; i++)
		free(n->kmsg[i].msg);
	free(n->kmsg);
	linkfile_free_all(n->link_files, n->n_link_files);
	free(n->persist_unit);
	free(n->persisted);
	for (size_t i = 0; i < n->n_cni_broken; i++) {
		free(n->cni_broken[i].path);
		free(n->cni_broken[i].why);
	}
	free(n->cni_broken);
	devplugin_free(n->dp_configs, n->n_dp_configs);
	strv_free(n->notes, n->n_notes);
	free(n->hostname);
	free(n->kernel);
	free(n->driver_version);
	free(n);
}

const struct pf *node_find_pf(const struct node *n, const char *bdf)
{
	for (size_t i = 0; i < n->n_pfs; i++)
		if (!strcmp(n->pfs[i].fn.bdf, bdf))
			return &n->pfs[i];
	return NULL;
}

const struct vf *node_find_vf(const struct node *n, const char *pf_bdf, unsigned int index)
{
	const struct pf *pf = node_find_pf(n, pf_bdf);
	for (size_t i = 0; pf && i < pf->n_vfs; i++)
		if (pf->vfs[i].index == index)
			return &pf->vfs[i];
	return NULL;
}

const struct fn *node_find_fn(const struct node *n, const char *bdf, const struct pf **ret_pf,
			      const struct vf **ret_vf)
{
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		const struct vf *vf = NULL;
		for (size_t j = 0; j < pf->n_vfs && !vf; j++)
			if (!strcmp(pf->vfs[j].fn.bdf, bdf))
				vf = &pf->vfs[j];
		if (!vf && strcmp(pf->fn.bdf, bdf))
			continue;
		if (ret_pf)
			*ret_pf = pf;
		if (ret_vf)
			*ret_vf = vf;
		return vf ? &vf->fn : &pf->fn;
	}
	return NULL;
}
