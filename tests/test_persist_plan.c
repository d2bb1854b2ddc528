// SPDX-License-Identifier: MIT
/* `ibvf persist` as a plan: what it refuses (findings that would make the
 * boot unit wrong, an ibvf that is not installed, a unit line the node
 * would refuse), what it writes (a .link file per VF and the unit, mode
 * 0644 whatever the umask, never through a planted link), and the journal
 * entry whose undo puts every file back. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/actions/actions.h"
#include "core/persist/persist.h"
#include "core/sys/sys.h"
#include "persistutil.h"
#include "testutil.h"

static const char *const healthy[] = {"--healthy", NULL};

static size_t count_links(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/etc/systemd/network", dir);
	DIR *d = opendir(path);
	size_t n = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		n += !strncmp(de->d_name, "70-ibvf-", 8);
	if (d)
		closedir(d);
	return n;
}

static char *unit_of(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/etc/systemd/system/ibvf-sriov.service", dir);
	return pu_slurp(path);
}

static bool one_line(const char *s)
{
	return s && *s && strchr(s, '\n') == s + strlen(s) - 1;
}

/* The seeded node: refused, each blocking check named with its count and
 * the command that clears it; nothing written. */
START_TEST(refuses_listing_check_ids_on_the_seeded_node)
{
	char *dir = tu_mkfixture(NULL), *bin = pu_install(dir), *o, *e;
	char *unit = unit_of(dir);
	size_t links = count_links(dir);
	const char *argv[] = {"persist", "--yes", "--ibvf", bin, NULL};
	ck_assert_int_eq(pu_run(dir, argv, &o, &e), 2);
	ck_assert_msg(one_line(e), "%s", e);
	const char *want[] = {"guid-zero (15, fix: 'ibvf check --fix guid-zero')",
			      "guid-duplicate (1, fix: 'ibvf check --fix guid-duplicate')",
			      "name-unstable (14, fix: 'ibvf check --fix name-unstable')"};
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
		ck_assert_msg(strstr(e, want[i]), "no '%s' in: %s", want[i], e);
	/* the seeded probe failure does not block (persist_plan.c) */
	ck_assert_msg(!strstr(e, "probe-failed"), "%s", e);
	ck_assert_str_eq(o, "");
	char *after = unit_of(dir);
	ck_assert_str_eq(after, unit);
	ck_assert_uint_eq(count_links(dir), links);
	free(after);
	free(unit);
	free(o);
	free(e);
	free(bin);
	tu_rmtree(dir);
}
END_TEST

static void refused(const char *dir, const char *ibvf, const char *why)
{
	char *o, *e;
	const char *argv[] = {"persist", "--dry-run", ibvf ? "--ibvf" : NULL, ibvf, NULL};
	int rc = pu_run(dir, argv, &o, &e);
	ck_assert_msg(rc == 2 && one_line(e) && strstr(e, why), "--ibvf %s: %d: %s", ibvf, rc, e);
	free(o);
	free(e);
}

START_TEST(ibvf_path_rules)
{
	char *dir = tu_mkfixture(healthy), *bin = pu_install(dir), *host = pu_host(dir, bin);
	char path[4200], *o, *e;
	/* Without --ibvf on a simulated node: not this host's binary (in a
	 * build tree, and not on the node) but the node's own, where the
	 * package puts it. */
	{
		const char *argv[] = {"persist", "--dry-run", NULL};
		tu_put(dir, "etc/systemd/system/ibvf-sriov.service", "# an older unit\n");
		ck_assert_int_eq(pu_run(dir, argv, &o, &e), 0);
		ck_assert_msg(strstr(o, "ExecStart=/usr/sbin/ibvf vf create 0000:18:00.0 8"), "%s",
			      o);
		free(o);
		free(e);
	}
	refused(dir, "bin/ibvf", "the unit needs an absolute path");
	/* the unit runs it on the node: a path of this host is not one of the node's */
	char *self = realpath(getenv("IBVF_BIN"), NULL);
	refused(dir, self, "(on the node under ");
	free(self);
	refused(dir, "/usr/sbin/nothing", "No such file or directory");
	refused(dir, "/usr/sbin", "not an executable regular file");
	ck_assert_int_eq(chmod(host, 0644), 0);
	refused(dir, bin, "not an executable regular file");
	ck_assert_int_eq(chmod(host, 0775), 0);
	refused(dir, bin, "writable by its group or others (mode 0775)");
	ck_assert_int_eq(chmod(host, 0757), 0);
	refused(dir, bin, "writable by its group or others (mode 0757)");
	ck_assert_int_eq(chmod(host, 0755), 0);
	/* a control character would reach the unit and the terminal */
	snprintf(path, sizeof(path), "%s/usr/sbin/ib\x1b[2Jvf", dir);
	pu_install_at(path);
	refused(dir, "/usr/sbin/ib\x1b[2Jvf", "invalid --ibvf path: byte ");
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(host, 65534, 0), 0);
		refused(dir, bin, "owned by uid 65534, not root");
		ck_assert_int_eq(chown(host, 0, 0), 0);
		const char *argv[] = {"persist", "--dry-run", "--ibvf", bin, NULL};
		ck_assert_int_eq(pu_run(dir, argv, &o, &e), 0);
		ck_assert_ptr_nonnull(strstr(o, "/usr/sbin/ibvf vf create 0000:18:00.0 8 --yes"));
		free(o);
		free(e);
	}
	free(host);
	free(bin);
	tu_rmtree(dir);
}
END_TEST

static struct node *discover(struct sys **ret, const char *dir)
{
	struct err e;
	struct node *n;
	ck_assert_msg(sys_open_sim(dir, NULL, ret, &e) == 0, "open: %s", e.msg);
	ck_assert_msg(node_discover(*ret, &n, &e) == 0, "discover: %s", e.msg);
	return n;
}

/* The seeded duplicate (0000:c0:00.3 has 0000:5e:00.3's GUID): the unit's
 * line for it is the one the node refuses. */
START_TEST(dry_check_names_the_seeded_duplicate_line)
{
	char *dir = tu_mkfixture(NULL);
	struct sys *s;
	struct node *n = discover(&s, dir);
	struct persist *ps;
	struct err e = {{0}};
	struct persist_opts po = {.ibvf = "/usr/local/sbin/ibvf"};
	ck_assert_int_eq(persist_build(n, &po, &ps, &e), 0);
	ck_assert_int_eq(persist_dry_check(s, n, ps, &e), -EEXIST);
	/* the first of the pair's lines the node refuses now */
	ck_assert_msg(strstr(e.msg, "the unit's line 'ExecStart=/usr/local/sbin/ibvf vf guid "
				    "0000:") &&
			      strstr(e.msg, " --node a088:c203:005e:0003 ") &&
			      strstr(e.msg, "would be refused at boot"),
		      "%s", e.msg);
	ck_assert_msg(strstr(e.msg, "already in use on this node"), "%s", e.msg);
	persist_free(ps);
	node_free(n);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

/* A node the checks pass but whose GUID is taken administratively (set on
 * 0000:5e:00.3, pending its next rebind): the CLI refuses, naming the line. */
START_TEST(dry_check_refuses_from_the_cli)
{
	char *dir = tu_mkfixture(healthy), *bin = pu_install(dir), *o, *e;
	struct sys *s;
	struct node *n = discover(&s, dir);
	const struct pf *pf = node_find_pf(n, "0000:5e:00.0");
	const struct vf *vf = NULL;
	ck_assert_ptr_nonnull(node_find_fn(n, "0000:5e:00.3", NULL, &vf));
	struct err er;
	ck_assert_msg(sys_vf_set_guid(s, pf->fn.netdevs[0].name, vf->index, SYS_GUID_NODE,
				      0xa088c20300c00003ULL, &er) == 0,
		      "%s", er.msg);
	node_free(n);
	sys_close(s);
	char *unit = unit_of(dir);
	const char *check[] = {"check", NULL};
	ck_assert_int_eq(pu_run(dir, check, &o, &e), 0); /* no findings */
	free(o);
	free(e);
	const char *argv[] = {"persist", "--yes", "--ibvf", bin, NULL};
	ck_assert_int_eq(pu_run(dir, argv, &o, &e), 2);
	ck_assert_msg(one_line(e) && strstr(e, "vf guid 0000:c0:00.3 --node a088:c203:00c0:0003") &&
			      strstr(e, "would be refused at boot") &&
			      strstr(e, "administrative node GUID of 0000:5e:00.3"),
		      "%s", e);
	char *after = unit_of(dir);
	ck_assert_str_eq(after, unit);
	free(after);
	free(unit);
	free(o);
	free(e);
	free(bin);
	tu_rmtree(dir);
}
END_TEST

/* A VF whose GUIDs cannot be read (no check flags unknown): the unit would
 * leave it without, so persist refuses, naming it. */
START_TEST(refuses_a_vf_without_guids_to_persist)
{
	char *dir = tu_mkfixture(healthy), *bin = pu_install(dir);
	struct sys *s;
	struct node *n = discover(&s, dir);
	struct vf *vf = (struct vf *)node_find_pf(n, "0000:4f:00.0")->vfs + 2;
	vf->node_guid.known = false;
	struct action_req req = {.kind = ACTION_PERSIST};
	snprintf(req.path, sizeof(req.path), "%s", bin);
	struct plan *p = NULL;
	struct err e = {{0}};
	ck_assert_int_eq(action_plan(s, n, &req, &p, &e), -EINVAL);
	ck_assert_ptr_null(p);
	ck_assert_msg(strstr(e.msg, "cannot persist: 1 VFs (0000:4f:00.3 first) have no valid "
				    "GUIDs for the unit to set"),
		      "%s", e.msg);
	vf->node_guid.known = true;
	ck_assert_msg(action_plan(s, n, &req, &p, &e) == 0, "%s", e.msg);
	plan_free(p);
	node_free(n);
	sys_close(s);
	free(bin);
	tu_rmtree(dir);
}
END_TEST

static void check_mode(const char *path)
{
	struct stat st;
	ck_assert_msg(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "%s", path);
	ck_assert_msg((st.st_mode & 07777) == 0644, "%s: mode %04o", path,
		      (unsigned int)(st.st_mode & 07777));
}

/* A fresh /etc: a .link file for every VF and the unit, each 0644 under
 * umask 0 and umask 077 alike; undo removes them again. */
START_TEST(writes_a_link_per_vf_and_the_unit_mode_0644)
{
	static const mode_t masks[] = {0, 077};
	for (size_t m = 0; m < 2; m++) {
		char *dir = tu_mkfixture(healthy), *bin = pu_install(dir), *o, *e, path[4200];
		snprintf(path, sizeof(path), "%s/etc/systemd", dir);
		tu_rmtree(strdup(path));
		struct sys *s;
		struct node *n = discover(&s, dir);
		sys_close(s);
		mode_t old = umask(masks[m]);
		const char *argv[] = {"persist", "--yes", "--ibvf", bin, NULL};
		int rc = pu_run(dir, argv, &o, &e);
		umask(old);
		ck_assert_msg(rc == 0, "%s", e);
		ck_assert_ptr_nonnull(strstr(o, "result: ok (journal entry 1)"));
		size_t vfs = 0;
		for (size_t i = 0; i < n->n_pfs; i++)
			for (size_t j = 0; j < n->pfs[i].n_vfs; j++, vfs++) {
				char name[64];
				snprintf(name, sizeof(name), "%s", n->pfs[i].vfs[j].fn.bdf);
				for (char *c = name; *c; c++)
					*c = *c == ':' ? '-' : *c;
				snprintf(path, sizeof(path),
					 "%s/etc/systemd/network/70-ibvf-%s.link", dir, name);
				check_mode(path);
			}
		ck_assert_uint_eq(count_links(dir), vfs);
		snprintf(path, sizeof(path), "%s/etc/systemd/network", dir);
		struct stat dst;
		ck_assert_int_eq(stat(path, &dst), 0);
		ck_assert_msg((dst.st_mode & 07777) == 0755, "%s: mode %04o", path,
			      (unsigned int)(dst.st_mode & 07777));
		snprintf(path, sizeof(path), "%s/etc/systemd/system/ibvf-sriov.service", dir);
		check_mode(path);
		free(o);
		free(e);
		const char *undo[] = {"journal", "undo", "1", "--yes", NULL};
		ck_assert_int_eq(pu_run(dir, undo, &o, &e), 0);
		ck_assert_uint_eq(count_links(dir), 0);
		ck_assert_int_ne(access(path, F_OK), 0);
		node_free(n);
		free(o);
		free(e);
		free(bin);
		tu_rmtree(dir);
	}
}
END_TEST

START_TEST(no_terminal_no_yes_writes_nothing)
{
	if (isatty(STDIN_FILENO))
		return; /* the refusal is for a stdin that is not a terminal */
	char *dir = tu_mkfixture(healthy), *bin = pu_install(dir), *o, *e;
	/* something to write: the healthy node's files are what persist writes */
	tu_put(dir, "etc/systemd/system/ibvf-sriov.service", "# an older unit\n");
	char *unit = unit_of(dir);
	const char *argv[] = {"persist", "--ibvf", bin, NULL};
	ck_assert_int_eq(pu_run(dir, argv, &o, &e), 2);
	ck_assert_msg(strstr(e, "refusing to change the node without confirmation"), "%s", e);
	char *after = unit_of(dir);
	ck_assert_str_eq(after, unit);
	free(after);
	free(unit);
	free(o);
	free(e);
	free(bin);
	tu_rmtree(dir);
}
END_TEST

static void put(const char *dir, const char *rel, const char *content)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	tu_write(path, content);
}

static char *get(const char *dir, const char *rel)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return pu_slurp(path);
}

#define NET "etc/systemd/network/"

/* A replaced file, a new one and a removed stale one: undo puts each back. */
START_TEST(journal_undo_restores_what_persist_replaced)
{
	char *dir = tu_mkfixture(healthy), *bin = pu_install(dir), *o, *e, path[4200];
	put(dir, NET "70-ibvf-0000-18-00.1.link", "# edited by hand\n[Match]\nPath=x\n");
	put(dir, NET "70-ibvf-0000-99-00.1.link", "# a VF that is gone\n");
	snprintf(path, sizeof(path), "%s/" NET "70-ibvf-0000-18-00.2.link", dir);
	ck_assert_int_eq(unlink(path), 0);
	char *unit = unit_of(dir);
	const char *argv[] = {"persist", "--yes", "--ibvf", bin, NULL};
	ck_assert_int_eq(pu_run(dir, argv, &o, &e), 0);
	ck_assert_ptr_nonnull(strstr(o, "verified:"));
	char *t = get(dir, NET "70-ibvf-0000-18-00.1.link");
	ck_assert_ptr_nonnull(strstr(t, "Name=ibp24s0v0\n"));
	free(t);
	ck_assert_ptr_null(get(dir, NET "70-ibvf-0000-99-00.1.link"));
	t = get(dir, NET "70-ibvf-0000-18-00.2.link");
	ck_assert_ptr_nonnull(t);
	free(t);
	free(o);
	free(e);
	/* the journal keeps what was replaced and removed */
	const char *journal[] = {"--json", "journal", NULL};
	ck_assert_int_eq(pu_run(dir, journal, &o, &e), 0);
	ck_assert_ptr_nonnull(strstr(o, "\"old_content\":\"# edited by hand\\n"));
	ck_assert_ptr_nonnull(strstr(o, "\"old_content\":\"# a VF that is gone\\n\""));
	free(o);
	free(e);
	const char *undo[] = {"journal", "undo", "1", "--yes", NULL};
	ck_assert_int_eq(pu_run(dir, undo, &o, &e), 0);
	ck_assert_ptr_nonnull(strstr(o, "result: ok (journal entry 2)"));
	t = get(dir, NET "70-ibvf-0000-18-00.1.link");
	ck_assert_str_eq(t, "# edited by hand\n[Match]\nPath=x\n");
	free(t);
	t = get(dir, NET "70-ibvf-0000-99-00.1.link");
	ck_assert_str_eq(t, "# a VF that is gone\n");
	free(t);
	ck_assert_ptr_null(get(dir, NET "70-ibvf-0000-18-00.2.link"));
	t = unit_of(dir);
	ck_assert_str_eq(t, unit);
	free(t);
	free(unit);
	free(o);
	free(e);
	/* once undone, not again */
	ck_assert_int_eq(pu_run(dir, undo, &o, &e), 2);
	ck_assert_ptr_nonnull(strstr(e, "was undone by entry 2"));
	free(o);
	free(e);
	free(bin);
	tu_rmtree(dir);
}
END_TEST

/* A file persist wrote and someone changed since: its undo is refused,
 * nothing changed. A file already as it was (a persist that failed part way
 * never wrote it; the journal keeps every change of the plan) is left, and
 * the others are put back. */
START_TEST(undo_refuses_a_file_changed_since_and_leaves_one_as_it_was)
{
	char *dir = tu_mkfixture(healthy), *bin = pu_install(dir), *o, *e, path[4200];
	put(dir, "etc/systemd/system/ibvf-sriov.service", "# an older unit\n");
	char *unit = unit_of(dir), *t;
	snprintf(path, sizeof(path), "%s/" NET "70-ibvf-0000-18-00.2.link", dir);
	ck_assert_int_eq(unlink(path), 0);
	const char *argv[] = {"persist", "--yes", "--ibvf", bin, NULL};
	ck_assert_int_eq(pu_run(dir, argv, &o, &e), 0);
	free(o);
	free(e);
	char *wrote = unit_of(dir);
	put(dir, "etc/systemd/system/ibvf-sriov.service", "# edited after persist\n");
	const char *undo[] = {"journal", "undo", "1", "--yes", NULL};
	ck_assert_int_eq(pu_run(dir, undo, &o, &e), 2);
	ck_assert_msg(one_line(e) && strstr(e, "ibvf-sriov.service' changed since; nothing was "
					       "changed"),
		      "%s", e);
	ck_assert_str_eq(t = unit_of(dir), "# edited after persist\n");
	free(t);
	free(o);
	free(e);
	put(dir, "etc/systemd/system/ibvf-sriov.service", wrote);
	ck_assert_int_eq(unlink(path), 0); /* as if never written */
	ck_assert_msg(pu_run(dir, undo, &o, &e) == 0, "%s", e);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_str_eq(t = unit_of(dir), unit);
	free(t);
	free(unit);
	free(wrote);
	free(o);
	free(e);
	free(bin);
	tu_rmtree(dir);
}
END_TEST

/* Without root, a plan with file steps is refused before anything (the test
 * runs in its own process: Check forks each). */
START_TEST(file_steps_need_root)
{
	if (geteuid() != 0) {
		printf("SKIP: dropping privileges needs root\n");
		return;
	}
	struct plan *p;
	struct err e = {{0}};
	ck_assert_int_eq(plan_new("persist", "node", &p), 0);
	ck_assert_int_eq(plan_file(p, "/nonexistent/x.link", NULL, "[Match]\n"), 0);
	ck_assert_int_eq(action_check_privilege(p, &e), 0);
	ck_assert_int_eq(setresuid(65534, 65534, 65534), 0);
	ck_assert_int_eq(action_check_privilege(p, &e), -EPERM);
	ck_assert_str_eq(e.msg, "'persist' needs root to write its files: run it as root "
				"(nothing was changed)");
	plan_free(p);
}
END_TEST

/* A link planted for the directory or for one of our files: refused,
 * nothing written through it. */
START_TEST(planted_symlink_is_not_followed)
{
	char *dir = tu_mkfixture(healthy), *bin = pu_install(dir), *o, *e, net[4200], other[4200];
	snprintf(net, sizeof(net), "%s/etc/systemd/network", dir);
	snprintf(other, sizeof(other), "%s/elsewhere", dir);
	tu_rmtree(strdup(net));
	ck_assert_int_eq(mkdir(other, 0755), 0);
	ck_assert_int_eq(symlink("../../elsewhere", net), 0);
	const char *argv[] = {"persist", "--yes", "--ibvf", bin, NULL};
	ck_assert_int_ne(pu_run(dir, argv, &o, &e), 0);
	ck_assert_msg(strstr(e, "'network' in ") && strstr(e, "is a symbolic link"), "%s", e);
	ck_assert_int_eq(rmdir(other), 0); /* still empty: nothing written through the link */
	ck_assert_int_eq(mkdir(other, 0755), 0);
	free(o);
	free(e);
	ck_assert_int_eq(unlink(net), 0);
	ck_assert_int_eq(mkdir(net, 0755), 0);
	tu_put(dir, "elsewhere/target", "keep\n");
	char link[4300];
	snprintf(link, sizeof(link), "%s/70-ibvf-0000-18-00.1.link", net);
	ck_assert_int_eq(symlink("../../../elsewhere/target", link), 0);
	ck_assert_int_ne(pu_run(dir, argv, &o, &e), 0);
	ck_assert_msg(strstr(e, "70-ibvf-0000-18-00.1.link' is a symbolic link"), "%s", e);
	char *t = get(dir, "elsewhere/target");
	ck_assert_str_eq(t, "keep\n");
	free(t);
	ck_assert_uint_eq(count_links(dir), 1); /* only the planted link */
	free(o);
	free(e);
	free(bin);
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("persist_plan");
	TCase *tc = tcase_create("plan");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, refuses_listing_check_ids_on_the_seeded_node);
	tcase_add_test(tc, ibvf_path_rules);
	tcase_add_test(tc, dry_check_names_the_seeded_duplicate_line);
	tcase_add_test(tc, dry_check_refuses_from_the_cli);
	tcase_add_test(tc, refuses_a_vf_without_guids_to_persist);
	tcase_add_test(tc, writes_a_link_per_vf_and_the_unit_mode_0644);
	tcase_add_test(tc, no_terminal_no_yes_writes_nothing);
	tcase_add_test(tc, journal_undo_restores_what_persist_replaced);
	tcase_add_test(tc, undo_refuses_a_file_changed_since_and_leaves_one_as_it_was);
	tcase_add_test(tc, planted_symlink_is_not_followed);
	tcase_add_test(tc, file_steps_need_root);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
