// SPDX-License-Identifier: MIT
/* Files another user can plant (issue 14, item 2): a link at the unit's
 * temporary name, the simulated node's default directory made or taken
 * over by someone else, links planted inside the simulated node, and a
 * user's XDG directories when root runs through sudo -E. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sim/sim_tree.h"
#include "core/sys/sys.h"
#include "persistutil.h"
#include "simutil.h"
#include "testutil.h"
#include "tui/base/theme.h"

static const char *const healthy[] = {"--healthy", NULL};

/* A link at the name a plain fopen("w") writer would use for the unit's
 * temporary: nothing is written through it, the unit is a regular file. */
START_TEST(persist_tmp_link_is_not_followed)
{
	char *dir = tu_mkfixture(healthy), *bin = pu_install(dir), *o, *e, p[4200];
	tu_put(dir, "elsewhere/target", "keep\n");
	snprintf(p, sizeof(p), "%s/etc/systemd/system/.ibvf-sriov.service.tmp", dir);
	tu_put(dir, "etc/systemd/system/.keep", "");
	ck_assert_int_eq(symlink("../../../elsewhere/target", p), 0);
	const char *argv[] = {"persist", "--yes", "--ibvf", bin, NULL};
	ck_assert_msg(pu_run(dir, argv, &o, &e) == 0, "%s%s", o, e);
	snprintf(p, sizeof(p), "%s/elsewhere/target", dir);
	char *t = pu_slurp(p);
	ck_assert_str_eq(t, "keep\n");
	free(t);
	struct stat st;
	snprintf(p, sizeof(p), "%s/etc/systemd/system/ibvf-sriov.service", dir);
	ck_assert_msg(lstat(p, &st) == 0 && S_ISREG(st.st_mode), "%s", p);
	free(o);
	free(e);
	free(bin);
	tu_rmtree(dir);
}
END_TEST

/* `ibvf --sim list` with XDG_CACHE_HOME=base: rc, stderr. */
static int sim_default(const char *base, char **ret_err)
{
	setenv("XDG_CACHE_HOME", base, 1);
	unsetenv("SUDO_USER");
	char *out;
	int rc = tu_run((const char *const[]){"--sim", "list", NULL}, &out, ret_err);
	free(out);
	unsetenv("XDG_CACHE_HOME");
	return rc;
}

/* Made fresh: 0700 and the user's, whatever the umask. */
START_TEST(default_sim_dir_is_private)
{
	char base[] = "/tmp/ibvf-cache-XXXXXX", sim[256], *err;
	ck_assert_ptr_nonnull(mkdtemp(base));
	mode_t old = umask(0);
	int rc = sim_default(base, &err);
	umask(old);
	ck_assert_msg(rc == 0, "%s", err);
	snprintf(sim, sizeof(sim), "%s/ibvf/sim", base);
	struct stat st;
	ck_assert_int_eq(lstat(sim, &st), 0);
	ck_assert_msg((st.st_mode & 07777) == 0700, "'%s' has mode %04o", sim,
		      (unsigned int)(st.st_mode & 07777));
	ck_assert_uint_eq(st.st_uid, getuid());
	free(err);
	tu_rmtree(strdup(base));
}
END_TEST

/* One an older ibvf made 0755 (the user's, no one else can write in it):
 * used, and made private. */
START_TEST(default_sim_dir_readable_by_others_is_made_private)
{
	char base[] = "/tmp/ibvf-cache-XXXXXX", sim[256], *err;
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(sim, sizeof(sim), "%s/ibvf", base);
	ck_assert_int_eq(mkdir(sim, 0755), 0);
	snprintf(sim, sizeof(sim), "%s/ibvf/sim", base);
	char *fix = tu_mkfixture(healthy);
	ck_assert_int_eq(rename(fix, sim), 0);
	ck_assert_int_eq(chmod(sim, 0755), 0);
	int rc = sim_default(base, &err);
	ck_assert_msg(rc == 0, "%s", err);
	struct stat st;
	ck_assert_int_eq(lstat(sim, &st), 0);
	ck_assert_msg((st.st_mode & 07777) == 0700, "'%s' has mode %04o", sim,
		      (unsigned int)(st.st_mode & 07777));
	free(err);
	free(fix);
	tu_rmtree(strdup(base));
}
END_TEST

/* Someone else's, open to others, or a link: refused, named. */
START_TEST(default_sim_dir_not_ours_is_refused)
{
	char base[] = "/tmp/ibvf-cache-XXXXXX", sim[256], *err;
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(sim, sizeof(sim), "%s/ibvf", base);
	ck_assert_int_eq(mkdir(sim, 0755), 0);
	snprintf(sim, sizeof(sim), "%s/ibvf/sim", base);
	char *fix = tu_mkfixture(healthy);
	switch (_i) {
	case 0: /* another user's */
		ck_assert_int_eq(rename(fix, sim), 0);
		ck_assert_int_eq(chmod(sim, 0700), 0);
		ck_assert_int_eq(chown(sim, 65534, 65534), 0);
		break;
	case 1: /* writable by others */
		ck_assert_int_eq(rename(fix, sim), 0);
		ck_assert_int_eq(chmod(sim, 0777), 0);
		break;
	default: /* a link to a tree elsewhere */
		ck_assert_int_eq(symlink(fix, sim), 0);
		break;
	}
	int rc = sim_default(base, &err);
	ck_assert_msg(rc != 0, "case %d: a simulated node in '%s' was used", _i, sim);
	ck_assert_msg(strstr(err, sim) && strchr(err, '\n') == strrchr(err, '\n'), "%s", err);
	free(err);
	if (_i == 2)
		tu_rmtree(fix);
	else
		free(fix);
	tu_rmtree(strdup(base));
}
END_TEST

/* Links planted inside the simulated node, to a file outside it: the
 * simulated kernel's writes (its event log, its lock) go nowhere near it. */
START_TEST(sim_writes_do_not_follow_planted_links)
{
	char *dir = fixture(true, 4), out[] = "/tmp/ibvf-outside-XXXXXX", p[4200], t[4200];
	ck_assert_ptr_nonnull(mkdtemp(out));
	snprintf(t, sizeof(t), "%s/events", out);
	tu_write(t, "keep\n");
	snprintf(p, sizeof(p), "%s/.sim/events", dir);
	unlink(p);
	ck_assert_int_eq(symlink(t, p), 0);
	snprintf(t, sizeof(t), "%s/lock", out);
	snprintf(p, sizeof(p), "%s/.sim/lock", dir);
	unlink(p);
	ck_assert_int_eq(symlink(t, p), 0);
	struct sys *s = open_sim(dir, NULL, NULL);
	struct err e = {""};
	write_v(s, VF("18", "00.0/sriov_numvfs"), "0", &e);
	sys_close(s);
	snprintf(t, sizeof(t), "%s/events", out);
	char *c = pu_slurp(t);
	ck_assert_str_eq(c, "keep\n");
	free(c);
	snprintf(t, sizeof(t), "%s/lock", out);
	ck_assert_msg(access(t, F_OK) < 0, "'%s' was made through a link in the node", t);
	tu_rmtree(strdup(out));
	tu_rmtree(dir);
}
END_TEST

/* A journal inside a tree that is not the node's own (a captured tree for
 * --root, a simulated node): its entry's file paths are that tree's data.
 * `journal undo` of an entry naming a file outside the tree writes nothing
 * there. */
START_TEST(journal_undo_writes_only_inside_the_tree)
{
	char *dir = tu_mkfixture(healthy), out[] = "/tmp/ibvf-outside-XXXXXX", p[4200], t[4200],
	     opt[4200], *o = NULL, *err = NULL;
	ck_assert_ptr_nonnull(mkdtemp(out));
	ck_assert_int_eq(chmod(out, 0755), 0);
	snprintf(t, sizeof(t), "%s/planted.conf", out);
	snprintf(p, sizeof(p), "%s/var/lib", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/var/lib/ibvf", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/var/lib/ibvf/journal.jsonl", dir);
	char *line;
	ck_assert_int_gt(asprintf(&line,
				  "{\"id\":1,\"action\":\"persist\",\"result\":\"ok\","
				  "\"changes\":[{\"kind\":\"file\",\"path\":\"%s\","
				  "\"old_content\":\"planted\\n\"}]}\n",
				  t),
			 0);
	tu_write(p, line);
	free(line);
	snprintf(opt, sizeof(opt), "--%s=%s", _i ? "sim" : "root", dir);
	const char *argv[] = {opt, "journal", "undo", "1", "--yes", NULL};
	int rc = tu_run(argv, &o, &err);
	ck_assert_msg(access(t, F_OK) < 0, "%s: undo wrote '%s' outside the tree (rc %d): %s", opt,
		      t, rc, o);
	ck_assert_int_ne(rc, 0);
	ck_assert_msg(strstr(err, t) && strstr(err, "outside"), "%s: refusal: %s", opt, err);
	free(o);
	free(err);
	tu_rmtree(strdup(out));
	tu_rmtree(dir);
}
END_TEST

/* A directory link planted in the node, to a directory outside it: the
 * simulator's mkdir -p and its links do not reach through it. */
START_TEST(sim_mkdirs_do_not_follow_planted_links)
{
	char *dir = fixture(true, 2), out[] = "/tmp/ibvf-outside-XXXXXX", p[4200], t[4200];
	ck_assert_ptr_nonnull(mkdtemp(out));
	snprintf(p, sizeof(p), "%s/var/planted", dir);
	ck_assert_int_eq(symlink(out, p), 0);
	struct err e = {""};
	sim_mkdirs(dir, "var/planted/made/here", &e);
	sim_symlink(dir, "var/planted/link", "sys/devices", &e);
	snprintf(t, sizeof(t), "%s/made", out);
	ck_assert_msg(access(t, F_OK) < 0, "'%s' was made through a link in the node", t);
	snprintf(t, sizeof(t), "%s/link", out);
	ck_assert_msg(access(t, F_OK) < 0, "'%s' was made through a link in the node", t);
	tu_rmtree(strdup(out));
	tu_rmtree(dir);
}
END_TEST

/* Root through sudo -E: the user's XDG_CONFIG_HOME is not root's. */
START_TEST(sudo_ignores_the_users_xdg)
{
	char base[] = "/tmp/ibvf-xdg-XXXXXX", p[600], found[700];
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(p, sizeof(p), "%s/ibvf/themes/users-own.theme", base);
	tu_put(base, "ibvf/themes/users-own.theme", "[colors]\nchanged = blue\n");
	setenv("XDG_CONFIG_HOME", base, 1);
	setenv("SUDO_USER", "nobody", 1);
	int r = theme_find("users-own", found, sizeof(found));
	unsetenv("SUDO_USER");
	ck_assert_msg(geteuid() != 0 || r == -ENOENT, "root under sudo found '%s'", found);
	ck_assert_int_eq(theme_find("users-own", found, sizeof(found)), 0); /* not under sudo */
	unsetenv("XDG_CONFIG_HOME");
	tu_rmtree(strdup(base));
}
END_TEST

/* Root without SUDO_USER (su without -, doas, pkexec) whose environment
 * names another user's directory: not used either. */
START_TEST(root_ignores_another_users_xdg)
{
	char base[] = "/tmp/ibvf-xdg-XXXXXX", found[700];
	ck_assert_ptr_nonnull(mkdtemp(base));
	tu_put(base, "ibvf/themes/users-own.theme", "[colors]\nchanged = blue\n");
	setenv("XDG_CONFIG_HOME", base, 1);
	unsetenv("SUDO_USER");
	ck_assert_int_eq(theme_find("users-own", found, sizeof(found)), 0); /* root's own */
	ck_assert_int_eq(chown(base, 65534, 65534), 0);
	int r = theme_find("users-own", found, sizeof(found));
	unsetenv("XDG_CONFIG_HOME");
	ck_assert_msg(geteuid() != 0 || r == -ENOENT, "root found another user's '%s'", found);
	tu_rmtree(strdup(base));
}
END_TEST

/* A FIFO where a theme file should be: refused at once, not waited on
 * (Check's timeout, scaled by CK_TIMEOUT_MULTIPLIER, catches a hang). */
START_TEST(theme_fifo_does_not_hang)
{
	char dir[] = "/tmp/ibvf-theme-XXXXXX", p[64], err[256];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/fifo.theme", dir);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	struct theme t;
	ck_assert_int_eq(theme_load_file(p, &t, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "not a regular file"), "%s", err);
	tu_rmtree(strdup(dir));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("planted");
	TCase *tc = tcase_create("planted");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, persist_tmp_link_is_not_followed);
	tcase_add_test(tc, default_sim_dir_is_private);
	tcase_add_test(tc, default_sim_dir_readable_by_others_is_made_private);
	tcase_add_loop_test(tc, default_sim_dir_not_ours_is_refused, 0, 3);
	tcase_add_test(tc, sim_writes_do_not_follow_planted_links);
	tcase_add_test(tc, sim_mkdirs_do_not_follow_planted_links);
	tcase_add_loop_test(tc, journal_undo_writes_only_inside_the_tree, 0, 2);
	tcase_add_test(tc, sudo_ignores_the_users_xdg);
	tcase_add_test(tc, root_ignores_another_users_xdg);
	tcase_add_test(tc, theme_fifo_does_not_hang);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
