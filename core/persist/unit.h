/* SPDX-License-Identifier: MIT */
/* A systemd service unit's ExecStart= command lines, read as systemd reads
 * them (unit.c): the unit found in systemd's search path (the first of
 * /etc, /run, /usr/local/lib, /usr/lib, /lib systemd/system that has it;
 * a link to /dev/null or an empty file masks it), its drop-ins (NAME.d/
 * *.conf, by file name, a name in an earlier directory masking later ones),
 * "\"-continued lines, an empty ExecStart= resetting the list, the prefixes
 * (-@:+!), and each line split into words as systemd does: whitespace, single
 * and double quotes, C escapes. Specifiers are expanded where ibvf can (%%,
 * %n, %N, %p); any other specifier, an environment variable ($X, ${X}) and
 * a lone ';' are refused by name, never passed on unexpanded. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/base/err.h"

struct sys;

#define UNIT_EXECS_MAX 4096
#define UNIT_ARGS_MAX  256
#define UNIT_SIZE_MAX  (256 << 10)

struct unit_exec {
	char **argv; /* argv[0] is the executable as written; NULL-terminated */
	size_t argc;
	bool ignore_failure; /* "-": a failure does not stop the unit */
	char *file;	     /* where the line is, as on the node */
	unsigned int line;   /* its line number there (of its first line) */
};

struct unit {
	char *path;  /* the unit file systemd loads; NULL when none */
	bool masked; /* path is a link to /dev/null or empty: nothing runs */
	struct unit_exec *execs;
	size_t n_execs;
};

/* Reads the unit name ("ibvf-sriov.service") of the node s. A unit that is
 * absent or masked is no error (ret->path NULL, or ret->masked). A line that
 * cannot be split fails with e naming the file, the line and what is wrong. */
int unit_load(struct sys *s, const char *name, struct unit *ret, struct err *e);
void unit_fini(struct unit *u);
/* Splits one ExecStart= value of the unit name into ret (prefixes and
 * words); -EINVAL with e saying why. */
int unit_exec_split(const char *name, const char *value, struct unit_exec *ret, struct err *e);
void unit_exec_fini(struct unit_exec *x);
