// SPDX-License-Identifier: MIT
/* core/persist/unit.c: a service unit's ExecStart= lines as systemd reads them. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sys/sys.h"
#include "core/persist/unit.h"
#include "testutil.h"

static void rm(const char *dir, const char *rel)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	tu_rmtree(strdup(p));
}

/* Splits one value; returns the words joined by '|', or "ERR: msg". */
static const char *split(const char *value, bool *ignore)
{
	static char buf[1024];
	struct unit_exec x;
	struct err e;
	if (unit_exec_split("ibvf-sriov.service", value, &x, &e) < 0) {
		snprintf(buf, sizeof(buf), "ERR: %s", e.msg);
		return buf;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < x.argc; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? "|" : "",
			 x.argv[i]);
	if (ignore)
		*ignore = x.ignore_failure;
	unit_exec_fini(&x);
	return buf;
}

START_TEST(exec_lines_split_as_systemd_splits_them)
{
	bool ign = true;
	ck_assert_str_eq(split("/usr/bin/ibvf vf create 18:00.0 8", &ign),
			 "/usr/bin/ibvf|vf|create|18:00.0|8");
	ck_assert(!ign);
	ck_assert_str_eq(split("-/usr/bin/ibvf  \"a b\" 'c \\\"d' e\\x41\\ f", &ign),
			 "/usr/bin/ibvf|a b|c \"d|eA f");
	ck_assert(ign);
	ck_assert_str_eq(split("@/usr/bin/ibvf ibvf-renamed --yes", NULL), "/usr/bin/ibvf|--yes");
	ck_assert_str_eq(split("+!/usr/bin/x %n %N %p 100%%", NULL),
			 "/usr/bin/x|ibvf-sriov.service|ibvf-sriov|ibvf-sriov|100%");
	ck_assert_str_eq(split(":/usr/bin/x $HOME", NULL), "/usr/bin/x|$HOME");
	ck_assert_str_eq(split("/usr/bin/x a$$b ''", NULL), "/usr/bin/x|a$b|");
	ck_assert_str_eq(split("/usr/bin/x ${HOME}", NULL),
			 "ERR: the environment variable '${HOME}' in '/usr/bin/x ${HOME}' is not "
			 "supported");
	ck_assert_str_eq(split("/usr/bin/x %i", NULL),
			 "ERR: the specifier '%i' in '/usr/bin/x %i' is not supported (only %%, "
			 "%n, %N, %p)");
	ck_assert_str_eq(split("/usr/bin/x 'open", NULL),
			 "ERR: unbalanced quotes in '/usr/bin/x 'open'");
	ck_assert_str_eq(split("-", NULL), "ERR: no command in '-'");
}
END_TEST

START_TEST(units_are_found_masked_and_overridden_where_systemd_looks)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", "--pfs", "1", NULL});
	struct sys *s;
	struct err e;
	struct unit u;
	ck_assert_int_eq(sys_open_sim(dir, NULL, &s, &e), 0);
	/* /usr/lib's copy is shadowed by /etc's; its drop-ins apply in file-name
	 * order across directories, an empty ExecStart= clearing the list. */
	tu_put(dir, "usr/lib/systemd/system/t.service", "[Service]\nExecStart=/bin/lib\n");
	tu_put(dir, "etc/systemd/system/t.service",
	       "[Unit]\nExecStart=/not/service\n[Service]\n# comment\nExecStart=/bin/one \\\n"
	       "  two\nExecStart = /bin/three\n");
	tu_put(dir, "run/systemd/system/t.service.d/20-b.conf", "[Service]\nExecStart=/bin/b\n");
	tu_put(dir, "usr/lib/systemd/system/t.service.d/10-a.conf",
	       "[Service]\nExecStart=\nExecStart=/bin/a\n");
	tu_put(dir, "usr/lib/systemd/system/t.service.d/20-b.conf",
	       "[Service]\nExecStart=/bin/no\n");
	ck_assert_int_eq(unit_load(s, "t.service", &u, &e), 0);
	ck_assert_str_eq(u.path, "/etc/systemd/system/t.service");
	ck_assert(!u.masked);
	ck_assert_uint_eq(u.n_execs, 2);
	ck_assert_str_eq(u.execs[0].argv[0], "/bin/a");
	ck_assert_str_eq(u.execs[1].argv[0], "/bin/b");
	ck_assert_str_eq(u.execs[1].file, "/run/systemd/system/t.service.d/20-b.conf");
	unit_fini(&u);
	rm(dir, "usr/lib/systemd/system/t.service.d");
	rm(dir, "run/systemd/system/t.service.d");
	ck_assert_int_eq(unit_load(s, "t.service", &u, &e), 0);
	ck_assert_uint_eq(u.n_execs, 2);
	ck_assert_str_eq(u.execs[0].argv[1], "two");
	ck_assert_uint_eq(u.execs[0].line, 5);
	ck_assert_uint_eq(u.execs[1].line, 7);
	unit_fini(&u);
	/* Comment lines inside a continuation are skipped; the line goes on
	 * after them (systemd.syntax(7)). */
	tu_put(dir, "etc/systemd/system/t.service",
	       "[Service]\nExecStart=/bin/one \\\n# a comment\n  ; another\n  two\n");
	ck_assert_int_eq(unit_load(s, "t.service", &u, &e), 0);
	ck_assert_uint_eq(u.n_execs, 1);
	ck_assert_uint_eq(u.execs[0].argc, 2);
	ck_assert_str_eq(u.execs[0].argv[1], "two");
	unit_fini(&u);
	/* An empty file masks, as a link to /dev/null does. */
	tu_put(dir, "etc/systemd/system/t.service", "");
	ck_assert_int_eq(unit_load(s, "t.service", &u, &e), 0);
	ck_assert(u.masked && u.n_execs == 0);
	unit_fini(&u);
	ck_assert_int_eq(unit_load(s, "none.service", &u, &e), 0);
	ck_assert_ptr_null(u.path);
	unit_fini(&u);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

static Suite *unit_suite(void)
{
	Suite *s = suite_create("unit");
	TCase *tc = tcase_create("unit");
	tcase_add_test(tc, exec_lines_split_as_systemd_splits_them);
	tcase_add_test(tc, units_are_found_masked_and_overridden_where_systemd_looks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(unit_suite());
}
