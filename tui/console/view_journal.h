/* SPDX-License-Identifier: MIT */
/* View 4: the journal of applied plans (core/actions/journal.h), newest first; Enter
 * shows an entry's steps, `u` offers the undo of a rename or GUID change in
 * the action dialog. */
#pragma once

#include <stdbool.h>

struct console;

struct view;

void view_journal_init(struct console *c, struct view *v);
/* Reads the journal again (entering the view, after an apply). */
void console_journal_reload(struct console *c);
