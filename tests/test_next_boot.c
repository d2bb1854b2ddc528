// SPDX-License-Identifier: MIT
/* Issue 26, on the simulated node: the next boot predicted from the files
 * on the node (core/persist/boot.c) and the simulated reboot agreeing with
 * it, the boot unit's state checked, persist refusing a .link file that
 * would defeat it, and undo through the forward action's guards. Each test
 * is one of the "what users hit today". */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "testutil.h"

static char *dir;

static void setup_healthy(void)
{
	dir = tu_mkfixture((const char *const[]){"--healthy", NULL});
}

static void setup_seeded(void)
{
	dir = tu_mkfixture(NULL);
}

static void teardown(void)
{
	tu_rmtree(dir);
	dir = NULL;
}

/* Runs `ibvf --sim=DIR ARGS...`, expecting exit rc; stdout in *out (freed
 * by the caller), stderr checked to contain err_has when not NULL. */
#define RUN(rc, out, err_has, ...)                                                                 \
	do {                                                                                       \
		char *e_ = NULL;                                                                   \
		int r_ = tu_sim_run(dir, out, &e_, __VA_ARGS__, NULL);                             \
		ck_assert_msg(r_ == (rc), "exit %d, want %d: %s", r_, (rc), e_);                   \
		const char *h_ = (err_has);                                                        \
		if (h_)                                                                            \
			ck_assert_msg(strstr(e_, h_), "stderr: %s", e_);                           \
		free(e_);                                                                          \
	} while (0)

static const char site_link[] = "[Match]\nPath=pci-0000:4f:*\n\n[Link]\nNamePolicy=kernel\n";

/* Every VF whose address starts with prefix, from `list --json`: one
 * "bdf name node_guid port_guid" a line. */
static char *vfs_of(const char *prefix)
{
	char *out;
	RUN(0, &out, NULL, "list", "--json");
	struct json_object *o = json_tokener_parse(out), *pfs, *vfs, *v;
	free(out);
	ck_assert_ptr_nonnull(o);
	size_t cap = 1 << 16, len = 0;
	char *buf = calloc(1, cap);
	ck_assert(json_object_object_get_ex(o, "pfs", &pfs));
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		if (!json_object_object_get_ex(json_object_array_get_idx(pfs, i), "vfs", &vfs))
			continue;
		for (size_t j = 0; j < json_object_array_length(vfs); j++) {
			struct json_object *vf = json_object_array_get_idx(vfs, j), *nd, *ng, *pg;
			json_object_object_get_ex(vf, "bdf", &v);
			const char *bdf = json_object_get_string(v), *name = "-";
			if (strncmp(bdf, prefix, strlen(prefix)))
				continue;
			if (json_object_object_get_ex(vf, "netdevs", &nd) &&
			    json_object_array_length(nd) &&
			    json_object_object_get_ex(json_object_array_get_idx(nd, 0), "ifname",
						      &v))
				name = json_object_get_string(v);
			json_object_object_get_ex(vf, "node_guid", &ng);
			json_object_object_get_ex(vf, "port_guid", &pg);
			len += (size_t)snprintf(buf + len, cap - len, "%s %s %s %s\n", bdf, name,
						ng ? json_object_get_string(ng) : "-",
						pg ? json_object_get_string(pg) : "-");
		}
	}
	json_object_put(o);
	return buf;
}

/* "60-site-mlx.link wins before ibvf's": check names the file, persist
 * refuses naming it, --verify predicts the kernel names, and the reboot
 * gives them. Failed before: check said nothing, persist exit 0, and the
 * reboot brought ib<N> back. */
START_TEST(an_earlier_link_file_is_named_and_refused_and_the_reboot_agrees)
{
	char *out;
	tu_put(dir, "etc/systemd/network/60-site-mlx.link", site_link);
	RUN(1, &out, NULL, "check", "--verbose", "name-unstable");
	ck_assert_msg(strstr(out, "0000:4f:00.1 (mlx5_4 VF 0) is ibp79s0v0 now and comes back with "
				  "a kernel name"),
		      "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "/etc/systemd/network/60-site-mlx.link: applied first"));
	ck_assert_ptr_nonnull(
		strstr(out, "70-ibvf-0000-4f-00.1.link: Name=ibp79s0v0 is not applied"));
	free(out);
	RUN(2, &out, "'/etc/systemd/network/60-site-mlx.link' matches them first", "persist",
	    "--ibvf", "/usr/sbin/ibvf", "--yes");
	free(out);
	RUN(1, &out, NULL, "persist", "--verify");
	ck_assert_ptr_nonnull(strstr(out, "0000:4f:00.1   ibp79s0v0        ib<N>/eth<N>     "
					  "/etc/systemd/network/60-site-mlx.link"));
	ck_assert_ptr_nonnull(strstr(out, "8 changes at the next boot"));
	free(out);
	RUN(0, &out, NULL, "debug", "reboot", "--seed", "5");
	free(out);
	char *after = vfs_of("0000:4f:00.");
	ck_assert_uint_gt(strlen(after), 0);
	for (char *l = after; *l; l = strchr(l, '\n') + 1)
		ck_assert_msg(strstr(l, " ib") && !strstr(l, " ibp"), "not a kernel name: %s",
			      after);
	free(after);
}
END_TEST

/* The field report's own 70-dgx-sriov-vf.link (a Name= systemd.link has no
 * template for) comes first and names nothing. */
START_TEST(the_field_reports_link_file_is_named)
{
	char *out;
	tu_put(dir, "etc/systemd/network/70-dgx-sriov-vf.link",
	       "[Match]\nDriver=mlx5_core\nProperty=DEVTYPE=vf\n\n[Link]\n"
	       "Name=mlx-{attr/phys_port_name}\nMACAddressPolicy=persistent\n");
	RUN(1, &out, NULL, "check", "--verbose", "name-unstable");
	ck_assert_ptr_nonnull(strstr(out, "70-dgx-sriov-vf.link: applied first"));
	ck_assert_ptr_nonnull(strstr(out, "warning (60)")); /* every VF with a netdev on the host */
	free(out);
}
END_TEST

/* check and metrics give one answer. Failed before: after undo of the
 * persist, check was clean while ibvf_vf_name_pinned was 0 for every VF. */
START_TEST(check_and_metrics_agree_on_the_next_boot)
{
	char *out;
	RUN(0, &out, NULL, "check", "--verbose");
	free(out);
	/* mlx5_0's VFs keep their names now, but nothing pins them at boot */
	for (int i = 1; i <= 8; i++) {
		char path[4300];
		snprintf(path, sizeof(path), "%s/etc/systemd/network/70-ibvf-0000-18-0%d.%d.link",
			 dir, i / 8, i % 8);
		ck_assert_msg(unlink(path) == 0, "%s", path);
	}
	RUN(1, &out, NULL, "check", "--verbose", "name-unstable");
	ck_assert_ptr_nonnull(strstr(out, "warning (8)"));
	free(out);
	RUN(0, &out, NULL, "metrics");
	size_t zero = 0;
	for (char *p = out; (p = strstr(p, "\nibvf_vf_name_pinned{")); p++)
		zero += strstr(p, "} 0\n") && strstr(p, "} 0\n") < strchr(p + 1, '\n') + 1;
	ck_assert_uint_eq(zero, 8);
	free(out);
}
END_TEST

/* A unit that is not enabled does not run at boot: check says so, the
 * simulated boot does not start it, persist enables it, undo takes the link
 * away. Failed before: no check, and debug reboot ran it anyway. */
START_TEST(the_boot_unit_must_be_enabled)
{
	char *out, link[4200];
	snprintf(link, sizeof(link),
		 "%s/etc/systemd/system/multi-user.target.wants/ibvf-sriov.service", dir);
	ck_assert_int_eq(unlink(link), 0);
	RUN(2, &out, NULL, "check", "--verbose", "boot-unit");
	ck_assert_ptr_nonnull(strstr(out, "ibvf-sriov.service will not run at the next boot: "
					  "ibvf-sriov.service is not enabled"));
	ck_assert_ptr_nonnull(strstr(out, "systemctl enable ibvf-sriov.service"));
	free(out);
	RUN(1, &out, NULL, "persist", "--verify");
	ck_assert_ptr_nonnull(strstr(out, "0000:18:00.0          8        0  changes"));
	free(out);
	RUN(0, &out, NULL, "persist", "--yes");
	ck_assert_ptr_nonnull(strstr(out, "-> /etc/systemd/system/ibvf-sriov.service"));
	free(out);
	char target[256] = "";
	ck_assert_int_gt(readlink(link, target, sizeof(target) - 1), 0);
	ck_assert_str_eq(target, "/etc/systemd/system/ibvf-sriov.service");
	RUN(0, &out, NULL, "check", "--verbose", "boot-unit");
	free(out);
	RUN(0, &out, NULL, "journal", "undo", "1", "--yes");
	free(out);
	ck_assert_int_lt(readlink(link, target, sizeof(target) - 1), 0);
	RUN(0, &out, NULL, "debug", "reboot", "--seed", "1");
	ck_assert_ptr_nonnull(strstr(out, "is not enabled (no .wants/ link): systemd does not "
					  "start it"));
	ck_assert_ptr_null(strstr(out, "vf create"));
	free(out);
}
END_TEST

/* A unit whose program is gone fails at boot (203/EXEC), and check says so
 * first. Failed before: the seeded unit's /usr/local/sbin/ibvf, which does
 * not exist, reported "ok". */
START_TEST(a_unit_whose_program_is_gone_fails_at_boot)
{
	char *out;
	RUN(2, &out, NULL, "check", "--verbose", "boot-unit");
	ck_assert_ptr_nonnull(strstr(out, "'/usr/local/sbin/ibvf' cannot run: No such file"));
	ck_assert_ptr_nonnull(strstr(out, "$ ibvf persist"));
	free(out);
	RUN(1, &out, "(203/EXEC): '/usr/local/sbin/ibvf' is not on the node", "debug", "reboot",
	    "--seed", "2");
	free(out);
}
END_TEST

/* Undo goes through the forward action's guards. Failed before: the undo
 * of a rename gave 0000:18:00.1 the kernel name ib0 without --force, and
 * the undo of assign-all said only that undo does not cover it. */
START_TEST(undo_has_the_guards_of_the_action)
{
	char *out;
	RUN(0, &out, NULL, "vf", "rename", "0000:18:00.1", "ibfast0", "--yes");
	free(out);
	RUN(2, &out, "cannot rename to 'ib0': it is a kernel name", "journal", "undo", "1",
	    "--yes");
	free(out);
	RUN(0, &out, NULL, "journal", "undo", "1", "--yes", "--force");
	free(out);
	RUN(0, &out, NULL, "vf", "guid", "--assign-all", "--yes");
	free(out);
	RUN(2, &out, "whose GUIDs were zero or another's, and ibvf sets neither back", "journal",
	    "undo", "3", "--yes");
	free(out);
	RUN(0, &out, NULL, "vf", "state", "0000:18:00.4", "disable", "--yes");
	free(out);
	RUN(0, &out, NULL, "journal", "undo", "4", "--yes");
	ck_assert_ptr_nonnull(strstr(out, "to auto"));
	free(out);
}
END_TEST

/* The seeded node after check --fix all: what --verify predicts is what the
 * reboot gives (names, GUIDs, VF counts). */
static const char *js(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && v ? json_object_get_string(v) : NULL;
}

/* The seeded node after check --fix all: what --verify predicts (names,
 * GUIDs, VF counts; what it says changes, too: the VF whose probe fails,
 * the Ethernet VFs' GUIDs the unit does not set) is what the reboot gives. */
START_TEST(after_fix_all_the_prediction_is_the_reboot)
{
	char *out;
	RUN(0, &out, NULL, "check", "--fix", "all", "--yes");
	free(out);
	RUN(1, &out, NULL, "--json", "persist", "--verify");
	struct json_object *pred = json_tokener_parse(out), *vfs;
	free(out);
	ck_assert_ptr_nonnull(pred);
	ck_assert(json_object_object_get_ex(pred, "vfs", &vfs));
	RUN(0, &out, NULL, "debug", "reboot", "--seed", "9");
	free(out);
	char *after = vfs_of("0000:");
	size_t checked = 0;
	for (size_t i = 0; i < json_object_array_length(vfs); i++) {
		struct json_object *v = json_object_array_get_idx(vfs, i);
		char line[256], name[32] = "", ng[32] = "";
		const char *at = strstr(after, js(v, "bdf"));
		ck_assert_msg(at, "%s is gone after the reboot: %s", js(v, "bdf"), after);
		sscanf(at, "%*s %31s %31s", name, ng);
		snprintf(line, sizeof(line), "%s: predicted %s %s, got %s %s", js(v, "bdf"),
			 js(v, "name_at_boot") ? js(v, "name_at_boot") : "(kernel)",
			 js(v, "node_guid_at_boot"), name, ng);
		if (strcmp(name, "-")) { /* not in its pod again */
			if (js(v, "name_at_boot"))
				ck_assert_msg(!strcmp(name, js(v, "name_at_boot")), "%s", line);
			else
				ck_assert_msg(!strncmp(name, "ib", 2) || !strncmp(name, "eth", 3),
					      "%s", line);
		}
		if (strcmp(ng, "-") && strcmp(ng, "null"))
			ck_assert_msg(!strcmp(ng, js(v, "node_guid_at_boot")), "%s", line);
		checked++;
	}
	ck_assert_uint_ge(checked, 60);
	json_object_put(pred);
	free(after);
}
END_TEST

/* journal filters: by device (a PCI address, full or short, or a name a
 * rename had) and by action. Failed before: 'journal' took no argument. */
START_TEST(journal_filters_by_device_and_action)
{
	char *out;
	RUN(0, &out, NULL, "vf", "rename", "18:00.1", "ibfast0", "--yes");
	free(out);
	RUN(0, &out, NULL, "vf", "state", "18:00.4", "disable", "--yes");
	free(out);
	RUN(0, &out, NULL, "journal", "0000:18:00.1");
	ck_assert_msg(strstr(out, "'ib0' -> 'ibfast0'") && !strstr(out, "vf state"), "%s", out);
	free(out);
	RUN(0, &out, NULL, "journal", "--action", "state");
	ck_assert_msg(strstr(out, "vf state") && !strstr(out, "'ib0' -> 'ibfast0'"), "%s", out);
	free(out);
	RUN(0, &out, NULL, "journal", "ibfast0", "--action", "vf rename");
	ck_assert_msg(strstr(out, "'ib0' -> 'ibfast0'"), "%s", out);
	free(out);
	RUN(0, &out, NULL, "journal", "18:00.7");
	ck_assert_msg(!strstr(out, "vf rename") && !strstr(out, "vf state"), "%s", out);
	free(out);
	RUN(2, &out, "invalid --action 'nope'", "journal", "--action", "nope");
	free(out);
}
END_TEST

/* A container that sees the host's files but not its /usr (the DaemonSet)
 * says so with IBVF_NODE_PROGRAMS=unseen: the unit's programs are not
 * judged from there, its being enabled still is. */
START_TEST(programs_unseen_are_not_judged)
{
	char *out, *err;
	const char *const argv[] = {"--root", dir, "check", "--verbose", "boot-unit", NULL};
	ck_assert_int_eq(tu_run(argv, &out, &err), 2);
	ck_assert_msg(strstr(out, "'/usr/local/sbin/ibvf' cannot run"), "%s", out);
	free(out);
	free(err);
	setenv("IBVF_NODE_PROGRAMS", "unseen", 1);
	int rc = tu_run(argv, &out, &err);
	unsetenv("IBVF_NODE_PROGRAMS");
	ck_assert_msg(rc == 0 && !strstr(out, "cannot run"), "exit %d: %s%s", rc, out, err);
	free(out);
	free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("next_boot");
	TCase *h = tcase_create("healthy");
	tcase_add_checked_fixture(h, setup_healthy, teardown);
	tcase_set_timeout(h, 120);
	tcase_add_test(h, an_earlier_link_file_is_named_and_refused_and_the_reboot_agrees);
	tcase_add_test(h, the_field_reports_link_file_is_named);
	tcase_add_test(h, check_and_metrics_agree_on_the_next_boot);
	tcase_add_test(h, the_boot_unit_must_be_enabled);
	suite_add_tcase(s, h);
	TCase *sd = tcase_create("seeded");
	tcase_add_checked_fixture(sd, setup_seeded, teardown);
	tcase_set_timeout(sd, 240);
	tcase_add_test(sd, a_unit_whose_program_is_gone_fails_at_boot);
	tcase_add_test(sd, undo_has_the_guards_of_the_action);
	tcase_add_test(sd, journal_filters_by_device_and_action);
	tcase_add_test(sd, programs_unseen_are_not_judged);
	tcase_add_test(sd, after_fix_all_the_prediction_is_the_reboot);
	suite_add_tcase(s, sd);
	return tu_run_suite(s);
}
