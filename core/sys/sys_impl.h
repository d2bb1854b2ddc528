/* SPDX-License-Identifier: MIT */
/* Private to the sys_*.c implementations. */
#pragma once

#include <limits.h>

#include "sys.h"
#include "core/sys/podres.h"

struct sys_ops {
	/* File operations; NULL means the generic ones over rootfd. */
	int (*write)(struct sys *s, const char *path, const char *value, struct err *e);
	int (*link_dump)(struct sys *s, struct sys_link **ret, size_t *ret_n, struct err *e);
	int (*link_get)(struct sys *s, const char *ifname, struct sys_link *ret, struct err *e);
	int (*link_rename)(struct sys *s, const char *ifname, const char *newname, struct err *e);
	int (*link_set_up)(struct sys *s, const char *ifname, bool up, struct err *e);
	int (*vf_set_guid)(struct sys *s, const char *pf_ifname, uint32_t vf,
			   enum sys_guid_kind kind, uint64_t guid, struct err *e);
	int (*vf_set_link_state)(struct sys *s, const char *pf_ifname, uint32_t vf, int state,
				 struct err *e);
	int (*event_fd)(struct sys *s);
	int (*event_read)(struct sys *s, struct sys_event *ret);
	void (*close)(struct sys *s);
	/* A second handle on the same node, opened with the same parameters. */
	int (*reopen)(struct sys *s, struct sys **ret, struct err *e);
	/* The kubelet's pod-resources API (sys_podres_read); NULL: none here. */
	int (*podres_read)(struct sys *s, struct podres *ret);
};

/* Common head of every implementation's state. */
struct sys {
	const struct sys_ops *ops;
	bool sim;
	int rootfd; /* O_PATH directory fd of the root prefix */
	sys_trace_fn trace;
	void *trace_arg;
	char root[PATH_MAX];
	/* The node's programs are not what this process sees under root (a
	 * container reading the host's files at their own paths): a program a
	 * unit runs cannot be judged here. */
	bool programs_unseen;
	/* sys_set_podres: the socket as on the node, the deadline, the bound. */
	char podres_socket[PATH_MAX];
	int podres_timeout_ms;
	size_t podres_msg_max;
	/* After a failed call (a deadline passed, the kubelet refused): not
	 * asked again before podres_retry_at (CLOCK_MONOTONIC seconds), so a
	 * console refreshing each second does not wait out a deadline each time;
	 * the note of that failure is given meanwhile. */
	double podres_retry_at;
	char podres_last_note[256];
};

/* Initialises the common head; opens the root directory. */
int sys_base_init(struct sys *s, const struct sys_ops *ops, const char *root, bool sim,
		  struct err *e);
void sys_base_fini(struct sys *s);
/* Reports path to the trace function when one is set. */
static inline void sys_traced(struct sys *s, const char *path)
{
	if (s->trace)
		s->trace(s->trace_arg, path);
}
/* Opens path of the node: under a root other than '/' with its links
 * resolved inside the root (safefile_open_in). The fd or -errno. */
int sys_open_rel(struct sys *s, const char *path, int flags);
/* The path relative to rootfd ("sys/class/net"), for *at() calls. */
const char *sys_relpath(const char *path);
/* Plain write of a file under the root (what the real kernel's sysfs gets). */
int sys_base_write(struct sys *s, const char *path, const char *value, struct err *e);
