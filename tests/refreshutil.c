// SPDX-License-Identifier: MIT
/* Helpers of the refresh suites (test_refresh.c, test_refresh_fallback.c): a
 * simulated node with its snapshot and events, and the check that a refresh
 * equals a fresh discovery. */
#include "refreshutil.h"

#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/snapshot/json.h"
#include "core/model/node.h"
#include "core/sys/sys.h"
#include "testutil.h"

void events_read(struct rig *g)
{
	struct sys_event ev;
	while (sys_event_read(g->s, &ev) > 0) {
		ck_assert_uint_lt(g->n_ev, EVENTS_MAX);
		g->ev[g->n_ev++] = ev;
	}
}

void rig_open(struct rig *g, const char *const *args)
{
	struct err e = {{0}};
	memset(g, 0, sizeof(*g));
	g->dir = tu_mkfixture(args);
	ck_assert_msg(sys_open_sim(g->dir, NULL, &g->s, &e) == 0, "open: %s", e.msg);
	ck_assert_msg(node_discover(g->s, &g->n, &e) == 0, "discover: %s", e.msg);
	ck_assert_ptr_nonnull(g->ev = calloc(EVENTS_MAX, sizeof(*g->ev)));
}

void rig_close(struct rig *g)
{
	node_free(g->n);
	sys_close(g->s);
	tu_rmtree(g->dir);
	free(g->ev);
}

char *json_text(const struct node *n)
{
	struct json_object *o = node_to_json(n);
	char *t = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
	return t;
}

/* The first line where two texts differ, for the failure message. */
void first_difference(const char *a, const char *b, char *buf, size_t size)
{
	size_t line = 1, i = 0;
	while (a[i] && a[i] == b[i])
		line += a[i++] == '\n';
	while (i > 0 && a[i - 1] != '\n')
		i--;
	snprintf(buf, size, "line %zu: refresh '%.*s' discover '%.*s'", line,
		 (int)strcspn(a + i, "\n"), a + i, (int)strcspn(b + i, "\n"), b + i);
}

/* Refreshes the snapshot with the events given (those read from the node
 * when ev is NULL), checks it against a full discovery and that the old
 * snapshot did not change, and makes it the current one. */
void check_refresh(struct rig *g, const struct sys_event *ev, size_t n_ev)
{
	struct err e = {{0}};
	events_read(g);
	if (!ev) {
		ev = g->ev;
		n_ev = g->n_ev;
	}
	char *before = json_text(g->n);
	struct node *inc, *full;
	ck_assert_msg(node_refresh(g->s, g->n, ev, n_ev, &inc, &e) == 0, "refresh: %s", e.msg);
	ck_assert_msg(node_discover(g->s, &full, &e) == 0, "discover: %s", e.msg);

	struct json_object *ji = node_to_json(inc), *jf = node_to_json(full);
	if (!json_object_equal(ji, jf)) {
		char *ti = json_text(inc), *tf = json_text(full), msg[512];
		first_difference(ti, tf, msg, sizeof(msg));
		ck_abort_msg("refresh after %zu events differs from discovery at %s", n_ev, msg);
	}
	json_object_put(ji);
	json_object_put(jf);
	char *after = json_text(g->n);
	ck_assert_msg(!strcmp(before, after), "the old snapshot changed");
	free(before);
	free(after);

	/* Each snapshot is freed on its own. */
	node_free(g->n);
	node_free(full);
	g->n = inc;
	g->n_ev = 0;
}

void write_ok(struct rig *g, const char *path, const char *value)
{
	struct err e = {{0}};
	ck_assert_msg(sys_write(g->s, path, value, &e) == 0, "write: %s", e.msg);
}

void rename_ok(struct rig *g, const char *from, const char *to)
{
	struct err e = {{0}};
	ck_assert_msg(sys_link_rename(g->s, from, to, &e) == 0, "rename: %s", e.msg);
}
