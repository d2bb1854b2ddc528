/* SPDX-License-Identifier: MIT */
/* A Kubernetes device plugin's config as the node model holds it
 * (node->dp_configs): read and judged by core/pods/devplugin.c, freed with
 * the node. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum dp_plugin {
	DP_SRIOV = 1,	/* SR-IOV network device plugin */
	DP_RDMA_SHARED, /* RDMA shared device plugin */
};

/* The selector lists ibvf judges. The RDMA shared plugin calls devices
 * "deviceIDs" and has ifNames; the SR-IOV plugin has the rest. */
enum dp_field {
	DP_VENDORS,
	DP_DEVICES,
	DP_DRIVERS,
	DP_PCI_ADDRESSES,
	DP_PF_NAMES,
	DP_ROOT_DEVICES,
	DP_LINK_TYPES,
	DP_IF_NAMES,
	DP_FIELDS
};

struct dp_list {
	char **v;
	size_t n;
};

/* One selector object: a device is selected when it passes every list that
 * is given (an empty or absent list does not filter). */
struct dp_selector {
	struct dp_list f[DP_FIELDS];
	bool is_rdma;	     /* SR-IOV: only functions with an RDMA device */
	bool need_vhost_net; /* SR-IOV: recorded, selects nothing */
	/* Names a selector ibvf cannot judge from sysfs (acpiIndexes,
	 * ddpProfiles, pKeys, vdpaType, auxTypes): NULL when none. */
	char *unjudged;
};

struct dp_resource {
	enum dp_plugin plugin; /* whose rules its selectors follow */
	char *name;	       /* resourceName */
	char *prefix;	       /* resourcePrefix; NULL: the plugin's --resource-prefix */
	char *device_type;     /* SR-IOV deviceType ("netDevice" when absent); NULL for RDMA */
	int rdma_hca_max;      /* RDMA shared plugin; -1 when absent */
	struct dp_selector *sel;
	size_t n_sel;
	bool sel_array; /* SR-IOV: selectors given as a list of objects */
	/* Why the plugin skips this resource (selectors it cannot unmarshal), or NULL. */
	char *error;
};

struct dp_config {
	char *path; /* as on the node */
	enum dp_plugin plugin;
	/* Why the plugin would refuse the whole file (not JSON, a field of the
	 * wrong type, a resource name it rejects), or NULL. */
	char *error;
	char *pod_uid;		 /* the pod whose volume holds it; NULL for --dp-config */
	char *volume;		 /* the ConfigMap volume's name in that pod */
	char *pod_ns, *pod_name; /* from /var/log/pods/<ns>_<name>_<uid>; NULL unknown */
	struct dp_resource *res;
	size_t n_res;
	unsigned long hash; /* of the file's bytes: one ConfigMap mounted twice counts once */
};

/* What devplugin_attach() left out, so that no limit drops a config
 * unsaid (check dp-config-skipped). */
#define DP_SKIPPED_NAMED 4
struct dp_skipped {
	size_t untrusted; /* configs in pods that are no plugin's: not read */
	size_t over;	  /* the plugins' configs beyond DP_CONFIGS_MAX */
	size_t pods_over; /* pod directories beyond DP_PODS_MAX: not looked into */
	/* The first untrusted pods, "<ns>/<name>" or "pod UID <uid>". */
	char named[DP_SKIPPED_NAMED][128];
	size_t n_named;
	char trust_error[256]; /* the allowlist file refused (devplugin.h) */
};

void dp_config_fini(struct dp_config *c);
void devplugin_free(struct dp_config *v, size_t n);
