// SPDX-License-Identifier: MIT
/* Placeholder until written. */
#include "sys_impl.h"
#include <errno.h>
int sys_open_sim(const char *dir, const struct sys_sim_params *params, struct sys **ret, struct err *e)
{
	return err_setx(e, ENOSYS, "not yet");
}
