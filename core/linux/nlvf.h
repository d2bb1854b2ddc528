/* SPDX-License-Identifier: MIT */
/* Parsing of rtnetlink link messages into the kernel boundary's structs.
 *
 * Pure functions over libnl-3 types: no socket, no kernel, so the tests can
 * feed them messages laid out as the kernel's rtnl_fill_ifinfo() and
 * rtnl_fill_vfinfo() write them. Every attribute length is checked before
 * its payload is read; a short or overrunning attribute makes the whole
 * message malformed (-EBADMSG). */
#pragma once

#include <stddef.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "core/sys/sys.h"

/* More VFs than any PCIe function can have (sriov_totalvfs is 16 bits, and
 * real HCAs stop at a few hundred): a larger list is rejected. */
#define NLVF_VFS_MAX 4096

/* One RTM_NEWLINK message (as an RTM_GETLINK dump returns it) into *ret.
 * h->nlmsg_len must lie within the caller's buffer. ret->vfs is malloc'd
 * (NULL when there are none); free it with sys_links_free() or free().
 * Returns 0, -EBADMSG for a malformed message, -EINVAL for a message of
 * another type, -ENOMEM; *ret is untouched on failure. */
int nlvf_parse_link(struct nlmsghdr *h, struct sys_link *ret);

/* The IFLA_VFINFO_LIST nest into a malloc'd array sorted by VF index
 * (*ret is NULL when the list is empty). Unknown attributes are skipped.
 * Returns 0, -EBADMSG (short attribute, duplicate VF index, more than
 * NLVF_VFS_MAX VFs), -ENOMEM; the outputs are untouched on failure. */
int nlvf_parse_vfinfo_list(struct nlattr *list, struct sys_vf_info **ret, size_t *ret_n);
