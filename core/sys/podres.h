/* SPDX-License-Identifier: MIT */
/* What the kubelet's pod-resources API (v1.PodResourcesLister on
 * /var/lib/kubelet/pod-resources/kubelet.sock) said of the node: the devices
 * each running container holds (List, and Get per pod where the kubelet has
 * it) and the devices it can allocate (GetAllocatableResources). Read through
 * the kernel boundary (sys_podres_read): gRPC on the real node
 * (core/linux/podres_grpc.c), the simulated kubelet's state in the simulation.
 *
 * The API is authoritative for what runs now; the files core/pods reads add
 * what it cannot say (netns, interface names, the CNI's view). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PODRES_SOCKET	   "/var/lib/kubelet/pod-resources/kubelet.sock"
#define PODRES_TIMEOUT_MS  2000	       /* each call's deadline */
#define PODRES_MSG_MAX	   (16u << 20) /* the largest answer accepted */
#define PODRES_PODS_MAX	   4096	       /* pods kept of one answer */
#define PODRES_DEVICES_MAX 4096	       /* device groups kept per answer */
#define PODRES_IDS_MAX	   8192	       /* device IDs kept per group */
#define PODRES_RETRY_SECS  30	       /* after a failure, not asked again before */
#define PODRES_CTRS_MAX	   256	       /* containers kept per pod */
#define PODRES_NUMA_MAX	   64	       /* NUMA nodes kept per group */

struct podres_opts {
	const char *socket; /* as on the node; NULL: PODRES_SOCKET */
	int timeout_ms;	    /* 0: PODRES_TIMEOUT_MS */
	size_t msg_max;	    /* 0: PODRES_MSG_MAX */
};

enum podres_state {
	PODRES_ABSENT,	/* no socket at the path: no kubelet API here */
	PODRES_OK,	/* List answered */
	PODRES_REFUSED, /* the socket is not one ibvf trusts (not a socket, not root's) */
	PODRES_FAILED,	/* connect refused, deadline, bad answer, gRPC status */
};

/* One ContainerDevices: a resource and the device IDs of it. */
struct podres_devices {
	char *resource; /* "nvidia.com/gpu", "openshift.io/mlnx_ib" */
	char **ids;	/* device IDs as the device plugin gave them */
	size_t n_ids;
	int64_t *numa; /* TopologyInfo NUMA node IDs */
	size_t n_numa;
};

struct podres_container {
	char *name;
	struct podres_devices *devs;
	size_t n_devs;
};

struct podres_pod {
	char *ns, *name;
	struct podres_container *ctrs;
	size_t n_ctrs;
};

struct podres {
	enum podres_state state;
	/* One line for people when state is not PODRES_OK: the socket and what
	 * went wrong ("… timed out after 2000 ms"); NULL when OK. */
	char *note;
	char *socket; /* the path asked, as on the node */
	struct podres_pod *pods;
	size_t n_pods;
	/* GetAllocatableResources: known is false when the kubelet does not
	 * have it (UNIMPLEMENTED) or it failed (alloc_note says which). */
	bool alloc_known;
	char *alloc_note;
	struct podres_devices *alloc;
	size_t n_alloc;
	/* Get answers per pod: the kubelet has it (1.27+ with the gate, GA in 1.30). */
	bool get_known;
	bool truncated; /* an answer had more than the *_MAX above (or an ID longer
			 * than 1024 bytes): the rest was dropped */
	bool clipped;	/* a name (pod, namespace, container, resource) longer than
			 * 253 bytes was cut to 253 */
};

void podres_devices_fini(struct podres_devices *d);
void podres_fini(struct podres *p);
/* The pod named ns/name in p, or NULL. */
const struct podres_pod *podres_find_pod(const struct podres *p, const char *ns, const char *name);
/* The pod and container holding device id of resource (resource NULL: any),
 * or NULL when no container of p holds it. */
const struct podres_pod *podres_holder(const struct podres *p, const char *resource, const char *id,
				       const struct podres_container **ret_ctr);
/* Whether the kubelet lists id (of resource, or any when NULL) as allocatable. */
bool podres_allocatable(const struct podres *p, const char *resource, const char *id);
