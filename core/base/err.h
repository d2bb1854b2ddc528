/* SPDX-License-Identifier: MIT */
/* Error reporting for library code: core/ and bench/ never print; they fill a
 * caller-provided struct err and return a negative errno. */
#pragma once

#include <stddef.h>

struct err {
	char msg[512];
};

/* Formats the message, appends ": <strerror(errnum)>" when errnum != 0, and
 * returns -abs(errnum) (or -EINVAL when errnum is 0) so callers can write
 * `return err_set(e, -r, "cannot write '%s'", path);`. e may be NULL. */
int err_set(struct err *e, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Like err_set() without the strerror suffix. */
int err_setx(struct err *e, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
