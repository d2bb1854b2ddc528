// SPDX-License-Identifier: MIT
/* The kubelet's pod-resources API merged into the bindings the files give:
 * the API is authoritative for what runs now (a binding it confirms gets
 * POD_SRC_API; a checkpoint entry it does not list is stale whatever the pod
 * log directories say), the files add what it cannot say (netns, interface
 * names, the CNI's view). A VF the API gives to another pod than the files
 * name keeps the files' binding with the API's pod beside it (api_pod), for
 * the pod checks to show both sides. The GPUs pods hold come from the API,
 * else from the checkpoint entries of pods a pod log directory confirms. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pods_impl.h"
#include "core/sys/sys.h"

#define GPUS_MAX 4096 /* GPU allocations kept: far more than a node has */

bool pods_gpu_resource(const char *resource)
{
	return resource && !strncmp(resource, "nvidia.com/", 11) &&
	       (!strcmp(resource + 11, "gpu") || !strncmp(resource + 11, "mig-", 4));
}

static struct pod_gpu *gpu_add(struct pods_ctx *c, struct pod_gpu **v, size_t *n)
{
	if (*n >= GPUS_MAX)
		return NULL;
	struct pod_gpu *nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv) {
		c->err = -ENOMEM;
		return NULL;
	}
	*v = nv;
	struct pod_gpu *g = &nv[(*n)++];
	memset(g, 0, sizeof(*g));
	g->gpu = -1;
	return g;
}

static void dup_to(struct pods_ctx *c, char **field, const char *v)
{
	if (v && !(*field = strdup(v)))
		c->err = -ENOMEM;
}

void pods_ckpt_gpu(struct pods_ctx *c, const char *uid, const char *container, const char *resource,
		   const char *id)
{
	struct pod_gpu *g = gpu_add(c, &c->ckpt_gpus, &c->n_ckpt_gpus);
	if (!g)
		return;
	g->sources = POD_SRC_CHECKPOINT;
	dup_to(c, &g->uid, uid);
	dup_to(c, &g->container, container);
	dup_to(c, &g->resource, resource);
	dup_to(c, &g->id, id);
}

static bool same_name(const char *ns, const char *name, const struct pod_binding *b)
{
	return b->ns && b->name && ns && name && !strcmp(b->ns, ns) && !strcmp(b->name, name);
}

static struct pod_binding *find_binding(struct pods_ctx *c, const char *bdf)
{
	for (size_t i = 0; i < c->set->n; i++)
		if (!strcmp(c->set->v[i].bdf, bdf))
			return &c->set->v[i];
	return NULL;
}

/* The UID the files give pod ns/name (a binding or a pod log), or NULL. */
static const char *uid_of(const struct pods_ctx *c, const char *ns, const char *name)
{
	for (size_t i = 0; i < c->set->n; i++)
		if (c->set->v[i].uid && same_name(ns, name, &c->set->v[i]))
			return c->set->v[i].uid;
	const struct podlog *l = pods_find_podlog(c, NULL, ns, name);
	return l ? l->uid : NULL;
}

static void api_vf(struct pods_ctx *c, const struct podres_pod *p,
		   const struct podres_container *ct, const struct podres_devices *d,
		   const char *bdf)
{
	struct pod_binding *b = find_binding(c, bdf);
	if (!b && !(b = pods_binding(c, bdf)))
		return;
	if (b->ns && b->name && !same_name(p->ns, p->name, b)) {
		char who[2 * 256 + 2];
		snprintf(who, sizeof(who), "%s/%s", p->ns ? p->ns : "?", p->name ? p->name : "?");
		if (!b->api_pod)
			dup_to(c, &b->api_pod, who);
		return;
	}
	b->sources |= POD_SRC_API;
	pods_set_str(c, &b->ns, pods_value_ok(p->ns));
	pods_set_str(c, &b->name, pods_value_ok(p->name));
	if (!b->api_container)
		dup_to(c, &b->api_container, pods_value_ok(ct->name));
	if (!b->api_resource)
		dup_to(c, &b->api_resource, pods_value_ok(d->resource));
	pods_set_str(c, &b->container, pods_value_ok(ct->name));
	pods_set_str(c, &b->resource, pods_value_ok(d->resource));
}

static void api_gpu(struct pods_ctx *c, const struct podres_pod *p,
		    const struct podres_container *ct, const struct podres_devices *d,
		    const char *id)
{
	struct pod_gpu *g = gpu_add(c, &c->set->gpus, &c->set->n_gpus);
	if (!g)
		return;
	g->sources = POD_SRC_API;
	dup_to(c, &g->ns, pods_value_ok(p->ns));
	dup_to(c, &g->name, pods_value_ok(p->name));
	dup_to(c, &g->uid, uid_of(c, p->ns, p->name));
	dup_to(c, &g->container, pods_value_ok(ct->name));
	dup_to(c, &g->resource, d->resource);
	dup_to(c, &g->id, id);
	for (size_t i = 0; i < c->n_ckpt_gpus; i++)
		if (c->ckpt_gpus[i].id && !strcmp(c->ckpt_gpus[i].id, id))
			g->sources |= POD_SRC_CHECKPOINT;
}

/* Without the API: the checkpoint's GPUs of pods a pod log confirms. */
static void ckpt_gpus(struct pods_ctx *c)
{
	for (size_t i = 0; i < c->n_ckpt_gpus; i++) {
		const struct pod_gpu *k = &c->ckpt_gpus[i];
		const struct podlog *l = pods_find_podlog(c, k->uid, NULL, NULL);
		if (!l)
			continue; /* an entry that outlived its pod */
		struct pod_gpu *g = gpu_add(c, &c->set->gpus, &c->set->n_gpus);
		if (!g)
			return;
		g->sources = POD_SRC_CHECKPOINT;
		dup_to(c, &g->ns, l->ns);
		dup_to(c, &g->name, l->name);
		dup_to(c, &g->uid, k->uid);
		dup_to(c, &g->container, k->container);
		dup_to(c, &g->resource, k->resource);
		dup_to(c, &g->id, k->id);
	}
}

void pods_merge_api(struct pods_ctx *c)
{
	struct podres *api = &c->set->api;
	if (sys_podres_read(c->s, api) < 0) {
		c->err = -ENOMEM;
		return;
	}
	if (api->state != PODRES_OK) {
		if (api->state != PODRES_ABSENT && api->note)
			pods_note(c, "%s: pods read from the kubelet's and the CNI's files only",
				  api->note);
		ckpt_gpus(c);
		return;
	}
	for (size_t i = 0; i < api->n_pods && !c->err; i++) {
		const struct podres_pod *p = &api->pods[i];
		for (size_t j = 0; j < p->n_ctrs; j++)
			for (size_t k = 0; k < p->ctrs[j].n_devs; k++) {
				const struct podres_devices *d = &p->ctrs[j].devs[k];
				for (size_t m = 0; m < d->n_ids; m++) {
					char bdf[16];
					if (pods_gpu_resource(d->resource))
						api_gpu(c, p, &p->ctrs[j], d, d->ids[m]);
					else if (d->ids[m] &&
						 node_bdf_normalize(d->ids[m], false, bdf))
						api_vf(c, p, &p->ctrs[j], d, bdf);
				}
			}
	}
	/* What runs now is the API's: an entry only the checkpoint (and a pod
	 * log directory, which outlives its pod) names is stale. */
	const unsigned int files_only = POD_SRC_CHECKPOINT | POD_SRC_PODLOG;
	for (size_t i = 0; i < c->set->n; i++) {
		struct pod_binding *b = &c->set->v[i];
		b->stale = !(b->sources & ~files_only) && (b->sources & POD_SRC_CHECKPOINT);
	}
	if (api->truncated)
		pods_note(c, "%s: the answer was longer than ibvf reads: the rest was dropped",
			  api->socket ? api->socket : PODRES_SOCKET);
}
