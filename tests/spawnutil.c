// SPDX-License-Identifier: MIT
#include "spawnutil.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

void bg_start(struct bg *b, const char *dir, ...)
{
	const char *argv[24];
	char *sim = tu_sim_arg(dir);
	size_t n = 0;
	argv[n++] = getenv("IBVF_BIN");
	ck_assert_ptr_nonnull(argv[0]);
	argv[n++] = sim;
	va_list ap;
	va_start(ap, dir);
	while (n < 23 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	snprintf(b->out, sizeof(b->out), "/tmp/ibvf-bg-out-XXXXXX");
	snprintf(b->err, sizeof(b->err), "/tmp/ibvf-bg-err-XXXXXX");
	int o = mkstemp(b->out), e = mkstemp(b->err);
	ck_assert(o >= 0 && e >= 0);
	b->pid = fork();
	ck_assert_int_ge(b->pid, 0);
	if (b->pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(o);
	close(e);
	free(sim);
}

static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int bg_wait(struct bg *b)
{
	int st;
	if (b->pid <= 0)
		return b->pid == 0 ? -1 : -b->pid - 1000;
	while (waitpid(b->pid, &st, 0) < 0)
		ck_assert_int_eq(errno, EINTR);
	b->pid = -1000 - status_of(st); /* remembered for a second call */
	return status_of(st);
}

bool bg_exited(struct bg *b, int *ret_status)
{
	int st;
	if (b->pid < 0) {
		*ret_status = -b->pid - 1000;
		return true;
	}
	if (waitpid(b->pid, &st, WNOHANG) != b->pid)
		return false;
	*ret_status = status_of(st);
	b->pid = -1000 - *ret_status;
	return true;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(m);
	fclose(f);
	return buf;
}

char *bg_err(const struct bg *b)
{
	return slurp(b->err);
}

char *bg_out(const struct bg *b)
{
	return slurp(b->out);
}

void bg_free(struct bg *b)
{
	if (b->pid > 0) {
		kill(b->pid, SIGKILL);
		bg_wait(b);
	}
	unlink(b->out);
	unlink(b->err);
}

bool poll_until(bool (*cond)(void *arg), void *arg, double seconds)
{
	struct timespec ts = {0, 10 * 1000000L};
	for (long i = 0; i < (long)(seconds * 100); i++) {
		if (cond(arg))
			return true;
		nanosleep(&ts, NULL);
	}
	return cond(arg);
}

void hold(const char *dir, bool on)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/.sim/hold", dir);
	if (on)
		tu_write(p, "");
	else
		ck_assert_int_eq(unlink(p), 0);
}

bool fn_bound(const char *dir, const char *bdf)
{
	char p[4096];
	struct stat st;
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s/driver", dir, bdf);
	return lstat(p, &st) == 0;
}
