// SPDX-License-Identifier: MIT
#include "recording.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sys/sys.h"

struct hist_recorder *recording_open(struct sys *s, struct err *e)
{
	const char *env = getenv("IBVF_RECORD");
	if (env && !strcmp(env, "0"))
		return NULL;
	if (!sys_is_sim(s) && (strcmp(sys_root(s), "/") || geteuid() != 0))
		return NULL;
	struct hist_recorder_opts o = {.hold_lock = false, .memory_fallback = false};
	struct hist_recorder *r;
	if (hist_recorder_open(s, &o, &r, e) < 0)
		return NULL;
	return r;
}

int recording_observe(struct hist_recorder *r, const struct node *n, const struct findings *fs,
		      struct err *e)
{
	if (!r)
		return 0;
	return hist_recorder_observe(r, n, fs, 0, NULL, e);
}
