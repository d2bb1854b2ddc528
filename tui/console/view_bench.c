// SPDX-License-Identifier: MIT
/* The bench view: a form (VF, peer, test, size) over the run's live figures
 * and its result; the run is a worker thread (console_benchwork.c) whose
 * progress reaches the poll loop through a pipe. */
#include "view_bench.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/bench/bench_cli.h"
#include "tui/bench/bench_form.h"
#include "view_bench_int.h"
#include "screen.h"
#include "keys.h"
#include "core/model/node.h"
#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"
#include "core/sys/sys.h"
#include "dialog.h"

/* --- the node's VFs -------------------------------------------------------- */

static const struct vf *find_vf(const struct console *c, const char *bdf, const struct pf **ret_pf)
{
	const struct vf *vf = NULL;
	if (c->node && node_find_fn(c->node, bdf, ret_pf, &vf) && vf)
		return vf;
	return NULL;
}

/* The VF with an RDMA device after (dir 1) or before (-1) bdf, "" around
 * the ends when allow_all (the "every VF" choice). */
void bv_step_vf(const struct console *c, char *bdf, int dir, bool allow_all)
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
	struct node_ref ref = {.pf = pf, .vf = vf, .fn = &vf->fn};
	memset(ret, 0, sizeof(*ret));
	bench_target_from_ref(&ref, &ret->t);
}

const char *bv_vf_label(const struct console *c, const char *bdf, char *buf, size_t size)
{
	const struct pf *pf;
	const struct vf *vf = bdf[0] ? find_vf(c, bdf, &pf) : NULL;
	if (!bdf[0])
		return "every VF, the PFs at once";
	if (!vf)
		return "(none: no VF has an RDMA device)";
	char pod[160];
	const char *holder = pods_holder_label(vf, pod, sizeof(pod));
	snprintf(buf, size, "%s %s (vf%u of %s)%s%s", vf->fn.bdf,
		 vf->fn.n_rdmas ? vf->fn.rdmas[0].name : "-", vf->index, pf->fn.bdf,
		 holder ? "  pod " : "", holder ? holder : "");
	return buf;
}

const char *bv_peer_vf_label(const struct console *c, char *buf, size_t size)
{
	const struct bench_view *bv = bench_of(c);
	const struct pf *pf = NULL, *peer_pf = NULL;
	const char *l = bv_vf_label(c, bv->peer_vf, buf, size);
	size_t n = strlen(buf);
	/* Two VFs of one PF share its port: their traffic turns in the HCA. */
	if (l == buf && bv->vf[0] && find_vf(c, bv->vf, &pf) && find_vf(c, bv->peer_vf, &peer_pf) &&
	    pf == peer_pf && n < size)
		snprintf(buf + n, size - n, "  same port: HCA only");
	return l;
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
/* The VFs the run covers into j->t (NULL when out of memory), a pod's VF
 * (unless forced) and the pair's peer skipped with the reason; none when
 * the run cannot start anyway. */
static void targets_fill(struct console *c, const struct bench_view *bv, struct job *j, bool force,
			 bool none)
{
	size_t cap = 0;
	for (size_t i = 0; c->node && i < c->node->n_pfs; i++)
		cap += c->node->pfs[i].n_vfs;
	j->t = calloc(cap ? cap : 1, sizeof(*j->t));
	for (size_t i = 0; !none && j->t && i < c->node->n_pfs; i++) {
		for (size_t k = 0; k < c->node->pfs[i].n_vfs; k++) {
			const struct vf *vf = &c->node->pfs[i].vfs[k];
			if ((bv->vf[0] && strcmp(vf->fn.bdf, bv->vf)) || !vf->fn.n_rdmas)
				continue;
			struct target *t = &j->t[j->n++];
			char pod[160];
			target_of(&c->node->pfs[i], vf, t);
			t->pf_index = (unsigned int)i;
			if (pods_holder_label(vf, pod, sizeof(pod)) && !force) {
				t->state = T_SKIP;
				snprintf(t->why, sizeof(t->why), "bound to pod '%s'", pod);
			} else if (bv->peer == PEER_PAIR && !strcmp(vf->fn.bdf, bv->peer_vf)) {
				t->state = T_SKIP;
				snprintf(t->why, sizeof(t->why), "the peer itself");
			}
		}
	}
}

static void start(struct console *c, bool force)
{
	struct bench_view *bv = bench_of(c);
	bv->error[0] = '\0';
	bv_job_free(bv->job);
	bv->job = NULL;
	struct job *j = calloc(1, sizeof(*j));
	int fds[2] = {-1, -1};
	if (!j || pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(bv->error, sizeof(bv->error), "cannot start the run: %s", strerror(errno));
		free(j);
		return;
	}
	j->rfd = fds[0];
	j->wfd = fds[1];
	pthread_mutex_init(&j->mu, NULL);
	struct bench_form f = {.test = bv->test,
			       .size = bv_sizes[bv->size],
			       .qps = bv_qps[bv->qps],
			       .duration_s = bv_durations[bv->duration],
			       .validate = bv->validate};
	if (c->bench_key)
		j->key = *c->bench_key;
	bench_form_config(&f, &j->key, &j->cancel, &j->cfg);
	j->peer = bv->peer;
	j->validate = bv->validate;
	snprintf(j->root, sizeof(j->root), "%s", c->sys ? sys_root(c->sys) : "/");
	const struct pf *pf;
	const struct vf *pv = bv->peer == PEER_PAIR ? find_vf(c, bv->peer_vf, &pf) : NULL;
	if (pv) {
		snprintf(j->peer_ibdev, sizeof(j->peer_ibdev), "%s", pv->fn.rdmas[0].name);
		snprintf(j->peer_bdf, sizeof(j->peer_bdf), "%s", pv->fn.bdf);
	}
	const char *why = NULL;
	if (bv->peer == PEER_REMOTE &&
	    parse_host(bv->host, j->host, sizeof(j->host), &j->cfg.tcp_port) < 0)
		why = "the peer wants HOST or HOST:PORT of an `ibvf bench server` (every VF: "
		      "`bench server --all-pfs`, PF i on PORT+i)";
	else if (bv->peer == PEER_PAIR && (!pv || !pv->fn.n_rdmas))
		why = "no peer VF with an RDMA device";
	targets_fill(c, bv, j, force, why != NULL);
	if (!why && !j->t)
		why = "out of memory";
	else if (!why && !j->n)
		why = "no VF with an RDMA device to run on";
	else if (!why && j->n == 1 && j->t[0].state == T_SKIP)
		why = j->t[0].why;
	int r = 0;
	if (!why && (r = pthread_create(&j->th, NULL, bv_worker, j)))
		why = strerror(r);
	if (why) {
		snprintf(bv->error, sizeof(bv->error), "%s", why);
		close(j->rfd);
		close(j->wfd);
		pthread_mutex_destroy(&j->mu);
		free(j->t);
		exchange_key_clear(&j->key);
		free(j);
		c->dirty = true;
		return;
	}
	bv->job = j;
	bv->runs = (struct listw){.text = true};
	bv->runs_follow = true;
	c->msg[0] = '\0'; /* an older message would outlive its subject */
	bv->cur = 0;
	bv->fraction = bv->gbps = 0;
	bv->n_spark = 0;
	c->dirty = true;
}

/* Enter: asks before disturbing a pod's VF, then starts. */
static void run(struct console *c)
{
	struct bench_view *bv = bench_of(c);
	char pod[160];
	const struct pf *pf;
	const struct vf *vf = bv->vf[0] ? find_vf(c, bv->vf, &pf) : NULL;
	const struct vf *pv = bv->peer == PEER_PAIR ? find_vf(c, bv->peer_vf, &pf) : NULL;
	size_t n_pod = 0;
	for (size_t i = 0; !bv->vf[0] && c->node && i < c->node->n_pfs; i++)
		for (size_t k = 0; k < c->node->pfs[i].n_vfs; k++)
			if (c->node->pfs[i].vfs[k].fn.n_rdmas &&
			    pods_holder_label(&c->node->pfs[i].vfs[k], pod, sizeof(pod)))
				n_pod++;
	if (vf && pods_holder_label(vf, pod, sizeof(pod)))
		snprintf(bv->confirm, sizeof(bv->confirm),
			 "VF %s is bound to pod '%s': a run disturbs it. Run anyway? y/N", bv->vf,
			 pod);
	else if (pv && pods_holder_label(pv, pod, sizeof(pod)))
		snprintf(bv->confirm, sizeof(bv->confirm),
			 "the peer VF %s is bound to pod '%s': a run disturbs it. Run anyway? y/N",
			 bv->peer_vf, pod);
	else if (n_pod) {
		bv->confirm_all = true;
		snprintf(bv->confirm, sizeof(bv->confirm),
			 "%zu VF%s bound to pods: y runs them too, n skips them, Esc cancels",
			 n_pod, n_pod == 1 ? " is" : "s are");
	} else
		start(c, false);
	c->dirty = true;
}

/* --- the loop's side ------------------------------------------------------- */

static int bench_fd(struct view *v)
{
	struct bench_view *bv = v->state;
	return bv && bv->job ? bv->job->rfd : -1;
}

static void console_benchview_read(struct console *c)
{
	struct bench_view *bv = bench_of(c);
	struct progress_msg m;
	if (!bv->job)
		return;
	while (read(bv->job->rfd, &m, sizeof(m)) == (ssize_t)sizeof(m)) {
		if (m.target == TARGET_WHOLE)
			continue;
		if (m.target != bv->cur) {
			/* Every PF at once: the figures follow one run until it ends. */
			pthread_mutex_lock(&bv->job->mu);
			bool busy = bv->cur < bv->job->n && bv->job->t[bv->cur].state == T_RUN;
			pthread_mutex_unlock(&bv->job->mu);
			if (busy)
				continue;
			bv->cur = m.target;
			bv->n_spark = 0;
		}
		bv->fraction = m.fraction;
		bv->gbps = m.gbps;
		if (bv->n_spark == SPARK_MAX) {
			memmove(bv->spark, bv->spark + 1, (SPARK_MAX - 1) * sizeof(*bv->spark));
			bv->n_spark--;
		}
		bv->spark[bv->n_spark++] = (float)m.gbps;
	}
	c->dirty = true;
}

static void bench_free(struct view *v)
{
	struct bench_view *bv = v->state;
	if (bv)
		bv_job_free(bv->job);
	free(bv);
	v->state = NULL;
}

static void console_benchview_enter(struct console *c)
{
	struct bench_view *bv = bench_of(c);
	const struct pf *pf;
	const char *sel = c->sel;
	const struct vf *vf = sel[0] ? find_vf(c, sel, &pf) : NULL;
	if (vf && vf->fn.n_rdmas && !bv_job_running(bv))
		snprintf(bv->vf, sizeof(bv->vf), "%s", vf->fn.bdf);
	else if (!bv->vf[0] || !find_vf(c, bv->vf, &pf))
		bv_step_vf(c, bv->vf, 1, false);
	if (!bv->peer_vf[0] || !strcmp(bv->peer_vf, bv->vf) || !find_vf(c, bv->peer_vf, &pf)) {
		snprintf(bv->peer_vf, sizeof(bv->peer_vf), "%s", bv->vf);
		bv_step_vf(c, bv->peer_vf, 1, false);
	}
	c->dirty = true;
}

/* `:bench [all|BDF|IBDEV]`: the view on the selected VF, every VF or the one named. */
int console_cmd_bench(struct console *c, const char *arg)
{
	struct bench_view *bv = bench_of(c);
	struct node_ref ref = {0};
	struct err e = {{0}};
	bool one = arg[0] && strcmp(arg, "all");
	if (one && c->node && node_resolve(c->node, arg, &ref, &e) < 0) {
		screen_message(c, TR_ERROR, "%s", e.msg);
		return -ENODEV;
	}
	const struct vf *vf = ref.vf && ref.vf->fn.n_rdmas ? ref.vf : NULL;
	if (one && !vf) {
		screen_message(c, TR_ERROR, "no VF '%s' with an RDMA device (bench all|BDF|IBDEV)",
			       arg);
		return -ENODEV;
	}
	screen_view_switch(c, VIEW_BENCH);
	if (!bv_job_running(bv) && arg[0])
		snprintf(bv->vf, sizeof(bv->vf), "%s", vf ? vf->fn.bdf : "");
	if (!bv_job_running(bv) && !strcmp(bv->peer_vf, bv->vf)) /* the peer is another VF */
		bv_step_vf(c, bv->peer_vf, 1, false);
	return 0;
}

/* --- keys ------------------------------------------------------------------ */

static bool console_benchview_key(struct console *c, int k)
{
	struct bench_view *bv = bench_of(c);
	c->dirty = true;
	if (bv->confirm[0]) {
		bool all = bv->confirm_all;
		bv->confirm[0] = '\0';
		bv->confirm_all = false;
		if (k == 'y' || k == 'Y')
			start(c, true);
		else if (all && (k == 'n' || k == 'N'))
			start(c, false);
		else
			screen_message(c, TR_STATUS, "the run was not started");
		return true;
	}
	if (bv_job_running(bv)) {
		if (k == 27) {
			atomic_store(&bv->job->cancel, true);
			screen_message(c, TR_WARNING, "cancelling the run (the peer is told)");
			return true;
		}
		/* The form stays as it was run; the other views stay open. */
		return k != '\t' && k != 'q' && (k < '1' || k > '4') && k != ':' && k != '?' &&
		       k != KEY_F(1) && k != KEY_F(2) && k != KEY_F(10);
	}
	if (bv->focus == FLD_HOST && k >= 0x21 && k < 0x7f) {
		size_t n = strlen(bv->host);
		if (n + 1 < sizeof(bv->host))
			bv->host[n] = (char)k, bv->host[n + 1] = '\0';
		return true;
	}
	if (k == KEY_BACKSPACE || k == 127 || k == 8) {
		if (bv->focus == FLD_HOST && bv->host[0])
			bv->host[strlen(bv->host) - 1] = '\0';
		return true;
	}
	const struct key_binding *b = keys_find(VIEW_BENCH, k);
	int dir = 0;
	switch (b ? b->action : KA_N) {
	case KA_FIELD_PREV:
		dir = -1;
		break;
	case KA_FIELD_NEXT:
		dir = 1;
		break;
	case KA_VALUE_PREV:
	case KA_VALUE_NEXT:
		bv_form_change(c, b->action == KA_VALUE_PREV ? -1 : 1);
		return true;
	case KA_RUN:
		run(c);
		return true;
	case KA_PGUP:
	case KA_PGDN:
		listw_move(&bv->runs, b->action == KA_PGUP ? LISTW_PGUP : LISTW_PGDN);
		bv->runs_follow = false;
		return true;
	case KA_BACK: /* Esc: back to the tree */
		c->view = VIEW_TREE;
		return true;
	default:
		return false;
	}
	do
		bv->focus = (enum field)((bv->focus + FLD_N + dir) % FLD_N);
	while (!bv_field_shown(bv, bv->focus));
	return true;
}

static void bench_ready(struct console *c, struct view *v)
{
	(void)v;
	console_benchview_read(c);
}

static bool bench_key(struct console *c, struct view *v, int k)
{
	(void)v;
	return c->mode == MODE_NORMAL && console_benchview_key(c, k);
}

/* A VF of the form gone from the node (and no run on it): the next one. */
static void bench_node_changed(struct console *c, struct view *v)
{
	struct bench_view *bv = v->state;
	const struct pf *pf;
	if (bv_job_running(bv))
		return;
	if (bv->vf[0] && !find_vf(c, bv->vf, &pf))
		bv_step_vf(c, bv->vf, 1, false);
	if (bv->peer_vf[0] && !find_vf(c, bv->peer_vf, &pf))
		bv_step_vf(c, bv->peer_vf, 1, false);
}

static void bench_enter(struct console *c, struct view *v)
{
	(void)v;
	console_benchview_enter(c);
}

void view_bench_init(struct console *c, struct view *v)
{
	(void)c;
	*v = (struct view){.name = "Bench",
			   .state = calloc(1, sizeof(struct bench_view)),
			   .key = bench_key,
			   .draw = bv_draw,
			   .enter = bench_enter,
			   .node_changed = bench_node_changed,
			   .fd = bench_fd,
			   .fd_ready = bench_ready,
			   .free = bench_free};
}
