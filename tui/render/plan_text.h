/* SPDX-License-Identifier: MIT */
/* A plan as text, from plan_to_json() (core/actions/plan.h): the one rendering that
 * `ibvf vf ... --dry-run`, the applied result and the console's action
 * dialog all show. A plan that has not run lists its notes, its steps with
 * their shell commands and the changes it will make; one that ran shows each
 * step's status, detail and error, whether each change was verified, and
 * the result with its journal entry. */
#pragma once

#include <stdbool.h>

#include <json-c/json.h>

#include "tui/base/text.h"

void plan_text(struct text *out, struct json_object *plan);
/* Only the steps of a plan or journal entry; ran shows their status. */
void plan_text_steps(struct text *out, struct json_object *steps, bool ran);
/* What to do about a plan that stopped part way: for each function its steps
 * left without a driver, the command that binds it again; and the journal
 * entry that undoes the steps that ran (or that records them). */
void plan_text_hints(struct text *out, struct json_object *plan);
