/* SPDX-License-Identifier: MIT */
/* Helpers of the pods suites (test_pods.c, test_pods_merge.c): a fresh root
 * per test, the Kubernetes files written under it, the bindings read back. */
#pragma once

#include <stdbool.h>

#include "core/pods/pods.h"

#define UID_A	 "6f1c2a4e-8b3d-4c71-9e2a-1d5b7c9e0f11"
#define UID_B	 "a2b4c6d8-e0f2-4a6c-8e0a-2c4e6f8a0b22"
#define UID_GONE "0d9e8f7a-6b5c-4d3e-9f2a-1b0c9d8e7f44"
#define CID	 "9f2e4c61b7a83d05e1c9f7a2b4d6e8013579bdf2468ace0f1e2d3c4b5a697887"
#define NETNS	 "/var/run/netns/cni-3a9d7c1e-52f4-4b8e-a1c6-0e7f2d9b4a13"

#define MULTUS_DIR "var/lib/cni/multus/results/"
#define CHECKPOINT "var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"

/* The temporary root of the running test, made by setup(), removed by
 * teardown() (the checked fixture). */
extern char *root;

void setup(void);
void teardown(void);

/* Writes root/rel, making the directories on the way. */
void put(const char *rel, const char *content);

void mkdirs(const char *rel);

const char *multus_json(const char *bdf, const char *ns, const char *name, const char *uid,
			const char *ifname);

const char *ib_sriov_json(const char *bdf, const char *cont_if);

/* One checkpoint entry; ids is the JSON of DeviceIDs. */
const char *checkpoint_json(const char *entries);

struct pod_set read_set(void);

bool has_note(const struct pod_set *set, const char *a, const char *b);
