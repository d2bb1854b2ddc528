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
