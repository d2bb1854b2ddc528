// SPDX-License-Identifier: MIT
/* Two ibvf at once on one node: one lock (DIR/run/ibvf/lock under --sim)
 * covers the re-check, the steps and the verify of every action. The
 * second waits, saying for whom, then re-checks: the node already is as it
 * asked, or it applies cleanly; never EBUSY, never a node that disagrees.
 * With --no-wait it fails at once in one line. The sim's hold fault keeps
 * the first one inside its steps for as long as the test needs. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/model/node.h"
#include "testutil.h"

#include "actionsutil.h"
#include "spawnutil.h"

struct says {
	struct bg *b;
	const char *what;
};

static bool err_says(void *arg)
{
	const struct says *s = arg;
	char *e = bg_err(s->b);
	bool yes = strstr(e, s->what) != NULL;
	free(e);
	return yes;
}

static bool numvfs_is_zero(void *arg)
{
	char p[4096], buf[16] = "";
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/0000:18:00.0/sriov_numvfs",
		 (const char *)arg);
	FILE *f = fopen(p, "re");
	if (!f)
		return false;
	bool zero = fgets(buf, sizeof(buf), f) && atoi(buf) == 0;
	fclose(f);
	return zero;
}

static bool exited(void *arg)
{
	int st;
	return bg_exited(arg, &st);
}

/* A is held in its first numvfs write (0, inside the lock); B starts then. */
static void start_two(const char *dir, struct bg *a, struct bg *b, const char *b_opt)
{
	arm_fault(dir, "hold:sriov_numvfs\n");
	hold(dir, true);
	bg_start(a, dir, "vf", "create", "0000:18:00.0", "4", "--yes", NULL);
	/* The write of 0 is held before it lands: wait until A is in it, seen
	 * by A holding the lock file's pid. */
	char lock[4096];
	snprintf(lock, sizeof(lock), "%s/run/ibvf/lock", dir);
	for (int i = 0; i < 2000; i++) {
		int fd = open(lock, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			int busy = flock(fd, LOCK_SH | LOCK_NB);
			close(fd);
			if (busy < 0)
				break;
		}
		usleep(10 * 1000);
	}
	bg_start(b, dir, "vf", "create", "0000:18:00.0", "4", "--yes", b_opt, NULL);
}

START_TEST(second_create_waits_then_finds_it_done)
{
	char *dir = tu_mkfixture(NULL), want[96];
	struct bg a, b;
	start_two(dir, &a, &b, NULL);
	snprintf(want, sizeof(want), "waiting for another ibvf (pid %d) holding ", (int)a.pid);
	struct says s = {&b, want};
	bool waited = poll_until(err_says, &s, 30);
	hold(dir, false);
	int ra = bg_wait(&a), rb = bg_wait(&b);
	char *ea = bg_err(&a), *eb = bg_err(&b), *ob = bg_out(&b);
	ck_assert_msg(ra == 0, "A: rc %d: %s", ra, ea);
	ck_assert_msg(rb == 0, "B: rc %d: %s", rb, eb);
	ck_assert_msg(waited, "B never said it waits: %s", eb);
	ck_assert_msg(strstr(ob, "nothing to do"), "B: %s", ob);
	struct node *n = discover(dir);
	const struct pf *pf = node_find_pf(n, "0000:18:00.0");
	ck_assert(pf->numvfs.known && pf->numvfs.v == 4 && pf->n_vfs == 4);
	node_free(n);
	free(ea);
	free(eb);
	free(ob);
	bg_free(&a);
	bg_free(&b);
	tu_rmtree(dir);
}
END_TEST

START_TEST(no_wait_fails_at_once_in_one_line)
{
	char *dir = tu_mkfixture(NULL), want[96];
	struct bg a, b;
	start_two(dir, &a, &b, "--no-wait");
	/* B ends while A is still held: it did not wait. */
	bool quick = poll_until(exited, &b, 30);
	ck_assert(numvfs_is_zero(dir) == false); /* A's write of 0 has not landed */
	int a_pid = (int)a.pid;
	hold(dir, false);
	int ra = bg_wait(&a), rb = bg_wait(&b);
	char *eb = bg_err(&b), *ob = bg_out(&b);
	ck_assert_msg(quick, "B waited: %s", eb);
	ck_assert_int_eq(ra, 0);
	ck_assert_msg(rb == 1, "B: rc %d: %s", rb, eb);
	snprintf(want, sizeof(want), "another ibvf (pid %d) holds ", a_pid);
	ck_assert_msg(strstr(eb, want) && strstr(eb, "/run/ibvf/lock"), "%s", eb);
	ck_assert_msg(strstr(eb, "nothing was changed"), "%s", eb);
	ck_assert_msg(strchr(eb, '\n') == eb + strlen(eb) - 1, "not one line: %s", eb);
	free(eb);
	free(ob);
	bg_free(&a);
	bg_free(&b);
	tu_rmtree(dir);
}
END_TEST

/* DIR/run/ibvf/lock, held by the test process: its fd. */
static int hold_lock(const char *dir)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/run", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/run/ibvf", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/run/ibvf/lock", dir);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	return fd;
}

/* The command (argv, NULL-terminated) fails at once, naming the lock, the
 * node untouched. */
static void assert_locked_out(const char *dir, const char *const *a)
{
	char *before = tree_digest(dir), *out, *err;
	int rc = tu_sim_run(dir, &out, &err, a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
	ck_assert_msg(rc != 0 && strstr(err, "holds ") && strstr(err, "/run/ibvf/lock"),
		      "%s %s: rc %d: %s", a[0], a[1], rc, err);
	char *after = tree_digest(dir);
	ck_assert_msg(!strcmp(before, after), "%s %s changed the node", a[0], a[1]);
	free(before);
	free(after);
	free(out);
	free(err);
}

/* Every command that changes the node takes the lock: held by the test,
 * each of them fails with --no-wait, the node untouched. */
START_TEST(every_action_takes_the_lock)
{
	char *dir = tu_mkfixture(NULL), *out, *err;
	ck_assert_int_eq(
		tu_sim_run(dir, &out, &err, "vf", "rename", "0000:18:00.4", "x0", "--yes", NULL),
		0);
	free(out);
	free(err);
	int fd = hold_lock(dir);
	const char *const cmds[][8] = {
		{"vf", "create", "0000:18:00.0", "2", "--yes", "--no-wait"},
		{"vf", "rename", "0000:18:00.5", "x1", "--yes", "--no-wait"},
		{"vf", "state", "0000:18:00.5", "enable", "--yes", "--no-wait"},
		{"journal", "undo", "1", "--yes", "--force", "--no-wait"},
		{"check", "--fix", "guid-zero", "--yes", "--no-wait"},
	};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(*cmds); i++)
		assert_locked_out(dir, cmds[i]);
	close(fd);
	tu_rmtree(dir);

	/* persist, on a node it would persist */
	dir = tu_mkfixture((const char *const[]){"--healthy", NULL});
	const char *bin = "/usr/sbin/ibvf"; /* the node's (a stand-in): persist checks it */
	tu_put(dir, "etc/systemd/system/ibvf-sriov.service", "# an older unit\n");
	fd = hold_lock(dir);
	assert_locked_out(dir, (const char *const[]){"persist", "--ibvf", bin, "--yes", "--no-wait",
						     NULL, NULL});
	close(fd);
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("lock");
	TCase *tc = tcase_create("sim");
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, second_create_waits_then_finds_it_done);
	tcase_add_test(tc, no_wait_fails_at_once_in_one_line);
	tcase_add_test(tc, every_action_takes_the_lock);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
