/* SPDX-License-Identifier: MIT */
/* What the build renders from the command table (hidden `ibvf help`
 * options): the man page ibvf(1) and the table the bash and zsh completions
 * read. Both take the text `ibvf help` and `ibvf help CMD` print, so neither
 * can drift from the program. */
#pragma once

#include <stdio.h>

/* help_text.c: what cmd_print_help() or cmd_print_overview() print, as a
 * string the caller frees (cmd NULL: the overview); NULL when out of memory. */
struct cmd;
char *help_text(const struct cmd *cmd);

/* help_man.c: `ibvf help --man` writes ibvf(1) in man(7) to f. */
int help_man(FILE *f);

/* help_complete.c: `ibvf help --completion=bash|zsh` writes the shell
 * variables completion/ibvf.bash or completion/_ibvf.zsh complete from. */
int help_completion(FILE *f, const char *shell);
