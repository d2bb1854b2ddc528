/* SPDX-License-Identifier: MIT */
/* NUMA placement of a benchmark thread and its buffer: the thread runs on
 * its HCA's CPUs (sysfs `local_cpulist`) and the buffer lies on the HCA's
 * node (`numa_node`), as perftest does, unless --cpu or --no-pin say
 * otherwise. The buffer is bound with mbind(MPOL_PREFERRED) before its first
 * touch and where its pages really went is read back (move_pages), so the
 * report gives facts, not intentions. */
#pragma once

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"
#include "core/base/err.h"

/* What sysfs says of an HCA. */
struct place_hca {
	int node; /* numa_node; -1 unknown (no NUMA information, or no PCI device) */
	bool local_known;
	cpu_set_t local; /* local_cpulist */
	bool pci;	 /* a PCI function was found behind the RDMA device */
};

/* What the user asked for (bench_config's cpu_given, cpus, no_pin). */
struct place_want {
	bool no_pin;
	bool cpus_given;
	cpu_set_t cpus;
};

/* The decision, before it is carried out. */
struct place_plan {
	bool pin;
	cpu_set_t cpus;
	int mem_node;  /* -1: the buffer is not bound */
	bool off_node; /* --cpu names CPUs outside the HCA's local list */
	char note[BENCH_PLACE_NOTE];
};

/* Reads ibdev's numa_node and local_cpulist under sysfs (normally "/sys"):
 * class/infiniband/IBDEV/device/, or for a software device (rxe) with no
 * device link the PCI function of its parent netdev
 * (class/net/PARENT/device/). No PCI function is not an error (node -1,
 * local unknown); an unreadable or malformed file is, *ret then holding
 * what was read before it. */
int place_read_hca(const char *sysfs, const char *ibdev, struct place_hca *ret, struct err *e);

/* The decision from the HCA, the CPUs this thread may use (online and in
 * its affinity) and the user's wish. -EINVAL with e set when --cpu names
 * no CPU the thread may use. */
int place_decide(const char *ibdev, const struct place_hca *h, const cpu_set_t *usable,
		 const struct place_want *w, struct place_plan *ret, struct err *e);

/* Carries out placement for the calling thread on ibdev: reads sysfs,
 * decides, pins. Fills p (and its mem_node for place_buffer_alloc) and
 * saves the thread's affinity in *saved for place_end(). */
int place_begin(const char *ibdev, const struct place_want *w, struct bench_placement *p,
		cpu_set_t *saved, struct err *e);
/* The same on the sysfs tree at sysfs (tests). With --no-pin nothing but
 * the HCA's node is read, and an unreadable HCA leaves it unknown. A CPU
 * beyond CPU_SETSIZE is -ERANGE, its message pointing to --no-pin. */
int place_begin_at(const char *sysfs, const char *ibdev, const struct place_want *w,
		   struct bench_placement *p, cpu_set_t *saved, struct err *e);
/* Gives the calling thread back the affinity place_begin() found. */
void place_end(const struct bench_placement *p, const cpu_set_t *saved);

/* An anonymous mapping of at least size bytes, bound to p->mem_node when
 * it is not -1 (a failed bind is noted in p, not fatal), zeroed by this
 * thread (the first touch) and then asked where its pages are (p->buf_node,
 * p->buf_mixed). *ret_len is the mapping's length, for place_buffer_free. */
int place_buffer_alloc(size_t size, struct bench_placement *p, void **ret, size_t *ret_len,
		       struct err *e);
void place_buffer_free(void *buf, size_t len);

/* The node most of the sampled pages of [buf, buf + len) are on, -1 when
 * the kernel cannot say; *mixed when they are on more than one node. */
int place_pages_node(const void *buf, size_t len, bool *mixed);

/* Records where the thread is now (sched CPU and its node) in p. */
void place_sample_cpu(struct bench_placement *p);

/* The warnings a report gives for r: this side's or the peer's buffer or
 * thread on another node than its HCA, --cpu outside the local list. At
 * most max lines of size BENCH_PLACE_NOTE; returns how many. */
size_t place_warnings(const struct bench_result *r, char (*out)[BENCH_PLACE_NOTE], size_t max);
