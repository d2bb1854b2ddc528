/* SPDX-License-Identifier: MIT */
/* The one lock of the node: flock(LOCK_EX) on /run/ibvf/lock under the
 * node's root prefix (the --sim or --root tree's run/ibvf/lock), held by an
 * apply around its re-check, steps, verify and journal, so two ibvf never
 * interleave on one node. The file (0600, never through a symbolic link)
 * holds the pid of the holder, for the one that waits to name it. */
#pragma once

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#include "core/base/err.h"
#include "core/sys/sys.h"

#define NODE_LOCK_PATH "/run/ibvf/lock"

/* The lock file's path under s's root. */
void node_lock_path(struct sys *s, char buf[static PATH_MAX]);

/* Takes the lock: *ret_fd to give to node_lock_release(). When another
 * process holds it: with no_wait -EWOULDBLOCK (said, with its pid), else
 * waiting(arg, pid) once (pid 0: unknown) and a wait until it is free or
 * cancel becomes true (-ECANCELED, said). */
int node_lock_take(struct sys *s, bool no_wait, const atomic_bool *cancel,
		   void (*waiting)(void *arg, pid_t holder), void *arg, int *ret_fd, struct err *e);
void node_lock_release(int fd);
/* Another lock file (path as on this host, under the root already), taken
 * without waiting: 0 and *ret_fd (release with node_lock_release()), or
 * -EWOULDBLOCK (unsaid) and *ret_holder the pid written there (0 unknown). */
int lock_file_try(const char *path, int *ret_fd, pid_t *ret_holder, struct err *e);
