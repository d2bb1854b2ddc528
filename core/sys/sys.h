/* SPDX-License-Identifier: MIT */
/* The kernel boundary: everything that touches the node goes through here.
 *
 * Two implementations share this interface:
 *   linux/sys_linux.c  the real node: files under a root prefix (default "/"),
 *                netlink through libnl, change events from a udev monitor;
 *   sim/sys_sim.c    a simulated kernel over a fixture tree (scripts/mkfixture),
 *                applying what the kernel would do on writes.
 * Everything above (discovery, checks, actions, console) is the same code in
 * both modes.
 *
 * Paths are given as they are on the node ("/sys/class/net/ib0/address"); the
 * root prefix is applied inside. All reads are bounded by the caller's buffer.
 * Functions return 0 (or a length) on success and a negative errno on failure;
 * those taking a struct err fill it with a one-line message on failure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"

struct sys;

enum sys_guid_kind {
	SYS_GUID_NODE,
	SYS_GUID_PORT,
};

/* One VF as the PF's netlink dump reports it (IFLA_VFINFO_LIST). Integer
 * fields that the kernel did not send are -1; GUIDs carry a known flag.
 * The GUIDs are the *administrative* values (0 if never set since the PF
 * driver loaded), not necessarily the ones in effect. */
struct sys_vf_info {
	uint32_t vf;
	uint8_t mac[32];
	int64_t vlan, qos;
	int64_t min_tx_rate, max_tx_rate; /* Mb/s */
	int spoofchk, trust, link_state;  /* link_state: IFLA_VF_LINK_STATE_* */
	bool node_guid_known, port_guid_known;
	uint64_t node_guid, port_guid;
};

#define SYS_IFNAMSIZ	 16
#define SYS_ALTIFNAMSIZ	 128
#define SYS_ALTNAMES_MAX 4

/* One network interface from an RTM_GETLINK dump. */
struct sys_link {
	int ifindex;
	char name[SYS_IFNAMSIZ];
	unsigned int flags; /* IFF_* */
	unsigned int type;  /* ARPHRD_* */
	int operstate;	    /* IF_OPER_*, -1 unknown */
	unsigned int mtu;
	uint8_t addr[32];
	size_t addr_len;
	char altnames[SYS_ALTNAMES_MAX][SYS_ALTIFNAMSIZ];
	size_t n_altnames;
	int num_vf; /* IFLA_NUM_VF, -1 when not sent */
	struct sys_vf_info *vfs;
	size_t n_vfs;
};

/* A change on the node, as a uevent describes it, or as rtnetlink does for a
 * link (RTNLGRP_LINK): a rename is "move" with old_name, up/down, carrier,
 * MTU or address "change", both of subsystem "net"; and
 * SYS_EVENT_VF_ADMIN on a PF's netdev says that only the administrative
 * state of its VFs may have changed (GUIDs, link-state policy, MAC: the
 * RTM_NEWLINK the kernel sends after a VF setting), which the PF's VF list
 * (IFLA_VFINFO_LIST) tells. */
#define SYS_EVENT_VF_ADMIN "vfadmin"
struct sys_event {
	char action[16];    /* add, remove, change, move, bind, unbind, vfadmin */
	char subsystem[32]; /* pci, net, infiniband, ... */
	char name[64];	    /* sysname: BDF, ifname, ibdev */
	char old_name[64];  /* for move: the previous name, else empty */
	char devpath[256];
};

/* Simulation parameters; all optional (NULL/0 keeps the fixture's own). */
struct sys_sim_params {
	const char *kernel; /* kernel release the simulated node reports */
	const char *faults; /* fault injection spec, see sim/sim_faults.c */
};

int sys_open_linux(const char *root, struct sys **ret, struct err *e);
int sys_open_sim(const char *dir, const struct sys_sim_params *params, struct sys **ret,
		 struct err *e);
void sys_close(struct sys *s);
/* A second handle on the node s is open on, with the same parameters: a
 * handle is used by one thread at a time, so a worker thread gets its own. */
int sys_reopen(struct sys *s, struct sys **ret, struct err *e);

bool sys_is_sim(const struct sys *s);
/* The root prefix ("/" on the real node). */
const char *sys_root(const struct sys *s);

/* Reads a file; buf is NUL-terminated. Returns the length, -EFBIG when the
 * file does not fit in size-1 bytes, or -errno (read errors are data: sysfs
 * answers EOPNOTSUPP for phys_port_name on IPoIB). */
int sys_read(struct sys *s, const char *path, char *buf, size_t size);
/* sys_read() with trailing whitespace removed: for one-value sysfs attributes. */
int sys_read_attr(struct sys *s, const char *path, char *buf, size_t size);
/* Reads a whole file of at most max bytes into a malloc'd NUL-terminated buffer. */
int sys_read_file(struct sys *s, const char *path, size_t max, char **ret, size_t *ret_len);
/* Reads the kernel log (/dev/kmsg records, or a captured file of them) into a
 * malloc'd buffer of at most max bytes, one message per line. */
int sys_read_kmsg(struct sys *s, size_t max, char **ret, size_t *ret_len);
int sys_write(struct sys *s, const char *path, const char *value, struct err *e);
/* The target of a symlink, as stored. */
int sys_readlink(struct sys *s, const char *path, char *buf, size_t size);
/* The last component of a symlink's target (a BDF, a driver name, ...). */
int sys_readlink_name(struct sys *s, const char *path, char *buf, size_t size);
int sys_exists(struct sys *s, const char *path);
/* Whether the node's programs (/usr/sbin/modprobe, ...) are what this process
 * sees under the root: false when IBVF_NODE_PROGRAMS=unseen says they are
 * not (the DaemonSet's container, which mounts the host's files it reads at
 * their own paths, but not the host's /usr). */
bool sys_programs_visible(struct sys *s);
struct stat;
/* stat(2) of path on the node, links followed inside its root: 0 or -errno. */
int sys_stat(struct sys *s, const char *path, struct stat *ret);
/* Whether path, on the node (links followed inside its root), is a program
 * systemd could run: 0 for a regular file with an execute bit; -ENOENT,
 * -EACCES (no execute bit) or -EISDIR / -EINVAL (not a regular file). */
int sys_exec_check(struct sys *s, const char *path);
/* Sorted names in a directory, without "." and "..". Free with sys_list_free. */
int sys_list(struct sys *s, const char *path, char ***ret, size_t *ret_n);
void sys_list_free(char **names, size_t n);

/* Netlink. */
int sys_link_dump(struct sys *s, struct sys_link **ret, size_t *ret_n, struct err *e);
void sys_links_free(struct sys_link *links, size_t n);
/* One link by name or altname, as the dump reports it (with its VF list):
 * cheaper than a dump when only a few links are wanted. Returns -ENODEV
 * with "no network interface 'X'" when there is none. Release ret's VF list
 * with sys_link_fini(). */
int sys_link_get(struct sys *s, const char *ifname, struct sys_link *ret, struct err *e);
/* Frees what a sys_link owns (its VF list) and empties it; NULL is fine. */
void sys_link_fini(struct sys_link *l);
int sys_link_rename(struct sys *s, const char *ifname, const char *newname, struct err *e);
int sys_link_set_up(struct sys *s, const char *ifname, bool up, struct err *e);
int sys_vf_set_guid(struct sys *s, const char *pf_ifname, uint32_t vf, enum sys_guid_kind kind,
		    uint64_t guid, struct err *e);
int sys_vf_set_link_state(struct sys *s, const char *pf_ifname, uint32_t vf, int state,
			  struct err *e);

/* Change events: the fd becomes readable when the node changed; then call
 * sys_event_read() until it returns 0. Returns 1 with an event, 0 when none
 * is pending, -errno on failure. */
int sys_event_fd(struct sys *s);
int sys_event_read(struct sys *s, struct sys_event *ret);

/* Counting work: fn is called with each path read (file opened, directory
 * listed, link read, existence checked) and each link asked of netlink
 * ("netlink:IFNAME", "netlink:dump"); NULL stops it. For tests and
 * benchmarks that show what a rebuild reads. */
/* The kubelet's pod-resources API (core/sys/podres.h): on the real node a
 * gRPC client on the socket under the root (core/linux/podres_grpc.c), in the
 * simulation the simulated kubelet. Never fails but for -ENOMEM (ret then
 * zeroed): what went wrong is ret->state and ret->note; podres_fini(ret)
 * after use. sys_set_podres sets the socket, the
 * deadline and the size bound for the reads that follow (copied). */
struct podres;
struct podres_opts;
int sys_podres_read(struct sys *s, struct podres *ret);
void sys_set_podres(struct sys *s, const struct podres_opts *o);

typedef void (*sys_trace_fn)(void *arg, const char *path);
void sys_set_trace(struct sys *s, sys_trace_fn fn, void *arg);
