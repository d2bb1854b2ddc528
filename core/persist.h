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
 * VFs with kernel names (ib3, eth5) get no .link file and VFs with zero or
 * unknown GUIDs no guid line: each is named in the notes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "node.h"

struct sys;

#define PERSIST_UNIT	  "ibvf-sriov.service"
#define PERSIST_NOTES_MAX 32

struct persist_file {
	char name[64];	 /* 70-ibvf-0000-18-00.4.link, ibvf-sriov.service */
	char subdir[32]; /* where under /etc: "systemd/network", "systemd/system" */
	char *content;
};

struct persist {
	struct persist_file *files;
	size_t n_files;
	char notes[PERSIST_NOTES_MAX][200];
	size_t n_notes;
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

/* Where each file goes (see persist_write) and its content, with the notes:
 * {"files":[{"path","content"}...],"notes":[...]}. */
struct json_object *persist_to_json(const struct persist *p, const char *root, const char *outdir);

/* Writes the files: flat into outdir when given, else under root/etc (root
 * "/" on the node), where it also removes 70-ibvf-*.link files of VFs that
 * are no longer named. Each file is written to a temporary name and renamed. */
int persist_write(const struct persist *p, const char *root, const char *outdir, struct err *e);
