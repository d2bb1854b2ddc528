// SPDX-License-Identifier: MIT
/* The benchmark's reports: the verdict against the port's rate, the
 * perftest-style table (same headers, Gb/s by default) and JSON. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "bench_cli.h"

/* perftest's MB/sec is 2^20 bytes per second. */
static double unit(double gbps, bool mbps)
{
	return mbps ? gbps * 1e9 / 8 / 1048576.0 : gbps;
}

static const char *const titles[] = {"RDMA_Write BW Test", "RDMA_Read BW Test",
				     "RDMA_Write Latency Test", "RDMA_Read Latency Test"};

void bench_judge(const struct bench_result *r, const struct bench_target *t, double min_ratio,
		 struct bench_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->min_ratio = min_ratio;
	for (unsigned int i = 0; i < r->n_sizes; i++)
		if (r->sizes[i].bw_avg_gbps > v->figure_gbps)
			v->figure_gbps = r->sizes[i].bw_avg_gbps;
	if (bench_is_latency(r->test)) {
		v->pass = r->n_sizes > 0 && r->sizes[0].lat.n > 0;
		snprintf(v->reason, sizeof(v->reason), "%s",
			 v->pass ? "latency measured (no rate threshold)" : "no latency samples");
		return;
	}
	v->judged = true;
	if (t->rate_gbps <= 0) {
		v->pass = min_ratio <= 0;
		snprintf(v->reason, sizeof(v->reason), "the port rate of '%s' is unknown",
			 t->ibdev);
		return;
	}
	v->ceiling_gbps =
		stats_payload_ceiling_gbps(t->rate_gbps, r->mtu ? r->mtu : 4096, r->ethernet);
	v->expected_gbps = v->ceiling_gbps * min_ratio * (r->bidir ? 2 : 1);
	v->pass = v->figure_gbps >= v->expected_gbps;
	snprintf(v->reason, sizeof(v->reason),
		 "%.2f Gb/s is %.0f%% of the %.2f Gb/s payload ceiling%s of %s (threshold %.0f%%)",
		 v->figure_gbps, 100 * v->figure_gbps / (v->ceiling_gbps * (r->bidir ? 2 : 1)),
		 v->ceiling_gbps, r->bidir ? " x2 (bidirectional)" : "",
		 t->rate[0] ? t->rate : "its port", 100 * min_ratio);
}

void bench_report_text(FILE *f, const struct bench_result *r, const struct bench_target *t,
		       bool mbps)
{
	static const char rule[] = "-----------------------------------------------------------"
				   "----------------------------";
	fprintf(f, "%s\n", rule);
	fprintf(f, "                    %s%s\n", titles[r->test & 3],
		r->bidir ? " (bidirectional)" : "");
	fprintf(f, " Device         : %s", r->ibdev);
	if (t && t->bdf[0])
		fprintf(f, " (%s%s%s%s)", t->vf_index >= 0 ? "VF " : "", t->bdf,
			t->netdev[0] ? ", " : "", t->netdev);
	fprintf(f, "\n Port           : %u  %s  GID index %d  MTU %u\n", r->port,
		r->ethernet ? "Ethernet" : "InfiniBand", r->gid_index, r->mtu);
	fprintf(f, " Connection     : %s  QPs %u  TX depth %u  CQ moderation %u\n",
		r->cm ? "rdma_cm" : "exchange", r->qps, r->tx_depth, r->cq_mod);
	fprintf(f, " Outstand reads : %u  Max inline %u B  Mode %s\n", r->rd_atomic, r->max_inline,
		r->duration_mode ? "duration" : "iterations");
	fprintf(f, "%s\n", rule);
	if (bench_is_latency(r->test)) {
		fputs(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
		      "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% "
		      "percentile[usec] \n",
		      f);
		for (unsigned int i = 0; i < r->n_sizes; i++) {
			const struct bench_size_result *s = &r->sizes[i];
			fprintf(f,
				" %-7llu %-10llu %-7.3f        %-7.3f      %-7.3f          %-7.3f  "
				"      %-7.3f         %-7.3f                %-7.3f\n",
				(unsigned long long)s->size, (unsigned long long)s->msgs,
				s->lat.min_us, s->lat.max_us, s->lat.median_us, s->lat.mean_us,
				s->lat.stdev_us, s->lat.p99_us, s->lat.p999_us);
		}
	} else {
		fprintf(f,
			" #bytes     #iterations    BW peak[%s]    BW average[%s]   "
			"MsgRate[Mpps]\n",
			mbps ? "MB/sec" : "Gb/sec", mbps ? "MB/sec" : "Gb/sec");
		for (unsigned int i = 0; i < r->n_sizes; i++) {
			const struct bench_size_result *s = &r->sizes[i];
			fprintf(f, " %-10llu %-14llu %-18.2f %-20.2f %-.6f\n",
				(unsigned long long)s->size, (unsigned long long)s->msgs,
				unit(s->bw_peak_gbps, mbps), unit(s->bw_avg_gbps, mbps),
				s->msg_rate_mpps);
		}
	}
	fprintf(f, "%s\n", rule);
}

void bench_report_verdict(FILE *f, const struct bench_target *t, const struct bench_verdict *v)
{
	fprintf(f, "%s %s: %s\n", v->pass ? "PASS" : "FAIL", t->bdf[0] ? t->bdf : t->ibdev,
		v->reason);
}

static void add_num(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

static void add_int(struct json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v && *v ? json_object_new_string(v) : NULL);
}

/* "histogram": [{"lo_us", "hi_us", "count"}, ...], bucket bounds [lo, hi). */
static void add_hist(struct json_object *o, const struct lat_hist *h)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < h->n_buckets && i < LAT_HIST_BUCKETS; i++) {
		struct json_object *b = json_object_new_object();
		add_num(b, "lo_us", (double)h->b[i].lo_ns / 1000.0);
		add_num(b, "hi_us", (double)h->b[i].hi_ns / 1000.0);
		add_int(b, "count", (int64_t)h->b[i].count);
		json_object_array_add(a, b);
	}
	json_object_object_add(o, "histogram", a);
}

struct json_object *bench_report_json(const struct bench_result *r, const struct bench_target *t,
				      const struct bench_verdict *v)
{
	struct json_object *o = json_object_new_object();
	add_str(o, "test", exchange_test_name(r->test));
	struct json_object *dev = json_object_new_object();
	add_str(dev, "ibdev", r->ibdev[0] ? r->ibdev : t ? t->ibdev : NULL);
	if (t) {
		add_str(dev, "bdf", t->bdf);
		add_str(dev, "pf", t->pf_bdf);
		json_object_object_add(dev, "vf",
				       t->vf_index >= 0 ? json_object_new_int(t->vf_index) : NULL);
		add_str(dev, "netdev", t->netdev);
		add_str(dev, "rate", t->rate);
	}
	add_int(dev, "port", r->port);
	add_int(dev, "gid_index", r->gid_index);
	add_str(dev, "link_layer", r->ethernet ? "Ethernet" : "InfiniBand");
	add_int(dev, "mtu", r->mtu);
	json_object_object_add(o, "device", dev);
	struct json_object *p = json_object_new_object();
	add_str(p, "connection", r->cm ? "rdma_cm" : "exchange");
	add_int(p, "qps", r->qps);
	add_int(p, "tx_depth", r->tx_depth);
	add_int(p, "cq_moderation", r->cq_mod);
	add_int(p, "outstanding_reads", r->rd_atomic);
	add_int(p, "max_inline", r->max_inline);
	json_object_object_add(p, "bidirectional", json_object_new_boolean(r->bidir));
	add_str(p, "mode", r->duration_mode ? "duration" : "iterations");
	json_object_object_add(o, "params", p);
	struct json_object *sizes = json_object_new_array();
	for (unsigned int i = 0; i < r->n_sizes; i++) {
		const struct bench_size_result *s = &r->sizes[i];
		struct json_object *so = json_object_new_object();
		add_int(so, "bytes", (int64_t)s->size);
		add_int(so, "iterations", (int64_t)s->msgs);
		if (bench_is_latency(r->test)) {
			add_num(so, "t_min_us", s->lat.min_us);
			add_num(so, "t_max_us", s->lat.max_us);
			add_num(so, "t_typical_us", s->lat.median_us);
			add_num(so, "t_avg_us", s->lat.mean_us);
			add_num(so, "t_stdev_us", s->lat.stdev_us);
			add_num(so, "p99_us", s->lat.p99_us);
			add_num(so, "p99_9_us", s->lat.p999_us);
			add_hist(so, &s->hist);
		} else {
			add_num(so, "bw_peak_gbps", s->bw_peak_gbps);
			add_num(so, "bw_avg_gbps", s->bw_avg_gbps);
			add_num(so, "msg_rate_mpps", s->msg_rate_mpps);
			add_int(so, "elapsed_ns", (int64_t)s->ns);
		}
		json_object_array_add(sizes, so);
	}
	json_object_object_add(o, "sizes", sizes);
	if (v) {
		struct json_object *vo = json_object_new_object();
		add_str(vo, "status", v->pass ? "PASS" : "FAIL");
		json_object_object_add(vo, "judged", json_object_new_boolean(v->judged));
		add_num(vo, "figure_gbps", v->figure_gbps);
		add_num(vo, "expected_gbps", v->expected_gbps);
		add_num(vo, "ceiling_gbps", v->ceiling_gbps);
		add_num(vo, "min_ratio", v->min_ratio);
		add_str(vo, "reason", v->reason);
		json_object_object_add(o, "verdict", vo);
	}
	return o;
}
