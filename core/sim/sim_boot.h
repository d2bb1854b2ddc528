/* SPDX-License-Identifier: MIT */
/* A reboot of the simulated node, in the two parts the boot unit runs
 * between (sim_boot.c, sim_kubelet.c): the power cycle leaves the node as
 * the kernel gives it at boot; after the unit, the kubelet runs the pods
 * again. The unit itself is run by the caller (tui/commands/cmd_reboot.c), as systemd
 * would, with ibvf's own commands. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"

struct sys;

#define SIM_BOOT_NOTES_MAX 64

/* What a step did, one line each, for the caller to show. */
struct sim_boot_log {
	char notes[SIM_BOOT_NOTES_MAX][256];
	size_t n;
};

void sim_boot_note(struct sim_boot_log *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The power cycle, on a simulated node (-EOPNOTSUPP otherwise): every PF's
 * VFs gone (sriov_numvfs 0: their functions, netdevs, RDMA devices and
 * administrative GUIDs), PF netdevs named as udev names them at boot (a
 * .link file, else their PCI path name), /run's pod network namespaces gone
 * (tmpfs), ifindexes counted again (lo 1, the PFs' netdevs from 2), the kernel log that of a fresh
 * boot (the records of the VFs' lives dropped: E-Switch enables, probe failures of VFs), and the
 * probe order of new VFs shuffled from seed from now on (.sim/probe), and a
 * new boot identity (a boot_id, and btime as of at_us, 0: now; sim_tree.h). */
int sim_boot_power_cycle(struct sys *s, uint64_t seed, int64_t at_us, struct sim_boot_log *log,
			 struct err *e);

/* The kubelet starting again after the boot unit: each pod whose ib-sriov-cni
 * cache (var/lib/cni/ib-sriov/) binds a VF gets it back through the CNI's
 * ADD: the VF's host netdev moves into the pod (gone from the host's sysfs),
 * the cache records the host name and GUID it had then, and the pod's netns
 * file is there again. A VF without a netdev is not moved (CNI ADD fails;
 * the pod waits): said in the log. */
int sim_boot_kubelet(struct sys *s, struct sim_boot_log *log, struct err *e);

/* The CNI's ADD of one pod interface (its ib-sriov-cni cache's name under
 * var/lib/cni/ib-sriov, sim_kubelet.c): the VF's host netdev moves into the
 * pod (gone from the host's sysfs, with the "remove" the host sees), the
 * cache records the host name and GUID it had, the pod's netns file is
 * made. A VF with no host netdev is not moved (said in the log: the pod
 * waits). again: the pod runs again after a boot (else it starts). The
 * caller holds the node's lock. */
int sim_kubelet_cni_add(struct sys *s, const char *cache, bool again, struct sim_boot_log *log,
			struct err *e);

/* A pod that asked for a VF starts (sim_podstart.c), as the kubelet, the
 * device plugin and ib-sriov-cni do it: the checkpoint entry, the Multus and
 * ib-sriov caches, the pod's netns file, the VF's netdev moved in; then the
 * kernel's part of the field report: every other VF of the same PF whose
 * netdev has a kernel name (ibN, ethN) no .link file gives is probed again
 * (unbind, bind) and comes back with the lowest free kernel name. */
struct sim_pod_start {
	const char *ns, *name; /* DNS-1123: a label of 63, a subdomain of 253 */
	const char *uid;       /* NULL: a new one */
	const char *bdf;       /* the VF: bound, with a netdev on the host */
	const char *ifname;    /* in the pod; NULL: net1 */
};
/* -EINVAL (said) for a name Kubernetes refuses, -ENODEV for a VF without a
 * host netdev, -EOPNOTSUPP on a node that is not simulated: the node then
 * unchanged. Whether a pod holds the VF already is the caller's to ask
 * (pods_holder(), the one rule). */
int sim_pod_start(struct sys *s, const struct sim_pod_start *p, struct sim_boot_log *log,
		  struct err *e);
/* Kubernetes' DNS-1123 label (max 63) and subdomain (max 253) rules. */
bool sim_k8s_label_valid(const char *s);
bool sim_k8s_subdomain_valid(const char *s);

/* The port of the function's RDMA device goes down (1: DOWN, 2: Polling: a
 * cable pulled, the switch port disabled) or comes back (4: ACTIVE, 5:
 * LinkUp), its netdev's operstate following, with the "change" the host
 * sees (sim_faults.c). */
int sim_port_set(struct sys *s, const char *bdf, bool up, struct err *e);
