// SPDX-License-Identifier: MIT
#include "testutil.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <sched.h>
#include <sys/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ibvf_bin(void)
{
	const char *b = getenv("IBVF_BIN");
	ck_assert_msg(b && *b, "IBVF_BIN is not set");
	return b;
}

static char *slurp_fd(int fd)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	ck_assert_ptr_nonnull(buf);
	for (;;) {
		if (len + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

int tu_run(const char *const *argv, char **ret_out, char **ret_err)
{
	size_t argc = 0;
	while (argv[argc])
		argc++;
	const char **full = calloc(argc + 2, sizeof(*full));
	ck_assert_ptr_nonnull(full);
	full[0] = ibvf_bin();
	memcpy(full + 1, argv, argc * sizeof(*full));

	char outpath[] = "/tmp/ibvf-test-out-XXXXXX", errpath[] = "/tmp/ibvf-test-err-XXXXXX";
	int outfd = mkstemp(outpath), errfd = mkstemp(errpath);
	ck_assert_int_ge(outfd, 0);
	ck_assert_int_ge(errfd, 0);
	unlink(outpath);
	unlink(errpath);

	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(outfd, 1);
		dup2(errfd, 2);
		execv(full[0], (char *const *)full);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	free(full);
	lseek(outfd, 0, SEEK_SET);
	lseek(errfd, 0, SEEK_SET);
	char *out = slurp_fd(outfd), *err = slurp_fd(errfd);
	close(outfd);
	close(errfd);
	if (ret_out)
		*ret_out = out;
	else
		free(out);
	if (ret_err)
		*ret_err = err;
	else
		free(err);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

char *tu_mkfixture(const char *const *args)
{
	char tmpl[] = "/tmp/ibvf-fixture-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	char *dir = strdup(tmpl);
	ck_assert_ptr_nonnull(dir);

	const char *argv[32] = {"mkfixture", dir};
	size_t n = 2;
	for (size_t i = 0; args && args[i]; i++) {
		ck_assert_uint_lt(n, 31);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	char *err = NULL;
	int rc = tu_run(argv, NULL, &err);
	ck_assert_msg(rc == 0, "ibvf mkfixture failed (%d): %s", rc, err);
	free(err);
	return dir;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tu_rmtree(char *dir)
{
	if (!dir)
		return;
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

void tu_write(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "cannot write '%s'", path);
	fputs(content, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* Runs `ibvf --sim=DIR ARGS...` (NULL-terminated); returns the exit status. */
char *tu_sim_arg(const char *dir)
{
	char *a;
	ck_assert_int_gt(asprintf(&a, "--sim=%s", dir), 0);
	return a;
}

int tu_sim_run(const char *dir, char **ret_out, char **ret_err, ...)
{
	const char *argv[32];
	char sim[4096];
	size_t n = 0;
	va_list ap;
	snprintf(sim, sizeof(sim), "--sim=%s", dir);
	argv[n++] = sim;
	va_start(ap, ret_err);
	for (const char *a; (a = va_arg(ap, const char *)) && n < 31;)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	return tu_run(argv, ret_out, ret_err);
}

int tu_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void tu_put(const char *dir, const char *rel, const char *content)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *c = p + strlen(dir) + 1; (c = strchr(c, '/')); c++) {
		*c = '\0';
		mkdir(p, 0755);
		*c = '/';
	}
	tu_write(p, content);
}

/* The words a POSIX shell makes of line, each as <word>: what a person who
 * pastes the line runs. */
char *tu_shell_words(const char *shell, const char *line)
{
	char *script, *out = NULL;
	ck_assert_int_gt(asprintf(&script, "printf '<%%s>' %s", line), 0);
	int fd[2];
	ck_assert_int_eq(pipe(fd), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		execl(shell, shell, "-c", script, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 256 > cap && !(out = realloc(out, cap = cap * 2 + 512)))
			ck_abort_msg("out of memory");
		ssize_t r = read(fd[0], out + len, cap - len - 1);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	out[len] = '\0';
	close(fd[0]);
	waitpid(pid, NULL, 0);
	free(script);
	return out;
}

int tu_private_net_and_run(void)
{
	if (unshare(CLONE_NEWNET | CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("sysfs", "/sys", "sysfs", 0, NULL) < 0 ||
	    mount("tmpfs", "/run", "tmpfs", 0, NULL) < 0)
		return -1;
	return 0;
}

double tu_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double tu_time_scale(void)
{
	const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
	return m && atof(m) > 1 ? atof(m) : 1;
}
