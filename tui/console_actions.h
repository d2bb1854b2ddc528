/* SPDX-License-Identifier: MIT */
/* The console's operator actions: F6/F7/F8 and the `:` commands open the
 * action dialog (tui/dialog.h) on the selected PF or VF. */
#pragma once

#include <stdbool.h>

struct console;

/* Called for every key before the console's own handling: the open dialog
 * takes all keys; F6-F8 open one; the journal view has keys of its own.
 * Returns whether the key was used. */
bool console_actions_key(struct console *c, int k);

/* `:create N`, `:rename NAME`, `:guid [--node G] [--port G]`,
 * `:assign-guids`, `:journal`. */
int console_cmd_create(struct console *c, const char *arg);
int console_cmd_rename(struct console *c, const char *arg);
int console_cmd_guid(struct console *c, const char *arg);
int console_cmd_assign(struct console *c, const char *arg);
int console_cmd_journal(struct console *c, const char *arg);
