/* SPDX-License-Identifier: MIT */
/* What an rtnetlink link notification (RTNLGRP_LINK) changed, as the kernel
 * boundary's events.
 *
 * The kernel's RTM_NEWLINK says how a link is now, not what changed (its
 * notifications carry no VF list either: rtmsg_ifinfo() fills the message
 * without RTEXT_FILTER_VF). So the last state of every link is kept here and
 * each message is compared with it: a new name is a rename, new flags,
 * operstate, MTU or address a change; on an SR-IOV PF, a message that
 * changes none of these is what do_setlink() sends after a VF setting
 * (netdev_state_change()): the PF's VF admin state. Pure: no socket. */
#pragma once

#include <stdbool.h>

#include <netlink/msg.h>

#include "core/sys/sys.h"

/* At most this many events come of one message (a change and the VF admin
 * state of a PF). */
#define LINKEV_MAX 2

struct linkev;

struct linkev *linkev_new(void);
void linkev_free(struct linkev *t);
/* Forgets every link (after lost messages: their state is unknown). */
void linkev_clear(struct linkev *t);

/* Whether the link named ifname is an SR-IOV PF with VFs, for a message
 * that does not say (no IFLA_NUM_VF). */
typedef bool (*linkev_is_pf_fn)(void *arg, const char *ifname);

/* Compares an RTM_NEWLINK or RTM_DELLINK with the link's last state and
 * keeps the new one. With quiet (the replies to the first dump) nothing is
 * reported. A link not seen before is reported as changed; a removal is not
 * (its uevent says it). Fills ret[] with subsystem "net", the link's name
 * and (for a rename) old name; devpath is left empty. Returns the number of
 * events, -EBADMSG for a malformed message, -ENOMEM. */
int linkev_parse(struct linkev *t, struct nlmsghdr *h, bool quiet, linkev_is_pf_fn is_pf, void *arg,
		 struct sys_event ret[LINKEV_MAX]);
