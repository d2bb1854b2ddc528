// SPDX-License-Identifier: MIT
/* `ibvf bench server`'s loop: one gate (bench/gate.h) for the whole life of
 * the server, every client through it served in turn, each refused or
 * dropped peer named in one line; a failure of this side's device backs off
 * (100 ms doubling to 5 s) and stops the server after BACKOFF_STOP in a row. */
#include <arpa/inet.h>
#include <errno.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench/gate.h"
#include "bench_cli.h"
#include "tui/base/text.h"

#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS	 5000
#define BACKOFF_STOP	 5 /* the same failure of this side, in a row */

void bench_cli_listen_name(int lfd, char *buf, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;
	if (getsockname(lfd, (struct sockaddr *)&ss, &sl) == 0 && ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		port = ntohs(a->sin6_port);
		snprintf(buf, size, "[%s]:%u", host, port);
		return;
	}
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		port = ntohs(a->sin_port);
	}
	snprintf(buf, size, "%s:%u", host, port);
}

int bench_cli_load_key(struct bench_opts *o)
{
	const char *path = o->key_file, *env = getenv(EXCHANGE_KEY_ENV);
	if (!path && env && *env)
		path = env;
	if (!path)
		return 0;
	struct err e = {{0}};
	if (exchange_key_load(path, &o->key, &e) < 0) {
		char shown[600];
		text_escape_into(shown, sizeof(shown), e.msg);
		cli_error("%s%s", shown, o->key_file ? "" : " (from $" EXCHANGE_KEY_ENV ")");
		return -1;
	}
	return 0;
}

/* Serves clients one after another until interrupted (or one, --once). */
int bench_cli_server(const struct bench_opts *o, const char *dev)
{
	int lfd;
	uint16_t port;
	struct err e = {{0}};
	char where[80], shown[64];
	if (exchange_listen(o->bind, o->cfg.tcp_port, &lfd, &port, &e) < 0) {
		cli_error("bench server: %s", e.msg);
		return 1;
	}
	bench_cli_listen_name(lfd, where, sizeof(where));
	text_escape_into(shown, sizeof(shown), dev);
	fprintf(stderr,
		"ibvf: bench server on '%s', listening on %s%s%s; %s" BENCH_SERVER_QUEUE "\n",
		shown, where, o->bind ? "" : " (all addresses; --bind ADDR for one)",
		o->cfg.cm ? " (rdma_cm on the same port number)" : "",
		o->key.set ? "clients need the shared key (--key)"
			   : "open: no --key, any client that reaches this port can run a test");
	int rc = bench_cli_serve(o, dev, lfd, port, NULL, NULL);
	close(lfd);
	return rc;
}

struct serve_log {
	pthread_mutex_t *out_mu;
	const char *label;
};

static void on_gate(const char *line, void *arg)
{
	struct serve_log *l = arg;
	char shown[700];
	text_escape_into(shown, sizeof(shown), line);
	if (l->out_mu)
		pthread_mutex_lock(l->out_mu);
	cli_error("bench server%s%s: %s", l->label ? " " : "", l->label ? l->label : "", shown);
	if (l->out_mu)
		pthread_mutex_unlock(l->out_mu);
}

/* Sleeps ms, or less when interrupted. */
static void nap(unsigned int ms)
{
	for (unsigned int t = 0; t < ms && !atomic_load(&bench_interrupted); t += 50) {
		struct timespec ts = {0, 50 * 1000000L};
		nanosleep(&ts, NULL);
	}
}

/* The back-off of this side's failures: one line per distinct failure, a
 * count for repeats. 1 when the server stops. */
struct backoff {
	char last[sizeof(((struct err *)0)->msg)];
	unsigned int count;
};

static int backoff_fail(struct backoff *b, const struct serve_log *l, const char *msg)
{
	const char *lb = l->label ? l->label : "", *sp = l->label ? " " : "";
	char shown[sizeof(b->last)];
	b->count = strcmp(b->last, msg) ? 1 : b->count + 1;
	snprintf(b->last, sizeof(b->last), "%s", msg);
	text_escape_into(shown, sizeof(shown), msg);
	msg = shown;
	if (b->count == 1)
		cli_error("bench server%s%s: %s", sp, lb, msg);
	if (b->count >= BACKOFF_STOP) {
		cli_error("bench server%s%s: stopped: the same failure %u times in a row: %s", sp,
			  lb, b->count, msg);
		return 1;
	}
	unsigned int ms = BACKOFF_FIRST_MS << (b->count - 1);
	if (ms > BACKOFF_MAX_MS)
		ms = BACKOFF_MAX_MS;
	if (b->count > 1)
		cli_error("bench server%s%s: the same failure (%u in a row); next client in %u ms",
			  sp, lb, b->count, ms);
	return -(int)ms;
}

static void print_result(const struct bench_opts *o, const char *dev, const char *label,
			 const struct bench_result *res)
{
	struct bench_target t = {.vf_index = -1, .rate_gbps = -1};
	snprintf(t.ibdev, sizeof(t.ibdev), "%s", dev);
	if (o->json)
		bench_cli_print_json(bench_result_to_json(res, &t, NULL));
	else if (!bench_is_latency(res->test))
		bench_cli_print_text(bench_result_to_json(res, &t, NULL), o->mbps, false);
	else
		printf("%s session done%s%s (the client reports latency)\n",
		       exchange_test_name(res->test), label ? " on " : "", label ? label : "");
	fflush(stdout);
}

int bench_cli_serve(const struct bench_opts *o, const char *dev, int lfd, uint16_t port,
		    pthread_mutex_t *out_mu, const char *label)
{
	struct bench_config cfg = o->cfg;
	struct serve_log log = {.out_mu = out_mu, .label = label};
	struct gate_config gc = {.lfd = lfd,
				 .key = o->key.set ? &o->key : NULL,
				 .timeout_ms =
					 cfg.timeout_ms ? cfg.timeout_ms : BENCH_DEFAULT_TIMEOUT_MS,
				 .cancel = &bench_interrupted,
				 .log = on_gate,
				 .log_arg = &log};
	struct bench_result *res = calloc(1, sizeof(*res));
	struct backoff bo = {.count = 0};
	struct gate *g = NULL;
	struct err e = {{0}};
	int rc = 0;
	cfg.tcp_port = port;
	cfg.server = true;
	cfg.ibdev = dev;
	cfg.cancel = &bench_interrupted;
	cfg.listen_fd = lfd;
	cfg.key = gc.key;
	if (!res || gate_new(&gc, &g, &e) < 0) {
		cli_error("bench server: out of memory");
		free(res);
		return 1;
	}
	while (!atomic_load(&bench_interrupted)) {
		struct gate_client client;
		int r = gate_next(g, &client, &e);
		if (r == -ECANCELED)
			break;
		if (r < 0) {
			cli_error("bench server%s%s: %s", label ? " " : "", label ? label : "",
				  e.msg);
			rc = 1;
			break;
		}
		cfg.gated = &client;
		r = bench_run(&cfg, NULL, NULL, res);
		if (r == -ECANCELED && atomic_load(&bench_interrupted))
			break;
		if (out_mu)
			pthread_mutex_lock(out_mu);
		int wait_ms = 0, stop = 0;
		if (r < 0 && res->local_fault) {
			int b = backoff_fail(&bo, &log, res->err.msg);
			stop = b > 0;
			wait_ms = b < 0 ? -b : 0;
			rc = 1;
		} else if (r < 0) {
			char peer[80], why[sizeof(res->err.msg)];
			text_escape_into(peer, sizeof(peer), client.peer);
			text_escape_into(why, sizeof(why), res->err.msg);
			cli_error("bench server%s%s: client %s: %s", label ? " " : "",
				  label ? label : "", peer, why);
			rc = 1;
		} else {
			bo.count = 0;
			bo.last[0] = '\0';
			rc = 0;
			print_result(o, dev, label, res);
		}
		if (out_mu)
			pthread_mutex_unlock(out_mu);
		if (stop || o->once)
			break;
		nap((unsigned int)wait_ms);
	}
	gate_free(g);
	free(res);
	return rc;
}
