/* SPDX-License-Identifier: MIT */
/* What the build renders from the command table (hidden `ibvf help`
 * options): the man page ibvf(1) and the table the bash and zsh completions
 * read. Both are made from the tables the program parses with (the commands'
 * rows and their option tables, opts.h), so neither can drift from it. */
#pragma once

#include <stdio.h>

/* help_text.c: what print(f, cmd) prints, as a string the caller frees;
 * NULL when out of memory. */
struct cmd;
char *help_string(void (*print)(FILE *f, const struct cmd *cmd), const struct cmd *cmd);

/* help_man.c: `ibvf help --man` writes ibvf(1) in man(7) to f. */
int help_man(FILE *f);

/* help_complete.c: `ibvf help --completion=bash|zsh` writes the shell
 * variables completion/ibvf.bash or completion/_ibvf.zsh complete from. */
int help_completion(FILE *f, const char *shell);
