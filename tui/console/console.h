/* SPDX-License-Identifier: MIT */
/* The interactive console (ncurses). */
#pragma once

struct cli;

/* `ibvf console [--bench N]`; theme is --theme (NULL: default). */
int console_main(const struct cli *c, const char *theme, int argc, char **argv);
