/* SPDX-License-Identifier: MIT */
/* The kernel log's RDMA driver records (kmsg.c, docs/kernel.md). Discovery
 * reads them into node->kmsg (discover_kmsg() in refresh.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/model/node.h"

#define KMSG_LINES_MAX 256 /* records kept */

/* Appends to n->kmsg the records of text (/dev/kmsg records or a dmesg text)
 * that name an RDMA driver, at most KMSG_LINES_MAX: the failures, and the
 * newest of the others. Returns how many records were dropped for room, or
 * -1 when out of memory. */
int kmsg_parse(struct node *n, const char *text, size_t len);
/* Whether a message at syslog level prio (-1 unknown) tells of a failure. */
bool kmsg_is_failure(const char *msg, int prio);
/* How many of n->kmsg are failures. */
size_t kmsg_count_errors(const struct node *n);
