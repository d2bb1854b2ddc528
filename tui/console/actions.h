/* SPDX-License-Identifier: MIT */
/* The console's operator actions: F6/F7/F8 and the `:` commands open the
 * action dialog (tui/console/dialog.h) on the selected PF or VF. */
#pragma once

#include <stdbool.h>

#include "keys.h"

struct console;
struct finding;
struct problem;

/* F6-F8, X, e (KA_CREATE, KA_RENAME, KA_GUID, KA_DESTROY, KA_LINK_STATE): the dialog on the
 * selection, or a notice saying why not (which swallows the text typed for the dialog). */
void console_actions_open(struct console *c, enum key_action a);

/* `:create N`, `:rename NAME`, `:guid [--node G] [--port G]`,
 * `:guid --assign-all [PREFIX]`, `:rename --all [SCHEME] [--force]` (as `ibvf vf`),
 * `:journal`. */
int console_cmd_create(struct console *c, const char *arg);
int console_cmd_rename(struct console *c, const char *arg);
int console_cmd_guid(struct console *c, const char *arg);
/* persist's preview (core/actions/plan_persist.c); arg: the ibvf the unit runs, ""
 * for this binary. */
int console_cmd_persist(struct console *c, const char *arg);
int console_cmd_journal(struct console *c, const char *arg);
/* `:destroy [--force]` (the PF's VFs), `:state auto|enable|disable`. */
int console_cmd_destroy(struct console *c, const char *arg);
int console_cmd_state(struct console *c, const char *arg);

/* `f` in the Checks view: an ibvf remedy opens the action dialog on its
 * request (read by vf's parser: remedy.h), a manual one shows its steps and
 * says ibvf does not run them. */
void console_fix_finding(struct console *c, const struct finding *f);
/* The same for a group of findings on many VFs: its one remedy (the batch
 * command, or the node-wide one). */
void console_fix_problem(struct console *c, const struct problem *p);
