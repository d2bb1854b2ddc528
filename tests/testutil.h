/* SPDX-License-Identifier: MIT */
/* Helpers shared by the Check suites. */
#pragma once

#include <stddef.h>

/* Makes a fresh simulated node under a new temporary directory by running
 * `ibvf mkfixture DIR ARGS...` (args is a NULL-terminated list, may be NULL).
 * Returns the malloc'd directory path; aborts the test on failure. */
char *tu_mkfixture(const char *const *args);
/* Removes a directory tree made by tu_mkfixture and frees the path. */
void tu_rmtree(char *dir);
/* Runs IBVF_BIN with argv (NULL-terminated, without argv[0]); captures stdout
 * and stderr into malloc'd strings (either may be NULL) and returns the exit
 * status, or -1 when it did not exit normally. */
int tu_run(const char *const *argv, char **ret_out, char **ret_err);
/* The malloc'd argument "--sim=DIR", for an argv tu_run() runs. */
char *tu_sim_arg(const char *dir);
/* Runs `ibvf --sim=DIR ARGS...` (NULL-terminated) as tu_run() does. */
int tu_sim_run(const char *dir, char **ret_out, char **ret_err, ...);
/* In a forked child: private network and mount namespaces, its own /sys
 * (sysfs) and an empty /run (tmpfs), for udev and ip run there. 0 or -1. */
int tu_private_net_and_run(void);
/* Runs a Check suite (it is freed) and returns the process exit status. */
struct Suite;
int tu_run_suite(struct Suite *s);
/* Writes a file, creating it; aborts the test on failure. */
void tu_write(const char *path, const char *content);
/* Writes DIR/REL, making its parent directories; aborts the test on failure. */
void tu_put(const char *dir, const char *rel, const char *content);
/* The words shell (a path: /bin/sh, /bin/bash) makes of line, each as
 * <word> (malloc'd): what a person who pastes the line runs. */
char *tu_shell_words(const char *shell, const char *line);
/* CLOCK_MONOTONIC in seconds. */
double tu_now_s(void);
/* Check's CK_TIMEOUT_MULTIPLIER (at least 1): what a wait is scaled by on
 * a slow or loaded machine. */
double tu_time_scale(void);
