/* SPDX-License-Identifier: MIT */
/* Pod bindings: which Kubernetes pod holds which VF, read on the node from the
 * files the CNI plugins and kubelet leave behind (docs/kubernetes.md), without
 * the API server. Sources are merged by the VF's PCI address:
 *
 *   /var/lib/cni/multus/results/<net>-<containerID>-<ifName>   pod, netns, ifName
 *   /var/lib/cni/ib-sriov/<containerID>-<ifName>              names, GUID, pkey
 *   /var/lib/cni/sriov/<containerID>-<ifName>, sriov/pci/<bdf> names, netns
 *   /var/lib/kubelet/device-plugins/kubelet_internal_checkpoint  uid, container
 *   /var/log/pods/<ns>_<name>_<uid>/                          uid -> name, alive
 *
 * Every file is bounded (PODS_FILE_MAX); a malformed or half-written one (CNI
 * writes them while pods start) is skipped with a note. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/node.h"

/* The VF in a pod whose host name (the CNI gives it back when the pod goes)
 * is name: "the host name VF <bdf> gets back when pod '<ns/name>' lets it
 * go" in buf, "" when none. The one rule the renames and their undo use. */
void pods_reserving(const struct node *n, const char *name, char *buf, size_t size);

struct sys;

#define PODS_FILE_MAX (1u << 20)

enum pods_netns_mode {
	/* Enter pod network namespaces only on the running node (root "/", not
	 * simulated); elsewhere record the netns path only. */
	PODS_NETNS_AUTO,
	PODS_NETNS_NEVER,
	/* Enter netns paths as they are on this machine even when the files are
	 * read under another root: a test's file tree with a real netns. */
	PODS_NETNS_ENTER,
};

struct pods_opts {
	enum pods_netns_mode netns;
};

/* The merged bindings, one per PCI address, and what could not be read. */
struct pod_set {
	struct pod_binding *v;
	size_t n;
	char **notes;
	size_t n_notes;
	struct bad_file *broken; /* files found but not readable whole */
	size_t n_broken;
	struct podres api;    /* what the kubelet's pod-resources API said */
	struct pod_gpu *gpus; /* the GPUs pods hold (API, else checkpoint) */
	size_t n_gpus;
};

/* Reads and merges every source. opts may be NULL (PODS_NETNS_AUTO). Missing
 * files and directories are not errors. Returns 0 or -ENOMEM. */
int pods_read(struct sys *s, const struct pods_opts *opts, struct pod_set *ret);
void pods_set_fini(struct pod_set *set);
const struct pod_binding *pods_find(const struct pod_set *set, const char *bdf);

/* Reads the bindings and hands each to its VF (vf->pod); bindings of PCI
 * addresses that are no VF of the node go to n->pods_unplaced, notes to
 * n->notes and the files that could not be read whole to n->cni_broken.
 * Returns 0 or -ENOMEM. */
int pods_attach(struct sys *s, const struct pods_opts *opts, struct node *n);

/* "multus", "ib-sriov", "sriov", "checkpoint", "podlog" for one POD_SRC_* bit. */
const char *pods_source_name(unsigned int bit);
/* The one rule for "is this VF held by a pod": its binding, or NULL when
 * none or only a stale one (a kubelet checkpoint entry no pod confirms: that
 * pod is gone). Every refusal, the benchmark and the console ask this. */
const struct pod_binding *pods_holder(const struct vf *vf);
/* "namespace/name", or "uid <uid>" when no source names the pod, with
 * " (stale)" appended for a stale binding: how the pod is shown everywhere. */
void pods_label(const struct pod_binding *b, char *buf, size_t size);
/* The label of the pod holding vf (pods_holder) in buf, or NULL when none. */
const char *pods_holder_label(const struct vf *vf, char *buf, size_t size);

/* Whether this process is in the node's PID namespace (the initial one), so
 * that /proc/<pid> names the node's processes: not in a container without
 * the host's PID namespace. */
bool pods_in_node_pidns(void);
/* Enters the network namespace at netns (a path on this machine) in a helper
 * thread and reads, with the link dump of the kernel boundary (sys_link_dump
 * opens its netlink socket in the calling thread's namespace), the interface
 * named ifname, or else the IPoIB interface whose address carries guid (when
 * guid_known). Fills ret; returns 0, -ENODEV when no interface matched, or
 * -errno. The calling thread never changes namespace. */
int pods_netns_read(struct sys *s, const char *netns, const char *ifname, bool guid_known,
		    uint64_t guid, struct pod_netif *ret);
