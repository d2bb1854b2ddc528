// SPDX-License-Identifier: MIT
/* A benchmark result as JSON (report.h). */
#include "report.h"

#include <stdint.h>
#include <stdio.h>

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

/* A count that 0 leaves unknown: null. */
static void add_known(struct json_object *o, const char *k, uint32_t v)
{
	json_object_object_add(o, k, v ? json_object_new_int64(v) : NULL);
}

static struct json_object *port_json(const struct exchange_port *p)
{
	struct json_object *o = json_object_new_object();
	add_known(o, "rate_mbps", p->rate_mbps);
	add_known(o, "max_tx_rate_mbps", p->max_tx_rate_mbps);
	add_known(o, "width", p->width);
	add_known(o, "mtu", p->mtu);
	return o;
}

/* "link": both ends' ports as exchanged, the framing, the path's SL and
 * P_Key, and whether both ends share one physical port. */
static void add_link(struct json_object *o, const struct bench_result *r)
{
	struct json_object *l = json_object_new_object(), *peer = port_json(&r->peer_port);
	char pkey[8];
	add_str(peer, "name", r->peer);
	json_object_object_add(l, "self", port_json(&r->self_port));
	json_object_object_add(l, "peer", peer);
	add_str(l, "wire", bench_wire_key(r->wire));
	add_str(l, "wire_name", bench_wire_name(r->wire));
	add_int(l, "headers_bytes", bench_wire_overhead(r->wire));
	json_object_object_add(l, "grh", json_object_new_boolean(r->grh));
	add_int(l, "sl", r->sl);
	add_int(l, "pkey_index", r->pkey_index);
	snprintf(pkey, sizeof(pkey), "0x%04x", r->pkey);
	add_str(l, "pkey", r->pkey ? pkey : NULL);
	add_str(l, "pf", r->pf_bdf);
	json_object_object_add(
		l, "same_port",
		json_object_new_boolean(bench_wire_same_port(&r->self_port, &r->peer_port)));
	json_object_object_add(o, "link", l);
}

static void add_verdict_limit(struct json_object *vo, const struct bench_verdict *v)
{
	add_str(vo, "limited_by", bench_limiter_key(v->limited_by));
	add_str(vo, "limit", v->limit);
	add_known(vo, "limit_mbps", v->limit_mbps);
	add_int(vo, "mtu", v->mtu);
	add_int(vo, "headers_bytes", v->overhead);
	json_object_object_add(vo, "same_port", json_object_new_boolean(v->same_port));
}

/* With rdma_cm: "cm_addr" and "cm_peer_addr", each side's address as
 * exchanged (null when a side sent none). */
static void add_cm(struct json_object *o, const struct bench_result *r)
{
	if (!r->cm)
		return;
	const uint8_t *a[2] = {r->self_port.cm_ipv4, r->peer_port.cm_ipv4};
	const char *key[2] = {"cm_addr", "cm_peer_addr"};
	for (int i = 0; i < 2; i++) {
		char ip[16] = "";
		if (a[i][0] | a[i][1] | a[i][2] | a[i][3])
			snprintf(ip, sizeof(ip), "%u.%u.%u.%u", a[i][0], a[i][1], a[i][2], a[i][3]);
		add_str(o, key[i], ip);
	}
}

/* "bw_spread": the measured part's relative spread (stats_bw_spread()),
 * null when unknown; the history's noise rule reads it. Duration mode:
 * "run_ns" (first post to last completion) and "margin_ns" (left out at
 * each end; 0 when the run was too short to leave any out). */
static void add_accounting(struct json_object *o, const struct bench_size_result *s)
{
	json_object_object_add(o, "bw_spread",
			       s->bw_spread >= 0 ? json_object_new_double(s->bw_spread) : NULL);
	if (s->run_ns) {
		add_int(o, "run_ns", (int64_t)s->run_ns);
		add_int(o, "margin_ns", (int64_t)s->margin_ns);
	}
}

struct json_object *bench_result_to_json(const struct bench_result *r, const struct bench_target *t,
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
	add_cm(p, r);
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
			add_accounting(so, s);
		}
		json_object_array_add(sizes, so);
	}
	json_object_object_add(o, "sizes", sizes);
	add_link(o, r);
	if (v) {
		struct json_object *vo = json_object_new_object();
		add_str(vo, "status", bench_status_name(v->status));
		json_object_object_add(vo, "judged", json_object_new_boolean(v->judged));
		add_num(vo, "figure_gbps", v->figure_gbps);
		add_num(vo, "expected_gbps", v->expected_gbps);
		add_num(vo, "ceiling_gbps", v->ceiling_gbps);
		add_num(vo, "own_ceiling_gbps", v->own_ceiling_gbps);
		add_num(vo, "min_ratio", v->min_ratio);
		add_str(vo, "reason", v->reason);
		add_verdict_limit(vo, v);
		json_object_object_add(o, "verdict", vo);
	}
	bench_placement_to_json(o, r);
	return o;
}
