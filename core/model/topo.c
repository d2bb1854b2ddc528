/* SPDX-License-Identifier: MIT */
#include "core/model/topo.h"

#include <stdlib.h>
#include <string.h>

static const char *const class_names[] = {
	[TOPO_UNKNOWN] = "?", [TOPO_SELF] = "X",    [TOPO_PIX] = "PIX", [TOPO_PXB] = "PXB",
	[TOPO_PHB] = "PHB",   [TOPO_NODE] = "NODE", [TOPO_SYS] = "SYS",
};

const char *topo_class_name(enum topo_class c)
{
	return (unsigned int)c < sizeof(class_names) / sizeof(class_names[0]) ? class_names[c]
									      : "?";
}

int topo_class_parse(const char *s)
{
	for (size_t i = 0; s && i < sizeof(class_names) / sizeof(class_names[0]); i++)
		if (!strcmp(s, class_names[i]))
			return (int)i;
	return -1;
}

void gpu_fini(struct gpu *g)
{
	if (!g)
		return;
	free(g->devpath);
	free(g->driver);
	free(g->model);
	free(g->uuid);
	for (size_t i = 0; i < g->n_migs; i++)
		free(g->migs[i]);
	free(g->migs);
	memset(g, 0, sizeof(*g));
}

const struct gpu *gpu_find_id(const struct gpu *gpus, size_t n, const char *id)
{
	if (!id)
		return NULL;
	/* Legacy MIG IDs carry their GPU: "MIG-GPU-<uuid>/<gi>/<ci>". */
	size_t len = strlen(id);
	if (!strncmp(id, "MIG-GPU-", 8)) {
		id += 4;
		len = strcspn(id, "/");
	}
	for (size_t i = 0; i < n; i++) {
		const struct gpu *g = &gpus[i];
		if (g->uuid && strlen(g->uuid) == len && !strncmp(g->uuid, id, len))
			return g;
		if (!strcmp(g->bdf, id))
			return g;
		for (size_t k = 0; k < g->n_migs; k++)
			if (!strcmp(g->migs[k], id))
				return g;
	}
	return NULL;
}

/* Interim: replaced by the full rule (branch gpu). */
enum topo_class topo_class(const char *a, int64_t numa_a, const char *b, int64_t numa_b)
{
	if (!a || !b)
		return TOPO_UNKNOWN;
	if (!strcmp(a, b))
		return TOPO_SELF;
	const char *ra = strstr(a, "/pci"), *rb = strstr(b, "/pci");
	if (!ra || !rb)
		return TOPO_UNKNOWN;
	size_t la = strcspn(ra + 1, "/"), lb = strcspn(rb + 1, "/");
	if (la != lb || strncmp(ra, rb, la + 1))
		return numa_a == numa_b ? TOPO_NODE : TOPO_SYS;
	return TOPO_PIX;
}
