// SPDX-License-Identifier: MIT
/* `ibvf bench server --all-pfs`: the peer of a DGX validation, rail i of this
 * node against rail i of the client's. The i-th PF of the node in BDF order
 * is served on TCP port PORT+i by a thread of its own (each the same loop as
 * `bench server`, one session after another), so a client's `--all-vfs
 * --parallel` meets every rail at once. A PF is served on its own RDMA
 * device, else on its first VF with one (not one bound to a pod unless
 * --force); a PF with neither is named and its port left closed. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cli.h"
#include "bench_sweep.h"
#include "tui/base/text.h"
#include "core/model/node.h"
#include "core/pods/pods.h"

struct served {
	const struct bench_opts *o;
	const char *dev;
	char label[96];
	int lfd;
	uint16_t port;
	pthread_mutex_t *out_mu;
	pthread_t th;
	bool started;
	int rc;
};

static void *served_main(void *arg)
{
	struct served *s = arg;
	s->rc = bench_cli_serve(s->o, s->dev, s->lfd, s->port, s->out_mu, s->label);
	return NULL;
}

/* The device PF pf is served on, NULL when none. */
static const char *pf_device(const struct pf *pf, bool force)
{
	char pod[320];
	if (pf->fn.n_rdmas)
		return pf->fn.rdmas[0].name;
	for (size_t j = 0; j < pf->n_vfs; j++)
		if (pf->vfs[j].fn.n_rdmas &&
		    (force || !pods_holder_label(&pf->vfs[j], pod, sizeof(pod))))
			return pf->vfs[j].fn.rdmas[0].name;
	return NULL;
}

int bench_cli_server_all_pfs(const struct bench_opts *o, const struct node *n)
{
	if (!n->n_pfs) {
		cli_error("bench server --all-pfs: no PF on this node");
		return 1;
	}
	unsigned long last = bench_sweep_last_port(o->cfg.tcp_port, n->n_pfs);
	if (last > 65535) {
		cli_error("bench server --all-pfs: ports %u..%lu pass 65535 (%zu PFs); use a "
			  "lower --port",
			  o->cfg.tcp_port, last, n->n_pfs);
		return EXIT_USAGE;
	}
	struct served *sv = calloc(n->n_pfs, sizeof(*sv));
	pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
	size_t n_served = 0;
	int rc = 0;
	if (!sv) {
		cli_error("bench server --all-pfs: out of memory");
		return 1;
	}
	for (size_t i = 0; i < n->n_pfs; i++) {
		struct served *s = &sv[i];
		struct err e = {{0}};
		s->lfd = -1;
		s->o = o;
		s->out_mu = &out_mu;
		s->dev = pf_device(&n->pfs[i], o->force);
		s->port = (uint16_t)(o->cfg.tcp_port + i);
		char shown[64];
		text_escape_into(shown, sizeof(shown), s->dev ? s->dev : "");
		snprintf(s->label, sizeof(s->label), "PF %s '%s'", n->pfs[i].fn.bdf, shown);
		if (!s->dev) {
			fprintf(stderr,
				"ibvf: PF %s has no RDMA device to serve on (nor a free VF): "
				"TCP port %u stays closed\n",
				n->pfs[i].fn.bdf, s->port);
			continue;
		}
		if (exchange_listen(o->bind, s->port, &s->lfd, NULL, &e) < 0) {
			cli_error("bench server --all-pfs: PF %s: %s", n->pfs[i].fn.bdf, e.msg);
			rc = 1;
			break;
		}
		n_served++;
	}
	for (size_t i = 0; !rc && i < n->n_pfs; i++) {
		struct served *s = &sv[i];
		if (s->lfd < 0)
			continue;
		char shown[64], where[80];
		text_escape_into(shown, sizeof(shown), s->dev);
		bench_cli_listen_name(s->lfd, where, sizeof(where));
		pthread_mutex_lock(&out_mu);
		fprintf(stderr,
			"ibvf: bench server on '%s' for PF %s (rail %zu), listening on %s%s; "
			"%s" BENCH_SERVER_QUEUE "\n",
			shown, n->pfs[i].fn.bdf, i, where,
			o->cfg.cm ? " (rdma_cm on the same port number)" : "",
			o->key.set ? "clients need the shared key (--key)"
				   : "open: no --key, any client that reaches this port can run a "
				     "test");
		pthread_mutex_unlock(&out_mu);
		int r = pthread_create(&s->th, NULL, served_main, s);
		if (r) {
			cli_error("bench server --all-pfs: cannot start a thread: %s", strerror(r));
			atomic_store(&bench_interrupted, true);
			rc = 1;
			break;
		}
		s->started = true;
	}
	if (!rc && !n_served) {
		cli_error("bench server --all-pfs: no PF with an RDMA device to serve on");
		rc = 1;
	}
	for (size_t i = 0; i < n->n_pfs; i++) {
		if (sv[i].started) {
			pthread_join(sv[i].th, NULL);
			rc |= sv[i].rc;
		}
		if (sv[i].lfd >= 0)
			close(sv[i].lfd);
	}
	free(sv);
	return rc;
}
