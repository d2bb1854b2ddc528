// SPDX-License-Identifier: MIT
/* The validation families of `ibvf metrics`: per function of the node and
 * test, the last `ibvf bench validate` result the bench history holds, and
 * whether it dropped against the one before it for the same VF, test and
 * peer by the history's own noise rule (bench/history.h). Entries for
 * functions the node does not have, or tests validate does not run, are
 * left out: the series are bounded by the node. Labels: the function's
 * identity (pci, pf, vf), test and peer; its names are ibvf_vf_info's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/exchange.h"
#include "bench/history.h"
#include "bench/profile.h"
#include "core/model/node.h"
#include "metrics.h"

struct slot {
	const struct pf *pf;
	const struct vf *vf;
	int last[BENCH_PROFILE_TESTS]; /* index in the history, -1 none */
	int prev[BENCH_PROFILE_TESTS]; /* the one before with the same key, -1 none */
};

struct slots {
	struct slot *v;
	size_t n;
	size_t *base; /* per PF: its own slot; its VFs' follow */
};

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	if (o && json_object_is_type(o, json_type_object))
		json_object_object_get_ex(o, key, &v);
	return v;
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A number of the entry, or NAN when absent, not a number or not finite. */
static double get_num(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);
	if (!v ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return NAN;
	double d = json_object_get_double(v);
	return isfinite(d) ? d : NAN;
}

static int test_of(const char *name)
{
	for (int k = 0; name && k < BENCH_PROFILE_TESTS; k++)
		if (!strcmp(name, exchange_test_name(bench_profile_tests[k])))
			return k;
	return -1;
}

/* The slot of the entry's function, or NULL when the node has none. */
static struct slot *slot_of(struct slots *s, const struct node *n, struct json_object *key)
{
	const char *pf = get_str(key, "pf");
	struct json_object *vfo = get(key, "vf");
	if (!pf)
		return NULL;
	for (size_t i = 0; i < n->n_pfs; i++) {
		if (strcmp(n->pfs[i].fn.bdf, pf))
			continue;
		if (!vfo)
			return &s->v[s->base[i]];
		if (!json_object_is_type(vfo, json_type_int))
			return NULL;
		int64_t idx = json_object_get_int64(vfo);
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++)
			if (n->pfs[i].vfs[j].index == idx)
				return &s->v[s->base[i] + 1 + j];
		return NULL;
	}
	return NULL;
}

static int slots_build(struct slots *s, const struct node *n, struct json_object *h)
{
	s->n = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		s->n += 1 + n->pfs[i].n_vfs;
	s->v = calloc(s->n ? s->n : 1, sizeof(*s->v));
	s->base = calloc(n->n_pfs ? n->n_pfs : 1, sizeof(*s->base));
	if (!s->v || !s->base)
		return -1;
	for (size_t i = 0, k = 0; i < n->n_pfs; i++) {
		s->base[i] = k;
		s->v[k++].pf = &n->pfs[i];
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++, k++) {
			s->v[k].pf = &n->pfs[i];
			s->v[k].vf = &n->pfs[i].vfs[j];
		}
	}
	for (size_t k = 0; k < s->n; k++)
		for (int t = 0; t < BENCH_PROFILE_TESTS; t++)
			s->v[k].last[t] = s->v[k].prev[t] = -1;
	size_t len = h ? json_object_array_length(h) : 0;
	for (size_t i = 0; i < len && i < (size_t)INT32_MAX; i++) {
		struct json_object *key = get(json_object_array_get_idx(h, i), "key");
		int t = test_of(get_str(key, "test"));
		struct slot *sl = t >= 0 ? slot_of(s, n, key) : NULL;
		if (sl)
			sl->last[t] = (int)i;
	}
	/* The previous entry of the same key (its peer too): once per result. */
	for (size_t k = 0; k < s->n; k++)
		for (int t = 0; t < BENCH_PROFILE_TESTS; t++) {
			int l = s->v[k].last[t];
			struct json_object *key =
				l >= 0 ? get(json_object_array_get_idx(h, l), "key") : NULL;
			for (int i = l - 1; key && i >= 0; i--)
				if (json_object_equal(get(json_object_array_get_idx(h, i), "key"),
						      key)) {
					s->v[k].prev[t] = i;
					break;
				}
		}
	return 0;
}

/* The entry's time ("2026-12-02T05:45:35Z"), NAN when it does not parse. */
static double entry_time(struct json_object *en)
{
	const char *s = get_str(en, "time");
	struct tm tm = {0};
	const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
	if (!end || *end)
		return NAN;
	time_t t = timegm(&tm);
	return t == (time_t)-1 ? NAN : (double)t;
}

enum vfam {
	V_VALIDATED,
	V_PASS,
	V_TIME,
	V_BW,
	V_LAT,
	V_RATIO,
	V_REGRESSED,
	N_VFAM
};

static const struct {
	const char *name, *help;
} vfams[N_VFAM] = {
	{"ibvf_validation_validated",
	 "1 when the last 'ibvf bench validate' of the test gave a verdict (PASS or FAIL); 0: "
	 "another status (not validated, ibvf_validation_pass has no sample)"},
	{"ibvf_validation_pass",
	 "1 when the last 'ibvf bench validate' of the test passed, 0 when it failed (only for a "
	 "verdict: ibvf_validation_validated 1)"},
	{"ibvf_validation_timestamp_seconds", "When the last validation of the test ran"},
	{"ibvf_validation_bandwidth_bytes_per_second",
	 "Bandwidth of the last validation (write_bw, read_bw): payload bytes per second"},
	{"ibvf_validation_latency_seconds",
	 "Typical (median) latency of the last validation (write_lat, read_lat)"},
	{"ibvf_validation_ratio",
	 "Bandwidth of the last validation over the payload ceiling it was judged against"},
	{"ibvf_validation_regressed",
	 "1 when the last validation is worse than the one before it (same VF, test and "
	 "peer) beyond the history's noise rule"},
};

/* The value of family fam for entry en (prev: the one before, or NULL);
 * NAN when it has none. Figures from the file are bounded. */
static double value_of(enum vfam fam, struct json_object *en, struct json_object *prev)
{
	const char *unit = get_str(en, "unit"), *status = get_str(en, "status");
	bool bw = unit && !strcmp(unit, "Gb/s"), lat = unit && !strcmp(unit, "us");
	double fig = get_num(en, "figure");
	if (!(fig >= 0 && fig <= 1e9))
		fig = NAN;
	switch (fam) {
	case V_VALIDATED:
		return !status ? NAN : !strcmp(status, "PASS") || !strcmp(status, "FAIL") ? 1 : 0;
	case V_PASS:
		return !status			 ? NAN
		       : !strcmp(status, "PASS") ? 1
		       : !strcmp(status, "FAIL") ? 0
						 : NAN;
	case V_TIME:
		return entry_time(en);
	case V_BW:
		return bw ? fig * 1e9 / 8 : NAN;
	case V_LAT:
		return lat ? fig / 1e6 : NAN;
	case V_RATIO: {
		double c = get_num(en, "ceiling");
		return bw && c > 0 ? fig / c : NAN;
	}
	case V_REGRESSED: {
		struct bench_history_cmp c;
		if (isnan(fig) || !(bw || lat))
			return NAN;
		if (!prev || bench_history_compare(get_num(prev, "figure"), get_num(prev, "spread"),
						   fig, get_num(en, "spread"), bw, &c) < 0)
			return 0;
		return c.flag ? 1 : 0;
	}
	default:
		return NAN;
	}
}

void metrics_validation(struct metrics_writer *w, const struct metrics_in *in)
{
	struct slots s = {0};
	struct json_object *h = in->history;
	struct metrics_fnlabels fl;
	if (slots_build(&s, in->node, h) < 0)
		goto out;
	for (int fam = 0; fam < N_VFAM; fam++) {
		metrics_family(w, vfams[fam].name, "gauge", vfams[fam].help);
		for (size_t k = 0; k < s.n; k++)
			for (int t = 0; t < BENCH_PROFILE_TESTS; t++) {
				const struct slot *sl = &s.v[k];
				if (sl->last[t] < 0)
					continue;
				struct json_object *en = json_object_array_get_idx(h, sl->last[t]);
				struct json_object *prev =
					sl->prev[t] >= 0 ? json_object_array_get_idx(h, sl->prev[t])
							 : NULL;
				double v = value_of((enum vfam)fam, en, prev);
				if (isnan(v))
					continue;
				metrics_id_labels(&fl, sl->pf, sl->vf);
				metrics_add_label(&fl, "test",
						  exchange_test_name(bench_profile_tests[t]));
				metrics_add_label(&fl, "peer", get_str(get(en, "key"), "peer"));
				metrics_sample(w, vfams[fam].name, fl.l, fl.n, v);
			}
	}
	metrics_family(w, "ibvf_validation_history_skipped_lines", "gauge",
		       "Lines of the bench history that were not JSON objects");
	metrics_sample(w, "ibvf_validation_history_skipped_lines", NULL, 0,
		       (double)in->history_skipped);
	metrics_family(w, "ibvf_validation_history_unread_bytes", "gauge",
		       "Bytes at the start of the bench history not read: the file is past "
		       "ibvf's read bound, results only there are missing");
	metrics_sample(w, "ibvf_validation_history_unread_bytes", NULL, 0,
		       (double)in->history_unread);
out:
	free(s.v);
	free(s.base);
}
