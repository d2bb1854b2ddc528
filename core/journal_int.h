/* SPDX-License-Identifier: MIT */
/* Inside the journal: its path, its file opened safely, the largest id in it. */
#pragma once

#include <limits.h>
#include <stdbool.h>

#include "err.h"
#include "sys.h"

void journal_path(struct sys *s, char buf[static PATH_MAX]);
/* The journal's fd: its directory opened link by link (made, with write),
 * the file O_NOFOLLOW, a regular file, 0640 (with write). Without write, a
 * missing journal is -ENOENT, unsaid. */
int journal_open(struct sys *s, bool write, int *ret_fd, struct err *e);
/* The largest id of the records in the open journal (0: none). */
long long journal_max_id(int fd);
