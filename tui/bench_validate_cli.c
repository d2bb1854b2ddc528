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
#include "bench_validate.h"
#include "core/node.h"
#include "core/pods.h"
#include "core/resolve.h"

int bench_validate_parse_opt(struct bench_opts *o, int code, const char *arg, int *r)
{
	char *end;
	*r = 0;
	switch (code) {
	case BENCH_O_PROFILE:
		if (strcmp(arg, "validate")) {
			cli_error("unknown profile '%s' (validate)", arg);
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
				  arg);
			*r = -EINVAL;
		}
		return 1;
	}
	return 0;
}

int bench_validate_check_opts(const struct bench_opts *o)
{
	const struct bench_config *c = &o->cfg;
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

/* A row for a VF not run: its device and why. */
static struct json_object *skip_row(const struct bench_target *t, const char *why)
{
	struct json_object *r = json_object_new_object();
	json_object_object_add(r, "device", json_object_new_string(t->ibdev[0] ? t->ibdev : "-"));
	json_object_object_add(r, "vf_bdf", json_object_new_string(t->bdf[0] ? t->bdf : "-"));
	json_object_object_add(r, "status", json_object_new_string("SKIP"));
	json_object_object_add(r, "why", json_object_new_string(why));
	return r;
}

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

int bench_validate_run(const struct bench_opts *o, const struct node *n,
		       const struct bench_target *one, const struct validate_peer *p)
{
	unsigned int pass = 0, fail = 0, skip = 0, total = 0, drops = 0;
	struct vbar bar = {.on = isatty(2) && !o->json};
	struct json_object *rows = json_object_new_array(), *seen = json_object_new_array();
	for (size_t i = 0; !one && i < n->n_pfs; i++)
		total += (unsigned int)n->pfs[i].n_vfs;
	bar.total = one ? 1 : total;
	for (size_t i = 0; i < (one ? 1 : n->n_pfs); i++) {
		for (size_t j = 0; j < (one ? 1 : n->pfs[i].n_vfs); j++) {
			if (atomic_load(&bench_interrupted))
				break;
			struct bench_target t;
			struct json_object *row = NULL;
			const char *why = NULL;
			char pod[320];
			if (one) {
				t = *one;
			} else {
				const struct vf *vf = &n->pfs[i].vfs[j];
				const struct rdma *rd = vf->fn.n_rdmas ? &vf->fn.rdmas[0] : NULL;
				struct node_ref ref = {
					.pf = &n->pfs[i], .vf = vf, .fn = &vf->fn, .rdma = rd};
				bench_target_from_ref(&ref, &t);
				why = !rd ? "no RDMA device"
				      : pods_holder_label(vf, pod, sizeof(pod)) && !o->force
					      ? "bound to a pod (--force to include it)"
				      : p->peer_dev && !strcmp(p->peer_dev, t.ibdev)
					      ? "the peer itself"
					      : NULL;
			}
			snprintf(bar.label, sizeof(bar.label), "%.15s %.12s", t.bdf, t.ibdev);
			if (why) {
				row = skip_row(&t, why);
				skip++;
			} else {
				int rc = bench_validate_vf(o, &t, p, on_progress, &bar, &row);
				rc ? fail++ : pass++;
				drops += (unsigned int)json_object_get_int(
					json_object_object_get(row, "history_drops"));
			}
			bar.done++;
			bar_clear(&bar);
			show_row(o, row, one != NULL, seen);
			json_object_array_add(rows, row);
		}
	}
	struct json_object *doc = json_object_new_object(), *sum = json_object_new_object();
	json_object_object_add(doc, "profile", json_object_new_string("validate"));
	json_object_object_add(doc, "peer", json_object_new_string(p->peer_id));
	json_object_object_add(doc, "mode", json_object_new_string(p->host ? "client" : "pair"));
	json_object_object_add(doc, "vfs", rows);
	json_object_object_add(sum, "pass", json_object_new_int((int)pass));
	json_object_object_add(sum, "fail", json_object_new_int((int)fail));
	json_object_object_add(sum, "skip", json_object_new_int((int)skip));
	json_object_object_add(sum, "total", json_object_new_int((int)(one ? 1 : total)));
	json_object_object_add(sum, "history_drops", json_object_new_int((int)drops));
	json_object_object_add(doc, "summary", sum);
	char hist[4096];
	bench_validate_history_path(o, hist, sizeof(hist));
	json_object_object_add(doc, "history_file", json_object_new_string(hist));
	json_object_object_add(doc, "history_recorded", json_object_new_boolean(!o->no_history));
	if (o->json)
		puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_SPACED |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
	else if (!one)
		text_render_print(stdout, sum, bench_text_vfs_summary);
	json_object_put(doc);
	json_object_put(seen);
	return fail || !pass ? 1 : 0;
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
			return r == -EBUSY ? 1 : EXIT_USAGE;
		p.host = NULL;
		p.peer_dev = peer.ibdev;
		p.peer_id = peer.bdf[0] ? peer.bdf : peer.ibdev;
	}
	if (o.all_vfs)
		return bench_validate_run(&o, n, NULL, &p);
	if ((r = bench_cli_resolve(n, dev, o.force, &t)) < 0)
		return r == -EBUSY ? 1 : EXIT_USAGE;
	return bench_validate_run(&o, n, &t, &p);
}
