// SPDX-License-Identifier: MIT
#include "devplugin_config.h"

#include <stdlib.h>

static void list_fini(struct dp_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct dp_list){0};
}

static void resource_fini(struct dp_resource *r)
{
	for (size_t i = 0; i < r->n_sel; i++) {
		for (int f = 0; f < DP_FIELDS; f++)
			list_fini(&r->sel[i].f[f]);
		free(r->sel[i].unjudged);
	}
	free(r->sel);
	free(r->name);
	free(r->prefix);
	free(r->device_type);
	free(r->error);
}

void dp_config_fini(struct dp_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_res; i++)
		resource_fini(&c->res[i]);
	free(c->res);
	free(c->path);
	free(c->error);
	free(c->pod_uid);
	free(c->volume);
	free(c->pod_ns);
	free(c->pod_name);
	*c = (struct dp_config){0};
}

void devplugin_free(struct dp_config *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		dp_config_fini(&v[i]);
	free(v);
}
