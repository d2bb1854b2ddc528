/* SPDX-License-Identifier: MIT */
/* The next boot, predicted from the files on the node (docs/kernel.md "The
 * next boot"): which VFs ibvf's boot unit will create, and the name udev
 * will give each VF's netdev, with the file that decides it. `check`
 * (name-unstable, boot-unit), `metrics` (ibvf_vf_name_pinned) and `persist`
 * all ask here, so they cannot disagree.
 *
 * The name, as systemd-udevd's net_setup_link gives it: the first .link file
 * in systemd's order (file name across /etc, /run, /usr/local/lib, /usr/lib,
 * /lib; a name in an earlier directory masks the others) whose [Match]
 * matches the new netdev is the only one applied. Its NamePolicy= words are
 * tried in order, then its Name=:
 *   keep      keeps a name userspace gave: a VF created at boot has none
 *   kernel    keeps a name the kernel calls predictable: ib<N>/eth<N> are not
 *   database, onboard, mac
 *             give nothing to a ConnectX VF (no hwdb entry, no firmware
 *             index; IPoIB has no MAC name)
 *   slot      a hotplug slot's name: not modelled (see docs/kernel.md)
 *   path      udev's ID_NET_NAME_PATH: ib/en, P<domain> when not 0,
 *             p<bus>s<slot>, f<function> when the PF's slot has another PF,
 *             then v<VF index> (systemd's naming scheme v239 and later)
 * A netdev no file matches, or one whose file gives no name, keeps the
 * kernel's enumerated name, which depends on probe order. */
#pragma once

#include <stdbool.h>
#include <json-c/json.h>
#include <stddef.h>

#include "core/model/node.h"

enum boot_name_source {
	BOOT_NAME_NO_FILE, /* no .link file matches: the kernel's name */
	BOOT_NAME_NONE,	   /* the file that matches gives no name: the kernel's */
	BOOT_NAME_POLICY,  /* a NamePolicy= word of the file */
	BOOT_NAME_NAME,	   /* the file's Name= */
};

struct boot_name {
	enum boot_name_source source;
	char name[16];		      /* "" when the kernel's (ib<N>: by probe order) */
	const struct link_file *file; /* the file udev applies, NULL when none */
	char policy[16];	      /* BOOT_NAME_POLICY: the word that named it */
	/* A later matching file that would name it otherwise, and which udev
	 * will not apply (the first match wins); NULL when none. */
	const struct link_file *shadowed;
};

/* The .link files the prediction reads: the node's (in systemd's order),
 * with extra files (what persist is about to write under /etc) in their
 * place by name, an extra file masking a node file of the same name. */
struct boot_links {
	const struct link_file **v;
	size_t n;
};
int boot_links_make(const struct node *n, const struct link_file *extra, size_t n_extra,
		    struct boot_links *ret);
void boot_links_free(struct boot_links *l);

/* The name vf's netdev will have after the next boot (links NULL: the
 * node's files). 0, or -ENODEV when the VF has no name on the host now
 * (vf_host_name(): no netdev, and no pod that took it from the host). */
int boot_vf_name(const struct node *n, const struct boot_links *links, const struct pf *pf,
		 const struct vf *vf, struct boot_name *ret);

/* Whether the VF will keep its name on the host (vf_host_name()): the
 * prediction's name is that name. False for a VF without one. */
bool boot_vf_name_kept(const struct node *n, const struct pf *pf, const struct vf *vf);

/* udev's ID_NET_NAME_PATH of vf ("ibp24s0v3"); false when it has none. */
bool boot_path_name(const struct node *n, const struct pf *pf, const struct vf *vf,
		    char out[static 16]);

/* A PF's VF count after the next boot: what the boot unit creates when it
 * runs, else 0 (sriov_numvfs starts at 0). */
unsigned int boot_pf_vfs(const struct node *n, const struct pf *pf);
/* The GUIDs the boot unit sets on vf when it runs (NULL when it sets none:
 * the VF starts with zero GUIDs). */
const struct persisted_guid *boot_vf_guids(const struct node *n, const struct vf *vf);

/* Whether ibvf's boot unit will run at the next boot and create what it
 * lists: present, not masked, enabled, read whole, and every program it
 * starts there. why (may be NULL) says the first reason it will not. */
bool boot_unit_runs(const struct node *n, char *why, size_t size);

/* The whole prediction as a document (`ibvf persist --verify --json`):
 * {"version":2, "unit":{path, enabled_by, runs, why}, "pfs":[{bdf, vfs_now,
 * vfs_at_boot}], "vfs":[{bdf, pf, vf, name_now, name_at_boot (null: the
 * kernel's ib<N>), decided_by, how, shadowed, node_guid_now, port_guid_now,
 * node_guid_at_boot, port_guid_at_boot, at_boot (false: the VF will not
 * exist), same}], "changes": N}. changes counts the VFs and PFs that will
 * not come back as they are. NULL on ENOMEM. */
struct json_object *boot_to_json(const struct node *n);
