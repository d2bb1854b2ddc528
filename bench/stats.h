/* SPDX-License-Identifier: MIT */
/* Benchmark statistics, separate from the loops that gather the samples.
 * Bandwidth counts payload bytes only, in Gb/s = 10^9 bit/s, as perftest. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lat_stats {
	size_t n;
	double min_us, max_us, median_us, mean_us, stdev_us, p99_us, p999_us;
};

/* Latency statistics of n samples in nanoseconds. Sorts samples in place.
 * Percentiles use the nearest-rank method (perftest's): the smallest sample
 * with at least p% of samples at or below it. Returns -EINVAL for n == 0. */
int stats_latency(uint64_t *samples_ns, size_t n, struct lat_stats *ret);

#define LAT_HIST_BUCKETS 24

/* One bucket: the samples in [lo_ns, hi_ns). */
struct lat_bucket {
	uint64_t lo_ns, hi_ns;
	uint64_t count;
};

struct lat_hist {
	size_t n_buckets; /* 1 .. LAT_HIST_BUCKETS; 0: no samples */
	struct lat_bucket b[LAT_HIST_BUCKETS];
};

/* Histogram of n ascending samples in nanoseconds, on a linear scale: the
 * range [min, max] is cut into buckets of equal width, in whole ns,
 * width = ceil((max - min + 1) / LAT_HIST_BUCKETS), the first starting at
 * min. Fewer buckets than LAT_HIST_BUCKETS are used when fewer cover the
 * range (all samples equal: one bucket [min, min + 1)). Linear rather than
 * log2 so the bars read as the shape of the distribution; a far outlier
 * shows as a lone bucket at the end. Returns -EINVAL for n == 0. */
int stats_histogram(const uint64_t *sorted_ns, size_t n, struct lat_hist *ret);

/* Payload bandwidth in Gb/s of `bytes` moved in `ns` nanoseconds. */
double stats_gbps(uint64_t bytes, uint64_t ns);
/* Message rate in millions of messages per second. */
double stats_mpps(uint64_t msgs, uint64_t ns);

/* Peak bandwidth: the best rate over any window of `window` consecutive
 * completions, given the completion time of each message (ns, ascending) and
 * the message size. Unlike perftest it does not give up past 20000 samples.
 * Returns 0 when fewer than window+1 timestamps are given. */
double stats_peak_gbps(const uint64_t *done_ns, size_t n, size_t window, uint64_t msg_size);

/* The payload ceiling of a link in Gb/s: rate_gbps * mtu / (mtu + headers),
 * where headers is 26 bytes on InfiniBand (LRH 8, BTH 12, ICRC 4, VCRC 2),
 * plus 40 with a GRH (docs/bench-verdict.md): 400G NDR at MTU 4096 -> 397.5. */
double stats_payload_ceiling_gbps(double rate_gbps, unsigned int mtu, int grh);

/* Duration mode's warm-up and cool-down, as perftest -D's margins: the
 * first and last margin of the run are excluded from the figures. ibvf's
 * margin is a fifth of the duration, at most 2 s (perftest's default
 * --margin), so a short run still keeps three fifths measured. */
uint64_t stats_margin_ns(unsigned int duration_s);

/* The measured part of a duration run whose first post was at start_ns:
 * given the completion times t[0..n) (ascending), the first completion at
 * or after start + margin (*ret_i0) and the last at or before the last
 * completion minus margin (*ret_i1). The figure counts what completed in
 * (t[i0], t[i1]]: messages cum[i1] - cum[i0] over t[i1] - t[i0]. Returns
 * false (and the whole run, 0 .. n-1) when the margins leave fewer than two
 * completions between them. */
bool stats_measured_window(const uint64_t *t, size_t n, uint64_t start_ns, uint64_t margin_ns,
			   size_t *ret_i0, size_t *ret_i1);

/* The run's own relative spread: the bandwidth of each of up to `slices`
 * equal time slices of (t[i0], t[i1]] (messages completed in the slice over
 * its length, cum the running message count at each completion), as the
 * population standard deviation over the mean. Slices are fewer when there
 * are fewer than 4 completions per slice; < 0 (unknown) when fewer than 3
 * slices remain. */
double stats_bw_spread(const uint64_t *t, const uint64_t *cum, size_t i0, size_t i1,
		       unsigned int slices);
