/* SPDX-License-Identifier: MIT */
/* Helpers of the refresh suites (test_refresh.c, test_refresh_fallback.c): a
 * simulated node with its snapshot and events, and the check that a refresh
 * equals a fresh discovery. */
#pragma once

#include <stddef.h>

#include "core/model/node.h"
#include "core/sys/sys.h"

#define EVENTS_MAX (2 * NODE_REFRESH_EVENTS_MAX)

/* A simulated node, its current snapshot and the events since it was built. */
struct rig {
	char *dir;
	struct sys *s;
	struct node *n;
	struct sys_event *ev;
	size_t n_ev;
};

void events_read(struct rig *g);

void rig_open(struct rig *g, const char *const *args);

void rig_close(struct rig *g);

char *json_text(const struct node *n);

/* The first line where two texts differ, for the failure message. */
void first_difference(const char *a, const char *b, char *buf, size_t size);

/* Refreshes the snapshot with the events given (those read from the node
 * when ev is NULL), checks it against a full discovery and that the old
 * snapshot did not change, and makes it the current one. */
void check_refresh(struct rig *g, const struct sys_event *ev, size_t n_ev);

void write_ok(struct rig *g, const char *path, const char *value);

void rename_ok(struct rig *g, const char *from, const char *to);

#define NUMVFS_4F "/sys/bus/pci/devices/0000:4f:00.0/sriov_numvfs"
#define UNBIND	  "/sys/bus/pci/drivers/mlx5_core/unbind"
#define BIND	  "/sys/bus/pci/drivers/mlx5_core/bind"
