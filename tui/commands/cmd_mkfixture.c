// SPDX-License-Identifier: MIT
/* `ibvf mkfixture DIR`: writes a simulated DGX H200 node (docs/fixture.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/history/recorder.h"
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

enum {
	MKFIXTURE_O_HEALTHY = 1,
	MKFIXTURE_O_PFS,
	MKFIXTURE_O_VFS,
	MKFIXTURE_O_REBOOT,
	MKFIXTURE_O_SEED,
	MKFIXTURE_O_HISTORY,
};

const struct opt mkfixture_options[] = {
	{OPT_BOOL("healthy", 0, MKFIXTURE_O_HEALTHY, "no seeded faults")},
	{OPT_ARG("pfs", 0, "N", MKFIXTURE_O_PFS,
		 "compute PFs in InfiniBand mode (1..64, default 8)")},
	{OPT_ARG("vfs", 0, "N", MKFIXTURE_O_VFS, "VFs per compute PF (0..255, default 8)")},
	{OPT_BOOL("reboot", 0, MKFIXTURE_O_REBOOT,
		  "then reboot it, as 'ibvf --sim=DIR debug reboot [--seed N]'")},
	{OPT_ARG("seed", 0, "N", MKFIXTURE_O_SEED,
		 "with --reboot or --history: the VF probe order's seed (else $IBVF_SIM_SEED, "
		 "else random)")},
	{OPT_BOOL("history", 0, MKFIXTURE_O_HISTORY,
		  "then two days of recorded history in DIR/var/lib/ibvf/history.db (pods, "
		  "renames, a port down, a reboot), the node driven through them")},
	{OPT_TABLE_END},
};

int cmd_mkfixture(const struct cli *c, int argc, char **argv)
{
	struct sim_fixture_opts o = {0};
	const char *kernel = c->kernel;
	if (kernel && (!*kernel || strlen(kernel) > 64 || strchr(kernel, '/')))
		return bad("--kernel takes a release like 6.8.0-55-generic, not '%s'", kernel);
	o.kernel = kernel;
	const char *dir = NULL, *seed_arg = NULL, *v;
	bool reboot = false, history = false;
	struct opts p;
	int id, r = 0;
	if (opts_parse(cmd_find("mkfixture"), argc, argv, &p) < 0)
		return EXIT_USAGE;
	while (r == 0 && (id = opts_next(&p, &v))) {
		switch (id) {
		case MKFIXTURE_O_HEALTHY:
			o.healthy = true;
			break;
		case MKFIXTURE_O_REBOOT:
			reboot = true;
			break;
		case MKFIXTURE_O_HISTORY:
			history = true;
			break;
		case MKFIXTURE_O_SEED:
			seed_arg = v;
			break;
		case MKFIXTURE_O_PFS:
			r = parse_count("--pfs", v, 1, SIM_PFS_MAX, &o.pfs);
			break;
		case MKFIXTURE_O_VFS:
			r = parse_count("--vfs", v, 0, SIM_VFS_MAX, &o.vfs);
			o.vfs_set = true;
			break;
		}
	}
	if (r)
		return r;
	if (p.n_pos > 1)
		return bad("unexpected argument '%s'", p.pos[1]);
	dir = p.n_pos ? p.pos[0] : NULL;
	if (!dir)
		return bad("%s", "mkfixture needs a directory (see ibvf mkfixture --help)");
	if (seed_arg && !reboot && !history)
		return bad("%s", "--seed goes with --reboot or --history");
	if (reboot && history)
		return bad("%s", "--history reboots the node in its history: not with --reboot");
	uint64_t seed = 0;
	if ((reboot || history) && reboot_seed(seed_arg, &seed) < 0)
		return 2;
	/* The history's node was made two days ago. */
	int64_t start = hist_now_us() - 48ll * 3600 * 1000000;
	if (history)
		o.at_us = start;
	struct err e = {""};
	r = sim_fixture_create(dir, &o, &e);
	if (r < 0) {
		fprintf(stderr, "ibvf: %s\n", e.msg);
		return r == -ENOTEMPTY ? 2 : 1;
	}
	if (history)
		return mkfixture_history(dir, start, seed);
	if (!reboot)
		return 0;
	/* Then a boot of it, as `ibvf --sim=DIR debug reboot` does. */
	struct cli sim = {.sim = true, .sim_dir = dir, .kernel = c->kernel};
	return reboot_run(&sim, seed, 0);
}
