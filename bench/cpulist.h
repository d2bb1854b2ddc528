/* SPDX-License-Identifier: MIT */
/* The kernel's CPU list syntax, as sysfs writes it (`local_cpulist`,
 * `devices/system/cpu/online`, `node/nodeN/cpulist`: bitmap_print_to_pagebuf's
 * "0-15,32-47\n", an empty line for no CPU) and as a person types it for
 * --cpu. The kernel's input-only "a-b:used/group" and "N" forms are refused
 * by name. CPUs are bounded by CPU_SETSIZE: a larger number is an error,
 * never a silent drop. */
#pragma once

#include <sched.h>
#include <stddef.h>

#include "core/base/err.h"

/* The longest list read from a file: 8192 CPUs, every other one, fit. */
#define CPULIST_MAX_LEN 32768

/* Parses s (one trailing newline allowed) into *ret; what names the list in
 * messages ("--cpu", a sysfs path). 0, or -EINVAL / -ERANGE with e set and
 * *ret untouched. */
int cpulist_parse(const char *s, const char *what, cpu_set_t *ret, struct err *e);
/* Reads and parses a sysfs CPU list file, at most CPULIST_MAX_LEN bytes. */
int cpulist_read(const char *path, cpu_set_t *ret, struct err *e);
/* The kernel's form of a set: "0-15,32-47", "" when empty. A list longer
 * than size ends in ",..." (never cut inside a number). */
void cpulist_format(const cpu_set_t *s, char *buf, size_t size);
/* The first CPU of a that is not in b, or -1 when a is a subset of b. */
int cpulist_first_missing(const cpu_set_t *a, const cpu_set_t *b);
