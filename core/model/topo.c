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
