// SPDX-License-Identifier: MIT
/* `ibvf bench server|client|pair|loopback`: runs bench_run() between this
 * node and a server, between two devices of this node (two threads), or on
 * one device against itself; judges each result against its port's rate. */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cli.h"
#include "core/node.h"
#include "core/sys.h"

struct opts {
	struct bench_config cfg;
	const char *unit;
	double min_ratio;
	bool json, force, all_vfs, once, mbps;
	const char *dev;
};

/* SIGINT/SIGTERM: stop the run cleanly (the peer is told). */
static atomic_bool interrupted;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&interrupted, true);
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

static int parse_opts(int argc, char **argv, struct opts *o, struct cli *c)
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
	while ((opt = getopt_long(argc, argv, ":d:h", lo, NULL)) != -1) {
		const char *name = argv[optind - 1];
		switch (opt) {
		case O_TEST:
			if ((r = exchange_test_parse(optarg)) < 0) {
				cli_error("unknown test '%s' (write_bw, read_bw, write_lat, read_lat)",
					  optarg);
				return EXIT_USAGE;
			}
			cfg->test = (enum bench_test)r;
			cfg->pinned |= EXCHANGE_PIN(EXCHANGE_P_TEST);
			break;
#define NUM(code, field, max, pin)                                   \
	case code:                                                   \
		if (parse_u64(name, optarg, max, &v) < 0)            \
			return EXIT_USAGE;                           \
		cfg->field = (__typeof__(cfg->field))v;              \
		cfg->pinned |= (pin) ? EXCHANGE_PIN(pin) : 0;        \
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
				cli_error("--min-ratio wants a number from 0 to 1, got '%s'", optarg);
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
static const char *bench_vf_pod_holder(const struct vf *vf, char *buf, size_t size)
{
	const struct pod_binding *b = vf->pod;
	if (!b || b->stale)
		return NULL;
	snprintf(buf, size, "%s/%s", b->ns ? b->ns : "?", b->name ? b->name : "?");
	return buf;
}

static void target_from_fn(const struct fn *f, const struct rdma *rd, struct bench_target *t)
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
				cli_error("VF %s is bound to pod '%s': benchmarking it would disturb "
					  "the pod (--force to run anyway)",
					  vf->fn.bdf, pod);
				return -EBUSY;
			}
			target_from_fn(&vf->fn, rd, t);
			snprintf(t->pf_bdf, sizeof(t->pf_bdf), "%s", pf->fn.bdf);
			t->vf_index = (int)vf->index;
			goto found;
		}
		if (fn_matches(&pf->fn, name, &rd)) {
			target_from_fn(&pf->fn, rd, t);
			goto found;
		}
	}
	for (size_t i = 0; i < n->n_orphans; i++)
		if (!strcmp(n->orphans[i].name, name)) {
			struct fn none = {0};
			target_from_fn(&none, &n->orphans[i], t);
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

/* --- progress -------------------------------------------------------------- */

struct bar {
	bool on; /* stderr is a terminal */
	unsigned int done, total;
	char label[96];
};

static void bar_draw(const struct bar *b, double frac, double gbps)
{
	if (!b->on)
		return;
	double all = b->total ? ((double)b->done + frac) / b->total : frac;
	int w = 30, fill = (int)(all * w);
	fprintf(stderr, "\r[%.*s%*s] %3.0f%% %-28s %8.2f Gb/s", fill,
		"##############################", w - fill, "", 100 * all, b->label, gbps);
	fflush(stderr);
}

static void bar_clear(const struct bar *b)
{
	if (b->on)
		fprintf(stderr, "\r%*s\r", 90, "");
}

static void on_progress(const struct bench_progress *p, void *arg)
{
	double frac = p->n_sizes ? ((double)p->size_index + p->fraction) / p->n_sizes : p->fraction;
	bar_draw(arg, frac, p->gbps);
}

/* --- running ------------------------------------------------------------------ */

struct side {
	struct bench_config cfg;
	struct bench_result res;
	struct bar *bar;
	int rc;
	atomic_bool *peer_cancel; /* the other thread's, set when this side fails */
};

static void *side_main(void *arg)
{
	struct side *s = arg;
	s->rc = bench_run(&s->cfg, s->bar ? on_progress : NULL, s->bar, &s->res);
	if (s->rc < 0 && s->peer_cancel)
		atomic_store(s->peer_cancel, true);
	return NULL;
}

/* Two devices of this node, a server thread on a and this thread as the
 * client on b, over 127.0.0.1 on an ephemeral port. */
static int run_pair(const struct opts *o, const char *a, const char *b, struct bar *bar,
		    struct bench_result *ret, struct err *e)
{
	int lfd;
	uint16_t port;
	int r = exchange_listen("127.0.0.1", 0, &lfd, &port, e);
	if (r < 0)
		return r;
	atomic_bool server_cancel = false;
	struct side *srv = calloc(1, sizeof(*srv)), *cli = calloc(1, sizeof(*cli));
	if (!srv || !cli) {
		free(srv);
		free(cli);
		close(lfd);
		return err_setx(e, ENOMEM, "out of memory");
	}
	srv->cfg = o->cfg;
	srv->cfg.server = true;
	srv->cfg.ibdev = a;
	srv->cfg.listen_fd = lfd;
	srv->cfg.tcp_port = port;
	srv->cfg.pinned = 0;
	srv->cfg.cancel = &server_cancel;
	cli->cfg = o->cfg;
	cli->cfg.ibdev = b;
	cli->cfg.host = "127.0.0.1";
	cli->cfg.tcp_port = port;
	cli->bar = bar;
	cli->peer_cancel = &server_cancel;
	pthread_t th;
	if ((r = pthread_create(&th, NULL, side_main, srv))) {
		close(lfd);
		free(srv);
		free(cli);
		return err_set(e, r, "cannot start the server thread");
	}
	side_main(cli);
	pthread_join(th, NULL);
	close(lfd);
	*ret = cli->res;
	r = cli->rc;
	if (r < 0)
		snprintf(e->msg, sizeof(e->msg), "%s", cli->res.err.msg);
	if (r < 0 && srv->rc < 0 && srv->rc != -ECANCELED)
		snprintf(e->msg + strlen(e->msg), sizeof(e->msg) - strlen(e->msg),
			 " (server side on '%.60s': %.200s)", a, srv->res.err.msg);
	else if (r == 0 && srv->rc < 0)
		r = err_setx(e, -srv->rc, "server side on '%.60s': %.400s", a, srv->res.err.msg);
	free(srv);
	free(cli);
	return r;
}

static int run_client(const struct opts *o, const char *host, const char *dev, struct bar *bar,
		      struct bench_result *ret, struct err *e)
{
	struct bench_config cfg = o->cfg;
	cfg.host = host;
	cfg.ibdev = dev;
	int r = bench_run(&cfg, bar ? on_progress : NULL, bar, ret);
	if (r < 0)
		snprintf(e->msg, sizeof(e->msg), "%s", ret->err.msg);
	return r;
}

static void print_json(struct json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* One device against its peer (a server, or a device of this node). */
static int run_one(const struct opts *o, const struct bench_target *t, const char *host,
		   const char *peer_dev)
{
	struct bar bar = {.on = isatty(2) && !o->json, .total = 1};
	snprintf(bar.label, sizeof(bar.label), "%s", t->ibdev);
	struct bench_result *res = calloc(1, sizeof(*res));
	struct err e = {{0}};
	if (!res)
		return 1;
	int r = host ? run_client(o, host, t->ibdev, &bar, res, &e)
		     : run_pair(o, peer_dev, t->ibdev, &bar, res, &e);
	bar_clear(&bar);
	if (r < 0) {
		cli_error("bench on '%s': %s", t->ibdev, e.msg);
		if (o->json) {
			struct json_object *j = json_object_new_object();
			json_object_object_add(j, "device", json_object_new_string(t->ibdev));
			json_object_object_add(j, "error", json_object_new_string(e.msg));
			print_json(j);
		}
		free(res);
		return 1;
	}
	struct bench_verdict v;
	bench_judge(res, t, o->min_ratio, &v);
	if (o->json) {
		print_json(bench_report_json(res, t, &v));
	} else {
		bench_report_text(stdout, res, t, o->mbps);
		bench_report_verdict(stdout, t, &v);
	}
	free(res);
	return v.pass ? 0 : 1;
}

/* Every VF of the node against the peer: one line per VF, a summary, and
 * with --json one document holding every VF. */
static int run_all_vfs(const struct opts *o, const struct node *n, const char *host,
		       const char *peer_dev)
{
	unsigned int total = 0, pass = 0, fail = 0, skip = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		total += (unsigned int)n->pfs[i].n_vfs;
	struct bar bar = {.on = isatty(2), .total = total};
	struct json_object *arr = json_object_new_array();
	struct bench_result *res = calloc(1, sizeof(*res));
	if (!res)
		return 1;
	for (size_t i = 0; i < n->n_pfs && !atomic_load(&interrupted); i++) {
		for (size_t j = 0; j < n->pfs[i].n_vfs && !atomic_load(&interrupted); j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			struct json_object *jo = NULL;
			const char *status, *why = "";
			struct bench_target t;
			struct err e = {{0}};
			struct bench_verdict v = {0};
			const struct rdma *rd = vf->fn.n_rdmas ? &vf->fn.rdmas[0] : NULL;
			memset(&t, 0, sizeof(t));
			t.rate_gbps = -1;
			target_from_fn(&vf->fn, rd, &t);
			snprintf(t.pf_bdf, sizeof(t.pf_bdf), "%s", n->pfs[i].fn.bdf);
			t.vf_index = (int)vf->index;
			snprintf(bar.label, sizeof(bar.label), "%.15s %.63s", vf->fn.bdf, t.ibdev);
			char pbuf[160];
			const char *pod = bench_vf_pod_holder(vf, pbuf, sizeof(pbuf));
			if (!rd) {
				status = "SKIP", why = "no RDMA device";
			} else if (pod && !o->force) {
				status = "SKIP", why = "bound to a pod (--force to include it)";
			} else if (peer_dev && !strcmp(peer_dev, t.ibdev)) {
				status = "SKIP", why = "the peer itself";
			} else {
				int r = host ? run_client(o, host, t.ibdev, &bar, res, &e)
					     : run_pair(o, peer_dev, t.ibdev, &bar, res, &e);
				if (r < 0) {
					status = "FAIL", why = e.msg;
				} else {
					bench_judge(res, &t, o->min_ratio, &v);
					status = v.pass ? "PASS" : "FAIL";
					why = v.reason;
					jo = bench_report_json(res, &t, &v);
				}
			}
			bar.done++;
			bar_clear(&bar);
			if (!strcmp(status, "PASS"))
				pass++;
			else if (!strcmp(status, "FAIL"))
				fail++;
			else
				skip++;
			if (!o->json)
				printf("%s VF %-14s %-8s %9.2f Gb/s  %s\n", status, vf->fn.bdf,
				       t.ibdev[0] ? t.ibdev : "-", v.figure_gbps, why);
			fflush(stdout);
			if (!jo) {
				jo = json_object_new_object();
				json_object_object_add(jo, "device",
						       t.ibdev[0] ? json_object_new_string(t.ibdev)
								  : NULL);
			}
			json_object_object_add(jo, "vf_bdf", json_object_new_string(vf->fn.bdf));
			json_object_object_add(jo, "status", json_object_new_string(status));
			if (strcmp(status, "PASS"))
				json_object_object_add(jo, "why", json_object_new_string(why));
			json_object_array_add(arr, jo);
		}
	}
	free(res);
	if (o->json) {
		struct json_object *doc = json_object_new_object();
		json_object_object_add(doc, "test",
				       json_object_new_string(exchange_test_name(o->cfg.test)));
		json_object_object_add(doc, "peer",
				       json_object_new_string(host ? host : peer_dev));
		json_object_object_add(doc, "vfs", arr);
		struct json_object *sum = json_object_new_object();
		json_object_object_add(sum, "pass", json_object_new_int((int)pass));
		json_object_object_add(sum, "fail", json_object_new_int((int)fail));
		json_object_object_add(sum, "skip", json_object_new_int((int)skip));
		json_object_object_add(doc, "summary", sum);
		print_json(doc);
	} else {
		json_object_put(arr);
		printf("%s: %u VFs, %u passed, %u failed, %u skipped\n",
		       fail || !pass ? "FAIL" : "PASS", total, pass, fail, skip);
	}
	return fail || !pass ? 1 : 0;
}

/* Serves clients one after another until interrupted (or one, --once). */
static int run_server(const struct opts *o, const char *dev)
{
	int lfd;
	uint16_t port;
	struct err e = {{0}};
	struct bench_config cfg = o->cfg;
	cfg.server = true;
	cfg.ibdev = dev;
	cfg.cancel = &interrupted;
	if (exchange_listen(NULL, cfg.tcp_port, &lfd, &port, &e) < 0) {
		cli_error("bench server: %s", e.msg);
		return 1;
	}
	cfg.listen_fd = lfd;
	fprintf(stderr, "ibvf: bench server on '%s', TCP port %u%s\n", dev, port,
		cfg.cm ? " (rdma_cm on the same port number)" : "");
	struct bench_result *res = calloc(1, sizeof(*res));
	int rc = 0;
	while (res && !atomic_load(&interrupted)) {
		int r = bench_run(&cfg, NULL, NULL, res);
		if (r == -ECANCELED && atomic_load(&interrupted))
			break;
		if (r < 0) {
			cli_error("bench server: %s", res->err.msg);
			rc = 1;
		} else {
			rc = 0;
			struct bench_target t = {.vf_index = -1, .rate_gbps = -1};
			snprintf(t.ibdev, sizeof(t.ibdev), "%s", dev);
			if (o->json)
				print_json(bench_report_json(res, &t, NULL));
			else if (!bench_is_latency(res->test))
				bench_report_text(stdout, res, &t, o->mbps);
			else
				printf("%s session done (the client reports latency)\n",
				       exchange_test_name(res->test));
			fflush(stdout);
		}
		if (o->once)
			break;
	}
	free(res);
	close(lfd);
	return rc;
}

/* The first RDMA device of the node, for a server or client without -d. */
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
	struct opts o = {.min_ratio = 0.9,
			 .cfg = {.gid_index = -1,
				 .listen_fd = -1,
				 .tcp_port = BENCH_DEFAULT_PORT,
				 .cancel = &interrupted}};
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
			rc = run_server(&o, t.ibdev);
		}
	} else if (!strcmp(mode, "client")) {
		const char *dev = o.dev ? o.dev : first_ibdev(n);
		if (npos != 1) {
			cli_error("bench client needs the server's address: bench client HOST");
		} else if (o.all_vfs) {
			rc = run_all_vfs(&o, n, pos[0], NULL);
		} else if (!dev) {
			cli_error("no RDMA device on this node");
			rc = 1;
		} else {
			rc = resolve(n, dev, o.force, &t) < 0 ? 1 : run_one(&o, &t, pos[0], NULL);
		}
	} else if (!strcmp(mode, "pair")) {
		if (o.all_vfs && npos == 1) {
			rc = resolve(n, pos[0], true, &peer) < 0 ? 1
								 : run_all_vfs(&o, n, NULL, peer.ibdev);
		} else if (npos != 2 || o.all_vfs) {
			cli_error("bench pair needs two devices (or --all-vfs and one peer)");
		} else if (resolve(n, pos[0], o.force, &peer) < 0 ||
			   resolve(n, pos[1], o.force, &t) < 0) {
			rc = 1;
		} else {
			rc = run_one(&o, &t, NULL, peer.ibdev);
		}
	} else if (!strcmp(mode, "loopback")) {
		if (npos != 1)
			cli_error("bench loopback needs one device");
		else if (resolve(n, pos[0], o.force, &t) < 0)
			rc = 1;
		else
			rc = run_one(&o, &t, NULL, t.ibdev);
	} else {
		cli_error("unknown bench mode '%s' (server, client, pair, loopback)", mode);
	}
	node_free(n);
	return rc;
}
