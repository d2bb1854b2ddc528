/* SPDX-License-Identifier: MIT */
#include "core/sys/podres.h"

#include <stdlib.h>
#include <string.h>

void podres_devices_fini(struct podres_devices *d)
{
	if (!d)
		return;
	free(d->resource);
	for (size_t i = 0; i < d->n_ids; i++)
		free(d->ids[i]);
	free(d->ids);
	free(d->numa);
	memset(d, 0, sizeof(*d));
}

void podres_fini(struct podres *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_pods; i++) {
		struct podres_pod *pod = &p->pods[i];
		for (size_t c = 0; c < pod->n_ctrs; c++) {
			for (size_t d = 0; d < pod->ctrs[c].n_devs; d++)
				podres_devices_fini(&pod->ctrs[c].devs[d]);
			free(pod->ctrs[c].devs);
			free(pod->ctrs[c].name);
		}
		free(pod->ctrs);
		free(pod->ns);
		free(pod->name);
	}
	free(p->pods);
	for (size_t i = 0; i < p->n_alloc; i++)
		podres_devices_fini(&p->alloc[i]);
	free(p->alloc);
	free(p->alloc_note);
	free(p->note);
	free(p->socket);
	memset(p, 0, sizeof(*p));
}

static bool streq0(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

const struct podres_pod *podres_find_pod(const struct podres *p, const char *ns, const char *name)
{
	for (size_t i = 0; p && i < p->n_pods; i++)
		if (streq0(p->pods[i].ns, ns) && streq0(p->pods[i].name, name))
			return &p->pods[i];
	return NULL;
}

static bool devs_have(const struct podres_devices *d, const char *resource, const char *id)
{
	if (resource && !streq0(d->resource, resource))
		return false;
	for (size_t k = 0; k < d->n_ids; k++)
		if (streq0(d->ids[k], id))
			return true;
	return false;
}

const struct podres_pod *podres_holder(const struct podres *p, const char *resource, const char *id,
				       const struct podres_container **ret_ctr)
{
	for (size_t i = 0; p && i < p->n_pods; i++)
		for (size_t c = 0; c < p->pods[i].n_ctrs; c++)
			for (size_t d = 0; d < p->pods[i].ctrs[c].n_devs; d++)
				if (devs_have(&p->pods[i].ctrs[c].devs[d], resource, id)) {
					if (ret_ctr)
						*ret_ctr = &p->pods[i].ctrs[c];
					return &p->pods[i];
				}
	return NULL;
}

bool podres_allocatable(const struct podres *p, const char *resource, const char *id)
{
	for (size_t i = 0; p && i < p->n_alloc; i++)
		if (devs_have(&p->alloc[i], resource, id))
			return true;
	return false;
}
