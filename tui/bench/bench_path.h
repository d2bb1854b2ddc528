/* SPDX-License-Identifier: MIT */
/* `ibvf bench`'s path options: the service level and P_Key index the QPs
 * use, and whether a run through one physical port may pass. */
#pragma once

#include "bench/bench.h"

enum bench_path_opt {
	BENCH_PATH_SL,
	BENCH_PATH_PKEY_INDEX,
	BENCH_PATH_ALLOW_SAME_PORT,
};

/* Parses one option's value into cfg; 0, or -EINVAL said on stderr. */
int bench_path_option(struct bench_config *cfg, enum bench_path_opt opt, const char *arg);
/* Combinations refused before anything runs; 0, or -EINVAL said. */
int bench_path_check(const struct bench_config *cfg);
