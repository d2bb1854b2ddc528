// SPDX-License-Identifier: MIT
/* The benchmark's verdict against the port's rate. */
#include "verdict.h"

#include <stdio.h>
#include <string.h>

#include "stats.h"

/* The payload ceiling (docs/bench-verdict.md): rate x MTU / (MTU + headers).
 * 4X NDR carries 400 Gb/s; an RDMA packet at the path MTU of 4096 bytes has
 * 26 bytes of headers besides its payload (LRH 8, BTH 12, ICRC 4, VCRC 2),
 * so 400 x 4096 / 4122 = 397.48 Gb/s is the figure a run is held to. With a
 * 40-byte GRH it would be 400 x 4096 / 4162 = 393.66 Gb/s; the GRH is only
 * counted on Ethernet (RoCE) ports here, as before (issue 13 revisits it). */
static double ceiling_of(const struct bench_result *r, const struct bench_target *t)
{
	return stats_payload_ceiling_gbps(t->rate_gbps, r->mtu ? r->mtu : 4096, r->ethernet);
}

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
	if (t->rate_gbps <= 0) {
		v->pass = min_ratio <= 0;
		snprintf(v->reason, sizeof(v->reason),
			 "not judged: the port rate of '%.60s' is unknown",
			 t->ibdev[0] ? t->ibdev : t->bdf);
		return;
	}
	unsigned int dirs = r->bidir ? 2 : 1;
	v->judged = true;
	v->ceiling_gbps = ceiling_of(r, t);
	v->expected_gbps = v->ceiling_gbps * min_ratio * dirs;
	v->pass = v->figure_gbps >= v->expected_gbps;
	snprintf(v->reason, sizeof(v->reason),
		 "%.2f Gb/s is %.0f%% of the %.2f Gb/s payload ceiling%s of %.48s (threshold "
		 "%.0f%%)",
		 v->figure_gbps, 100 * v->figure_gbps / (v->ceiling_gbps * dirs), v->ceiling_gbps,
		 r->bidir ? " x2 (bidirectional)" : "", t->rate[0] ? t->rate : "its port",
		 100 * min_ratio);
}
