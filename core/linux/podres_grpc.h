/* SPDX-License-Identifier: MIT */
/* The kubelet's pod-resources API on the real node: a gRPC client of
 * v1.PodResourcesLister (core/sys/podres.h says what it fills). */
#pragma once

struct sys;
struct podres;

/* The linux sys's podres_read: List, GetAllocatableResources and a probe of
 * Get on the socket s names under its root. 0, or -ENOMEM; every other
 * failure is ret->state and ret->note. */
int linux_podres_read(struct sys *s, struct podres *ret);
