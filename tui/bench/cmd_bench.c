// SPDX-License-Identifier: MIT
/* `ibvf bench server|client|pair|loopback`: runs bench_run() between this
 * node and a server, between two devices of this node (two threads), or on
 * one device against itself; judges each result against its port's rate. */
#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cli.h"
#include "bench_path.h"
#include "bench_validate.h"
#include "bench_sweep.h"
#include "core/model/node.h"
#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"
#include "core/sys/sys.h"

/* SIGINT/SIGTERM: stop the run cleanly (the peer is told). */
atomic_bool bench_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&bench_interrupted, true);
}

enum {
	O_TEST = 256,
	O_SIZE,
	O_ALL_SIZES,
	O_ITERS,
	O_DURATION,
	O_QPS,
	O_TX_DEPTH,
	O_BIDIR,
	O_GID,
	O_CM,
	O_UNIT,
	O_MIN_RATIO,
	O_FORCE,
	O_PORT,
	O_ALL_VFS,
	O_ONCE,
	O_OUTSTANDING,
	O_TIMEOUT,
	O_CPU,
	O_NO_PIN,
	O_PARALLEL,
	O_ALL_PFS,
	O_SL,
	O_PKEY_INDEX,
	O_ALLOW_SAME_PORT,
	O_CM_ADDR,
	O_BIND,
	O_KEY,
};

enum {
	BENCH_SERVER,
	BENCH_CLIENT,
	BENCH_PAIR,
	BENCH_LOOPBACK,
	BENCH_VALIDATE
};

const struct opt_sub bench_subs[] = {
	[BENCH_SERVER] = {"server",
			  "bench server [--port P] [--bind ADDR] [--key FILE] [-d DEV | --all-pfs] "
			  "[--once]\n       [TEST OPTIONS]",
			  false},
	[BENCH_CLIENT] = {"client",
			  "bench client HOST [-d DEV | --all-vfs [--parallel]] [TEST OPTIONS]",
			  false},
	[BENCH_PAIR] = {"pair",
			"bench pair DEV_A DEV_B [TEST OPTIONS]\n"
			"       ibvf bench pair --all-vfs [--parallel] PEER_DEV [TEST OPTIONS]",
			false},
	[BENCH_LOOPBACK] = {"loopback", "bench loopback DEV [TEST OPTIONS]", false},
	[BENCH_VALIDATE] = {"validate",
			    "bench validate DEV PEER | --all-vfs [--parallel] PEER [OPTIONS]",
			    false},
	{NULL, NULL, false},
};

#define SERVER	 OPT_SUB(BENCH_SERVER)
#define CLIENT	 OPT_SUB(BENCH_CLIENT)
#define PAIR	 OPT_SUB(BENCH_PAIR)
#define VALIDATE OPT_SUB(BENCH_VALIDATE)

const struct opt bench_options[] = {
	{OPT_ARG("dev", 'd', "DEV", 'd',
		 "the device (default: the node's "
		 "first RDMA device)"),
	 .subs = SERVER | CLIENT | VALIDATE},
	{OPT_BOOL("all-vfs", 0, O_ALL_VFS,
		  "every VF of the node in turn, one "
		  "result each"),
	 .subs = CLIENT | PAIR | VALIDATE},
	{OPT_ARG("test", 0, "T", O_TEST, "write_bw (default), read_bw, write_lat, read_lat")},
	{OPT_ARG("size", 0, "BYTES", O_SIZE, "message size (64 KiB for bandwidth, 2 for latency)")},
	{OPT_BOOL("all-sizes", 0, O_ALL_SIZES,
		  "every power of two from 2 B to 8 MiB, on the same QPs")},
	{OPT_ARG("iters", 0, "N", O_ITERS, "iterations (5000 write_bw, else 1000)")},
	{OPT_ARG("duration", 0, "S", O_DURATION,
		 "run S seconds instead; warm-up and cool-down excluded")},
	{OPT_ARG("qps", 0, "N", O_QPS, "QPs (bandwidth)")},
	{OPT_ARG("tx-depth", 0, "N", O_TX_DEPTH, "WRs in flight per QP (128)")},
	{OPT_BOOL("bidir", 0, O_BIDIR, "both directions at once (bandwidth)")},
	{OPT_ARG("outstanding", 0, "N", O_OUTSTANDING,
		 "cap on outstanding READs (default: device max, peer-clamped)")},
	{OPT_ARG("gid-index", 0, "N", O_GID,
		 "override the GID (default: RoCE v2 IPv4 on Ethernet, LID on "
		 "IB; given on IB, packets carry a GRH)")},
	{OPT_BOOL("cm", 0, O_CM, "connect the QPs with rdma_cm (needs an IP on the netdev)")},
	{OPT_ARG("cm-addr", 0, "ADDR", O_CM_ADDR,
		 "--cm: this side's IPv4, one of its netdev's (IPoIB on IB); "
		 "pair: up to two, each to the device that holds it")},
	{OPT_ARG("port", 0, "P", O_PORT, "control TCP port (18515)")},
	{OPT_ARG("timeout", 0, "MS", O_TIMEOUT,
		 "control replies and stalled completions (10000); a server "
		 "drops a client silent that long (during a run the active "
		 "side says ALIVE every 250 ms: keep it over 1000)")},
	{OPT_ARG("bind", 0, "ADDR", O_BIND,
		 "the address a server listens on "
		 "(default: all addresses), a client's control connection "
		 "leaves from (--cm-addr: rdma_cm's)"),
	 .subs = SERVER | CLIENT},
	{OPT_ARG("key", 0, "FILE", O_KEY,
		 "shared secret (or $IBVF_BENCH_KEY_FILE): a server serves only "
		 "clients with the same key (HMAC-SHA256 over the hello and the "
		 "accept, with a nonce each); FILE is regular, mode 0600, 16+ B")},
	{OPT_ARG("unit", 0, "U", O_UNIT, "Gb/s (default) or MB/s in the table")},
	{OPT_ARG("min-ratio", 0, "R", O_MIN_RATIO,
		 "PASS at R x the payload ceiling of the slower end: both ports' "
		 "rates, the sending VF's max_tx_rate, the headers sent (0.9)")},
	{OPT_BOOL("allow-same-port", 0, O_ALLOW_SAME_PORT,
		  "let a run whose ends share one physical port pass (it goes "
		  "through the HCA, not the link: no link validation otherwise)")},
	{OPT_ARG("sl", 0, "N", O_SL, "service level of the QPs' path, 0..15 (0)")},
	{OPT_ARG("pkey-index", 0, "N", O_PKEY_INDEX,
		 "P_Key table index of the QPs (0); not with --cm")},
	{OPT_BOOL("force", 0, O_FORCE, "run on a VF bound to a pod")},
	{OPT_BOOL("once", 0, O_ONCE, "serve one client and exit with its status"), .subs = SERVER},
	{OPT_ARG("cpu", 0, "LIST", O_CPU,
		 "pin each benchmark thread to LIST (e.g. 0-15,32-47) instead "
		 "of its HCA's local_cpulist; every CPU must be online")},
	{OPT_BOOL("no-pin", 0, O_NO_PIN,
		  "neither pin the threads nor bind the buffers to the HCA's node")},
	{OPT_PARA(
		"By default each thread runs on its HCA's local CPUs and its buffer lies on the\n"
		"HCA's NUMA node; the report says where each side ran and warns when a thread or\n"
		"buffer is on another node (docs/bench.md). A server uses its own "
		"--cpu/--no-pin.")},
	{OPT_BOOL("parallel", 0, O_PARALLEL,
		  "with --all-vfs, every PF at once (a "
		  "worker each), a PF's VFs one after another; a client's PF i "
		  "meets PORT+i (docs/bench.md)"),
	 .subs = CLIENT | PAIR | VALIDATE},
	{OPT_BOOL("all-pfs", 0, O_ALL_PFS, "PF i of this node (BDF order) served on PORT+i"),
	 .subs = SERVER},
	{OPT_PARA("validate runs write_bw, read_bw, write_lat and read_lat by --duration (5 s,\n"
		  "warm-up excluded) with QPs chosen from the port's rate, one PASS/FAIL per VF;\n"
		  "PEER is a device of this node, else a server's host (docs/bench-validate.md)"),
	 .subs = VALIDATE},
	{OPT_ARG("profile", 0, "validate", BENCH_O_PROFILE, "the same from client or pair mode"),
	 .subs = CLIENT | PAIR | VALIDATE},
	{OPT_ARG("max-lat", 0, "US", BENCH_O_MAX_LAT,
		 "judge latency too: typical "
		 "latency at most US"),
	 .subs = CLIENT | PAIR | VALIDATE},
	{OPT_BOOL("no-history", 0, BENCH_O_NO_HISTORY,
		  "compare, do not record "
		  "(/var/lib/ibvf/bench-history.jsonl)"),
	 .subs = CLIENT | PAIR | VALIDATE},
	{OPT_PARA("--json prints JSON on stdout: every size, every VF.\n"
		  "A server takes the client's parameters, except those given to it, which must\n"
		  "match (else both sides name the parameter that differs). Devices whose link\n"
		  "layers differ are refused, both named.")},
	{OPT_TABLE_END},
};

/* The numeric options: their bound and the parameter they pin on a server. */
static const struct {
	int code;
	uint64_t max;
	int pin; /* EXCHANGE_P_*, 0: none */
} num_options[] = {
	{O_SIZE, EXCHANGE_MAX_SIZE, EXCHANGE_P_SIZE},
	{O_ITERS, EXCHANGE_MAX_ITERS, EXCHANGE_P_ITERS},
	{O_DURATION, EXCHANGE_MAX_SECONDS, EXCHANGE_P_DURATION},
	{O_QPS, EXCHANGE_MAX_QPS, EXCHANGE_P_QPS},
	{O_TX_DEPTH, EXCHANGE_MAX_DEPTH, EXCHANGE_P_TX_DEPTH},
	{O_OUTSTANDING, 255, 0},
	{O_PORT, 65535, 0},
	{O_TIMEOUT, 3600000, 0},
	{O_GID, 255, 0},
};

static void set_number(struct bench_config *cfg, int code, uint64_t v)
{
	switch (code) {
	case O_SIZE:
		cfg->size = v;
		break;
	case O_ITERS:
		cfg->iters = v;
		break;
	case O_DURATION:
		cfg->duration_s = (unsigned int)v;
		break;
	case O_QPS:
		cfg->qps = (unsigned int)v;
		break;
	case O_TX_DEPTH:
		cfg->tx_depth = (unsigned int)v;
		break;
	case O_OUTSTANDING:
		cfg->rd_atomic = (unsigned int)v;
		break;
	case O_PORT:
		cfg->tcp_port = (uint16_t)v;
		break;
	case O_TIMEOUT:
		cfg->timeout_ms = (int)v;
		break;
	case O_GID:
		cfg->gid_index = (int)v;
		break;
	}
}

/* A numeric option: 1 when code is one (0 or -EINVAL in *r), else 0. */
static int parse_number(struct bench_config *cfg, int code, const char *name, const char *s, int *r)
{
	for (size_t i = 0; i < sizeof(num_options) / sizeof(num_options[0]); i++) {
		if (num_options[i].code != code)
			continue;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(s, &end, 0);
		*r = 0;
		if (errno || end == s || *end || s[0] == '-' || v > num_options[i].max) {
			char shown[64]; /* as typed, escaped and cut */
			text_escape_into(shown, sizeof(shown), s);
			cli_error("%s wants a number up to %llu, got '%s'", name,
				  (unsigned long long)num_options[i].max, shown);
			*r = -EINVAL;
			return 1;
		}
		set_number(cfg, code, v);
		cfg->pinned |= num_options[i].pin ? EXCHANGE_PIN(num_options[i].pin) : 0;
		return 1;
	}
	return 0;
}

/* The other options: 0 or -EINVAL, said. */
static int parse_other(struct bench_opts *o, int code, const char *arg)
{
	struct bench_config *cfg = &o->cfg;
	int r;
	char *end, shown[64]; /* the value as typed, escaped and cut for a message */
	text_escape_into(shown, sizeof(shown), arg);
	switch (code) {
	case O_TEST:
		if ((r = exchange_test_parse(arg)) < 0) {
			cli_error("unknown test '%s' (write_bw, read_bw, write_lat, read_lat)",
				  shown);
			return -EINVAL;
		}
		cfg->test = (enum bench_test)r;
		cfg->pinned |= EXCHANGE_PIN(EXCHANGE_P_TEST);
		break;
	case O_ALL_SIZES:
		cfg->all_sizes = true;
		cfg->pinned |= EXCHANGE_PIN(EXCHANGE_P_ALL_SIZES);
		break;
	case O_BIDIR:
		cfg->bidir = true;
		cfg->pinned |= EXCHANGE_PIN(EXCHANGE_P_BIDIR);
		break;
	case O_CM:
		cfg->cm = true;
		break;
	case O_UNIT:
		if (strcmp(arg, "Gb/s") && strcmp(arg, "MB/s")) {
			cli_error("--unit is Gb/s or MB/s, got '%s'", shown);
			return -EINVAL;
		}
		o->mbps = !strcmp(arg, "MB/s");
		break;
	case O_MIN_RATIO:
		o->min_ratio = strtod(arg, &end);
		if (end == arg || *end || o->min_ratio < 0 || o->min_ratio > 1) {
			cli_error("--min-ratio wants a number from 0 to 1, got '%s'", shown);
			return -EINVAL;
		}
		break;
	case O_FORCE:
		o->force = true;
		break;
	case O_ALL_VFS:
		o->all_vfs = true;
		break;
	case O_ONCE:
		o->once = true;
		break;
	case 'd':
		o->dev = arg;
		break;
	case O_CPU:
	case O_NO_PIN:
		return bench_numa_option(o, code == O_NO_PIN, arg);
	case O_PARALLEL:
		o->parallel = true;
		break;
	case O_ALL_PFS:
		o->all_pfs = true;
		break;
	case O_SL:
		return bench_path_option(cfg, BENCH_PATH_SL, arg);
	case O_PKEY_INDEX:
		return bench_path_option(cfg, BENCH_PATH_PKEY_INDEX, arg);
	case O_ALLOW_SAME_PORT:
		return bench_path_option(cfg, BENCH_PATH_ALLOW_SAME_PORT, arg);
	case O_CM_ADDR:
		return bench_cm_addr_option(o, arg);
	case O_BIND:
		o->bind = arg;
		break;
	case O_KEY:
		o->key_file = arg;
		break;
	}
	return 0;
}

/* The options, anywhere in argv (argv[0] "bench"), into o; p the command
 * line parsed. */
static int parse_opts(int argc, char **argv, struct bench_opts *o, struct opts *p)
{
	int opt, r = 0;
	const char *v;
	if (opts_parse(cmd_find("bench"), argc, argv, p) < 0)
		return EXIT_USAGE;
	while ((opt = opts_next(p, &v))) {
		if (!parse_number(&o->cfg, opt, p->name, v, &r) &&
		    !bench_validate_parse_opt(o, opt, v, &r))
			r = parse_other(o, opt, v);
		if (r < 0)
			return EXIT_USAGE;
	}
	if (o->cfg.iters && o->cfg.duration_s) {
		cli_error("--iters and --duration cannot be used together");
		return EXIT_USAGE;
	}
	if (bench_path_check(&o->cfg) < 0)
		return EXIT_USAGE;
	if (bench_is_latency(o->cfg.test) && (o->cfg.bidir || o->cfg.qps > 1)) {
		cli_error("latency tests run on one QP, one way (no --bidir, --qps)");
		return EXIT_USAGE;
	}
	if (bench_cli_sweep_check_opts(o) < 0)
		return EXIT_USAGE;
	return 0;
}

/* --- devices: tui/bench/bench_target.c ------------------------------------------- */

static int discover(const struct cli *c, struct node **ret)
{
	struct sys *s;
	if (cli_open(c, &s) < 0)
		return -1;
	struct err e = {{0}};
	int r = node_discover(s, ret, &e);
	sys_close(s);
	if (r < 0)
		cli_error("%s", e.msg);
	return r;
}

static const char *first_ibdev(const struct node *n)
{
	for (size_t i = 0; i < n->n_pfs; i++) {
		if (n->pfs[i].fn.n_rdmas)
			return n->pfs[i].fn.rdmas[0].name;
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++)
			if (n->pfs[i].vfs[j].fn.n_rdmas)
				return n->pfs[i].vfs[j].fn.rdmas[0].name;
	}
	return n->n_orphans ? n->orphans[0].name : NULL;
}

/* One mode's run on this node: pos are its arguments; the exit status. */
typedef int bench_mode_fn(const struct bench_opts *o, const struct node *n, char **pos, int npos);

static int mode_server(const struct bench_opts *o, const struct node *n, char **pos, int npos)
{
	struct bench_target t;
	if (npos) {
		cli_error("bench server takes no device argument; use -d DEV");
		return EXIT_USAGE;
	}
	if (o->all_pfs)
		return bench_cli_server_all_pfs(o, n);
	if (!o->dev && !first_ibdev(n)) {
		cli_error("no RDMA device on this node");
		return 1;
	}
	int r = bench_cli_resolve(n, o->dev ? o->dev : first_ibdev(n), o->force, &t);
	if (r < 0)
		return bench_cli_resolve_status(r);
	return bench_cm_server_check(o, t.ibdev) < 0 ? 1 : bench_cli_server(o, t.ibdev);
}

static int mode_client(const struct bench_opts *o, const struct node *n, char **pos, int npos)
{
	struct bench_target t;
	const char *dev = o->dev ? o->dev : first_ibdev(n);
	if (npos != 1) {
		cli_error("bench client needs the server's address: bench client HOST");
		return EXIT_USAGE;
	}
	if (o->all_vfs)
		return o->validate ? bench_validate_with(o, n, NULL, pos[0], NULL)
				   : bench_cli_all_vfs(o, n, pos[0], NULL);
	if (!dev) {
		cli_error("no RDMA device on this node");
		return 1;
	}
	int r = bench_cli_resolve(n, dev, o->force, &t);
	return r < 0	     ? bench_cli_resolve_status(r)
	       : o->validate ? bench_validate_with(o, n, &t, pos[0], NULL)
			     : bench_cli_run_one(o, &t, pos[0], NULL);
}

static int mode_pair(const struct bench_opts *o, const struct node *n, char **pos, int npos)
{
	struct bench_target t, peer;
	int r;
	if (o->all_vfs && npos == 1) {
		r = bench_cli_resolve(n, pos[0], true, &peer);
		return r < 0	     ? bench_cli_resolve_status(r)
		       : o->validate ? bench_validate_with(o, n, NULL, NULL, &peer)
				     : bench_cli_all_vfs(o, n, NULL, peer.ibdev);
	}
	if (npos != 2 || o->all_vfs) {
		cli_error("bench pair needs two devices (or --all-vfs and one peer)");
		return EXIT_USAGE;
	}
	if ((r = bench_cli_resolve(n, pos[0], o->force, &peer)) < 0 ||
	    (r = bench_cli_resolve(n, pos[1], o->force, &t)) < 0)
		return bench_cli_resolve_status(r);
	struct bench_opts po;
	if (bench_cm_pair(o, peer.ibdev, t.ibdev, &po) < 0)
		return EXIT_USAGE;
	return po.validate ? bench_validate_with(&po, n, &t, NULL, &peer)
			   : bench_cli_run_one(&po, &t, NULL, peer.ibdev);
}

static int mode_loopback(const struct bench_opts *o, const struct node *n, char **pos, int npos)
{
	struct bench_target t;
	if (npos != 1) {
		cli_error("bench loopback needs one device");
		return EXIT_USAGE;
	}
	int r = bench_cli_resolve(n, pos[0], o->force, &t);
	return r < 0 ? bench_cli_resolve_status(r) : bench_cli_run_one(o, &t, NULL, t.ibdev);
}

/* In bench_subs' order. */
static bench_mode_fn *const bench_modes[] = {
	[BENCH_SERVER] = mode_server,
	[BENCH_CLIENT] = mode_client,
	[BENCH_PAIR] = mode_pair,
	[BENCH_LOOPBACK] = mode_loopback,
	[BENCH_VALIDATE] = bench_cli_validate,
};

int cmd_bench(const struct cli *c, int argc, char **argv)
{
	struct bench_opts o = {.min_ratio = BENCH_DEFAULT_MIN_RATIO,
			       .json = c->json,
			       .cli = c,
			       .cfg = bench_config_default()};
	struct opts p;
	bench_mode_fn *mode = NULL;
	o.cfg.cancel = &bench_interrupted;
	if (parse_opts(argc, argv, &o, &p))
		return EXIT_USAGE;
	if (!p.n_pos) {
		cmd_print_usage(stderr, cmd_find("bench"));
		return EXIT_USAGE;
	}
	if (p.sub >= 0)
		mode = bench_modes[p.sub];
	if (!mode) {
		cli_error("unknown bench mode '%s' (see 'ibvf bench --help')", p.pos[0]);
		return EXIT_USAGE;
	}
	if (bench_cm_check(&o, p.pos[0]) < 0 || bench_validate_check_opts(&o, p.pos[0]) < 0)
		return EXIT_USAGE;
	if (mode == mode_client)
		o.cfg.src_addr = o.bind;
	if (bench_cli_load_key(&o) < 0)
		return EXIT_USAGE;
	o.cfg.key = o.key.set ? &o.key : NULL;
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	struct node *n = NULL;
	if (discover(c, &n) < 0)
		return 1;
	int rc = mode(&o, n, p.pos + 1, p.n_pos - 1);
	node_free(n);
	exchange_key_clear(&o.key);
	return rc;
}
