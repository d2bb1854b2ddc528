// SPDX-License-Identifier: MIT
/* One validation test's result judged, compared with the history and
 * recorded (bench_validate.h); apart from the runs so the Check suites can
 * judge and record a result without an RDMA device. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/history.h"
#include "bench_validate.h"

void bench_validate_history_path(const struct bench_opts *o, char *buf, size_t size)
{
	bench_history_path(o->state_root, buf, size);
}

/* The figure the history compares: bandwidth's average, latency's typical
 * (median); the spread: bandwidth's slices, latency's stdev over mean. */
static void figure_of(const struct bench_result *r, const struct bench_verdict *v, double *fig,
		      double *spread)
{
	const struct bench_size_result *s = &r->sizes[0];
	if (bench_is_latency(r->test)) {
		*fig = s->lat.median_us;
		*spread = s->lat.mean_us > 0 ? s->lat.stdev_us / s->lat.mean_us : -1;
	} else {
		*fig = v->figure_gbps;
		*spread = s->bw_spread;
	}
}

static void add_warning(struct json_object *row, const char *fmt, const char *a, const char *b)
{
	char msg[600];
	/* Cut, not overrun: a path or a reason may be long. */
	if (snprintf(msg, sizeof(msg), fmt, a, b) >= (int)sizeof(msg))
		memcpy(msg + sizeof(msg) - 4, "...", 4);
	struct json_object *w = json_object_object_get(row, "warnings");
	for (size_t i = 0; i < json_object_array_length(w); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(w, i)), msg))
			return; /* each test reads the same file: once is enough */
	json_object_array_add(w, json_object_new_string(msg));
}

/* "history" of test object to: the previous entry for key, compared. */
static bool history_compare(const char *path, struct json_object *key, struct json_object *to,
			    struct json_object *row, double fig, double spread, bool higher)
{
	struct json_object *prev = NULL, *h = NULL;
	struct err e = {{0}};
	size_t skipped = 0;
	char n[32];
	if (bench_history_last(path, key, &prev, &skipped, &e) < 0)
		add_warning(row, "history not read: %s%s", e.msg, "");
	snprintf(n, sizeof(n), "%zu", skipped);
	if (skipped)
		add_warning(row, "skipped %s corrupt line(s) in the history '%s'", n, path);
	struct bench_history_cmp c;
	struct json_object *pf = prev ? json_object_object_get(prev, "figure") : NULL;
	struct json_object *ps = prev ? json_object_object_get(prev, "spread") : NULL;
	if (pf &&
	    bench_history_compare(json_object_get_double(pf), ps ? json_object_get_double(ps) : -1,
				  fig, spread, higher, &c) == 0) {
		h = json_object_new_object();
		json_object_object_add(h, "previous", json_object_new_double(c.previous));
		struct json_object *pt = json_object_object_get(prev, "time");
		json_object_object_add(h, "previous_time", pt ? json_object_get(pt) : NULL);
		json_object_object_add(h, "change_pct", json_object_new_double(c.change_pct));
		json_object_object_add(h, "noise_pct", json_object_new_double(c.noise_pct));
		json_object_object_add(h, "flag", json_object_new_string(c.flag ? "drop" : "ok"));
	}
	json_object_object_add(to, "history", h);
	json_object_put(prev);
	return h && c.flag;
}

static void history_record(const char *path, struct json_object *key, struct json_object *to,
			   struct json_object *row, const struct bench_target *t)
{
	char when[32], host[256] = "";
	time_t now = time(NULL);
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	gethostname(host, sizeof(host) - 1);
	struct json_object *en = json_object_new_object();
	json_object_object_add(en, "time", json_object_new_string(when));
	json_object_object_add(en, "host", json_object_new_string(host));
	json_object_object_add(en, "key", json_object_get(key));
	json_object_object_add(en, "bdf", json_object_new_string(t->bdf));
	json_object_object_add(en, "ibdev", json_object_new_string(t->ibdev));
	static const char *const copied[] = {"status", "figure", "unit", "better", "spread"};
	for (size_t i = 0; i < sizeof(copied) / sizeof(*copied); i++) {
		struct json_object *v = json_object_object_get(to, copied[i]);
		json_object_object_add(en, copied[i], v ? json_object_get(v) : NULL);
	}
	/* The payload ceiling the figure was judged against: `ibvf metrics`
	 * exports figure / ceiling as the validation's ratio. */
	struct json_object *vo = json_object_object_get(to, "verdict");
	struct json_object *ceil = json_object_object_get(vo, "ceiling_gbps");
	if (json_object_get_boolean(json_object_object_get(vo, "judged")) && ceil &&
	    json_object_get_double(ceil) > 0)
		json_object_object_add(en, "ceiling", json_object_get(ceil));
	struct json_object *prof = json_object_object_get(to, "profile");
	json_object_object_add(en, "params", prof ? json_object_get(prof) : NULL);
	struct err e = {{0}};
	if (bench_history_append(path, en, &e) < 0)
		add_warning(row, "result not recorded in the history: %s%s", e.msg, "");
	json_object_put(en);
}

struct json_object *bench_validate_test_result(const struct bench_opts *o,
					       const struct bench_target *t,
					       const struct validate_peer *p,
					       const struct bench_result *res,
					       struct json_object *prof, struct json_object *row,
					       bool *ret_pass, bool *ret_drop)
{
	enum bench_test test = res->test;
	struct bench_verdict v;
	bench_judge(res, t, o->min_ratio, &v);
	struct json_object *to = bench_result_to_json(res, t, &v);
	double fig, spread;
	figure_of(res, &v, &fig, &spread);
	bool lat = bench_is_latency(test);
	enum bench_status st = v.status;
	if (lat && o->max_lat_us > 0 && !(fig <= o->max_lat_us))
		st = BENCH_STATUS_FAIL;
	/* The test's status is the verdict's word: the history records it, so
	 * a peer-limited or impossible figure is never recorded as a PASS. */
	json_object_object_add(to, "status", json_object_new_string(bench_status_name(st)));
	json_object_object_add(to, "profile", prof);
	json_object_object_add(to, "figure", json_object_new_double(fig));
	json_object_object_add(to, "unit", json_object_new_string(lat ? "us" : "Gb/s"));
	json_object_object_add(to, "better", json_object_new_string(lat ? "lower" : "higher"));
	json_object_object_add(to, "spread", spread >= 0 ? json_object_new_double(spread) : NULL);
	json_object_object_add(to, "judged",
			       json_object_new_boolean(lat ? o->max_lat_us > 0 : v.judged));
	if (lat && o->max_lat_us > 0)
		json_object_object_add(to, "max_lat_us", json_object_new_double(o->max_lat_us));
	*ret_drop = false;
	if (t->pf_bdf[0] || t->bdf[0]) {
		char path[PATH_MAX];
		bench_validate_history_path(o, path, sizeof(path));
		struct json_object *key =
			bench_history_key(t->pf_bdf[0] ? t->pf_bdf : t->bdf, t->vf_index,
					  exchange_test_name(test), p->peer_id);
		*ret_drop = history_compare(path, key, to, row, fig, spread, !lat);
		if (!o->no_history)
			history_record(path, key, to, row, t);
		json_object_put(key);
	} else {
		json_object_object_add(to, "history", NULL);
	}
	*ret_pass = st == BENCH_STATUS_PASS;
	return to;
}
