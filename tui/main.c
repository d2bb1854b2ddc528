// SPDX-License-Identifier: MIT
/* ibvf: SR-IOV VF and RDMA port console for GPU nodes. Argument parsing and
 * subcommand dispatch. */
#include <errno.h>
#include <json-c/json.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_cli.h"
#include "cli.h"
#include "cmds.h"
#include "console.h"
#include "core/sim/sim_tree.h"
#include "core/sys.h"
#include "vf_cli.h"

struct command {
	const char *name;
	int (*run)(const struct cli *c, int argc, char **argv);
	const char *usage;
	const char *help;
};

/* --theme: only the console draws, so it is kept here rather than in struct cli. */
static const char *theme_opt;

static int cmd_console(const struct cli *c, int argc, char **argv)
{
	return console_main(c, theme_opt, argc, argv);
}

static const struct command commands[] = {
	{"console", cmd_console, "console",
	 "The live PF -> VF tree, its details, and the node's changes as they happen\n"
	 "(the default when standard output is a terminal). Keys: ? for help.\n"
	 "--theme NAME|PATH picks a colour theme (default, light, mono, high-contrast,\n"
	 "or $XDG_CONFIG_HOME/ibvf/themes/NAME.theme); NO_COLOR turns colours off."},
	{"list", cmd_list, "list [--json] [--pods]",
	 "Show every PF -> VF tree: PCI address, driver, netdev and RDMA device names,\n"
	 "port state, physical state, rate, link layer, firmware, VF counts, GUIDs and\n"
	 "the pod holding each VF.\n"
	 "--json prints the whole model (every field, unknown values as null).\n"
	 "--pods shows the pods instead: each pod with the VFs it holds, the interface\n"
	 "and its state inside the pod, and where the binding was found."},
	{"vf", cmd_vf, VF_CLI_USAGE, VF_CLI_HELP},
	{"persist", cmd_persist, PERSIST_USAGE, PERSIST_HELP},
	{"journal", cmd_journal, JOURNAL_USAGE, JOURNAL_HELP},
	{"watch", cmd_watch, "watch [--json]",
	 "Print each change of the node (PCI functions, netdevs, RDMA devices added,\n"
	 "removed, renamed, bound) as it happens, one line each; --json for JSON lines.\n"
	 "Runs until interrupted."},
	{"debug", cmd_debug, "debug rename IFNAME NEWNAME | debug vfinfo PF_IFNAME",
	 "Low-level probes of the kernel boundary: rename a netdev through ibvf's\n"
	 "netlink code, or print a PF's netlink VF information as JSON."},
	{"bench", cmd_bench, "bench server|client HOST|pair DEV_A DEV_B|loopback DEV [OPTIONS]",
	 "RDMA WRITE/READ bandwidth and latency per VF, judged against the port's rate;\n"
	 "see 'ibvf bench --help' for the options."},
};

static const char usage_text[] =
	"usage: ibvf [--sim[=DIR] | --root DIR] [--kernel REL] <command> [<args>]\n"
	"\n"
	"commands:\n"
	"  console              the live console (the default on a terminal)\n"
	"  list [--json]        show the PF -> VF tree (the default otherwise)\n"
	"       [--pods]        or the pods holding VFs, with their VFs\n"
	"  watch [--json]       print node changes as they happen\n"
	"  vf ACTION ...        create, destroy, rename VFs, set GUIDs and link state\n"
	"  persist              write .link files and a boot unit for the VF layout\n"
	"  journal [undo ID]    list the applied actions, undo a rename or GUID change\n"
	"  mkfixture DIR        build a simulated DGX H200 node tree (see --help there)\n"
	"  debug ...            low-level probes of the kernel boundary\n"
	"  help [COMMAND]       show help for a command\n"
	"\n"
	"options:\n"
	"  --sim[=DIR]          run on the simulated DGX H200 node (made in DIR, or in\n"
	"                       $XDG_CACHE_HOME/ibvf/sim on first use)\n"
	"  --root DIR           read a captured node tree under DIR instead of /\n"
	"  --kernel REL         kernel release the simulated node behaves as\n"
	"  --theme NAME|PATH    the console's colour theme\n"
	"  --json               JSON output\n"
	"  -h, --help           show this help\n"
	"  -V, --version        show the version\n";

void cli_error(const char *fmt, ...)
{
	va_list ap;
	fputs("ibvf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int cmd_help(const char *name)
{
	if (!name) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(name, "mkfixture")) {
		char *argv[] = {"mkfixture", "--help", NULL};
		return cmd_mkfixture(2, argv);
	}
	const struct command *cmd = find_command(name);
	if (!cmd) {
		cli_error("no help for '%s': not an ibvf command", name);
		return EXIT_USAGE;
	}
	printf("usage: ibvf [--sim[=DIR] | --root DIR] %s\n\n%s\n", cmd->usage, cmd->help);
	return 0;
}

/* The simulated node's default home: made on first use. */
static int default_sim_dir(char *buf, size_t size)
{
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (cache && *cache)
		n = snprintf(buf, size, "%s/ibvf/sim", cache);
	else if (home && *home)
		n = snprintf(buf, size, "%s/.cache/ibvf/sim", home);
	else
		n = snprintf(buf, size, "/tmp/ibvf-sim-%u", (unsigned)getuid());
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int mkdir_parents(const char *dir)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int cli_open(const struct cli *c, struct sys **ret)
{
	struct err e = {{0}};
	int r;
	if (!c->sim) {
		r = sys_open_linux(c->root, ret, &e);
	} else {
		char dir[PATH_MAX];
		const char *d = c->sim_dir;
		if (!d) {
			if (default_sim_dir(dir, sizeof(dir)) < 0) {
				cli_error("cannot place the simulated node: path too long");
				return -ENAMETOOLONG;
			}
			d = dir;
			struct stat st;
			if (stat(d, &st) < 0) {
				struct sim_fixture_opts o = {0};
				r = mkdir_parents(d);
				if (r < 0 || (r = sim_fixture_create(d, &o, &e)) < 0) {
					cli_error("cannot create the simulated node in '%s': %s", d,
						  r == -ENOMEM || !e.msg[0] ? strerror(-r) : e.msg);
					return r;
				}
			}
		}
		struct sys_sim_params p = {.kernel = c->kernel};
		r = sys_open_sim(d, &p, ret, &e);
	}
	if (r < 0)
		cli_error("%s", e.msg);
	return r;
}

enum {
	OPT_SIM = 256,
	OPT_ROOT,
	OPT_KERNEL,
	OPT_JSON,
	OPT_THEME,
	OPT_PODS
};

int main(int argc, char **argv)
{
	/* json-c seeds its default string hash on the first object from
	 * getrandom(GRND_NONBLOCK), falling back to a read of /dev/urandom,
	 * which blocks while the kernel's CRNG is not ready (early boot, guests
	 * without a hardware RNG): `ibvf watch` showed its first events seconds
	 * late. Our objects' keys are ours or bounded input, so the unseeded
	 * hash is safe. Tables keep the hash they were made with: set it first. */
	json_global_set_string_hash(JSON_C_STR_HASH_PERLLIKE);

	/* vf, persist and journal have options of their own. */
	int vrc = vf_cli_dispatch(argc, argv);
	if (vrc >= 0)
		return vrc;
	/* mkfixture has options of its own. */
	if (argc > 1 && !strcmp(argv[1], "mkfixture"))
		return cmd_mkfixture(argc - 1, argv + 1);
	/* So does bench (it also takes --sim, --root and --json itself). */
	if (argc > 1 && !strcmp(argv[1], "bench"))
		return cmd_bench(NULL, argc - 1, argv + 1);

	static const struct option opts[] = {
		{"sim", optional_argument, NULL, OPT_SIM},
		{"root", required_argument, NULL, OPT_ROOT},
		{"kernel", required_argument, NULL, OPT_KERNEL},
		{"json", no_argument, NULL, OPT_JSON},
		{"theme", required_argument, NULL, OPT_THEME},
		{"pods", no_argument, NULL, OPT_PODS},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	struct cli c = {0};
	bool help = false;
	int o;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		switch (o) {
		case OPT_SIM:
			c.sim = true;
			c.sim_dir = optarg;
			break;
		case OPT_ROOT:
			c.root = optarg;
			break;
		case OPT_KERNEL:
			c.kernel = optarg;
			break;
		case OPT_JSON:
			c.json = true;
			break;
		case OPT_THEME:
			theme_opt = optarg;
			break;
		case OPT_PODS:
			c.pods = true;
			break;
		case 'h':
			help = true;
			break;
		case 'V':
			printf("ibvf %s\n", IBVF_VERSION);
			return 0;
		case ':':
			cli_error("option '%s' needs a value", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			cli_error("unknown option '%s' (see 'ibvf --help')", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	bool tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	const char *name = optind < argc ? argv[optind] : tty && !c.json ? "console" : "list";
	int cargc = optind < argc ? argc - optind : 0;
	char **cargv = argv + optind;

	if (!strcmp(name, "help"))
		return cmd_help(cargc > 1 ? cargv[1] : NULL);
	const struct command *cmd = find_command(name);
	if (!cmd) {
		cli_error("'%s' is not an ibvf command (see 'ibvf --help')", name);
		return EXIT_USAGE;
	}
	if (help)
		return cmd_help(optind < argc ? cmd->name : NULL);
	if (c.sim && c.root) {
		cli_error("--sim and --root cannot be used together");
		return EXIT_USAGE;
	}
	if (theme_opt && strcmp(name, "console")) {
		cli_error("--theme only applies to the console");
		return EXIT_USAGE;
	}
	if (c.kernel && !c.sim) {
		cli_error("--kernel only applies to the simulated node (--sim)");
		return EXIT_USAGE;
	}
	if (c.pods && strcmp(name, "list")) {
		cli_error("--pods only applies to 'list'");
		return EXIT_USAGE;
	}
	if (c.json && strcmp(name, "list") && strcmp(name, "watch")) {
		cli_error("'%s' has no JSON output", name);
		return EXIT_USAGE;
	}
	return cmd->run(&c, cargc, cargv);
}
