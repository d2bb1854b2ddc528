/* SPDX-License-Identifier: MIT */
/* `ibvf check` as text, from checks_report_json() (core/checks/report.h):
 * the findings grouped by severity, each with its subject (PCI address and
 * the names people know it by), title, evidence (where: value), why it
 * matters and the remedy (an ibvf command line, shell-quoted, or manual
 * steps), then a line of counts; or compactly, as problems. */
#pragma once

#include <json-c/json.h>

#include "tui/base/text.h"

void check_text(struct text *out, struct json_object *report);
/* The same report as its problems (report's "problems"), what `ibvf check`
 * prints without --verbose: one line each, worst first, a second line with
 * the findings it explains and the one remedy of a group (an ibvf command,
 * or the summary of what to do for each), then
 * "N problems (M findings): ...". Lines are cut to width characters (0:
 * whole). */
void check_text_problems(struct text *out, struct json_object *report, size_t width);
/* The check table (checks_table_json()): id, severity, title. */
void check_text_table(struct text *out, struct json_object *table);
/* "15 critical, 1 warning, 0 info" from a "counts" object, into buf. */
void check_text_counts(char *buf, size_t size, struct json_object *counts);
