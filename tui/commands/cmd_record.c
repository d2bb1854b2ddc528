// SPDX-License-Identifier: MIT
/* `ibvf record`: follows the node with the console's events (uevents,
 * rtnetlink links, file watches on the kubelet's and CNI's state and
 * ibvf's own files, the kernel log) and records every change into the
 * history store (core/history/recorder.h), until SIGTERM or SIGINT. Run by
 * ibvf-record.service and by the DaemonSet. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "core/checks/checks.h"
#include "core/history/recorder.h"
#include "core/sys/sys.h"
#include "tui/base/cli.h"

enum {
	REC_O_ONCE = 1,
	REC_O_MAX_SIZE,
	REC_O_MAX_AGE,
	REC_O_VERBOSE,
};

const struct opt record_options[] = {
	{OPT_BOOL("once", 0, REC_O_ONCE,
		  "record what changed since the last record, then exit (no following)")},
	{OPT_ARG("max-size", 0, "SIZE", REC_O_MAX_SIZE,
		 "keep the store under SIZE (bytes, or with K, M, G; at least 256K; "
		 "default 64M): the oldest events go first")},
	{OPT_ARG("max-age", 0, "DAYS", REC_O_MAX_AGE,
		 "drop events older than DAYS (1..3650, default 180)")},
	{OPT_BOOL("verbose", 'v', REC_O_VERBOSE, "say how many events each change recorded")},
	{OPT_PARA("The store is /var/lib/ibvf/history.db (0640; under --sim/--root: their "
		  "tree's); one writer at a time (/run/ibvf/history.lock). When it cannot be "
		  "written (read-only, full, damaged, a newer ibvf's) the events are kept in "
		  "memory, said once, and moved there when it can be written again.\n"
		  "Exit 2: bad option; 1: another recorder runs, or the node cannot be "
		  "followed.")},
	{OPT_TABLE_END},
};

/* Batches settle this long after the first event: a burst is one refresh. */
#define SETTLE_SECS 0.05
/* The longest between two full rereads of a quiet node (ports change state
 * without an event), and their cost bound: one reread costs at most 1/400
 * of the time between two (0.25% of a CPU). */
#define REREAD_MIN_SECS 1.0
#define REREAD_COST_X	400

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_size(const char *v, int64_t *ret)
{
	char *end;
	long long n = strtoll(v, &end, 10);
	int64_t mult = 1;
	if (!strcmp(end, "K") || !strcmp(end, "k"))
		mult = 1 << 10;
	else if (!strcmp(end, "M"))
		mult = 1 << 20;
	else if (!strcmp(end, "G"))
		mult = 1 << 30;
	else if (*end)
		n = -1;
	if (end == v || n < 0 || n > (1ll << 40) / mult || n * mult < HIST_MIN_BYTES) {
		cli_error(
			"record: --max-size '%s': a size from 256K to 1T (bytes, or with K, M, G)",
			v);
		return -EINVAL;
	}
	*ret = n * mult;
	return 0;
}

/* The files whose change is a pod's or ibvf's: watched as directories. */
static const char *const watched[] = {
	"/var/lib/kubelet/device-plugins",
	"/var/lib/kubelet/pod-resources",
	"/var/lib/cni/multus",
	"/var/lib/cni/ib-sriov",
	"/var/lib/cni/sriov",
	"/var/lib/cni/networks",
	"/var/run/netns",
	"/run/netns",
	"/var/log/pods",
	"/var/lib/ibvf",
};

static int watch_files(struct sys *s)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0)
		return -1;
	const char *root = sys_root(s);
	for (size_t i = 0; i < sizeof(watched) / sizeof(*watched); i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s%s", strcmp(root, "/") ? root : "", watched[i]);
		/* A directory missing now is not watched: the periodic reread
		 * finds what appears there later. */
		inotify_add_watch(fd, path,
				  IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM |
					  IN_CLOSE_WRITE | IN_ONLYDIR);
	}
	return fd;
}

/* /dev/kmsg from its end: readable when the kernel logs (the real node). */
static int watch_kmsg(struct sys *s)
{
	if (sys_is_sim(s) || strcmp(sys_root(s), "/"))
		return -1;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static void drain(int fd, bool kmsg)
{
	char buf[8192];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		/* /dev/kmsg: EPIPE when records were overwritten; read on. */
		if (n < 0 && kmsg && errno == EPIPE)
			continue;
		if (n <= 0)
			return;
	}
}

/* Whether name is one of the store's files: the database, its WAL, its
 * shared memory or journal. */
static bool is_store_file(const char *name, const char *store)
{
	size_t len = strlen(store);
	return !strncmp(name, store, len) &&
	       (!name[len] || !strcmp(name + len, "-wal") || !strcmp(name + len, "-shm") ||
		!strcmp(name + len, "-journal"));
}

/* Reads the file watches' events: whether one is a change of the node's
 * files. The store's own files are not: every reader of the store (`ibvf
 * timeline`) closes its -wal and -shm written, and taking that for a change
 * would reread the node each time and stamp the next real change with the
 * reader's time, before that change happened. */
static bool files_changed(int fd, const char *store)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false;
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			if ((ev->mask & IN_Q_OVERFLOW) || !ev->len ||
			    !is_store_file(ev->name, store))
				changed = true;
			p += sizeof(*ev) + ev->len;
		}
	}
	return changed;
}

struct recording {
	struct sys *s;
	struct hist_recorder *rec;
	struct node *node;
	bool verbose;
	double cost; /* of the last reread and record, seconds */
};

static void say_note(struct recording *r)
{
	const char *note = hist_recorder_note(r->rec);
	if (note)
		cli_error("record: %s", note);
}

/* A new snapshot (where the events point, or all of the node) recorded. */
static int record_now(struct recording *r, const struct sys_event *ev, size_t n_ev, bool full)
{
	double t0 = mono_now();
	struct node *n;
	struct err e = {{0}};
	int rc = !full && r->node ? node_refresh(r->s, r->node, ev, n_ev, &n, &e)
				  : node_discover(r->s, &n, &e);
	if (rc < 0) {
		cli_error("record: %s", e.msg);
		return rc;
	}
	/* A change is stamped when the read that saw it ended: it happened
	 * before then, and an earlier stamp (the first event of the batch, or
	 * the read's start) can put it before a change made during the
	 * settling or the read itself, and before its own cause. */
	int64_t t_us = hist_now_us();
	struct findings fs = {0};
	checks_run(n, NULL, &fs);
	size_t events = 0;
	rc = hist_recorder_observe(r->rec, n, &fs, t_us, &events, &e);
	findings_fini(&fs);
	node_free(r->node);
	r->node = n;
	say_note(r);
	if (rc < 0) {
		cli_error("record: %s", e.msg);
		return rc;
	}
	if (r->verbose && events)
		fprintf(stderr, "ibvf: record: %zu event%s\n", events, events == 1 ? "" : "s");
	r->cost = mono_now() - t0;
	return 0;
}

static int follow(struct recording *r)
{
	int efd = sys_event_fd(r->s);
	if (efd < 0) {
		cli_error("record: cannot follow the node's changes: %s", strerror(-efd));
		return 1;
	}
	int ifd = watch_files(r->s), kfd = watch_kmsg(r->s);
	char path[PATH_MAX];
	hist_store_path(r->s, path);
	const char *store = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct sys_event *pend = calloc(NODE_REFRESH_EVENTS_MAX, sizeof(*pend));
	size_t n_pend = 0;
	bool lost = false;
	double due = 0, next_full = mono_now() + fmax(REREAD_MIN_SECS, REREAD_COST_X * r->cost);
	int rc = 0;
	while (!stop) {
		double now = mono_now();
		double until = due > 0 ? fmin(due, next_full) : next_full;
		struct pollfd p[3] = {{.fd = efd, .events = POLLIN},
				      {.fd = ifd, .events = POLLIN},
				      {.fd = kfd, .events = POLLIN}};
		int timeout = (int)ceil(fmax(0, until - now) * 1000.0);
		int pr = poll(p, 3, timeout);
		if (pr < 0 && errno != EINTR) {
			cli_error("record: cannot wait for node changes: %s", strerror(errno));
			rc = 1;
			break;
		}
		now = mono_now();
		bool any = false;
		if (pr > 0 && (p[0].revents & POLLIN)) {
			struct sys_event ev;
			int er;
			while ((er = sys_event_read(r->s, &ev)) != 0) {
				if (er < 0 || !pend || n_pend >= NODE_REFRESH_EVENTS_MAX) {
					lost = true;
					if (er < 0)
						break;
					continue;
				}
				pend[n_pend++] = ev;
			}
			any = true;
		}
		if (pr > 0 && (p[1].revents & POLLIN) && files_changed(ifd, store))
			any = true;
		if (pr > 0 && (p[2].revents & POLLIN)) {
			drain(kfd, true);
			any = true; /* the observation reads the kernel log whole */
		}
		if (any && due == 0)
			due = now + SETTLE_SECS;
		bool full = now >= next_full;
		if ((due > 0 && now >= due) || full) {
			/* A file or kernel-log change needs no full reread: a
			 * refresh reads every pod's files again, and the
			 * observation the kernel log, journal and bench history. */
			if (record_now(r, pend, n_pend, full || lost) < 0 && !r->node) {
				rc = 1;
				break;
			}
			n_pend = 0;
			lost = false;
			due = 0;
			next_full = mono_now() + fmax(REREAD_MIN_SECS, REREAD_COST_X * r->cost);
		}
	}
	free(pend);
	if (ifd >= 0)
		close(ifd);
	if (kfd >= 0)
		close(kfd);
	return rc;
}

int cmd_record(const struct cli *c, int argc, char **argv)
{
	struct opts o;
	if (opts_parse(cmd_find("record"), argc, argv, &o) < 0)
		return EXIT_USAGE;
	if (o.n_pos)
		return cli_bad_arg("record", o.pos[0]);
	struct hist_recorder_opts ro = {.hold_lock = true, .memory_fallback = true};
	bool once = false, verbose = false;
	const char *v;
	int id;
	while ((id = opts_next(&o, &v)) > 0) {
		switch (id) {
		case REC_O_ONCE:
			once = true;
			break;
		case REC_O_MAX_SIZE:
			if (parse_size(v, &ro.limits.max_bytes) < 0)
				return EXIT_USAGE;
			break;
		case REC_O_MAX_AGE: {
			char *end;
			long days = strtol(v, &end, 10);
			if (*end || end == v || days < 1 || days > 3650) {
				cli_error("record: --max-age '%s': a number of days from 1 to 3650",
					  v);
				return EXIT_USAGE;
			}
			ro.limits.max_age_us = (int64_t)days * 86400 * 1000000;
			break;
		}
		case REC_O_VERBOSE:
			verbose = true;
			break;
		}
	}
	/* --once records and leaves: a failing file is an error then. */
	ro.memory_fallback = !once;
	struct recording r = {.verbose = verbose};
	if (cli_open(c, &r.s) < 0)
		return 1;
	struct err e = {{0}};
	if (hist_recorder_open(r.s, &ro, &r.rec, &e) < 0) {
		cli_error("record: %s", e.msg);
		sys_close(r.s);
		return 1;
	}
	say_note(&r);
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	int rc = record_now(&r, NULL, 0, true) < 0 ? 1 : 0;
	if (rc == 0 && !once)
		rc = follow(&r);
	node_free(r.node);
	hist_recorder_close(r.rec);
	sys_close(r.s);
	return rc;
}
