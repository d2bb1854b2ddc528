/* SPDX-License-Identifier: MIT */
/* The node model: PF -> VF -> RDMA device -> port, keyed by PCI address and
 * VF index. Names (netdev, ibdev) are attributes, never identity: they change,
 * and showing that they changed is the point.
 *
 * Unknown is not zero: every value read from the node carries a known flag
 * (struct kval) or is a NULL string. A snapshot is immutable once built. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"
#include "core/sys/podres.h"
#include "core/model/devplugin_config.h"
#include "core/model/topo.h"

struct sys;
struct sys_event;

/* A number read from the node; known is false when the file was missing,
 * unreadable or did not parse. */
struct kval {
	bool known;
	int64_t v;
};

struct kguid {
	bool known;
	uint64_t v;
};

struct port {
	unsigned int num;
	struct kval state;	/* enum port_state (names.h) */
	char *state_name;	/* the kernel's word: "ACTIVE" */
	struct kval phys_state; /* enum port_phys_state (names.h) */
	char *phys_state_name;	/* "LinkUp" */
	char *rate;		/* "400 Gb/sec (4X NDR)" */
	struct kval rate_mbps;	/* 400000; 2500 for 2.5 Gb/sec */
	char *link_layer;	/* "InfiniBand" / "Ethernet" */
	struct kval lid, sm_lid;
	struct kguid gid_prefix; /* high 64 bits of gids/0 */
	struct kguid port_guid;	 /* low 64 bits of gids/0 */
	struct kval pkey0;
};

struct rdma {
	char *name; /* ibdev: mlx5_0, rxe0 */
	struct kval node_type;
	struct kguid node_guid, sys_image_guid;
	char *fw_ver, *hca_type, *board_id;
	char *parent; /* Soft-RoCE: the netdev named by `parent` */
	struct port *ports;
	size_t n_ports;
};

/* What a netdev says of itself. */
struct netdev {
	char *name;
	struct kval ifindex, type, mtu, dev_port, flags;
	char *operstate;	/* "up", "down", "lowerlayerup" */
	char *address;		/* as sysfs prints it */
	struct kguid addr_guid; /* IPoIB (type 32): bytes 12-19 of the address */
	char **altnames;
	size_t n_altnames;
};

/* One PCI function, PF or VF. */
struct fn {
	char bdf[16];
	struct kval vendor, device;
	char *driver; /* NULL when no driver is bound */
	struct netdev *netdevs;
	size_t n_netdevs;
	struct rdma *rdmas;
	size_t n_rdmas;
	/* Its place in the PCIe tree: the realpath of /sys/bus/pci/devices/<bdf>
	 * as on the node ("/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0"),
	 * NULL when unread; numa_node (-1 from the kernel stays -1, known). */
	char *devpath;
	struct kval numa;
};

/* The PF's view of one VF: netlink VF info and the MOFED sriov/<vf>/ files. */
struct vf_admin {
	bool netlink_known; /* the PF's dump listed this VF */
	char *mac;
	struct kval vlan, spoofchk, trust, link_state, max_tx_rate;
	struct kguid node_guid, port_guid; /* administrative GUIDs */
	bool mofed;			   /* sriov/<vf>/ files present */
	struct kguid mofed_node, mofed_port;
	char *mofed_policy; /* Down, Up, Follow */
};

/* A kernel-log record that names an RDMA driver (core/snapshot/kmsg.c): from
 * /dev/kmsg ("3,812,123456789,-;mlx5_core: ...") or a captured dmesg text
 * ("[   12.345678] mlx5_core: ..."). */
struct kmsg_line {
	struct kval ts_usec; /* since boot; unknown when the line had no stamp */
	int prio;	     /* syslog level 0 (emerg) .. 7 (debug), -1 unknown */
	char *msg;	     /* the message without header or stamp */
	bool error;	     /* names a failure: Unknown symbol, disagrees, failed, error */
};

/* A systemd .link file (systemd.link(5)) from /etc, /run or /usr/lib
 * systemd/network: what it matches and the name it gives. Only the keys
 * that can pin a netdev's name are kept. */
struct link_file {
	char *path; /* as on the node: /etc/systemd/network/70-ibvf-0000-18-00.4.link */
	char **match_path, **match_original_name, **match_mac, **match_driver;
	size_t n_match_path, n_match_original_name, n_match_mac, n_match_driver;
	char *name;		    /* [Link] Name= */
	char *name_policy;	    /* [Link] NamePolicy= */
	char **match_permanent_mac; /* PermanentMACAddress= */
	size_t n_match_permanent_mac;
	bool match_other; /* a [Match] key ibvf cannot evaluate (Property=, Type=, ...) */
};

/* A PF's VF count as ibvf's boot unit (ibvf-sriov.service) re-creates it. */
struct persisted_pf {
	char bdf[16];
	unsigned int numvfs;
};

/* A VF's GUIDs as the boot unit sets them ("vf guid BDF --node G --port G"). */
struct persisted_guid {
	char bdf[16];
	bool has_node, has_port;
	uint64_t node, port;
};

/* ibvf's boot unit as systemd will take it at the next boot
 * (core/snapshot/persist_read.c). */
struct boot_unit {
	char *path;	  /* the unit file systemd loads; NULL: none */
	bool masked;	  /* a link to /dev/null or empty: it never runs */
	char *enabled_by; /* the .wants/ or .requires/ link that starts it; NULL: not enabled */
	char *error;	  /* a line ibvf cannot read as systemd would; NULL */
	/* The first ExecStart= whose program is not there to run (systemd fails
	 * the unit at it): the program as written, where, and the errno. */
	char *bad_exec;
	char *bad_exec_file;
	unsigned int bad_exec_line;
	int bad_exec_errno;
	size_t n_execs;
};

/* A pod-binding file that was found but could not be read whole (a
 * half-written CNI cache). */
struct bad_file {
	char *path; /* as on the node */
	char *why;  /* "truncated JSON at byte 412" */
};

/* Who configures a PF's SR-IOV besides ibvf (core/pods/operators.c). */
enum op_name {
	OP_SRIOV_OPERATOR = 1, /* the SR-IOV Network Operator's config daemon */
	OP_NETWORK_OPERATOR,   /* the same daemon, deployed by the NVIDIA Network Operator */
};

#define OP_EVIDENCE_MAX 4

/* An operator's hold on one PF: what it sets there and what shows it. */
struct op_claim {
	char bdf[16]; /* the PF */
	enum op_name op;
	bool numvfs;			     /* it sets the VF count (not externallyManaged) */
	bool guids;			     /* it sets the VFs' InfiniBand GUIDs */
	bool externally_managed;	     /* its policy leaves the VF count to the node */
	int want_numvfs;		     /* the count its config asks; -1 when unknown */
	char pf_name[16];		     /* the PF's name in its config; "" when none */
	char evidence[OP_EVIDENCE_MAX][200]; /* "/etc/sriov-operator/pci/<bdf>", "pod ns/name" */
	size_t n_evidence;
};

struct dp_config; /* a device plugin's config (core/pods/devplugin.h) */

/* Where a pod binding was found (docs/kubernetes.md). */
enum pod_source {
	POD_SRC_MULTUS = 1u << 0,     /* /var/lib/cni/multus/results */
	POD_SRC_IB_SRIOV = 1u << 1,   /* /var/lib/cni/ib-sriov */
	POD_SRC_SRIOV = 1u << 2,      /* /var/lib/cni/sriov (and sriov/pci/<bdf>) */
	POD_SRC_CHECKPOINT = 1u << 3, /* kubelet_internal_checkpoint */
	POD_SRC_PODLOG = 1u << 4,     /* /var/log/pods/<ns>_<name>_<uid> */
	POD_SRC_API = 1u << 5,	      /* the kubelet's pod-resources API (List) */
};

/* The VF's interface as seen inside the pod's netns (read over netlink). */
struct pod_netif {
	bool known;	 /* entered the netns and found the interface */
	int error;	 /* -errno when entering or reading failed, else 0 */
	char *name;	 /* its name in the pod (net1) */
	char *operstate; /* "up", "down", "lowerlayerdown", ... */
	struct kval ifindex, flags, mtu;
	char *address;
};

/* Which pod holds a VF, merged from every source that names its PCI address.
 * Strings are NULL when no source gave them. */
struct pod_binding {
	char bdf[16];
	char *ns, *name, *uid;
	char *container;   /* kubelet checkpoint ContainerName */
	char *resource;	   /* kubelet checkpoint ResourceName */
	char *network;	   /* Multus networkName */
	char *ifname;	   /* interface name in the pod (Multus ifName, ContIFNames) */
	char *host_ifname; /* its name on the host before the move (HostIFNames) */
	char *guid;	   /* GUID requested (HostIFGUID, infinibandGUID), as written */
	char *pkey;
	char *netns;	      /* /var/run/netns/cni-<uuid> or /proc/<pid>/ns/net */
	char *container_id;   /* the sandbox (infra) container */
	unsigned int sources; /* enum pod_source bits */
	bool stale;	      /* only a checkpoint entry, and no pod log directory confirms it */
	struct kval netns_present; /* netns names a file: it exists (1) or is gone (0) */
	struct pod_netif in_pod;
	/* The API's container and resource when it lists this VF (POD_SRC_API). */
	char *api_container, *api_resource;
	/* "namespace/name" of the pod the API gives this VF to when that is not
	 * the pod the files name (no POD_SRC_API then): a disagreement. */
	char *api_pod;
};

/* One GPU a pod holds, from the pod-resources API (List) or else the kubelet
 * checkpoint: the device ID as allocated and the GPU of the node it names. */
struct pod_gpu {
	char *ns, *name, *uid; /* uid NULL when only the API names the pod */
	char *container;
	char *resource;	      /* nvidia.com/gpu, nvidia.com/mig-1g.18gb */
	char *id;	      /* GPU-…, MIG-…, as the device plugin gave it */
	int gpu;	      /* index in node->gpus; -1 when no GPU of the node has that ID */
	unsigned int sources; /* POD_SRC_API, POD_SRC_CHECKPOINT */
};

struct vf {
	unsigned int index; /* virtfn<index> */
	struct fn fn;
	struct vf_admin admin;
	/* The GUIDs in effect: ibdev node_guid; port GUID from gids/0, else the
	 * IPoIB address, else MOFED's sriov/<vf>/port. */
	struct kguid node_guid, port_guid;
	struct pod_binding *pod; /* NULL when no source binds this VF to a pod */
};

struct pf {
	struct fn fn;
	struct kval numvfs, totalvfs, autoprobe;
	bool sriov; /* SR-IOV capable (sriov_totalvfs present) */
	struct vf *vfs;
	size_t n_vfs;
};

struct node {
	char *hostname;
	char *kernel;		/* /proc/sys/kernel/osrelease */
	char *driver_version;	/* /sys/module/mlx5_core/version (MOFED sets it) */
	struct kmsg_line *kmsg; /* kernel-log records naming an RDMA driver, oldest first */
	size_t n_kmsg;
	struct link_file *link_files; /* systemd .link files, in systemd's order */
	size_t n_link_files;
	char *persist_unit;		/* path of ibvf's boot unit when present */
	struct boot_unit boot_unit;	/* that unit's state for the next boot */
	struct persisted_pf *persisted; /* the VF counts it re-creates */
	size_t n_persisted;
	struct persisted_guid *persisted_guids; /* the VF GUIDs it sets */
	size_t n_persisted_guids;
	struct bad_file *cni_broken; /* pod-binding files that could not be read whole */
	size_t n_cni_broken;
	struct dp_config *dp_configs; /* device plugin configs found on the node */
	size_t n_dp_configs;
	/* The PFs an operator configures, by BDF, and its pods seen on the node
	 * ("namespace/name"): the config daemon, the device plugins. */
	struct op_claim *op_claims;
	size_t n_op_claims;
	char **op_pods;
	size_t n_op_pods;
	struct dp_skipped dp_skipped; /* the configs left out, and why */
	struct pf *pfs;		      /* sorted by BDF */
	size_t n_pfs;
	struct rdma *orphans; /* RDMA devices placed on no PCI function */
	size_t n_orphans;
	/* Pod bindings of PCI addresses that are no VF of this node. */
	struct pod_binding *pods_unplaced;
	size_t n_pods_unplaced;
	/* The node's GPUs, sorted by BDF, and the GPUs pods hold. */
	struct gpu *gpus;
	size_t n_gpus;
	struct pod_gpu *pod_gpus;
	size_t n_pod_gpus;
	/* What the kubelet's pod-resources API said (state PODRES_ABSENT when
	 * there is no socket; its note is then also in notes when it failed). */
	struct podres podres;
	/* What could not be read, one line each, for people; it also names each
	 * pod-binding file skipped, and why. */
	char **notes;
	size_t n_notes;
	/* The same facts for node_refresh(), which never parses a note: */
	bool links_unknown; /* no netlink link dump (notes[0] says why) */
	bool virtfn_unread; /* a PF's virtfn<N> link could not be read */
	/* /dev/kmsg could not be read (a container without it, say): the
	 * kernel-log checks did not run, which is not a clean log. */
	bool kmsg_unknown;
};

int node_discover(struct sys *s, struct node **ret, struct err *e);
/* Most events node_refresh() places; beyond, it discovers the whole node. */
#define NODE_REFRESH_EVENTS_MAX 1024
/* The node after the change events since old was built: the PCI functions
 * the events name (by BDF, netdev, ibdev or devpath) are read again, the rest
 * is copied from old, and the result equals what node_discover() would read.
 * An event it cannot place (another subsystem, a device new to old that is
 * no VF of a known PF, a virtual device) and more than
 * NODE_REFRESH_EVENTS_MAX events make it discover the whole node. old is
 * left as it was; both are freed with node_free(). */
int node_refresh(struct sys *s, const struct node *old, const struct sys_event *events,
		 size_t n_events, struct node **ret, struct err *e);
void node_free(struct node *n);
/* Frees what a binding holds (not the binding itself). */
void pod_binding_fini(struct pod_binding *b);
void pod_gpu_fini(struct pod_gpu *g);
/* Grows the array *arr_ptr of *n elements of size sz by one zeroed element;
 * returns it (and counts it in *n), or NULL when out of memory. */
void *node_arr_grow(void *arr_ptr, size_t *n, size_t sz);
/* Whether g is a GPU of the pod b names (same UID, else namespace/name). */
bool node_pod_gpu_held(const struct pod_binding *b, const struct pod_gpu *g);
/* The nearest to fn of the GPUs of the node that b's pod holds: its class
 * (TOPO_UNKNOWN when the pod holds none, or no distance is known) and the GPU
 * in *ret (NULL then). The one answer the checks, console and JSON give. */
enum topo_class node_pod_gpu_nearest(const struct node *n, const struct pod_binding *b,
				     const struct fn *fn, const struct gpu **ret);
/* The allocation through which b's pod holds gpu, or NULL. */
const struct pod_gpu *node_pod_gpu_of(const struct node *n, const struct pod_binding *b,
				      const struct gpu *gpu);
void linkfile_fini(struct link_file *lf);
void linkfile_free_all(struct link_file *v, size_t n);

/* "0000:18:00.3" or, when short_ok, "18:00.3" (domain 0), any case, into the
 * kernel's lowercase "0000:18:00.3"; false for anything else. */
bool node_bdf_normalize(const char *in, bool short_ok, char out[static 16]);

/* A function's first RDMA device and that device's first port: what a
 * ConnectX function has (one each). NULL when it has none. */
const struct rdma *fn_rdma(const struct fn *f);
const struct port *fn_port(const struct fn *f);
/* Whether the function's port runs InfiniBand / Ethernet, as its link_layer
 * says; false when unknown (no RDMA device, no port, no link_layer). */
bool fn_is_ib(const struct fn *f);
bool fn_is_eth(const struct fn *f);
/* The same for one port (NULL: false). */
bool port_is_ib(const struct port *p);
bool port_is_eth(const struct port *p);
/* Whether the netdev is an IPoIB one (type ARPHRD_INFINIBAND). */
bool netdev_is_ib(const struct netdev *nd);
/* A VF's link-state policy (enum vf_link_state, names.h) as the kernel's
 * netlink or, without it, the MLNX_OFED sriov/N/policy file says; -1 when
 * neither is known. */
int vf_link_state_of(const struct vf *vf);
/* The VF's name on the host: its netdev's, or, while a pod holds it, the one
 * it had before it moved into the pod (and gets back); NULL when neither. */
const char *vf_host_name(const struct vf *vf);

const struct pf *node_find_pf(const struct node *n, const char *bdf);
const struct vf *node_find_vf(const struct node *n, const char *pf_bdf, unsigned int index);
/* The PF or VF at that PCI address (as the kernel writes it); *ret_vf NULL
 * for a PF. Either ret_ may be NULL. What a user types goes through
 * node_resolve() (resolve.h) instead. */
const struct fn *node_find_fn(const struct node *n, const char *bdf, const struct pf **ret_pf,
			      const struct vf **ret_vf);
