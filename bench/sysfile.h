/* SPDX-License-Identifier: MIT */
/* The benchmark's one reader of small sysfs files (bench/place.c,
 * bench/cm_addr.c). */
#pragma once

#include <stddef.h>

#include "core/base/err.h"

/* The first line of the file at path, without its newline, into buf: 0, or
 * -errno with e naming the file (longer than size - 1 bytes: -EINVAL). */
int bench_read_line(const char *path, char *buf, size_t size, struct err *e);
