/* SPDX-License-Identifier: MIT */
/* systemd .link files (systemd.link(5)): which files udev applies to a
 * netdev, and whether one pins its name (linkfile.c, docs/kernel.md). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/base/err.h"
#include "core/model/node.h"

struct sys;

#define LINKFILE_FILES_MAX 512	      /* files kept, after masking */
#define LINKFILE_SIZE_MAX  (64 << 10) /* bytes of a file read */
#define LINKFILE_LIST_MAX  64	      /* words of a match list kept */

/* The .link files of the node under its root, in systemd's order (file
 * name across /etc, /run, /usr/local/lib, /usr/lib, /lib systemd/network;
 * the first directory's file of a name masks the others, a symlink to
 * /dev/null masks without being one). Returns 0 or -ENOMEM. */
int linkfile_read_all(struct sys *s, struct link_file **ret, size_t *ret_n);
/* Parses one file's text into lf (path is kept as given). 0 or -ENOMEM. */
int linkfile_parse(const char *path, const char *text, struct link_file *lf);
/* Whether the file's [Match] section matches the netdev ifname (its name as
 * the kernel gave it: OriginalName=) of the function fn. A file without any
 * match key matches nothing (systemd ignores it). Keys ibvf cannot evaluate
 * (Property=, Type=, Kind=, Host=, ...) are taken to match. */
bool linkfile_matches(const struct link_file *lf, const struct fn *fn, const char *ifname);
