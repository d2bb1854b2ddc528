/* SPDX-License-Identifier: MIT */
/* View 3: the RDMA benchmark in the console. The operator picks a VF (or
 * every VF), the peer (another VF of the node, loopback, or a remote
 * `ibvf bench server`), the test and the size; bench_run() runs in a worker
 * thread whose progress reaches the poll loop through a pipe. */
#pragma once

#include <stdbool.h>

struct console;
struct view;

/* The view (console_views.c makes it): entering it picks the tree's
 * selected VF when it has an RDMA device; its worker's pipe is polled by
 * the console; freeing it cancels a run (the peer is told) and waits. */
void view_bench_init(struct console *c, struct view *v);
/* `:bench`: the view on the selected VF. */
int console_cmd_bench(struct console *c, const char *arg);
