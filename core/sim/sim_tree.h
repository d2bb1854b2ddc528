/* SPDX-License-Identifier: MIT */
/* Writes the simulated node's tree (docs/fixture.md) in the exact kernel
 * formats of docs/kernel.md. Used by `ibvf mkfixture`, by `ibvf --sim` on
 * first use, and by sys_sim.c when the simulated kernel creates VFs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"

struct sim_fixture_opts {
	bool healthy;	    /* no seeded faults */
	unsigned int pfs;   /* compute PFs (InfiniBand); 0 = 8 */
	unsigned int vfs;   /* VFs per compute PF; 0 = 8 unless vfs_set */
	bool vfs_set;	    /* vfs is meant even when 0 (PFs without VFs) */
	const char *kernel; /* release to report; NULL = 6.8.0-55-generic */
	int64_t at_us;	    /* when the node is made (wall clock microseconds; 0: now) */
};

#define SIM_PFS_MAX 64
#define SIM_VFS_MAX 255

/* Creates the tree in dir (which must be absent or empty). */
int sim_fixture_create(const char *dir, const struct sim_fixture_opts *o, struct err *e);

/*
 * Below: the simulator's own plumbing, shared by sim_*.c and sys_sim.c.
 * Paths named `rel` are relative to the tree's root ("sys/class/net/ib0").
 */

#define SIM_OUI_GUID  0xa088c20300000000ULL /* Mellanox OUI a0:88:c2 */
#define SIM_PF_DEVICE 0x1021		    /* ConnectX-7 */
#define SIM_VF_DEVICE 0x101e		    /* ConnectX family VF */
#define SIM_FW_OK     "28.43.1014"
#define SIM_FW_OLD    "28.39.1002"
#define SIM_RATE_NDR  "400 Gb/sec (4X NDR)"
#define SIM_RATE_HDR  "200 Gb/sec (4X HDR)"
#define SIM_RATE_2X   "200 Gb/sec (2X NDR)" /* two of the four lanes trained */
/* PSIDs: the compute HCAs are single-port OSFP cards, the storage NICs
 * dual-port ones. */
#define SIM_BOARD_COMPUTE "MT_0000000838"
#define SIM_BOARD_STORAGE "MT_0000000834"

/* snprintf without the compiler's truncation warnings: paths are checked
 * where it matters. Returns -ENAMETOOLONG when truncated. */
int sim_fmt(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Writes a file (creating its parent directories) with formatted content. */
int sim_putf(const char *root, struct err *e, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int sim_mkdirs(const char *root, const char *rel, struct err *e);
/* Writes dir/name under root with formatted content, once r is still 0:
 * for writers of many attribute files, with the locals int r, char rel[]
 * (the path's buffer), const char *root and struct err *e in scope. */
#define SIM_PUT_IN(dir, name, ...)                                                                 \
	do {                                                                                       \
		sim_fmt(rel, sizeof(rel), "%s/%s", dir, name);                                     \
		if (r == 0)                                                                        \
			r = sim_putf(root, e, rel, __VA_ARGS__);                                   \
	} while (0)
/* A relative symlink at link_rel pointing at target_rel, replacing any. */
int sim_symlink(const char *root, const char *link_rel, const char *target_rel, struct err *e);
/* Removes a file, link or directory tree; absent is fine. */
int sim_rmtree(const char *root, const char *rel, struct err *e);
/* Reads a one-line file without its trailing newline. */
int sim_get(const char *root, const char *rel, char *buf, size_t size);
int sim_get_u64(const char *root, const char *rel, uint64_t *ret);
bool sim_exists(const char *root, const char *rel);
/* The canonical form of rel (symlinks resolved), relative to the root. */
int sim_resolve(const char *root, const char *rel, char *buf, size_t size);
/* The lowest prefix<N> not present in class_rel ("sys/class/net", "ib"). */
int sim_free_name(const char *root, const char *class_rel, const char *prefix, char *buf,
		  size_t size);
/* Hands out the next value of the counter file .sim/<name> (ifindex, lid). */
int sim_counter_next(const char *root, const char *name, unsigned int *ret, struct err *e);
/* Appends one uevent line to .sim/events. old may be NULL. */
int sim_event_add(const char *root, const char *action, const char *subsystem, const char *name,
		  const char *old, const char *fn_rel, struct err *e);
/* The BDF `offset` routing IDs after bdf (SR-IOV VF numbering); -ERANGE past bus ff. */
int sim_bdf_add(const char *bdf, unsigned int offset, char buf[static 16]);
/* The PCI function's directory under sys/devices for a BDF. */
int sim_fn_rel(const char *root, const char *bdf, char *buf, size_t size);

struct sim_fn_spec {
	const char *bdf;
	unsigned int device;   /* PCI device id */
	bool ethernet;	       /* class 0x020000 rather than 0x020700 */
	const char *pf_rel;    /* VF: the PF's directory; NULL for a PF */
	unsigned int vf_index; /* VF: virtfn<vf_index> */
	unsigned int totalvfs, numvfs, vf_offset, vf_stride; /* PF */
	const char *numa_node; /* PF: its numa_node ("0"; NULL: "-1"); a VF takes its PF's */
};
/* The PCI function directory, its bus link, and for a VF physfn/virtfn. */
int sim_fn_write(const char *root, const char *fn_rel, const struct sim_fn_spec *f, struct err *e);
/* Binds mlx5_core: the driver link and the driver's BDF link. */
int sim_fn_bind(const char *root, const char *fn_rel, const char *bdf, struct err *e);

struct sim_ibdev_spec {
	const char *name;
	unsigned int device; /* PCI device id: hca_type is MT<decimal> */
	uint64_t node_guid, sys_image_guid, port_guid;
	const char *fw_ver;
	const char *board_id; /* NULL: SIM_BOARD_COMPUTE */
	bool ethernet;	      /* RoCE: gids from the MAC */
	uint8_t mac[6];
	int state, phys_state; /* 4 ACTIVE / 5 LinkUp ... */
	const char *rate;
	unsigned int lid, sm_lid;
	const char *hostname;
};
int sim_ibdev_write(const char *root, const char *fn_rel, const struct sim_ibdev_spec *d,
		    struct err *e);

struct sim_netdev_spec {
	const char *name;
	unsigned int ifindex;
	bool ethernet;
	bool up;      /* IFF_UP */
	bool carrier; /* operstate up when also up */
	unsigned int mtu, dev_port;
	uint32_t qpn;	    /* IPoIB: address bytes 1-3 */
	uint64_t port_guid; /* IPoIB: address bytes 12-19 */
	uint8_t mac[6];	    /* Ethernet */
};
int sim_netdev_write(const char *root, const char *fn_rel, const struct sim_netdev_spec *n,
		     struct err *e);

/* The administrative VF state a PF's netlink dump reports (.sim/vf/<pf>,
 * sim_vfstate.c). */
struct sim_vf_admin {
	uint8_t mac[6];
	uint64_t node_guid, port_guid;
	int link_state; /* IFLA_VF_LINK_STATE_*: 0 auto, 1 enable, 2 disable */
	int spoofchk, trust;
};
int sim_vf_admin_write(const char *root, const char *pf_bdf, unsigned int vf,
		       const struct sim_vf_admin *a, struct err *e);
int sim_vf_admin_read(const char *root, const char *pf_bdf, unsigned int vf,
		      struct sim_vf_admin *ret);
/* Every VF below n at once: ret[vf] where have[vf]. -ENOENT: no VF state. */
int sim_vf_admin_load(const char *root, const char *pf_bdf, struct sim_vf_admin *ret, bool *have,
		      unsigned int n);
/* MLNX_OFED's <pf>/sriov/<vf>/{node,port,policy}. */
int sim_mofed_write(const char *root, const char *pf_rel, unsigned int vf, uint64_t node,
		    uint64_t port, const char *policy, struct err *e);

/* The DGX H200's GPUs (sim_gpu.c). */
#define SIM_GPU_VENDOR	 0x10de
#define SIM_GPU_DEVICE	 0x2335 /* H200 SXM */
#define SIM_GPU_MODEL	 "NVIDIA H200"
#define SIM_GPU_DRIVER	 "550.127.08"
#define SIM_GPU_UUID_LEN 48
struct sim_gpu_spec {
	const char *bdf;
	unsigned int index; /* GPU i: its minor, and its UUID's seed */
	int numa_node;
};
/* The PCI function (class 0x030200, bound to nvidia) and the driver's
 * information file. */
int sim_gpu_write(const char *root, const char *fn_rel, const struct sim_gpu_spec *g,
		  struct err *e);
/* GPU i's UUID ("GPU-…"): the same on every fixture. */
void sim_gpu_uuid(unsigned int index, char buf[static SIM_GPU_UUID_LEN]);

/* One VF a pod holds, for the Kubernetes files (sim_k8s.c). */
struct sim_pod_vf {
	bool present; /* the VF exists in this fixture */
	char bdf[16];
	unsigned int vf;
	uint64_t guid;
	char host_ifname[16]; /* its name before it moved into the pod */
	/* The GPU the pod got with this VF ("" none) and its NUMA node. */
	char gpu_uuid[SIM_GPU_UUID_LEN];
	int gpu_numa;
};
enum {
	SIM_POD_VFS = 4
}; /* trainer-0 net1, trainer-1 net1+net2, llm-serve-0 net1 */
/* Writes CNI caches, the kubelet checkpoint, pod log dirs and netns files.
 * all_vfs and gpus are the devices the device plugins registered; a pod's
 * GPU (sim_pod_vf.gpu_uuid) gets an nvidia.com/gpu entry of its own.
 * stale_bdf (may be NULL) gets a checkpoint entry of a pod that is gone;
 * faulty writes llm-serve-0's Multus cache half-way and leaves trainer-0's
 * netns file out (its sandbox went, its CNI caches stayed). */
int sim_k8s_write(const char *root, const struct sim_pod_vf pods[SIM_POD_VFS],
		  const char *stale_bdf, bool faulty, char (*all_vfs)[16], size_t n_all,
		  char (*gpus)[SIM_GPU_UUID_LEN], size_t n_gpus, struct err *e);

/* A pod as the kubelet and the CNI know it. */
struct sim_pod {
	const char *ns, *name, *uid, *netns_uuid, *container_id, *container;
};
/* A pod started with one VF (v, in the pod as ifname): its kubelet
 * checkpoint entry added, its log directory, its Multus and ib-sriov-cni
 * caches as the fixture's pods have them (the move itself is the CNI's ADD,
 * sim_boot.h). */
int sim_k8s_pod_add(const char *root, const struct sim_pod *p, const struct sim_pod_vf *v,
		    const char *ifname, struct err *e);
/* The name of the pod interface's ib-sriov-cni cache under var/lib/cni/ib-sriov. */
int sim_k8s_cache_name(const struct sim_pod *p, const char *ifname, char *buf, size_t size);

/* A VF's netdev name on the host (sim_systemd.c): its own, or the one it had
 * before it moved into a pod. */
struct sim_vf_name {
	char bdf[16], pf_bdf[16], name[16];
	unsigned int vf;
};
/* A PF's VF count as the boot unit re-creates it. */
struct sim_pf_count {
	char bdf[16];
	unsigned int numvfs;
	/* The GUID of VF 0 when the unit sets the VFs' GUIDs as persist writes
	 * them (VF i gets guid0 + i); 0: no GUID lines. */
	uint64_t guid0;
};
/* Writes etc/systemd/network/70-ibvf-<bdf>.link for each of names and
 * etc/systemd/system/ibvf-sriov.service re-creating counts, as `ibvf
 * persist` writes them. */
int sim_systemd_write(const char *root, const struct sim_vf_name *names, size_t n_names,
		      const struct sim_pf_count *counts, size_t n_counts, bool old_unit,
		      struct err *e);
/* The stand-ins of the programs a boot unit runs (usr/sbin/modprobe,
 * usr/bin/udevadm, usr/sbin/ibvf), mode 0755. */
int sim_systemd_programs(const char *root, struct err *e);

/* The device plugins' ConfigMaps in their pods' kubelet volumes
 * (sim_devplugin.c): right, or with faulty the field report's SR-IOV
 * selectors that match no VF. */
int sim_devplugin_write(const char *root, bool faulty, struct err *e);

/* Fault injection (sim_faults.c); param is sys_sim_params.faults. The errno
 * an armed fault gives the operation kind ("write" with the path, "rename",
 * ...; path NULL), or 0. */
int sim_fault_errno(const char *root, const char *param, const char *kind, const char *path);
/* The value of an armed "KIND=VALUE" that is no errno (podres=timeout) into
 * buf: 1 when one is armed, else 0. */
int sim_fault_value(const char *root, const char *param, const char *kind, char *buf, size_t size);
/* Makes every armed vanish:BDF happen; the caller holds .sim/lock. */
int sim_faults_vanish(const char *root, const char *param, struct err *e);
/* Plants what the SR-IOV Network Operator leaves for each armed
 * "operator:BDF" fault (sim_faults.c), once. */
int sim_faults_operator(const char *root, const char *param, struct err *e);
/* An armed "hold:SUFFIX" on path: waits while DIR/.sim/hold exists. */
void sim_faults_hold(const char *root, const char *param, const char *path);

/* The simulated kernel's actions on the tree (sim_kernel.c). The caller
 * holds the .sim/lock and names its request in what ("cannot write '8' to
 * '/sys/.../sriov_numvfs'"): what the kernel refuses returns the errno, and e
 * says "<what>: <strerror> (<reason>)"; nobody parses the message back. */
int sim_kernel_set_numvfs(const char *root, const char *pf_rel, const char *value, const char *what,
			  struct err *e);
int sim_kernel_bind(const char *root, const char *bdf, const char *what, struct err *e);
int sim_kernel_unbind(const char *root, const char *bdf, const char *what, struct err *e);
/* Probe failures (sim_probe.c): the errno (< 0) the probe of bdf fails with
 * (.sim/probe_fail), else 0; and the driver core's record of one, appended
 * to the kernel log. */
int sim_probe_fails(const char *root, const char *bdf);
int sim_probe_fail_log(const char *root, const char *bdf, int err, struct err *e);
/* The stamp (microseconds since boot) of the kernel log's last record; 0
 * when it has none. */
unsigned long long sim_kmsg_last_usec(const char *root);
/* A boot's identity (sim_boot.c): a new random proc/sys/kernel/random/boot_id
 * and proc/stat's btime, the boot seen at at_us (wall clock microseconds, 0:
 * now): the kernel booted as long before as its log's last record says, so
 * every record lies before at_us. */
int sim_boot_identity(const char *root, int64_t at_us, struct err *e);
/* A random (version 4) UUID, lowercase, as the kernel and Kubernetes write them. */
void sim_uuid_random(char buf[static 37]);
/* Removes a PCI function as hot-unplug would (fault injection). */
int sim_kernel_vanish(const char *root, const char *bdf, struct err *e);
/* A write to <pf>/sriov/<vf>/{node,port,policy}. */
int sim_kernel_mofed_write(const char *root, const char *pf_rel, unsigned int vf, const char *file,
			   const char *value, const char *what, struct err *e);
/* A refusal: returns -errnum with e = "<what>: <strerror(errnum)> (<reason>)". */
int sim_refuse(struct err *e, const char *what, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Announces that the VFs' admin state of the PF at pf_rel changed. */
int sim_kernel_vf_admin_event(const char *root, const char *pf_rel, struct err *e);
/* The canonical directory of a netdev named in sys/class/net; -ENODEV
 * (this and sim_link_read() are in sim_links.c). */
int sim_netdev_dir(const char *root, const char *ifname, char *buf, size_t size);
/* Moves a netdev to a new name in the tree, with its "move" event; EEXIST
 * when the name is taken (no other check: the caller is the kernel). */
int sim_netdev_rename(const char *root, const char *ifname, const char *newname, struct err *e);
/* A name the kernel's dev_valid_name() accepts. */
bool sim_ifname_valid(const char *name);

/* The simulated udevd (sim_udev.c): a netdev appeared on the function bdf
 * with its kernel name; the first .link file whose [Match] matches names it
 * (NamePolicy=, then Name=), else it keeps the kernel's, or with
 * path_default gets its PCI path name (what the distribution's
 * 99-default.link gives the PFs at boot). ret_name (may be NULL, 16 bytes)
 * gets the name it has afterwards. */
int sim_udev_net_add(const char *root, const char *bdf, const char *ifname, bool path_default,
		     char *ret_name, struct err *e);
/* The name the first .link file matching the netdev ifname of bdf gives it
 * ("" when no file names it). */
int sim_udev_link_name(const char *root, const char *bdf, const char *ifname,
		       char ret_name[static 16], struct err *e);
/* ID_NET_NAME_PATH of a PF or VF (ibp24s0, enp41s0f0np0, ibp24s0v3), as
 * systemd's net_id builds it for the simulated PCI layout. */
int sim_udev_path_name(const char *root, const char *bdf, char buf[static 16]);

/* The order the simulated kernel probes new VFs in (.sim/probe): absent or
 * "index", VF 0 first (the default); "shuffle SEED": a permutation drawn
 * from SEED, the file keeping the next seed so each enable draws anew.
 * Fills perm[0..n) with the VF indexes in probe order. */
int sim_probe_order(const char *root, unsigned int *perm, unsigned int n, struct err *e);

/* One netdev as RTM_GETLINK would report it; a PF's VFs from .sim/vf/. */
struct sys_link;
int sim_link_read(const char *root, const char *name, struct sys_link *l);
/* The PF's BDF and the VF's index for a VF BDF; -ENODEV if not a VF. */
int sim_kernel_vf_of(const char *root, const char *vf_bdf, char pf_bdf[static 16],
		     unsigned int *ret_vf);
