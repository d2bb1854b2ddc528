/* SPDX-License-Identifier: MIT */
/* Findings as the commands show them (checks.h runs the checks): a subset
 * kept by a filter, the report `ibvf check --json` prints, the findings
 * riding in `ibvf list --json`, and the check table as JSON. Each is built
 * here once; the text of `check` and `list` is rendered from this JSON. */
#pragma once

#include <stdbool.h>

#include <json-c/json.h>

#include "checks.h"
#include "core/model/node.h"

/* Keeps the findings for which keep() is true, in their order; frees the
 * others. n_dropped is kept; the problems are made again from what is kept
 * (a consequence whose cause is not kept is a problem of its own). 0 or
 * -ENOMEM (then no problems). */
int findings_select(struct findings *fs, bool (*keep)(const struct finding *f, void *ctx),
		    void *ctx);

/* Whether f concerns the function bdf (a PF or VF of n): it is f's subject,
 * or f reaches it from above (REACH_BELOW): f is the node's, or f is on the
 * PF of the VF bdf. What `ibvf check DEV` shows for DEV. */
bool finding_reaches(const struct finding *f, const struct node *n, const char *bdf);

/* findings_to_json(fs) with the node's host, kernel and driver version, and
 * on each finding the names people know its subject by ("netdev", "ibdev":
 * the function's first, null when it has none). NULL on ENOMEM. */
struct json_object *checks_report_json(const struct findings *fs, const struct node *n);

/* Adds the findings to node_to_json()'s object: on each PF and VF object
 * "findings": [{id, severity, title}] (its own, a PF's not its VFs'), and at
 * the top "findings" (the node's own, and any whose subject is no PF or VF
 * of the tree) and "counts": {critical, warning, info} over all of them.
 * Returns 0 or -ENOMEM. */
int checks_decorate_node_json(struct json_object *node, const struct findings *fs);

/* [{id, severity, title, why}] in table order. NULL on ENOMEM. */
struct json_object *checks_table_json(void);
