// SPDX-License-Identifier: MIT
#include "names.h"

#include <errno.h>
#include <string.h>

#include <linux/if_link.h>

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/* name_to_string(v) and name_from_string(s) over one table of words
 * indexed by value (NULL: no word for that value). */
#define NAME_TABLE_LOOKUP(scope, name, table)                                                      \
	scope const char *name##_to_string(long long v)                                            \
	{                                                                                          \
		return v >= 0 && (unsigned long long)v < ELEMENTSOF(table) ? table[v] : NULL;      \
	}                                                                                          \
	scope int name##_from_string(const char *s)                                                \
	{                                                                                          \
		for (size_t i = 0; s && i < ELEMENTSOF(table); i++)                                \
			if (table[i] && !strcmp(table[i], s))                                      \
				return (int)i;                                                     \
		return -EINVAL;                                                                    \
	}

static const char *const port_state_table[PORT_STATE_MAX] = {
	[PORT_STATE_NOP] = "NOP",	[PORT_STATE_DOWN] = "DOWN",
	[PORT_STATE_INIT] = "INIT",	[PORT_STATE_ARMED] = "ARMED",
	[PORT_STATE_ACTIVE] = "ACTIVE", [PORT_STATE_ACTIVE_DEFER] = "ACTIVE_DEFER",
};
NAME_TABLE_LOOKUP(, port_state, port_state_table)

static const char *const port_phys_state_table[PORT_PHYS_MAX] = {
	[PORT_PHYS_NOP] = "NOP",
	[PORT_PHYS_SLEEP] = "SLEEP",
	[PORT_PHYS_POLLING] = "POLLING",
	[PORT_PHYS_DISABLED] = "DISABLED",
	[PORT_PHYS_TRAINING] = "ARMED",
	[PORT_PHYS_LINK_UP] = "LINK_UP",
	[PORT_PHYS_LINK_ERROR_RECOVERY] = "LINK_ERROR_RECOVER",
	[PORT_PHYS_PHY_TEST] = "PHY_TEST",
	[PORT_PHYS_OPA_OFFLINE] = "OPA_OFFLINE",
	[PORT_PHYS_OPA_TEST] = "OPA_TEST",
};
NAME_TABLE_LOOKUP(, port_phys_state, port_phys_state_table)

/* The kernel's own words (drivers/infiniband/core/sysfs.c phys_state_to_str). */
static const char *const port_phys_sysfs_table[PORT_PHYS_MAX] = {
	[PORT_PHYS_SLEEP] = "Sleep",	   [PORT_PHYS_POLLING] = "Polling",
	[PORT_PHYS_DISABLED] = "Disabled", [PORT_PHYS_TRAINING] = "PortConfigurationTraining",
	[PORT_PHYS_LINK_UP] = "LinkUp",	   [PORT_PHYS_LINK_ERROR_RECOVERY] = "LinkErrorRecovery",
	[PORT_PHYS_PHY_TEST] = "Phy Test",
};
NAME_TABLE_LOOKUP(static, port_phys_sysfs, port_phys_sysfs_table)

const char *port_phys_state_to_sysfs(long long v)
{
	return port_phys_sysfs_to_string(v);
}

int port_phys_state_from_sysfs(const char *s)
{
	return port_phys_sysfs_from_string(s);
}

static const char *const link_layer_table[LINK_LAYER_MAX] = {
	[LINK_LAYER_INFINIBAND] = "InfiniBand",
	[LINK_LAYER_ETHERNET] = "Ethernet",
};
NAME_TABLE_LOOKUP(, link_layer, link_layer_table)

_Static_assert((int)VF_LINK_STATE_AUTO == (int)IFLA_VF_LINK_STATE_AUTO &&
		       (int)VF_LINK_STATE_ENABLE == (int)IFLA_VF_LINK_STATE_ENABLE &&
		       (int)VF_LINK_STATE_DISABLE == (int)IFLA_VF_LINK_STATE_DISABLE,
	       "enum vf_link_state is the kernel's IFLA_VF_LINK_STATE_*");

static const char *const vf_link_state_table[VF_LINK_STATE_MAX] = {
	[VF_LINK_STATE_AUTO] = "auto",
	[VF_LINK_STATE_ENABLE] = "enable",
	[VF_LINK_STATE_DISABLE] = "disable",
};
NAME_TABLE_LOOKUP(, vf_link_state, vf_link_state_table)

static const char *const vf_link_policy_table[VF_LINK_STATE_MAX] = {
	[VF_LINK_STATE_AUTO] = "Follow",
	[VF_LINK_STATE_ENABLE] = "Up",
	[VF_LINK_STATE_DISABLE] = "Down",
};
NAME_TABLE_LOOKUP(, vf_link_policy, vf_link_policy_table)

static const char *const action_kind_table[ACTION_KIND_MAX] = {
	[ACTION_CREATE] = "vf create",
	[ACTION_RENAME] = "vf rename",
	[ACTION_GUID] = "vf guid",
	[ACTION_ASSIGN_ALL] = "vf guid --assign-all",
	[ACTION_STATE] = "vf state",
	[ACTION_RENAME_LINK] = "link rename",
	[ACTION_RENAME_ALL] = "vf rename --all",
	[ACTION_PERSIST] = "persist",
	[ACTION_FILES_UNDO] = "persist undo",
};
NAME_TABLE_LOOKUP(static, action_kind_current, action_kind_table)

const char *action_kind_to_string(long long v)
{
	return action_kind_current_to_string(v);
}

int action_kind_from_string(const char *s)
{
	/* What journals of ibvf before one name per action wrote. */
	static const struct {
		const char *old;
		enum action_kind kind;
	} older[] = {
		{"vf rename-all", ACTION_RENAME_ALL},
		{"vf assign-guids", ACTION_ASSIGN_ALL},
	};
	for (size_t i = 0; s && i < ELEMENTSOF(older); i++)
		if (!strcmp(s, older[i].old))
			return (int)older[i].kind;
	return action_kind_current_from_string(s);
}
