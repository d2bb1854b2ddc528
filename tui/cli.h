/* SPDX-License-Identifier: MIT */
/* The non-interactive command line: what each subcommand needs from main. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

struct sys;

/* Options shared by every subcommand that reads the node. */
struct cli {
	const char *sim_dir; /* --sim[=DIR]: NULL unless --sim was given */
	bool sim;
	const char *root;   /* --root DIR */
	const char *kernel; /* --kernel REL (simulated kernel release) */
	bool json;
	bool pods; /* list --pods: the pod-centred view */
};

#define EXIT_USAGE 2

/* Prints "ibvf: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Opens the node the options name (real, --root tree or simulated). */
int cli_open(const struct cli *c, struct sys **ret);

int cmd_list(const struct cli *c, int argc, char **argv);
int cmd_watch(const struct cli *c, int argc, char **argv);
int cmd_debug(const struct cli *c, int argc, char **argv);

/* Renders `ibvf list` text from the node's JSON (core/json.c). */
struct json_object;
void list_print_text(FILE *f, struct json_object *node);
/* Renders `ibvf list --pods` text from node_pods_to_json(). */
void list_print_pods_text(FILE *f, struct json_object *pods);
