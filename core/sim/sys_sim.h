/* SPDX-License-Identifier: MIT */
/* The simulated node shared by sys_sim.c (the node, writes, events, the ops
 * table) and sim_links.c (its netlink link operations). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "core/sys/sys_impl.h"

struct sim {
	struct sys base;
	char kernel[64];
	char faults[1024];
	int inotify;
	off_t event_off;
};

/* The errno an armed fault gives the operation kind (0: none). */
int sys_sim_fault(struct sim *m, const char *kind, const char *path);
/* Takes .sim/lock and applies pending vanish faults. Returns the lock fd. */
int sys_sim_lock(struct sim *m, struct err *e);
void sys_sim_unlock(int fd);

static inline const char *sys_sim_base_name(const char *rel)
{
	const char *s = strrchr(rel, '/');
	return s ? s + 1 : rel;
}

/* The link and VF entries of the ops table, with the contracts of their
 * struct sys_ops members (core/sys/sys_impl.h). */
int sim_link_dump(struct sys *s, struct sys_link **ret, size_t *ret_n, struct err *e);
int sim_link_get(struct sys *s, const char *ifname, struct sys_link *ret, struct err *e);
int sim_link_rename(struct sys *s, const char *ifname, const char *newname, struct err *e);
int sim_link_set_up(struct sys *s, const char *ifname, bool up, struct err *e);
int sim_vf_set_guid(struct sys *s, const char *pf_ifname, uint32_t vf, enum sys_guid_kind kind,
		    uint64_t guid, struct err *e);
int sim_vf_set_link_state(struct sys *s, const char *pf_ifname, uint32_t vf, int state,
			  struct err *e);

/* The simulated kubelet's pod-resources API (sim_podres.c), the contract of
 * struct sys_ops' podres_read. */
int sim_podres_read(struct sys *s, struct podres *ret);
