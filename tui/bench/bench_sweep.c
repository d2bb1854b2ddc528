// SPDX-License-Identifier: MIT
/* `--all-vfs` (bench_sweep.h): the VFs placed and pre-skipped, the lanes (one
 * thread per PF with `parallel`, else one), a peer's strikes, the rows and
 * the document. */
#include "bench_sweep.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cli.h"
#include "core/model/node.h"
#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"

struct item {
	const struct pf *pf;
	const struct vf *vf;
	struct bench_target t;
	size_t lane, pf_index;
	enum bench_sweep_status st;
	bool pre_skip, done;
	char why[600];
	double start, end;
	struct json_object *row;
};

struct sweep;

struct lane {
	struct sweep *s;
	size_t index;
	pthread_t th;
	bool started;
};

struct sweep {
	const struct bench_cli_sweep_config *cfg;
	struct item *items;
	size_t n, done;
	struct lane *lanes;
	size_t n_lanes;
	struct bench_sweep_strikes *strikes; /* per lane with a remote peer in parallel */
	bool strikes_per_lane;
	pthread_mutex_t mu; /* the strikes, done, the items' rows, the hooks */
	struct timespec t0;
};

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The link layer of port 1 of RDMA device ibdev of node n, NULL if unknown. */
static const char *rdma_link_layer(const struct rdma *rd)
{
	return rd && rd->n_ports ? rd->ports[0].link_layer : NULL;
}

static const char *find_link_layer(const struct node *n, const char *ibdev)
{
	for (size_t i = 0; ibdev && i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		for (size_t r = 0; r < pf->fn.n_rdmas; r++)
			if (!strcmp(pf->fn.rdmas[r].name, ibdev))
				return rdma_link_layer(&pf->fn.rdmas[r]);
		for (size_t j = 0; j < pf->n_vfs; j++)
			for (size_t r = 0; r < pf->vfs[j].fn.n_rdmas; r++)
				if (!strcmp(pf->vfs[j].fn.rdmas[r].name, ibdev))
					return rdma_link_layer(&pf->vfs[j].fn.rdmas[r]);
	}
	for (size_t i = 0; ibdev && i < n->n_orphans; i++)
		if (!strcmp(n->orphans[i].name, ibdev))
			return rdma_link_layer(&n->orphans[i]);
	return NULL;
}

/* Places every VF and decides those skipped before any run. */
static void items_fill(struct sweep *s, const struct node *n)
{
	const struct bench_cli_sweep_config *c = s->cfg;
	const char *peer_ll = c->host ? NULL : find_link_layer(n, c->peer_dev);
	size_t lane = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			struct item *it = &s->items[s->n++];
			const struct vf *vf = &n->pfs[i].vfs[j];
			const struct rdma *rd = vf->fn.n_rdmas ? &vf->fn.rdmas[0] : NULL;
			struct node_ref ref = {
				.pf = &n->pfs[i], .vf = vf, .fn = &vf->fn, .rdma = rd};
			char pod[320];
			const char *ll = rdma_link_layer(rd);
			it->pf = &n->pfs[i];
			it->vf = vf;
			it->lane = c->parallel ? lane : 0;
			it->pf_index = i;
			bench_target_from_ref(&ref, &it->t);
			it->pre_skip = true;
			it->st = BENCH_SWEEP_SKIP;
			if (!rd)
				snprintf(it->why, sizeof(it->why), "no RDMA device");
			else if (pods_holder_label(vf, pod, sizeof(pod)) && !c->force)
				snprintf(it->why, sizeof(it->why),
					 "bound to a pod (--force to include it)");
			else if (c->peer_dev && !strcmp(c->peer_dev, it->t.ibdev))
				snprintf(it->why, sizeof(it->why), "the peer itself");
			else if (ll && peer_ll && strcmp(ll, peer_ll))
				snprintf(
					it->why, sizeof(it->why),
					"link layers differ: this VF is %.20s, the peer '%.64s' is "
					"%.20s",
					ll, c->peer_dev, peer_ll);
			else
				it->pre_skip = false;
		}
		lane += n->pfs[i].n_vfs ? 1 : 0;
	}
	s->n_lanes = c->parallel ? lane : 1;
}

struct progress_ctx {
	struct sweep *s;
	size_t lane;
};

static void on_progress(const struct bench_progress *p, void *arg)
{
	struct progress_ctx *x = arg;
	struct sweep *s = x->s;
	pthread_mutex_lock(&s->mu);
	s->cfg->on_progress(x->lane, s->done, s->n, p, s->cfg->hook_arg);
	pthread_mutex_unlock(&s->mu);
}

/* The row of a finished item, its members added. */
static void finish_row(struct item *it, bool ran, bool peer_out)
{
	static const char *const names[] = {"PASS", "FAIL", "FAIL", "SKIP"};
	struct json_object *jo = it->row;
	if (!jo) {
		jo = json_object_new_object();
		json_object_object_add(jo, "device",
				       it->t.ibdev[0] ? json_object_new_string(it->t.ibdev) : NULL);
	}
	json_object_object_add(jo, "vf_bdf", json_object_new_string(it->vf->fn.bdf));
	json_object_object_add(jo, "pf_bdf", json_object_new_string(it->pf->fn.bdf));
	json_object_object_add(jo, "status", json_object_new_string(names[it->st]));
	if (it->st != BENCH_SWEEP_PASS)
		json_object_object_add(jo, "why", json_object_new_string(it->why));
	json_object_object_add(jo, "start_s", ran ? bench_sweep_json_secs(it->start) : NULL);
	json_object_object_add(jo, "end_s", ran ? bench_sweep_json_secs(it->end) : NULL);
	if (peer_out)
		json_object_object_add(jo, "peer_out", json_object_new_boolean(true));
	it->row = jo;
}

static void run_item(struct sweep *s, struct item *it)
{
	const struct bench_cli_sweep_config *c = s->cfg;
	struct bench_sweep_strikes *k = &s->strikes[s->strikes_per_lane ? it->lane : 0];
	bool ran = false, out = false;
	pthread_mutex_lock(&s->mu);
	bool peer_out = !it->pre_skip && bench_sweep_peer_out(k, it->why, sizeof(it->why));
	pthread_mutex_unlock(&s->mu);
	if (!it->pre_skip && !peer_out) {
		struct progress_ctx x = {.s = s, .lane = it->lane};
		struct bench_sweep_vf v = {
			.t = &it->t,
			.host = c->host,
			.port = (uint16_t)(c->port + (c->parallel && c->host ? it->pf_index : 0)),
			.pf_index = it->pf_index,
			.peer_dev = c->peer_dev,
			.lane = it->lane,
			.progress = c->on_progress ? on_progress : NULL,
			.progress_arg = &x,
		};
		it->start = since(&s->t0);
		it->st = c->run(&v, c->run_arg, &it->row, it->why, sizeof(it->why));
		it->end = since(&s->t0);
		ran = it->st != BENCH_SWEEP_SKIP;
		/* A run the interruption stopped is not a failure of the VF. */
		if (it->st == BENCH_SWEEP_ERROR && c->cancel && atomic_load(c->cancel)) {
			it->st = BENCH_SWEEP_SKIP;
			snprintf(it->why, sizeof(it->why), "interrupted");
		}
	}
	pthread_mutex_lock(&s->mu);
	if (ran && !(c->cancel && atomic_load(c->cancel)))
		out = k->n < BENCH_SWEEP_STRIKES && bench_sweep_strike(k, &it->t, it->st, it->why);
	finish_row(it, ran, out);
	it->done = true;
	s->done++;
	if (c->on_row)
		c->on_row(it->row, c->hook_arg);
	pthread_mutex_unlock(&s->mu);
}

static void *lane_main(void *arg)
{
	struct lane *l = arg;
	struct sweep *s = l->s;
	for (size_t i = 0; i < s->n; i++) {
		if (s->cfg->cancel && atomic_load(s->cfg->cancel))
			break;
		if (s->items[i].lane == l->index)
			run_item(s, &s->items[i]);
	}
	return NULL;
}

/* The port rate of each PF, for the aggregates: its own port's, else its
 * first VF's with a known rate (a VF's port reports its PF's). */
static struct json_object *pf_rates(const struct sweep *s)
{
	struct json_object *o = json_object_new_object();
	for (size_t i = 0; i < s->n; i++) {
		const struct pf *pf = s->items[i].pf;
		struct json_object *v;
		double g = -1;
		if (json_object_object_get_ex(o, pf->fn.bdf, &v))
			continue;
		const struct rdma *rd = pf->fn.n_rdmas ? &pf->fn.rdmas[0] : NULL;
		if (rd && rd->n_ports && rd->ports[0].rate_mbps.known)
			g = (double)rd->ports[0].rate_mbps.v / 1000.0;
		else if (s->items[i].t.rate_gbps > 0)
			g = s->items[i].t.rate_gbps;
		if (g > 0)
			json_object_object_add(o, pf->fn.bdf, json_object_new_double(g));
	}
	return o;
}

static struct json_object *document(struct sweep *s, double wall)
{
	const struct bench_cli_sweep_config *c = s->cfg;
	struct json_object *doc = json_object_new_object(), *vfs = json_object_new_array();
	int pass = 0, fail = 0, skip = 0;
	char peer[300];
	for (size_t i = 0; i < s->n; i++) {
		struct item *it = &s->items[i];
		if (!it->done)
			continue;
		pass += it->st == BENCH_SWEEP_PASS;
		fail += it->st == BENCH_SWEEP_FAIL || it->st == BENCH_SWEEP_ERROR;
		skip += it->st == BENCH_SWEEP_SKIP;
		json_object_array_add(vfs, it->row);
		it->row = NULL;
	}
	if (c->host)
		snprintf(peer, sizeof(peer), "%.255s", c->host);
	else
		snprintf(peer, sizeof(peer), "%.255s", c->peer_dev ? c->peer_dev : "");
	json_object_object_add(doc, "test", json_object_new_string(c->test ? c->test : ""));
	json_object_object_add(doc, "peer", json_object_new_string(peer));
	json_object_object_add(doc, "parallel", json_object_new_boolean(c->parallel));
	json_object_object_add(doc, "interrupted",
			       json_object_new_boolean(c->cancel && atomic_load(c->cancel)));
	json_object_object_add(doc, "vfs", vfs);
	struct json_object *rates = pf_rates(s), *pfs = bench_sweep_pf_aggregates(vfs, rates);
	json_object_put(rates);
	json_object_object_add(doc, "pfs", pfs);
	json_object_object_add(doc, "node", bench_sweep_node_aggregate(vfs, pfs, wall));
	json_object_object_add(doc, "summary", bench_sweep_summary(pass, fail, skip, (int)s->n));
	return doc;
}

struct json_object *bench_sweep_summary(int pass, int fail, int skip, int total)
{
	struct json_object *sum = json_object_new_object();
	json_object_object_add(sum, "pass", json_object_new_int(pass));
	json_object_object_add(sum, "fail", json_object_new_int(fail));
	json_object_object_add(sum, "skip", json_object_new_int(skip));
	json_object_object_add(sum, "total", json_object_new_int(total));
	return sum;
}

int bench_cli_sweep_check_opts(const struct bench_opts *o)
{
	if (o->parallel && !o->all_vfs) {
		cli_error("--parallel runs with --all-vfs (one worker per PF)");
		return -EINVAL;
	}
	if (o->all_pfs && o->dev) {
		cli_error("--all-pfs serves every PF: no -d");
		return -EINVAL;
	}
	return 0;
}

int bench_cli_sweep_check_ports(uint16_t port, bool parallel, const char *host,
				const struct node *n)
{
	if (host && parallel && bench_sweep_last_port(port, n->n_pfs) > 65535) {
		cli_error("--parallel meets PF i on port %u+i: past 65535 with %zu PFs; use a "
			  "lower --port",
			  port, n->n_pfs);
		return -EINVAL;
	}
	return 0;
}

int bench_cli_sweep_run(const struct bench_cli_sweep_config *cfg, const struct node *n,
			struct json_object **ret_doc)
{
	struct sweep s = {.cfg = cfg};
	size_t total = 0;
	int r = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		total += n->pfs[i].n_vfs;
	s.items = calloc(total ? total : 1, sizeof(*s.items));
	s.lanes = calloc(n->n_pfs ? n->n_pfs : 1, sizeof(*s.lanes));
	s.strikes = calloc(n->n_pfs ? n->n_pfs : 1, sizeof(*s.strikes));
	if (!s.items || !s.lanes || !s.strikes) {
		r = -ENOMEM;
		goto out;
	}
	s.strikes_per_lane = cfg->parallel && cfg->host;
	pthread_mutex_init(&s.mu, NULL);
	clock_gettime(CLOCK_MONOTONIC, &s.t0);
	items_fill(&s, n);
	for (size_t l = 0; l < s.n_lanes; l++) {
		s.lanes[l] = (struct lane){.s = &s, .index = l};
		if (s.n_lanes == 1) {
			lane_main(&s.lanes[l]);
		} else if ((r = pthread_create(&s.lanes[l].th, NULL, lane_main, &s.lanes[l]))) {
			/* The lanes started run on; this one and the rest are cancelled. */
			r = -r;
			break;
		} else {
			s.lanes[l].started = true;
		}
	}
	for (size_t l = 0; l < s.n_lanes; l++)
		if (s.lanes[l].started)
			pthread_join(s.lanes[l].th, NULL);
	if (r == 0)
		*ret_doc = document(&s, since(&s.t0));
	pthread_mutex_destroy(&s.mu);
	for (size_t i = 0; i < s.n; i++)
		json_object_put(s.items[i].row);
out:
	free(s.items);
	free(s.lanes);
	free(s.strikes);
	if (r < 0)
		return r;
	json_object *sum = json_object_object_get(*ret_doc, "summary");
	int fail = json_object_get_int(json_object_object_get(sum, "fail")),
	    pass = json_object_get_int(json_object_object_get(sum, "pass"));
	return fail || !pass ? 1 : 0;
}
