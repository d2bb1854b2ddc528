// SPDX-License-Identifier: MIT
#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int err_vset(struct err *e, int errnum, int with_strerror, const char *fmt, va_list ap)
{
	if (errnum < 0)
		errnum = -errnum;
	if (errnum == 0)
		errnum = EINVAL;
	if (!e)
		return -errnum;

	int n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	if (with_strerror && n >= 0 && (size_t)n < sizeof(e->msg))
		snprintf(e->msg + n, sizeof(e->msg) - (size_t)n, ": %s", strerror(errnum));
	return -errnum;
}

int err_set(struct err *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = err_vset(e, errnum, 1, fmt, ap);
	va_end(ap);
	return r;
}

int err_setx(struct err *e, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = err_vset(e, errnum, 0, fmt, ap);
	va_end(ap);
	return r;
}
