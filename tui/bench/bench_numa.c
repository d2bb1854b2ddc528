// SPDX-License-Identifier: MIT
/* `ibvf bench --cpu LIST` and `--no-pin`: the NUMA placement overrides
 * (bench/place.h). A list is checked here, where the operator typed it: the
 * kernel's cpulist syntax, every CPU online. */
#include <errno.h>
#include <string.h>

#include "bench/cpulist.h"
#include "bench_cli.h"

#define ONLINE "/sys/devices/system/cpu/online"

int bench_numa_option(struct bench_opts *o, bool no_pin, const char *arg)
{
	struct bench_config *cfg = &o->cfg;
	struct err e = {{0}};
	if (no_pin) {
		cfg->no_pin = true;
	} else {
		cpu_set_t set, online;
		char list[160];
		if (cpulist_parse(arg, "--cpu", &set, &e) < 0) {
			cli_error("%s", e.msg);
			return -EINVAL;
		}
		if (!CPU_COUNT(&set)) {
			cli_error("--cpu wants at least one CPU, got an empty list");
			return -EINVAL;
		}
		if (cpulist_read(ONLINE, &online, &e) < 0) {
			cli_error("--cpu: cannot tell which CPUs are online: %s", e.msg);
			return -EINVAL;
		}
		int off = cpulist_first_missing(&set, &online);
		if (off >= 0) {
			cpulist_format(&online, list, sizeof(list));
			cli_error("--cpu: CPU %d is not online (online: %s)", off, list);
			return -EINVAL;
		}
		cfg->cpu_given = true;
		cfg->cpus = set;
	}
	if (cfg->no_pin && cfg->cpu_given) {
		cli_error("--cpu and --no-pin cannot be used together");
		return -EINVAL;
	}
	return 0;
}
