// SPDX-License-Identifier: MIT
/* `--all-vfs` (bench_sweep.h): the node's VFs as the scheduler's jobs
 * (bench/sweep.h), placed and pre-skipped; their rows and the document. */
#include "bench_sweep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cli.h"
#include "core/model/node.h"
#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"

struct sweep {
	const struct bench_cli_sweep_config *cfg;
	const struct node *node;
	struct bench_sweep_job *jobs;
	size_t n_jobs;
};

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

/* Every VF as a job, placed, on its PF's rail; those skipped before any run. */
static void jobs_fill(struct sweep *s)
{
	const struct bench_cli_sweep_config *c = s->cfg;
	const struct node *n = s->node;
	const char *peer_ll = c->host ? NULL : find_link_layer(n, c->peer_dev);
	for (size_t i = 0; i < n->n_pfs; i++) {
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			struct bench_sweep_job *job = &s->jobs[s->n_jobs++];
			const struct vf *vf = &n->pfs[i].vfs[j];
			const struct rdma *rd = vf->fn.n_rdmas ? &vf->fn.rdmas[0] : NULL;
			struct node_ref ref = {
				.pf = &n->pfs[i], .vf = vf, .fn = &vf->fn, .rdma = rd};
			char pod[320];
			const char *ll = rdma_link_layer(rd);
			job->rail = i;
			bench_target_from_ref(&ref, &job->t);
			job->skip = true;
			if (!rd)
				snprintf(job->why, sizeof(job->why), "no RDMA device");
			else if (pods_holder_label(vf, pod, sizeof(pod)) && !c->force)
				snprintf(job->why, sizeof(job->why),
					 "bound to a pod (--force to include it)");
			else if (c->peer_dev && !strcmp(c->peer_dev, job->t.ibdev))
				snprintf(job->why, sizeof(job->why), "the peer itself");
			else if (ll && peer_ll && strcmp(ll, peer_ll))
				snprintf(
					job->why, sizeof(job->why),
					"link layers differ: this VF is %.20s, the peer '%.64s' is "
					"%.20s",
					ll, c->peer_dev, peer_ll);
			else
				job->skip = false;
		}
	}
}

static void on_progress(const struct bench_sweep_job *job, size_t done, size_t total,
			const struct bench_progress *p, void *arg)
{
	const struct sweep *s = arg;
	s->cfg->on_progress(job->lane, done, total, p, s->cfg->hook_arg);
}

/* A finished job's row: the runner's (or one naming the device) with the
 * sweep's members added; then the caller's hook. */
static void on_done(struct bench_sweep_job *job, size_t done, size_t total, void *arg)
{
	static const char *const names[] = {"PASS", "FAIL", "FAIL", "SKIP"};
	const struct sweep *s = arg;
	struct json_object *jo = job->row;
	if (!jo) {
		jo = json_object_new_object();
		json_object_object_add(jo, "device",
				       job->t.ibdev[0] ? json_object_new_string(job->t.ibdev)
						       : NULL);
	}
	json_object_object_add(jo, "vf_bdf", json_object_new_string(job->t.bdf));
	json_object_object_add(jo, "pf_bdf", json_object_new_string(job->t.pf_bdf));
	json_object_object_add(jo, "status", json_object_new_string(names[job->status]));
	if (job->status != BENCH_SWEEP_PASS)
		json_object_object_add(jo, "why", json_object_new_string(job->why));
	json_object_object_add(jo, "start_s",
			       job->ran ? bench_sweep_json_secs(job->start_s) : NULL);
	json_object_object_add(jo, "end_s", job->ran ? bench_sweep_json_secs(job->end_s) : NULL);
	if (job->peer_out)
		json_object_object_add(jo, "peer_out", json_object_new_boolean(true));
	job->row = jo;
	if (s->cfg->on_row)
		s->cfg->on_row(jo, s->cfg->hook_arg);
}

/* The port rate of each PF, for the aggregates: its own port's, else its
 * first VF's with a known rate (a VF's port reports its PF's). */
static struct json_object *pf_rates(const struct sweep *s)
{
	struct json_object *o = json_object_new_object();
	for (size_t i = 0; i < s->n_jobs; i++) {
		const struct pf *pf = &s->node->pfs[s->jobs[i].rail];
		struct json_object *v;
		double g = -1;
		if (json_object_object_get_ex(o, pf->fn.bdf, &v))
			continue;
		const struct rdma *rd = pf->fn.n_rdmas ? &pf->fn.rdmas[0] : NULL;
		if (rd && rd->n_ports && rd->ports[0].rate_mbps.known)
			g = (double)rd->ports[0].rate_mbps.v / 1000.0;
		else if (s->jobs[i].t.rate_gbps > 0)
			g = s->jobs[i].t.rate_gbps;
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
	for (size_t i = 0; i < s->n_jobs; i++) {
		struct bench_sweep_job *j = &s->jobs[i];
		if (!j->done)
			continue;
		pass += j->status == BENCH_SWEEP_PASS;
		fail += j->status == BENCH_SWEEP_FAIL || j->status == BENCH_SWEEP_ERROR;
		skip += j->status == BENCH_SWEEP_SKIP;
		json_object_array_add(vfs, j->row);
		j->row = NULL;
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
	json_object_object_add(doc, "summary",
			       bench_sweep_summary(pass, fail, skip, (int)s->n_jobs));
	return doc;
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
	struct sweep s = {.cfg = cfg, .node = n};
	size_t total = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		total += n->pfs[i].n_vfs;
	s.jobs = calloc(total ? total : 1, sizeof(*s.jobs));
	if (!s.jobs)
		return -ENOMEM;
	jobs_fill(&s);
	struct bench_sweep_config sc = {
		.jobs = s.jobs,
		.n_jobs = s.n_jobs,
		.run = cfg->run,
		.run_arg = cfg->run_arg,
		.parallel = cfg->parallel,
		.port = cfg->port,
		/* Every PF at once against a remote host: PF i's server on PORT+i. */
		.rail_ports = cfg->parallel && cfg->host,
		.strikes = true,
		.cancel = cfg->cancel,
		.on_progress = cfg->on_progress ? on_progress : NULL,
		.on_done = on_done,
		.hook_arg = &s,
	};
	struct bench_sweep_stats st;
	int r = bench_sweep_run(&sc, &st);
	if (r == 0)
		*ret_doc = document(&s, st.wall_s);
	for (size_t i = 0; i < s.n_jobs; i++)
		json_object_put(s.jobs[i].row);
	free(s.jobs);
	if (r < 0)
		return r;
	json_object *sum = json_object_object_get(*ret_doc, "summary");
	int fail = json_object_get_int(json_object_object_get(sum, "fail")),
	    pass = json_object_get_int(json_object_object_get(sum, "pass"));
	return fail || !pass ? 1 : 0;
}
