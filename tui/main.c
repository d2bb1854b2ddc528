// SPDX-License-Identifier: MIT
/* ibvf: SR-IOV VF and RDMA port console for GPU nodes. The global options,
 * parsed once wherever they stand, and the dispatch through the command
 * table (commands.c). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/base/cli.h"

struct globals {
	struct cli c;
	bool help, version;
};

/* One global option (cli_globals) at argv[i] into g: the entries it takes,
 * 0 when argv[i] is none, -1 when its value is missing (said). */
static int global_opt(int argc, char **argv, int i, struct globals *g)
{
	const struct opt *o;
	const char *v;
	int used = opts_match(cli_globals, argc, argv, i, &o, &v);
	if (used <= 0)
		return used;
	switch (o->id) {
	case CLI_G_SIM:
		g->c.sim = true;
		g->c.sim_dir = v;
		break;
	case CLI_G_ROOT:
		g->c.root = v;
		break;
	case CLI_G_KERNEL:
		g->c.kernel = v;
		break;
	case CLI_G_THEME:
		g->c.theme = v;
		break;
	case CLI_G_JSON:
		g->c.json = true;
		break;
	case CLI_G_KUBELET_SOCKET:
		return cli_kubelet_socket(&g->c, v) < 0 ? -1 : used;
	case CLI_G_KUBELET_TIMEOUT:
		return cli_kubelet_timeout(&g->c, v) < 0 ? -1 : used;
	case CLI_G_HELP:
		g->help = true;
		break;
	case CLI_G_VERSION:
		g->version = true;
		break;
	}
	return used;
}

/* Takes the global options out of argv, wherever they stand; what is left
 * goes to the command, its name first (*ret_name NULL when none was given). */
static int split_args(int argc, char **argv, struct globals *g, char **rest, int *ret_n,
		      const char **ret_name)
{
	int n = 1;
	bool ended = false; /* after "--": nothing more is global */
	*ret_name = NULL;
	for (int i = 1; i < argc; i++) {
		if (!ended && !strcmp(argv[i], "--")) {
			ended = true;
		} else if (!ended) {
			int used = global_opt(argc, argv, i, g);
			if (used < 0)
				return -1;
			if (used > 0) {
				i += used - 1;
				continue;
			}
		}
		if (!*ret_name && argv[i][0] != '-')
			*ret_name = argv[i];
		else
			rest[n++] = argv[i];
	}
	rest[n] = NULL;
	*ret_n = n;
	return 0;
}

/* The "only applies to" rules, from the command's flags. */
static int check_globals(const struct cmd *cmd, const struct cli *c)
{
	unsigned int f = cmd->flags;
	const char *why = NULL;
	if (f & CMD_ANY)
		return 0;
	if (c->sim && c->root)
		why = "--sim and --root cannot be used together";
	else if ((c->sim || c->root) && !(f & CMD_NODE))
		why = "--sim and --root only apply to commands that read the node";
	else if (c->kernel && !c->sim && !(f & CMD_KERNEL))
		why = "--kernel only applies to the simulated node (--sim)";
	else if (c->theme && !(f & CMD_THEME))
		why = "--theme only applies to the console";
	else if ((c->kubelet_socket || c->kubelet_timeout_ms) && !(f & CMD_NODE))
		why = "--kubelet-socket and --kubelet-timeout only apply to commands that read the "
		      "node";
	if (why) {
		cli_error("%s", why);
		return -1;
	}
	if (c->json && !(f & CMD_JSON)) {
		cli_error("'%s' has no JSON output", cmd->name);
		return -1;
	}
	return 0;
}

/* The exit status of a bad argument: `check` keeps 1 and 2 for findings. */
static int usage_status(const char *name)
{
	const struct cmd *cmd = name ? cmd_find(name) : NULL;
	return cmd && (cmd->flags & CMD_SEVERITY_EXIT) ? EXIT_UNKNOWN : EXIT_USAGE;
}

static int run(int argc, char **argv, char **rest)
{
	struct globals g = {0};
	const char *name;
	int n;
	if (split_args(argc, argv, &g, rest, &n, &name) < 0)
		return usage_status(name);
	if (g.version) {
		printf("ibvf %s\n", IBVF_VERSION);
		return 0;
	}
	if (g.help && !name) {
		cmd_print_overview(stdout);
		return 0;
	}
	bool tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	const struct cmd *cmd = cmd_find(name ? name : tty && !g.c.json ? "console" : "list");
	if (!cmd) {
		cli_error("'%s' is not an ibvf command (see 'ibvf help')", name);
		return EXIT_USAGE;
	}
	if (g.help) {
		/* `ibvf vf rename --help`: the subcommand's */
		int k = 1;
		while (k < n && rest[k][0] == '-')
			k++;
		cmd_print_help(stdout, cmd, k < n ? cmd_find_sub(cmd, rest[k]) : -1);
		return 0;
	}
	if (check_globals(cmd, &g.c) < 0)
		return usage_status(cmd->name);
	rest[0] = (char *)cmd->name;
	return cmd->run(&g.c, n, rest);
}

int main(int argc, char **argv)
{
	/* json-c seeds its default string hash on the first object from
	 * getrandom(GRND_NONBLOCK), falling back to a read of /dev/urandom,
	 * which blocks while the kernel's CRNG is not ready (early boot, guests
	 * without a hardware RNG): `ibvf watch` showed its first events seconds
	 * late. Our objects' keys are ours or bounded input, so the unseeded
	 * hash is safe. Tables keep the hash they were made with: set it first. */
	json_global_set_string_hash(JSON_C_STR_HASH_PERLLIKE);

	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest) {
		cli_error("out of memory");
		return 1;
	}
	int rc = run(argc, argv, rest);
	free(rest);
	return rc;
}
