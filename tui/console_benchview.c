// SPDX-License-Identifier: MIT
/* The bench view: a form (VF, peer, test, size) over the run's live figures
 * and its result. The worker thread runs the same bench_pair_run() and
 * bench_client_run() as `ibvf bench`, judged by the same bench_judge(). It
 * sends its progress through a pipe; what it finishes (a VF's result) it
 * puts under the job's mutex and wakes the poll loop through the same pipe. */
#include "console_benchview.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cli.h"
#include "console_int.h"
#include "core/node.h"
#include "dialog.h"

#define MIN_RATIO    0.9 /* `ibvf bench`'s default --min-ratio */
#define SPARK_MAX    512
#define TARGET_WHOLE ((unsigned int)-1) /* a wake-up, not a progress figure */

enum field {
	FLD_VF,
	FLD_PEER,
	FLD_PEER_VF,
	FLD_HOST,
	FLD_TEST,
	FLD_SIZE,
	FLD_N
};
enum peer_kind {
	PEER_PAIR,
	PEER_LOOPBACK,
	PEER_REMOTE,
	PEER_N
};
enum tstate {
	T_WAIT,
	T_RUN,
	T_PASS,
	T_FAIL,
	T_ERROR,
	T_SKIP,
	T_CANCELLED
};

static const char *const state_names[] = {"wait", "run",  "PASS",     "FAIL",
					  "FAIL", "SKIP", "cancelled"};
static const uint64_t sizes[] = {0, 2, 8, 64, 512, 4096, 65536, 1 << 20, 8 << 20};
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

/* One VF of a run and what became of it. */
struct target {
	struct bench_target t;
	enum tstate state;
	struct bench_verdict v;
	bool latency;
	struct lat_stats lat;
	struct lat_hist hist;
	char why[512];
};

struct progress_msg {
	unsigned int target;
	double fraction, gbps;
};

struct job {
	pthread_t th;
	int rfd, wfd;
	atomic_bool cancel;
	struct bench_config cfg;
	enum peer_kind peer;
	char host[128];
	char peer_ibdev[64];
	pthread_mutex_t mu; /* guards the targets' state and finished */
	struct target *t;
	size_t n;
	bool finished;
	struct bench_result res; /* the worker's */
};

struct bench_view {
	enum field focus;
	char vf[16]; /* BDF; empty: every VF */
	enum peer_kind peer;
	char peer_vf[16];
	char host[128];
	enum bench_test test;
	size_t size;
	char confirm[256]; /* the force question, while asked */
	struct job *job;
	unsigned int cur;	/* the target the figures below are of */
	double fraction, gbps;	/* its latest progress */
	float spark[SPARK_MAX]; /* its Gb/s, oldest first */
	size_t n_spark;
	char error[600]; /* a run that could not start */
	long list_top;	 /* every VF: the first line shown, -1 follows the run */
	long shown_top;
};

static struct bench_view bv;

/* --- the node's VFs -------------------------------------------------------- */

static const struct vf *find_vf(const struct console *c, const char *bdf, const struct pf **ret_pf)
{
	for (size_t i = 0; c->node && i < c->node->n_pfs; i++)
		for (size_t j = 0; j < c->node->pfs[i].n_vfs; j++)
			if (!strcmp(c->node->pfs[i].vfs[j].fn.bdf, bdf)) {
				if (ret_pf)
					*ret_pf = &c->node->pfs[i];
				return &c->node->pfs[i].vfs[j];
			}
	return NULL;
}

/* The VF with an RDMA device after (dir 1) or before (-1) bdf, "" around
 * the ends when allow_all (the "every VF" choice). */
static void step_vf(const struct console *c, char *bdf, int dir, bool allow_all)
{
	const struct vf *list[1024];
	size_t n = 0, at = (size_t)-1;
	for (size_t i = 0; c->node && i < c->node->n_pfs; i++)
		for (size_t j = 0; j < c->node->pfs[i].n_vfs && n < 1024; j++) {
			const struct vf *vf = &c->node->pfs[i].vfs[j];
			if (!vf->fn.n_rdmas)
				continue;
			if (!strcmp(vf->fn.bdf, bdf))
				at = n;
			list[n++] = vf;
		}
	long total = (long)n + (allow_all ? 1 : 0), pos;
	if (!total)
		return;
	/* Positions: 0 the "every VF" choice when allowed, then the VFs. */
	pos = at == (size_t)-1 ? (allow_all ? 0 : -1) : (long)at + (allow_all ? 1 : 0);
	pos = ((pos + dir) % total + total) % total;
	if (allow_all && pos == 0)
		bdf[0] = '\0';
	else
		snprintf(bdf, 16, "%s", list[pos - (allow_all ? 1 : 0)]->fn.bdf);
}

static void target_of(const struct pf *pf, const struct vf *vf, struct target *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->t.vf_index = (int)vf->index;
	ret->t.rate_gbps = -1;
	bench_target_from_fn(&vf->fn, vf->fn.n_rdmas ? &vf->fn.rdmas[0] : NULL, &ret->t);
	snprintf(ret->t.pf_bdf, sizeof(ret->t.pf_bdf), "%s", pf->fn.bdf);
}

static const char *vf_label(const struct console *c, const char *bdf, char *buf, size_t size)
{
	const struct pf *pf;
	const struct vf *vf = bdf[0] ? find_vf(c, bdf, &pf) : NULL;
	if (!bdf[0])
		return "every VF, one after another";
	if (!vf)
		return "(none: no VF has an RDMA device)";
	char pod[160];
	const char *holder = bench_vf_pod_holder(vf, pod, sizeof(pod));
	snprintf(buf, size, "%s %s (vf%u of %s)%s%s", vf->fn.bdf,
		 vf->fn.n_rdmas ? vf->fn.rdmas[0].name : "-", vf->index, pf->fn.bdf,
		 holder ? "  pod " : "", holder ? holder : "");
	return buf;
}

/* --- the worker ------------------------------------------------------------ */

struct ctx {
	struct job *job;
	unsigned int target;
};

static void send_msg(struct job *j, unsigned int target, double fraction, double gbps)
{
	struct progress_msg m = {.target = target, .fraction = fraction, .gbps = gbps};
	/* A full pipe drops a figure; the loop is reading anyway. */
	if (write(j->wfd, &m, sizeof(m)) < 0)
		return;
}

static void on_progress(const struct bench_progress *p, void *arg)
{
	struct ctx *x = arg;
	double frac = p->n_sizes ? ((double)p->size_index + p->fraction) / p->n_sizes : p->fraction;
	send_msg(x->job, x->target, frac, p->gbps);
}

static void set_state(struct job *j, struct target *t, enum tstate s)
{
	pthread_mutex_lock(&j->mu);
	t->state = s;
	pthread_mutex_unlock(&j->mu);
	send_msg(j, TARGET_WHOLE, 0, 0);
}

static void *worker(void *arg)
{
	struct job *j = arg;
	for (size_t i = 0; i < j->n; i++) {
		struct target *t = &j->t[i];
		if (t->state == T_SKIP)
			continue;
		if (atomic_load(&j->cancel)) {
			set_state(j, t, T_CANCELLED);
			continue;
		}
		set_state(j, t, T_RUN);
		struct ctx x = {.job = j, .target = (unsigned int)i};
		struct err e = {{0}};
		memset(&j->res, 0, sizeof(j->res));
		const char *peer = j->peer == PEER_LOOPBACK ? t->t.ibdev : j->peer_ibdev;
		int r = j->peer == PEER_REMOTE ? bench_client_run(&j->cfg, j->host, t->t.ibdev,
								  on_progress, &x, &j->res, &e)
					       : bench_pair_run(&j->cfg, peer, t->t.ibdev,
								on_progress, &x, &j->res, &e);
		pthread_mutex_lock(&j->mu);
		if (r == -ECANCELED && atomic_load(&j->cancel)) {
			t->state = T_CANCELLED;
		} else if (r < 0) {
			t->state = T_ERROR;
			snprintf(t->why, sizeof(t->why), "%s", e.msg);
		} else {
			bench_judge(&j->res, &t->t, MIN_RATIO, &t->v);
			t->state = t->v.pass ? T_PASS : T_FAIL;
			snprintf(t->why, sizeof(t->why), "%s", t->v.reason);
			t->latency = bench_is_latency(j->res.test);
			if (t->latency && j->res.n_sizes) {
				t->lat = j->res.sizes[0].lat;
				t->hist = j->res.sizes[0].hist;
			}
		}
		pthread_mutex_unlock(&j->mu);
		send_msg(j, TARGET_WHOLE, 0, 0);
	}
	pthread_mutex_lock(&j->mu);
	j->finished = true;
	pthread_mutex_unlock(&j->mu);
	send_msg(j, TARGET_WHOLE, 0, 0);
	return NULL;
}

static void job_free(struct job *j)
{
	if (!j)
		return;
	atomic_store(&j->cancel, true);
	pthread_join(j->th, NULL);
	close(j->rfd);
	close(j->wfd);
	pthread_mutex_destroy(&j->mu);
	free(j->t);
	free(j);
}

static bool job_running(void)
{
	if (!bv.job)
		return false;
	pthread_mutex_lock(&bv.job->mu);
	bool done = bv.job->finished;
	pthread_mutex_unlock(&bv.job->mu);
	return !done;
}

/* "host", "host:port", "[v6]:port", or a bare IPv6 address. */
static int parse_host(const char *s, char *host, size_t size, uint16_t *ret_port)
{
	const char *colon = strrchr(s, ':');
	size_t len = strlen(s);
	*ret_port = BENCH_DEFAULT_PORT;
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end || (end[1] && end[1] != ':'))
			return -EINVAL;
		len = (size_t)(end - s - 1);
		s++;
		colon = end[1] ? end + 1 : NULL;
	} else if (colon && strchr(s, ':') != colon) {
		colon = NULL; /* IPv6 without a port */
	} else if (colon) {
		len = (size_t)(colon - s);
	}
	if (colon) {
		char *end;
		unsigned long p = strtoul(colon + 1, &end, 10);
		if (end == colon + 1 || *end || !p || p > 65535)
			return -EINVAL;
		*ret_port = (uint16_t)p;
	}
	if (!len || len >= size)
		return -EINVAL;
	snprintf(host, size, "%.*s", (int)len, s);
	return 0;
}

/* Starts the run; force includes (or with "every VF", keeps) VFs in pods. */
static void start(struct console *c, bool force)
{
	bv.error[0] = '\0';
	job_free(bv.job);
	bv.job = NULL;
	struct job *j = calloc(1, sizeof(*j));
	int fds[2] = {-1, -1};
	if (!j || pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(bv.error, sizeof(bv.error), "cannot start the run: %s", strerror(errno));
		free(j);
		return;
	}
	j->rfd = fds[0];
	j->wfd = fds[1];
	pthread_mutex_init(&j->mu, NULL);
	j->cfg = (struct bench_config){.gid_index = -1,
				       .listen_fd = -1,
				       .tcp_port = BENCH_DEFAULT_PORT,
				       .test = bv.test,
				       .size = sizes[bv.size],
				       .cancel = &j->cancel};
	j->peer = bv.peer;
	const struct pf *pf;
	const struct vf *pv = bv.peer == PEER_PAIR ? find_vf(c, bv.peer_vf, &pf) : NULL;
	if (pv)
		snprintf(j->peer_ibdev, sizeof(j->peer_ibdev), "%s", pv->fn.rdmas[0].name);
	const char *why = NULL;
	if (bv.peer == PEER_REMOTE &&
	    parse_host(bv.host, j->host, sizeof(j->host), &j->cfg.tcp_port) < 0)
		why = "the peer wants HOST or HOST:PORT of an `ibvf bench server`";
	else if (bv.peer == PEER_PAIR && (!pv || !pv->fn.n_rdmas))
		why = "no peer VF with an RDMA device";
	size_t cap = 0;
	for (size_t i = 0; c->node && i < c->node->n_pfs; i++)
		cap += c->node->pfs[i].n_vfs;
	j->t = calloc(cap ? cap : 1, sizeof(*j->t));
	for (size_t i = 0; !why && j->t && i < c->node->n_pfs; i++) {
		for (size_t k = 0; k < c->node->pfs[i].n_vfs; k++) {
			const struct vf *vf = &c->node->pfs[i].vfs[k];
			if ((bv.vf[0] && strcmp(vf->fn.bdf, bv.vf)) || !vf->fn.n_rdmas)
				continue;
			struct target *t = &j->t[j->n++];
			char pod[160];
			target_of(&c->node->pfs[i], vf, t);
			if (bench_vf_pod_holder(vf, pod, sizeof(pod)) && !force) {
				t->state = T_SKIP;
				snprintf(t->why, sizeof(t->why), "bound to pod '%s'", pod);
			} else if (bv.peer == PEER_PAIR && !strcmp(vf->fn.bdf, bv.peer_vf)) {
				t->state = T_SKIP;
				snprintf(t->why, sizeof(t->why), "the peer itself");
			}
		}
	}
	if (!why && !j->t)
		why = "out of memory";
	else if (!why && !j->n)
		why = "no VF with an RDMA device to run on";
	else if (!why && j->n == 1 && j->t[0].state == T_SKIP)
		why = j->t[0].why;
	int r = 0;
	if (!why && (r = pthread_create(&j->th, NULL, worker, j)))
		why = strerror(r);
	if (why) {
		snprintf(bv.error, sizeof(bv.error), "%s", why);
		close(j->rfd);
		close(j->wfd);
		pthread_mutex_destroy(&j->mu);
		free(j->t);
		free(j);
		c->dirty = true;
		return;
	}
	bv.job = j;
	bv.list_top = -1;
	c->msg[0] = '\0'; /* an older message would outlive its subject */
	bv.cur = 0;
	bv.fraction = bv.gbps = 0;
	bv.n_spark = 0;
	c->dirty = true;
}

/* Enter: asks before disturbing a pod's VF, then starts. */
static void run(struct console *c)
{
	char pod[160];
	const struct pf *pf;
	const struct vf *vf = bv.vf[0] ? find_vf(c, bv.vf, &pf) : NULL;
	const struct vf *pv = bv.peer == PEER_PAIR ? find_vf(c, bv.peer_vf, &pf) : NULL;
	size_t n_pod = 0;
	for (size_t i = 0; !bv.vf[0] && c->node && i < c->node->n_pfs; i++)
		for (size_t k = 0; k < c->node->pfs[i].n_vfs; k++)
			if (c->node->pfs[i].vfs[k].fn.n_rdmas &&
			    bench_vf_pod_holder(&c->node->pfs[i].vfs[k], pod, sizeof(pod)))
				n_pod++;
	if (vf && bench_vf_pod_holder(vf, pod, sizeof(pod)))
		snprintf(bv.confirm, sizeof(bv.confirm),
			 "VF %s is bound to pod '%s': a run disturbs it. Run anyway? y/N", bv.vf,
			 pod);
	else if (pv && bench_vf_pod_holder(pv, pod, sizeof(pod)))
		snprintf(bv.confirm, sizeof(bv.confirm),
			 "the peer VF %s is bound to pod '%s': a run disturbs it. Run anyway? y/N",
			 bv.peer_vf, pod);
	else if (n_pod)
		snprintf(bv.confirm, sizeof(bv.confirm),
			 "%zu VF%s bound to pods: y runs them too, n skips them, Esc cancels",
			 n_pod, n_pod == 1 ? " is" : "s are");
	else
		start(c, false);
	c->dirty = true;
}

/* --- the loop's side ------------------------------------------------------- */

int console_benchview_fd(void)
{
	return bv.job ? bv.job->rfd : -1;
}

void console_benchview_read(struct console *c)
{
	struct progress_msg m;
	if (!bv.job)
		return;
	while (read(bv.job->rfd, &m, sizeof(m)) == (ssize_t)sizeof(m)) {
		if (m.target == TARGET_WHOLE)
			continue;
		if (m.target != bv.cur) {
			bv.cur = m.target;
			bv.n_spark = 0;
		}
		bv.fraction = m.fraction;
		bv.gbps = m.gbps;
		if (bv.n_spark == SPARK_MAX) {
			memmove(bv.spark, bv.spark + 1, (SPARK_MAX - 1) * sizeof(*bv.spark));
			bv.n_spark--;
		}
		bv.spark[bv.n_spark++] = (float)m.gbps;
	}
	c->dirty = true;
}

void console_benchview_free(void)
{
	job_free(bv.job);
	memset(&bv, 0, sizeof(bv));
}

void console_benchview_enter(struct console *c)
{
	const struct pf *pf;
	const char *sel = c->sel;
	const struct vf *vf = sel[0] ? find_vf(c, sel, &pf) : NULL;
	if (vf && vf->fn.n_rdmas && !job_running())
		snprintf(bv.vf, sizeof(bv.vf), "%s", vf->fn.bdf);
	else if (!bv.vf[0] || !find_vf(c, bv.vf, &pf))
		step_vf(c, bv.vf, 1, false);
	if (!bv.peer_vf[0] || !strcmp(bv.peer_vf, bv.vf) || !find_vf(c, bv.peer_vf, &pf)) {
		snprintf(bv.peer_vf, sizeof(bv.peer_vf), "%s", bv.vf);
		step_vf(c, bv.peer_vf, 1, false);
	}
	c->view = VIEW_BENCH;
	c->dirty = true;
}

/* `:bench [all|BDF|IBDEV]`: the view on the selected VF, every VF or the one named. */
int console_cmd_bench(struct console *c, const char *arg)
{
	const struct vf *vf = NULL;
	for (size_t i = 0; arg[0] && strcmp(arg, "all") && c->node && i < c->node->n_pfs; i++)
		for (size_t j = 0; !vf && j < c->node->pfs[i].n_vfs; j++) {
			const struct vf *v = &c->node->pfs[i].vfs[j];
			if (v->fn.n_rdmas &&
			    (!strcmp(v->fn.bdf, arg) || !strcmp(v->fn.rdmas[0].name, arg)))
				vf = v;
		}
	if (arg[0] && strcmp(arg, "all") && !vf) {
		console_message(c, TR_ERROR, "no VF '%s' with an RDMA device (bench all|BDF|IBDEV)",
				arg);
		return -ENODEV;
	}
	console_benchview_enter(c);
	if (!job_running() && arg[0])
		snprintf(bv.vf, sizeof(bv.vf), "%s", vf ? vf->fn.bdf : "");
	return 0;
}

/* --- keys ------------------------------------------------------------------ */

static bool field_shown(enum field f)
{
	return (f != FLD_PEER_VF || bv.peer == PEER_PAIR) &&
	       (f != FLD_HOST || bv.peer == PEER_REMOTE);
}

static void change(struct console *c, int dir)
{
	switch (bv.focus) {
	case FLD_VF:
		step_vf(c, bv.vf, dir, true);
		break;
	case FLD_PEER:
		bv.peer = (enum peer_kind)((bv.peer + PEER_N + dir) % PEER_N);
		break;
	case FLD_PEER_VF:
		step_vf(c, bv.peer_vf, dir, false);
		break;
	case FLD_TEST:
		bv.test = (enum bench_test)((bv.test + 4 + dir) % 4);
		break;
	case FLD_SIZE:
		bv.size = (bv.size + (dir < 0 ? N_SIZES - 1 : 1)) % N_SIZES;
		break;
	default:
		break;
	}
}

bool console_benchview_key(struct console *c, int k)
{
	c->dirty = true;
	if (bv.confirm[0]) {
		bool all = strstr(bv.confirm, "skips") != NULL;
		bv.confirm[0] = '\0';
		if (k == 'y' || k == 'Y')
			start(c, true);
		else if (all && (k == 'n' || k == 'N'))
			start(c, false);
		else
			console_message(c, TR_STATUS, "the run was not started");
		return true;
	}
	if (job_running()) {
		if (k == 27) {
			atomic_store(&bv.job->cancel, true);
			console_message(c, TR_WARNING, "cancelling the run (the peer is told)");
			return true;
		}
		/* The form stays as it was run; the other views stay open. */
		return k != '\t' && k != 'q' && (k < '1' || k > '4') && k != ':' && k != '?' &&
		       k != KEY_F(1) && k != KEY_F(2) && k != KEY_F(10);
	}
	if (bv.focus == FLD_HOST && k >= 0x21 && k < 0x7f) {
		size_t n = strlen(bv.host);
		if (n + 1 < sizeof(bv.host))
			bv.host[n] = (char)k, bv.host[n + 1] = '\0';
		return true;
	}
	int dir = 0;
	switch (k) {
	case KEY_UP:
	case 'k':
	case KEY_BTAB:
		dir = -1;
		break;
	case KEY_DOWN:
	case 'j':
		dir = 1;
		break;
	case KEY_LEFT:
	case 'h':
		change(c, -1);
		return true;
	case KEY_RIGHT:
	case 'l':
	case ' ':
		change(c, 1);
		return true;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (bv.focus == FLD_HOST && bv.host[0])
			bv.host[strlen(bv.host) - 1] = '\0';
		return true;
	case '\n':
	case '\r':
	case KEY_ENTER:
		run(c);
		return true;
	case KEY_PPAGE:
	case KEY_NPAGE: {
		long page = c->lay.tree.h > 4 ? c->lay.tree.h / 2 : 1;
		bv.list_top = bv.shown_top + (k == KEY_PPAGE ? -page : page);
		if (bv.list_top < 0) /* the drawing bounds the other end */
			bv.list_top = 0;
		return true;
	}
	case 27: /* Esc: back to the tree */
		c->view = VIEW_TREE;
		return true;
	default:
		return false;
	}
	do
		bv.focus = (enum field)((bv.focus + FLD_N + dir) % FLD_N);
	while (!field_shown(bv.focus));
	return true;
}

/* --- drawing --------------------------------------------------------------- */

/* UTF-8 text in w columns at (y, x); the glyphs used here are one column. */
static void put_utf8(int y, int x, int w, const char *s, int attr)
{
	int cols = 0;
	const char *p = s;
	while (*p && cols < w) {
		p++;
		while ((*p & 0xc0) == 0x80)
			p++;
		cols++;
	}
	attron(attr);
	mvaddnstr(y, x, s, (int)(p - s));
	attroff(attr);
}

static void size_label(uint64_t b, char *buf, size_t size)
{
	if (b >= 1 << 20)
		snprintf(buf, size, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024)
		snprintf(buf, size, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(buf, size, "%llu B", (unsigned long long)b);
}

static int draw_form(struct console *c, int y, int w)
{
	char line[512], val[400], sz[32];
	bool busy = job_running();
	for (int f = 0; f < FLD_N; f++) {
		if (!field_shown((enum field)f))
			continue;
		static const char *const labels[FLD_N] = {"VF",	    "Peer", "Peer VF",
							  "Server", "Test", "Size"};
		switch (f) {
		case FLD_VF:
			snprintf(val, sizeof(val), "%s", vf_label(c, bv.vf, line, sizeof(line)));
			break;
		case FLD_PEER:
			snprintf(val, sizeof(val), "%s",
				 bv.peer == PEER_PAIR	    ? "pair: another VF of this node"
				 : bv.peer == PEER_LOOPBACK ? "loopback: the VF against itself"
							    : "remote: an `ibvf bench server`");
			break;
		case FLD_PEER_VF:
			snprintf(val, sizeof(val), "%s",
				 vf_label(c, bv.peer_vf, line, sizeof(line)));
			break;
		case FLD_HOST:
			snprintf(val, sizeof(val), "%s%s", bv.host,
				 bv.focus == FLD_HOST && !busy ? "_" : "");
			if (!bv.host[0] && bv.focus != FLD_HOST)
				snprintf(val, sizeof(val), "HOST[:PORT]");
			break;
		case FLD_TEST:
			snprintf(val, sizeof(val), "%s", exchange_test_name(bv.test));
			break;
		case FLD_SIZE:
			size_label(sizes[bv.size] ? sizes[bv.size] : bench_default_size(bv.test),
				   sz, sizeof(sz));
			snprintf(val, sizeof(val), "%s%s", sz, sizes[bv.size] ? "" : " (default)");
			break;
		}
		bool arrows = f != FLD_HOST && !busy;
		snprintf(line, sizeof(line), " %-8s %s%s%s", labels[f], arrows ? "< " : "", val,
			 arrows ? " >" : "");
		int a = console_attr(c, (int)bv.focus == f && !busy ? TR_SELECTION : TR_NORMAL);
		dialog_put(y++, 0, w, line, a);
	}
	return y;
}

/* Gb/s over the run, scaled to its best: eight heights, or an ASCII ramp. */
static void draw_spark(struct console *c, int y, int w)
{
	static const char *const blocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	static const char ramp[] = "_.-:=+*#";
	char line[SPARK_MAX * 3 + 1] = "";
	int n = w - 8 < SPARK_MAX ? w - 8 : SPARK_MAX;
	if (n <= 0)
		return;
	size_t from = bv.n_spark > (size_t)n ? bv.n_spark - (size_t)n : 0;
	float top = 0;
	for (size_t i = from; i < bv.n_spark; i++)
		top = bv.spark[i] > top ? bv.spark[i] : top;
	size_t len = 0;
	for (size_t i = from; i < bv.n_spark; i++) {
		int h = top > 0 ? (int)(bv.spark[i] / top * 7.0f + 0.5f) : 0;
		const char *g = c->utf8 ? blocks[h] : (const char[]){ramp[h], 0};
		size_t gl = strlen(g);
		memcpy(line + len, g, gl);
		len += gl;
	}
	line[len] = '\0';
	dialog_put(y, 0, 8, " Gb/s", console_attr(c, TR_DETAILS_LABEL));
	put_utf8(y, 8, n, line, console_attr(c, TR_PORT_ACTIVE));
}

/* Latency: a line of figures, then the histogram bench_run keeps of the
 * samples, one row per non-empty bucket. When the rows do not fit, runs of
 * adjacent buckets are merged, so the whole range is always shown. */
static int draw_latency(struct console *c, const struct lat_stats *l, const struct lat_hist *h,
			int y, int y_end, int w)
{
	char line[256];
	if (y >= y_end)
		return y;
	snprintf(line, sizeof(line),
		 " min %.2f  median %.2f  mean %.2f  p99 %.2f  p99.9 %.2f  max %.2f us", l->min_us,
		 l->median_us, l->mean_us, l->p99_us, l->p999_us, l->max_us);
	dialog_put(y++, 0, w, line, console_attr(c, TR_NORMAL));
	size_t nb = h->n_buckets < LAT_HIST_BUCKETS ? h->n_buckets : LAT_HIST_BUCKETS;
	size_t used = 0;
	for (size_t i = 0; i < nb; i++)
		used += h->b[i].count > 0;
	long rows = y_end - y;
	if (!used || rows <= 0)
		return y;
	size_t group = used <= (size_t)rows ? 1 : (nb + (size_t)rows - 1) / (size_t)rows;
	uint64_t top = 0;
	for (size_t i = 0; i < nb; i += group) {
		uint64_t sum = 0;
		for (size_t k = i; k < i + group && k < nb; k++)
			sum += h->b[k].count;
		top = sum > top ? sum : top;
	}
	const int label_w = 36;
	int bar_w = w - label_w - 1;
	for (size_t i = 0; i < nb && y < y_end; i += group) {
		size_t last = i + group < nb ? i + group - 1 : nb - 1;
		uint64_t sum = 0;
		for (size_t k = i; k <= last; k++)
			sum += h->b[k].count;
		if (!sum)
			continue;
		snprintf(line, sizeof(line), " %9.2f - %9.2f us %9llu ",
			 (double)h->b[i].lo_ns / 1000.0, (double)h->b[last].hi_ns / 1000.0,
			 (unsigned long long)sum);
		dialog_put(y, 0, label_w, line, console_attr(c, TR_NORMAL));
		int n = bar_w > 0 ? (int)((double)sum / (double)top * bar_w + 0.5) : 0;
		if (n < 1 && bar_w > 0)
			n = 1; /* a non-empty bucket is never blank */
		char bar[1024] = "";
		size_t len = 0;
		for (int k = 0; k < n && len + 4 < sizeof(bar); k++) {
			const char *g = c->utf8 ? "█" : "#";
			memcpy(bar + len, g, strlen(g));
			len += strlen(g);
		}
		bar[len] = '\0';
		if (bar_w > 0)
			put_utf8(y, label_w, bar_w, bar, console_attr(c, TR_DETAILS_LABEL));
		y++;
	}
	return y;
}

/* A long message over several lines. */
static int draw_wrapped(const char *s, int y, int y_end, int x, int w, int attr)
{
	while (*s && y < y_end && w > 0) {
		int n = (int)strlen(s);
		if (n > w) {
			n = w;
			while (n > w / 2 && s[n] != ' ')
				n--;
			if (s[n] != ' ')
				n = w;
		}
		char line[512];
		snprintf(line, sizeof(line), "%.*s", n, s);
		dialog_put(y++, x, w, line, attr);
		s += n;
		while (*s == ' ')
			s++;
	}
	return y;
}

static int state_attr(const struct console *c, enum tstate s)
{
	return console_attr(c, s == T_PASS			 ? TR_BENCH_PASS
			       : s == T_FAIL || s == T_ERROR	 ? TR_BENCH_FAIL
			       : s == T_CANCELLED || s == T_SKIP ? TR_WARNING
								 : TR_NORMAL);
}

static void draw_run(struct console *c, int y, int y_end, int w)
{
	char line[640];
	if (bv.error[0]) {
		draw_wrapped(bv.error, y, y_end, 1, w - 1, console_attr(c, TR_ERROR));
		return;
	}
	if (!bv.job) {
		dialog_put(y, 1, w - 1,
			   "Enter runs, Up/Down pick a field, Left/Right change it, Esc back",
			   console_attr(c, TR_STATUS));
		return;
	}
	struct job *j = bv.job;
	pthread_mutex_lock(&j->mu);
	bool finished = j->finished;
	size_t n_pass = 0, n_fail = 0, n_skip = 0, n_cancel = 0;
	for (size_t i = 0; i < j->n; i++) {
		enum tstate s = j->t[i].state;
		n_pass += s == T_PASS;
		n_fail += s == T_FAIL || s == T_ERROR;
		n_skip += s == T_SKIP;
		n_cancel += s == T_CANCELLED;
	}
	const struct target *cur = bv.cur < j->n ? &j->t[bv.cur] : NULL;
	uint64_t total = j->cfg.iters ? j->cfg.iters : bench_default_iters(j->cfg.test);
	const char *peer = j->peer == PEER_REMOTE     ? j->host
			   : j->peer == PEER_LOOPBACK ? "itself"
						      : j->peer_ibdev;
	if (!finished && cur) {
		snprintf(line, sizeof(line),
			 " running %s %s against %s: %llu/%llu iterations  %.2f Gb/s%s",
			 exchange_test_name(j->cfg.test), cur->t.ibdev, peer,
			 (unsigned long long)(bv.fraction * (double)total),
			 (unsigned long long)total, bv.gbps,
			 atomic_load(&j->cancel) ? "  cancelling..." : "  (Esc cancels)");
		dialog_put(y++, 0, w, line, console_attr(c, TR_HEADER_VALUE));
	} else if (j->n > 1) {
		snprintf(line, sizeof(line), " %zu VFs: %zu passed, %zu failed, %zu skipped%s",
			 j->n, n_pass, n_fail, n_skip, n_cancel ? ", cancelled" : "");
		dialog_put(y++, 0, w, line,
			   console_attr(c, n_fail || !n_pass ? TR_BENCH_FAIL : TR_BENCH_PASS));
	}
	if (y < y_end && bv.n_spark)
		draw_spark(c, y++, w);
	if (j->n == 1 && finished && y < y_end) {
		const struct target *t = &j->t[0];
		int a = state_attr(c, t->state);
		snprintf(line, sizeof(line), " %s ", state_names[t->state]);
		dialog_put(y, 1, (int)strlen(line), line, a);
		int x = 2 + (int)strlen(line);
		if (t->state == T_PASS || t->state == T_FAIL)
			snprintf(line, sizeof(line), "%s on %s against %.128s: %.300s",
				 exchange_test_name(j->cfg.test), t->t.ibdev, peer, t->why);
		else if (t->state == T_CANCELLED)
			snprintf(line, sizeof(line),
				 "%s on %s: the QPs are torn down, the peer told",
				 exchange_test_name(j->cfg.test), t->t.ibdev);
		else
			snprintf(line, sizeof(line), "%s on %s against %s",
				 exchange_test_name(j->cfg.test), t->t.ibdev, peer);
		y = draw_wrapped(line, y, y_end, x, w - x, console_attr(c, TR_NORMAL));
		if (t->state == T_ERROR)
			y = draw_wrapped(t->why, y, y_end, 1, w - 1, console_attr(c, TR_ERROR));
		if (t->latency && (t->state == T_PASS || t->state == T_FAIL))
			y = draw_latency(c, &t->lat, &t->hist, y, y_end, w);
	} else {
		/* While it runs the list follows it; PgUp/PgDn scroll. */
		long rows = y_end - y, last = 0;
		for (size_t i = 0; i < j->n; i++)
			if (j->t[i].state != T_WAIT && j->t[i].state != T_SKIP)
				last = (long)i;
		long top = bv.list_top < 0 ? last - rows + 1 : bv.list_top;
		if (top > (long)j->n - rows)
			top = (long)j->n - rows;
		if (top < 0)
			top = 0;
		bv.shown_top = top;
		for (size_t i = (size_t)top; i < j->n && y < y_end; i++) {
			const struct target *t = &j->t[i];
			char fig[32] = "";
			if (t->state == T_PASS || t->state == T_FAIL)
				snprintf(fig, sizeof(fig), "%.2f Gb/s", t->v.figure_gbps);
			snprintf(line, sizeof(line), "%-9s", state_names[t->state]);
			dialog_put(y, 1, 9, line, state_attr(c, t->state));
			snprintf(line, sizeof(line), "%-12s %-9s %12s  %s", t->t.bdf, t->t.ibdev,
				 fig, t->why);
			dialog_put(y++, 11, w - 11, line, console_attr(c, TR_NORMAL));
		}
	}
	pthread_mutex_unlock(&j->mu);
}

void console_benchview_draw(struct console *c)
{
	const struct rect *t = &c->lay.tree;
	int w = t->w, y_end = t->y + t->h + c->lay.details.h;
	dialog_put(t->y, 0, w,
		   " Bench: RDMA verbs between a VF and its peer, judged against the port rate",
		   console_attr(c, TR_COLUMN_HEADER));
	int y = draw_form(c, t->y + 1, w);
	if (bv.confirm[0] && y < y_end) {
		y = draw_wrapped(bv.confirm, y + 1, y_end, 1, w - 1, console_attr(c, TR_PROMPT));
		return;
	}
	if (y + 1 < y_end)
		draw_run(c, y + 1, y_end, w);
}
