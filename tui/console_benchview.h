/* SPDX-License-Identifier: MIT */
/* View 3: the RDMA benchmark in the console. The operator picks a VF (or
 * every VF), the peer (another VF of the node, loopback, or a remote
 * `ibvf bench server`), the test and the size; bench_run() runs in a worker
 * thread whose progress reaches the poll loop through a pipe. */
#pragma once

#include <stdbool.h>

struct console;

/* Entering the view: picks the tree's selected VF when it has an RDMA device. */
void console_benchview_enter(struct console *c);
void console_benchview_draw(struct console *c);
/* Keys of the view; false for the keys it leaves to the console. */
bool console_benchview_key(struct console *c, int k);
/* The worker's pipe for the poll loop, or -1 when no run is going on. */
int console_benchview_fd(void);
/* The pipe is readable: takes the progress, joins a finished worker. */
void console_benchview_read(struct console *c);
/* Cancels a run (the peer is told) and waits for the worker. */
void console_benchview_free(void);
/* `:bench`: the view on the selected VF. */
int console_cmd_bench(struct console *c, const char *arg);
