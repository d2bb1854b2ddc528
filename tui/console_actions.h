/* SPDX-License-Identifier: MIT */
/* The console's operator actions: F6/F7/F8 and the `:` commands open the
 * action dialog (tui/dialog.h) on the selected PF or VF. */
#pragma once

#include <stdbool.h>

#include "keys.h"

struct console;

/* F6-F8 (KA_CREATE, KA_RENAME, KA_GUID): the dialog on the selection, or a
 * notice saying why not (which swallows the text typed for the dialog). */
void console_actions_open(struct console *c, enum key_action a);

/* `:create N`, `:rename NAME`, `:guid [--node G] [--port G]`,
 * `:assign-guids`, `:name-all [SCHEME] [--force]` (vf rename --all),
 * `:journal`. */
int console_cmd_create(struct console *c, const char *arg);
int console_cmd_rename(struct console *c, const char *arg);
int console_cmd_guid(struct console *c, const char *arg);
int console_cmd_assign(struct console *c, const char *arg);
int console_cmd_name_all(struct console *c, const char *arg);
int console_cmd_journal(struct console *c, const char *arg);
