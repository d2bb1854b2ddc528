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
#include "core/node.h"
#include "core/sys.h"

/* SIGINT/SIGTERM: stop the run cleanly (the peer is told). */
atomic_bool bench_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&bench_interrupted, true);
}

static const char usage[] =
	"usage: ibvf bench server [--port P] [-d DEV] [--once] [TEST OPTIONS]\n"
	"       ibvf bench client HOST [-d DEV | --all-vfs] [TEST OPTIONS]\n"
	"       ibvf bench pair DEV_A DEV_B [TEST OPTIONS]\n"
	"       ibvf bench pair --all-vfs PEER_DEV [TEST OPTIONS]\n"
	"       ibvf bench loopback DEV [TEST OPTIONS]\n"
	"\n"
	"Devices are named by VF PCI address, netdev or RDMA device.\n"
	"  --test T          write_bw (default), read_bw, write_lat, read_lat\n"
	"  --size BYTES      message size (64 KiB for bandwidth, 2 for latency)\n"
	"  --all-sizes       every power of two from 2 B to 8 MiB, on the same QPs\n"
	"  --iters N         iterations (5000 write_bw, else 1000)\n"
	"  --duration S      run S seconds instead; warm-up and cool-down excluded\n"
	"  --qps N           QPs (bandwidth), --tx-depth N  WRs in flight per QP (128)\n"
	"  --bidir           both directions at once (bandwidth)\n"
	"  --outstanding N   cap on outstanding READs (default: device max, peer-clamped)\n"
	"  --gid-index N     override the GID (default: RoCE v2 IPv4 on Ethernet, LID on IB)\n"
	"  --cm              connect the QPs with rdma_cm (needs an IP on the netdev)\n"
	"  --port P          control TCP port (18515)\n"
	"  --timeout MS      control replies and stalled completions (10000)\n"
	"  --unit U          Gb/s (default) or MB/s in the table\n"
	"  --min-ratio R     PASS at R x the port's payload ceiling (0.9)\n"
	"  --json            JSON on stdout: every size, every VF\n"
	"  --force           run on a VF bound to a pod\n"
	"  --once            server: serve one client and exit with its status\n"
	"A server takes the client's parameters, except those given to it, which must\n"
	"match (else both sides name the parameter that differs).\n";

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
	O_JSON,
	O_FORCE,
	O_PORT,
	O_ALL_VFS,
	O_ONCE,
	O_OUTSTANDING,
	O_TIMEOUT,
	O_SIM,
	O_ROOT,
};

static int parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *ret)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v > max) {
		cli_error("%s wants a number up to %llu, got '%s'", opt, (unsigned long long)max,
			  s);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct bench_opts *o, struct cli *c)
{
	static const struct option lo[] = {
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
		{"json", no_argument, NULL, O_JSON},
		{"force", no_argument, NULL, O_FORCE},
		{"port", required_argument, NULL, O_PORT},
		{"all-vfs", no_argument, NULL, O_ALL_VFS},
		{"once", no_argument, NULL, O_ONCE},
		{"outstanding", required_argument, NULL, O_OUTSTANDING},
		{"timeout", required_argument, NULL, O_TIMEOUT},
		{"dev", required_argument, NULL, 'd'},
		{"sim", optional_argument, NULL, O_SIM},
		{"root", required_argument, NULL, O_ROOT},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	struct bench_config *cfg = &o->cfg;
	uint64_t v;
	int opt, r = 0;
	optind = 1;
	opterr = 0;
	int idx = -1;
	while ((opt = getopt_long(argc, argv, ":d:h", lo, &idx)) != -1) {
		/* The option as typed, for messages: argv[optind - 1] may be its value. */
		char name[32];
		if (opt >= O_TEST && idx >= 0)
			snprintf(name, sizeof(name), "--%s", lo[idx].name);
		else
			snprintf(name, sizeof(name), "%s", argv[optind - 1]);
		idx = -1;
		switch (opt) {
		case O_TEST:
			if ((r = exchange_test_parse(optarg)) < 0) {
				cli_error("unknown test '%s' (write_bw, read_bw, write_lat, "
					  "read_lat)",
					  optarg);
				return EXIT_USAGE;
			}
			cfg->test = (enum bench_test)r;
			cfg->pinned |= EXCHANGE_PIN(EXCHANGE_P_TEST);
			break;
#define NUM(code, field, max, pin)                                                                 \
	case code:                                                                                 \
		if (parse_u64(name, optarg, max, &v) < 0)                                          \
			return EXIT_USAGE;                                                         \
		cfg->field = (__typeof__(cfg->field))v;                                            \
		cfg->pinned |= (pin) ? EXCHANGE_PIN(pin) : 0;                                      \
		break;
			NUM(O_SIZE, size, EXCHANGE_MAX_SIZE, EXCHANGE_P_SIZE)
			NUM(O_ITERS, iters, EXCHANGE_MAX_ITERS, EXCHANGE_P_ITERS)
			NUM(O_DURATION, duration_s, EXCHANGE_MAX_SECONDS, EXCHANGE_P_DURATION)
			NUM(O_QPS, qps, EXCHANGE_MAX_QPS, EXCHANGE_P_QPS)
			NUM(O_TX_DEPTH, tx_depth, EXCHANGE_MAX_DEPTH, EXCHANGE_P_TX_DEPTH)
			NUM(O_OUTSTANDING, rd_atomic, 255, 0)
			NUM(O_PORT, tcp_port, 65535, 0)
			NUM(O_TIMEOUT, timeout_ms, 3600000, 0)
			NUM(O_GID, gid_index, 255, 0)
#undef NUM
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
			if (strcmp(optarg, "Gb/s") && strcmp(optarg, "MB/s")) {
				cli_error("--unit is Gb/s or MB/s, got '%s'", optarg);
				return EXIT_USAGE;
			}
			o->mbps = !strcmp(optarg, "MB/s");
			break;
		case O_MIN_RATIO: {
			char *end;
			o->min_ratio = strtod(optarg, &end);
			if (end == optarg || *end || o->min_ratio < 0 || o->min_ratio > 1) {
				cli_error("--min-ratio wants a number from 0 to 1, got '%s'",
					  optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case O_JSON:
			o->json = true;
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
			o->dev = optarg;
			break;
		case O_SIM:
			c->sim = true;
			c->sim_dir = optarg;
			break;
		case O_ROOT:
			c->root = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case ':':
			cli_error("option '%s' needs a value", name);
			return EXIT_USAGE;
		default:
			cli_error("unknown option '%s' (see 'ibvf bench --help')", name);
			return EXIT_USAGE;
		}
	}
	if (cfg->iters && cfg->duration_s) {
		cli_error("--iters and --duration cannot be used together");
		return EXIT_USAGE;
	}
	if (bench_is_latency(cfg->test) && (cfg->bidir || cfg->qps > 1)) {
		cli_error("latency tests run on one QP, one way (no --bidir, --qps)");
		return EXIT_USAGE;
	}
	return 0;
}

/* --- devices ----------------------------------------------------------------- */

/* The pod holding a VF ("ns/name"), or NULL. A stale binding (a kubelet
 * checkpoint entry no pod log confirms) does not count: that pod is gone. */
const char *bench_vf_pod_holder(const struct vf *vf, char *buf, size_t size)
{
	const struct pod_binding *b = vf->pod;
	if (!b || b->stale)
		return NULL;
	snprintf(buf, size, "%s/%s", b->ns ? b->ns : "?", b->name ? b->name : "?");
	return buf;
}

void bench_target_from_fn(const struct fn *f, const struct rdma *rd, struct bench_target *t)
{
	snprintf(t->bdf, sizeof(t->bdf), "%s", f->bdf);
	snprintf(t->ibdev, sizeof(t->ibdev), "%s", rd ? rd->name : "");
	if (f->n_netdevs)
		snprintf(t->netdev, sizeof(t->netdev), "%s", f->netdevs[0].name);
	else if (rd && rd->parent)
		snprintf(t->netdev, sizeof(t->netdev), "%s", rd->parent);
	if (rd && rd->n_ports) {
		const struct port *p = &rd->ports[0];
		if (p->rate_mbps.known)
			t->rate_gbps = (double)p->rate_mbps.v / 1000.0;
		if (p->rate)
			snprintf(t->rate, sizeof(t->rate), "%s", p->rate);
	}
}

static bool fn_matches(const struct fn *f, const char *name, const struct rdma **ret_rd)
{
	*ret_rd = f->n_rdmas ? &f->rdmas[0] : NULL;
	if (!strcmp(f->bdf, name))
		return true;
	for (size_t i = 0; i < f->n_netdevs; i++)
		if (!strcmp(f->netdevs[i].name, name))
			return true;
	for (size_t i = 0; i < f->n_rdmas; i++) {
		if (!strcmp(f->rdmas[i].name, name) ||
		    (f->rdmas[i].parent && !strcmp(f->rdmas[i].parent, name))) {
			*ret_rd = &f->rdmas[i];
			return true;
		}
	}
	return false;
}

/* Places a device named by BDF, netdev or ibdev; refuses a VF in a pod. */
static int resolve(const struct node *n, const char *name, bool force, struct bench_target *t)
{
	memset(t, 0, sizeof(*t));
	t->vf_index = -1;
	t->rate_gbps = -1;
	const struct rdma *rd;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		for (size_t j = 0; j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			if (!fn_matches(&vf->fn, name, &rd))
				continue;
			char pbuf[160];
			const char *pod = bench_vf_pod_holder(vf, pbuf, sizeof(pbuf));
			if (pod && !force) {
				cli_error(
					"VF %s is bound to pod '%s': benchmarking it would disturb "
					"the pod (--force to run anyway)",
					vf->fn.bdf, pod);
				return -EBUSY;
			}
			bench_target_from_fn(&vf->fn, rd, t);
			snprintf(t->pf_bdf, sizeof(t->pf_bdf), "%s", pf->fn.bdf);
			t->vf_index = (int)vf->index;
			goto found;
		}
		if (fn_matches(&pf->fn, name, &rd)) {
			bench_target_from_fn(&pf->fn, rd, t);
			goto found;
		}
	}
	for (size_t i = 0; i < n->n_orphans; i++)
		if (!strcmp(n->orphans[i].name, name)) {
			struct fn none = {0};
			bench_target_from_fn(&none, &n->orphans[i], t);
			goto found;
		}
	cli_error("no device '%s' on this node (name a VF by PCI address, netdev or RDMA "
		  "device)",
		  name);
	return -ENODEV;
found:
	if (!t->ibdev[0]) {
		cli_error("'%s' has no RDMA device", name);
		return -ENODEV;
	}
	return 0;
}

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

int cmd_bench(const struct cli *c0, int argc, char **argv)
{
	struct cli c = c0 ? *c0 : (struct cli){0};
	struct bench_opts o = {.min_ratio = 0.9,
			       .cfg = {.gid_index = -1,
				       .listen_fd = -1,
				       .tcp_port = BENCH_DEFAULT_PORT,
				       .cancel = &bench_interrupted}};
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	const char *mode = argv[1];
	int r = parse_opts(argc - 1, argv + 1, &o, &c);
	if (r)
		return r;
	char **pos = argv + 1 + optind;
	int npos = argc - 1 - optind;
	if (c.json)
		o.json = true;
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	struct node *n = NULL;
	if (discover(&c, &n) < 0)
		return 1;
	int rc = EXIT_USAGE;
	struct bench_target t, peer;
	if (!strcmp(mode, "server")) {
		if (npos) {
			cli_error("bench server takes no device argument; use -d DEV");
		} else if (!o.dev && !first_ibdev(n)) {
			cli_error("no RDMA device on this node");
			rc = 1;
		} else if (resolve(n, o.dev ? o.dev : first_ibdev(n), o.force, &t) < 0) {
			rc = 1;
		} else {
			rc = bench_cli_server(&o, t.ibdev);
		}
	} else if (!strcmp(mode, "client")) {
		const char *dev = o.dev ? o.dev : first_ibdev(n);
		if (npos != 1) {
			cli_error("bench client needs the server's address: bench client HOST");
		} else if (o.all_vfs) {
			rc = bench_cli_all_vfs(&o, n, pos[0], NULL);
		} else if (!dev) {
			cli_error("no RDMA device on this node");
			rc = 1;
		} else {
			rc = resolve(n, dev, o.force, &t) < 0
				     ? 1
				     : bench_cli_run_one(&o, &t, pos[0], NULL);
		}
	} else if (!strcmp(mode, "pair")) {
		if (o.all_vfs && npos == 1) {
			rc = resolve(n, pos[0], true, &peer) < 0
				     ? 1
				     : bench_cli_all_vfs(&o, n, NULL, peer.ibdev);
		} else if (npos != 2 || o.all_vfs) {
			cli_error("bench pair needs two devices (or --all-vfs and one peer)");
		} else if (resolve(n, pos[0], o.force, &peer) < 0 ||
			   resolve(n, pos[1], o.force, &t) < 0) {
			rc = 1;
		} else {
			rc = bench_cli_run_one(&o, &t, NULL, peer.ibdev);
		}
	} else if (!strcmp(mode, "loopback")) {
		if (npos != 1)
			cli_error("bench loopback needs one device");
		else if (resolve(n, pos[0], o.force, &t) < 0)
			rc = 1;
		else
			rc = bench_cli_run_one(&o, &t, NULL, t.ibdev);
	} else {
		cli_error("unknown bench mode '%s' (server, client, pair, loopback)", mode);
	}
	node_free(n);
	return rc;
}
