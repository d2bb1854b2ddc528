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
	const char *name;
	int n_args;
	const char *usage;
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

static const struct vf_action vf_actions[] = {
	{"create", 2, "vf create PF N", build_count},
	{"destroy", 1, "vf destroy PF", build_count},
	{"rename", -1, "vf rename VF NAME | vf rename --all [--scheme P]", build_rename},
	{"guid", -1, "vf guid VF [--node G] [--port G]", build_guid},
	{"state", 2, "vf state VF auto|enable|disable", build_state},
};

/* Only `guid` takes --node, --port, --assign-all and --prefix; only
 * `rename` --all and --scheme. */
static const char *other_opt(const struct vf_action *a, const struct act_args *p)
{
	if (!strcmp(a->name, "rename"))
		return p->node		   ? "node"
		       : p->port	   ? "port"
		       : p->all		   ? "assign-all"
		       : p->req.has_prefix ? "prefix"
					   : NULL;
	if (!strcmp(a->name, "guid"))
		return p->rename_all ? "all" : p->req.scheme[0] ? "scheme" : NULL;
	return p->node		   ? "node"
	       : p->port	   ? "port"
	       : p->all		   ? "assign-all"
	       : p->req.has_prefix ? "prefix"
	       : p->rename_all	   ? "all"
	       : p->req.scheme[0]  ? "scheme"
				   : NULL;
}

int vf_request_parse(int argc, char **argv, struct act_args *ret)
{
	struct act_args p;
	const struct vf_action *a = NULL;
	if (cli_action_parse(
		    argc, argv,
		    "dry-run yes force timeout node port assign-all prefix all scheme no-wait",
		    &p) < 0)
		return -EINVAL;
	if (!p.n_args) {
		cli_error("missing action: create, destroy, rename, guid or state (see 'ibvf vf "
			  "--help')");
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(vf_actions) / sizeof(vf_actions[0]) && !a; i++)
		if (!strcmp(vf_actions[i].name, p.args[0]))
			a = &vf_actions[i];
	if (!a) {
		cli_error("'%s' is not a vf action: create, destroy, rename, guid or state",
			  p.args[0]);
		return -EINVAL;
	}
	p.args++;
	p.n_args--;
	if (other_opt(a, &p)) {
		cli_error("'%s' takes no --%s", a->name, other_opt(a, &p));
		return -EINVAL;
	}
	if ((a->n_args >= 0 && cli_want_args(&p, a->n_args, a->usage) < 0) ||
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
