// SPDX-License-Identifier: MIT
/* The rename action against the running kernel: an UP veth in a private
 * network namespace, renamed through action_plan()/action_apply() (the code
 * `ibvf vf rename` runs), directly and the pre-6.2 way (down, rename, up);
 * collisions with a name and an altname refused before anything changes.
 *
 * As in test_netns.c, each scenario runs in a forked child with its own
 * network and mount namespaces (a fresh /sys, and a tmpfs on /var/lib so the
 * journal lands there and not on the host). */
#include <check.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/actions/actions.h"
#include "core/actions/journal.h"
#include "core/sys/sys.h"
#include "nstest.h"
#include "testutil.h"

/* The veth pair up, veth1 with an altname, a private /var/lib. */
static void ns_setup(void)
{
	nst_enter(NST_SYSFS | NST_VAR_LIB);
	nst_veth("veth0", "veth1");
	nst_set_up("veth0");
	nst_set_up("veth1");
	nst_altname("veth1", "fabric-alt");
}

/* Plans and applies a rename of `from`; kernel "" plans for the running one. */
static int rename_link(struct sys *s, const char *from, const char *to, const char *kernel,
		       struct plan **ret, struct err *e)
{
	struct node *n;
	struct action_req req = {.kind = ACTION_RENAME_LINK};
	snprintf(req.target, sizeof(req.target), "%s", from);
	snprintf(req.name, sizeof(req.name), "%s", to);
	snprintf(req.kernel, sizeof(req.kernel), "%s", kernel);
	NS_CHECK(node_discover(s, &n, e) == 0, "discover: %s", e->msg);
	int r = action_plan(s, n, &req, ret, e);
	node_free(n);
	if (r < 0)
		return r;
	return action_apply(s, *ret, &req, NULL, e);
}

static void scenario_up_rename(struct sys *s)
{
	struct plan *p;
	struct err e = {{0}};
	NS_CHECK(nst_link_up("veth0"), "veth0 is not up");
	int r = rename_link(s, "veth0", "fabric0", "", &p, &e);
	NS_CHECK(r == 0, "rename: %s", e.msg);
	NS_CHECK(p->n_steps == 1 && p->steps[0].kind == STEP_RENAME,
		 "on this kernel one step, got %zu", p->n_steps);
	NS_CHECK(p->result == PLAN_OK && p->changes[0].verified, "not verified: %s",
		 p->changes[0].verify);
	NS_CHECK(if_nametoindex("fabric0") > 0 && if_nametoindex("veth0") == 0, "not renamed");
	NS_CHECK(nst_link_up("fabric0"), "fabric0 went down");
	NS_CHECK(p->journal_id == 1, "journal id %lld: %s", p->journal_id, p->journal_error);
	plan_free(p);

	/* Planned for a kernel before 6.2: down, rename, up, and up it stays. */
	r = rename_link(s, "fabric0", "fabric1", "6.1.0-18-amd64", &p, &e);
	NS_CHECK(r == 0, "rename the 6.1 way: %s", e.msg);
	NS_CHECK(p->n_steps == 3 && p->steps[0].kind == STEP_LINK_DOWN &&
			 p->steps[1].kind == STEP_RENAME && p->steps[2].kind == STEP_LINK_UP,
		 "steps: %zu", p->n_steps);
	NS_CHECK(!strcmp(p->steps[0].cmd, "ip link set dev fabric0 down"), "cmd '%s'",
		 p->steps[0].cmd);
	NS_CHECK(nst_link_up("fabric1") && if_nametoindex("fabric1") > 0, "fabric1 not up");
	plan_free(p);

	/* Undo from the journal entry. */
	struct json_object *entries;
	struct action_req req;
	NS_CHECK(journal_read(s, &entries, NULL, &e) == 0, "journal: %s", e.msg);
	NS_CHECK(json_object_array_length(entries) == 2, "entries: %zu",
		 json_object_array_length(entries));
	NS_CHECK(journal_undo_req(entries, 2, &req, &e) == 0, "undo: %s", e.msg);
	json_object_put(entries);
	NS_CHECK(!strcmp(req.target, "fabric1") && !strcmp(req.name, "fabric0"), "undo %s -> %s",
		 req.target, req.name);
}

static void scenario_collisions(struct sys *s)
{
	struct plan *p = NULL;
	struct err e = {{0}};
	int r = rename_link(s, "veth0", "veth1", "", &p, &e);
	NS_CHECK(r == -EEXIST && strstr(e.msg, "taken"), "name: %d %s", r, e.msg);
	r = rename_link(s, "veth0", "fabric-alt", "", &p, &e);
	NS_CHECK(r == -EEXIST && strstr(e.msg, "altname"), "altname: %d %s", r, e.msg);
	r = rename_link(s, "veth0", "bad/name", "", &p, &e);
	NS_CHECK(r == -EINVAL, "bad name: %d %s", r, e.msg);
	NS_CHECK(if_nametoindex("veth0") > 0 && nst_link_up("veth0"), "veth0 changed");
	NS_CHECK(access("/var/lib/ibvf/journal.jsonl", F_OK) != 0, "a refusal was journaled");
}

typedef void (*scenario)(struct sys *s);

static void ns_child(void *arg)
{
	scenario fn = *(scenario *)arg;
	struct sys *s;
	struct err e;
	ns_setup();
	NS_CHECK(sys_open_linux("/", &s, &e) == 0, "open: %s", e.msg);
	fn(s);
	sys_close(s);
}

static void ns_run(scenario fn)
{
	nst_run(ns_child, &fn);
}

START_TEST(up_veth_is_renamed_through_the_action_code)
{
	ns_run(scenario_up_rename);
}
END_TEST

START_TEST(collisions_are_refused_before_anything_changes)
{
	ns_run(scenario_collisions);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("actions_netns");
	TCase *tc = tcase_create("veth");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, up_veth_is_renamed_through_the_action_code);
	tcase_add_test(tc, collisions_are_refused_before_anything_changes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
