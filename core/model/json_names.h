/* SPDX-License-Identifier: MIT */
/* The words `ip -j link` and `rdma -j dev/link` use for the same facts, so
 * ibvf's JSON reads like theirs (docs/json.md has the whole mapping). */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

/* "UP", "DOWN", "LOWERLAYERDOWN", ...: ip's operstate from sysfs' "up". */
const char *json_operstate_name(const char *sysfs, char *buf, unsigned int size);
/* "infiniband", "ether", "loopback": ip's link_type for an ARPHRD type
 * ("[N]" in buf for one ibvf's table lacks, as ll_type_n2a). */
const char *json_link_type_name(long long arphrd, char *buf, unsigned int size);
/* ip's flags array (print_link_flags) for netlink's ifi_flags; with
 * from_sysfs the value is the sysfs `flags` file (dev->flags), which lacks
 * RUNNING and LOWER_UP: they are derived from operstate as the kernel's
 * dev_get_flags() does. */
struct json_object *json_link_flags(unsigned int flags, bool from_sysfs, const char *operstate);
/* rdma's port state ("ACTIVE") and physical state ("LINK_UP"). */
const char *json_port_state_name(long long state);
const char *json_port_phys_state_name(long long phys_state);
/* rdma's node_type ("ca") for the sysfs node_type number. */
const char *json_node_type_name(long long node_type);
