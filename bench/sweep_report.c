// SPDX-License-Identifier: MIT
/* A sweep's report from its rows (sweep_report.h): the summary and the
 * per-PF and node aggregates. */
#include "sweep_report.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct json_object *bench_sweep_summary(int pass, int fail, int skip, int total)
{
	struct json_object *sum = json_object_new_object();
	json_object_object_add(sum, "pass", json_object_new_int(pass));
	json_object_object_add(sum, "fail", json_object_new_int(fail));
	json_object_object_add(sum, "skip", json_object_new_int(skip));
	json_object_object_add(sum, "total", json_object_new_int(total));
	return sum;
}

struct json_object *bench_sweep_json_secs(double s)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%.6f", s);
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

static bool jnum(struct json_object *o, const char *key, double *ret)
{
	struct json_object *v;
	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return false;
	*ret = json_object_get_double(v);
	return isfinite(*ret);
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;
	return o && json_object_object_get_ex(o, key, &v) &&
			       json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

/* A row's figure: only a run that reached a verdict has one. */
static bool row_figure(struct json_object *row, double *ret)
{
	const char *st = jstr(row, "status");
	if (!st || (strcmp(st, "PASS") && strcmp(st, "FAIL")))
		return false;
	return jnum(json_object_object_get(row, "verdict"), "figure_gbps", ret) && *ret >= 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static struct json_object *num_or_null(bool known, double v)
{
	return known ? json_object_new_double(v) : NULL;
}

/* One PF's member from the rows of pf_bdf; figs has room for every row. */
static struct json_object *pf_member(struct json_object *vfs, const char *pf_bdf,
				     struct json_object *rates, double *figs)
{
	size_t n = json_object_array_length(vfs), nfig = 0, count = 0, run = 0;
	int pass = 0, fail = 0, skip = 0;
	double first = INFINITY, last = -INFINITY, rate = 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *r = json_object_array_get_idx(vfs, i);
		const char *p = jstr(r, "pf_bdf"), *st = jstr(r, "status");
		double s, e, f;
		if (!p || strcmp(p, pf_bdf))
			continue;
		count++;
		pass += st && !strcmp(st, "PASS");
		fail += st && !strcmp(st, "FAIL");
		skip += !st || !strcmp(st, "SKIP");
		if (jnum(r, "start_s", &s) && jnum(r, "end_s", &e)) {
			run++;
			first = s < first ? s : first;
			last = e > last ? e : last;
		}
		if (row_figure(r, &f))
			figs[nfig++] = f;
	}
	qsort(figs, nfig, sizeof(*figs), cmp_double);
	double median = !nfig	   ? 0
			: nfig % 2 ? figs[nfig / 2]
				   : (figs[nfig / 2 - 1] + figs[nfig / 2]) / 2;
	bool rate_known = jnum(rates, pf_bdf, &rate) && rate > 0;
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "pf_bdf", json_object_new_string(pf_bdf));
	json_object_object_add(o, "port_rate_gbps", num_or_null(rate_known, rate));
	json_object_object_add(o, "vfs", json_object_new_int((int)count));
	json_object_object_add(o, "run", json_object_new_int((int)run));
	json_object_object_add(o, "pass", json_object_new_int(pass));
	json_object_object_add(o, "fail", json_object_new_int(fail));
	json_object_object_add(o, "skip", json_object_new_int(skip));
	json_object_object_add(o, "best_gbps", num_or_null(nfig, nfig ? figs[nfig - 1] : 0));
	json_object_object_add(o, "median_gbps", num_or_null(nfig, median));
	json_object_object_add(o, "busy_s", run ? bench_sweep_json_secs(last - first) : NULL);
	return o;
}

struct json_object *bench_sweep_pf_aggregates(struct json_object *vfs, struct json_object *rates)
{
	struct json_object *pfs = json_object_new_array();
	size_t n = json_object_array_length(vfs);
	double *figs = calloc(n ? n : 1, sizeof(*figs));
	for (size_t i = 0; figs && i < n; i++) {
		const char *p = jstr(json_object_array_get_idx(vfs, i), "pf_bdf");
		bool seen = !p;
		for (size_t k = 0; !seen && k < json_object_array_length(pfs); k++)
			seen = !strcmp(jstr(json_object_array_get_idx(pfs, k), "pf_bdf"), p);
		if (!seen)
			json_object_array_add(pfs, pf_member(vfs, p, rates, figs));
	}
	free(figs);
	return pfs;
}

struct json_object *bench_sweep_node_aggregate(struct json_object *vfs, struct json_object *pfs,
					       double wall_s)
{
	size_t n = json_object_array_length(vfs);
	double best = -1, rates = 0;
	int best_n = 0;
	bool rates_known = false;
	for (size_t i = 0; i < n; i++) {
		struct json_object *r = json_object_array_get_idx(vfs, i);
		double t, f, sum = 0;
		int at_once = 0;
		if (!row_figure(r, &f) || !jnum(r, "start_s", &t))
			continue;
		/* The runs in progress at r's start: r itself and those around it. */
		for (size_t k = 0; k < n; k++) {
			struct json_object *o = json_object_array_get_idx(vfs, k);
			double s, e, g;
			if (!row_figure(o, &g) || !jnum(o, "start_s", &s) || !jnum(o, "end_s", &e))
				continue;
			if (k == i || (s <= t && t < e)) {
				sum += g;
				at_once++;
			}
		}
		if (sum > best) {
			best = sum;
			best_n = at_once;
		}
	}
	for (size_t i = 0; pfs && i < json_object_array_length(pfs); i++) {
		double r;
		if (jnum(json_object_array_get_idx(pfs, i), "port_rate_gbps", &r)) {
			rates += r;
			rates_known = true;
		}
	}
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "aggregate_gbps", num_or_null(best >= 0, best));
	json_object_object_add(o, "concurrent_runs", json_object_new_int(best_n));
	json_object_object_add(o, "port_rate_gbps", num_or_null(rates_known, rates));
	json_object_object_add(o, "wall_s", bench_sweep_json_secs(wall_s));
	return o;
}
