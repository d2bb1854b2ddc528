/* SPDX-License-Identifier: MIT */
/* Kubernetes device plugin configs: which VFs each advertised resource holds.
 *
 * Two plugins hand this node's VFs to pods, each from its own config.json:
 *   SR-IOV network device plugin (k8snetworkplumbingwg/sriov-network-device-plugin)
 *     {"resourceList":[{"resourceName","resourcePrefix","deviceType",
 *       "selectors":{...} or [{...},...]}]}
 *   RDMA shared device plugin (Mellanox/k8s-rdma-shared-dev-plugin)
 *     {"periodicUpdateInterval":N,"configList":[{"resourceName","resourcePrefix",
 *       "rdmaHcaMax","selectors":{...}} or the older "devices":[netdev names]]}
 *
 * On a node these files are ConfigMaps mounted into the plugins' pods, so they
 * sit in the kubelet's pod volumes (docs/kubernetes.md):
 *   /var/lib/kubelet/pods/<uid>/volumes/kubernetes.io~configmap/<volume>/config.json
 * (a link to ..data/config.json, ..data a link to a timestamped directory).
 * A file is taken for a plugin's config by what it holds, not where it is.
 * Everything is read through the kernel boundary (sys.h) and bounded. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/model/devplugin_config.h"
#include "core/model/node.h"

struct sys;

#define DP_FILE_MAX	 (256u * 1024) /* a bigger config.json is not read */
#define DP_PODS_MAX	 2048	       /* pod directories looked into */
#define DP_VOLUMES_MAX	 64	       /* ConfigMap volumes per pod */
#define DP_CONFIGS_MAX	 32	       /* configs kept per node */
#define DP_RESOURCES_MAX 128	       /* resources per config */
#define DP_SELECTORS_MAX 32	       /* selector objects per resource */
#define DP_VALUES_MAX	 256	       /* entries per selector list */
#define DP_VALUE_LEN	 255	       /* longest selector value */
#define DP_LINK_HOPS	 8	       /* symlinks followed to reach a config */

/* Whose pods are the plugins': a pod in one of the namespaces, of one of
 * the DaemonSets ("<daemonset>-<suffix>"), named by its log directory
 * /var/log/pods/<ns>_<name>_<uid>. The defaults are the plugins' own
 * deployments and the operators'; the node's DP_TRUST_FILE replaces either
 * list:
 *   [device-plugin]
 *   namespaces = kube-system sriov-network-operator
 *   daemonsets = sriov-device-plugin rdma-shared-dp-ds */
#define DP_TRUST_FILE "/etc/ibvf/ibvf.conf"
#define DP_TRUST_MAX  32 /* names per list */
#define DP_TRUST_NAME 64 /* a DNS label and its NUL */

struct dp_trust {
	char ns[DP_TRUST_MAX][DP_TRUST_NAME];
	size_t n_ns;
	char ds[DP_TRUST_MAX][DP_TRUST_NAME];
	size_t n_ds;
	/* Why the file was refused ("/etc/ibvf/ibvf.conf line 3: ..."): then
	 * no pod is trusted. "" when it was not. */
	char error[256];
};

void devplugin_trust_default(struct dp_trust *t);
/* The defaults, with what DP_TRUST_FILE under s's root gives (none is
 * fine). A file that cannot be read or parsed sets ret->error. 0 or -ENOMEM. */
int devplugin_trust_load(struct sys *s, struct dp_trust *ret);
bool devplugin_trusted(const struct dp_trust *t, const char *ns, const char *pod);

/* Reads the device-plugin configs of the plugins' pods (devplugin_trusted,
 * their configs first, so no other pod crowds them out) into n->dp_configs
 * (after those already there); counts in n->dp_skipped the configs in other
 * pods, which are not read, those beyond DP_CONFIGS_MAX and the pod
 * directories beyond DP_PODS_MAX. Missing directories are not errors; a
 * file that is no plugin's config is ignored. Returns 0 or -ENOMEM. */
int devplugin_attach(struct sys *s, struct node *n);

/* Reads one file given by the operator (`ibvf check --dp-config FILE`, which
 * reads it through a sys rooted at this host's "/", whatever node is judged).
 * The file is added to n->dp_configs even when it is not a valid config
 * (then its error says why). Returns 0, or -errno when the file cannot be
 * read (-ENOENT, -EFBIG beyond DP_FILE_MAX, ...), -ENOSPC beyond
 * DP_CONFIGS_MAX files given so (the pods' configs do not count), -ENOMEM. */
int devplugin_read_file(struct sys *s, const char *path, struct node *n);

/* Parses a config's text. Returns 0 with ret filled (its error set when the
 * plugin would refuse it), -ENOMSG when the text is no device plugin's config,
 * or -ENOMEM. path is copied into ret. */
int devplugin_parse(const char *text, size_t len, const char *path, struct dp_config *ret);

/* Deep copy of src's configs into dst (node_refresh keeps them). 0 or -ENOMEM. */
int devplugin_copy(struct node *dst, const struct node *src);

/* "SR-IOV network device plugin", "RDMA shared device plugin". */
const char *devplugin_plugin_name(enum dp_plugin p);
/* The field's key in the plugin's config ("devices" / "deviceIDs"). */
const char *devplugin_field_key(enum dp_plugin p, enum dp_field f);
/* "nvidia.com/ibvf"; without a prefix in the file, the SR-IOV plugin's comes
 * from its command line, so just the name; the RDMA plugin's default is "rdma". */
void devplugin_resource_label(const struct dp_resource *r, char *buf, size_t size);
/* Whether a pod's request (kubelet checkpoint ResourceName "prefix/name")
 * names this resource. */
bool devplugin_names(const struct dp_resource *r, const char *requested);

/* Matching (devplugin_match.c), each plugin's own rules over the model. A
 * device is a VF (pf, vf) or, with vf NULL, the PF itself. */

/* Whether the plugin lists the device at all, before any selector: it has a
 * driver; the SR-IOV plugin skips PFs with VFs; the RDMA shared plugin needs
 * an RDMA device. */
bool devplugin_candidate(enum dp_plugin p, const struct pf *pf, const struct vf *vf);
/* The device's value for a field as the plugin reads it: vendor and device
 * ids as 4 lowercase hex digits ("15b3", "101e"), the driver, the VF's PCI
 * address, the PF's netdev name and PCI address, the link type of the
 * netdev ("infiniband", "ether"; the PF's when the VF has none in the host),
 * the first netdev name. "" when the device has none. */
const char *devplugin_value(enum dp_plugin p, enum dp_field f, const struct pf *pf,
			    const struct vf *vf, char *buf, size_t size);
/* One list against one device (the list must be non-empty to filter). */
bool devplugin_field_match(enum dp_plugin p, enum dp_field f, const struct dp_list *l,
			   const struct pf *pf, const struct vf *vf);
bool devplugin_selector_match(enum dp_plugin p, const struct dp_selector *s, const struct pf *pf,
			      const struct vf *vf);
/* Whether the resource selects the device: it is a candidate and one of
 * its selector objects selects it; a resource with an error selects nothing.
 * n is the node the device is of. */
bool devplugin_match(const struct dp_resource *r, const struct node *n, const struct pf *pf,
		     const struct vf *vf);
