/* SPDX-License-Identifier: MIT */
/* Kernel attribute files read into known-flagged values (core-internal). */
#pragma once

#include <limits.h>
#include <stddef.h>

#include "node.h"
#include "core/sys/sys.h"

#define ATTR_MAX 256 /* the longest attribute value read */

/* dir/file in buf; a path that does not fit reads as missing. */
const char *attr_join(char buf[static PATH_MAX], const char *dir, const char *file);
/* dir/file into buf (newline stripped): its length, or a negative errno. */
int attr_read(struct sys *s, const char *dir, const char *file, char *buf, size_t size);
/* A malloc'd copy of dir/file, NULL when missing or empty. */
char *attr_read_str(struct sys *s, const char *dir, const char *file);
/* The leading integer of "4: ACTIVE", "0x15b3", "16"; unknown otherwise. */
struct kval attr_parse_int(const char *buf);
struct kval attr_read_int(struct sys *s, const char *dir, const char *file);
/* "4: ACTIVE": 4, and "ACTIVE" in *ret_name (malloc'd, NULL if none). */
struct kval attr_read_state(struct sys *s, const char *dir, const char *file, char **ret_name);
/* "400 Gb/sec (4X NDR)" or "2.5 Gb/sec (1X SDR)" in Mb/s. */
struct kval attr_parse_rate_mbps(const char *rate);
struct kguid attr_read_guid(struct sys *s, const char *dir, const char *file);
