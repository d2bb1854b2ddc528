// SPDX-License-Identifier: MIT
/* From the console's selection and keys to the action dialog. */
#include "actions.h"

#include <curses.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "console_int.h"
#include "screen.h"
#include "view_journal.h"
#include "core/actions/actions.h"
#include "core/persist/naming.h"
#include "dialog.h"
#include "tui/base/remedy.h"
#include "tui/base/text.h"
#include "core/model/names.h"

/* Why an action opens no dialog: a notice that takes the keys typed next
 * (meant for the dialog's field) until Enter or Esc, so none acts as a
 * hotkey. From the `:` line, where nothing is typed ahead, a message. */
static void refuse(struct console *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void refuse(struct console *c, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (c->refuse_notice)
		console_ask(c, NULL, NULL, "%s", why);
	else
		screen_message(c, TR_ERROR, "%s", why);
}

/* The selected row when it is a present PF or VF; else a refusal and NULL. */
static const struct tree_row *selected(struct console *c, const char *what)
{
	const struct tree_row *r = c->tree.n ? &c->tree.rows[c->tl.sel] : NULL;
	if (!r) {
		refuse(c, "nothing selected to %s", what);
		return NULL;
	}
	if (r->ghost) {
		refuse(c, "cannot %s '%s': it is gone from the node", what, r->bdf);
		return NULL;
	}
	return r;
}

static int open_create(struct console *c, const char *count, bool force)
{
	const struct tree_row *r = selected(c, "create VFs");
	if (!r)
		return -ENODEV;
	const struct pf *pf = r->pf;
	if (!pf || !pf->sriov) {
		refuse(c, "cannot create VFs on '%s': it is not an SR-IOV PF",
		       pf ? pf->fn.bdf : r->bdf);
		return -EINVAL;
	}
	char now[16] = "";
	if (!count && pf->numvfs.known)
		snprintf(now, sizeof(now), "%lld", (long long)pf->numvfs.v);
	dialog_open_create(c, pf->fn.bdf, count ? count : now, force, count != NULL);
	return 0;
}

static const struct tree_row *selected_vf(struct console *c, const char *what)
{
	const struct tree_row *r = selected(c, what);
	if (r && r->kind != ROW_VF) {
		refuse(c, "select a VF to %s ('%s' is a PF)", what, r->bdf);
		return NULL;
	}
	return r;
}

static int open_rename(struct console *c, const char *name, bool force)
{
	const struct tree_row *r = selected_vf(c, "rename");
	if (!r)
		return -EINVAL;
	dialog_open_rename(c, r->bdf, name ? name : tree_row_netdev(r), force, name != NULL);
	return 0;
}

static int open_guid(struct console *c, const char *node, const char *port, bool force)
{
	const struct tree_row *r = selected_vf(c, "set GUIDs");
	if (!r)
		return -EINVAL;
	dialog_open_guid(c, r->bdf, node, port, force, node || port);
	return 0;
}

/* Destroy = create 0: the plan's preview, starting on Cancel. */
static int open_destroy(struct console *c, bool force)
{
	const struct tree_row *r = selected(c, "destroy VFs");
	if (!r)
		return -ENODEV;
	const struct pf *pf = r->pf;
	if (!pf || !pf->sriov) {
		refuse(c, "cannot destroy VFs on '%s': it is not an SR-IOV PF",
		       pf ? pf->fn.bdf : r->bdf);
		return -EINVAL;
	}
	struct action_req req = {.kind = ACTION_CREATE, .count = 0, .force = force};
	char title[96];
	snprintf(req.target, sizeof(req.target), "%s", pf->fn.bdf);
	snprintf(title, sizeof(title), "Destroy the VFs of %s%s", pf->fn.bdf,
		 force ? " (forced)" : "");
	dialog_open_req(c, &req, title);
	return 0;
}

/* The VF's link-state policy as the kernel or the MOFED file has it. */
static const char *link_state_now(const struct vf *vf)
{
	return vf_link_state_to_string(vf_link_state_of(vf));
}

static int open_state(struct console *c, const char *state, bool force)
{
	const struct tree_row *r = selected_vf(c, "set its link state");
	if (!r)
		return -EINVAL;
	dialog_open_state(c, r->bdf, state ? state : link_state_now(r->vfp), force, state != NULL);
	return 0;
}

void console_actions_open(struct console *c, enum key_action a)
{
	c->refuse_notice = true;
	if (a == KA_CREATE)
		open_create(c, NULL, false);
	else if (a == KA_RENAME)
		open_rename(c, NULL, false);
	else if (a == KA_GUID)
		open_guid(c, NULL, NULL, false);
	else if (a == KA_DESTROY)
		open_destroy(c, false);
	else if (a == KA_LINK_STATE)
		open_state(c, NULL, false);
	c->refuse_notice = false;
}

/* Runs a remedy as `f` does: ibvf's through the action dialog, manual
 * steps in a note. */
static void fix_remedy(struct console *c, const char *id, const char *title,
		       const struct finding_remedy *rm)
{
	if (rm->kind == REMEDY_MANUAL) {
		dialog_open_note(c, title, rm->summary, (const char *const *)rm->steps,
				 rm->n_steps);
		return;
	}
	if (rm->kind != REMEDY_IBVF) {
		screen_message(c, TR_STATUS, "%s: nothing to fix, it is for information", id);
		return;
	}
	struct act_args p;
	struct err e = {{0}};
	int r = remedy_request(rm, false, &p, &e);
	if (r == -ENOTSUP) {
		char line[256];
		text_shell_join(line, sizeof(line), (const char *const *)rm->steps, rm->n_steps);
		screen_message(c, TR_STATUS, "%s: run 'ibvf %s' (not from this view)", id, line);
		return;
	}
	if (r < 0) {
		screen_message(c, TR_ERROR, "%s: %s", id, e.msg);
		return;
	}
	dialog_open_req(c, &p.req, title);
}

void console_fix_finding(struct console *c, const struct finding *f)
{
	char title[96];
	snprintf(title, sizeof(title), "Fix %s on %s", f->id, f->subject[0] ? f->subject : "node");
	fix_remedy(c, f->id, title, &f->remedy);
}

void console_fix_problem(struct console *c, const struct problem *p)
{
	char title[96];
	snprintf(title, sizeof(title), "Fix %s on %zu VFs", p->check, p->n_members);
	fix_remedy(c, p->check, title, &p->remedy);
}

/* The command's words without a "--force", which it reports. */
static bool strip_force(const char *arg, char *buf, size_t size)
{
	bool force = false;
	char tmp[256], *save = NULL;
	snprintf(tmp, sizeof(tmp), "%s", arg);
	buf[0] = '\0';
	for (char *t = strtok_r(tmp, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (!strcmp(t, "--force") || !strcmp(t, "-f")) {
			force = true;
			continue;
		}
		size_t len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", len ? " " : "", t);
	}
	return force;
}

int console_cmd_create(struct console *c, const char *arg)
{
	char rest[256];
	bool force = strip_force(arg, rest, sizeof(rest));
	return open_create(c, *rest ? rest : NULL, force);
}

/* The word opt and what follows it, when arg starts with it. */
static const char *after_word(const char *arg, const char *opt)
{
	size_t n = strlen(opt);
	if (strncmp(arg, opt, n) || (arg[n] && arg[n] != ' '))
		return NULL;
	arg += n;
	while (*arg == ' ')
		arg++;
	return arg;
}

static int rename_all(struct console *c, const char *arg);

/* rename NAME, or rename --all [SCHEME] as `vf rename --all`. */
int console_cmd_rename(struct console *c, const char *arg)
{
	const char *all = after_word(arg, "--all");
	if (all)
		return rename_all(c, all);
	char rest[256];
	bool force = strip_force(arg, rest, sizeof(rest));
	return open_rename(c, *rest ? rest : NULL, force);
}

/* --node G and --port G, in any order. */
static int assign_all(struct console *c, const char *arg);

/* guid [--node G] [--port G], or guid --assign-all [PREFIX] as `vf guid --assign-all`. */
int console_cmd_guid(struct console *c, const char *arg)
{
	const char *all = after_word(arg, "--assign-all");
	if (all)
		return assign_all(c, all);
	char buf[256], node[32] = "", port[32] = "";
	bool force = strip_force(arg, buf, sizeof(buf));
	char *save = NULL;
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *dst = !strcmp(t, "--node") ? node : !strcmp(t, "--port") ? port : NULL;
		char *v = dst ? strtok_r(NULL, " ", &save) : NULL;
		if (!v) {
			screen_message(
				c, TR_ERROR,
				"usage: guid [--node GUID] [--port GUID] [--force] (at '%s')", t);
			return -EINVAL;
		}
		snprintf(dst, 32, "%s", v);
	}
	return open_guid(c, node[0] ? node : NULL, port[0] ? port : NULL, force);
}

static int assign_all(struct console *c, const char *arg)
{
	struct action_req req = {.kind = ACTION_ASSIGN_ALL};
	if (*arg) {
		if (naming_parse_prefix(arg, &req.prefix) < 0) {
			screen_message(c, TR_ERROR,
				       "invalid prefix '%s': give 5 bytes, as 00:11:22:33:44", arg);
			return -EINVAL;
		}
		req.has_prefix = true;
	}
	dialog_open_req(c, &req, "Assign unique GUIDs to every zero/duplicate-GUID VF");
	return 0;
}

int console_cmd_persist(struct console *c, const char *arg)
{
	struct action_req req = {.kind = ACTION_PERSIST};
	if (*arg && (*arg != '/' || strlen(arg) >= sizeof(req.path) || strchr(arg, ' '))) {
		screen_message(c, TR_ERROR,
			       "invalid ibvf path '%.64s': an absolute path under %zu bytes", arg,
			       sizeof(req.path));
		return -EINVAL;
	}
	snprintf(req.path, sizeof(req.path), "%s", arg);
	dialog_open_req(c, &req, "Persist the VF layout: .link files and ibvf-sriov.service");
	return 0;
}

int console_cmd_destroy(struct console *c, const char *arg)
{
	char rest[256];
	bool force = strip_force(arg, rest, sizeof(rest));
	if (*rest) {
		screen_message(c, TR_ERROR, "usage: destroy [--force] (at '%s')", rest);
		return -EINVAL;
	}
	return open_destroy(c, force);
}

int console_cmd_state(struct console *c, const char *arg)
{
	char rest[256];
	bool force = strip_force(arg, rest, sizeof(rest));
	if (vf_link_state_from_string(rest) < 0) {
		screen_message(c, TR_ERROR, "usage: state auto|enable|disable [--force] (got '%s')",
			       rest);
		return -EINVAL;
	}
	return open_state(c, rest, force);
}

static int rename_all(struct console *c, const char *arg)
{
	struct action_req req = {.kind = ACTION_RENAME_ALL};
	char scheme[256];
	struct err e;
	req.force = strip_force(arg, scheme, sizeof(scheme));
	if (naming_scheme_check(scheme, &e) < 0) {
		screen_message(c, TR_ERROR, "%s", e.msg);
		return -EINVAL;
	}
	snprintf(req.scheme, sizeof(req.scheme), "%.63s", scheme);
	dialog_open_req(c, &req, "Rename every VF to its predictable name");
	return 0;
}

int console_cmd_journal(struct console *c, const char *arg)
{
	(void)arg;
	screen_view_switch(c, VIEW_JOURNAL);
	return 0;
}
