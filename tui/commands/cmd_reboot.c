// SPDX-License-Identifier: MIT
/* `ibvf debug reboot [--seed N]` (and `mkfixture DIR --reboot`): a reboot of
 * the simulated node, to prove what `ibvf persist` wrote. The power cycle
 * (core/sim/sim_boot.c) leaves the node as the kernel gives it at boot; then
 * ibvf-sriov.service runs as systemd runs a oneshot unit: its ExecStart=
 * lines in order (core/persist/unit.c reads them where systemd would), the first
 * failing one stopping the unit unless it has the "-" prefix; each `ibvf`
 * line by executing this same binary on the simulated node, modprobe and
 * `udevadm settle` as no-ops (the driver is loaded; udev's .link files are
 * applied as each netdev appears). Then the kubelet runs the pods again
 * (core/sim/sim_kubelet.c). Every line is checked before the power cycle:
 * one the simulation cannot run is refused and the node is left as it was. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tui/base/cli.h"
#include "core/model/node.h"
#include "core/persist/persist.h"
#include "core/sim/sim_boot.h"
#include "core/sys/sys.h"
#include "core/persist/unit.h"
#include "tui/base/text.h"

#define OUTPUT_KEEP (16 << 10)

extern char **environ;

enum line_kind {
	LINE_IBVF,
	LINE_MODPROBE,
	LINE_SETTLE
};

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* What the simulated boot does with a line; -EINVAL (said) for one it
 * cannot run. */
static int line_kind(const struct unit_exec *x, enum line_kind *ret)
{
	const char *exe = base_of(x->argv[0]);
	if (!strcmp(exe, "ibvf")) {
		for (size_t i = 1; i < x->argc; i++)
			if (!strncmp(x->argv[i], "--sim", 5) || !strncmp(x->argv[i], "--root", 6)) {
				char esc[256];
				text_escape_into(esc, sizeof(esc), x->argv[i]);
				cli_error("'%s' line %u: '%s' in an ibvf line: the unit runs on "
					  "the node itself",
					  x->file, x->line, esc);
				return -EINVAL;
			}
		/* A boot unit creates VFs and sets them up; another command
		 * (mkfixture DIR, debug reboot) would write outside the node or
		 * boot it again from inside its own boot. */
		if (x->argc < 2 || strcmp(x->argv[1], "vf")) {
			char esc[256];
			text_escape_into(esc, sizeof(esc), x->argc < 2 ? "" : x->argv[1]);
			cli_error("'%s' line %u: 'ibvf %s' cannot run on the simulated node (its "
				  "ibvf lines are 'ibvf vf ...')",
				  x->file, x->line, esc);
			return -EINVAL;
		}
		*ret = LINE_IBVF;
		return 0;
	}
	if (!strcmp(exe, "modprobe")) {
		*ret = LINE_MODPROBE;
		return 0;
	}
	if (!strcmp(exe, "udevadm") && x->argc > 1 && !strcmp(x->argv[1], "settle")) {
		*ret = LINE_SETTLE;
		return 0;
	}
	char esc[256];
	text_escape_into(esc, sizeof(esc), x->argv[0]);
	cli_error("'%s' line %u: '%s' cannot run on the simulated node (it runs ibvf, modprobe "
		  "and 'udevadm settle' lines)",
		  x->file, x->line, esc);
	return -EINVAL;
}

/* The line as a shell would read it, safe for the terminal. */
static void line_text(const struct unit_exec *x, char *buf, size_t size)
{
	char joined[1024];
	text_shell_join(joined, sizeof(joined), (const char *const *)x->argv, x->argc);
	text_escape_into(buf, size, joined);
}

/* The last non-empty line of out, escaped. */
static void last_line(char *out, char *buf, size_t size)
{
	size_t len = strlen(out);
	while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
		out[--len] = '\0';
	char *nl = strrchr(out, '\n');
	text_escape_into(buf, size, nl ? nl + 1 : out);
}

int reboot_exec_ibvf(const char *dir, char *const *args, size_t n_args, char *why, size_t size)
{
	char sim[PATH_MAX + 8], *out = calloc(1, OUTPUT_KEEP + 1);
	char **argv = calloc(n_args + 3, sizeof(*argv));
	int pipefd[2] = {-1, -1}, status = -1;
	posix_spawn_file_actions_t fa;
	snprintf(why, size, "cannot run ibvf");
	if (!out || !argv || pipe2(pipefd, O_CLOEXEC) < 0) {
		snprintf(why, size, "cannot run ibvf: %s", strerror(errno));
		goto out;
	}
	snprintf(sim, sizeof(sim), "--sim=%s", dir);
	argv[0] = "ibvf";
	argv[1] = sim;
	for (size_t i = 0; i < n_args; i++)
		argv[i + 2] = args[i];
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	pid_t pid;
	int r = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (r != 0) {
		snprintf(why, size, "cannot run ibvf: %s", strerror(r));
		goto out;
	}
	size_t len = 0;
	char chunk[4096];
	for (ssize_t n; (n = read(pipefd[0], chunk, sizeof(chunk))) != 0;) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		/* keep the tail: the error is the last line */
		size_t add = (size_t)n > OUTPUT_KEEP ? OUTPUT_KEEP : (size_t)n;
		if (len + add > OUTPUT_KEEP) {
			memmove(out, out + (len + add - OUTPUT_KEEP), OUTPUT_KEEP - add);
			len = OUTPUT_KEEP - add;
		}
		memcpy(out + len, chunk + ((size_t)n - add), add);
		len += add;
	}
	out[len] = '\0';
	int ws = 0;
	pid_t w;
	while ((w = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
		;
	status = w == pid && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
	last_line(out, why, size);
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	free(argv);
	free(out);
	return status;
}

static void print_log(const char *who, struct sim_boot_log *log)
{
	char esc[512];
	for (size_t i = 0; i < log->n; i++) {
		text_escape_into(esc, sizeof(esc), log->notes[i]);
		printf("%s: %s\n", who, esc);
	}
	log->n = 0;
}

/* The unit's lines, in order, as systemd runs a oneshot: a line whose
 * program is not on the node fails as systemd's 203/EXEC does. 0, or 1 when
 * a line failed and stopped the unit. */
static int run_unit(struct sys *s, const char *dir, const struct unit *u,
		    const enum line_kind *kinds)
{
	char text[1024], why[512];
	for (size_t i = 0; i < u->n_execs; i++) {
		const struct unit_exec *x = &u->execs[i];
		line_text(x, text, sizeof(text));
		int ex = sys_exec_check(s, x->argv[0]);
		if (ex < 0) {
			char prog[256];
			text_escape_into(prog, sizeof(prog), x->argv[0]);
			snprintf(why, sizeof(why), "'%s' %s", prog,
				 ex == -ENOENT	 ? "is not on the node"
				 : ex == -EACCES ? "is not executable"
						 : "is not a program");
			if (x->ignore_failure) {
				printf("  line %u: %s: failed (203/EXEC), ignored ('-'): %s\n",
				       x->line, text, why);
				continue;
			}
			printf("  line %u: %s: failed (203/EXEC): %s\n", x->line, text, why);
			cli_error("%s failed at line %u (203/EXEC): %s; its %zu later line%s did "
				  "not run",
				  PERSIST_UNIT, x->line, why, u->n_execs - i - 1,
				  u->n_execs - i - 1 == 1 ? "" : "s");
			return 1;
		}
		if (kinds[i] == LINE_MODPROBE) {
			printf("  line %u: %s: simulated (the driver is loaded)\n", x->line, text);
			continue;
		}
		if (kinds[i] == LINE_SETTLE) {
			printf("  line %u: %s: simulated (udev applied the .link files as each "
			       "netdev appeared)\n",
			       x->line, text);
			continue;
		}
		int st = reboot_exec_ibvf(dir, x->argv + 1, x->argc - 1, why, sizeof(why));
		if (st == 0) {
			printf("  line %u: %s: ok\n", x->line, text);
			continue;
		}
		char how[32];
		snprintf(how, sizeof(how), st < 0 ? "killed" : "exit %d", st);
		if (x->ignore_failure) {
			printf("  line %u: %s: failed (%s), ignored ('-'): %s\n", x->line, text,
			       how, why);
			continue;
		}
		printf("  line %u: %s: failed (%s): %s\n", x->line, text, how, why);
		cli_error("%s failed at line %u (%s): %s; its %zu later line%s did not run",
			  PERSIST_UNIT, x->line, how, why, u->n_execs - i - 1,
			  u->n_execs - i - 1 == 1 ? "" : "s");
		return 1;
	}
	return 0;
}

int reboot_run(const struct cli *c, uint64_t seed, int64_t at_us)
{
	struct sys *s;
	struct unit u = {0};
	struct err e = {{0}};
	struct sim_boot_log log = {.n = 0};
	enum line_kind *kinds = NULL;
	char enabled_by[512] = "";
	int rc = EXIT_USAGE;
	if (cli_open(c, &s) < 0)
		return 1;
	if (unit_load(s, PERSIST_UNIT, &u, &e) < 0) {
		char esc[sizeof(e.msg)];
		text_escape_into(esc, sizeof(esc), e.msg); /* it quotes the unit's line */
		cli_error("%s", esc);
		goto out;
	}
	kinds = calloc(u.n_execs + 1, sizeof(*kinds));
	for (size_t i = 0; kinds && i < u.n_execs; i++)
		if (line_kind(&u.execs[i], &kinds[i]) < 0)
			goto out; /* refused before anything changed */
	rc = 1;
	if (!kinds) {
		cli_error("out of memory");
		goto out;
	}
	/* Whether systemd will start it: the node's own reading of the unit
	 * (the one `check` and the next-boot prediction use). */
	struct node *n = NULL;
	if (node_discover(s, &n, &e) < 0) {
		cli_error("%s", e.msg);
		goto out;
	}
	if (n->boot_unit.enabled_by) {
		text_escape_into(enabled_by, sizeof(enabled_by), n->boot_unit.enabled_by);
	}
	node_free(n);
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", sys_root(s));
	printf("reboot: the simulated node in %s (probe seed %llu)\n", dir,
	       (unsigned long long)seed);
	if (sim_boot_power_cycle(s, seed, at_us, &log, &e) < 0) {
		print_log("boot", &log);
		cli_error("%s", e.msg);
		goto out;
	}
	print_log("boot", &log);
	int unit_rc = 0;
	if (!u.path)
		printf("unit: no %s installed: nothing runs\n", PERSIST_UNIT);
	else if (u.masked)
		printf("unit: %s is masked: nothing runs\n", u.path);
	else if (!enabled_by[0])
		printf("unit: %s is not enabled (no .wants/ link): systemd does not start it\n",
		       u.path);
	else {
		printf("unit: %s (%zu ExecStart= lines), enabled by %s\n", u.path, u.n_execs,
		       enabled_by);
		unit_rc = run_unit(s, dir, &u, kinds);
	}
	if (sim_boot_kubelet(s, &log, &e) < 0) {
		print_log("kubelet", &log);
		cli_error("%s", e.msg);
		goto out;
	}
	print_log("kubelet", &log);
	rc = unit_rc;
out:
	free(kinds);
	unit_fini(&u);
	sys_close(s);
	return rc;
}

/* --seed N, else $IBVF_SIM_SEED (tests), else a random one. */
int reboot_seed(const char *arg, uint64_t *ret)
{
	const char *v = arg ? arg : getenv("IBVF_SIM_SEED");
	if (v && *v) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(v, &end, 10);
		if (errno || *end || *v == '-' || !(*v >= '0' && *v <= '9')) {
			cli_error("invalid seed '%s': a number from 0 to 18446744073709551615", v);
			return -EINVAL;
		}
		*ret = n;
		return 0;
	}
	if (getrandom(ret, sizeof(*ret), GRND_NONBLOCK) != sizeof(*ret))
		*ret = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^ (uint64_t)time(NULL);
	return 0;
}
