/* SPDX-License-Identifier: MIT */
/* GUIDs as the kernel and the tools write them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GUID_STRLEN 24 /* "00:11:22:33:44:55:66:77" + NUL */

/* Accepts 00:11:22:33:44:55:66:77 (ip link, MOFED sriov files),
 * 0011:2233:4455:6677 (sysfs node_guid) and 0x0011223344556677.
 * Returns 0 or -EINVAL. */
int guid_parse(const char *s, uint64_t *ret);

/* Whether g may be given to a VF's node or port: not zero (what ibvf
 * fixes), not all-ones (reserved), not a group address (the EUI-64 I/G bit,
 * 0x01 of the first byte: a port GUID names one port). NULL when it may,
 * else why not ("an all-zero GUID is what ibvf fixes"). */
const char *guid_unassignable(uint64_t g);

/* "0011:2233:4455:6677", the sysfs node_guid form. */
void guid_format_sysfs(uint64_t g, char buf[static GUID_STRLEN]);
/* "00:11:22:33:44:55:66:77", the ip-link and MOFED form. */
void guid_format_colon(uint64_t g, char buf[static GUID_STRLEN]);
/* s in the sysfs form into buf when it is a GUID guid_parse() accepts:
 * JSON output gives every GUID in that one form (docs/json.md). */
bool guid_normalise(const char *s, char buf[static GUID_STRLEN]);

/* "52:54:00:12:34:01": an Ethernet address as ip and sysfs print it. */
#define HWADDR_STRLEN 18
void hwaddr_format(const uint8_t mac[static 6], char buf[static HWADDR_STRLEN]);

/* The low 64 bits of a GID written in full IPv6 form
 * ("fe80:0000:0000:0000:b859:9f03:00f9:8f86"); high gets the prefix. */
int guid_from_gid(const char *gid, uint64_t *ret_prefix, uint64_t *ret_guid);

/* Bytes 12-19 of a 20-byte IPoIB hardware address as sysfs prints it
 * ("00:00:10:87:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:18:00:01"): the port
 * GUID the interface uses. Returns 0 or -EINVAL. */
int guid_from_ipoib_addr(const char *addr, uint64_t *ret);
