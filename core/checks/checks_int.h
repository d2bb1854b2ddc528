/* SPDX-License-Identifier: MIT */
/* The checks' own functions, one per row of checks_table (core/checks/checks.c),
 * grouped by what they read: checks_guid.c, checks_port.c, ... */
#pragma once

#include "core/base/escape.h"

#include "checks.h"
#include "core/model/names.h"

#define CHECK_FN(name)                                                                             \
	void name(struct findings *out, const struct node *n, const struct checks_opts *o)

CHECK_FN(check_guid_zero);
/* dp */
CHECK_FN(check_dp_selector_empty);
CHECK_FN(check_dp_link_type);
CHECK_FN(check_dp_config_invalid);
CHECK_FN(check_dp_not_allocatable);
CHECK_FN(check_dp_config_skipped);

/* The path of a function's file as it is on a running node:
 * "/sys/bus/pci/devices/0000:18:00.1/<rel>". */
void check_fn_path(char *buf, size_t size, const char *bdf, const char *rel);
/* "/sys/class/infiniband/<ibdev>/<rel>". */
void check_ib_path(char *buf, size_t size, const char *ibdev, const char *rel);

/* checks part (issue 11): the other checks, by what they read. */
CHECK_FN(check_guid_duplicate);
CHECK_FN(check_guid_invalid);
CHECK_FN(check_kmsg_mismatch);
CHECK_FN(check_probe_failed);
CHECK_FN(check_vf_unbound);
CHECK_FN(check_port_down);
CHECK_FN(check_ethernet_fallback);
CHECK_FN(check_firmware_old);
CHECK_FN(check_sriov_disabled);
CHECK_FN(check_sriov_layout);
CHECK_FN(check_rate_degraded);
CHECK_FN(check_name_unstable);
CHECK_FN(check_boot_unit);
CHECK_FN(check_name_changed);
CHECK_FN(check_name_collision);
CHECK_FN(check_pod_stale);
CHECK_FN(check_pod_netns_gone);
CHECK_FN(check_cni_cache_broken);
/* The kubelet's pod-resources API against the files (core/checks/pods_api.c),
 * and the VFs far from their pod's GPUs (core/checks/affinity.c). */
CHECK_FN(check_pod_unconfirmed);
CHECK_FN(check_pod_no_cni);
CHECK_FN(check_pod_affinity);
/* What the recorded history says (core/checks/past.c). */
CHECK_FN(check_port_flapping);
CHECK_FN(check_guid_lost_boot);
/* An operator's hold on a PF (core/checks/operators.c). */
CHECK_FN(check_operator_managed);

/* Shared by the checks (core/checks/util.c, core/checks/hca.c). */
/* The function talks InfiniBand: its port's link layer, else (no RDMA
 * device) an IPoIB netdev (type 32). */
bool check_fn_ib(const struct fn *fn);
/* The remedy for a VF's zero, duplicate or invalid GUID: `ibvf vf guid`
 * with ibvf's scheme GUID (core/checks/guid.c). */
void check_remedy_vf_guid(struct finding *f, const struct pf *pf, const struct vf *vf);
/* "mlx5_0" (the PF's RDMA device) or its PCI address, for titles. */
const char *check_pf_label(const struct pf *pf);
/* "/sys/class/infiniband/<ibdev>/ports/<num>/<file>". */
void check_port_path(char *buf, size_t size, const char *ibdev, const struct port *p,
		     const char *file);
/* A wall-clock time in microseconds as "2026-12-04T03:12:07Z" ("?" for none). */
#define CHECK_TIME_MAX 32
void check_time_format(int64_t t_us, char buf[static CHECK_TIME_MAX]);
/* "kernel log [  123.456789]" (dmesg's stamp), or "kernel log" without one. */
void check_kmsg_where(char *buf, size_t size, const struct kmsg_line *l);
/* The kernel-log record saying the function at bdf failed to probe, or NULL. */
const struct kmsg_line *check_probe_failure(const struct node *n, const char *bdf);
/* Finds a PCI address ("0000:18:00.2") in s: copies it into bdf and returns
 * a pointer to it in s, or NULL. */
const char *check_find_bdf(const char *s, char bdf[16]);

/* The node's HCA models (core/checks/hca.c). A compute HCA is a PF whose
 * port runs InfiniBand, or one fallen back to Ethernet. */
bool check_pf_ib(const struct pf *pf);
/* Same model: vendor and PCI device id, and board_id (PSID) when both
 * sides have one. */
bool check_same_model(const struct pf *a, const struct pf *b);
/* An Ethernet PF that is the same model and layout as an InfiniBand PF of
 * the node (which *ret_ib names): a compute HCA fallen back to Ethernet. */
bool check_pf_fallback(const struct node *n, const struct pf *pf, const struct pf **ret_ib);
bool check_pf_compute(const struct node *n, const struct pf *pf);

/* The problems (core/checks/group.c): freed by findings_fini(), as JSON. */
void problems_fini(struct findings *fs);
struct json_object *problems_to_json(const struct findings *fs);
struct json_object *finding_remedy_to_json(const struct finding_remedy *r);
