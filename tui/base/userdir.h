/* SPDX-License-Identifier: MIT */
/* Where a user's own files live ($XDG_CONFIG_HOME, $XDG_CACHE_HOME). Root
 * reached through sudo keeps the user's environment with -E, so there the
 * user's XDG_* and HOME are not root's: root's home from the password
 * database is used instead, and the user cannot steer where root reads
 * themes or keeps the simulated node. */
#pragma once

#include <stddef.h>

/* The base directory: $XDG_VAR, else $HOME/home_sub (".config",
 * ".cache"); as root under sudo, or when that directory belongs to another
 * user (su without -, doas), ROOT_HOME/home_sub. 0, -ENOENT when there
 * is none, -ENAMETOOLONG. */
int userdir_base(const char *xdg_var, const char *home_sub, char *buf, size_t size);
