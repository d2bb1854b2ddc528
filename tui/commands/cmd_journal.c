// SPDX-License-Identifier: MIT
/* `ibvf journal [undo ID]`: the applied plans, and undoing one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tui/base/cli_action.h"
#include "core/actions/journal.h"
#include "core/model/names.h"
#include "core/model/node.h"
#include "core/snapshot/json.h"
#include "core/sys/sys.h"
#include "tui/render/journal_text.h"

enum {
	JOURNAL_LIST,
	JOURNAL_UNDO
};

const struct opt_sub journal_subs[] = {
	[JOURNAL_LIST] = {"", "journal [DEV|NAME...] [--action ACTION] [--json]", false},
	[JOURNAL_UNDO] = {"undo", "journal undo ID [--dry-run] [--yes] [--force] [--no-wait]",
			  false},
	{NULL, NULL, false},
};

const struct opt journal_options[] = {
	{OPT_ARG("action", 0, "ACTION", ACT_O_ACTION,
		 "the list: only entries of this action, its name as the journal "
		 "writes it ('vf rename', 'persist') or without 'vf ' ('rename', "
		 "'guid'); not with undo")},
	{OPT_BOOL("dry-run", 0, ACT_O_DRY_RUN, "print the plan, change nothing"),
	 .subs = OPT_SUB(JOURNAL_UNDO)},
	{OPT_BOOL("yes", 'y', ACT_O_YES,
		  "apply without asking (needed when stdin is not a terminal)"),
	 .subs = OPT_SUB(JOURNAL_UNDO)},
	{OPT_BOOL("force", 'f', ACT_O_FORCE, "act on VFs bound to pods"),
	 .subs = OPT_SUB(JOURNAL_UNDO)},
	{OPT_ARG("timeout", 0, "S", ACT_O_TIMEOUT,
		 "how long a step waits for the devices (1..3600, default 30)"),
	 .subs = OPT_SUB(JOURNAL_UNDO)},
	{OPT_BOOL("no-wait", 0, ACT_O_NO_WAIT,
		  "fail at once when another ibvf holds the node's lock"),
	 .subs = OPT_SUB(JOURNAL_UNDO)},
	{OPT_TABLE_END},
};

static bool jstr_is(struct json_object *o, const char *key, const char *want)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && v &&
	       !strcmp(json_object_get_string(v) ?: "", want);
}

/* Whether entry ent is about what a names: its subject, or a change's PCI
 * address (a PCI address, full or short), PF, or a name before or after
 * (a netdev's name). */
static bool entry_names(struct json_object *ent, const char *a)
{
	char bdf[16];
	const char *want = node_bdf_normalize(a, true, bdf) ? bdf : a;
	struct json_object *changes;
	if (jstr_is(ent, "subject", want))
		return true;
	if (!json_object_object_get_ex(ent, "changes", &changes) || !changes)
		return false;
	for (size_t i = 0; i < json_object_array_length(changes); i++) {
		struct json_object *c = json_object_array_get_idx(changes, i);
		if (jstr_is(c, "bdf", want) || jstr_is(c, "pf", want) || jstr_is(c, "before", a) ||
		    jstr_is(c, "after", a))
			return true;
	}
	return false;
}

/* Keeps the entries of the action kind (-1: any) about any of the words. */
static int filter(struct json_object *entries, const struct act_args *p, int kind)
{
	for (size_t i = json_object_array_length(entries); i-- > 0;) {
		struct json_object *ent = json_object_array_get_idx(entries, i), *a;
		bool keep =
			kind < 0 || (json_object_object_get_ex(ent, "action", &a) &&
				     action_kind_from_string(json_object_get_string(a)) == kind);
		bool named = !p->n_args;
		for (int k = 0; keep && !named && k < p->n_args; k++)
			named = entry_names(ent, p->args[k]);
		if ((!keep || !named) && json_object_array_del_idx(entries, i, 1) < 0)
			return -ENOMEM;
	}
	return 0;
}

int cmd_journal(const struct cli *c, int argc, char **argv)
{
	struct act_args p;
	struct sys *s;
	struct json_object *entries = NULL;
	struct err e = {{0}};
	struct journal_damage d;
	int rc = 0;

	/* The options of undo (its table) are refused without it. */
	if (cli_action_parse(argc, argv, &p) < 0)
		return EXIT_USAGE;
	bool undo = p.n_args && !strcmp(p.args[0], "undo");
	if (undo && p.n_args != 2) {
		cli_error("usage: ibvf journal [DEV|NAME...] [--action ACTION] | ibvf journal undo "
			  "ID");
		return EXIT_USAGE;
	}
	if (undo && p.action) {
		cli_error("--action filters the list of entries: not with 'journal undo'");
		return EXIT_USAGE;
	}
	int kind = -1;
	if (p.action) {
		char vf[64];
		snprintf(vf, sizeof(vf), "vf %s", p.action);
		kind = action_kind_from_string(p.action);
		if (kind < 0)
			kind = action_kind_from_string(vf);
		if (kind < 0) {
			cli_error("invalid --action '%s': an action of the journal (vf create, vf "
				  "rename, vf guid, vf state, persist, ...)",
				  p.action);
			return EXIT_USAGE;
		}
	}
	char *end;
	long long id = undo ? strtoll(p.args[1], &end, 10) : 0;
	if (undo && (*end || id <= 0)) {
		cli_error("invalid journal entry '%s': a number from 'ibvf journal'", p.args[1]);
		return EXIT_USAGE;
	}
	if (cli_open(c, &s) < 0)
		return 1;
	if (journal_read_lines(s, &entries, &d, &e) < 0) {
		cli_error("%s", e.msg);
		sys_close(s);
		return 1;
	}
	sys_close(s);
	for (size_t i = 0; i < d.n && i < JOURNAL_DAMAGE_LINES; i++)
		cli_error("journal: line %zu damaged, skipped", d.line[i]);
	if (d.n > JOURNAL_DAMAGE_LINES)
		cli_error("journal: %zu more damaged lines skipped", d.n - JOURNAL_DAMAGE_LINES);
	if (undo) {
		struct action_req req = {0};
		if (journal_undo_req(entries, id, &req, &e) < 0) {
			cli_error("%s", e.msg);
			rc = EXIT_USAGE;
		} else {
			req.force = p.req.force;
			req.timeout_s = p.req.timeout_s;
			rc = cli_action_run(c, &p.o, &req);
		}
	} else if ((p.n_args || kind >= 0) && filter(entries, &p, kind) < 0) {
		cli_error("out of memory");
		rc = 1;
	} else if (c->json) {
		/* An object, as every document: {"version", "entries"}. */
		struct json_object *doc = json_object_new_object();
		json_object_object_add(doc, "version", json_object_new_int(JSON_DOC_VERSION));
		for (size_t i = 0; i < json_object_array_length(entries); i++)
			plan_json_guids(json_object_array_get_idx(entries, i));
		json_object_object_add(doc, "entries", json_object_get(entries));
		cli_print_json(doc);
		json_object_put(doc);
	} else {
		text_render_print(stdout, entries, journal_text);
	}
	json_object_put(entries);
	return rc;
}
