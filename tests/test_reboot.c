// SPDX-License-Identifier: MIT
/* `ibvf debug reboot` on the simulated node: the power cycle, the boot unit
 * run as systemd runs it, udev's .link files, the kubelet's pods, and the
 * round trip that proves `ibvf persist`. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* Runs ibvf on the node; out and err are kept for the assertion messages. */
static int run(const char *dir, char **out, char **err, const char *a0, const char *a1,
	       const char *a2, const char *a3, const char *a4)
{
	return tu_sim_run(dir, out, err, a0, a1, a2, a3, a4, NULL);
}

static struct json_object *list_json(const char *dir)
{
	char *out, *err;
	int rc = run(dir, &out, &err, "list", "--json", NULL, NULL, NULL);
	ck_assert_msg(rc == 0, "list: %s", err);
	struct json_object *j = json_tokener_parse(out);
	ck_assert_ptr_nonnull(j);
	free(out);
	free(err);
	return j;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

static struct json_object *jget(struct json_object *o, const char *k)
{
	struct json_object *v;
	return json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* "bdf name node port\n" for every PF and VF: the name is its netdev's, or
 * for a VF in a pod the one it had on the host, with "@pod" after it. */
static char *layout(const char *dir)
{
	struct json_object *j = list_json(dir), *pfs = jget(j, "pfs");
	size_t cap = 1 << 16, len = 0;
	char *buf = calloc(1, cap);
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i), *vfs = jget(pf, "vfs");
		struct json_object *nd = jget(pf, "netdevs");
		len += (size_t)snprintf(buf + len, cap - len, "%s %s\n", jstr(pf, "bdf"),
					json_object_array_length(nd)
						? jstr(json_object_array_get_idx(nd, 0), "ifname")
						: "-");
		for (size_t k = 0; vfs && k < json_object_array_length(vfs); k++) {
			struct json_object *vf = json_object_array_get_idx(vfs, k),
					   *vnd = jget(vf, "netdevs"), *pod = jget(vf, "pod");
			const char *name =
				json_object_array_length(vnd)
					? jstr(json_object_array_get_idx(vnd, 0), "ifname")
				: pod ? jstr(pod, "host_ifname")
				      : NULL;
			len += (size_t)snprintf(buf + len, cap - len, "%s %s%s %s %s\n",
						jstr(vf, "bdf"), name ? name : "-",
						json_object_array_length(vnd) ? "" : "@pod",
						jstr(vf, "node_guid"), jstr(vf, "port_guid"));
		}
	}
	json_object_put(j);
	return buf;
}

/* The VF count of every PF, "bdf n" lines. */
static char *counts(const char *dir)
{
	struct json_object *j = list_json(dir), *pfs = jget(j, "pfs");
	char *buf = calloc(1, 4096);
	size_t len = 0;
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i);
		len += (size_t)snprintf(buf + len, 4096 - len, "%s %zu\n", jstr(pf, "bdf"),
					json_object_array_length(jget(pf, "vfs")));
	}
	json_object_put(j);
	return buf;
}

/* The VF's netdev name now ("" when none). */
static void vf_name(const char *dir, const char *bdf, char buf[static 16])
{
	buf[0] = '\0';
	struct json_object *j = list_json(dir), *pfs = jget(j, "pfs");
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *vfs = jget(json_object_array_get_idx(pfs, i), "vfs");
		for (size_t k = 0; vfs && k < json_object_array_length(vfs); k++) {
			struct json_object *vf = json_object_array_get_idx(vfs, k),
					   *nd = jget(vf, "netdevs");
			if (!strcmp(jstr(vf, "bdf"), bdf) && json_object_array_length(nd))
				snprintf(buf, 16, "%s",
					 jstr(json_object_array_get_idx(nd, 0), "ifname"));
		}
	}
	json_object_put(j);
}

static void rm(const char *dir, const char *rel)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	tu_rmtree(strdup(p));
}

static int reboot(const char *dir, const char *seed, char **out, char **err)
{
	return run(dir, out, err, "debug", "reboot", "--seed", seed, NULL);
}

START_TEST(without_a_unit_every_vf_is_gone_and_nothing_else_changes)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", NULL}), *out, *err;
	rm(dir, "etc/systemd/system/ibvf-sriov.service");
	char *before = layout(dir);
	int rc = reboot(dir, "1", &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "no ibvf-sriov.service installed: nothing runs"), "%s", out);
	ck_assert_msg(strstr(out, "waits: its VF 0000:40:00.4 has no netdev"), "%s", out);
	char *after = layout(dir), *c = counts(dir);
	/* The PFs' lines ("bdf name": one space) are the same; no VF is left. */
	for (char *l = before, *nl; (nl = strchr(l, '\n')); l = nl + 1) {
		char line[256];
		snprintf(line, sizeof(line), "%.*s\n", (int)(nl - l), l);
		if (strchr(line, ' ') == strrchr(line, ' '))
			ck_assert_msg(strstr(after, line), "PF line '%s' changed:\n%s", line,
				      after);
	}
	ck_assert_msg(!strstr(c, " 8\n"), "VFs left:\n%s", c);
	ck_assert_msg(strstr(c, "0000:18:00.0 0\n"), "%s", c);
	/* Nothing else: the .link files, the CNI caches, the checkpoint. */
	char *o2, *e2;
	ck_assert_int_eq(run(dir, &o2, &e2, "list", "--pods", NULL, NULL, NULL), 0);
	ck_assert_msg(strstr(o2, "trainer-0"), "%s", o2);
	char p[4096];
	snprintf(p, sizeof(p), "%s/etc/systemd/network/70-ibvf-0000-18-00.1.link", dir);
	ck_assert_int_eq(access(p, F_OK), 0);
	free(o2);
	free(e2);
	free(before);
	free(after);
	free(c);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(two_seeds_give_other_kernel_names_one_seed_the_same)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", "--pfs", "2", NULL}), *out,
	     *err;
	rm(dir, "etc/systemd/network");
	int rc = reboot(dir, "1", &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	free(out);
	free(err);
	char *one = layout(dir);
	ck_assert_msg(strstr(one, "0000:18:00.1 ib"), "kernel names expected:\n%s", one);
	/* the healthy node's unit sets the GUIDs, as persist writes it */
	ck_assert_msg(!strstr(one, " 0000:0000:0000:0000 0000:0000:0000:0000"),
		      "the unit's GUIDs:\n%s", one);
	ck_assert_int_eq(reboot(dir, "2", &out, &err), 0);
	free(out);
	free(err);
	char *two = layout(dir);
	ck_assert_msg(strcmp(one, two), "seeds 1 and 2 gave the same names:\n%s", one);
	ck_assert_int_eq(reboot(dir, "1", &out, &err), 0);
	free(out);
	free(err);
	char *again = layout(dir);
	ck_assert_str_eq(one, again);
	free(one);
	free(two);
	free(again);
	tu_rmtree(dir);
}
END_TEST

START_TEST(link_files_apply_by_path_in_file_order_first_match_wins)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", "--pfs", "2", NULL}), *out,
	     *err;
	rm(dir, "etc/systemd/network");
	tu_put(dir, "etc/systemd/network/10-first.link",
	       "[Match]\nPath=pci-0000:18:00.3\n\n[Link]\nName=first0\n");
	tu_put(dir, "etc/systemd/network/20-second.link",
	       "[Match]\nPath=pci-0000:18:00.3 pci-0000:18:00.5\n\n[Link]\nName=second0\n");
	tu_put(dir, "etc/systemd/network/30-policy.link",
	       "[Match]\nPath=pci-0000:40:00.*\nOriginalName=ib*\n\n[Link]\n"
	       "NamePolicy=kernel path\nName=never0\n");
	/* /etc's 05-mask.link masks /usr/lib's, which would name 18:00.4. */
	tu_put(dir, "usr/lib/systemd/network/05-mask.link",
	       "[Match]\nPath=pci-0000:18:00.4\n\n[Link]\nName=masked0\n");
	char p[4096];
	snprintf(p, sizeof(p), "%s/etc/systemd/network/05-mask.link", dir);
	ck_assert_int_eq(symlink("/dev/null", p), 0);
	int rc = reboot(dir, "3", &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	char n[16];
	vf_name(dir, "0000:18:00.3", n);
	ck_assert_str_eq(n, "first0");
	vf_name(dir, "0000:18:00.5", n);
	ck_assert_str_eq(n, "second0");
	vf_name(dir, "0000:40:00.2", n);
	ck_assert_str_eq(n, "ibp64s0v1");
	vf_name(dir, "0000:18:00.4", n);
	ck_assert_msg(!strncmp(n, "ib", 2) && strcmp(n, "masked0"), "18:00.4 is '%s'", n);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

#define UNIT_HEAD                                                                                  \
	"[Unit]\nDescription=test\n\n[Service]\nType=oneshot\n"                                    \
	"ExecStart=/usr/sbin/modprobe -a mlx5_core\n"                                              \
	"ExecStart=/usr/bin/udevadm settle --timeout=60\n"
#define IBVF "ExecStart=/usr/sbin/ibvf "

START_TEST(a_failing_line_stops_the_unit_and_later_lines_do_not_run)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", "--pfs", "2", NULL}), *out,
	     *err;
	/* line 10 is ignored ('-'), line 11 fails: 0000:40:00.0's GUID is taken */
	tu_put(dir, "etc/systemd/system/ibvf-sriov.service",
	       UNIT_HEAD IBVF
	       "vf create 0000:18:00.0 2 --yes\n" IBVF
	       "vf guid 0000:18:00.1 --node 02:00:00:00:00:00:00:01 --port "
	       "02:00:00:00:00:00:00:01 --yes --force\n"
	       "ExecStart=-/usr/sbin/ibvf vf guid 0000:18:00.2 --port a088:c203:0040:0000 "
	       "--yes --force\n" IBVF "vf guid 0000:18:00.2 --node \"a088:c203:0040:0000\" --yes "
	       "--force\n" IBVF "vf create 0000:40:00.0 1 --yes --force\n");
	int rc = reboot(dir, "4", &out, &err);
	ck_assert_msg(rc == 1, "exit %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "line 10: ") && strstr(out, "ignored ('-')"), "%s", out);
	ck_assert_msg(strstr(err, "ibvf-sriov.service failed at line 11 (exit 2)") &&
			      strstr(err, "already in use") &&
			      strstr(err, "its 1 later line did not run"),
		      "%s", err);
	ck_assert_msg(!strstr(out, "line 12: "), "%s", out);
	char *c = counts(dir), *l = layout(dir);
	ck_assert_msg(strstr(c, "0000:18:00.0 2\n") && strstr(c, "0000:40:00.0 0\n"), "%s", c);
	ck_assert_msg(strstr(l, "0000:18:00.1 ") &&
			      strstr(l, "0200:0000:0000:0001 0200:0000:0000:0001"),
		      "%s", l);
	ck_assert_msg(strstr(l, " 0000:0000:0000:0000 0000:0000:0000:0000"), "%s", l);
	free(c);
	free(l);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(lines_the_simulation_cannot_run_are_refused_before_anything_changes)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", "--pfs", "1", NULL}), *out,
	     *err;
	const char *bad[][2] = {
		{"ExecStart=/bin/sh -c 'echo 8 > /sys/bus/pci/devices/0000:18:00.0/sriov_numvfs'\n",
		 "'/bin/sh' cannot run on the simulated node"},
		{IBVF "vf create %i 8 --yes\n", "the specifier '%i'"},
		{IBVF "vf create $PF 8 --yes\n", "the environment variable '$PF'"},
		{IBVF "vf create 0000:18:00.0 8 --yes ; /bin/true\n", "';' between commands"},
		{IBVF "vf create \"0000:18:00.0 8 --yes\n", "unbalanced quotes"},
		{IBVF "--sim=/tmp vf create 0000:18:00.0 8 --yes\n",
		 "'--sim=/tmp' in an ibvf line"},
		{IBVF "mkfixture /tmp/ibvf-reboot-out --healthy\n",
		 "'ibvf mkfixture' cannot run on the simulated node"},
		{IBVF "debug reboot\n", "'ibvf debug' cannot run on the simulated node"},
	};
	char *before = layout(dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char unit[1024];
		snprintf(unit, sizeof(unit), "%s%s", UNIT_HEAD, bad[i][0]);
		tu_put(dir, "etc/systemd/system/ibvf-sriov.service", unit);
		int rc = reboot(dir, "5", &out, &err);
		ck_assert_msg(rc == 2, "%s: exit %d: %s%s", bad[i][0], rc, out, err);
		ck_assert_msg(strstr(err, bad[i][1]) && strstr(err, "line 8"), "%s: %s", bad[i][0],
			      err);
		ck_assert_msg(!strchr(err, '\n') || strchr(err, '\n')[1] == '\0', "one line: %s",
			      err);
		free(out);
		free(err);
		char *now = layout(dir);
		ck_assert_str_eq(before, now);
		free(now);
	}
	/* A masked unit runs nothing; a real node or a --root tree is refused. */
	rm(dir, "etc/systemd/system/ibvf-sriov.service");
	char p[4096];
	snprintf(p, sizeof(p), "%s/etc/systemd/system/ibvf-sriov.service", dir);
	ck_assert_int_eq(symlink("/dev/null", p), 0);
	ck_assert_int_eq(reboot(dir, "5", &out, &err), 0);
	ck_assert_msg(strstr(out, "is masked: nothing runs"), "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(
		tu_run((const char *const[]){"--root", dir, "debug", "reboot", NULL}, &out, &err),
		2);
	ck_assert_msg(strstr(err, "only the simulated node reboots"), "%s", err);
	free(out);
	free(err);
	free(before);
	tu_rmtree(dir);
}
END_TEST

/* "id subject" of every finding, sorted as check prints them. */
static char *findings(const char *dir)
{
	char *out, *err;
	run(dir, &out, &err, "check", "--json", NULL, NULL, NULL);
	struct json_object *j = json_tokener_parse(out), *f = jget(j, "findings");
	ck_assert_msg(f, "check --json: %s", err);
	size_t cap = 1 << 16, len = 0;
	char *buf = calloc(1, cap);
	for (size_t i = 0; i < json_object_array_length(f); i++) {
		struct json_object *x = json_object_array_get_idx(f, i);
		len += (size_t)snprintf(buf + len, cap - len, "%s %s %s\n", jstr(x, "id"),
					jstr(x, "subject") ? jstr(x, "subject") : "node",
					jstr(x, "title"));
	}
	json_object_put(j);
	free(out);
	free(err);
	return buf;
}

START_TEST(persist_then_reboot_gives_the_same_names_guids_and_findings)
{
	char *dir = tu_mkfixture(
		     (const char *const[]){"--healthy", "--pfs", "4", "--vfs", "6", NULL}),
	     *out, *err;
	rm(dir, "etc/systemd/network");
	rm(dir, "etc/systemd/system");
	char *names = layout(dir);
	/* The unit must name an ibvf the node has, root's and not writable by
	 * others: the simulated node's /usr/sbin/ibvf. It enables the unit. */
	int rc = run(dir, &out, &err, "persist", "--ibvf", "/usr/sbin/ibvf", "--yes", NULL);
	ck_assert_msg(rc == 0, "persist: %s%s", out, err);
	free(out);
	free(err);
	/* What check says now is what the node is after the reboot. */
	char *found = findings(dir);
	rc = reboot(dir, "6", &out, &err);
	ck_assert_msg(rc == 0, "reboot: exit %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "pod ml-training/trainer-0 runs again: VF 0000:40:00.4 "
				  "('ibp64s0v3', GUID a088:c203:0040:0004) moved in as net1"),
		      "%s", out);
	char *names2 = layout(dir), *found2 = findings(dir);
	ck_assert_str_eq(names, names2);
	ck_assert_str_eq(found, found2);
	free(names);
	free(names2);
	free(found);
	free(found2);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

START_TEST(mkfixture_reboot_builds_a_node_and_boots_it)
{
	char *dir = tu_mkfixture((const char *const[]){"--pfs", "1", NULL}), *out, *err;
	char sub[4096];
	snprintf(sub, sizeof(sub), "%s/booted", dir);
	int rc = tu_run((const char *const[]){"mkfixture", sub, "--pfs", "1", "--reboot", "--seed",
					      "8", NULL},
			&out, &err);
	/* The seeded node's unit is an old install's: its ibvf is not there, and
	 * systemd fails the unit at that line (203/EXEC), as a real boot would. */
	ck_assert_msg(rc == 1, "exit %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "(probe seed 8)") &&
			      strstr(out, "vf create 0000:18:00.0 8 --yes --timeout 120: failed "
					  "(203/EXEC): '/usr/local/sbin/ibvf' is not on the node"),
		      "%s", out);
	free(out);
	free(err);
	/* With the unit's ibvf where it is, the boot creates the VFs. */
	char unit[8192];
	snprintf(unit, sizeof(unit), "%s/etc/systemd/system/ibvf-sriov.service", sub);
	FILE *f = fopen(unit, "re");
	ck_assert_ptr_nonnull(f);
	char *t = calloc(1, 65536);
	ck_assert_ptr_nonnull(t);
	t[fread(t, 1, 65535, f)] = '\0';
	fclose(f);
	for (char *at; (at = strstr(t, "/usr/local/sbin/ibvf"));)
		memmove(at + 5, at + 11, strlen(at + 11) + 1); /* /usr/local/sbin -> /usr/sbin */
	tu_put(sub, "etc/systemd/system/ibvf-sriov.service", t);
	free(t);
	rc = reboot(sub, "8", &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	ck_assert_msg(strstr(out, "vf create 0000:18:00.0 8 --yes --timeout 120: ok"), "%s", out);
	/* the same driver fails 0000:18:00.2's probe again at this boot; vf
	 * create does not wait for it, and the unit goes on */
	char *l = layout(sub);
	ck_assert_msg(strstr(l, "0000:18:00.2 -@pod") && strstr(l, "0000:18:00.3 ib"), "%s", l);
	free(l);
	free(out);
	free(err);
	rc = tu_run((const char *const[]){"mkfixture", sub, "--seed", "8", NULL}, &out, &err);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(err, "--seed goes with --reboot"), "%s", err);
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

static Suite *reboot_suite(void)
{
	Suite *s = suite_create("reboot");
	TCase *tc = tcase_create("sim");
	/* Each test reboots a whole node, running ibvf once per unit line. */
	tcase_set_timeout(tc, 280);
	tcase_add_test(tc, without_a_unit_every_vf_is_gone_and_nothing_else_changes);
	tcase_add_test(tc, two_seeds_give_other_kernel_names_one_seed_the_same);
	tcase_add_test(tc, link_files_apply_by_path_in_file_order_first_match_wins);
	tcase_add_test(tc, a_failing_line_stops_the_unit_and_later_lines_do_not_run);
	tcase_add_test(tc, lines_the_simulation_cannot_run_are_refused_before_anything_changes);
	tcase_add_test(tc, mkfixture_reboot_builds_a_node_and_boots_it);
	tcase_add_test(tc, persist_then_reboot_gives_the_same_names_guids_and_findings);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(reboot_suite());
}
