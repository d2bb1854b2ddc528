/* SPDX-License-Identifier: MIT */
/* What the two persist suites share: an installed ibvf and a run with argv. */
#pragma once

/* Copies the binary under test to the simulated node's /usr/sbin/ibvf
 * (DIR/usr/sbin/ibvf, mode 0755, owned by whoever runs the tests: root
 * here) and returns that node path, the one persist's --ibvf takes: the
 * unit runs it on the node. */
char *pu_install(const char *dir);
/* Where the node's path is on this host: DIR + path. */
char *pu_host(const char *dir, const char *path);
/* The same copy at path (its directory must exist). */
void pu_install_at(const char *path);
/* `ibvf --sim=DIR ARGV...` (NULL-terminated) as tu_run() runs it. */
int pu_run(const char *dir, const char *const *argv, char **ret_out, char **ret_err);
/* The file's content (NULL when it does not exist). */
char *pu_slurp(const char *path);
