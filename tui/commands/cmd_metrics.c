// SPDX-License-Identifier: MIT
/* `ibvf metrics`: the node as Prometheus text (metrics.h), on stdout or
 * written atomically to DIR/ibvf.prom for node_exporter's textfile
 * collector, once or every S seconds until SIGTERM or SIGINT. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/history.h"
#include "tui/base/cli.h"
#include "core/checks/checks.h"
#include "core/history/facts.h"
#include "core/history/recorder.h"
#include "core/model/node.h"
#include "core/base/safefile.h"
#include "core/sys/sys.h"
#include "tui/render/metrics.h"

#define METRICS_FILE	     "ibvf.prom"
#define METRICS_INTERVAL_MAX 86400

struct metrics_opts {
	char dir[PATH_MAX]; /* --textfile, absolute; "" for stdout */
	unsigned int interval;
};

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* DIR as an absolute path: it must exist, be a directory and be one ibvf
 * writes in (root's or the user's, writable by no one else). */
static int textfile_dir(const char *arg, char *buf, size_t size)
{
	char cwd[PATH_MAX];
	struct err e = {{0}};
	int fd, n;
	if (!arg[0]) {
		cli_error("invalid --textfile '': an empty directory name");
		return -EINVAL;
	}
	if (arg[0] == '/')
		n = snprintf(buf, size, "%s", arg);
	else if (getcwd(cwd, sizeof(cwd)))
		n = snprintf(buf, size, "%s/%s", cwd, arg);
	else
		n = -1;
	if (n < 0 || (size_t)n + 1 + sizeof(METRICS_FILE) > size) {
		cli_error("invalid --textfile '%s': path too long", arg);
		return -ENAMETOOLONG;
	}
	int r = safefile_dir(buf, false, &fd, &e);
	if (r == -ENOENT)
		cli_error("invalid --textfile '%s': no such directory", arg);
	else if (r == -ENOTDIR)
		cli_error("invalid --textfile '%s': not a directory", arg);
	else if (r < 0)
		cli_error("invalid --textfile '%s': %s", arg, e.msg);
	if (r < 0)
		return r;
	r = safefile_dir_trusted(fd, buf, &e);
	close(fd);
	if (r < 0)
		cli_error("invalid --textfile '%s': %s", arg, e.msg);
	return r;
}

static int parse_interval(const char *arg, unsigned int *ret)
{
	char *end;
	errno = 0;
	long v = arg[0] >= '0' && arg[0] <= '9' ? strtol(arg, &end, 10) : -1;
	if (v < 1 || v > METRICS_INTERVAL_MAX || errno || *end) {
		cli_error("invalid --interval '%s': a whole number of seconds from 1 to %d", arg,
			  METRICS_INTERVAL_MAX);
		return -EINVAL;
	}
	*ret = (unsigned int)v;
	return 0;
}

enum {
	METRICS_O_TEXTFILE = 1,
	METRICS_O_INTERVAL
};

const struct opt metrics_options[] = {
	{OPT_ARG("textfile", 0, "DIR", METRICS_O_TEXTFILE,
		 "write DIR/ibvf.prom (mode 0644) through a temporary file "
		 "and a rename, for node_exporter's textfile collector; "
		 "DIR must exist, root's or the user's, writable by no "
		 "one else")},
	{OPT_ARG("interval", 0, "SECONDS", METRICS_O_INTERVAL,
		 "again every SECONDS (1..86400), each round a fresh "
		 "discovery, until SIGTERM or SIGINT (exit 0); a round "
		 "that fails says why in one line and leaves the file")},
	{OPT_PARA("Exit 2: bad option; 1: the node or DIR could not be read or written.")},
	{OPT_TABLE_END},
};

static int parse(int argc, char **argv, struct metrics_opts *o)
{
	struct opts p;
	const char *v;
	int id, r = 0;
	if (opts_parse(cmd_find("metrics"), argc, argv, &p) < 0)
		return -EINVAL;
	while (r == 0 && (id = opts_next(&p, &v)))
		r = id == METRICS_O_TEXTFILE ? textfile_dir(v, o->dir, sizeof(o->dir))
					     : parse_interval(v, &o->interval);
	if (r == 0 && p.n_pos)
		r = cli_bad_arg("metrics", p.pos[0]) ? -EINVAL : 0;
	return r;
}

/* What the recorded history gives a round: the checks' facts since the
 * current boot, and the counts of renames [0] and port state changes [1]. */
struct past {
	struct checks_opts opts;
	struct metrics_count *v[2];
	size_t n[2], cap[2];
	size_t kind; /* the list hist_store_sums() fills */
	bool failed;
};

static void count_one(void *arg, const char *bdf, const char *pf, int64_t sum)
{
	struct past *p = arg;
	size_t k = p->kind;
	if (p->failed)
		return;
	if (p->n[k] == p->cap[k]) {
		size_t cap = p->cap[k] ? p->cap[k] * 2 : 64;
		void *v = realloc(p->v[k], cap * sizeof(*p->v[k]));
		if (!v) {
			p->failed = true;
			return;
		}
		p->v[k] = v;
		p->cap[k] = cap;
	}
	struct metrics_count *c = &p->v[k][p->n[k]++];
	snprintf(c->pci, sizeof(c->pci), "%s", bdf);
	snprintf(c->pf, sizeof(c->pf), "%s", pf);
	c->n = sum;
}

static void past_fini(struct past *p)
{
	hist_facts_free(&p->opts);
	free(p->v[0]);
	free(p->v[1]);
}

/* The store read once for the round: no store is no history; one that
 * cannot be read is one line, and the round goes on without it. */
static void read_past(struct sys *s, struct past *p, struct metrics_past *ret)
{
	static const enum hist_kind kinds[2] = {HK_RENAME, HK_PORT_STATE};
	char path[PATH_MAX], boot[HIST_BOOT_MAX];
	struct hist_store *st;
	struct err e = {{0}};
	int64_t since = 0;
	hist_store_path(s, path);
	int r = hist_store_open(path, false, &st, &e);
	if (r == -ENOENT)
		return;
	if (r == 0) {
		hist_boot_id(s, boot);
		r = hist_facts_boot_start(st, boot, hist_boot_wall_us(s), &since, &e);
		if (r == 0)
			r = hist_facts_read(st, since, &p->opts, &e);
		for (p->kind = 0; r == 0 && p->kind < 2; p->kind++)
			r = hist_store_sums(st, kinds[p->kind], 0, count_one, p, &e);
		if (r == 0 && p->failed)
			r = err_setx(&e, ENOMEM, "out of memory reading the history store");
		hist_store_close(st);
	}
	if (r < 0) {
		cli_error("history: %s", e.msg);
		hist_facts_free(&p->opts);
		p->n[0] = p->n[1] = 0;
		return;
	}
	*ret = (struct metrics_past){.read = true,
				     .renames = p->v[0],
				     .n_renames = p->n[0],
				     .port_changes = p->v[1],
				     .n_port_changes = p->n[1]};
}

/* One round: the node discovered afresh, its checks and the history, as
 * text in *ret (malloc'd). 0, or -errno (said). */
static int render(const struct cli *c, const struct metrics_opts *o, char **ret)
{
	struct sys *s;
	struct node *n = NULL;
	struct findings fs = {0};
	struct metrics_in in = {.interval = o->interval};
	struct past past = {0};
	struct err e = {{0}};
	double t0 = clock_s(CLOCK_MONOTONIC);
	char path[PATH_MAX], *buf = NULL;
	size_t len = 0;
	int r = cli_open(c, &s);
	if (r < 0)
		return r;
	if ((r = node_discover(s, &n, &e)) < 0) {
		cli_error("%s", e.msg);
		goto out;
	}
	read_past(s, &past, &in.past);
	if ((r = checks_run(n, &past.opts, &fs)) < 0) {
		cli_error("cannot run the checks: %s", strerror(-r));
		goto out;
	}
	bench_history_path(sys_root(s), path, sizeof(path));
	struct bench_history_stats hs;
	if (bench_history_read(path, &in.history, &hs, &e) < 0) {
		cli_error("warning: no validation results: %s", e.msg);
		in.history = NULL;
	}
	in.history_skipped = hs.skipped;
	in.history_unread = hs.unread;
	if (hs.unread)
		cli_error("warning: the bench history '%s' is past the %u-byte read bound: its "
			  "first %" PRIu64 " bytes were not read",
			  path, BENCH_HISTORY_READ_MAX, hs.unread);
	in.node = n;
	in.findings = &fs;
	in.duration = clock_s(CLOCK_MONOTONIC) - t0;
	in.now = clock_s(CLOCK_REALTIME);
	FILE *f = open_memstream(&buf, &len);
	r = f ? metrics_write(f, &in) : -ENOMEM;
	if (f && fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0) {
		cli_error("cannot render the metrics: %s", strerror(-r));
		free(buf);
		buf = NULL;
	}
	*ret = buf;
	json_object_put(in.history);
out:
	past_fini(&past);
	findings_fini(&fs);
	node_free(n);
	sys_close(s);
	return r;
}

static int round_once(const struct cli *c, const struct metrics_opts *o)
{
	char *text = NULL, path[PATH_MAX + sizeof(METRICS_FILE) + 1];
	struct err e = {{0}};
	int r = render(c, o, &text);
	if (r < 0)
		return r;
	if (!o->dir[0]) {
		/* A full disk under `ibvf metrics >f` is said, not a silent 0. */
		errno = 0;
		bool bad = fputs(text, stdout) == EOF;
		bad |= fflush(stdout) != 0;
		bad |= ferror(stdout) != 0;
		r = bad ? -(errno ? errno : EIO) : 0;
		if (r < 0)
			cli_error("cannot write the metrics to stdout: %s", strerror(-r));
	} else {
		snprintf(path, sizeof(path), "%s/%s", o->dir, METRICS_FILE);
		if ((r = safefile_write(path, text, 0644, &e)) < 0)
			cli_error("%s", e.msg);
	}
	free(text);
	return r;
}

int cmd_metrics(const struct cli *c, int argc, char **argv)
{
	struct metrics_opts o = {.interval = 0};
	if (parse(argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (!o.interval)
		return round_once(c, &o) < 0 ? 1 : 0;
	/* Between rounds the signals are waited for, not handled. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	double next = clock_s(CLOCK_MONOTONIC);
	for (;;) {
		/* A failed round has said why in one line; the file stays. */
		round_once(c, &o);
		next += o.interval;
		double now = clock_s(CLOCK_MONOTONIC);
		if (next < now) /* a round longer than the interval: the next at once */
			next = now;
		while (now < next) {
			double wait = next - now;
			struct timespec ts = {(time_t)wait,
					      (long)((wait - (double)(time_t)wait) * 1e9)};
			int sig = sigtimedwait(&set, NULL, &ts);
			if (sig == SIGTERM || sig == SIGINT)
				return 0;
			now = clock_s(CLOCK_MONOTONIC);
		}
	}
}
