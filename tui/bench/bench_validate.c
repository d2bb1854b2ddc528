// SPDX-License-Identifier: MIT
/* One VF's validation (bench_validate.h): the profile's four tests, their
 * verdicts, the history's comparison and record. */
#include "bench_validate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/profile.h"

/* Each test's progress as a quarter of the VF's. */
struct quarter {
	bench_progress_fn fn;
	void *arg;
	unsigned int k;
};

static void on_quarter(const struct bench_progress *p, void *arg)
{
	struct quarter *q = arg;
	struct bench_progress v = *p;
	v.size_index = q->k;
	v.n_sizes = BENCH_PROFILE_TESTS;
	q->fn(&v, q->arg);
}

/* The configuration of test k: the profile's, what the operator gave wins. */
static void test_config(const struct bench_opts *o, const struct bench_target *t,
			enum bench_test test, struct bench_config *cfg, struct json_object *prof)
{
	struct bench_profile_choice ch;
	bench_profile_choose(test, t->rate_gbps, &ch);
	*cfg = o->cfg;
	cfg->test = test;
	cfg->size = ch.size;
	cfg->iters = 0;
	cfg->all_sizes = false;
	cfg->bidir = false;
	cfg->duration_s = o->cfg.duration_s ? o->cfg.duration_s : BENCH_PROFILE_DURATION_S;
	bool lat = bench_is_latency(test), given = !lat && (o->cfg.qps || o->cfg.tx_depth);
	cfg->qps = lat ? 1 : o->cfg.qps ? o->cfg.qps : ch.qps;
	cfg->tx_depth = lat ? 0 : o->cfg.tx_depth ? o->cfg.tx_depth : ch.tx_depth;
	json_object_object_add(prof, "qps", json_object_new_int((int)cfg->qps));
	json_object_object_add(prof, "tx_depth",
			       cfg->tx_depth ? json_object_new_int((int)cfg->tx_depth) : NULL);
	json_object_object_add(prof, "size", json_object_new_int64((int64_t)cfg->size));
	json_object_object_add(prof, "duration_s", json_object_new_int((int)cfg->duration_s));
	json_object_object_add(prof, "chosen_by",
			       json_object_new_string(given ? "operator" : "profile"));
	json_object_object_add(prof, "why", json_object_new_string(ch.why));
}

/* Runs test k on t; its object (a result, or an error). *ret_pass. */
static struct json_object *run_test(const struct bench_opts *o, const struct bench_target *t,
				    const struct validate_peer *p, unsigned int k,
				    struct quarter *q, struct bench_result *res,
				    struct json_object *row, bool *ret_pass, bool *ret_drop)
{
	enum bench_test test = bench_profile_tests[k];
	struct bench_config cfg;
	struct json_object *prof = json_object_new_object();
	struct err e = {{0}};
	test_config(o, t, test, &cfg, prof);
	q->k = k;
	bench_progress_fn fn = q->fn ? on_quarter : NULL;
	int r = p->host ? bench_client_run(&cfg, p->host, t->ibdev, fn, q, res, &e)
			: bench_pair_run(&cfg, p->peer_dev, t->ibdev, fn, q, res, &e);
	*ret_pass = false;
	*ret_drop = false;
	if (r < 0) {
		struct json_object *to = json_object_new_object();
		json_object_object_add(to, "test",
				       json_object_new_string(exchange_test_name(test)));
		json_object_object_add(to, "status", json_object_new_string("ERROR"));
		json_object_object_add(to, "error", json_object_new_string(e.msg));
		json_object_object_add(to, "profile", prof);
		return to;
	}
	return bench_validate_test_result(o, t, p, res, prof, row, ret_pass, ret_drop);
}

static struct json_object *device_of(const struct bench_target *t)
{
	struct json_object *d = json_object_new_object();
	json_object_object_add(d, "ibdev", json_object_new_string(t->ibdev));
	json_object_object_add(d, "bdf", t->bdf[0] ? json_object_new_string(t->bdf) : NULL);
	json_object_object_add(d, "pf", t->pf_bdf[0] ? json_object_new_string(t->pf_bdf) : NULL);
	json_object_object_add(d, "vf", t->vf_index >= 0 ? json_object_new_int(t->vf_index) : NULL);
	json_object_object_add(d, "netdev",
			       t->netdev[0] ? json_object_new_string(t->netdev) : NULL);
	json_object_object_add(d, "rate", t->rate[0] ? json_object_new_string(t->rate) : NULL);
	return d;
}

int bench_validate_vf(const struct bench_opts *o, const struct bench_target *t,
		      const struct validate_peer *p, bench_progress_fn progress, void *progress_arg,
		      struct json_object **ret_row)
{
	struct json_object *row = json_object_new_object(), *tests = json_object_new_array();
	json_object_object_add(row, "device", device_of(t));
	json_object_object_add(row, "vf_bdf", json_object_new_string(t->bdf[0] ? t->bdf : "-"));
	json_object_object_add(row, "peer", json_object_new_string(p->peer_id));
	/* A server's port block and figures are its word: with --key they are
	 * authenticated, without it anyone on the path may have sent them.
	 * Pair mode has no remote peer (null). */
	json_object_object_add(row, "authenticated",
			       p->host ? json_object_new_boolean(o->cfg.key && o->cfg.key->set)
				       : NULL);
	json_object_object_add(row, "warnings", json_object_new_array());
	struct bench_result *res = calloc(1, sizeof(*res));
	struct quarter q = {.fn = progress, .arg = progress_arg};
	char why[400] = "", last_err[300] = "";
	unsigned int failed = 0;
	int drops = 0;
	bool all = res != NULL;
	for (unsigned int k = 0; res && k < BENCH_PROFILE_TESTS; k++) {
		if (o->cfg.cancel && atomic_load(o->cfg.cancel)) {
			all = false;
			if (!why[0])
				snprintf(why, sizeof(why), "interrupted");
			break;
		}
		bool pass, drop;
		struct json_object *to = run_test(o, t, p, k, &q, res, row, &pass, &drop);
		json_object_array_add(tests, to);
		drops += drop;
		if (pass)
			continue;
		all = false;
		const char *err = json_object_get_string(json_object_object_get(to, "error"));
		struct json_object *v = json_object_object_get(to, "verdict");
		const char *reason = err;
		if (!reason && v && !bench_is_latency(bench_profile_tests[k]))
			reason = json_object_get_string(json_object_object_get(v, "reason"));
		if (!failed++)
			snprintf(why, sizeof(why), "%s: %s",
				 exchange_test_name(bench_profile_tests[k]),
				 reason ? reason : "over --max-lat");
		/* The same error twice: the device or the peer is down, not a test. */
		if (err && !strcmp(err, last_err)) {
			json_object_object_add(row, "stopped",
					       json_object_new_string("the same error twice"));
			break;
		}
		snprintf(last_err, sizeof(last_err), "%s", err ? err : "");
	}
	if (failed > 1) {
		size_t len = strlen(why);
		snprintf(why + len, sizeof(why) - len, " (and %u more test%s)", failed - 1,
			 failed > 2 ? "s" : "");
	}
	if (!res)
		snprintf(why, sizeof(why), "out of memory");
	free(res);
	json_object_object_add(row, "tests", tests);
	json_object_object_add(row, "status", json_object_new_string(all ? "PASS" : "FAIL"));
	json_object_object_add(row, "why", why[0] ? json_object_new_string(why) : NULL);
	json_object_object_add(row, "history_drops", json_object_new_int(drops));
	/* For sweeps' aggregates (bench_text_vf_row(), --parallel's per-PF and
	 * node sums): the row's bandwidth figure is its write_bw's. */
	struct json_object *v = json_object_new_object(), *w0 = json_object_array_get_idx(tests, 0),
			   *f0 = w0 ? json_object_object_get(w0, "figure") : NULL;
	json_object_object_add(v, "status", json_object_new_string(all ? "PASS" : "FAIL"));
	json_object_object_add(v, "figure_gbps", f0 ? json_object_get(f0) : NULL);
	json_object_object_add(v, "reason", why[0] ? json_object_new_string(why) : NULL);
	json_object_object_add(row, "verdict", v);
	*ret_row = row;
	return all ? 0 : 1;
}
