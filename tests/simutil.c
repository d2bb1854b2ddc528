// SPDX-License-Identifier: MIT
/* Helpers of the simulator suites (test_sim.c, test_sim_kernel.c,
 * test_sim_large.c): fixtures made and opened, files read and counted, writes
 * and the events they announce. */
#include "simutil.h"

#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/guid.h"
#include "core/sim/sim_tree.h"
#include "core/sys/sys.h"
#include "testutil.h"

char *fixture(bool healthy, unsigned int vfs)
{
	char tmpl[] = "/tmp/ibvf-sim-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	struct sim_fixture_opts o = {.healthy = healthy, .vfs = vfs};
	struct err e = {""};
	int r = sim_fixture_create(tmpl, &o, &e);
	ck_assert_msg(r == 0, "sim_fixture_create: %s", e.msg);
	return strdup(tmpl);
}

struct sys *open_sim(const char *dir, const char *kernel, const char *faults)
{
	struct sys_sim_params p = {.kernel = kernel, .faults = faults};
	struct sys *s = NULL;
	struct err e = {""};
	int r = sys_open_sim(dir, &p, &s, &e);
	ck_assert_msg(r == 0, "sys_open_sim: %s", e.msg);
	return s;
}

/* The file's content without its trailing newline, in a static buffer. */
const char *rd(struct sys *s, const char *path)
{
	static char buf[8][512];
	static int i;
	char *b = buf[i++ % 8];
	int r = sys_read_attr(s, path, b, sizeof(buf[0]));
	if (r < 0)
		snprintf(b, sizeof(buf[0]), "<%s>", strerror(-r));
	return b;
}

bool has(struct sys *s, const char *path)
{
	return sys_exists(s, path) == 0;
}

size_t count(struct sys *s, const char *path, const char *member)
{
	char **names, p[PATH_MAX];
	size_t n, k = 0;
	ck_assert_int_eq(sys_list(s, path, &names, &n), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s/%s", path, names[i], member ? member : "");
		k += !member || has(s, p);
	}
	sys_list_free(names, n);
	return k;
}

bool json_file_parses(struct sys *s, const char *path)
{
	char *text;
	ck_assert_int_eq(sys_read_file(s, path, 1 << 20, &text, NULL), 0);
	json_object *j = json_tokener_parse(text);
	free(text);
	json_object_put(j);
	return j != NULL;
}

int write_v(struct sys *s, const char *path, const char *value, struct err *e)
{
	memset(e, 0, sizeof(*e));
	return sys_write(s, path, value, e);
}

bool saw_event(struct sys *s, const char *action, const char *subsystem, const char *name)
{
	struct sys_event ev;
	int r;
	bool seen = false;
	while ((r = sys_event_read(s, &ev)) == 1)
		seen |= !strcmp(ev.action, action) && !strcmp(ev.subsystem, subsystem) &&
			!strcmp(ev.name, name);
	ck_assert_int_eq(r, 0);
	return seen;
}
