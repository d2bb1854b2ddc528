/* SPDX-License-Identifier: MIT */
/* Helpers of the checks suites (test_checks*.c): one simulated node per test
 * process, discovered afresh by each test and changed in memory to make the
 * layouts of other nodes (ports down, Ethernet HCAs, MOFED policies, kernel
 * log records), and the findings looked up by id and subject. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/checks/checks.h"
#include "core/model/node.h"

/* Makes the suite's simulated node (`mkfixture ARGS`) once, before the
 * tests run; cu_fixture_done() removes it. */
void cu_fixture(const char *const *args);
void cu_fixture_done(void);
/* The suite's node, discovered (each call a new snapshot). */
struct node *cu_node(void);
/* Frees the node with what the tests added to it. */
void cu_node_free(struct node *n);

/* Runs the checks; aborts the test on failure. */
void cu_checks(const struct node *n, const struct checks_opts *o, struct findings *fs);
/* Findings of one id on one subject ("" the node, NULL any). */
size_t cu_count(const struct findings *fs, const char *id, const char *subject);
const struct finding *cu_first(const struct findings *fs, const char *id, const char *subject);
/* Findings of any id on subject. */
size_t cu_on(const struct findings *fs, const char *subject);
/* Evidence whose where contains `where` and whose value contains `value`
 * (either NULL: any). */
bool cu_evidence(const struct finding *f, const char *where, const char *value);
/* A remedy step (argv word or manual step) containing s. */
bool cu_step(const struct finding *f, const char *s);

/* Changing the snapshot. */
void cu_str(char **field, const char *value);
struct pf *cu_pf(struct node *n, const char *bdf);
struct vf *cu_vf(struct node *n, const char *bdf);
struct port *cu_port(struct fn *fn);
/* state and phys_state, numbers and the kernel's words. */
void cu_port_state(struct port *p, int state, int phys);
void cu_kmsg(struct node *n, long long usec, const char *msg);
