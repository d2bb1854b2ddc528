// SPDX-License-Identifier: MIT
/* The command table, as git.c has it: every command's name, handler, the
 * global options it takes, and its help. main.c dispatches from it; `ibvf
 * help`, `ibvf help CMD` and `CMD --help` are rendered from it. */
#include <stdio.h>
#include <string.h>

#include "bench/defaults.h"
#include "tui/base/cli.h"
#include "tui/console/console.h"
#include "help_gen.h"

int cmd_console(const struct cli *c, int argc, char **argv)
{
	return console_main(c, c->theme, argc, argv);
}

#define BENCH_HELP                                                                                 \
	"RDMA WRITE/READ bandwidth and latency per VF, judged against the port's rate.\n"          \
	"Devices are named by PCI address (full or short), netdev, altname, RDMA device\n"         \
	"or the pod holding the VF (namespace/name)."

#define VF_USAGE                                                                                   \
	"vf create PF N | vf destroy PF | vf rename VF NAME |\n"                                   \
	"       vf rename --all [--scheme PATTERN] |\n"                                            \
	"       vf guid VF [--node G] [--port G] | vf guid --assign-all [--prefix P] |\n"          \
	"       vf state VF auto|enable|disable\n"                                                 \
	"       [--dry-run] [--yes] [--force] [--json] [--timeout S] [--no-wait]"
#define VF_HELP                                                                                    \
	"Change VFs, safely: each action is a plan of steps, each with its shell\n"                \
	"equivalent, checked before it runs, verified after, and journaled.\n"                     \
	"PF and VF are named by PCI address (0000:18:00.1 or 18:00.1), netdev, altname,\n"         \
	"RDMA device, or the pod holding the VF (namespace/name).\n"                               \
	"  create PF N     set the number of VFs (through 0; waits for their devices)\n"           \
	"  destroy PF      remove the VFs (create PF 0)\n"                                         \
	"  rename VF NAME  rename the VF's netdev (down/up around it before Linux 6.2);\n"         \
	"                  1-15 bytes, no '%', '/', ':' or spaces; a kernel name (ibN,\n"          \
	"                  ethN) only with --force: the kernel hands it out again\n"               \
	"  rename --all    every VF not in a pod to its predictable name (--scheme)\n"             \
	"  guid VF         set the node and/or port GUID (--node, --port); the VF is\n"            \
	"                  rebound for it to take effect and keeps its name\n"                     \
	"  guid --assign-all\n"                                                                    \
	"                  unique GUIDs for every VF with zero or duplicate GUIDs\n"               \
	"  state VF auto|enable|disable   the VF's link-state policy\n"                            \
	"--json prints the plan and its result as JSON. One ibvf applies at a time (a\n"           \
	"lock on /run/ibvf/lock): a second one waits, then re-checks the node.\n"                  \
	"SIGINT/SIGTERM end the step in progress, then the plan stops and is journaled.\n"         \
	"Exit 2: refused, nothing changed; 1: a step or the verification failed, the\n"            \
	"plan was interrupted, or the lock was held with --no-wait (see 'ibvf journal')."

#define CHECK_HELP                                                                                 \
	"What is wrong on the node: each finding with its subject, the evidence (the\n"            \
	"file and value read, or the kernel-log line), why it matters, and its remedy\n"           \
	"(an ibvf command line, or manual steps ibvf never runs itself). Printed as\n"             \
	"problems, one line each: a cause with the findings it explains folded beneath\n"          \
	"and counted, one check's findings on many VFs as one group with one remedy;\n"            \
	"--verbose prints every finding.\n"                                                        \
	"  ID                only findings of this check (ids: --list)\n"                          \
	"  DEVICE            only findings on this PF (and its VFs) or VF: PCI address,\n"         \
	"                    netdev, RDMA device or the pod holding the VF\n"                      \
	"                    (ids and devices combine: guid-zero 18:00.0)"

enum {
	HELP_O_MAN = 1,
	HELP_O_COMPLETION
};

static const struct opt help_options[] = {
	{OPT_BOOL("man", 0, HELP_O_MAN, "ibvf(1) in man(7), as the build installs it"),
	 .hidden = true},
	{OPT_ARG("completion", 0, "SHELL", HELP_O_COMPLETION,
		 "the table the bash or zsh completion reads"),
	 .hidden = true},
	{OPT_TABLE_END},
};

static const struct cmd commands[] = {
	{"console", cmd_console, CMD_NODE | CMD_THEME,
	 "the live console (the default on a terminal)", "console [--key FILE]",
	 "The live PF -> VF tree, its details, and the node's changes as they happen\n"
	 "(the default when standard output is a terminal). Keys: ? for help.\n"
	 "--theme NAME|PATH picks a colour theme (default, light, mono, high-contrast,\n"
	 "or $XDG_CONFIG_HOME/ibvf/themes/NAME.theme); NO_COLOR turns colours off.",
	 console_options, console_subs, CMD_POS_NONE},
	{"list", cmd_list, CMD_NODE | CMD_JSON,
	 "show the PF -> VF tree (the default otherwise), or --pods",
	 "list [--json] [--pods] [--wide]",
	 "Show every PF -> VF tree: PCI address, driver, netdev and RDMA device names,\n"
	 "port state, physical state, rate, link layer, firmware, VF counts, GUIDs and\n"
	 "the pod holding each VF.\n"
	 "--json prints the whole model (every field, unknown values as null).",
	 list_options, NULL, CMD_POS_NONE},
	{"check", cmd_check, CMD_NODE | CMD_JSON | CMD_SEVERITY_EXIT,
	 "what is wrong and how to fix it; exit 0/1/2 by severity, 3 error",
	 "check [--json] [-v] [--severity S] [--dp-config FILE] [--list] [ID|DEVICE...] |\n"
	 "       check --fix ID|all [--yes] [--dry-run] [--force] [--no-wait] [ID|DEVICE...]",
	 CHECK_HELP, check_options, NULL, CMD_POS_DEV},
	{"watch", cmd_watch, CMD_NODE | CMD_JSON, "print node changes as they happen",
	 "watch [--json]",
	 "Print each change of the node (PCI functions, netdevs, RDMA devices added,\n"
	 "removed, renamed, bound) as it happens, one line each; --json for JSON lines.\n"
	 "Runs until interrupted.",
	 NULL, NULL, CMD_POS_NONE},
	{"record", cmd_record, CMD_NODE, "record the node's changes into its history",
	 "record [--once] [--max-size SIZE] [--max-age DAYS] [--verbose]",
	 "Follow the node as the console does (uevents, netlink, the kubelet's and CNI's\n"
	 "files, the kernel log) and record every change into the history store: VF\n"
	 "counts, functions and drivers, netdev renames and moves into pods, GUIDs,\n"
	 "port states, pod bindings, kernel-log driver records, ibvf's actions, findings\n"
	 "opening and closing, bench results, and each boot with what it changed.\n"
	 "Runs until SIGTERM or SIGINT (ibvf-record.service; the DaemonSet). Read it\n"
	 "with 'ibvf timeline' or the console's Timeline view (docs/history.md).",
	 record_options, NULL, CMD_POS_NONE},
	{"timeline", cmd_timeline, CMD_NODE | CMD_JSON,
	 "what changed on the node, when, after what",
	 "timeline [--since WHEN] [--until WHEN] [--kind KINDS] [-n N] [--follow] [--utc]\n"
	 "       [--no-causes] [--json] [DEV|POD...]",
	 "The node's recorded history (written by 'ibvf record'), oldest first, a boot\n"
	 "set apart as journalctl does. Under a rename, a GUID change or a port going\n"
	 "down: the events just before it on the same function or PF (or naming the\n"
	 "same netdev), with the gap in seconds: the candidates for its cause.",
	 timeline_options, NULL, CMD_POS_DEV},
	{"vf", cmd_vf, CMD_NODE | CMD_JSON, "create, destroy, rename VFs, set GUIDs and link state",
	 VF_USAGE, VF_HELP, vf_options, vf_subs, CMD_POS_DEV},
	{"persist", cmd_persist, CMD_NODE | CMD_JSON,
	 "write .link files and a boot unit for the VF layout",
	 "persist [--ibvf PATH] [--output DIR] [--force] [--dry-run] [--yes] [--json] [--no-wait] "
	 "| persist --verify",
	 "Write what makes the current VF layout survive a reboot: a systemd .link file\n"
	 "per VF (matched by PCI path) and ibvf-sriov.service, a oneshot unit that loads\n"
	 "the driver, creates the VFs, sets their GUIDs and settles udev before the\n"
	 "kubelet, enabled (multi-user.target.wants). Into /etc/systemd/{network,system}\n"
	 "(under --root/--sim), or flat into --output DIR (an absolute path). Refuses\n"
	 "when an earlier .link file would keep a VF from its name at the next boot\n"
	 "(naming it; --force writes anyway), and while checks find zero, duplicate or\n"
	 "invalid GUIDs, VFs without a driver or kernel names (ibN/ethN), naming each\n"
	 "check and 'ibvf check --fix ID'; plans every ibvf command of the unit on the\n"
	 "node first and refuses a line the node would refuse at boot.",
	 persist_options, NULL, CMD_POS_NONE},
	{"journal", cmd_journal, CMD_NODE | CMD_JSON,
	 "list the applied actions, undo a rename, GUID change or persist",
	 "journal [--json] | journal undo ID [--dry-run] [--yes] [--force] [--no-wait]",
	 "List the applied plans (/var/lib/ibvf/journal.jsonl): time, user, action,\n"
	 "result and what changed; a plan that stopped part way says how far it went\n"
	 "('interrupted after 3 of 96 steps'). 'undo ID' reverts a rename, a GUID\n"
	 "change or a persist (its files back as they were), also one that stopped\n"
	 "part way, as far as it went. A damaged line is skipped and named ('journal:\n"
	 "line 7 damaged, skipped').",
	 journal_options, journal_subs, CMD_POS_NONE},
	{"bench", cmd_bench, CMD_NODE | CMD_JSON, "RDMA WRITE/READ bandwidth and latency per VF",
	 NULL, BENCH_HELP, bench_options, bench_subs, CMD_POS_DEV},
	{"metrics", cmd_metrics, CMD_NODE, "the node as Prometheus metrics (textfile collector)",
	 "metrics [--textfile DIR] [--interval SECONDS]",
	 "The node in Prometheus text format (0.0.4): the PF -> VF tree with names and\n"
	 "link layer, zero and duplicate GUIDs, pinned names, pod bindings, the checks'\n"
	 "findings by id and severity, each VF's last 'bench validate' result (from\n"
	 "/var/lib/ibvf/bench-history.jsonl) and when it was written. Port state, rate\n"
	 "and counters are node_exporter's infiniband collector's (docs/metrics.md).",
	 metrics_options, NULL, CMD_POS_NONE},
	{"mkfixture", cmd_mkfixture, CMD_KERNEL, "build a simulated DGX H200 node tree",
	 "mkfixture DIR [--healthy] [--pfs N] [--vfs N] [--kernel REL] [--reboot | --history] "
	 "[--seed N]",
	 "Write a simulated DGX H200 node into DIR (docs/fixture.md), for --sim=DIR;\n"
	 "--kernel REL is the kernel release it reports (default 6.8.0-55-generic).",
	 mkfixture_options, NULL, CMD_POS_DIR},
	{"debug", cmd_debug, CMD_NODE, "low-level probes of the kernel boundary",
	 "debug rename IFNAME NEWNAME | debug vfinfo PF_IFNAME | debug reboot [--seed N] | "
	 "debug pod-start NAMESPACE/NAME VF [--ifname IF] [--uid UID]",
	 "Low-level probes of the kernel boundary: rename a netdev through ibvf's\n"
	 "netlink code, or print a PF's netlink VF information as JSON.\n"
	 "reboot (simulated node only: --sim[=DIR]) proves what 'ibvf persist' wrote:\n"
	 "  every PF's VFs go (sriov_numvfs 0: netdevs, RDMA devices, GUIDs), PFs get\n"
	 "  their boot names, pod netns files go, the kernel log becomes a fresh boot's;\n"
	 "  then ibvf-sriov.service runs as systemd runs a oneshot (its ExecStart= lines\n"
	 "  in order, the first failure stops it unless the line has '-'; ibvf lines run\n"
	 "  this binary, modprobe and udevadm settle are no-ops); new VFs probe in a\n"
	 "  shuffled order with kernel names and zero GUIDs and udev applies the .link\n"
	 "  files (first match in file order); last, the kubelet moves each pod's VF\n"
	 "  back in. Exit 1 when the unit failed, 2 when a line cannot run here\n"
	 "  (nothing done).\n"
	 "pod-start (simulated node only) starts a pod holding VF as the kubelet, the\n"
	 "  device plugin and ib-sriov-cni do: the checkpoint entry, the Multus and\n"
	 "  ib-sriov caches, the netns file, the VF's netdev moved into the pod; then\n"
	 "  the kernel probes the PF's other VFs with kernel names (ibN, no .link file)\n"
	 "  again and they come back with the lowest free names. A VF a pod holds, one\n"
	 "  with no netdev, or a name Kubernetes refuses is refused (nothing done).",
	 debug_options, debug_subs, CMD_POS_NONE},
	{"help", cmd_help, CMD_ANY, "show help for a command", "help [COMMAND [SUBCOMMAND]]",
	 "Show every command, or one command's (or subcommand's) usage and options.", help_options,
	 NULL, CMD_POS_CMD},
};

const struct opt cli_globals[] = {
	{.kind = OPT_OPTIONAL,
	 .long_name = "sim",
	 .arg = "DIR",
	 .id = CLI_G_SIM,
	 .help = "run on the simulated DGX H200 node (made in DIR, or in "
		 "$XDG_CACHE_HOME/ibvf/sim, 0700, on first use)"},
	{OPT_ARG("root", 0, "DIR", CLI_G_ROOT,
		 "read a captured node tree under DIR instead of / (its links resolve inside "
		 "DIR; regular files only)")},
	{OPT_ARG("kernel", 0, "REL", CLI_G_KERNEL, "kernel release the simulated node behaves as")},
	{OPT_ARG("theme", 0, "NAME|PATH", CLI_G_THEME, "the console's colour theme")},
	{OPT_BOOL("json", 0, CLI_G_JSON, "JSON output")},
	{OPT_ARG("kubelet-socket", 0, "PATH", CLI_G_KUBELET_SOCKET,
		 "the kubelet's pod-resources socket, as on the node (default "
		 "/var/lib/kubelet/pod-resources/kubelet.sock)")},
	{OPT_ARG("kubelet-timeout", 0, "MS", CLI_G_KUBELET_TIMEOUT,
		 "the deadline of each call to that API, 1 to 60000 ms (default 2000)")},
	{OPT_BOOL("help", 'h', CLI_G_HELP, "show this help, or a command's")},
	{OPT_BOOL("version", 'V', CLI_G_VERSION, "show the version")},
	{OPT_TABLE_END},
};

bool cmd_takes_global(const struct cmd *cmd, const struct opt *g)
{
	unsigned int f = cmd->flags;
	switch (g->id) {
	case CLI_G_SIM:
	case CLI_G_ROOT:
	case CLI_G_KUBELET_SOCKET:
	case CLI_G_KUBELET_TIMEOUT:
		return f & CMD_NODE;
	case CLI_G_KERNEL:
		return f & (CMD_NODE | CMD_KERNEL);
	case CLI_G_THEME:
		return f & CMD_THEME;
	case CLI_G_JSON:
		return f & CMD_JSON;
	case CLI_G_HELP:
		return !(f & CMD_ANY);
	}
	return false;
}

const struct cmd *cmd_table(size_t *ret_n)
{
	*ret_n = sizeof(commands) / sizeof(commands[0]);
	return commands;
}

const struct cmd *cmd_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

void cmd_print_overview(FILE *f)
{
	fputs("usage: " CMD_SYNOPSIS "\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fputs("\noptions (before or after the command):\n", f);
	opts_print(f, NULL, cli_globals, -1);
}

void cmd_print_usage(FILE *f, const struct cmd *cmd)
{
	if (cmd->usage) {
		fprintf(f, "usage: ibvf %s\n", cmd->usage);
		return;
	}
	/* None of its own: its subcommands', one under the other. */
	const char *lead = "usage: ibvf ";
	for (int i = 0; cmd->subs && cmd->subs[i].name; i++) {
		if (cmd->subs[i].hidden)
			continue;
		fprintf(f, "%s%s\n", lead, cmd->subs[i].usage);
		lead = "       ibvf ";
	}
}

void cmd_print_globals(FILE *f, const struct cmd *cmd)
{
	const char *sep = "";
	char term[64];
	fputs("global options it takes:", f);
	for (const struct opt *g = cli_globals; g->kind != OPT_END; g++) {
		if (!cmd_takes_global(cmd, g))
			continue;
		if (g->short_name)
			snprintf(term, sizeof(term), "-%c/--%s", g->short_name, g->long_name);
		else
			opts_term(g, term, sizeof(term));
		fprintf(f, "%s %s%s", sep, term,
			g->id == CLI_G_KERNEL && !(cmd->flags & CMD_KERNEL) ? " (with --sim)" : "");
		sep = ",";
	}
	fputs("\n", f);
}

int cmd_find_sub(const struct cmd *cmd, const char *name)
{
	for (int i = 0; name && cmd->subs && cmd->subs[i].name; i++)
		if (cmd->subs[i].name[0] && !strcmp(cmd->subs[i].name, name))
			return i;
	return -1;
}

void cmd_print_help(FILE *f, const struct cmd *cmd, int sub)
{
	if (sub >= 0) {
		fprintf(f, "usage: ibvf %s\n\n", cmd->subs[sub].usage);
	} else {
		cmd_print_usage(f, cmd);
		fprintf(f, "\n%s\n", cmd->help);
	}
	opts_print(f, cmd, cmd->options, sub);
	if (!(cmd->flags & CMD_ANY)) {
		fputs("\n", f);
		cmd_print_globals(f, cmd);
	}
}

int cmd_help(const struct cli *c, int argc, char **argv)
{
	struct opts p;
	const char *v;
	int id;
	(void)c;
	if (opts_parse(cmd_find("help"), argc, argv, &p) < 0)
		return EXIT_USAGE;
	/* Hidden: the build renders the man page and the completion's table. */
	while ((id = opts_next(&p, &v)))
		return id == HELP_O_MAN ? help_man(stdout) : help_completion(stdout, v);
	if (p.n_pos > 2)
		return cli_bad_arg("help", p.pos[2]);
	if (!p.n_pos) {
		cmd_print_overview(stdout);
		return 0;
	}
	const struct cmd *cmd = cmd_find(p.pos[0]);
	if (!cmd) {
		cli_error("no help for '%s': not an ibvf command (see 'ibvf help')", p.pos[0]);
		return EXIT_USAGE;
	}
	int sub = p.n_pos > 1 ? cmd_find_sub(cmd, p.pos[1]) : -1;
	if (p.n_pos > 1 && sub < 0) {
		cli_error("no help for '%s %s': not a subcommand of '%s'", p.pos[0], p.pos[1],
			  p.pos[0]);
		return EXIT_USAGE;
	}
	cmd_print_help(stdout, cmd, sub);
	return 0;
}
