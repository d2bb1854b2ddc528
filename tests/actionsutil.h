/* SPDX-License-Identifier: MIT */
/* Helpers of the actions suites (test_actions.c, test_actions_guid.c): the real
 * binary on a simulated node, the node and the journal read back, faults armed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "core/model/node.h"

/* The node as `ibvf list --json` prints it: the whole model, to compare. */
char *node_json(const char *dir);

/* Every file, link and directory of the tree with its size, mtime and link
 * target: a refusal must not touch any of them. */
char *tree_digest(const char *dir);

struct node *discover(const char *dir);

const struct vf *vf_by_bdf(const struct node *n, const char *bdf);

const char *vf_netdev(const struct vf *vf);

struct json_object *journal(const char *dir);

const char *jget(struct json_object *o, const char *k);

void arm_fault(const char *dir, const char *spec);

/* One line on stderr, nothing on stdout, exit 2, node untouched. The
 * arguments after `want` are the command line, NULL-terminated. */
void assert_refused(const char *dir, const char *want, ...);
