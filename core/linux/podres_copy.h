/* SPDX-License-Identifier: MIT */
/* The answers of v1.PodResourcesLister into struct podres (podres_copy.c). */
#pragma once

struct podres;
struct V1__ListPodResourcesResponse;
struct V1__AllocatableResourcesResponse;

/* List's pods into p->pods, Allocatable's devices into p->alloc; 0 or
 * -ENOMEM (what was copied stays counted in p, for podres_fini). Sets
 * p->truncated and p->clipped when a bound dropped or cut something. */
int podres_copy_list(struct podres *p, const struct V1__ListPodResourcesResponse *in);
int podres_copy_alloc(struct podres *p, const struct V1__AllocatableResourcesResponse *in);
