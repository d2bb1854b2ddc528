// SPDX-License-Identifier: MIT
/* `ibvf bench server|client|pair|loopback`: runs bench_run() between this
 * node and a server, between two devices of this node (two threads), or on
 * one device against itself; judges each result against its port's rate. */
#include <errno.h>
#include <getopt.h>
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

static const struct option bench_options[] = {
	{"test", required_argument, NULL, O_TEST},
	{"size", required_argument, NULL, O_SIZE},
	{"all-sizes", no_argument, NULL, O_ALL_SIZES},
	{"iters", required_argument, NULL, O_ITERS},
	{"duration", required_argument, NULL, O_DURATION},
	{"qps", required_argument, NULL, O_QPS},
	{"tx-depth", required_argument, NULL, O_TX_DEPTH},
	{"bidir", no_argument, NULL, O_BIDIR},
	{"gid-index", required_argument, NULL, O_GID},
	{"cm", no_argument, NULL, O_CM},
	{"unit", required_argument, NULL, O_UNIT},
	{"min-ratio", required_argument, NULL, O_MIN_RATIO},
	{"force", no_argument, NULL, O_FORCE},
	{"port", required_argument, NULL, O_PORT},
	{"all-vfs", no_argument, NULL, O_ALL_VFS},
	{"once", no_argument, NULL, O_ONCE},
	{"outstanding", required_argument, NULL, O_OUTSTANDING},
	{"timeout", required_argument, NULL, O_TIMEOUT},
	{"cpu", required_argument, NULL, O_CPU},
	{"no-pin", no_argument, NULL, O_NO_PIN},
	{"parallel", no_argument, NULL, O_PARALLEL},
	{"all-pfs", no_argument, NULL, O_ALL_PFS},
	{"sl", required_argument, NULL, O_SL},
	{"pkey-index", required_argument, NULL, O_PKEY_INDEX},
	{"allow-same-port", no_argument, NULL, O_ALLOW_SAME_PORT},
	{"cm-addr", required_argument, NULL, O_CM_ADDR},
	{"bind", required_argument, NULL, O_BIND},
	{"key", required_argument, NULL, O_KEY},
	{"profile", required_argument, NULL, BENCH_O_PROFILE},
	{"no-history", no_argument, NULL, BENCH_O_NO_HISTORY},
	{"max-lat", required_argument, NULL, BENCH_O_MAX_LAT},
	{"dev", required_argument, NULL, 'd'},
	{0},
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

/* Options anywhere in argv (argv[0] "bench"); *ret_pos the first positional. */
static int parse_opts(int argc, char **argv, struct bench_opts *o, int *ret_pos)
{
	int opt, idx = -1, r = 0;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":d:", bench_options, &idx)) != -1) {
		/* The option as typed, for messages: argv[optind - 1] may be its value. */
		char name[32];
		if (opt >= O_TEST && idx >= 0)
			snprintf(name, sizeof(name), "--%s", bench_options[idx].name);
		else
			snprintf(name, sizeof(name), "%s", argv[optind - 1]);
		idx = -1;
		if (opt == ':' || opt == '?') {
			cli_error(opt == ':' ? "option '%s' needs a value"
					     : "unknown option '%s' (see 'ibvf bench --help')",
				  name);
			return EXIT_USAGE;
		}
		if (!parse_number(&o->cfg, opt, name, optarg, &r) &&
		    !bench_validate_parse_opt(o, opt, optarg, &r))
			r = parse_other(o, opt, optarg);
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
	*ret_pos = optind;
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

static const struct {
	const char *name;
	bench_mode_fn *run;
} bench_modes[] = {
	{"server", mode_server},     {"client", mode_client},	       {"pair", mode_pair},
	{"loopback", mode_loopback}, {"validate", bench_cli_validate},
};

int cmd_bench(const struct cli *c, int argc, char **argv)
{
	struct bench_opts o = {.min_ratio = BENCH_DEFAULT_MIN_RATIO,
			       .json = c->json,
			       .cli = c,
			       .cfg = bench_config_default()};
	int first;
	bench_mode_fn *mode = NULL;
	o.cfg.cancel = &bench_interrupted;
	if (parse_opts(argc, argv, &o, &first))
		return EXIT_USAGE;
	if (first >= argc) {
		cmd_print_usage(stderr, cmd_find("bench"));
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(bench_modes) / sizeof(bench_modes[0]) && !mode; i++)
		if (!strcmp(argv[first], bench_modes[i].name))
			mode = bench_modes[i].run;
	if (!mode) {
		cli_error("unknown bench mode '%s' (see 'ibvf bench --help')", argv[first]);
		return EXIT_USAGE;
	}
	if (o.all_pfs && mode != mode_server) {
		cli_error("--all-pfs is for bench server (a server per PF)");
		return EXIT_USAGE;
	}
	if (bench_cm_check(&o, argv[first]) < 0 || bench_validate_check_opts(&o, argv[first]) < 0)
		return EXIT_USAGE;
	if (o.bind && mode != mode_server && mode != mode_client) {
		cli_error("--bind is for bench server (the address it listens on) and client (the "
			  "address it connects from)");
		return EXIT_USAGE;
	}
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
	int rc = mode(&o, n, argv + first + 1, argc - first - 1);
	node_free(n);
	exchange_key_clear(&o.key);
	return rc;
}
