// SPDX-License-Identifier: MIT
/* `ibvf bench validate [DEV] PEER` and client/pair --profile validate: the
 * options, the peer's placing, every VF in turn, the document and the text
 * (bench_validate.h). */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/profile.h"
#include "bench_text.h"
#include "bench_sweep.h"
#include "bench_validate.h"
#include "core/snapshot/json.h"
#include "core/model/node.h"
#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"
#include "core/sys/sys.h"

int bench_validate_parse_opt(struct bench_opts *o, int code, const char *arg, int *r)
{
	char *end, shown[64]; /* the value as typed, escaped and cut for a message */
	*r = 0;
	text_escape_into(shown, sizeof(shown), arg);
	switch (code) {
	case BENCH_O_PROFILE:
		if (strcmp(arg, "validate")) {
			cli_error("unknown profile '%s' (validate)", shown);
			*r = -EINVAL;
		}
		o->validate = true;
		return 1;
	case BENCH_O_NO_HISTORY:
		o->no_history = true;
		return 1;
	case BENCH_O_MAX_LAT:
		o->max_lat_us = strtod(arg, &end);
		if (end == arg || *end || !(o->max_lat_us > 0) || o->max_lat_us > 1e6) {
			cli_error("--max-lat wants microseconds above 0 up to 1000000, got '%s'",
				  shown);
			*r = -EINVAL;
		}
		return 1;
	}
	return 0;
}

int bench_validate_check_opts(struct bench_opts *o, const char *mode)
{
	const struct bench_config *c = &o->cfg;
	/* --profile is for client, pair and validate (their table). */
	o->validate |= !strcmp(mode, "validate");
	const char *bad = c->iters					? "--iters"
			  : c->all_sizes				? "--all-sizes"
			  : c->bidir					? "--bidir"
			  : c->size					? "--size"
			  : (c->pinned & EXCHANGE_PIN(EXCHANGE_P_TEST)) ? "--test"
									: NULL;
	if (o->validate && bad) {
		cli_error("%s does not go with the validation profile: it runs its own tests "
			  "(write_bw, read_bw, write_lat, read_lat by --duration)",
			  bad);
		return -EINVAL;
	}
	if (!o->validate && (o->no_history || o->max_lat_us > 0)) {
		cli_error(
			"%s goes with the validation profile (bench validate, --profile validate)",
			o->no_history ? "--no-history" : "--max-lat");
		return -EINVAL;
	}
	return 0;
}

/* --- the progress bar (stderr, a terminal only) ------------------------------- */

struct vbar {
	bool on;
	unsigned int done, total;
	char label[96];
};

static void on_progress(const struct bench_progress *p, void *arg)
{
	struct vbar *b = arg;
	if (!b->on)
		return;
	double frac = ((double)p->size_index + p->fraction) / BENCH_PROFILE_TESTS;
	double all = b->total ? ((double)b->done + frac) / b->total : frac;
	int w = 30, fill = (int)(all * w);
	fprintf(stderr, "\r[%.*s%*s] %3.0f%% %-28s %-9s %8.2f Gb/s", fill,
		"##############################", w - fill, "", 100 * all, b->label,
		exchange_test_name(bench_profile_tests[p->size_index % BENCH_PROFILE_TESTS]),
		p->gbps);
	fflush(stderr);
}

static void bar_clear(const struct vbar *b)
{
	if (b->on)
		fprintf(stderr, "\r%*s\r", 100, "");
}

/* --- running ------------------------------------------------------------------ */

/* Prints a row's warnings not said yet (seen: those said) and its text. */
static void show_row(const struct bench_opts *o, struct json_object *row, bool full,
		     struct json_object *seen)
{
	struct json_object *w = json_object_object_get(row, "warnings");
	for (size_t i = 0; w && i < json_object_array_length(w); i++) {
		struct json_object *m = json_object_array_get_idx(w, i);
		bool said = false;
		for (size_t k = 0; k < json_object_array_length(seen) && !said; k++)
			said = json_object_equal(m, json_object_array_get_idx(seen, k));
		if (said)
			continue;
		json_object_array_add(seen, json_object_get(m));
		char *s = text_escape(json_object_get_string(m));
		fprintf(stderr, "ibvf: warning: %s\n", s ? s : "?");
		free(s);
	}
	if (!o->json)
		text_render_print(stdout, row,
				  full ? bench_validate_text_row_full
				       : bench_validate_text_row_short);
	fflush(stdout);
}

/* The document's profile members; prints it (--json) or the summary. */
static void finish_doc(const struct bench_opts *o, const struct validate_peer *p,
		       struct json_object *doc, unsigned int drops, bool sweep)
{
	char hist[4096];
	bench_validate_history_path(o, hist, sizeof(hist));
	json_object_object_add(doc, "version", json_object_new_int(JSON_DOC_VERSION));
	json_object_object_add(doc, "profile", json_object_new_string("validate"));
	json_object_object_add(doc, "peer", json_object_new_string(p->peer_id));
	json_object_object_add(doc, "mode", json_object_new_string(p->host ? "client" : "pair"));
	json_object_object_add(doc, "history_file", json_object_new_string(hist));
	json_object_object_add(doc, "history_recorded", json_object_new_boolean(!o->no_history));
	json_object_object_add(json_object_object_get(doc, "summary"), "history_drops",
			       json_object_new_int((int)drops));
	if (o->json)
		cli_print_json_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						JSON_C_TO_STRING_NOSLASHESCAPE);
	else if (sweep)
		text_render_print(stdout, doc, bench_text_sweep_summary);
	json_object_put(doc);
}

/* One VF: its row, the document around it. */
static int run_one(const struct bench_opts *o, const struct bench_target *t,
		   const struct validate_peer *p)
{
	struct vbar bar = {.on = isatty(2) && !o->json, .total = 1};
	struct json_object *row = NULL, *seen = json_object_new_array();
	snprintf(bar.label, sizeof(bar.label), "%.15s %.12s", t->bdf, t->ibdev);
	int rc = bench_validate_vf(o, t, p, on_progress, &bar, &row);
	bar_clear(&bar);
	show_row(o, row, true, seen);
	json_object_put(seen);
	unsigned int drops =
		(unsigned int)json_object_get_int(json_object_object_get(row, "history_drops"));
	struct json_object *doc = json_object_new_object();
	json_object_object_add(doc, "test", json_object_new_string("validate"));
	json_object_object_add(doc, "vfs", json_object_new_array());
	json_object_array_add(json_object_object_get(doc, "vfs"), row);
	json_object_object_add(doc, "summary", bench_sweep_summary(!rc, !!rc, 0, 1));
	finish_doc(o, p, doc, drops, false);
	return rc;
}

/* --all-vfs: the sweep (bench_sweep.h) with a validation per VF. */
struct sweep_arg {
	const struct bench_opts *o;
	const struct validate_peer *p;
	struct vbar bar;
	struct json_object *seen;
	unsigned int drops;
};

static enum bench_sweep_status sweep_vf(const struct bench_sweep_task *task, void *arg,
					struct json_object **ret_row, char *why, size_t why_size)
{
	const struct sweep_arg *a = arg;
	struct bench_opts o = *a->o;
	o.cfg.tcp_port = task->port;
	int rc = bench_validate_vf(&o, &task->job->t, a->p, task->progress, task->progress_arg,
				   ret_row);
	const char *w = json_object_get_string(json_object_object_get(*ret_row, "why"));
	snprintf(why, why_size, "%s", w ? w : "every test at its verdict");
	if (!rc)
		return BENCH_SWEEP_PASS;
	/* Not one test ran: an error (the sweep's three strikes count it). */
	struct json_object *tests = json_object_object_get(*ret_row, "tests");
	for (size_t i = 0; i < json_object_array_length(tests); i++)
		if (!json_object_object_get(json_object_array_get_idx(tests, i), "error"))
			return BENCH_SWEEP_FAIL;
	return BENCH_SWEEP_ERROR;
}

static void sweep_row(struct json_object *row, void *arg)
{
	struct sweep_arg *a = arg;
	bar_clear(&a->bar);
	a->drops += (unsigned int)json_object_get_int(json_object_object_get(row, "history_drops"));
	show_row(a->o, row, false, a->seen);
}

static void sweep_progress(size_t lane, size_t done, size_t total, const struct bench_progress *p,
			   void *arg)
{
	struct sweep_arg *a = arg;
	(void)lane;
	a->bar.done = (unsigned int)done;
	a->bar.total = (unsigned int)total;
	on_progress(p, &a->bar);
}

/* o's node root (the state dir is under it) as the journal has it. */
static void state_root(const struct bench_opts *o, char *buf, size_t size)
{
	struct sys *s;
	snprintf(buf, size, "%s", o->state_root ? o->state_root : "/");
	if (!o->state_root && o->cli && cli_open(o->cli, &s) == 0) {
		snprintf(buf, size, "%s", sys_root(s));
		sys_close(s);
	}
}

int bench_validate_run(const struct bench_opts *o0, const struct node *n,
		       const struct bench_target *one, const struct validate_peer *p)
{
	char root[4096];
	struct bench_opts opts = *o0, *o = &opts;
	state_root(o0, root, sizeof(root));
	opts.state_root = root;
	if (one)
		return run_one(o, one, p);
	if (bench_cli_sweep_check_ports(o->cfg.tcp_port, o->parallel, p->host, n) < 0)
		return EXIT_USAGE;
	/* Its RDMA devices are sysfs files: every VF would fail to open, a
	 * page of ERROR rows saying nothing about the VFs. Nothing runs
	 * (after the arguments are judged). */
	if (o0->cli && o0->cli->sim) {
		cli_error("bench validate --all-vfs: the simulated node has no verbs devices, so "
			  "no VF can be validated: validation runs on a real node, or in the QEMU "
			  "guest (scripts/vmtest)");
		return EXIT_USAGE;
	}
	struct sweep_arg a = {.o = o,
			      .p = p,
			      .bar = {.on = isatty(2) && !o->json},
			      .seen = json_object_new_array()};
	snprintf(a.bar.label, sizeof(a.bar.label), "%s",
		 o->parallel ? "every PF at once" : "every VF");
	struct bench_cli_sweep_config sc = {
		.run = sweep_vf,
		.run_arg = &a,
		.test = "validate",
		.host = p->host,
		.port = o->cfg.tcp_port,
		.peer_dev = p->peer_dev,
		.parallel = o->parallel,
		.force = o->force,
		.cancel = &bench_interrupted,
		.on_row = sweep_row,
		.on_progress = a.bar.on ? sweep_progress : NULL,
		.hook_arg = &a,
	};
	struct json_object *doc = NULL;
	int r = bench_cli_sweep_run(&sc, n, &doc);
	bar_clear(&a.bar);
	json_object_put(a.seen);
	if (r < 0) {
		cli_error("bench validate --all-vfs: cannot run the sweep: %s", strerror(-r));
		return 1;
	}
	finish_doc(o, p, doc, a.drops, true);
	return r;
}

/* p's peer a device of this node (pair mode): no host. */
static void peer_local(struct validate_peer *p, const struct bench_target *peer)
{
	p->host = NULL;
	p->peer_dev = peer->ibdev;
	p->peer_id = peer->bdf[0] ? peer->bdf : peer->ibdev;
}

int bench_validate_with(const struct bench_opts *o, const struct node *n,
			const struct bench_target *t, const char *host,
			const struct bench_target *peer)
{
	struct validate_peer p = {.host = host, .peer_id = host};
	if (peer)
		peer_local(&p, peer);
	return bench_validate_run(o, n, t, &p);
}

/* `validate [DEV] PEER` / `validate --all-vfs PEER`: PEER is a device of
 * this node when node_resolve() places it (pair mode), else a server's
 * host (client mode). */
int bench_cli_validate(const struct bench_opts *o0, const struct node *n, char **pos, int npos)
{
	struct bench_opts o = *o0;
	struct bench_target t, peer;
	struct node_ref ref;
	struct err e = {{0}};
	const char *dev = npos == 2 ? pos[0] : o.dev;
	if (npos < 1 || npos > 2 || (o.all_vfs && dev)) {
		cli_error("bench validate needs the VF and the peer: validate DEV PEER, "
			  "-d DEV PEER, or --all-vfs PEER");
		return EXIT_USAGE;
	}
	if (!o.all_vfs && !dev) {
		cli_error("bench validate needs the VF to validate: validate DEV PEER (or "
			  "--all-vfs PEER)");
		return EXIT_USAGE;
	}
	const char *name = pos[npos - 1];
	struct validate_peer p = {.host = name, .peer_id = name};
	int r;
	if (node_resolve(n, name, &ref, &e) == 0) {
		if ((r = bench_cli_resolve(n, name, true, &peer)) < 0)
			return bench_cli_resolve_status(r);
		peer_local(&p, &peer);
	}
	if (o.all_vfs)
		return bench_validate_run(&o, n, NULL, &p);
	if ((r = bench_cli_resolve(n, dev, o.force, &t)) < 0)
		return bench_cli_resolve_status(r);
	/* Pair mode: --cm-addr given for each side, as `bench pair` takes them. */
	struct bench_opts po = o;
	if (!p.host && bench_cm_pair(&o, p.peer_dev, t.ibdev, &po) < 0)
		return EXIT_USAGE;
	return bench_validate_run(&po, n, &t, &p);
}
