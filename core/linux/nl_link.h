/* SPDX-License-Identifier: MIT */
/* The real node's rtnetlink link operations (nl_link.c), the link and VF
 * entries of sys_linux.c's ops table. Each has the contract of its struct
 * sys_ops member (core/sys/sys_impl.h); each opens its own netlink socket in the
 * calling thread's network namespace. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sys/sys_impl.h"

int linux_link_get(struct sys *s, const char *ifname, struct sys_link *ret, struct err *e);
int linux_link_dump(struct sys *s, struct sys_link **ret, size_t *ret_n, struct err *e);
int linux_link_rename(struct sys *s, const char *ifname, const char *newname, struct err *e);
int linux_link_set_up(struct sys *s, const char *ifname, bool up, struct err *e);
int linux_vf_set_guid(struct sys *s, const char *pf_ifname, uint32_t vf, enum sys_guid_kind kind,
		      uint64_t guid, struct err *e);
int linux_vf_set_link_state(struct sys *s, const char *pf_ifname, uint32_t vf, int state,
			    struct err *e);
