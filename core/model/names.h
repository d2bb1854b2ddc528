/* SPDX-License-Identifier: MIT */
/* The words of the kernel and its tools, each spelled once: a number's name
 * and a name's number in one table per enum (systemd's
 * DEFINE_STRING_TABLE_LOOKUP). Checks, console, JSON, simulator and journal
 * all read these; nobody compares a state with a raw number or a literal.
 *
 * X_to_string() returns NULL for a value the table has no word for: the
 * caller shows the kernel's own word (struct port keeps it) or the number,
 * never a made-up "unknown". X_from_string() returns the value, or -EINVAL. */
#pragma once

#include <stdbool.h>

#include "request.h"

/* An InfiniBand port's logical state (sysfs ports/N/state "4: ACTIVE";
 * rdma link's "state"). */
enum port_state {
	PORT_STATE_NOP,
	PORT_STATE_DOWN,
	PORT_STATE_INIT,
	PORT_STATE_ARMED,
	PORT_STATE_ACTIVE,
	PORT_STATE_ACTIVE_DEFER,
	PORT_STATE_MAX,
};
const char *port_state_to_string(long long v);
int port_state_from_string(const char *s);

/* A port's physical state: the number sysfs and rdma share, rdma's word
 * ("LINK_UP", rdma -j link's physical_state) and the kernel's sysfs word
 * (ports/N/phys_state "5: LinkUp"). */
enum port_phys_state {
	PORT_PHYS_NOP,
	PORT_PHYS_SLEEP,
	PORT_PHYS_POLLING,
	PORT_PHYS_DISABLED,
	PORT_PHYS_TRAINING, /* rdma: ARMED; sysfs: PortConfigurationTraining */
	PORT_PHYS_LINK_UP,
	PORT_PHYS_LINK_ERROR_RECOVERY,
	PORT_PHYS_PHY_TEST,
	PORT_PHYS_OPA_OFFLINE = 9,
	PORT_PHYS_OPA_TEST = 11,
	PORT_PHYS_MAX,
};
const char *port_phys_state_to_string(long long v);
int port_phys_state_from_string(const char *s);
const char *port_phys_state_to_sysfs(long long v);
int port_phys_state_from_sysfs(const char *s);

/* A port's link layer (sysfs ports/N/link_layer). */
enum link_layer {
	LINK_LAYER_INFINIBAND,
	LINK_LAYER_ETHERNET,
	LINK_LAYER_MAX,
};
const char *link_layer_to_string(long long v);
int link_layer_from_string(const char *s);

/* A VF's link-state policy: the IFLA_VF_LINK_STATE_* number, ip's word
 * ("auto", `ip link set ... vf N state auto`) and MLNX_OFED's word in
 * sriov/N/policy ("Follow"). */
enum vf_link_state {
	VF_LINK_STATE_AUTO,    /* IFLA_VF_LINK_STATE_AUTO */
	VF_LINK_STATE_ENABLE,  /* IFLA_VF_LINK_STATE_ENABLE */
	VF_LINK_STATE_DISABLE, /* IFLA_VF_LINK_STATE_DISABLE */
	VF_LINK_STATE_MAX,
};
const char *vf_link_state_to_string(long long v);
int vf_link_state_from_string(const char *s);
const char *vf_link_policy_to_string(long long v);
int vf_link_policy_from_string(const char *s);

/* An action's one name: the command that makes it ("vf rename --all"), as
 * the journal records it and plans show it. from_string also takes the
 * names journals of older ibvf versions wrote ("vf rename-all",
 * "vf assign-guids"). */
const char *action_kind_to_string(long long v);
int action_kind_from_string(const char *s);
