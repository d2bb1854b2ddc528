// SPDX-License-Identifier: MIT
/* `ibvf mkfixture DIR`: writes a simulated DGX H200 node (docs/fixture.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim/sim_tree.h"
#include "tui/base/cli.h"

static int bad(const char *fmt, const char *arg)
{
	fputs("ibvf: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n", stderr);
	return 2;
}

static int parse_count(const char *opt, const char *s, unsigned int lo, unsigned int hi,
		       unsigned int *ret)
{
	char *end;
	errno = 0;
	long v = s ? strtol(s, &end, 10) : -1;
	if (!s || errno || end == s || *end || v < (long)lo || v > (long)hi) {
		fprintf(stderr, "ibvf: %s takes a number from %u to %u, not '%s'\n", opt, lo, hi,
			s ? s : "");
		return 2;
	}
	*ret = (unsigned int)v;
	return 0;
}

int cmd_mkfixture(const struct cli *c, int argc, char **argv)
{
	struct sim_fixture_opts o = {0};
	const char *kernel = c->kernel;
	if (kernel && (!*kernel || strlen(kernel) > 64 || strchr(kernel, '/')))
		return bad("--kernel takes a release like 6.8.0-55-generic, not '%s'", kernel);
	o.kernel = kernel;
	const char *dir = NULL, *seed_arg = NULL;
	bool reboot = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		char name[32];
		if (strncmp(a, "--", 2) || !a[2]) {
			if (a[0] == '-' && a[1])
				return bad("unknown option '%s' (see ibvf mkfixture --help)", a);
			if (dir)
				return bad("unexpected argument '%s'", a);
			dir = a;
			continue;
		}
		const char *eq = strchr(a, '=');
		snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
		bool takes =
			!strcmp(name, "--pfs") || !strcmp(name, "--vfs") || !strcmp(name, "--seed");
		bool flag = !strcmp(name, "--healthy") || !strcmp(name, "--reboot");
		if (!takes && !flag)
			return bad("unknown option '%s' (see ibvf mkfixture --help)", a);
		if (takes)
			val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
		else if (eq)
			return bad("option '%s' takes no value", a);
		int r = 0;
		if (!strcmp(name, "--healthy"))
			o.healthy = true;
		else if (!strcmp(name, "--reboot"))
			reboot = true;
		else if (!strcmp(name, "--seed") && !val)
			return bad("%s", "option '--seed' needs a value");
		else if (!strcmp(name, "--seed"))
			seed_arg = val;
		else if (!strcmp(name, "--pfs"))
			r = parse_count("--pfs", val, 1, SIM_PFS_MAX, &o.pfs);
		else {
			r = parse_count("--vfs", val, 0, SIM_VFS_MAX, &o.vfs);
			o.vfs_set = true;
		}
		if (r)
			return r;
	}
	if (!dir)
		return bad("%s", "mkfixture needs a directory (see ibvf mkfixture --help)");
	if (seed_arg && !reboot)
		return bad("%s", "--seed goes with --reboot");
	uint64_t seed = 0;
	if (reboot && reboot_seed(seed_arg, &seed) < 0)
		return 2;
	struct err e = {""};
	int r = sim_fixture_create(dir, &o, &e);
	if (r < 0) {
		fprintf(stderr, "ibvf: %s\n", e.msg);
		return r == -ENOTEMPTY ? 2 : 1;
	}
	if (!reboot)
		return 0;
	/* Then a boot of it, as `ibvf --sim=DIR debug reboot` does. */
	struct cli sim = {.sim = true, .sim_dir = dir, .kernel = c->kernel};
	return reboot_run(&sim, seed);
}
