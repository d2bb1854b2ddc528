/* SPDX-License-Identifier: MIT */
/* Helpers of the suites that run ibvf in the background (test_interrupt.c,
 * test_lock.c): a process started with its output in files, waits on a
 * condition bounded by a deadline (a bound on failure, not a speed), and
 * the sim's hold fault, which stops a write until the test releases it. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

struct bg {
	pid_t pid;
	char out[64], err[64]; /* the files stdout and stderr go to */
};

/* Starts `ibvf --sim=DIR ARGS...` (NULL-terminated) in the background. */
void bg_start(struct bg *b, const char *dir, ...);
/* Waits for it: its exit status, -1 when a signal ended it. */
int bg_wait(struct bg *b);
/* Its stderr (or stdout) so far, malloc'd. */
char *bg_err(const struct bg *b);
char *bg_out(const struct bg *b);
/* Whether it has exited (reaped into *ret_status, as bg_wait gives it). */
bool bg_exited(struct bg *b, int *ret_status);
void bg_free(struct bg *b);

/* Polls cond(arg) every 10 ms until it is true or `seconds` have passed. */
bool poll_until(bool (*cond)(void *arg), void *arg, double seconds);

/* DIR/.sim/hold made or removed: with the fault "hold:SUFFIX" armed, a
 * write to a path ending in SUFFIX waits while it exists. */
void hold(const char *dir, bool on);
/* Whether the function's driver link exists in the sim tree. */
bool fn_bound(const char *dir, const char *bdf);
