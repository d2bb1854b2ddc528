/* SPDX-License-Identifier: MIT */
/* View 4: the journal of applied plans (core/journal.h), newest first; Enter
 * shows an entry's steps, `u` offers the undo of a rename or GUID change in
 * the action dialog. */
#pragma once

#include <stdbool.h>

struct console;

/* Reads the journal again (entering the view, after an apply). */
void console_journal_reload(struct console *c);
void console_journal_draw(struct console *c);
/* Keys of the view; false for the keys it leaves to the console. */
bool console_journal_key(struct console *c, int k);
void console_journal_free(void);
