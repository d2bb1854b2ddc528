// SPDX-License-Identifier: MIT
/* The bench view's drawing: the form, the live figures of the target being
 * run (progress, Gb/s sparkline, latency histogram), the list of targets
 * with their verdicts, and the question before a pod's VF is disturbed. The
 * figures of a finished run come from its JSON (bench/report.h). */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "view_bench.h"
#include "view_bench_int.h"
#include "screen.h"
#include "bench/profile.h"
#include "tui/bench/bench_validate.h"
#include "tui/base/text.h"

static const char *const state_names[] = {"wait", "run",  "PASS",      "FAIL",
					  "FAIL", "SKIP", "cancelled", "HCA only"};

/* A run that finished with figures. */
static bool measured(enum tstate s)
{
	return s == T_PASS || s == T_FAIL || s == T_HCA;
}

static void size_label(uint64_t b, char *buf, size_t size)
{
	if (b >= 1 << 20)
		snprintf(buf, size, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024)
		snprintf(buf, size, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(buf, size, "%llu B", (unsigned long long)b);
}

static int draw_form(struct console *c, int y, int w)
{
	struct bench_view *bv = bench_of(c);
	char line[512], val[400], sz[32];
	bool busy = bv_job_running(bv);
	for (int f = 0; f < FLD_N; f++) {
		if (!bv_field_shown(bv, (enum field)f))
			continue;
		static const char *const labels[FLD_N] = {"VF",	    "Peer",    "Peer VF",
							  "Server", "Profile", "Test",
							  "Size",   "QPs",     "Duration"};
		switch (f) {
		case FLD_VF:
			snprintf(val, sizeof(val), "%s",
				 bv_vf_label(c, bv->vf, line, sizeof(line)));
			break;
		case FLD_PEER:
			snprintf(val, sizeof(val), "%s",
				 bv->peer == PEER_PAIR	     ? "pair: another VF of this node"
				 : bv->peer == PEER_LOOPBACK ? "loopback: the VF against itself"
							     : "remote: an `ibvf bench server`");
			break;
		case FLD_PEER_VF:
			snprintf(val, sizeof(val), "%s", bv_peer_vf_label(c, line, sizeof(line)));
			break;
		case FLD_HOST:
			snprintf(val, sizeof(val), "%s%s", bv->host,
				 bv->focus == FLD_HOST && !busy ? "_" : "");
			if (!bv->host[0] && bv->focus != FLD_HOST)
				snprintf(val, sizeof(val), "HOST[:PORT]");
			break;
		case FLD_TEST:
			snprintf(val, sizeof(val), "%s", exchange_test_name(bv->test));
			break;
		case FLD_PROFILE:
			snprintf(val, sizeof(val), "%s",
				 bv->validate ? "validate: write_bw, read_bw, write_lat, read_lat"
					      : "one test");
			break;
		case FLD_QPS:
			if (bv_qps[bv->qps])
				snprintf(val, sizeof(val), "%u", bv_qps[bv->qps]);
			else
				snprintf(val, sizeof(val), "%s",
					 bv->validate ? "by the port rate (profile)"
						      : "1 (default)");
			break;
		case FLD_DURATION:
			if (bv_durations[bv->duration])
				snprintf(val, sizeof(val), "%u s", bv_durations[bv->duration]);
			else if (bv->validate)
				snprintf(val, sizeof(val), "%d s each (profile)",
					 BENCH_PROFILE_DURATION_S);
			else
				snprintf(val, sizeof(val), "iterations (default)");
			break;
		case FLD_SIZE:
			size_label(bv_sizes[bv->size] ? bv_sizes[bv->size]
						      : bench_default_size(bv->test),
				   sz, sizeof(sz));
			snprintf(val, sizeof(val), "%s%s", sz,
				 bv_sizes[bv->size] ? "" : " (default)");
			break;
		}
		bool arrows = f != FLD_HOST && !busy;
		snprintf(line, sizeof(line), " %-8s %s%s%s", labels[f], arrows ? "< " : "", val,
			 arrows ? " >" : "");
		int a = screen_attr(c, (int)bv->focus == f && !busy ? TR_SELECTION : TR_NORMAL);
		screen_put(y++, 0, w, line, a);
	}
	return y;
}

/* Gb/s over the run, scaled to its best: eight heights, or an ASCII ramp. */
static void draw_spark(struct console *c, int y, int w)
{
	struct bench_view *bv = bench_of(c);
	static const char *const blocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	static const char ramp[] = "_.-:=+*#";
	char line[SPARK_MAX * 3 + 1] = "";
	int n = w - 8 < SPARK_MAX ? w - 8 : SPARK_MAX;
	if (n <= 0)
		return;
	size_t from = bv->n_spark > (size_t)n ? bv->n_spark - (size_t)n : 0;
	float top = 0;
	for (size_t i = from; i < bv->n_spark; i++)
		top = bv->spark[i] > top ? bv->spark[i] : top;
	size_t len = 0;
	int cols = 0; /* a glyph a column; the row past them is left alone */
	for (size_t i = from; i < bv->n_spark; i++, cols++) {
		int h = top > 0 ? (int)(bv->spark[i] / top * 7.0f + 0.5f) : 0;
		const char *g = c->utf8 ? blocks[h] : (const char[]){ramp[h], 0};
		size_t gl = strlen(g);
		memcpy(line + len, g, gl);
		len += gl;
	}
	line[len] = '\0';
	screen_put(y, 0, 8, " Gb/s", screen_attr(c, TR_DETAILS_LABEL));
	screen_put(y, 8, cols, line, screen_attr(c, TR_PORT_ACTIVE));
}

/* One bucket of a size's histogram (bench/report.h): its count, or bounds. */
static int64_t bucket_count(struct json_object *h, size_t i)
{
	return text_jint(json_object_array_get_idx(h, i), "count");
}

/* Latency: a line of figures, then the histogram of the samples, one row per
 * non-empty bucket, both from the result's JSON. When the rows do not fit,
 * runs of adjacent buckets are merged, so the whole range is always shown. */
static int draw_latency(struct console *c, struct json_object *s, int y, int y_end, int w)
{
	char line[256];
	if (y >= y_end)
		return y;
	snprintf(line, sizeof(line),
		 " min %.2f  median %.2f  mean %.2f  p99 %.2f  p99.9 %.2f  max %.2f us",
		 text_jnum(s, "t_min_us"), text_jnum(s, "t_typical_us"), text_jnum(s, "t_avg_us"),
		 text_jnum(s, "p99_us"), text_jnum(s, "p99_9_us"), text_jnum(s, "t_max_us"));
	screen_put(y++, 0, w, line, screen_attr(c, TR_NORMAL));
	struct json_object *h = text_jarr(s, "histogram");
	size_t nb = h ? json_object_array_length(h) : 0;
	nb = nb < LAT_HIST_BUCKETS ? nb : LAT_HIST_BUCKETS;
	size_t used = 0;
	for (size_t i = 0; i < nb; i++)
		used += bucket_count(h, i) > 0;
	long rows = y_end - y;
	if (!used || rows <= 0)
		return y;
	size_t group = used <= (size_t)rows ? 1 : (nb + (size_t)rows - 1) / (size_t)rows;
	int64_t top = 0;
	for (size_t i = 0; i < nb; i += group) {
		int64_t sum = 0;
		for (size_t k = i; k < i + group && k < nb; k++)
			sum += bucket_count(h, k);
		top = sum > top ? sum : top;
	}
	const int label_w = 36;
	int bar_w = w - label_w - 1;
	for (size_t i = 0; i < nb && y < y_end; i += group) {
		size_t last = i + group < nb ? i + group - 1 : nb - 1;
		int64_t sum = 0;
		for (size_t k = i; k <= last; k++)
			sum += bucket_count(h, k);
		if (sum <= 0)
			continue;
		snprintf(line, sizeof(line), " %9.2f - %9.2f us %9lld ",
			 text_jnum(json_object_array_get_idx(h, i), "lo_us"),
			 text_jnum(json_object_array_get_idx(h, last), "hi_us"), (long long)sum);
		screen_put(y, 0, label_w, line, screen_attr(c, TR_NORMAL));
		int n = bar_w > 0 ? (int)((double)sum / (double)top * bar_w + 0.5) : 0;
		if (n < 1 && bar_w > 0)
			n = 1; /* a non-empty bucket is never blank */
		char bar[1024] = "";
		size_t len = 0;
		int cols = 0; /* a glyph a column; the row past them is left alone */
		for (; cols < n && len + 4 < sizeof(bar); cols++) {
			const char *g = c->utf8 ? "█" : "#";
			memcpy(bar + len, g, strlen(g));
			len += strlen(g);
		}
		bar[len] = '\0';
		if (bar_w > 0)
			screen_put(y, label_w, cols, bar, screen_attr(c, TR_DETAILS_LABEL));
		y++;
	}
	return y;
}

/* The first size of a latency result, or NULL. */
static struct json_object *latency_size(struct json_object *result)
{
	struct json_object *sizes = text_jarr(result, "sizes");
	int test = exchange_test_parse(text_jstr(result, "test") ?: "");
	if (!sizes || !json_object_array_length(sizes) || test < 0 ||
	    !bench_is_latency((enum bench_test)test))
		return NULL;
	return json_object_array_get_idx(sizes, 0);
}

/* A long message over several lines. */
static int draw_wrapped(const char *s, int y, int y_end, int x, int w, int attr)
{
	while (*s && y < y_end && w > 0) {
		int n = (int)strlen(s);
		if (n > w) {
			n = w;
			while (n > w / 2 && s[n] != ' ')
				n--;
			if (s[n] != ' ')
				n = w;
		}
		char line[512];
		snprintf(line, sizeof(line), "%.*s", n, s);
		screen_put(y++, x, w, line, attr);
		s += n;
		while (*s == ' ')
			s++;
	}
	return y;
}

static int state_attr(const struct console *c, enum tstate s)
{
	return screen_attr(c, s == T_PASS				      ? TR_BENCH_PASS
			      : s == T_FAIL || s == T_ERROR		      ? TR_BENCH_FAIL
			      : s == T_CANCELLED || s == T_SKIP || s == T_HCA ? TR_WARNING
									      : TR_NORMAL);
}

/* A validation's row as its text (bench_validate_text_row()). */
static int draw_row(struct console *c, struct json_object *row, int y, int y_end, int w)
{
	struct text t = {0};
	bench_validate_text_row(&t, row, false);
	for (size_t i = 0; i < t.n && y < y_end; i++)
		screen_put(y++, 0, w, t.lines[i].s,
			   screen_attr(c, text_theme_role(t.lines[i].role, TR_NORMAL)));
	text_clear(&t);
	return y;
}

/* The run's placement warnings (a thread or buffer away from its HCA), as
 * the text report gives them. */
static int draw_placement(struct console *c, struct json_object *result, int y, int y_end, int w)
{
	struct json_object *p = NULL;
	if (!result || !json_object_object_get_ex(result, "placement", &p) || !p)
		return y;
	struct json_object *warn = text_jarr(p, "warnings");
	for (size_t i = 0; warn && i < json_object_array_length(warn) && y < y_end; i++) {
		char line[300];
		snprintf(line, sizeof(line), "NUMA: %s",
			 json_object_get_string(json_object_array_get_idx(warn, i)));
		y = draw_wrapped(line, y, y_end, 3, w - 3, screen_attr(c, TR_WARNING));
	}
	return y;
}

/* One VF's run, finished: its verdict, figures or error. */
static int draw_one(struct console *c, const struct job *j, const char *peer, int y, int y_end,
		    int w)
{
	char line[640];
	const struct target *t = &j->t[0];
	if (j->validate && t->result)
		return draw_row(c, t->result, y, y_end, w);
	int a = state_attr(c, t->state);
	snprintf(line, sizeof(line), " %s ", state_names[t->state]);
	screen_put(y, 1, (int)strlen(line), line, a);
	int x = 2 + (int)strlen(line);
	if (measured(t->state))
		snprintf(line, sizeof(line), "%s on %s against %.128s: %.300s",
			 exchange_test_name(j->cfg.test), t->t.ibdev, peer, t->why);
	else if (t->state == T_CANCELLED)
		snprintf(line, sizeof(line), "%s on %s: the QPs are torn down, the peer told",
			 exchange_test_name(j->cfg.test), t->t.ibdev);
	else
		snprintf(line, sizeof(line), "%s on %s against %s", exchange_test_name(j->cfg.test),
			 t->t.ibdev, peer);
	y = draw_wrapped(line, y, y_end, x, w - x, screen_attr(c, TR_NORMAL));
	if (t->state == T_ERROR)
		y = draw_wrapped(t->why, y, y_end, 1, w - 1, screen_attr(c, TR_ERROR));
	if (t->state == T_PASS || t->state == T_FAIL)
		y = draw_placement(c, t->result, y, y_end, w);
	struct json_object *lat = latency_size(t->result);
	if (lat && measured(t->state))
		y = draw_latency(c, lat, y, y_end, w);
	return y;
}

/* Every VF's run, one line each, in the list widget: while it runs the
 * list follows it, until PgUp/PgDn scroll it. */
static void draw_runs(struct console *c, struct bench_view *bv, const struct job *j, int y,
		      int y_end, int w)
{
	char line[640];
	long last = 0;
	for (size_t i = 0; i < j->n; i++)
		if (j->t[i].state != T_WAIT && j->t[i].state != T_SKIP)
			last = (long)i;
	listw_set_rows(&bv->runs, (long)j->n);
	if (bv->runs_follow)
		bv->runs.top = last - (y_end - y) + 1;
	listw_fit(&bv->runs, y_end - y);
	for (size_t i = (size_t)bv->runs.top; i < j->n && y < y_end; i++) {
		const struct target *t = &j->t[i];
		char fig[32] = "";
		/* A validation's write_bw figure, else the verdict's; none when the
		 * test did not run to one (an ERROR test has no "figure"). */
		struct json_object *f = NULL, *tests = text_jarr(t->result, "tests");
		if (measured(t->state) && j->validate && tests)
			json_object_object_get_ex(json_object_array_get_idx(tests, 0), "figure",
						  &f);
		else if (measured(t->state))
			json_object_object_get_ex(json_object_object_get(t->result, "verdict"),
						  "figure_gbps", &f);
		if (f)
			snprintf(fig, sizeof(fig), "%.2f Gb/s", json_object_get_double(f));
		snprintf(line, sizeof(line), "%-9s", state_names[t->state]);
		screen_put(y, 1, 9, line, state_attr(c, t->state));
		if (t->drop) /* the history flagged a drop: the why says so, in colour */
			screen_put(y, 6, 4, "DROP", screen_attr(c, TR_WARNING));
		snprintf(line, sizeof(line), "%-12s %-9s %12s  %s", t->t.bdf, t->t.ibdev, fig,
			 t->why);
		screen_put(y++, 11, w - 11, line, screen_attr(c, TR_NORMAL));
	}
}

static void draw_run(struct console *c, int y, int y_end, int w)
{
	struct bench_view *bv = bench_of(c);
	char line[640];
	if (bv->error[0]) {
		draw_wrapped(bv->error, y, y_end, 1, w - 1, screen_attr(c, TR_ERROR));
		return;
	}
	if (!bv->job) {
		screen_put(y, 1, w - 1,
			   "Enter runs, Up/Down pick a field, Left/Right change it, Esc back",
			   screen_attr(c, TR_STATUS));
		return;
	}
	struct job *j = bv->job;
	pthread_mutex_lock(&j->mu);
	bool finished = j->finished;
	size_t n_pass = 0, n_fail = 0, n_skip = 0, n_cancel = 0, n_run = 0, n_hca = 0;
	for (size_t i = 0; i < j->n; i++) {
		enum tstate s = j->t[i].state;
		n_run += s == T_RUN;
		n_pass += s == T_PASS;
		n_fail += s == T_FAIL || s == T_ERROR;
		n_skip += s == T_SKIP;
		n_cancel += s == T_CANCELLED;
		n_hca += s == T_HCA;
	}
	const struct target *cur = bv->cur < j->n ? &j->t[bv->cur] : NULL;
	uint64_t total = j->cfg.iters ? j->cfg.iters : bench_default_iters(j->cfg.test);
	const char *peer = j->peer == PEER_REMOTE     ? j->host
			   : j->peer == PEER_LOOPBACK ? "itself"
						      : j->peer_ibdev;
	char more[48] = "";
	if (n_run > 1)
		snprintf(more, sizeof(more), " (+%zu at once)", n_run - 1);
	if (!finished && cur && (j->validate || j->cfg.duration_s)) {
		unsigned int k = (unsigned int)(bv->fraction * BENCH_PROFILE_TESTS);
		snprintf(line, sizeof(line), " running %s %s%s against %s: %.0f%%  %.2f Gb/s%s",
			 j->validate ? exchange_test_name(
					       bench_profile_tests[k < BENCH_PROFILE_TESTS ? k : 3])
				     : exchange_test_name(j->cfg.test),
			 cur->t.ibdev, more, peer, 100 * bv->fraction, bv->gbps,
			 atomic_load(&j->cancel) ? "  cancelling..." : "  (Esc cancels)");
		screen_put(y++, 0, w, line, screen_attr(c, TR_HEADER_VALUE));
	} else if (!finished && cur) {
		snprintf(line, sizeof(line),
			 " running %s %s%s against %s: %llu/%llu iterations  %.2f Gb/s%s",
			 exchange_test_name(j->cfg.test), cur->t.ibdev, more, peer,
			 (unsigned long long)(bv->fraction * (double)total),
			 (unsigned long long)total, bv->gbps,
			 atomic_load(&j->cancel) ? "  cancelling..." : "  (Esc cancels)");
		screen_put(y++, 0, w, line, screen_attr(c, TR_HEADER_VALUE));
	} else if (j->n > 1) {
		int n = snprintf(line, sizeof(line),
				 " %zu VFs: %zu passed, %zu failed, %zu skipped%s", j->n, n_pass,
				 n_fail, n_skip, n_cancel ? ", cancelled" : "");
		if (n_hca && n > 0 && (size_t)n < sizeof(line))
			snprintf(line + n, sizeof(line) - (size_t)n,
				 ", %zu through the HCA only (the peer shares their port)", n_hca);
		screen_put(y++, 0, w, line,
			   screen_attr(c, n_fail || !n_pass ? TR_BENCH_FAIL : TR_BENCH_PASS));
	}
	if (y < y_end && bv->n_spark)
		draw_spark(c, y++, w);
	if (j->n == 1 && finished && y < y_end)
		draw_one(c, j, peer, y, y_end, w);
	else
		draw_runs(c, bv, j, y, y_end, w);
	pthread_mutex_unlock(&j->mu);
}

void bv_draw(struct console *c, struct view *v)
{
	struct bench_view *bv = v->state;
	const struct rect *t = &c->lay.tree;
	int w = t->w, y_end = t->y + t->h + c->lay.details.h;
	screen_put(t->y, 0, w,
		   " Bench: RDMA verbs between a VF and its peer, judged against the port rate",
		   screen_attr(c, TR_COLUMN_HEADER));
	int y = draw_form(c, t->y + 1, w);
	if (bv->confirm[0] && y < y_end) {
		y = draw_wrapped(bv->confirm, y + 1, y_end, 1, w - 1, screen_attr(c, TR_PROMPT));
		return;
	}
	if (y + 1 < y_end)
		draw_run(c, y + 1, y_end, w);
}
