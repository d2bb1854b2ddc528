/* SPDX-License-Identifier: MIT */
/* The checks' own functions, one per row of checks_table (core/checks.c),
 * grouped by what they read: checks_guid.c, checks_port.c, ... */
#pragma once

#include "checks.h"

#define CHECK_FN(name)                                                                             \
	void name(struct findings *out, const struct node *n, const struct checks_opts *o)

CHECK_FN(check_guid_zero);
/* dp */
CHECK_FN(check_dp_selector_empty);
CHECK_FN(check_dp_link_type);
CHECK_FN(check_dp_config_invalid);

/* The path of a function's file as it is on a running node:
 * "/sys/bus/pci/devices/0000:18:00.1/<rel>". */
void check_fn_path(char *buf, size_t size, const char *bdf, const char *rel);
/* "/sys/class/infiniband/<ibdev>/<rel>". */
void check_ib_path(char *buf, size_t size, const char *ibdev, const char *rel);
