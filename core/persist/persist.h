/* SPDX-License-Identifier: MIT */
/* What makes the node's current VF layout survive a reboot:
 *
 *   /etc/systemd/network/70-ibvf-<bdf>.link   one per named VF:
 *       [Match] Path=pci-0000:18:00.4   [Link] Name=ibp24s0v3
 *     (valid systemd.link: no {attr/...} templates, which systemd does not
 *     expand; matched by PCI path, the VF's identity across reboots)
 *   /etc/systemd/system/ibvf-sriov.service     a oneshot unit, in order:
 *       driver (modprobe) -> udevadm settle -> `ibvf vf create PF N` per PF ->
 *       `ibvf vf guid VF --node G --port G` per VF -> udevadm settle,
 *       Before=network-pre.target kubelet.service
 *
 * persist refuses (core/actions/plan_persist.c) while checks find zero, duplicate
 * or unknown GUIDs or kernel names, so every VF with a netdev gets a .link
 * file and a guid line; what could still be left out is named in the notes.
 *
 * `ibvf persist` is a plan (ACTION_PERSIST): file steps, previewed,
 * confirmed, applied, verified and journaled with what each file replaced,
 * so `journal undo` restores them (ACTION_FILES_UNDO). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/model/request.h"
#include "core/base/err.h"
#include "core/model/node.h"

/* The boot unit's head, up to its first ExecStart (a printf format whose one
 * %s is the host name): persist writes it, the simulated node's fixture
 * carries an older persist's unit with it. */
#define PERSIST_UNIT_HEAD                                                                          \
	"# Written by 'ibvf persist' on %s: the SR-IOV layout to restore at boot.\n"               \
	"# Order: driver -> VFs -> GUIDs -> udev settle, all before the kubelet.\n"                \
	"[Unit]\n"                                                                                 \
	"Description=ibvf: SR-IOV VFs and their GUIDs\n"                                           \
	"Documentation=man:systemd.link(5)\n"                                                      \
	"DefaultDependencies=no\n"                                                                 \
	"After=local-fs.target systemd-modules-load.service systemd-udevd.service\n"               \
	"Wants=network-pre.target\n"                                                               \
	"Before=network-pre.target kubelet.service shutdown.target\n"                              \
	"Conflicts=shutdown.target\n"                                                              \
	"\n"                                                                                       \
	"[Service]\n"                                                                              \
	"Type=oneshot\n"                                                                           \
	"RemainAfterExit=yes\n"                                                                    \
	"TimeoutStartSec=900\n"

struct sys;

/* A VF's .link file: its name (PERSIST_LINK_PREFIX, the BDF with '-' for
 * ':', ".link") and content (a printf format: VF index, PF BDF, name, VF
 * BDF, name), as persist writes it and the simulated node carries it. */
#define PERSIST_LINK_CONTENT                                                                       \
	"# Written by 'ibvf persist': VF %u of %s keeps the name %s.\n"                            \
	"[Match]\n"                                                                                \
	"Path=pci-%s\n"                                                                            \
	"\n"                                                                                       \
	"[Link]\n"                                                                                 \
	"Name=%s\n"
/* The file name of VF bdf's .link file into buf (at least 64 bytes). */
void persist_link_name(const char *bdf, char buf[static 64]);

#define PERSIST_UNIT	    "ibvf-sriov.service"
#define PERSIST_LINK_PREFIX "70-ibvf-"
#define PERSIST_NOTES_MAX   32

struct persist_file {
	char name[64];	 /* 70-ibvf-0000-18-00.4.link, ibvf-sriov.service */
	char subdir[32]; /* where under /etc: "systemd/network", "systemd/system" */
	char *content;
};

/* One ExecStart= line of the unit that runs ibvf, and its request. */
struct persist_cmd {
	char line[400];
	struct action_req req;
};

struct persist {
	struct persist_file *files;
	size_t n_files;
	struct persist_cmd *cmds; /* in the unit's order */
	size_t n_cmds;
	char notes[PERSIST_NOTES_MAX][200];
	size_t n_notes;
	size_t n_unassigned; /* RDMA VFs without a valid node and port GUID */
	char unassigned[16]; /* the first of them */
};

struct persist_opts {
	const char *ibvf;     /* absolute path of the ibvf binary for ExecStart */
	const char *modprobe; /* NULL: /usr/sbin/modprobe */
	const char *udevadm;  /* NULL: /usr/bin/udevadm */
};

/* "ib3", "eth12": the kernel's enumerated names (its ib%d and eth%d
 * templates), which change with probe order. */
bool persist_kernel_name(const char *name);

int persist_build(const struct node *n, const struct persist_opts *o, struct persist **ret,
		  struct err *e);
void persist_free(struct persist *p);

/* The unit's path into n->persist_unit and the VF count of each "vf create
 * PF N" it runs into n->persisted (persist_read.c): NULL and none when
 * there is no unit or it is masked. Reads after n's PFs: a hand-edited line
 * may name a PF by its netdev or ibdev. 0 or -ENOMEM. */
int persist_read(struct sys *s, struct node *n);

/* Refuses (-EINVAL, one line naming each check id, its count and
 * `ibvf check --fix ID`) while n has findings that make the unit wrong. */
int persist_refusals(const struct node *n, struct err *e);

/* The ibvf the unit runs: path (absolute; on the node s, that is under its
 * root: a regular executable owned by root, not writable by group or
 * others), or, for "", this process's own binary,
 * which must moreover not lie in a build tree, under /tmp or in a directory
 * non-root users can write. The path into ret. */
int persist_ibvf_path(struct sys *s, const char *path, char ret[static 256], struct err *e);

/* The dry check: each ibvf command of the unit (p->cmds), planned with
 * action_plan() on n as it is now; the first the node refuses (a GUID
 * already in use) refuses persist, naming the unit's line and the reason. */
int persist_dry_check(struct sys *s, const struct node *n, const struct persist *p, struct err *e);
