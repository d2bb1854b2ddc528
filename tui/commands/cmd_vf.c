// SPDX-License-Identifier: MIT
/* `ibvf vf create|destroy|rename|guid|state`: one request each, run the one
 * way (cli_action.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tui/base/cli_action.h"
#include "core/base/guid.h"
#include "core/persist/naming.h"
#include "core/model/names.h"

/* One vf action: its arguments (-1: it counts them itself) and how they
 * become the request. */
struct vf_action {
	int n_args;
	int (*build)(struct act_args *p, struct action_req *req);
};

static int build_count(struct act_args *p, struct action_req *req)
{
	char *end;
	req->kind = ACTION_CREATE;
	if (p->n_args < 2)
		return 0; /* destroy: zero VFs */
	unsigned long v = strtoul(p->args[1], &end, 10);
	if (*end || !*p->args[1] || p->args[1][0] == '-' || v > 65535) {
		cli_error("invalid VF count '%s': a number from 0 to sriov_totalvfs", p->args[1]);
		return -EINVAL;
	}
	req->count = (unsigned int)v;
	return 0;
}

static int build_rename(struct act_args *p, struct action_req *req)
{
	struct err e;
	if (p->rename_all) {
		req->kind = ACTION_RENAME_ALL;
		return cli_want_args(p, 0, "vf rename --all [--scheme PATTERN]");
	}
	if (req->scheme[0]) {
		cli_error("--scheme goes with --all");
		return -EINVAL;
	}
	if (cli_want_args(p, 2, "vf rename VF NAME") < 0)
		return -EINVAL;
	req->kind = ACTION_RENAME;
	/* The one rule (naming.h): a kernel form only with --force. */
	if (naming_check(p->args[1], req->force, &e) < 0) {
		cli_error("%s", e.msg);
		return -EINVAL;
	}
	snprintf(req->name, sizeof(req->name), "%s", p->args[1]);
	return 0;
}

static int parse_guid_opt(const char *opt, const char *s, uint64_t *ret)
{
	if (guid_parse(s, ret) == 0)
		return 0;
	cli_error("invalid %s GUID '%s': give 00:11:22:33:44:55:66:77, 0011:2233:4455:6677 or "
		  "0x0011223344556677",
		  opt, s);
	return -EINVAL;
}

static int build_guid(struct act_args *p, struct action_req *req)
{
	if (p->all) {
		req->kind = ACTION_ASSIGN_ALL;
		if (p->node || p->port) {
			cli_error("--assign-all chooses the GUIDs: no --node or --port");
			return -EINVAL;
		}
		return cli_want_args(p, 0, "vf guid --assign-all [--prefix P]");
	}
	if (cli_want_args(p, 1, "vf guid VF [--node G] [--port G]") < 0)
		return -EINVAL;
	if (req->has_prefix) {
		cli_error("--prefix goes with --assign-all");
		return -EINVAL;
	}
	if (!p->node && !p->port) {
		cli_error("give --node GUID, --port GUID or both");
		return -EINVAL;
	}
	req->kind = ACTION_GUID;
	if ((p->node && parse_guid_opt("node", p->node, &req->node_guid) < 0) ||
	    (p->port && parse_guid_opt("port", p->port, &req->port_guid) < 0))
		return -EINVAL;
	req->set_node = p->node;
	req->set_port = p->port;
	return 0;
}

static int build_state(struct act_args *p, struct action_req *req)
{
	req->kind = ACTION_STATE;
	if ((req->state = vf_link_state_from_string(p->args[1])) < 0) {
		cli_error("invalid link state '%s': auto, enable or disable", p->args[1]);
		return -EINVAL;
	}
	return 0;
}

enum {
	VF_CREATE,
	VF_DESTROY,
	VF_RENAME,
	VF_GUID,
	VF_STATE
};

const struct opt_sub vf_subs[] = {
	[VF_CREATE] = {"create", "vf create PF N", false},
	[VF_DESTROY] = {"destroy", "vf destroy PF", false},
	[VF_RENAME] = {"rename", "vf rename VF NAME | vf rename --all [--scheme PATTERN]", false},
	[VF_GUID] = {"guid", "vf guid VF [--node G] [--port G] | vf guid --assign-all [--prefix P]",
		     false},
	[VF_STATE] = {"state", "vf state VF auto|enable|disable", false},
	{NULL, NULL, false},
};

/* In vf_subs' order. */
static const struct vf_action vf_actions[] = {
	[VF_CREATE] = {2, build_count},	  [VF_DESTROY] = {1, build_count},
	[VF_RENAME] = {-1, build_rename}, [VF_GUID] = {-1, build_guid},
	[VF_STATE] = {2, build_state},
};

const struct opt vf_options[] = {
	{OPT_BOOL("all", 0, ACT_O_ALL,
		  "every VF not in a pod to its predictable name, one "
		  "plan: systemd's PF name + v<index> (ibp24s0 VF 3: ibp24s0v3)"),
	 .subs = OPT_SUB(VF_RENAME)},
	{OPT_ARG("scheme", 0, "PATTERN", ACT_O_SCHEME,
		 "with --all, the names' pattern: tokens %p PF name "
		 "without port suffix, %n PF name, %D %b %s %f PF PCI "
		 "domain/bus/slot/function, %i VF index (default %pv%i)"),
	 .subs = OPT_SUB(VF_RENAME)},
	{OPT_ARG("node", 0, "G", ACT_O_NODE,
		 "the node GUID (00:11:22:33:44:55:66:77, "
		 "0011:2233:4455:6677 or 0x0011223344556677)"),
	 .subs = OPT_SUB(VF_GUID)},
	{OPT_ARG("port", 0, "G", ACT_O_PORT, "the port GUID, as --node"), .subs = OPT_SUB(VF_GUID)},
	{OPT_BOOL("assign-all", 0, ACT_O_ASSIGN_ALL,
		  "unique GUIDs for every VF with zero or duplicate "
		  "GUIDs; a duplicate's first holder keeps it (scheme: README)"),
	 .subs = OPT_SUB(VF_GUID)},
	{OPT_ARG("prefix", 0, "P", ACT_O_PREFIX,
		 "with --assign-all, the GUIDs' first 5 bytes "
		 "(00:11:22:33:44 or 0x0011223344)"),
	 .subs = OPT_SUB(VF_GUID)},
	{OPT_BOOL("dry-run", 0, ACT_O_DRY_RUN, "print the plan, change nothing")},
	{OPT_BOOL("yes", 'y', ACT_O_YES,
		  "apply without asking (without it ibvf asks, and refuses "
		  "when stdin is not a terminal)")},
	{OPT_BOOL("force", 'f', ACT_O_FORCE,
		  "act on VFs bound to pods; rename: a kernel name too")},
	{OPT_ARG("timeout", 0, "S", ACT_O_TIMEOUT,
		 "how long a step waits for the devices (1..3600, default 30)")},
	{OPT_BOOL("no-wait", 0, ACT_O_NO_WAIT,
		  "fail at once when another ibvf holds the node's lock")},
	{OPT_TABLE_END},
};

int vf_request_parse(int argc, char **argv, struct act_args *ret)
{
	struct act_args p;
	int sub = -1;
	if (cli_action_parse(argc, argv, &p) < 0)
		return -EINVAL;
	if (!p.n_args) {
		cli_error("missing action: create, destroy, rename, guid or state (see 'ibvf vf "
			  "--help')");
		return -EINVAL;
	}
	for (int i = 0; vf_subs[i].name && sub < 0; i++)
		if (!strcmp(vf_subs[i].name, p.args[0]))
			sub = i;
	if (sub < 0) {
		cli_error("'%s' is not a vf action: create, destroy, rename, guid or state",
			  p.args[0]);
		return -EINVAL;
	}
	p.args++;
	p.n_args--;
	const struct vf_action *a = &vf_actions[sub];
	if ((a->n_args >= 0 && cli_want_args(&p, a->n_args, vf_subs[sub].usage) < 0) ||
	    a->build(&p, &p.req) < 0)
		return -EINVAL;
	if (p.n_args && p.req.kind != ACTION_RENAME_ALL)
		snprintf(p.req.target, sizeof(p.req.target), "%s", p.args[0]);
	*ret = p;
	return 0;
}

int cmd_vf(const struct cli *c, int argc, char **argv)
{
	struct act_args p;
	if (vf_request_parse(argc, argv, &p) < 0)
		return EXIT_USAGE;
	return cli_action_run(c, &p.o, &p.req);
}
