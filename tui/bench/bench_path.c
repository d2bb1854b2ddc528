// SPDX-License-Identifier: MIT
/* `ibvf bench`'s path options: --sl, --pkey-index, --allow-same-port
 * (bench_path.h). */
#include "bench_path.h"

#include <errno.h>
#include <stdlib.h>

#include "tui/base/cli.h"
#include "tui/base/text.h"

/* A whole decimal number up to max, or -1. */
static long whole(const char *s, long max)
{
	char *end;
	errno = 0;
	long v = s[0] >= '0' && s[0] <= '9' ? strtol(s, &end, 10) : -1;
	return v < 0 || errno || *end || v > max ? -1 : v;
}

int bench_path_option(struct bench_config *cfg, enum bench_path_opt opt, const char *arg)
{
	long v;
	char shown[64]; /* the value as typed, escaped and cut for the message */
	text_escape_into(shown, sizeof(shown), arg);
	switch (opt) {
	case BENCH_PATH_SL:
		if ((v = whole(arg, 15)) < 0) {
			cli_error("--sl wants a service level from 0 to 15, got '%s'", shown);
			return -EINVAL;
		}
		cfg->sl = (unsigned int)v;
		return 0;
	case BENCH_PATH_PKEY_INDEX:
		if ((v = whole(arg, 65535)) < 0) {
			cli_error(
				"--pkey-index wants a P_Key table index from 0 to 65535, got '%s'",
				shown);
			return -EINVAL;
		}
		cfg->pkey_index = (int)v;
		return 0;
	case BENCH_PATH_ALLOW_SAME_PORT:
		cfg->allow_same_port = true;
		return 0;
	}
	return -EINVAL;
}

int bench_path_check(const struct bench_config *cfg)
{
	if (cfg->cm && (cfg->sl || cfg->pkey_index >= 0)) {
		cli_error(
			"--sl and --pkey-index cannot be used with --cm: rdma_cm takes the service "
			"level and P_Key from the path and interface it resolves");
		return -EINVAL;
	}
	return 0;
}
