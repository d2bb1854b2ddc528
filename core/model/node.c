// SPDX-License-Identifier: MIT
#include "node.h"

#include <ctype.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devplugin_config.h"
#include "names.h"

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void linkfile_fini(struct link_file *lf)
{
	if (!lf)
		return;
	free(lf->path);
	strv_free(lf->match_path, lf->n_match_path);
	strv_free(lf->match_original_name, lf->n_match_original_name);
	strv_free(lf->match_mac, lf->n_match_mac);
	strv_free(lf->match_permanent_mac, lf->n_match_permanent_mac);
	strv_free(lf->match_driver, lf->n_match_driver);
	free(lf->name);
	free(lf->name_policy);
	*lf = (struct link_file){0};
}

void linkfile_free_all(struct link_file *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		linkfile_fini(&v[i]);
	free(v);
}

bool node_bdf_normalize(const char *in, bool short_ok, char out[static 16])
{
	static const char shape[] = "xxxx:xx:xx.x";
	char full[16];
	if (!in)
		return false;
	/* "18:00.1" is "0000:18:00.1": the domain is almost always 0. */
	if (short_ok && strlen(in) == sizeof(shape) - 1 - 5) {
		snprintf(full, sizeof(full), "0000:%s", in);
		in = full;
	}
	if (strlen(in) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++) {
		if (shape[i] == 'x' ? !isxdigit((unsigned char)in[i]) : in[i] != shape[i])
			return false;
		out[i] = (char)tolower((unsigned char)in[i]);
	}
	out[sizeof(shape) - 1] = '\0';
	return (unsigned char)out[11] <= '7'; /* PCI function 0-7 */
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
	free(f->devpath);
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
	free(b->api_container);
	free(b->api_resource);
	free(b->api_pod);
	*b = (struct pod_binding){0};
}

void pod_gpu_fini(struct pod_gpu *g)
{
	if (!g)
		return;
	free(g->ns);
	free(g->name);
	free(g->uid);
	free(g->container);
	free(g->resource);
	free(g->id);
	memset(g, 0, sizeof(*g));
}

void *node_arr_grow(void *arr_ptr, size_t *n, size_t sz)
{
	void **arr = arr_ptr;
	char *na = realloc(*arr, (*n + 1) * sz);
	if (!na)
		return NULL;
	*arr = na;
	memset(na + *n * sz, 0, sz);
	return na + (*n)++ * sz;
}

bool node_pod_gpu_held(const struct pod_binding *b, const struct pod_gpu *g)
{
	if (!b || !g)
		return false;
	if (b->uid && g->uid)
		return !strcmp(b->uid, g->uid);
	return b->ns && b->name && g->ns && g->name && !strcmp(b->ns, g->ns) &&
	       !strcmp(b->name, g->name);
}

enum topo_class node_pod_gpu_nearest(const struct node *n, const struct pod_binding *b,
				     const struct fn *fn, const struct gpu **ret)
{
	enum topo_class best = TOPO_UNKNOWN;
	*ret = NULL;
	for (size_t i = 0; b && i < n->n_pod_gpus; i++) {
		const struct pod_gpu *g = &n->pod_gpus[i];
		if (g->gpu < 0 || (size_t)g->gpu >= n->n_gpus || !node_pod_gpu_held(b, g))
			continue;
		const struct gpu *gpu = &n->gpus[g->gpu];
		enum topo_class c = topo_class(fn->devpath, fn->numa.known ? fn->numa.v : -1,
					       gpu->devpath, gpu->numa);
		if (c != TOPO_UNKNOWN && (best == TOPO_UNKNOWN || c < best)) {
			best = c;
			*ret = gpu;
		}
	}
	return best;
}

const struct pod_gpu *node_pod_gpu_of(const struct node *n, const struct pod_binding *b,
				      const struct gpu *gpu)
{
	for (size_t i = 0; gpu && i < n->n_pod_gpus; i++)
		if (n->pod_gpus[i].gpu == (int)(gpu - n->gpus) &&
		    node_pod_gpu_held(b, &n->pod_gpus[i]))
			return &n->pod_gpus[i];
	return NULL;
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
	free(n->boot_unit.path);
	free(n->boot_unit.enabled_by);
	free(n->boot_unit.error);
	free(n->boot_unit.bad_exec);
	free(n->boot_unit.bad_exec_file);
	free(n->persisted);
	free(n->persisted_guids);
	for (size_t i = 0; i < n->n_cni_broken; i++) {
		free(n->cni_broken[i].path);
		free(n->cni_broken[i].why);
	}
	free(n->cni_broken);
	devplugin_free(n->dp_configs, n->n_dp_configs);
	free(n->op_claims);
	strv_free(n->op_pods, n->n_op_pods);
	for (size_t i = 0; i < n->n_gpus; i++)
		gpu_fini(&n->gpus[i]);
	free(n->gpus);
	for (size_t i = 0; i < n->n_pod_gpus; i++)
		pod_gpu_fini(&n->pod_gpus[i]);
	free(n->pod_gpus);
	podres_fini(&n->podres);
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

const struct rdma *fn_rdma(const struct fn *f)
{
	return f && f->n_rdmas ? &f->rdmas[0] : NULL;
}

const struct port *fn_port(const struct fn *f)
{
	const struct rdma *r = fn_rdma(f);
	return r && r->n_ports ? &r->ports[0] : NULL;
}

static bool port_link_layer_is(const struct port *p, enum link_layer layer)
{
	return p && p->link_layer && link_layer_from_string(p->link_layer) == (int)layer;
}

bool port_is_ib(const struct port *p)
{
	return port_link_layer_is(p, LINK_LAYER_INFINIBAND);
}

bool port_is_eth(const struct port *p)
{
	return port_link_layer_is(p, LINK_LAYER_ETHERNET);
}

bool fn_is_ib(const struct fn *f)
{
	return port_is_ib(fn_port(f));
}

bool fn_is_eth(const struct fn *f)
{
	return port_is_eth(fn_port(f));
}

bool netdev_is_ib(const struct netdev *nd)
{
	return nd && nd->type.known && nd->type.v == ARPHRD_INFINIBAND;
}

const char *vf_host_name(const struct vf *vf)
{
	if (vf->fn.n_netdevs)
		return vf->fn.netdevs[0].name;
	if (vf->pod && vf->pod->host_ifname && *vf->pod->host_ifname)
		return vf->pod->host_ifname;
	return NULL;
}

int vf_link_state_of(const struct vf *vf)
{
	if (!vf)
		return -1;
	if (vf->admin.link_state.known && vf_link_state_to_string(vf->admin.link_state.v))
		return (int)vf->admin.link_state.v;
	int r = vf->admin.mofed_policy ? vf_link_policy_from_string(vf->admin.mofed_policy) : -1;
	return r < 0 ? -1 : r;
}
