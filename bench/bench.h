/* SPDX-License-Identifier: MIT */
/* The RDMA benchmark engine: RDMA WRITE/READ bandwidth and latency over RC
 * QPs between this process and a peer (another process, or another thread
 * of this one), connected by the TCP exchange (bench/exchange.h) or by
 * rdma_cm. It never prints: figures go into struct bench_result, failures
 * into its err with a 0/-errno return. */
#pragma once

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/defaults.h"
#include "bench/exchange.h"
#include "bench/exchange_auth.h"
#include "bench/wire.h"
#include "bench/stats.h"
#include "core/base/err.h"

#define BENCH_MAX_SIZES 23 /* 2 B .. 8 MiB, powers of two */

struct gate_client;

struct bench_config {
	/* This side. */
	const char *ibdev;
	unsigned int ib_port; /* 0: port 1 */
	int gid_index;	      /* -1: automatic, the same rule on both sides */
	bool server;
	/* The peer. */
	const char *host;     /* client: the server's control address */
	const char *src_addr; /* client: the control connection's source (--bind), NULL: any */
	uint16_t tcp_port;
	int listen_fd; /* server: a listening socket to accept on, or -1 */
	bool cm;       /* QPs connected by rdma_cm instead of the exchange */
	/* --cm: this side's IPv4 address, refused unless it is on the device's
	 * netdev (default: the netdev's, bench/cm_addr.h) */
	const char *cm_addr;
	/* The test; the server takes the client's, except `pinned` ones. */
	enum bench_test test;
	uint64_t size; /* 0: 64 KiB for bandwidth, 2 B for latency */
	bool all_sizes;
	uint64_t iters;				       /* 0 with duration_s 0: the test's default */
	unsigned int duration_s;		       /* duration mode when non-zero */
	unsigned int qps, tx_depth, cq_mod, rd_atomic; /* 0: defaults */
	bool bidir;
	uint32_t pinned;     /* server: EXCHANGE_PIN() of parameters given to it */
	int timeout_ms;	     /* control replies and stalled completions; 0: 10 s */
	atomic_bool *cancel; /* set from another thread to stop; may be NULL */
	/* NUMA placement (bench/place.h): by default the thread runs on the
	 * HCA's local CPUs and the buffer lies on its node; cpu_given pins
	 * to cpus instead; no_pin leaves both to the scheduler. */
	bool no_pin;
	bool cpu_given;
	cpu_set_t cpus;
	/* The path (--sl, --pkey-index) and the verdict's --allow-same-port. */
	unsigned int sl; /* service level 0..15 */
	int pkey_index;	 /* -1: index 0, as perftest */
	bool allow_same_port;
	/* --cm in pair and loopback runs: the server side's cm_addr */
	const char *cm_peer_addr;
	/* The shared secret (--key); NULL or unset: none, the server is open. */
	const struct exchange_key *key;
	/* Server: a client already through the door (bench/gate.h); bench_run
	 * owns its fd. NULL: the session takes the first client on listen_fd. */
	const struct gate_client *gated;
};

#define BENCH_PLACE_NOTE 200

/* Where one side's thread and buffer were (bench/place.h). Unknown nodes
 * and CPUs are -1. */
struct bench_placement {
	bool known; /* filled: always for this side, for the peer in pair mode */
	int hca_node;
	bool local_known;
	cpu_set_t local_cpus; /* the HCA's local_cpulist */
	bool pinned;
	cpu_set_t cpus; /* the thread's CPUs when pinned */
	bool cpu_given; /* by --cpu */
	bool off_node;	/* --cpu outside the HCA's local CPUs */
	int cpu, cpu_node;
	int mem_node; /* the buffer was bound (MPOL_PREFERRED) to it; -1 not bound */
	int buf_node; /* where its pages are, read back after the first touch */
	bool buf_mixed;
	char note[BENCH_PLACE_NOTE]; /* why something was not placed, "" when all was */
};

/* Live figures, at most every ~100 ms, from the thread running bench_run. */
struct bench_progress {
	unsigned int size_index, n_sizes;
	uint64_t size;
	double fraction; /* of this size's iterations or duration */
	double gbps;	 /* so far in this size */
};
typedef void (*bench_progress_fn)(const struct bench_progress *p, void *arg);

struct bench_size_result {
	uint64_t size;
	uint64_t msgs; /* messages counted in the figure */
	uint64_t bytes, ns;
	double bw_peak_gbps, bw_avg_gbps, msg_rate_mpps;
	struct lat_stats lat; /* latency tests */
	struct lat_hist hist; /* latency tests: of the same samples */
	/* Bandwidth tests: the relative spread of the measured part
	 * (stats_bw_spread()), < 0 when unknown (a server's view). */
	double bw_spread;
	/* Bandwidth in duration mode: the run from the first post to the last
	 * completion, and the warm-up and cool-down margin left out at each
	 * end (ns counts only what lies between); 0 otherwise. */
	uint64_t run_ns, margin_ns;
};

struct bench_result {
	enum bench_test test;
	char ibdev[64];
	unsigned int port;
	int gid_index;
	bool ethernet;	  /* link layer */
	unsigned int mtu; /* bytes, the path MTU used */
	unsigned int qps, tx_depth, cq_mod, rd_atomic, max_inline;
	bool bidir, cm;
	bool duration_mode;
	bool from_peer; /* server: the figures are the client's */
	/* Each side's port block as exchanged (bench/exchange.h): rate, cap,
	 * width, MTU, physical port, placement. */
	struct exchange_port self_port, peer_port;
	unsigned int n_sizes;
	struct bench_size_result sizes[BENCH_MAX_SIZES];
	struct err err;
	/* Placement: this side's, and the peer's when it ran in this process. */
	struct bench_placement placement, peer_placement;
	/* How the packets went and between what (the verdict's ceiling). */
	enum bench_wire wire; /* the headers each packet carried */
	bool grh;	      /* InfiniBand: a GRH was sent */
	unsigned int sl;
	unsigned int pkey_index;
	uint16_t pkey;
	char pf_bdf[16];      /* the function owning this side's physical port */
	char peer[64];	      /* the peer as named: its device (pair) or host */
	bool allow_same_port; /* the run's --allow-same-port */
	/* Server: the failure was this side's (NUMA placement, the device),
	 * before anything the client asked for: the server backs off. */
	bool local_fault;
};

/* Runs one benchmark session (a server serves one client). Returns 0, or a
 * negative errno with res->err set; -ECANCELED when cfg->cancel was set
 * (the peer is told and the QPs are torn down). */
int bench_run(const struct bench_config *cfg, bench_progress_fn progress, void *progress_arg,
	      struct bench_result *res);

/* A configuration with every default (bench/defaults.h): automatic GID,
 * P_Key index 0, no listening socket, the default port; the rest zero. */
struct bench_config bench_config_default(void);
/* The default message size and iteration count of a test (perftest's). */
uint64_t bench_default_size(enum bench_test t);
uint64_t bench_default_iters(enum bench_test t);
bool bench_is_latency(enum bench_test t);
