/* SPDX-License-Identifier: MIT */
/* Helpers of the simulator suites (test_sim.c, test_sim_kernel.c,
 * test_sim_large.c): fixtures made and opened, files read and counted, writes
 * and the events they announce. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/base/err.h"
#include "core/sys/sys.h"

/* A fresh fixture tree (healthy or with the seeded faults) of vfs VFs per PF. */
char *fixture(bool healthy, unsigned int vfs);

struct sys *open_sim(const char *dir, const char *kernel, const char *faults);

/* The file's content without its trailing newline, in a static buffer. */
const char *rd(struct sys *s, const char *path);

bool has(struct sys *s, const char *path);

size_t count(struct sys *s, const char *path, const char *member);

#define VF(pfbus, rest) "/sys/bus/pci/devices/0000:" pfbus ":" rest

bool json_file_parses(struct sys *s, const char *path);

int write_v(struct sys *s, const char *path, const char *value, struct err *e);

bool saw_event(struct sys *s, const char *action, const char *subsystem, const char *name);
