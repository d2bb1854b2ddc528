// SPDX-License-Identifier: MIT
/* A benchmark result rendered from its JSON (bench_text.h). */
#include "bench_text.h"

#include <string.h>

#include "bench/bench.h"

#define HIST_WIDTH 40

static const char rule[] = "-----------------------------------------------------------"
			   "----------------------------";

/* perftest's MB/sec is 2^20 bytes per second. */
static double unit(double gbps, bool mbps)
{
	return mbps ? gbps * 1e9 / 8 / 1048576.0 : gbps;
}

static const char *title(int test)
{
	static const char *const titles[] = {"RDMA_Write BW Test", "RDMA_Read BW Test",
					     "RDMA_Write Latency Test", "RDMA_Read Latency Test"};
	return test >= 0 && test < 4 ? titles[test] : "unknown test";
}

/* With rdma_cm, the two addresses it connected: this side's -> the peer's. */
static void cm_line(struct text *out, struct json_object *par)
{
	const char *self = text_jstr(par, "cm_addr"), *peer = text_jstr(par, "cm_peer_addr");
	if (self || peer)
		text_add(out, TEXT_NORMAL, " rdma_cm        : %s -> %s", self ?: "?", peer ?: "?");
}

static void header(struct text *out, struct json_object *dev, struct json_object *par, int test)
{
	char place[160] = "";
	if (text_jstr(dev, "bdf"))
		snprintf(place, sizeof(place), " (%s%s%s%s)", text_jstr(dev, "vf") ? "VF " : "",
			 text_jstr(dev, "bdf"), text_jstr(dev, "netdev") ? ", " : "",
			 text_jstr(dev, "netdev") ?: "");
	text_add(out, TEXT_NORMAL, "%s", rule);
	text_add(out, TEXT_HEADING, "                    %s%s", title(test),
		 text_jbool(par, "bidirectional") ? " (bidirectional)" : "");
	text_add(out, TEXT_NORMAL, " Device         : %s%s", text_jstr(dev, "ibdev") ?: "", place);
	text_add(out, TEXT_NORMAL, " Port           : %lld  %s  GID index %lld  MTU %lld",
		 (long long)text_jint(dev, "port"), text_jstr(dev, "link_layer") ?: "?",
		 (long long)text_jint(dev, "gid_index"), (long long)text_jint(dev, "mtu"));
	text_add(out, TEXT_NORMAL,
		 " Connection     : %s  QPs %lld  TX depth %lld  CQ moderation %lld",
		 text_jstr(par, "connection") ?: "?", (long long)text_jint(par, "qps"),
		 (long long)text_jint(par, "tx_depth"), (long long)text_jint(par, "cq_moderation"));
	text_add(out, TEXT_NORMAL, " Outstand reads : %lld  Max inline %lld B  Mode %s",
		 (long long)text_jint(par, "outstanding_reads"),
		 (long long)text_jint(par, "max_inline"), text_jstr(par, "mode") ?: "?");
	cm_line(out, par);
}

/* "node 3", or "node unknown" for null (-1 in sysfs). */
static const char *node_name(struct json_object *o, const char *key, char *buf, size_t size)
{
	struct json_object *v = NULL;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return "node unknown";
	snprintf(buf, size, "node %lld", (long long)json_object_get_int64(v));
	return buf;
}

/* A CPU list in at most size - 1 bytes: cut between two numbers with
 * ",...", never inside one (a list cut mid-number names another CPU). */
static void cpus_cut(const char *list, char *buf, size_t size)
{
	size_t n = strlen(list);
	if (n < size) {
		memcpy(buf, list, n + 1);
		return;
	}
	size_t keep = size > 5 ? size - 5 : 0; /* room for ",..." and the NUL */
	while (keep && list[keep] != ',')
		keep--;
	memcpy(buf, list, keep);
	snprintf(buf + keep, size - keep, "%s", keep ? ",..." : "...");
}

/* Where each side ran (the result's "placement"), its note and warnings. */
static void placement_lines(struct text *out, struct json_object *res)
{
	struct json_object *p = NULL, *peer = NULL, *w;
	if (!json_object_object_get_ex(res, "placement", &p) || !p)
		return;
	json_object_object_get_ex(p, "peer", &peer);
	char hca[32], cpu[32], buf[32], bound[32], list[120], thread[160];
	cpus_cut(text_jstr(p, "cpus") ?: "?", list, sizeof(list));
	if (text_jbool(p, "pinned"))
		snprintf(thread, sizeof(thread), "pinned to CPUs %s (%.20s)", list,
			 text_jstr(p, "cpus_from") ?: "?");
	else
		snprintf(thread, sizeof(thread), "not pinned");
	snprintf(cpu, sizeof(cpu), "%lld", (long long)text_jint(p, "cpu"));
	text_add(out, TEXT_NORMAL,
		 " Placement      : HCA on NUMA %s, thread %s, ran on CPU %s (%s)",
		 node_name(p, "numa_node", hca, sizeof(hca)), thread,
		 json_object_object_get(p, "cpu") ? cpu : "?",
		 node_name(p, "cpu_node", buf, sizeof(buf)));
	node_name(p, "buffer_bound_node", bound, sizeof(bound));
	text_add(out, TEXT_NORMAL, " Buffer         : on NUMA %s, %s%s",
		 node_name(p, "buffer_node", buf, sizeof(buf)),
		 json_object_object_get(p, "buffer_bound_node") ? "bound to " : "not bound",
		 json_object_object_get(p, "buffer_bound_node") ? bound : "");
	if (peer) {
		char cpu_node[48] = "";
		if (json_object_object_get(peer, "cpu_node"))
			snprintf(cpu_node, sizeof(cpu_node), " (%s)",
				 node_name(peer, "cpu_node", buf, sizeof(buf)));
		snprintf(cpu, sizeof(cpu), "%lld", (long long)text_jint(peer, "cpu"));
		text_add(out, TEXT_NORMAL,
			 " Peer           : HCA on NUMA %s, buffer on %s, CPU %s%s",
			 node_name(peer, "numa_node", hca, sizeof(hca)),
			 node_name(peer, "buffer_node", bound, sizeof(bound)),
			 json_object_object_get(peer, "cpu") ? cpu : "?", cpu_node);
	}
	if (text_jstr(p, "note"))
		text_add(out, TEXT_NORMAL, " Note           : %s", text_jstr(p, "note"));
	w = text_jarr(p, "warnings");
	for (size_t i = 0; w && i < json_object_array_length(w); i++)
		text_add(out, TEXT_WARNING, " Warning        : %s",
			 json_object_get_string(json_object_array_get_idx(w, i)));
}

/* "400 Gb/s 4x" of an exchanged port block, "?" when unknown. */
static void port_words(struct json_object *p, char *buf, size_t size)
{
	int64_t rate = text_jint(p, "rate_mbps"), w = text_jint(p, "width"),
		cap = text_jint(p, "max_tx_rate_mbps");
	int n = rate > 0 ? snprintf(buf, size, "%g Gb/s", (double)rate / 1000)
			 : snprintf(buf, size, "?");
	if (w > 0 && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " %lldx", (long long)w);
	if (cap > 0 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ", VF cap %lld Mb/s", (long long)cap);
}

/* Both ends, the framing and the path: what the verdict's ceiling is of. */
static void link_lines(struct text *out, struct json_object *res)
{
	struct json_object *l = NULL, *self = NULL, *peer = NULL;
	if (!json_object_object_get_ex(res, "link", &l) || !l)
		return;
	json_object_object_get_ex(l, "self", &self);
	json_object_object_get_ex(l, "peer", &peer);
	char a[80], b[80];
	port_words(self, a, sizeof(a));
	port_words(peer, b, sizeof(b));
	text_add(out, TEXT_NORMAL, " Ends           : this %s; peer %s%s%s", a,
		 text_jstr(peer, "name") ?: "", text_jstr(peer, "name") ? " " : "", b);
	text_add(out, TEXT_NORMAL,
		 " Wire           : %s, %lld B of headers a packet  SL %lld  P_Key %s",
		 text_jstr(l, "wire_name") ?: "?", (long long)text_jint(l, "headers_bytes"),
		 (long long)text_jint(l, "sl"), text_jstr(l, "pkey") ?: "?");
	if (text_jbool(l, "same_port"))
		text_add(out, TEXT_WARNING,
			 " Same port      : through the HCA, not the link: both ends on PF %s port "
			 "%lld",
			 text_jstr(l, "pf") ?: "?",
			 (long long)text_jint(json_object_object_get(res, "device"), "port"));
}

static void latency_rows(struct text *out, struct json_object *sizes)
{
	text_add(out, TEXT_HEADING,
		 " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
		 "t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   99.9%% "
		 "percentile[usec] ");
	for (size_t i = 0; sizes && i < json_object_array_length(sizes); i++) {
		struct json_object *s = json_object_array_get_idx(sizes, i);
		text_add(out, TEXT_NORMAL,
			 " %-7llu %-10llu %-7.3f        %-7.3f      %-7.3f          %-7.3f  "
			 "      %-7.3f         %-7.3f                %-7.3f",
			 (unsigned long long)text_jint(s, "bytes"),
			 (unsigned long long)text_jint(s, "iterations"), text_jnum(s, "t_min_us"),
			 text_jnum(s, "t_max_us"), text_jnum(s, "t_typical_us"),
			 text_jnum(s, "t_avg_us"), text_jnum(s, "t_stdev_us"),
			 text_jnum(s, "p99_us"), text_jnum(s, "p99_9_us"));
	}
}

static void bandwidth_rows(struct text *out, struct json_object *sizes, bool mbps)
{
	const char *u = mbps ? "MB/sec" : "Gb/sec";
	text_add(out, TEXT_HEADING,
		 " #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]", u, u);
	for (size_t i = 0; sizes && i < json_object_array_length(sizes); i++) {
		struct json_object *s = json_object_array_get_idx(sizes, i);
		text_add(out, TEXT_NORMAL, " %-10llu %-14llu %-18.2f %-20.2f %-.6f",
			 (unsigned long long)text_jint(s, "bytes"),
			 (unsigned long long)text_jint(s, "iterations"),
			 unit(text_jnum(s, "bw_peak_gbps"), mbps),
			 unit(text_jnum(s, "bw_avg_gbps"), mbps), text_jnum(s, "msg_rate_mpps"));
	}
}

void bench_text_histogram(struct text *out, struct json_object *size, int width)
{
	struct json_object *h = text_jarr(size, "histogram");
	size_t n = h ? json_object_array_length(h) : 0;
	int64_t top = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t c = text_jint(json_object_array_get_idx(h, i), "count");
		top = c > top ? c : top;
	}
	for (size_t i = 0; i < n && top > 0; i++) {
		struct json_object *b = json_object_array_get_idx(h, i);
		int64_t c = text_jint(b, "count");
		if (c <= 0)
			continue;
		int len = (int)((double)c / (double)top * width + 0.5);
		len = len < 1 ? 1 : len; /* a non-empty bucket is never blank */
		text_add(out, TEXT_NORMAL, " %9.2f - %9.2f us %9lld %.*s", text_jnum(b, "lo_us"),
			 text_jnum(b, "hi_us"), (long long)c, len,
			 "################################################################"
			 "################################################################");
	}
}

void bench_text_report(struct text *out, struct json_object *res, bool mbps)
{
	struct json_object *dev = NULL, *par = NULL, *sizes = text_jarr(res, "sizes");
	json_object_object_get_ex(res, "device", &dev);
	json_object_object_get_ex(res, "params", &par);
	int test = exchange_test_parse(text_jstr(res, "test") ?: "");
	header(out, dev, par, test);
	placement_lines(out, res);
	link_lines(out, res);
	text_add(out, TEXT_NORMAL, "%s", rule);
	if (test >= 0 && bench_is_latency((enum bench_test)test))
		latency_rows(out, sizes);
	else
		bandwidth_rows(out, sizes, mbps);
	text_add(out, TEXT_NORMAL, "%s", rule);
	if (test < 0 || !bench_is_latency((enum bench_test)test))
		return;
	for (size_t i = 0; sizes && i < json_object_array_length(sizes); i++) {
		struct json_object *s = json_object_array_get_idx(sizes, i);
		if (!text_jarr(s, "histogram") ||
		    !json_object_array_length(text_jarr(s, "histogram")))
			continue;
		text_add(out, TEXT_HEADING,
			 " Latency histogram, %lld bytes:", (long long)text_jint(s, "bytes"));
		bench_text_histogram(out, s, HIST_WIDTH);
	}
}

void bench_text_verdict(struct text *out, struct json_object *res)
{
	struct json_object *v, *dev = NULL;
	if (!json_object_object_get_ex(res, "verdict", &v) || !v)
		return;
	json_object_object_get_ex(res, "device", &dev);
	const char *status = text_jstr(v, "status") ?: "?", *reason = text_jstr(v, "reason") ?: "";
	/* A reason that starts with the status word ("peer-limited: not
	 * validated: ...") is not made to say it twice. */
	size_t n = strlen(status);
	if (!strncmp(reason, status, n) && reason[n] == ':')
		reason += n + 1 + (reason[n + 1] == ' ');
	text_add(out, strcmp(status, "PASS") ? TEXT_ERROR : TEXT_OK, "%s %s: %s", status,
		 text_jstr(dev, "bdf") ?: text_jstr(dev, "ibdev") ?: "?", reason);
}

const char *bench_text_why(const char *why)
{
	static const char out[] = "not run: the peer failed ";
	if (why && !strncmp(why, out, sizeof(out) - 1))
		return "not run: the peer is out (the cause is on the row that put it out)";
	return why;
}

void bench_text_vf_row(struct text *out, struct json_object *vf)
{
	struct json_object *dev = json_object_object_get(vf, "device"),
			   *v = json_object_object_get(vf, "verdict"), *fig = NULL;
	/* A run's entry holds its device object; a skipped VF's only the name. */
	const char *ibdev = json_object_is_type(dev, json_type_object) ? text_jstr(dev, "ibdev")
			    : dev				       ? json_object_get_string(dev)
								       : NULL;
	const char *status = text_jstr(vf, "status") ?: "?";
	char bw[32] = "";
	/* Only a run that reached a verdict has a figure: a SKIP or an error shows none. */
	if (strcmp(status, "SKIP") && json_object_object_get_ex(v, "figure_gbps", &fig) &&
	    (json_object_is_type(fig, json_type_double) || json_object_is_type(fig, json_type_int)))
		snprintf(bw, sizeof(bw), "%9.2f Gb/s", json_object_get_double(fig));
	text_add(out,
		 !strcmp(status, "PASS")   ? TEXT_OK
		 : !strcmp(status, "FAIL") ? TEXT_ERROR
					   : TEXT_WARNING,
		 "%s VF %-14s %-8s %14s  %s", status, text_jstr(vf, "vf_bdf") ?: "?", ibdev ?: "-",
		 bw, bench_text_why(text_jstr(vf, "why")) ?: text_jstr(v, "reason") ?: "");
	if (text_jbool(vf, "peer_out"))
		text_add(out, TEXT_ERROR,
			 "     the peer failed 3 times in a row the same way: the VFs left for it "
			 "are not run");
}

/* "390.00 Gb/s", or "-" when unknown (null). */
static const char *gbps_or_dash(struct json_object *o, const char *key, char *buf, size_t size)
{
	struct json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !v)
		return "-";
	snprintf(buf, size, "%.2f Gb/s", json_object_get_double(v));
	return buf;
}

void bench_text_sweep_summary(struct text *out, struct json_object *doc)
{
	struct json_object *pfs = text_jarr(doc, "pfs"), *node = NULL, *sum = NULL;
	char a[32], b[32], c[32];
	json_object_object_get_ex(doc, "node", &node);
	json_object_object_get_ex(doc, "summary", &sum);
	for (size_t i = 0; pfs && i < json_object_array_length(pfs); i++) {
		struct json_object *p = json_object_array_get_idx(pfs, i);
		text_add(out, TEXT_NORMAL,
			 "PF %-14s %lld of %lld VFs run  best %s  median %s  port %s",
			 text_jstr(p, "pf_bdf") ?: "?", (long long)text_jint(p, "run"),
			 (long long)text_jint(p, "vfs"), gbps_or_dash(p, "best_gbps", a, sizeof(a)),
			 gbps_or_dash(p, "median_gbps", b, sizeof(b)),
			 gbps_or_dash(p, "port_rate_gbps", c, sizeof(c)));
	}
	text_add(out, TEXT_NORMAL,
		 "node: %s at once (%lld runs together; ports %s), %s, wall time %.1f s",
		 gbps_or_dash(node, "aggregate_gbps", a, sizeof(a)),
		 (long long)text_jint(node, "concurrent_runs"),
		 gbps_or_dash(node, "port_rate_gbps", b, sizeof(b)),
		 text_jbool(doc, "parallel") ? "every PF at once" : "one VF after another",
		 text_jnum(node, "wall_s"));
	if (text_jbool(doc, "interrupted"))
		text_add(out, TEXT_WARNING, "interrupted: the VFs not reached are not listed");
	bench_text_vfs_summary(out, sum);
}

void bench_text_vfs_summary(struct text *out, struct json_object *sum)
{
	int64_t pass = text_jint(sum, "pass"), fail = text_jint(sum, "fail");
	bool ok = !fail && pass;
	text_add(out, ok ? TEXT_OK : TEXT_ERROR,
		 "%s: %lld VFs, %lld passed, %lld failed, %lld skipped", ok ? "PASS" : "FAIL",
		 (long long)text_jint(sum, "total"), (long long)pass, (long long)fail,
		 (long long)text_jint(sum, "skip"));
}
