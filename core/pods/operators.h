/* SPDX-License-Identifier: MIT */
/* The operators that configure a node's SR-IOV besides ibvf (docs/coexistence.md):
 * the SR-IOV Network Operator's config daemon, alone or deployed by the NVIDIA
 * Network Operator, read from what they leave on the node. Where each fact
 * comes from in their sources (k8snetworkplumbingwg/sriov-network-operator,
 * Mellanox/network-operator):
 *
 *   /etc/sriov-operator/pci/<pciAddress>    the PF config the daemon applied: json.Marshal
 *        of api/v1 Interface {pciAddress, numVfs, name, linkType, vfGroups,
 *        externallyManaged} (pkg/consts/constants.go PfAppliedConfig,
 *        pkg/host/store/store.go SaveLastPfAppliedStatus)
 *   /etc/sriov-operator/sriov-interface-config.yaml   systemd mode: the node state's spec,
 *        written by gopkg.in/yaml.v3, whose keys are the Go field names in lower
 *        case ("pciaddress", "numvfs") as the struct has json tags only
 *        (pkg/host/internal/systemd/systemd.go WriteConfFile, pkg/host/types/types.go)
 *   /etc/sriov-operator/infiniband/guids    the GUID pool: a JSON array of {pciAddress |
 *        pfGuid, guids | guidsRange} (pkg/host/internal/infiniband/ib_guid_config.go);
 *        without it the daemon sets random VF GUIDs (infiniband.go ConfigureVfGUID)
 *   pod sriov-network-config-daemon-*       bindata/manifests/daemon/daemonset.yaml; its
 *        namespace is the operator's (sriov-network-operator, nvidia-network-operator
 *        under the NVIDIA Network Operator, config/default/kustomization.yaml)
 *   pods rdma-shared-dp-ds-*, sriov-device-plugin-*   the Network Operator's device
 *        plugins (manifests/state-rdma-shared-device-plugin/0060_rdma-shared-dev-plugin-ds.yaml):
 *        their config comes from the NicClusterPolicy
 *
 * The pods are the kubelet API's (node->podres) and the /var/log/pods entries. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/model/node.h"
#include "core/model/request.h"

struct sys;

#define OPERATORS_FILE_MAX (256u * 1024) /* an operator file read whole, at most */
#define OPERATORS_PODS_MAX 64		 /* operator pods recorded */

#define OPERATORS_PF_DIR   "/etc/sriov-operator/pci"
#define OPERATORS_SYSTEMD  "/etc/sriov-operator/sriov-interface-config.yaml"
#define OPERATORS_IB_GUIDS "/etc/sriov-operator/infiniband/guids"
#define OPERATORS_DAEMON   "sriov-network-config-daemon-"

/* Reads the operators' files and pods into n->op_claims and n->op_pods (after
 * pods_attach(): it reads n->podres); a file it cannot use is a note in
 * n->notes, and a PF config file that cannot be parsed still claims its PF.
 * Returns 0 or -ENOMEM. */
int operators_attach(struct sys *s, struct node *n);

/* The claim on the PF at bdf, or NULL. */
const struct op_claim *operators_claim(const struct node *n, const char *bdf);
/* "the SR-IOV Network Operator", "the NVIDIA Network Operator's SR-IOV Network Operator". */
const char *operators_name(enum op_name op);
/* The claim an action of kind on the PF at bdf would fight: CREATE and the VF
 * count, GUID and ASSIGN_ALL and the GUIDs, PERSIST either; NULL when none. */
const struct op_claim *operators_conflict(const struct node *n, const char *bdf,
					  enum action_kind kind);
/* "VF count and GUIDs", "VF count", "GUIDs". */
const char *operators_sets(const struct op_claim *c);
/* The evidence joined: "/etc/sriov-operator/pci/0000:18:00.0, pod ns/name". */
void operators_evidence(const struct op_claim *c, char *buf, size_t size);

/* The operator-side remedy for pf: a SriovNetworkNodePolicy selecting it by
 * rootDevices (and pfNames), with numVfs (its VF count now, else the
 * operator's), deviceType netdevice, isRdma and linkType ib. oneline: YAML's
 * flow form on one line; else the block form, one line per field. Names from
 * the node that are not plain words are left out. */
void operators_policy_yaml(const struct node *n, const struct pf *pf, const struct op_claim *c,
			   bool oneline, char *buf, size_t size);

/* The parsers, exposed for the tests. Each fills up to max claims' pciAddress
 * (bdf), numVfs, name and externallyManaged; returns how many, or -EINVAL
 * with why (bounded) when buf is not the format. */
int operators_parse_applied(const char *buf, size_t len, struct op_claim *ret, char *why,
			    size_t why_size);
int operators_parse_systemd(const char *buf, size_t len, struct op_claim *ret, size_t max,
			    char *why, size_t why_size);
