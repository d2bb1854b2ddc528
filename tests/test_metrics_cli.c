// SPDX-License-Identifier: MIT
/* `ibvf metrics --textfile DIR --interval S`: a bad DIR or S is one line and
 * exit 2 with nothing written; DIR/ibvf.prom is replaced by a rename (a new
 * inode each round, mode 0644, no temporary left); --interval repeats until
 * SIGTERM (exit 0), and a round that fails says so in one line and leaves
 * the previous file. Waits are bounded polls, never fixed sleeps. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/err.h"
#include "core/base/safefile.h"
#include "testutil.h"

static char *node, tdir[PATH_MAX], prom[PATH_MAX + 16];

static void setup(void)
{
	node = tu_mkfixture(NULL);
	snprintf(tdir, sizeof(tdir), "%s-textfile", node);
	ck_assert_int_eq(mkdir(tdir, 0755), 0);
	snprintf(prom, sizeof(prom), "%s/ibvf.prom", tdir);
}

static void teardown(void)
{
	char *t = strdup(tdir);
	tu_rmtree(t);
	tu_rmtree(node);
}

static size_t lines(const char *s)
{
	size_t n = 0;
	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* Each bad invocation: exit 2, one line naming the thing, no file. */
START_TEST(bad_textfile_and_interval_refused)
{
	char file[PATH_MAX + 8], open_dir[PATH_MAX + 8];
	snprintf(file, sizeof(file), "%s/f", tdir);
	tu_write(file, "x");
	snprintf(open_dir, sizeof(open_dir), "%s/open", tdir);
	ck_assert_int_eq(mkdir(open_dir, 0755), 0);
	ck_assert_int_eq(chmod(open_dir, 0777), 0);
	const struct {
		const char *opt, *val, *says;
	} cases[] = {
		{"--interval", "0",
		 "invalid --interval '0': a whole number of seconds from 1 to 86400"},
		{"--interval", "86401", "invalid --interval '86401'"},
		{"--interval", "5s", "invalid --interval '5s'"},
		{"--interval", "-1", "invalid --interval '-1'"},
		{"--interval", "99999999999999999999", "invalid --interval '9999"},
		{"--textfile", "/nonexistent/ibvf", "no such directory"},
		{"--textfile", file, "not a directory"},
		{"--textfile", open_dir, "is writable by other users"},
		{"--textfile", "", "an empty directory name"},
		{"--interval", NULL, "option '--interval' needs a value"},
		{"--bogus", NULL, "unknown option '--bogus'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *out = NULL, *err = NULL;
		int st = tu_sim_run(node, &out, &err, "metrics", cases[i].opt, cases[i].val, NULL);
		ck_assert_msg(st == 2, "case %zu: exit %d", i, st);
		ck_assert_msg(err && strstr(err, cases[i].says), "case %zu: said '%s'", i, err);
		ck_assert_msg(lines(err) == 1, "case %zu: %zu lines", i, lines(err));
		ck_assert_msg(!out || !out[0], "case %zu: printed '%s'", i, out);
		free(out);
		free(err);
	}
	ck_assert_int_eq(access(prom, F_OK), -1);
}
END_TEST

static void only_the_file(void)
{
	DIR *d = opendir(tdir);
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		if (!strcmp(nm, ".") || !strcmp(nm, "..") || !strcmp(nm, "ibvf.prom") ||
		    !strcmp(nm, "f") || !strcmp(nm, "open"))
			continue;
		ck_abort_msg("left in the directory: '%s'", nm);
	}
	closedir(d);
}

/* ibvf --sim=NODE metrics, stdout on outfd (-1: the test's), stderr on
 * errfd; with interval, also --textfile TDIR --interval INTERVAL. */
static pid_t spawn(int outfd, int errfd, const char *interval)
{
	char *sim = tu_sim_arg(node);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if ((outfd >= 0 && dup2(outfd, 1) < 0) || dup2(errfd, 2) < 0)
			_exit(127);
		if (interval)
			execl(getenv("IBVF_BIN"), "ibvf", sim, "metrics", "--textfile", tdir,
			      "--interval", interval, (char *)NULL);
		else
			execl(getenv("IBVF_BIN"), "ibvf", sim, "metrics", (char *)NULL);
		_exit(127);
	}
	free(sim);
	return pid;
}

/* stdout that cannot take the text (a full disk: /dev/full): one line, exit
 * 1, not a silent 0 over a truncated file. */
START_TEST(stdout_write_error_said)
{
	char errpath[PATH_MAX + 8], err[4096];
	snprintf(errpath, sizeof(errpath), "%s.err", tdir);
	int errfd = open(errpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
	int full = open("/dev/full", O_WRONLY);
	ck_assert_int_ge(errfd, 0);
	ck_assert_int_ge(full, 0);
	pid_t pid = spawn(full, errfd, NULL);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ssize_t n = pread(errfd, err, sizeof(err) - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(full);
	close(errfd);
	unlink(errpath);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit %d, said '%s'",
		      WIFEXITED(st) ? WEXITSTATUS(st) : -1, err);
	ck_assert_msg(strstr(err, "cannot write the metrics to stdout: No space left on device") &&
			      lines(err) == 1,
		      "said '%s'", err);
}
END_TEST

/* --textfile=DIR and --interval=S, as the other commands take --opt=VALUE. */
START_TEST(option_equals_value)
{
	char opt[PATH_MAX + 16];
	snprintf(opt, sizeof(opt), "--textfile=%s", tdir);
	char *out = NULL, *err = NULL;
	int st = tu_sim_run(node, &out, &err, "metrics", opt, NULL);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	ck_assert_int_eq(access(prom, F_OK), 0);
	free(out);
	free(err);
	st = tu_sim_run(node, &out, &err, "metrics", "--interval=0", NULL);
	ck_assert_msg(st == 2 && strstr(err, "invalid --interval '0'"), "exit %d: %s", st, err);
	free(out);
	free(err);
}
END_TEST

/* In a container ibvf is pid 1 on every start: the temporaries of rounds
 * killed mid-write (SIGKILL) must not make later writes fail. Here this
 * process's own pid stands for it, with 100 leftovers of its. */
START_TEST(leftover_temporaries_do_not_block)
{
	char path[PATH_MAX + 64];
	for (int i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "%s/.ibvf.prom.%ld.%d.tmp", tdir, (long)getpid(), i);
		tu_write(path, "# killed\n");
	}
	struct err e = {{0}};
	int r = safefile_write(prom, "ibvf_up 1\n", 0644, &e);
	ck_assert_msg(r == 0, "safefile_write: %s", e.msg);
	ck_assert_int_eq(access(prom, F_OK), 0);
}
END_TEST

START_TEST(textfile_replaced_by_rename)
{
	char *out = NULL, *err = NULL;
	umask(077); /* the file's mode is 0644 whatever the umask */
	ck_assert_int_eq(tu_sim_run(node, &out, &err, "metrics", "--textfile", tdir, NULL), 0);
	ck_assert_msg(!out || !out[0], "printed '%s'", out);
	free(out);
	free(err);
	struct stat a, b;
	ck_assert_int_eq(stat(prom, &a), 0);
	ck_assert_int_eq(a.st_mode & 07777, 0644);
	int fd = open(prom, O_RDONLY); /* a reader holding the old file */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(tu_sim_run(node, NULL, NULL, "metrics", "--textfile", tdir, NULL), 0);
	ck_assert_int_eq(stat(prom, &b), 0);
	ck_assert_msg(a.st_ino != b.st_ino, "ibvf.prom written in place (inode %lu)",
		      (unsigned long)a.st_ino);
	struct stat held;
	ck_assert_int_eq(fstat(fd, &held), 0);
	ck_assert_int_eq(held.st_size, a.st_size); /* the old one whole */
	close(fd);
	only_the_file();
	char *text = NULL;
	FILE *f = fopen(prom, "r");
	size_t cap = 0;
	ck_assert_int_gt(getdelim(&text, &cap, '\0', f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "# TYPE ibvf_vf_info gauge\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nibvf_metrics_interval_seconds 0\n"));
	free(text);
}
END_TEST

/* Waits (bounded) until ibvf.prom exists with another inode than ino. */
static ino_t wait_new_file(ino_t ino, double bound_s)
{
	struct stat st;
	for (double end = tu_now_s() + bound_s; tu_now_s() < end;) {
		if (stat(prom, &st) == 0 && st.st_ino != ino)
			return st.st_ino;
		usleep(20000);
	}
	ck_abort_msg("no new %s within %.0f s", prom, bound_s);
	return 0;
}

START_TEST(interval_repeats_until_sigterm)
{
	char errpath[PATH_MAX + 8];
	snprintf(errpath, sizeof(errpath), "%s.err", tdir);
	int errfd = open(errpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(errfd, 0);
	pid_t pid = spawn(-1, errfd, "1");
	/* A round takes what one run takes: measured, not assumed. */
	double t0 = tu_now_s();
	ino_t first = wait_new_file(0, 60 * tu_time_scale());
	double round_s = tu_now_s() - t0;
	ino_t second = wait_new_file(first, (10 + 10 * round_s) * tu_time_scale());
	struct stat st;
	ck_assert_int_eq(stat(prom, &st), 0);
	char *text = NULL;
	size_t cap = 0;
	FILE *f = fopen(prom, "r");
	ck_assert_int_gt(getdelim(&text, &cap, '\0', f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "\nibvf_metrics_interval_seconds 1\n"));
	free(text);

	/* The node gone: the round fails, says so, the file stays. */
	char moved[PATH_MAX + 8];
	snprintf(moved, sizeof(moved), "%s.away", node);
	ck_assert_int_eq(rename(node, moved), 0);
	for (double end = tu_now_s() + (10 + 10 * round_s) * tu_time_scale();
	     lseek(errfd, 0, SEEK_END) == 0 && tu_now_s() < end;)
		usleep(20000);
	ck_assert_int_gt(lseek(errfd, 0, SEEK_END), 0);
	struct stat kept;
	ck_assert_int_eq(stat(prom, &kept), 0);
	ck_assert_int_eq(kept.st_ino, second);
	ck_assert_int_eq(rename(moved, node), 0);

	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
	char err[4096];
	ssize_t n = pread(errfd, err, sizeof(err) - 1, 0);
	close(errfd);
	unlink(errpath);
	ck_assert_int_gt(n, 0);
	err[n] = '\0';
	/* One line per failed round, naming what is wrong. */
	char *nl = strchr(err, '\n');
	ck_assert_ptr_nonnull(nl);
	ck_assert_msg(!strncmp(err, "ibvf: ", 6), "said '%s'", err);
	only_the_file();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("metrics_cli");
	TCase *tc = tcase_create("metrics_cli");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, bad_textfile_and_interval_refused);
	tcase_add_test(tc, textfile_replaced_by_rename);
	tcase_add_test(tc, interval_repeats_until_sigterm);
	tcase_add_test(tc, stdout_write_error_said);
	tcase_add_test(tc, option_equals_value);
	tcase_add_test(tc, leftover_temporaries_do_not_block);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
