/* SPDX-License-Identifier: MIT */
/* Discovery's internals that the incremental rebuild (refresh.c) shares with
 * the full one (discover.c), so both read a function the same way. The public
 * face is node_discover() and node_refresh() in node.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/model/node.h"
#include "core/sys/sys.h"

struct discover {
	struct sys *s;
	struct node *n;		/* being built */
	struct sys_link *links; /* the dump; in a refresh, the links looked up */
	size_t n_links;
};

/* Host name, kernel release, driver version and kernel log errors. */
void discover_header(struct discover *d);
/* The kernel log's RDMA driver records into d->n->kmsg (kmsg.c); returns how
 * many were dropped for room (kmsg_parse()). A log that cannot be read sets
 * d->n->kmsg_unknown and *ret_err (the negative errno). */
int discover_kmsg(struct discover *d, int *ret_err);
/* Whether the node's netlink is the running kernel's (not a captured tree). */
bool discover_uses_netlink(struct sys *s);
/* The link dump behind altnames and VF admin state, or a note why there is
 * none; returns the dump's error (also noted). */
int discover_links(struct discover *d);
/* One line for people in d->n->notes (bounded). */
void discover_note(struct discover *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The function's device path on the node: the target of
 * /sys/bus/pci/devices/<bdf> taken from that directory ("/sys/devices/pci…"),
 * malloc'd; NULL when unread. */
char *discover_devpath(struct sys *s, const char *bdf);
/* Whether a PCI function's directory entries make it a VF (physfn). */
bool discover_is_vf(char **entries, size_t n);
/* Whether a PCI function's directory entries make it a PF of the model. */
bool discover_is_pf(char **entries, size_t n, bool *ret_sriov);
/* sriov_numvfs, sriov_totalvfs, sriov_drivers_autoprobe of pf->fn.bdf. */
void discover_pf_sriov(struct discover *d, struct pf *pf);
/* The VF index of a "virtfn<N>" entry of the PF's directory and the BDF it
 * links to; -ENOENT for other entries and unreadable links (noted). */
int discover_virtfn(struct discover *d, const struct pf *pf, const char *entry, char *bdf,
		    size_t size);
int discover_fn(struct discover *d, const char *bdf, struct fn *f);
void discover_vf_admin(struct discover *d, const struct pf *pf, struct vf *vf);
/* Only the netlink part of it, from the PF's link among d->links. */
void discover_vf_admin_netlink(struct discover *d, const struct pf *pf, struct vf *vf);
void discover_vf_guids(struct vf *vf);
/* The names of the RDMA devices the node's functions hold, sorted, for
 * discover_rdma_held() (the strings are the node's); NULL on ENOMEM. */
const char **discover_rdma_names(const struct node *n, size_t *ret_n);
bool discover_rdma_held(const char **names, size_t n, const char *name);
/* Places RDMA devices that no PCI function holds and recomputes every VF's
 * GUIDs in effect. */
void discover_orphans(struct discover *d);
