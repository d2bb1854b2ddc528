// SPDX-License-Identifier: MIT
/* Placeholder until written. */
#include "sys_impl.h"
#include <errno.h>
int sys_open_linux(const char *root, struct sys **ret, struct err *e)
{
	return err_setx(e, ENOSYS, "not yet");
}
