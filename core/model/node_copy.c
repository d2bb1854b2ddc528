// SPDX-License-Identifier: MIT
/* Deep copies of snapshot parts, for the incremental rebuild (refresh.c). */
#include "node_copy.h"

#include <stdlib.h>
#include <string.h>

char *node_copy_str(const char *s, bool *fail)
{
	if (!s)
		return NULL;
	char *c = strdup(s);
	if (!c)
		*fail = true;
	return c;
}

/* A zeroed array of n elements, or NULL (n is 0, or out of memory: *fail). */
void *node_copy_array(size_t n, size_t size, bool *fail)
{
	if (!n)
		return NULL;
	void *p = calloc(n, size);
	if (!p)
		*fail = true;
	return p;
}

/* Each copy starts from the source and then replaces every pointer with one
 * of its own (NULL when out of memory), so node_free() can free a partial
 * copy and never touches the source. */
static void node_copy_port(struct port *dst, const struct port *src, bool *fail)
{
	*dst = *src;
	dst->state_name = node_copy_str(src->state_name, fail);
	dst->phys_state_name = node_copy_str(src->phys_state_name, fail);
	dst->rate = node_copy_str(src->rate, fail);
	dst->link_layer = node_copy_str(src->link_layer, fail);
}

static void node_copy_rdma(struct rdma *dst, const struct rdma *src, bool *fail)
{
	*dst = *src;
	dst->name = node_copy_str(src->name, fail);
	dst->fw_ver = node_copy_str(src->fw_ver, fail);
	dst->hca_type = node_copy_str(src->hca_type, fail);
	dst->board_id = node_copy_str(src->board_id, fail);
	dst->parent = node_copy_str(src->parent, fail);
	dst->n_ports = 0;
	dst->ports = node_copy_array(src->n_ports, sizeof(*dst->ports), fail);
	for (size_t i = 0; dst->ports && i < src->n_ports; i++)
		node_copy_port(&dst->ports[dst->n_ports++], &src->ports[i], fail);
}

char **node_copy_strv(char *const *v, size_t n, size_t *ret_n, bool *fail)
{
	char **c = node_copy_array(n, sizeof(*c), fail);
	*ret_n = 0;
	for (size_t i = 0; c && i < n; i++)
		c[(*ret_n)++] = node_copy_str(v[i], fail);
	return c;
}

static void node_copy_netdev(struct netdev *dst, const struct netdev *src, bool *fail)
{
	*dst = *src;
	dst->name = node_copy_str(src->name, fail);
	dst->operstate = node_copy_str(src->operstate, fail);
	dst->address = node_copy_str(src->address, fail);
	dst->altnames = node_copy_strv(src->altnames, src->n_altnames, &dst->n_altnames, fail);
}

void node_copy_fn(struct fn *dst, const struct fn *src, bool *fail)
{
	*dst = *src;
	dst->driver = node_copy_str(src->driver, fail);
	dst->devpath = node_copy_str(src->devpath, fail);
	dst->n_netdevs = 0;
	dst->netdevs = node_copy_array(src->n_netdevs, sizeof(*dst->netdevs), fail);
	for (size_t i = 0; dst->netdevs && i < src->n_netdevs; i++)
		node_copy_netdev(&dst->netdevs[dst->n_netdevs++], &src->netdevs[i], fail);
	dst->n_rdmas = 0;
	dst->rdmas = node_copy_array(src->n_rdmas, sizeof(*dst->rdmas), fail);
	for (size_t i = 0; dst->rdmas && i < src->n_rdmas; i++)
		node_copy_rdma(&dst->rdmas[dst->n_rdmas++], &src->rdmas[i], fail);
}

/* What the PF's netlink dump says of a VF (the MOFED part is left as is). */
void node_copy_vf_admin_netlink(struct vf_admin *dst, const struct vf_admin *src, bool *fail)
{
	free(dst->mac);
	dst->netlink_known = src->netlink_known;
	dst->mac = node_copy_str(src->mac, fail);
	dst->vlan = src->vlan;
	dst->spoofchk = src->spoofchk;
	dst->trust = src->trust;
	dst->link_state = src->link_state;
	dst->max_tx_rate = src->max_tx_rate;
	dst->node_guid = src->node_guid;
	dst->port_guid = src->port_guid;
}

static bool kval_eq(struct kval a, struct kval b)
{
	return a.known == b.known && (!a.known || a.v == b.v);
}

static bool kguid_eq(struct kguid a, struct kguid b)
{
	return a.known == b.known && (!a.known || a.v == b.v);
}

bool node_vf_admin_netlink_eq(const struct vf_admin *a, const struct vf_admin *b)
{
	return a->netlink_known == b->netlink_known &&
	       (a->mac && b->mac ? !strcmp(a->mac, b->mac) : a->mac == b->mac) &&
	       kval_eq(a->vlan, b->vlan) && kval_eq(a->spoofchk, b->spoofchk) &&
	       kval_eq(a->trust, b->trust) && kval_eq(a->link_state, b->link_state) &&
	       kval_eq(a->max_tx_rate, b->max_tx_rate) && kguid_eq(a->node_guid, b->node_guid) &&
	       kguid_eq(a->port_guid, b->port_guid);
}

/* A VF without its pod binding: pods_attach() binds the new snapshot afresh. */
void node_copy_vf(struct vf *dst, const struct vf *src, bool *fail)
{
	*dst = *src;
	dst->pod = NULL;
	node_copy_fn(&dst->fn, &src->fn, fail);
	dst->admin.mac = node_copy_str(src->admin.mac, fail);
	dst->admin.mofed_policy = node_copy_str(src->admin.mofed_policy, fail);
}

static void node_copy_gpu(struct gpu *dst, const struct gpu *src, bool *fail)
{
	*dst = *src;
	dst->devpath = node_copy_str(src->devpath, fail);
	dst->driver = node_copy_str(src->driver, fail);
	dst->model = node_copy_str(src->model, fail);
	dst->uuid = node_copy_str(src->uuid, fail);
	dst->migs = node_copy_strv(src->migs, src->n_migs, &dst->n_migs, fail);
}

void node_copy_gpus(struct node *dst, const struct node *src, bool *fail)
{
	dst->n_gpus = 0;
	dst->gpus = node_copy_array(src->n_gpus, sizeof(*dst->gpus), fail);
	for (size_t i = 0; dst->gpus && i < src->n_gpus; i++)
		node_copy_gpu(&dst->gpus[dst->n_gpus++], &src->gpus[i], fail);
}
