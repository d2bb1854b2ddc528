// SPDX-License-Identifier: MIT
/* `ibvf vf ...`, `ibvf persist` and `ibvf journal`. Every action goes the
 * same way: read the node, make the plan (a refusal is one line and exit 2),
 * show it, ask, apply, show what happened. Text is rendered from the plan's
 * JSON, so the two outputs cannot drift apart. */
#include "vf_cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "core/actions.h"
#include "core/guid.h"
#include "core/journal.h"
#include "core/persist.h"
#include "core/sys.h"
#include "journal_text.h"
#include "plan_text.h"

struct act_opts {
	bool dry_run, yes;
};

static void print_plan(const struct cli *c, const struct plan *p)
{
	struct json_object *o = plan_to_json(p);
	if (c->json)
		printf("%s\n",
		       json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		text_render_print(stdout, o, plan_text);
	json_object_put(o);
}

/* Asks on the terminal; only "y" or "yes" goes on. */
static bool confirm(const struct plan *p)
{
	char line[32];
	fprintf(stderr, "Apply these %zu steps%s? [y/N] ", p->n_steps,
		p->destructive ? " (VF traffic is interrupted)" : "");
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	line[strcspn(line, "\n")] = '\0';
	return !strcasecmp(line, "y") || !strcasecmp(line, "yes");
}

static int run_req(const struct cli *c, const struct act_opts *o, const struct action_req *req)
{
	struct sys *s;
	struct node *n = NULL;
	struct plan *p = NULL;
	struct err e = {{0}};
	int r, rc = 1;

	if (cli_open(c, &s) < 0)
		return 1;
	if ((r = node_discover(s, &n, &e)) < 0) {
		cli_error("%s", e.msg);
		goto out;
	}
	if ((r = action_plan(s, n, req, &p, &e)) < 0) {
		cli_error("%s", e.msg);
		rc = r == -ENOMEM || r == -EIO ? 1 : EXIT_USAGE;
		goto out;
	}
	if (!p->n_steps || o->dry_run) {
		if (!p->n_steps && !c->json)
			printf("nothing to do: %s\n", p->summary);
		else
			print_plan(c, p);
		rc = 0;
		goto out;
	}
	if (!o->yes) {
		if (!isatty(STDIN_FILENO)) {
			cli_error(
				"refusing to change the node without confirmation: standard input "
				"is not a terminal (pass --yes, or --dry-run to see the plan)");
			rc = EXIT_USAGE;
			goto out;
		}
		if (!c->json)
			print_plan(c, p);
		if (!confirm(p)) {
			fprintf(stderr, "nothing was changed\n");
			rc = 1;
			goto out;
		}
	}
	r = action_apply(s, p, req, NULL, &e);
	if (p->result != PLAN_REFUSED)
		print_plan(c, p);
	if (p->journal_error[0])
		cli_error("the journal was not written: %s", p->journal_error);
	if (r < 0) {
		cli_error("%s", p->error[0] ? p->error : e.msg);
		rc = p->result == PLAN_REFUSED ? EXIT_USAGE : 1;
	} else {
		rc = 0;
	}
out:
	plan_free(p);
	node_free(n);
	sys_close(s);
	return rc;
}

enum {
	OPT_DRY = 256,
	OPT_NODE,
	OPT_PORT,
	OPT_ALL,
	OPT_PREFIX,
	OPT_TIMEOUT,
	OPT_OUTPUT,
	OPT_IBVF,
	OPT_JSONL
};

static const struct option act_options[] = {
	{"dry-run", no_argument, NULL, OPT_DRY},
	{"yes", no_argument, NULL, 'y'},
	{"force", no_argument, NULL, 'f'},
	{"node", required_argument, NULL, OPT_NODE},
	{"port", required_argument, NULL, OPT_PORT},
	{"assign-all", no_argument, NULL, OPT_ALL},
	{"prefix", required_argument, NULL, OPT_PREFIX},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"output", required_argument, NULL, OPT_OUTPUT},
	{"ibvf", required_argument, NULL, OPT_IBVF},
	{"json", no_argument, NULL, OPT_JSONL},
	{0},
};

struct parsed {
	struct act_opts o;
	struct action_req req;
	bool all, prefix, json;
	const char *node, *port, *output, *ibvf;
	char **args;
	int n_args;
};

/* Options common to the subcommands; `allowed` lists the ones this one takes. */
static int parse(int argc, char **argv, const char *allowed, struct parsed *ret)
{
	const char *help_name =
		!strcmp(argv[0], "journal") || !strcmp(argv[0], "persist") ? argv[0] : "vf";
	struct parsed p = {0};
	int opt;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":yf", act_options, NULL)) != -1) {
		const char *name = NULL;
		for (const struct option *o = act_options; o->name && !name; o++)
			if (o->val == opt)
				name = o->name;
		if (opt == '?' || opt == ':') {
			cli_error(opt == ':' ? "option '%s' needs a value"
					     : "unknown option '%s' (see 'ibvf %s --help')",
				  argv[optind - 1], help_name);
			return -EINVAL;
		}
		if (name && !strstr(allowed, name)) {
			cli_error("'%s' takes no --%s", argv[0], name);
			return -EINVAL;
		}
		char *end;
		switch (opt) {
		case OPT_DRY:
			p.o.dry_run = true;
			break;
		case 'y':
			p.o.yes = true;
			break;
		case 'f':
			p.req.force = true;
			break;
		case OPT_NODE:
			p.node = optarg;
			break;
		case OPT_PORT:
			p.port = optarg;
			break;
		case OPT_ALL:
			p.all = true;
			break;
		case OPT_PREFIX:
			if (action_parse_prefix(optarg, &p.req.prefix) < 0) {
				cli_error(
					"invalid --prefix '%s': give 5 bytes, as 00:11:22:33:44 or "
					"0x0011223344",
					optarg);
				return -EINVAL;
			}
			p.req.has_prefix = true;
			break;
		case OPT_TIMEOUT:
			p.req.timeout_s = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || !*optarg || p.req.timeout_s == 0 || p.req.timeout_s > 3600) {
				cli_error("invalid --timeout '%s': seconds, 1 to 3600", optarg);
				return -EINVAL;
			}
			break;
		case OPT_OUTPUT:
			p.output = optarg;
			break;
		case OPT_IBVF:
			p.ibvf = optarg;
			break;
		case OPT_JSONL:
			p.json = true;
			break;
		}
	}
	p.args = argv + optind;
	p.n_args = argc - optind;
	*ret = p;
	return 0;
}

static int want_args(const struct parsed *p, int n, const char *usage)
{
	if (p->n_args == n)
		return 0;
	cli_error("%s: %s (usage: ibvf %s)",
		  p->n_args < n ? "missing arguments" : "too many arguments",
		  p->n_args > n ? p->args[n] : "", usage);
	return -EINVAL;
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

static int vf_sub(const struct cli *gc, const char *sub, int argc, char **argv)
{
	struct parsed p;
	struct cli c = *gc;
	const char *common = "dry-run yes force timeout json";
	char allowed[128];
	snprintf(allowed, sizeof(allowed), "%s%s", common,
		 !strcmp(sub, "guid") ? " node port assign-all prefix" : "");
	if (parse(argc, argv, allowed, &p) < 0)
		return EXIT_USAGE;
	c.json |= p.json;
	struct action_req *req = &p.req;
	char *end;
	if (!strcmp(sub, "create") || !strcmp(sub, "destroy")) {
		bool create = sub[0] == 'c';
		if (want_args(&p, create ? 2 : 1, create ? "vf create PF N" : "vf destroy PF") < 0)
			return EXIT_USAGE;
		req->kind = ACTION_CREATE;
		if (create) {
			unsigned long v = strtoul(p.args[1], &end, 10);
			if (*end || !*p.args[1] || p.args[1][0] == '-' || v > 65535) {
				cli_error(
					"invalid VF count '%s': a number from 0 to sriov_totalvfs",
					p.args[1]);
				return EXIT_USAGE;
			}
			req->count = (unsigned int)v;
		}
	} else if (!strcmp(sub, "rename")) {
		if (want_args(&p, 2, "vf rename VF NAME") < 0)
			return EXIT_USAGE;
		req->kind = ACTION_RENAME;
		struct err e;
		if (action_check_ifname(p.args[1], &e) < 0) {
			cli_error("%s", e.msg);
			return EXIT_USAGE;
		}
		snprintf(req->name, sizeof(req->name), "%s", p.args[1]);
	} else if (!strcmp(sub, "guid") && p.all) {
		if (p.node || p.port || want_args(&p, 0, "vf guid --assign-all [--prefix P]") < 0) {
			if (p.node || p.port)
				cli_error("--assign-all chooses the GUIDs: no --node or --port");
			return EXIT_USAGE;
		}
		req->kind = ACTION_ASSIGN_ALL;
	} else if (!strcmp(sub, "guid")) {
		if (want_args(&p, 1, "vf guid VF [--node G] [--port G]") < 0)
			return EXIT_USAGE;
		if (req->has_prefix) {
			cli_error("--prefix goes with --assign-all");
			return EXIT_USAGE;
		}
		if (!p.node && !p.port) {
			cli_error("give --node GUID, --port GUID or both");
			return EXIT_USAGE;
		}
		req->kind = ACTION_GUID;
		if ((p.node && parse_guid_opt("node", p.node, &req->node_guid) < 0) ||
		    (p.port && parse_guid_opt("port", p.port, &req->port_guid) < 0))
			return EXIT_USAGE;
		req->set_node = p.node;
		req->set_port = p.port;
	} else if (!strcmp(sub, "state")) {
		if (want_args(&p, 2, "vf state VF auto|enable|disable") < 0)
			return EXIT_USAGE;
		req->kind = ACTION_STATE;
		if ((req->state = plan_link_state_parse(p.args[1])) < 0) {
			cli_error("invalid link state '%s': auto, enable or disable", p.args[1]);
			return EXIT_USAGE;
		}
	} else {
		cli_error("'%s' is not a vf action: create, destroy, rename, guid or state", sub);
		return EXIT_USAGE;
	}
	if (p.n_args)
		snprintf(req->target, sizeof(req->target), "%s", p.args[0]);
	return run_req(&c, &p.o, req);
}

int cmd_vf(const struct cli *c, int argc, char **argv)
{
	if (argc < 2) {
		cli_error("missing action: ibvf " VF_CLI_USAGE);
		return EXIT_USAGE;
	}
	return vf_sub(c, argv[1], argc - 1, argv + 1);
}

int cmd_journal(const struct cli *gc, int argc, char **argv)
{
	struct parsed p;
	struct cli c = *gc;
	struct sys *s;
	struct json_object *entries = NULL;
	struct err e = {{0}};
	size_t skipped;
	int rc = 0;

	if (parse(argc, argv, "json dry-run yes force timeout", &p) < 0)
		return EXIT_USAGE;
	c.json |= p.json;
	bool undo = p.n_args && !strcmp(p.args[0], "undo");
	if (undo ? p.n_args != 2 : p.n_args != 0) {
		cli_error("usage: ibvf " JOURNAL_USAGE);
		return EXIT_USAGE;
	}
	if (!undo && (p.o.dry_run || p.o.yes || p.req.force)) {
		cli_error("--dry-run, --yes and --force go with 'journal undo ID'");
		return EXIT_USAGE;
	}
	char *end;
	long long id = undo ? strtoll(p.args[1], &end, 10) : 0;
	if (undo && (*end || id <= 0)) {
		cli_error("invalid journal entry '%s': a number from 'ibvf journal'", p.args[1]);
		return EXIT_USAGE;
	}
	if (cli_open(&c, &s) < 0)
		return 1;
	if (journal_read(s, &entries, &skipped, &e) < 0) {
		cli_error("%s", e.msg);
		sys_close(s);
		return 1;
	}
	sys_close(s);
	if (skipped)
		cli_error("%zu journal lines do not parse and were skipped", skipped);
	if (undo) {
		struct action_req req = {0};
		if (journal_undo_req(entries, id, &req, &e) < 0) {
			cli_error("%s", e.msg);
			rc = EXIT_USAGE;
		} else {
			req.force = p.req.force;
			req.timeout_s = p.req.timeout_s;
			rc = run_req(&c, &p.o, &req);
		}
	} else if (c.json) {
		printf("%s\n",
		       json_object_to_json_string_ext(
			       entries, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		text_render_print(stdout, entries, journal_text);
	}
	json_object_put(entries);
	return rc;
}

int cmd_persist(const struct cli *gc, int argc, char **argv)
{
	struct parsed p;
	struct cli c = *gc;
	struct sys *s;
	struct node *n = NULL;
	struct persist *ps = NULL;
	struct err e = {{0}};
	char self[PATH_MAX];
	int rc = 1;

	if (parse(argc, argv, "output dry-run ibvf json", &p) < 0 ||
	    want_args(&p, 0, PERSIST_USAGE) < 0)
		return EXIT_USAGE;
	c.json |= p.json;
	struct persist_opts po = {.ibvf = p.ibvf};
	if (!po.ibvf) {
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[len > 0 ? len : 0] = '\0';
		po.ibvf = self;
	}
	if (po.ibvf[0] != '/') {
		cli_error("invalid --ibvf '%s': the unit needs an absolute path", po.ibvf);
		return EXIT_USAGE;
	}
	if (cli_open(&c, &s) < 0)
		return 1;
	if (node_discover(s, &n, &e) < 0 || persist_build(n, &po, &ps, &e) < 0) {
		cli_error("%s", e.msg);
		goto out;
	}
	struct json_object *o = persist_to_json(ps, sys_root(s), p.output),
			   *files = text_jarr(o, "files");
	json_object_object_add(o, "written", json_object_new_boolean(!p.o.dry_run));
	rc = 0;
	if (!p.o.dry_run && persist_write(ps, sys_root(s), p.output, &e) < 0) {
		cli_error("%s", e.msg);
		rc = 1;
	}
	if (c.json) {
		printf("%s\n",
		       json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
	} else if (rc == 0) {
		for (size_t i = 0; i < json_object_array_length(files); i++) {
			struct json_object *f = json_object_array_get_idx(files, i);
			if (p.o.dry_run)
				printf("# ---- %s\n%s\n", text_jstr(f, "path"),
				       text_jstr(f, "content"));
			else
				printf("wrote %s\n", text_jstr(f, "path"));
		}
		for (size_t i = 0; i < ps->n_notes; i++)
			printf("note: %s\n", ps->notes[i]);
		if (!p.o.dry_run)
			printf("next: systemctl daemon-reload && systemctl enable %s; if the "
			       "driver "
			       "loads in the initramfs, update-initramfs -u so the .link files "
			       "apply "
			       "there too\n",
			       PERSIST_UNIT);
	}
	json_object_put(o);
out:
	persist_free(ps);
	node_free(n);
	sys_close(s);
	return rc;
}

static const struct {
	const char *name;
	int (*run)(const struct cli *c, int argc, char **argv);
	const char *usage, *help;
} subs[] = {
	{"vf", cmd_vf, VF_CLI_USAGE, VF_CLI_HELP},
	{"persist", cmd_persist, PERSIST_USAGE, PERSIST_HELP},
	{"journal", cmd_journal, JOURNAL_USAGE, JOURNAL_HELP},
};

/* --root DIR, --root=DIR: the value, and how many argv entries it took. */
static const char *opt_value(const char *opt, int i, int argc, char **argv, int *used)
{
	size_t len = strlen(opt);
	if (strncmp(argv[i], opt, len))
		return NULL;
	if (argv[i][len] == '=') {
		*used = 1;
		return argv[i] + len + 1;
	}
	if (argv[i][len] || i + 1 >= argc)
		return NULL;
	*used = 2;
	return argv[i + 1];
}

int vf_cli_dispatch(int argc, char **argv)
{
	int cmd = -1, first = 0;
	for (int i = 1; i < argc && cmd < 0; i++) {
		if (!strcmp(argv[i], "--root") || !strcmp(argv[i], "--kernel")) {
			i++;
			continue;
		}
		if (argv[i][0] == '-')
			continue;
		for (size_t k = 0; k < sizeof(subs) / sizeof(*subs); k++)
			if (!strcmp(argv[i], subs[k].name))
				cmd = (int)k;
		if (cmd < 0)
			return -1;
		first = i;
	}
	if (cmd < 0)
		return -1;
	struct cli c = {0};
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	int n = 0, used, rc;
	if (!rest)
		return 1;
	rest[n++] = argv[first];
	for (int i = 1; i < argc; i += used) {
		const char *v;
		used = 1;
		if (i == first)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: ibvf [--sim[=DIR] | --root DIR] %s\n\n%s\n", subs[cmd].usage,
			       subs[cmd].help);
			free(rest);
			return 0;
		} else if (!strcmp(argv[i], "--sim") || !strncmp(argv[i], "--sim=", 6)) {
			c.sim = true;
			c.sim_dir = argv[i][5] ? argv[i] + 6 : NULL;
		} else if ((v = opt_value("--root", i, argc, argv, &used))) {
			c.root = v;
		} else if ((v = opt_value("--kernel", i, argc, argv, &used))) {
			c.kernel = v;
		} else if (!strcmp(argv[i], "--json")) {
			c.json = true;
		} else {
			rest[n++] = argv[i];
		}
	}
	if (c.sim && c.root) {
		cli_error("--sim and --root cannot be used together");
		rc = EXIT_USAGE;
	} else if (c.kernel && !c.sim) {
		cli_error("--kernel only applies to the simulated node (--sim)");
		rc = EXIT_USAGE;
	} else {
		rc = subs[cmd].run(&c, n, rest);
	}
	free(rest);
	return rc;
}
