/* SPDX-License-Identifier: MIT */
/* The subcommands main.c dispatches to; each takes its own argv (argv[0] is
 * the subcommand's name) and returns the process exit status. */
#pragma once

/* ibvf mkfixture DIR [--healthy] [--pfs N] [--vfs N] [--kernel REL] */
int cmd_mkfixture(int argc, char **argv);
