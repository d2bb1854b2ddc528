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
#include "bench_sweep.h"
#include "bench_text.h"
#include "core/snapshot/json.h"
#include "core/model/node.h"
#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"

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
	/* The server thread's placement, for the report's peer block. */
	ret->peer_placement = srv->res.placement;
	snprintf(ret->peer, sizeof(ret->peer), "%s", a);
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

void bench_cli_print_json(struct json_object *o)
{
	if (json_object_is_type(o, json_type_object))
		json_object_object_add(o, "version", json_object_new_int(JSON_DOC_VERSION));
	cli_print_json_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
				      JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(o);
}

/* The text report of a result's JSON (and its verdict line); frees o. */
void bench_cli_print_text(struct json_object *o, bool mbps, bool verdict)
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
		char dev[64];
		text_escape_into(dev, sizeof(dev), t->ibdev);
		cli_error("bench on '%s': %s", dev, e.msg);
		if (o->json) {
			struct json_object *j = json_object_new_object();
			json_object_object_add(j, "device", json_object_new_string(t->ibdev));
			json_object_object_add(j, "error", json_object_new_string(e.msg));
			bench_cli_print_json(j);
		}
		free(res);
		return 1;
	}
	struct bench_verdict v;
	bench_judge(res, t, o->min_ratio, &v);
	if (o->json)
		bench_cli_print_json(bench_result_to_json(res, t, &v));
	else
		bench_cli_print_text(bench_result_to_json(res, t, &v), o->mbps, true);
	free(res);
	return v.pass ? 0 : 1;
}

/* The sweep's runner: one run of the command line's test on the job's VF
 * against the peer, judged by bench_judge(). */
struct single_test {
	const struct bench_opts *o;
	const char *host;     /* the remote server; NULL: pair mode */
	const char *peer_dev; /* pair mode: the peer device of this node */
};

static enum bench_sweep_status single_test(const struct bench_sweep_task *task, void *arg,
					   struct json_object **ret_row, char *why, size_t why_size)
{
	const struct single_test *a = arg;
	const struct bench_opts *o = a->o;
	const struct bench_target *t = &task->job->t;
	struct bench_config cfg = o->cfg;
	struct err e = {{0}};
	struct bench_verdict v = {0};
	struct bench_result *res = calloc(1, sizeof(*res));
	if (!res) {
		snprintf(why, why_size, "out of memory");
		return BENCH_SWEEP_ERROR;
	}
	cfg.tcp_port = task->port;
	int r = a->host ? bench_client_run(&cfg, a->host, t->ibdev, task->progress,
					   task->progress_arg, res, &e)
			: bench_pair_run(&cfg, a->peer_dev, t->ibdev, task->progress,
					 task->progress_arg, res, &e);
	if (r < 0) {
		snprintf(why, why_size, "%s", e.msg);
		free(res);
		return BENCH_SWEEP_ERROR;
	}
	bench_judge(res, t, o->min_ratio, &v);
	snprintf(why, why_size, "%s", v.reason);
	*ret_row = bench_result_to_json(res, t, &v);
	free(res);
	return v.pass ? BENCH_SWEEP_PASS : BENCH_SWEEP_FAIL;
}

/* The sweep's progress on stderr: every lane's fraction and Gb/s summed. */
struct sweep_bar {
	struct bar bar;
	double frac[64], gbps[64]; /* each lane's latest */
};

static void sweep_progress(size_t lane, size_t done, size_t total, const struct bench_progress *p,
			   void *arg)
{
	struct sweep_bar *sb = arg;
	double frac = 0, gbps = 0;
	if (lane >= sizeof(sb->frac) / sizeof(sb->frac[0]))
		return;
	sb->frac[lane] =
		p->n_sizes ? ((double)p->size_index + p->fraction) / p->n_sizes : p->fraction;
	sb->gbps[lane] = p->gbps;
	for (size_t i = 0; i < sizeof(sb->frac) / sizeof(sb->frac[0]); i++) {
		frac += sb->frac[i];
		gbps += sb->gbps[i];
	}
	sb->bar.done = (unsigned int)done;
	sb->bar.total = (unsigned int)total;
	bar_draw(&sb->bar, frac, gbps);
}

/* A finished VF: its line (text) under the bar; the lanes' figures start over. */
static void sweep_row(struct json_object *row, void *arg)
{
	struct sweep_bar *sb = arg;
	memset(sb->frac, 0, sizeof(sb->frac));
	memset(sb->gbps, 0, sizeof(sb->gbps));
	bar_clear(&sb->bar);
	text_render_print(stdout, row, bench_text_vf_row);
	fflush(stdout);
}

/* Every VF of the node against the peer (bench_sweep.h): one line per VF as
 * it finishes, then per PF, the node and the summary; with --json one
 * document holding it all. */
int bench_cli_all_vfs(const struct bench_opts *o, const struct node *n, const char *host,
		      const char *peer_dev)
{
	struct sweep_bar sb = {.bar = {.on = isatty(2) && !o->json}};
	snprintf(sb.bar.label, sizeof(sb.bar.label), "%s",
		 o->parallel ? "every PF at once" : "one VF after another");
	struct single_test st = {.o = o, .host = host, .peer_dev = peer_dev};
	struct bench_cli_sweep_config sc = {
		.run = single_test,
		.run_arg = &st,
		.test = exchange_test_name(o->cfg.test),
		.host = host,
		.port = o->cfg.tcp_port,
		.peer_dev = peer_dev,
		.parallel = o->parallel,
		.force = o->force,
		.cancel = &bench_interrupted,
		.on_row = o->json ? NULL : sweep_row,
		.on_progress = sb.bar.on ? sweep_progress : NULL,
		.hook_arg = &sb,
	};
	struct json_object *doc = NULL;
	if (bench_cli_sweep_check_ports(o->cfg.tcp_port, o->parallel, host, n) < 0)
		return EXIT_USAGE;
	int r = bench_cli_sweep_run(&sc, n, &doc);
	bar_clear(&sb.bar);
	if (r < 0) {
		cli_error("bench --all-vfs: cannot run the sweep: %s", strerror(-r));
		return 1;
	}
	if (o->json) {
		bench_cli_print_json(doc);
	} else {
		text_render_print(stdout, doc, bench_text_sweep_summary);
		json_object_put(doc);
	}
	return r;
}

/* The first RDMA device of the node, for a server or client without -d. */
