// SPDX-License-Identifier: MIT
/* The kubelet's pod-resources answers (core/linux/podres_copy.c) from any
 * bytes: protobuf-c's generated code unpacks the input as a List answer and
 * as a GetAllocatableResources answer, as core/linux/podres_grpc.c does with
 * what the socket gave, and the copy takes them into struct podres. Oracle:
 * every count and string within the bounds core/sys/podres.h states, the
 * truncated and clipped flags set when a bound was met; podres_fini frees it
 * all (LeakSanitizer). */
#include <stdlib.h>
#include <string.h>

#include "api.pb-c.h"
#include "core/linux/podres_copy.h"
#include "core/sys/podres.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME_MAX_LEN 253
#define ID_MAX_LEN   1024

static void check_name(const char *s, const struct podres *p)
{
	(void)p;
	if (!s || strlen(s) > NAME_MAX_LEN)
		abort();
}

/* What the answer had beyond a bound is said: the pods past the bound
 * (truncated), a pod's name or namespace past 253 bytes (clipped). */
static void check_said(const V1__ListPodResourcesResponse *in, const struct podres *p)
{
	if (in->n_pod_resources > PODRES_PODS_MAX && !p->truncated)
		abort();
	for (size_t i = 0; i < in->n_pod_resources && i < PODRES_PODS_MAX; i++) {
		const V1__PodResources *r = in->pod_resources[i];
		if (r && (strlen(r->name) > NAME_MAX_LEN || strlen(r->namespace_) > NAME_MAX_LEN) &&
		    !p->clipped)
			abort();
	}
}

static size_t check_groups(const struct podres_devices *d, size_t n, const struct podres *p)
{
	for (size_t i = 0; i < n; i++) {
		check_name(d[i].resource, p);
		if (d[i].n_ids > PODRES_IDS_MAX || d[i].n_numa > PODRES_NUMA_MAX)
			abort();
		for (size_t k = 0; k < d[i].n_ids; k++)
			if (!d[i].ids[k] || strlen(d[i].ids[k]) > ID_MAX_LEN)
				abort();
	}
	return n;
}

static void check_bounds(const struct podres *p)
{
	size_t groups = 0;
	if (p->n_pods > PODRES_PODS_MAX)
		abort();
	for (size_t i = 0; i < p->n_pods; i++) {
		const struct podres_pod *pod = &p->pods[i];
		check_name(pod->ns, p);
		check_name(pod->name, p);
		if (pod->n_ctrs > PODRES_CTRS_MAX)
			abort();
		for (size_t c = 0; c < pod->n_ctrs; c++) {
			check_name(pod->ctrs[c].name, p);
			groups += check_groups(pod->ctrs[c].devs, pod->ctrs[c].n_devs, p);
		}
	}
	if (groups > PODRES_DEVICES_MAX || p->n_alloc > PODRES_DEVICES_MAX)
		abort();
	check_groups(p->alloc, p->n_alloc, p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct podres p;
	memset(&p, 0, sizeof(p));
	V1__ListPodResourcesResponse *list =
		v1__list_pod_resources_response__unpack(NULL, size, data);
	if (list) {
		if (podres_copy_list(&p, list) == 0) {
			check_bounds(&p);
			check_said(list, &p);
		}
		v1__list_pod_resources_response__free_unpacked(list, NULL);
	}
	V1__AllocatableResourcesResponse *alloc =
		v1__allocatable_resources_response__unpack(NULL, size, data);
	if (alloc) {
		if (podres_copy_alloc(&p, alloc) == 0)
			check_bounds(&p);
		v1__allocatable_resources_response__free_unpacked(alloc, NULL);
	}
	podres_fini(&p);
	return 0;
}
