// SPDX-License-Identifier: MIT
/* `ibvf persist`: .link files and a boot unit for the current VF layout, as
 * a plan (core/actions/plan_persist.c) run the one way `vf` runs its plans. */
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "core/actions/actions.h"
#include "core/base/escape.h"
#include "core/persist/boot.h"
#include "core/sys/sys.h"
#include "tui/base/cli_action.h"
#include "tui/base/text.h"

#define USAGE                                                                                      \
	"persist [--ibvf PATH] [--output DIR] [--force] [--dry-run] [--yes] | persist --verify"

const struct opt persist_options[] = {
	{OPT_ARG("ibvf", 0, "PATH", ACT_O_IBVF,
		 "the ibvf the unit runs: absolute, on the node a root-owned executable "
		 "not writable by group or others; without it, this binary (refused in "
		 "a build tree, under /tmp or in a directory users can write), or on a "
		 "--root/--sim node its own /usr/sbin/ibvf")},
	{OPT_BOOL("force", 'f', ACT_O_FORCE,
		  "write the files although an earlier .link file keeps a VF from "
		  "the name they pin at the next boot")},
	{OPT_BOOL("verify", 0, ACT_O_VERIFY,
		  "write nothing: the next boot as predicted from the files on the "
		  "node (the unit runs or why not, VF counts, each VF's name and the "
		  "file that decides it, GUIDs); exit 1 when something changes")},
	{OPT_ARG("output", 0, "DIR", ACT_O_OUTPUT,
		 "write the files flat into DIR (an absolute path) instead")},
	{OPT_BOOL("dry-run", 0, ACT_O_DRY_RUN,
		  "print the plan (each file's content) and write nothing")},
	{OPT_BOOL("yes", 'y', ACT_O_YES,
		  "write without asking (needed when stdin is not a terminal)")},
	{OPT_BOOL("no-wait", 0, ACT_O_NO_WAIT,
		  "fail at once when another ibvf holds the node's lock")},
	{OPT_PARA("Each file is journaled with what it replaced: 'ibvf journal undo ID' removes\n"
		  "the files persist wrote and restores the ones it replaced or removed.")},
	{OPT_TABLE_END},
};

static const char *js(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && v ? json_object_get_string(v) : NULL;
}

static void put(const char *prefix, const char *s, const char *suffix)
{
	char *q = text_escape(s ? s : "");
	printf("%s%s%s", prefix, q ? q : "?", suffix);
	free(q);
}

/* `persist --verify`: the next boot as predicted from the files on the node
 * (core/persist/boot.h), what will not come back as it is now first. Exit 0
 * when the node comes back as it is, 1 when something changes. */
static int verify(const struct cli *c)
{
	struct sys *s;
	struct node *n;
	struct err e = {{0}};
	if (cli_open(c, &s) < 0)
		return 1;
	if (node_discover(s, &n, &e) < 0) {
		cli_error("%s", e.msg);
		sys_close(s);
		return 1;
	}
	struct json_object *o = boot_to_json(n), *u, *vfs, *pfs, *ch;
	node_free(n);
	sys_close(s);
	if (!o) {
		cli_error("out of memory");
		return 1;
	}
	int changes = json_object_object_get_ex(o, "changes", &ch) ? json_object_get_int(ch) : 0;
	if (c->json) {
		cli_print_json(o);
		json_object_put(o);
		return changes ? 1 : 0;
	}
	json_object_object_get_ex(o, "unit", &u);
	json_object_object_get_ex(o, "pfs", &pfs);
	json_object_object_get_ex(o, "vfs", &vfs);
	struct json_object *runs;
	json_object_object_get_ex(u, "runs", &runs);
	if (json_object_get_boolean(runs)) {
		put("boot unit: ", js(u, "path"), "");
		put(", enabled by ", js(u, "enabled_by"), ": runs at the next boot\n");
	} else {
		put("boot unit: will not run at the next boot: ", js(u, "why"), "\n");
	}
	printf("\n%-14s %8s %8s\n", "PF", "VFS NOW", "AT BOOT");
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *p = json_object_array_get_idx(pfs, i), *a, *b;
		json_object_object_get_ex(p, "vfs_now", &a);
		json_object_object_get_ex(p, "vfs_at_boot", &b);
		printf("%-14s %8d %8d%s\n", js(p, "bdf"), json_object_get_int(a),
		       json_object_get_int(b),
		       json_object_get_int(a) != json_object_get_int(b) ? "  changes" : "");
	}
	printf("\n%-14s %-16s %-16s %s\n", "VF", "NAME NOW", "AT BOOT", "DECIDED BY");
	for (int pass = 0; pass < 2; pass++) /* what changes first */
		for (size_t i = 0; i < json_object_array_length(vfs); i++) {
			struct json_object *v = json_object_array_get_idx(vfs, i), *same, *at;
			json_object_object_get_ex(v, "same", &same);
			json_object_object_get_ex(v, "at_boot", &at);
			if (json_object_get_boolean(same) == !pass)
				continue;
			char now[64], next[64];
			escape_term_into(now, sizeof(now),
					 js(v, "name_now") ? js(v, "name_now") : "-");
			escape_term_into(next, sizeof(next),
					 !json_object_get_boolean(at) ? "(gone)"
					 : js(v, "name_at_boot")      ? js(v, "name_at_boot")
								      : "ib<N>/eth<N>");
			printf("%-14s %-16s %-16s ", js(v, "bdf"), now, next);
			put("", js(v, "decided_by") ? js(v, "decided_by") : "-", "");
			put(" (", js(v, "how"), ")");
			if (js(v, "shadowed"))
				put(", not ", js(v, "shadowed"), "");
			if (json_object_get_boolean(at) &&
			    (!js(v, "node_guid_now") ||
			     strcmp(js(v, "node_guid_now"), js(v, "node_guid_at_boot") ?: "")))
				printf(", node GUID %s -> %s", js(v, "node_guid_now") ?: "?",
				       js(v, "node_guid_at_boot") ?: "?");
			printf("%s\n", json_object_get_boolean(same) ? "" : "  changes");
		}
	printf("\n%d change%s at the next boot\n", changes, changes == 1 ? "" : "s");
	json_object_put(o);
	return changes ? 1 : 0;
}

int cmd_persist(const struct cli *c, int argc, char **argv)
{
	struct act_args p;
	struct action_req req = {.kind = ACTION_PERSIST};

	if (cli_action_parse(argc, argv, &p) < 0 || cli_want_args(&p, 0, USAGE) < 0)
		return EXIT_USAGE;
	if (p.verify) {
		if (p.ibvf || p.output || p.o.dry_run || p.o.yes || p.o.no_wait || p.req.force) {
			cli_error("--verify writes nothing: it takes none of persist's other "
				  "options");
			return EXIT_USAGE;
		}
		return verify(c);
	}
	req.force = p.req.force;
	if (p.ibvf && (p.ibvf[0] != '/' || strlen(p.ibvf) >= sizeof(req.path))) {
		cli_error("invalid --ibvf '%s': the unit needs an absolute path under %zu bytes",
			  p.ibvf, sizeof(req.path));
		return EXIT_USAGE;
	}
	if (p.output && (p.output[0] != '/' || strlen(p.output) >= sizeof(req.outdir))) {
		cli_error("invalid --output '%s': an absolute directory under %zu bytes", p.output,
			  sizeof(req.outdir));
		return EXIT_USAGE;
	}
	if (p.ibvf)
		strcpy(req.path, p.ibvf);
	if (p.output)
		strcpy(req.outdir, p.output);
	return cli_action_run(c, &p.o, &req);
}
