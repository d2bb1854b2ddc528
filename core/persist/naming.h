/* SPDX-License-Identifier: MIT */
/* VF netdev names: the input rules every name ibvf sets must pass, and the
 * naming policy that gives each VF a name from its hardware position.
 *
 * The policy follows systemd's predictable names for SR-IOV VFs: since
 * naming scheme v239 (systemd.net-naming-scheme(7): "SR-IOV virtual devices
 * are named based on the name of the parent interface, with a suffix of v
 * and the virtual device number"; v240 added the "ib" prefix for
 * InfiniBand). udev's net_id builtin follows the VF's physfn link to the PF
 * and takes the PF's PCI-position name, before the PF's own port suffix
 * (n<phys_port_name>, d<dev_port>): PF ibp24s0's VF 3 is ibp24s0v3, and PF
 * enp154s0np0's VF 0 is enp154s0v0. ibvf takes that parent from the PF's
 * netdev name (the one udev chose, slot or path), stripped of such a port
 * suffix; a PF still under a kernel name (ibN, ethN) is refused as a
 * parent, since that name moves with probe order.
 *
 * A scheme is a pattern of literal characters and these tokens, each drawn
 * from things that do not change across reboots or probe order:
 *   %p  the PF's netdev name without a systemd port suffix
 *                                       enp154s0 (of enp154s0np0), ibp24s0
 *   %n  the PF's netdev name            enp154s0np0, ibp24s0
 *   %D  the PF's PCI domain, decimal    0
 *   %b  the PF's PCI bus, decimal       24   (bus 0x18, as systemd's p24)
 *   %s  the PF's PCI slot, decimal      0
 *   %f  the PF's PCI function, decimal  0
 *   %i  the VF's index on its PF        3
 * The default is "%pv%i", systemd's form. A scheme must hold %i (else a PF's VFs share one
 * name). Names, as systemd's, are at most 15 bytes: a longer one is an
 * error, never cut. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"
#include "core/model/node.h"
#include "core/sys/sys.h"

#define NAMING_DEFAULT_SCHEME "%pv%i"
#define NAMING_SCHEME_MAX     64

/* Whether name is one the kernel enumerates itself (ibN, ethN): it hands
 * such a name out again at the next probe, to whichever netdev comes first. */
bool naming_kernel_form(const char *name);

/* The rules for a name ibvf sets: 1 to 15 bytes, not "." or "..", no '/',
 * ':', '%', whitespace or control characters, and not a kernel form unless
 * kernel_ok. 0 or -EINVAL with the reason in e (naming the name). */
int naming_check(const char *name, bool kernel_ok, struct err *e);

/* Whether a scheme parses (known tokens, %i present, bounded): 0 or
 * -EINVAL with the reason in e. NULL or "" is the default. */
int naming_scheme_check(const char *scheme, struct err *e);

/* The policy name of VF vf of pf under scheme (NULL or "": the default):
 * 0 and the name, or -EINVAL/-ENODEV with the reason in e naming the VF
 * (the PF has no netdev or a kernel name, the name is too long, invalid or
 * a kernel form). */
int naming_vf_name(const char *scheme, const struct pf *pf, const struct vf *vf,
		   char ret[SYS_IFNAMSIZ], struct err *e);

/* The policy over the whole node: one entry per VF, in node order. */
struct naming_entry {
	const struct pf *pf;
	const struct vf *vf;
	char name[SYS_IFNAMSIZ]; /* "" when error says why there is none */
	char error[200];
};

/* Every VF's policy name. A scheme that does not parse, or one that gives
 * two VFs the same name, is refused (-EINVAL, -EEXIST naming both VFs);
 * a VF whose name cannot be made gets its own error in its entry. */
int naming_node(const struct node *n, const char *scheme, struct naming_entry **ret, size_t *ret_n,
		struct err *e);

/* Whether name can be an interface name: naming_check() with the kernel's
 * own forms allowed. 0 or -EINVAL with the reason in e. */
int naming_check_ifname(const char *name, struct err *e);

/* The GUIDs of `vf guid --assign-all` (core/actions/actions.h tells the
 * scheme). Parses its --prefix: 5 bytes as "00:11:22:33:44" or
 * "0x0011223344". */
int naming_parse_prefix(const char *s, uint64_t *ret);
/* The GUID the assign-all scheme gives VF vf of pf. */
int naming_scheme_guid(const struct pf *pf, unsigned int vf, bool has_prefix, uint64_t prefix,
		       uint64_t *ret);
