// SPDX-License-Identifier: MIT
/* The journal reader and undo (core/actions/journal.c) against any journal file: a
 * crash mid-append, a disk that filled, a hand edit. The input is the
 * journal of a simulated node (a small fixture made once per process in a
 * scratch root, the product's own simulator); every entry it reads is asked
 * for its undo, and each undo request is planned against that node, as
 * `ibvf journal undo ID --dry-run` would. Nothing is applied: a files undo
 * restores paths on this machine, not in the simulator. Oracle: no crash,
 * leak or undefined behaviour; the reader returns an array (a damaged line
 * is skipped, never fatal); an undo request names its entry. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "core/actions/actions.h"
#include "core/actions/journal.h"
#include "core/model/node.h"
#include "core/actions/plan.h"
#include "core/sim/sim_tree.h"
#include "core/sys/sys.h"
#include "fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sys *sys;
static struct node *node;
static char dir[PATH_MAX];

static void setup(void)
{
	struct sim_fixture_opts o = {.pfs = 2, .vfs = 4, .vfs_set = true};
	struct err e;
	snprintf(dir, sizeof(dir), "%s/node", fuzz_root());
	if (sim_fixture_create(dir, &o, &e) < 0 || sys_open_sim(dir, NULL, &sys, &e) < 0 ||
	    node_discover(sys, &node, &e) < 0)
		fuzz_fail("cannot make the simulated node: %s", e.msg);
}

static void undo(struct json_object *entries, long long id)
{
	struct action_req req;
	struct err e;
	if (journal_undo_req(entries, id, &req, &e) < 0)
		return;
	if (req.undo_of != id)
		fuzz_fail("the undo of entry %lld undoes entry %lld", id, req.undo_of);
	struct plan *p = NULL;
	if (action_plan(sys, node, &req, &p, &e) == 0)
		plan_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!sys)
		setup();
	fuzz_write(dir, JOURNAL_PATH, data, size);
	struct json_object *entries = NULL;
	size_t skipped = 0;
	struct err e;
	if (journal_read(sys, &entries, &skipped, &e) < 0)
		fuzz_fail("journal_read: %s", e.msg);
	if (!json_object_is_type(entries, json_type_array))
		fuzz_fail("journal_read gave no array");
	size_t n = json_object_array_length(entries);
	for (size_t i = 0; i < n && i < 64; i++) {
		struct json_object *id;
		if (json_object_object_get_ex(json_object_array_get_idx(entries, i), "id", &id))
			undo(entries, json_object_get_int64(id));
	}
	undo(entries, 1);
	json_object_put(entries);
	return 0;
}
