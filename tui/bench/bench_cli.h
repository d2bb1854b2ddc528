/* SPDX-License-Identifier: MIT */
/* `ibvf bench`: the benchmark's command line and its reports. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench/bench.h"
#include "bench/exchange_auth.h"
#include "bench/report.h"
#include "bench/verdict.h"
#include "tui/base/cli.h"

/* `ibvf bench ...`: argv[0] is "bench". */
int cmd_bench(const struct cli *c, int argc, char **argv);

/* The command line's choices. */
struct bench_opts {
	struct bench_config cfg;
	double min_ratio;
	bool json, force, all_vfs, once, mbps;
	const char *dev;
	/* --all-vfs --parallel: one worker per PF (bench_sweep.h); server
	 * --all-pfs: a server per PF on PORT+i (bench_servers.c). */
	bool parallel, all_pfs;
	const char *cm_addrs[2]; /* --cm-addr, as given (bench_cm.c) */
	unsigned int n_cm_addrs;
	/* The validation profile (tui/bench/bench_validate.c). */
	bool validate, no_history;
	double max_lat_us;	/* latency judged against it when > 0 */
	const char *state_root; /* the node's root: the history is under it */
	const struct cli *cli;	/* NULL (state_root given) or where it comes from */
	/* The server's --bind address (NULL: all) and the shared secret. */
	const char *bind, *key_file;
	struct exchange_key key;
};

/* Set by SIGINT/SIGTERM: runs stop cleanly and the peer is told. */
extern atomic_bool bench_interrupted;

struct node;
struct node_ref;
/* The whole target of a resolved name (node_resolve()): names, rate, PF, index;
 * the function's first RDMA device when ref names none. */
void bench_target_from_ref(const struct node_ref *ref, struct bench_target *t);

/* bench_run.c: one run of cfg on this node's device b (a client) against
 * device a of this node (a server thread; a == b for loopback) or against a
 * server at host. progress is called from the calling thread. Return 0 or a
 * negative errno with the reason in e. */
int bench_pair_run(const struct bench_config *cfg, const char *a, const char *b,
		   bench_progress_fn progress, void *progress_arg, struct bench_result *ret,
		   struct err *e);
int bench_client_run(const struct bench_config *cfg, const char *host, const char *dev,
		     bench_progress_fn progress, void *progress_arg, struct bench_result *ret,
		     struct err *e);

/* Each returns the exit status (0 PASS, 1 FAIL or error). */
int bench_cli_run_one(const struct bench_opts *o, const struct bench_target *t, const char *host,
		      const char *peer_dev);
int bench_cli_all_vfs(const struct bench_opts *o, const struct node *n, const char *host,
		      const char *peer_dev);
int bench_cli_server(const struct bench_opts *o, const char *dev);
/* A result's JSON on stdout, pretty; its text report (and verdict line). Both free o. */
void bench_cli_print_json(struct json_object *o);
void bench_cli_print_text(struct json_object *o, bool mbps, bool verdict);
/* The end of a server's first line: how a second client fares. */
#define BENCH_SERVER_QUEUE "; one client at a time (others wait, each within its --timeout)"
/* bench_serve.c: "0.0.0.0:18515" for a listening socket. */
void bench_cli_listen_name(int lfd, char *buf, size_t size);
/* --key, else $IBVF_BENCH_KEY_FILE, into o->key: 0 or -1 (said). */
int bench_cli_load_key(struct bench_opts *o);

/* bench_numa.c: --cpu LIST (no_pin false) or --no-pin into o's config; 0
 * or -EINVAL, said. */
int bench_numa_option(struct bench_opts *o, bool no_pin, const char *arg);
/* The server's loop on a listening socket (of TCP port port): sessions one after another until
 * interrupted (or one, --once); each result printed under out_mu (may be
 * NULL), labelled when label is not NULL. The exit status of the last. */
int bench_cli_serve(const struct bench_opts *o, const char *dev, int lfd, uint16_t port,
		    pthread_mutex_t *out_mu, const char *label);
/* bench_servers.c: `bench server --all-pfs`, PF i of the node (BDF order)
 * served on PORT+i by a thread of its own. */
int bench_cli_server_all_pfs(const struct bench_opts *o, const struct node *n);
/* bench_cm.c: --cm-addr. Each says what is wrong (cli_error) and returns
 * -EINVAL. The option's value, this side's (cfg.cm_addr, the first given): */
int bench_cm_addr_option(struct bench_opts *o, const char *arg);
/* After parsing, for mode ("server", "client", "pair", "loopback"). */
int bench_cm_check(struct bench_opts *o, const char *mode);
/* A pair run: o with each address given to the device whose netdev holds it
 * (cfg.cm_peer_addr the peer's, cfg.cm_addr dev's). */
int bench_cm_pair(const struct bench_opts *o, const char *peer_ibdev, const char *ibdev,
		  struct bench_opts *ret);
/* A server's --cm-addr, checked once before serving (else every session
 * would fail the same way, one after another). */
int bench_cm_server_check(const struct bench_opts *o, const char *ibdev);
/* A device named as node_resolve() takes names, placed; a VF in a pod
 * refused unless force (said). 0, or -EBUSY (a pod) or another -errno. */
int bench_cli_resolve(const struct node *n, const char *name, bool force, struct bench_target *t);
/* bench_cli_resolve()'s failure as an exit status: a name that names nothing is bad
 * input (2); a VF in a pod is refused as a run that cannot go (1). */
int bench_cli_resolve_status(int r);
