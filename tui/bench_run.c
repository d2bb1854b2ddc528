// SPDX-License-Identifier: MIT
/* `ibvf bench`'s runs: one device against a server or a device of this node
 * (two threads), every VF in turn (--all-vfs), and the server loop; the
 * progress bar on stderr and the reports on stdout. */
#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cli.h"
#include "bench_text.h"
#include "core/node.h"
#include "core/pods.h"
#include "core/resolve.h"

/* --- progress -------------------------------------------------------------- */

struct bar {
	bool on; /* stderr is a terminal */
	unsigned int done, total;
	char label[96];
};

static void bar_draw(const struct bar *b, double frac, double gbps)
{
	if (!b->on)
		return;
	double all = b->total ? ((double)b->done + frac) / b->total : frac;
	int w = 30, fill = (int)(all * w);
	fprintf(stderr, "\r[%.*s%*s] %3.0f%% %-28s %8.2f Gb/s", fill,
		"##############################", w - fill, "", 100 * all, b->label, gbps);
	fflush(stderr);
}

static void bar_clear(const struct bar *b)
{
	if (b->on)
		fprintf(stderr, "\r%*s\r", 90, "");
}

static void on_progress(const struct bench_progress *p, void *arg)
{
	double frac = p->n_sizes ? ((double)p->size_index + p->fraction) / p->n_sizes : p->fraction;
	bar_draw(arg, frac, p->gbps);
}

/* --- running ------------------------------------------------------------------ */

struct side {
	struct bench_config cfg;
	struct bench_result res;
	bench_progress_fn progress;
	void *progress_arg;
	int rc;
	atomic_bool *peer_cancel; /* the other thread's, set when this side fails */
};

static void *side_main(void *arg)
{
	struct side *s = arg;
	s->rc = bench_run(&s->cfg, s->progress, s->progress_arg, &s->res);
	if (s->rc < 0 && s->peer_cancel)
		atomic_store(s->peer_cancel, true);
	return NULL;
}

/* Two devices of this node, a server thread on a and this thread as the
 * client on b, over 127.0.0.1 on an ephemeral port. */
int bench_pair_run(const struct bench_config *cfg, const char *a, const char *b,
		   bench_progress_fn progress, void *progress_arg, struct bench_result *ret,
		   struct err *e)
{
	int lfd;
	uint16_t port;
	int r = exchange_listen("127.0.0.1", 0, &lfd, &port, e);
	if (r < 0)
		return r;
	atomic_bool server_cancel = false;
	struct side *srv = calloc(1, sizeof(*srv)), *cli = calloc(1, sizeof(*cli));
	if (!srv || !cli) {
		free(srv);
		free(cli);
		close(lfd);
		return err_setx(e, ENOMEM, "out of memory");
	}
	srv->cfg = *cfg;
	srv->cfg.server = true;
	srv->cfg.ibdev = a;
	srv->cfg.listen_fd = lfd;
	srv->cfg.tcp_port = port;
	srv->cfg.pinned = 0;
	srv->cfg.cancel = &server_cancel;
	srv->cfg.cm_addr = cfg->cm_peer_addr;
	srv->cfg.cm_peer_addr = NULL;
	cli->cfg = *cfg;
	cli->cfg.ibdev = b;
	cli->cfg.host = "127.0.0.1";
	cli->cfg.tcp_port = port;
	cli->progress = progress;
	cli->progress_arg = progress_arg;
	cli->peer_cancel = &server_cancel;
	pthread_t th;
	if ((r = pthread_create(&th, NULL, side_main, srv))) {
		close(lfd);
		free(srv);
		free(cli);
		return err_set(e, r, "cannot start the server thread");
	}
	side_main(cli);
	pthread_join(th, NULL);
	close(lfd);
	*ret = cli->res;
	r = cli->rc;
	if (r < 0)
		snprintf(e->msg, sizeof(e->msg), "%s", cli->res.err.msg);
	if (r < 0 && srv->rc < 0 && srv->rc != -ECANCELED)
		snprintf(e->msg + strlen(e->msg), sizeof(e->msg) - strlen(e->msg),
			 " (server side on '%.60s': %.200s)", a, srv->res.err.msg);
	else if (r == 0 && srv->rc < 0)
		r = err_setx(e, -srv->rc, "server side on '%.60s': %.400s", a, srv->res.err.msg);
	free(srv);
	free(cli);
	return r;
}

/* This node's device dev against a server at host. */
int bench_client_run(const struct bench_config *cfg0, const char *host, const char *dev,
		     bench_progress_fn progress, void *progress_arg, struct bench_result *ret,
		     struct err *e)
{
	struct bench_config cfg = *cfg0;
	cfg.host = host;
	cfg.ibdev = dev;
	int r = bench_run(&cfg, progress, progress_arg, ret);
	if (r < 0)
		snprintf(e->msg, sizeof(e->msg), "%s", ret->err.msg);
	return r;
}

static void print_json(struct json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* The text report of a result's JSON (and its verdict line); frees o. */
static void print_text(struct json_object *o, bool mbps, bool verdict)
{
	struct text t = {0};
	bench_text_report(&t, o, mbps);
	if (verdict)
		bench_text_verdict(&t, o);
	text_print(stdout, &t);
	text_clear(&t);
	json_object_put(o);
}

/* One device against its peer (a server, or a device of this node). */
int bench_cli_run_one(const struct bench_opts *o, const struct bench_target *t, const char *host,
		      const char *peer_dev)
{
	struct bar bar = {.on = isatty(2) && !o->json, .total = 1};
	snprintf(bar.label, sizeof(bar.label), "%s", t->ibdev);
	struct bench_result *res = calloc(1, sizeof(*res));
	struct err e = {{0}};
	if (!res)
		return 1;
	int r = host ? bench_client_run(&o->cfg, host, t->ibdev, on_progress, &bar, res, &e)
		     : bench_pair_run(&o->cfg, peer_dev, t->ibdev, on_progress, &bar, res, &e);
	bar_clear(&bar);
	if (r < 0) {
		cli_error("bench on '%s': %s", t->ibdev, e.msg);
		if (o->json) {
			struct json_object *j = json_object_new_object();
			json_object_object_add(j, "device", json_object_new_string(t->ibdev));
			json_object_object_add(j, "error", json_object_new_string(e.msg));
			print_json(j);
		}
		free(res);
		return 1;
	}
	struct bench_verdict v;
	bench_judge(res, t, o->min_ratio, &v);
	if (o->json)
		print_json(bench_result_to_json(res, t, &v));
	else
		print_text(bench_result_to_json(res, t, &v), o->mbps, true);
	free(res);
	return v.pass ? 0 : 1;
}

/* Every VF of the node against the peer: one line per VF, a summary, and
 * with --json one document holding every VF. */
int bench_cli_all_vfs(const struct bench_opts *o, const struct node *n, const char *host,
		      const char *peer_dev)
{
	unsigned int total = 0, pass = 0, fail = 0, skip = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		total += (unsigned int)n->pfs[i].n_vfs;
	struct bar bar = {.on = isatty(2), .total = total};
	struct json_object *arr = json_object_new_array();
	struct bench_result *res = calloc(1, sizeof(*res));
	if (!res)
		return 1;
	for (size_t i = 0; i < n->n_pfs && !atomic_load(&bench_interrupted); i++) {
		for (size_t j = 0; j < n->pfs[i].n_vfs && !atomic_load(&bench_interrupted); j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			struct json_object *jo = NULL;
			const char *status, *why = "";
			struct bench_target t;
			struct err e = {{0}};
			struct bench_verdict v = {0};
			const struct rdma *rd = vf->fn.n_rdmas ? &vf->fn.rdmas[0] : NULL;
			struct node_ref ref = {
				.pf = &n->pfs[i], .vf = vf, .fn = &vf->fn, .rdma = rd};
			bench_target_from_ref(&ref, &t);
			snprintf(bar.label, sizeof(bar.label), "%.15s %.63s", vf->fn.bdf, t.ibdev);
			char pbuf[320];
			const char *pod = pods_holder_label(vf, pbuf, sizeof(pbuf));
			if (!rd) {
				status = "SKIP", why = "no RDMA device";
			} else if (pod && !o->force) {
				status = "SKIP", why = "bound to a pod (--force to include it)";
			} else if (peer_dev && !strcmp(peer_dev, t.ibdev)) {
				status = "SKIP", why = "the peer itself";
			} else {
				int r = host ? bench_client_run(&o->cfg, host, t.ibdev, on_progress,
								&bar, res, &e)
					     : bench_pair_run(&o->cfg, peer_dev, t.ibdev,
							      on_progress, &bar, res, &e);
				if (r < 0) {
					status = "FAIL", why = e.msg;
				} else {
					bench_judge(res, &t, o->min_ratio, &v);
					status = v.pass ? "PASS" : "FAIL";
					why = v.reason;
					jo = bench_result_to_json(res, &t, &v);
				}
			}
			bar.done++;
			bar_clear(&bar);
			if (!strcmp(status, "PASS"))
				pass++;
			else if (!strcmp(status, "FAIL"))
				fail++;
			else
				skip++;
			if (!jo) {
				jo = json_object_new_object();
				json_object_object_add(jo, "device",
						       t.ibdev[0] ? json_object_new_string(t.ibdev)
								  : NULL);
			}
			json_object_object_add(jo, "vf_bdf", json_object_new_string(vf->fn.bdf));
			json_object_object_add(jo, "status", json_object_new_string(status));
			if (strcmp(status, "PASS"))
				json_object_object_add(jo, "why", json_object_new_string(why));
			json_object_array_add(arr, jo);
			if (!o->json)
				text_render_print(stdout, jo, bench_text_vf_row);
			fflush(stdout);
		}
	}
	free(res);
	struct json_object *doc = json_object_new_object();
	json_object_object_add(doc, "test",
			       json_object_new_string(exchange_test_name(o->cfg.test)));
	json_object_object_add(doc, "peer", json_object_new_string(host ? host : peer_dev));
	json_object_object_add(doc, "vfs", arr);
	struct json_object *sum = json_object_new_object();
	json_object_object_add(sum, "pass", json_object_new_int((int)pass));
	json_object_object_add(sum, "fail", json_object_new_int((int)fail));
	json_object_object_add(sum, "skip", json_object_new_int((int)skip));
	json_object_object_add(sum, "total", json_object_new_int((int)total));
	json_object_object_add(doc, "summary", sum);
	if (o->json) {
		print_json(doc);
	} else {
		text_render_print(stdout, sum, bench_text_vfs_summary);
		json_object_put(doc);
	}
	return fail || !pass ? 1 : 0;
}

/* Serves clients one after another until interrupted (or one, --once). */
int bench_cli_server(const struct bench_opts *o, const char *dev)
{
	int lfd;
	uint16_t port;
	struct err e = {{0}};
	struct bench_config cfg = o->cfg;
	cfg.server = true;
	cfg.ibdev = dev;
	cfg.cancel = &bench_interrupted;
	if (exchange_listen(NULL, cfg.tcp_port, &lfd, &port, &e) < 0) {
		cli_error("bench server: %s", e.msg);
		return 1;
	}
	cfg.listen_fd = lfd;
	fprintf(stderr, "ibvf: bench server on '%s', TCP port %u%s\n", dev, port,
		cfg.cm ? " (rdma_cm on the same port number)" : "");
	struct bench_result *res = calloc(1, sizeof(*res));
	int rc = 0;
	while (res && !atomic_load(&bench_interrupted)) {
		int r = bench_run(&cfg, NULL, NULL, res);
		if (r == -ECANCELED && atomic_load(&bench_interrupted))
			break;
		if (r < 0) {
			cli_error("bench server: %s", res->err.msg);
			rc = 1;
		} else {
			rc = 0;
			struct bench_target t = {.vf_index = -1, .rate_gbps = -1};
			snprintf(t.ibdev, sizeof(t.ibdev), "%s", dev);
			if (o->json)
				print_json(bench_result_to_json(res, &t, NULL));
			else if (!bench_is_latency(res->test))
				print_text(bench_result_to_json(res, &t, NULL), o->mbps, false);
			else
				printf("%s session done (the client reports latency)\n",
				       exchange_test_name(res->test));
			fflush(stdout);
		}
		if (o->once)
			break;
	}
	free(res);
	close(lfd);
	return rc;
}

/* The first RDMA device of the node, for a server or client without -d. */
