// SPDX-License-Identifier: MIT
/* The console: one poll loop over the terminal, the node's change events and
 * a timer; the snapshot is rebuilt on change and diffed against the last. */
#include "console.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/bench/bench_cli.h"
#include "tui/base/cli.h"
#include "console_int.h"
#include "screen.h"
#include "core/sys/sys.h"

#define REFRESH_MIN_SECS 10.0 /* re-read the node for changes that raise no event */
#define DEBOUNCE_SECS	 0.05

double console_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void *console_grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	size_t nc = *cap ? *cap * 2 : 16;
	void *np = realloc(p, nc * size);
	if (np)
		*cap = nc;
	return np;
}

bool console_is_changed(const struct console *c, const char *bdf, enum snap_field f)
{
	for (size_t i = 0; i < c->n_hl; i++)
		if (c->hl[i].field == f && !strcmp(c->hl[i].bdf, bdf))
			return true;
	return false;
}

void console_tree_update(struct console *c)
{
	struct tree_input in = {
		.node = c->node,
		.ghosts = c->ghosts,
		.n_ghosts = c->n_ghosts,
		.collapsed = (const char(*)[16])c->collapsed,
		.n_collapsed = c->n_collapsed,
		.filter = c->tl.filter,
	};
	if (tree_build(&in, &c->tree) < 0)
		screen_message(c, TR_ERROR, "out of memory while building the tree");
	long row = c->sel[0] ? tree_find(&c->tree, c->sel) : -1;
	listw_set_rows(&c->tl, (long)c->tree.n);
	listw_select(&c->tl, row >= 0 ? row : c->tl.sel);
	if (c->tree.n)
		snprintf(c->sel, sizeof(c->sel), "%s", c->tree.rows[c->tl.sel].bdf);
	c->dirty = true;
}

static void ghost_add(struct console *c, const struct node *old, const struct snap_change *ch)
{
	struct ghost *g = console_grow(c->ghosts, &c->cap_ghosts, c->n_ghosts, sizeof(*g));
	if (!g)
		return;
	c->ghosts = g;
	g = &c->ghosts[c->n_ghosts++];
	memset(g, 0, sizeof(*g));
	snprintf(g->bdf, sizeof(g->bdf), "%s", ch->bdf);
	snprintf(g->pf_bdf, sizeof(g->pf_bdf), "%s", ch->pf_bdf);
	g->vf = ch->vf;
	g->gone_at = console_now();
	g->gone_wall = time(NULL);
	const struct fn *f = NULL;
	if (ch->vf < 0) {
		const struct pf *pf = node_find_pf(old, ch->bdf);
		f = pf ? &pf->fn : NULL;
	} else {
		const struct vf *vf = node_find_vf(old, ch->pf_bdf, (unsigned)ch->vf);
		f = vf ? &vf->fn : NULL;
	}
	if (f && f->n_netdevs && f->netdevs[0].name)
		snprintf(g->netdev, sizeof(g->netdev), "%s", f->netdevs[0].name);
	if (f && f->n_rdmas && f->rdmas[0].name)
		snprintf(g->ibdev, sizeof(g->ibdev), "%s", f->rdmas[0].name);
	/* A function often loses its names before it goes: show the last ones. */
	for (size_t i = c->n_names; i-- > 0;) {
		const struct console_rename *n = &c->names[i];
		char *dst = n->ibdev ? g->ibdev : g->netdev;
		if (!strcmp(n->bdf, g->bdf) && !dst[0] && !n->new[0])
			snprintf(dst, sizeof(g->netdev), "%s", n->old);
	}
}

static void ghost_drop(struct console *c, const char *bdf)
{
	for (size_t i = 0; i < c->n_ghosts; i++)
		if (!strcmp(c->ghosts[i].bdf, bdf)) {
			c->ghosts[i] = c->ghosts[--c->n_ghosts];
			return;
		}
}

static void highlight_add(struct console *c, const char *bdf, enum snap_field f, double until)
{
	for (size_t i = 0; i < c->n_hl; i++)
		if (c->hl[i].field == f && !strcmp(c->hl[i].bdf, bdf)) {
			c->hl[i].until = until;
			return;
		}
	struct highlight *h = console_grow(c->hl, &c->cap_hl, c->n_hl, sizeof(*h));
	if (!h)
		return;
	c->hl = h;
	h = &c->hl[c->n_hl++];
	snprintf(h->bdf, sizeof(h->bdf), "%s", bdf);
	h->field = f;
	h->until = until;
}

/* Keeps the newest CONSOLE_RENAMES_MAX. */
static void name_add(struct console *c, const struct snap_change *ch)
{
	if (c->n_names == CONSOLE_RENAMES_MAX)
		memmove(&c->names[0], &c->names[1], --c->n_names * sizeof(c->names[0]));
	struct console_rename *n = console_grow(c->names, &c->cap_names, c->n_names, sizeof(*n));
	if (!n)
		return;
	c->names = n;
	n = &c->names[c->n_names++];
	snprintf(n->bdf, sizeof(n->bdf), "%s", ch->bdf);
	n->ibdev = ch->field == SNAP_IBDEV;
	snprintf(n->old, sizeof(n->old), "%s", ch->old);
	snprintf(n->new, sizeof(n->new), "%s", ch->new);
	n->at = time(NULL);
}

/* Folds a diff into the console: ghosts, names, highlights. */
static void console_apply_diff(struct console *c, const struct node *old, const struct snap_diff *d)
{
	double until = console_now() + HIGHLIGHT_SECS;
	for (size_t i = 0; i < d->n; i++) {
		const struct snap_change *ch = &d->changes[i];
		if (ch->field == SNAP_PRESENT && !ch->new[0]) {
			ghost_add(c, old, ch);
			continue;
		}
		if (ch->field == SNAP_PRESENT)
			ghost_drop(c, ch->bdf);
		if ((ch->field == SNAP_NETDEV || ch->field == SNAP_IBDEV) && ch->old[0])
			name_add(c, ch);
		highlight_add(c, ch->bdf, ch->field, until);
	}
}

/* Reads every pending event; returns whether there was any. */
bool console_pending_read(struct console *c, struct console_pending *p)
{
	bool any = false;
	for (;;) {
		struct sys_event ev;
		int r = sys_event_read(c->sys, &ev);
		if (r < 0) /* -ENOBUFS: the kernel dropped some */
			p->lost = any = true;
		if (r <= 0)
			return any;
		any = true;
		if (!p->v && !(p->v = calloc(NODE_REFRESH_EVENTS_MAX, sizeof(*p->v))))
			p->lost = true;
		if (p->lost || p->n >= NODE_REFRESH_EVENTS_MAX)
			p->lost = true;
		else
			p->v[p->n++] = ev;
	}
}

/* A new snapshot, diffed against the current one: read again where the
 * events point (all of the node when p is NULL or lost events). */
int console_update(struct console *c, struct console_pending *p)
{
	struct node *n;
	struct err e = {{0}};
	double t0 = console_now();
	int r = p && !p->lost ? node_refresh(c->sys, c->node, p->v, p->n, &n, &e)
			      : node_discover(c->sys, &n, &e);
	if (p) {
		p->n = 0;
		p->lost = false;
	}
	c->discover_cost = console_now() - t0;
	if (r < 0) {
		screen_message(c, TR_ERROR, "%s", e.msg);
		return r;
	}
	struct snap_diff d = {0};
	r = snapshot_diff(c->node, n, &d);
	if (r < 0) {
		node_free(n);
		screen_message(c, TR_ERROR, "cannot compare snapshots: %s", strerror(-r));
		return r;
	}
	struct node *old = c->node;
	c->node = n;
	if (old)
		console_apply_diff(c, old, &d);
	node_free(old);
	console_checks_run(c);
	if (c->rec && recording_observe(c->rec, c->node, &c->checks.fs, &e) < 0) {
		screen_message(c, TR_WARNING, "history not recorded: %s", e.msg);
		hist_recorder_close(c->rec); /* said once; `ibvf record` keeps it */
		c->rec = NULL;
	}
	console_tree_update(c); /* the rows pointed into the old node */
	console_views_node_changed(c);
	snapshot_diff_free(&d);
	c->rebuild_cost = console_now() - t0;
	return 0;
}

int console_rebuild(struct console *c)
{
	return console_update(c, NULL);
}

/* Drops expired highlights, ghosts and messages; returns the next expiry. */
static double console_expire(struct console *c, double now)
{
	double next = INFINITY;
	size_t k = 0;
	for (size_t i = 0; i < c->n_hl; i++) {
		if (c->hl[i].until > now) {
			c->hl[k++] = c->hl[i];
			next = fmin(next, c->hl[i].until);
		}
	}
	if (k != c->n_hl)
		c->dirty = true;
	c->n_hl = k;
	k = 0;
	for (size_t i = 0; i < c->n_ghosts; i++) {
		if (c->ghosts[i].gone_at + GONE_SECS > now) {
			c->ghosts[k++] = c->ghosts[i];
			next = fmin(next, c->ghosts[i].gone_at + GONE_SECS);
		}
	}
	if (k != c->n_ghosts) {
		c->n_ghosts = k;
		console_tree_update(c);
	}
	if (c->msg[0] && c->msg_until <= now) {
		c->msg[0] = '\0';
		c->dirty = true;
	} else if (c->msg[0]) {
		next = fmin(next, c->msg_until);
	}
	return next;
}

void console_redraw(struct console *c)
{
	erase();
	console_draw(c);
	refresh();
	c->dirty = false;
}

/* SIGINT/SIGTERM: the loop ends, and the views' teardown stops an apply in
 * progress after its step (dialog_apply_free), which journals it. The only
 * state a handler may touch, hence static. */
static volatile sig_atomic_t console_sig;

static void console_on_signal(int sig)
{
	console_sig = sig;
}

static int console_loop(struct console *c)
{
	int efd = sys_event_fd(c->sys);
	time_t shown_sec = 0;
	struct console_pending pend = {0};
	int rc = 0;
	/* Polling for event-less changes costs at most 0.5% of a CPU. */
	double full_every = fmax(REFRESH_MIN_SECS, 200 * c->rebuild_cost);
	c->refresh_due = console_now() + full_every;
	while (!c->quit && !console_sig) {
		double now = console_now();
		double next = fmin(console_expire(c, now), c->refresh_due);
		if (c->rebuild_due > 0)
			next = fmin(next, c->rebuild_due);
		/* The clock in the header moves once a second. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		if (ts.tv_sec != shown_sec) {
			shown_sec = ts.tv_sec;
			c->dirty = true;
			console_views_tick(c);
		}
		double to_tick = 1.0 - (double)ts.tv_nsec / 1e9;
		next = fmin(next, now + to_tick);
		if (c->dirty)
			console_redraw(c);

		struct pollfd p[2 + VIEW_N + 1] = {{.fd = STDIN_FILENO, .events = POLLIN},
						   {.fd = efd, .events = POLLIN}};
		struct view *pv[2 + VIEW_N + 1] = {NULL};
		for (int i = 0; i <= VIEW_N; i++) { /* the views' workers (bench, apply) */
			pv[2 + i] = i < VIEW_N ? &c->views[i] : &c->dialog;
			p[2 + i].fd = pv[2 + i]->fd ? pv[2 + i]->fd(pv[2 + i]) : -1;
			p[2 + i].events = POLLIN;
		}
		int timeout = (int)ceil((next - now) * 1000.0);
		int r = poll(p, 2 + VIEW_N + 1, timeout < 0 ? 0 : timeout); /* fd -1: left out */
		if (r < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		if (r < 0 && console_sig)
			break;
		if (r < 0) { /* SIGWINCH: curses reports KEY_RESIZE */
			int k;
			while ((k = getch()) != ERR)
				console_key(c, k);
			continue;
		}
		if (p[0].revents & (POLLHUP | POLLERR))
			break;
		if (p[0].revents & POLLIN) {
			int k;
			while (!c->quit && (k = getch()) != ERR)
				console_key(c, k);
		}
		for (int i = 2; i < 2 + VIEW_N + 1; i++)
			if (p[i].revents & POLLIN)
				pv[i]->fd_ready(c, pv[i]);
		if (efd >= 0 && (p[1].revents & POLLIN) && console_pending_read(c, &pend) &&
		    c->rebuild_due <= 0)
			c->rebuild_due = console_now() + DEBOUNCE_SECS;
		now = console_now();
		if (now >= c->refresh_due) {
			c->rebuild_due = 0;
			console_update(c, NULL);
			pend.n = 0;
			pend.lost = false;
			full_every = fmax(REFRESH_MIN_SECS, 200 * c->rebuild_cost);
			c->refresh_due = console_now() + full_every;
		} else if (c->rebuild_due > 0 && now >= c->rebuild_due) {
			c->rebuild_due = 0;
			console_update(c, &pend);
		}
	}
	free(pend.v);
	return rc;
}

static void console_free(struct console *c)
{
	console_views_free(c);
	tree_free(&c->tree);
	node_free(c->node);
	free(c->ghosts);
	free(c->collapsed);
	free(c->names);
	free(c->hl);
	console_checks_free(&c->checks);
	hist_recorder_close(c->rec);
}

void console_curses_setup(struct console *c)
{
	set_escdelay(25);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	console_theme_apply(c);
	layout_compute(COLS, LINES, &c->lay);
}

/* `console bench N` and `bench-refresh N` (or --bench N): the redraw
 * benchmarks (redraw_bench.c), hidden. */
enum {
	CONSOLE_BENCH,
	CONSOLE_BENCH_REFRESH
};

const struct opt_sub console_subs[] = {
	[CONSOLE_BENCH] = {"bench", "console bench N", true},
	[CONSOLE_BENCH_REFRESH] = {"bench-refresh", "console bench-refresh N", true},
	{NULL, NULL, false},
};

enum {
	CONSOLE_O_KEY = 1,
	CONSOLE_O_BENCH
};

const struct opt console_options[] = {
	{OPT_ARG("key", 0, "FILE", CONSOLE_O_KEY,
		 "the shared secret (or $IBVF_BENCH_KEY_FILE) the bench view's "
		 "remote runs give a keyed `ibvf bench server`, as "
		 "`ibvf bench client --key` does")},
	{OPT_ARG("bench", 0, "N", CONSOLE_O_BENCH, "the redraw benchmark, N rounds"),
	 .hidden = true},
	{OPT_TABLE_END},
};

int console_main(const struct cli *cli, const char *theme, int argc, char **argv)
{
	int bench = 0, id;
	bool bench_refresh = false;
	struct bench_opts ko = {0}; /* --key, as `ibvf bench` takes it */
	struct opts p;
	const char *v;
	if (opts_parse(cmd_find("console"), argc, argv, &p) < 0)
		return EXIT_USAGE;
	while ((id = opts_next(&p, &v))) {
		if (id == CONSOLE_O_KEY)
			ko.key_file = v;
		else
			bench = atoi(v);
	}
	if (p.sub >= 0 && p.n_pos == 2) {
		bench = atoi(p.pos[1]);
		bench_refresh = p.sub == CONSOLE_BENCH_REFRESH;
	} else if (p.n_pos) {
		cli_error("console takes no argument '%s'", p.pos[0]);
		return EXIT_USAGE;
	}
	if (bench_cli_load_key(&ko) < 0)
		return EXIT_USAGE;
	if (!bench && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		cli_error("the console needs a terminal; use 'ibvf list' for text");
		return EXIT_USAGE;
	}
	setlocale(LC_ALL, "");
	struct console c;
	memset(&c, 0, sizeof(c));
	c.bench_key = ko.key.set ? &ko.key : NULL;
	c.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	const char *nc = getenv("NO_COLOR");
	c.no_color = nc && *nc;
	char warn[512];
	if (theme_load(theme	    ? theme
		       : c.no_color ? "mono"
				    : "default",
		       &c.theme, warn, sizeof(warn)) < 0 &&
	    theme)
		screen_message(&c, TR_WARNING, "%s", warn);

	if (cli_open(cli, &c.sys) < 0)
		return 1;
	if (console_views_init(&c) < 0) {
		cli_error("cannot set up the console: %s", strerror(ENOMEM));
		sys_close(c.sys);
		return 1;
	}
	if (!bench) {
		struct err re = {{0}};
		c.rec = recording_open(c.sys, &re);
		if (!c.rec && re.msg[0])
			screen_message(&c, TR_WARNING, "history not recorded: %s", re.msg);
	}
	int rc = 0;
	if (console_rebuild(&c) < 0) {
		cli_error("%s", c.msg);
		rc = 1;
	} else if (bench && bench_refresh) {
		rc = console_bench_refresh(&c, bench);
	} else if (bench) {
		rc = console_bench(&c, bench);
	} else {
		/* No SA_RESTART: poll() returns, and the loop ends. */
		struct sigaction sa = {.sa_handler = console_on_signal};
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		initscr();
		console_curses_setup(&c);
		if (console_loop(&c) < 0)
			rc = 1;
		endwin();
		if (console_sig) {
			cli_error("stopped by %s: an apply in progress ends its step and is "
				  "journaled ('ibvf journal' says how far it went)",
				  console_sig == SIGINT ? "SIGINT" : "SIGTERM");
			rc = 1;
		}
	}
	console_free(&c);
	sys_close(c.sys);
	exchange_key_clear(&ko.key);
	return rc;
}
