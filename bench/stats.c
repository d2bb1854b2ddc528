// SPDX-License-Identifier: MIT
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest rank: the ceil(permille/1000 * n)-th smallest sample (1-based),
 * in integers so 99.9% of 1000 is the 999th and not, by rounding, the 1000th. */
static double percentile_us(const uint64_t *sorted, size_t n, unsigned int permille)
{
	size_t rank = (permille * n + 999) / 1000;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return (double)sorted[rank - 1] / 1000.0;
}

int stats_latency(uint64_t *samples_ns, size_t n, struct lat_stats *ret)
{
	if (n == 0)
		return -EINVAL;
	qsort(samples_ns, n, sizeof(*samples_ns), cmp_u64);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (double)samples_ns[i];
	double mean = sum / (double)n, var = 0;
	for (size_t i = 0; i < n; i++) {
		double d = (double)samples_ns[i] - mean;
		var += d * d;
	}
	struct lat_stats s = {
		.n = n,
		.min_us = (double)samples_ns[0] / 1000.0,
		.max_us = (double)samples_ns[n - 1] / 1000.0,
		.median_us = n % 2 ? (double)samples_ns[n / 2] / 1000.0
				   : ((double)samples_ns[n / 2 - 1] + (double)samples_ns[n / 2]) /
					     2000.0,
		.mean_us = mean / 1000.0,
		.stdev_us = sqrt(var / (double)n) / 1000.0,
		.p99_us = percentile_us(samples_ns, n, 990),
		.p999_us = percentile_us(samples_ns, n, 999),
	};
	*ret = s;
	return 0;
}

int stats_histogram(const uint64_t *sorted_ns, size_t n, struct lat_hist *ret)
{
	if (n == 0)
		return -EINVAL;
	/* ceil(r / k) as (r - 1) / k + 1 with r = max - min + 1, which cannot overflow. */
	uint64_t min = sorted_ns[0], span = sorted_ns[n - 1] - min;
	uint64_t width = span / LAT_HIST_BUCKETS + 1;
	struct lat_hist h = {.n_buckets = (size_t)(span / width + 1)};
	for (size_t i = 0; i < h.n_buckets; i++) {
		h.b[i].lo_ns = min + i * width;
		h.b[i].hi_ns = min + (i + 1) * width;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)((sorted_ns[i] - min) / width);
		h.b[k < h.n_buckets ? k : h.n_buckets - 1].count++;
	}
	*ret = h;
	return 0;
}

double stats_gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8.0 / (double)ns : 0.0;
}

double stats_mpps(uint64_t msgs, uint64_t ns)
{
	return ns ? (double)msgs * 1000.0 / (double)ns : 0.0;
}

double stats_peak_gbps(const uint64_t *done_ns, size_t n, size_t window, uint64_t msg_size)
{
	if (window == 0 || n < window + 1)
		return 0.0;
	double best = 0.0;
	for (size_t i = window; i < n; i++) {
		uint64_t dt = done_ns[i] - done_ns[i - window];
		double g = stats_gbps(window * msg_size, dt);
		if (dt && g > best)
			best = g;
	}
	return best;
}

double stats_payload_ceiling_gbps(double rate_gbps, unsigned int mtu, int grh)
{
	unsigned int headers = 26 + (grh ? 40 : 0);
	return mtu ? rate_gbps * mtu / (double)(mtu + headers) : 0.0;
}

#define MAX_MARGIN_NS 2000000000ull

uint64_t stats_margin_ns(unsigned int duration_s)
{
	uint64_t m = (uint64_t)duration_s * 1000000000ull / 5;
	return m > MAX_MARGIN_NS ? MAX_MARGIN_NS : m;
}

bool stats_measured_window(const uint64_t *t, size_t n, uint64_t start_ns, uint64_t margin_ns,
			   size_t *ret_i0, size_t *ret_i1)
{
	size_t i0 = 0, i1 = n ? n - 1 : 0;
	if (n < 2) {
		*ret_i0 = 0, *ret_i1 = i1;
		return false;
	}
	uint64_t end = t[n - 1];
	while (i0 + 1 < n && t[i0] < start_ns + margin_ns)
		i0++;
	while (i1 > i0 && t[i1] + margin_ns > end)
		i1--;
	if (i1 <= i0) {
		*ret_i0 = 0, *ret_i1 = n - 1;
		return false;
	}
	*ret_i0 = i0, *ret_i1 = i1;
	return true;
}

double stats_bw_spread(const uint64_t *t, const uint64_t *cum, size_t i0, size_t i1,
		       unsigned int slices)
{
	if (i1 <= i0 || t[i1] <= t[i0])
		return -1;
	size_t per = (i1 - i0) / 4;
	unsigned int s = per < slices ? (unsigned int)per : slices;
	if (s < 3)
		return -1;
	double span = (double)(t[i1] - t[i0]), sum = 0, sq = 0;
	size_t i = i0;
	uint64_t before = cum[i0];
	for (unsigned int k = 1; k <= s; k++) {
		double edge = (double)t[i0] + span * k / s;
		while (i < i1 && (double)t[i + 1] <= edge)
			i++;
		if (k == s)
			i = i1;
		double msgs = (double)(cum[i] - before);
		before = cum[i];
		sum += msgs;
		sq += msgs * msgs;
	}
	double mean = sum / s, var = sq / s - mean * mean;
	return mean > 0 ? sqrt(var > 0 ? var : 0) / mean : -1;
}
