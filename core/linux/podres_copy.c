// SPDX-License-Identifier: MIT
/* The kubelet's answers (protobuf-c's structs of api.proto) into struct
 * podres, every count and string bounded: what the peer sends is kept as
 * sent (the renderers escape it), but never more of it than core/sys/podres.h
 * says. */
#include "core/linux/podres_copy.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api.pb-c.h"
#include "core/sys/podres.h"

/* Kubernetes' own limits are lower (a DNS subdomain is 253); an ID has none,
 * so a generous one: an ID longer is dropped, never cut into another ID. */
#define NAME_LEN_MAX 253
#define ID_LEN_MAX   1024

/* One answer being copied: the device groups it kept so far. */
struct fill {
	struct podres *p;
	size_t groups;
};

/* s, cut at max bytes (at a UTF-8 boundary); *clipped set when cut. */
static char *text_dup(const char *s, size_t max, bool *clipped)
{
	s = s ? s : "";
	size_t n = strnlen(s, max + 1);
	if (n > max) {
		*clipped = true;
		n = max;
		while (n > 0 && ((uint8_t)s[n] & 0xc0) == 0x80)
			n--;
	}
	return strndup(s, n);
}

static int devices_copy(struct fill *f, const V1__ContainerDevices *in, struct podres_devices *ret)
{
	struct podres *p = f->p;
	if (!(ret->resource = text_dup(in->resource_name, NAME_LEN_MAX, &p->clipped)))
		return -ENOMEM;
	size_t n = in->n_device_ids;
	if (n > PODRES_IDS_MAX) {
		n = PODRES_IDS_MAX;
		p->truncated = true;
	}
	if (n && !(ret->ids = calloc(n, sizeof(*ret->ids))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *id = in->device_ids[i] ? in->device_ids[i] : "";
		if (strnlen(id, ID_LEN_MAX + 1) > ID_LEN_MAX) {
			p->truncated = true;
			continue;
		}
		if (!(ret->ids[ret->n_ids] = strdup(id)))
			return -ENOMEM;
		ret->n_ids++;
	}
	const V1__TopologyInfo *t = in->topology;
	size_t n_numa = t ? t->n_nodes : 0;
	if (n_numa > PODRES_NUMA_MAX) {
		n_numa = PODRES_NUMA_MAX;
		p->truncated = true;
	}
	if (n_numa && !(ret->numa = calloc(n_numa, sizeof(*ret->numa))))
		return -ENOMEM;
	for (size_t i = 0; i < n_numa; i++)
		if (t->nodes[i])
			ret->numa[ret->n_numa++] = t->nodes[i]->id;
	return 0;
}

/* The device groups of in, as many as the answer's bound leaves. */
static int groups_copy(struct fill *f, V1__ContainerDevices *const *in, size_t n_in,
		       struct podres_devices **ret, size_t *ret_n)
{
	size_t n = n_in;
	if (n > PODRES_DEVICES_MAX - f->groups) {
		n = PODRES_DEVICES_MAX - f->groups;
		f->p->truncated = true;
	}
	if (!n)
		return 0;
	if (!(*ret = calloc(n, sizeof(**ret))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!in[i])
			continue;
		/* Counted as it is filled: podres_fini frees what a failure left. */
		(*ret_n)++;
		f->groups++;
		int r = devices_copy(f, in[i], &(*ret)[*ret_n - 1]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int pod_copy(struct fill *f, const V1__PodResources *in, struct podres_pod *ret)
{
	struct podres *p = f->p;
	if (!(ret->ns = text_dup(in->namespace_, NAME_LEN_MAX, &p->clipped)) ||
	    !(ret->name = text_dup(in->name, NAME_LEN_MAX, &p->clipped)))
		return -ENOMEM;
	size_t n = in->n_containers;
	if (n > PODRES_CTRS_MAX) {
		n = PODRES_CTRS_MAX;
		p->truncated = true;
	}
	if (n && !(ret->ctrs = calloc(n, sizeof(*ret->ctrs))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const V1__ContainerResources *ci = in->containers[i];
		if (!ci)
			continue;
		struct podres_container *co = &ret->ctrs[ret->n_ctrs++];
		int r;
		if (!(co->name = text_dup(ci->name, NAME_LEN_MAX, &p->clipped)))
			return -ENOMEM;
		if ((r = groups_copy(f, ci->devices, ci->n_devices, &co->devs, &co->n_devs)) < 0)
			return r;
	}
	return 0;
}

int podres_copy_list(struct podres *p, const V1__ListPodResourcesResponse *in)
{
	struct fill fill = {p, 0}, *f = &fill;
	size_t n = in->n_pod_resources;
	if (n > PODRES_PODS_MAX) {
		n = PODRES_PODS_MAX;
		p->truncated = true;
	}
	if (n && !(p->pods = calloc(n, sizeof(*p->pods))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!in->pod_resources[i])
			continue;
		int r = pod_copy(f, in->pod_resources[i], &p->pods[p->n_pods++]);
		if (r < 0)
			return r;
	}
	return 0;
}

int podres_copy_alloc(struct podres *p, const V1__AllocatableResourcesResponse *in)
{
	struct fill f = {p, 0};
	return groups_copy(&f, in->devices, in->n_devices, &p->alloc, &p->n_alloc);
}
