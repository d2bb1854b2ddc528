/* SPDX-License-Identifier: MIT */
/* `ibvf vf ...`, `ibvf persist`, `ibvf journal`: the operator actions from
 * the command line (core/actions.h). */
#pragma once

#include <stdio.h>

#include "cli.h"

struct json_object;

/* These commands have options of their own (--dry-run, --yes, --node ...):
 * main calls this first. Returns the exit status, or -1 when argv is not one
 * of them (main goes on). Global options (--sim, --root, --kernel, --json)
 * may stand anywhere. */
int vf_cli_dispatch(int argc, char **argv);

int cmd_vf(const struct cli *c, int argc, char **argv);
int cmd_persist(const struct cli *c, int argc, char **argv);
int cmd_journal(const struct cli *c, int argc, char **argv);

#define VF_CLI_USAGE                                                                               \
	"vf create PF N | vf destroy PF | vf rename VF NAME |\n"                                   \
	"       vf guid VF [--node G] [--port G] | vf guid --assign-all [--prefix P] |\n"          \
	"       vf state VF auto|enable|disable\n"                                                 \
	"       [--dry-run] [--yes] [--force] [--json] [--timeout S]"
#define VF_CLI_HELP                                                                                \
	"Change VFs, safely: each action is a plan of steps, each with its shell\n"                \
	"equivalent, checked before it runs, verified after, and journaled.\n"                     \
	"PF and VF are named by PCI address (0000:18:00.1 or 18:00.1), netdev or ibdev.\n"         \
	"  create PF N     set the number of VFs (through 0; waits for their devices)\n"           \
	"  destroy PF      remove the VFs (create PF 0)\n"                                         \
	"  rename VF NAME  rename the VF's netdev (down/up around it before Linux 6.2)\n"          \
	"  guid VF         set the node and/or port GUID (00:11:22:33:44:55:66:77,\n"              \
	"                  0011:2233:4455:6677 or 0x0011223344556677); the VF is rebound\n"        \
	"                  for it to take effect and keeps its name\n"                             \
	"  guid --assign-all [--prefix 00:11:22:33:44]\n"                                          \
	"                  unique GUIDs for every VF with zero or duplicate GUIDs\n"               \
	"                  (scheme: README, core/actions.h)\n"                                     \
	"  state VF auto|enable|disable   the VF's link-state policy\n"                            \
	"--dry-run prints the plan; without --yes ibvf asks (and refuses when stdin is\n"          \
	"not a terminal); --force acts on VFs bound to pods; --json prints the plan and\n"         \
	"its result as JSON. Exit 2: refused, nothing changed; 1: a step or the\n"                 \
	"verification failed (see 'ibvf journal')."
#define PERSIST_USAGE "persist [--output DIR] [--dry-run] [--ibvf PATH] [--json]"
#define PERSIST_HELP                                                                               \
	"Write what makes the current VF layout survive a reboot: a systemd .link file\n"          \
	"per named VF (matched by PCI path) and ibvf-sriov.service, a oneshot unit that\n"         \
	"loads the driver, creates the VFs, sets their GUIDs and settles udev before\n"            \
	"the kubelet. Into /etc/systemd/{network,system} (under --root/--sim), or flat\n"          \
	"into --output DIR; --dry-run prints the files."
#define JOURNAL_USAGE "journal [--json] | journal undo ID [--dry-run] [--yes]"
#define JOURNAL_HELP                                                                               \
	"List the applied plans (/var/lib/ibvf/journal.jsonl): time, user, action,\n"              \
	"result and what changed. 'undo ID' reverts a rename or a GUID change."
