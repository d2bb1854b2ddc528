// SPDX-License-Identifier: MIT
/* `ibvf bench --cm --cm-addr ADDR`: rdma_cm's address on each side. A
 * client or a server takes one, its own; a pair run takes up to two and
 * gives each to the side whose device's netdev holds it (bench/cm_addr.h),
 * refusing one that is on neither; a loopback run takes one for both ends.
 * The engine checks each side's address again against its device. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "bench/cm_addr.h"
#include "bench_cli.h"
#include "tui/base/text.h"

int bench_cm_addr_option(struct bench_opts *o, const char *arg)
{
	uint8_t a[4];
	if (inet_pton(AF_INET, arg, a) != 1) {
		char shown[64];
		text_escape_into(shown, sizeof(shown), arg);
		cli_error("--cm-addr wants an IPv4 address (rdma_cm's), got '%s'", shown);
		return -EINVAL;
	}
	if (o->n_cm_addrs == 2) {
		cli_error("--cm-addr at most twice: one address for each side of a pair");
		return -EINVAL;
	}
	o->cm_addrs[o->n_cm_addrs++] = arg;
	o->cfg.cm_addr = o->cm_addrs[0];
	return 0;
}

int bench_cm_check(struct bench_opts *o, const char *mode)
{
	bool pair = !strcmp(mode, "pair");
	if (!o->n_cm_addrs)
		return 0;
	if (!o->cfg.cm) {
		cli_error("--cm-addr chooses rdma_cm's address: it needs --cm");
		return -EINVAL;
	}
	if (o->all_vfs) {
		cli_error("--cm-addr names one device's address: not with --all-vfs");
		return -EINVAL;
	}
	if (o->n_cm_addrs > 1 && !pair) {
		cli_error("bench %s runs one side here: one --cm-addr, this side's", mode);
		return -EINVAL;
	}
	if (!strcmp(mode, "loopback"))
		o->cfg.cm_peer_addr = o->cfg.cm_addr;
	return 0;
}

/* The HCA port the run uses (cfg.ib_port, 0: port 1). */
static unsigned int ib_port(const struct bench_opts *o)
{
	return o->cfg.ib_port ? o->cfg.ib_port : 1;
}

/* Which of the two devices holds addr: 0 peer, 1 dev, -1 neither. */
static int side_of(const struct cm_local l[2], const char *addr)
{
	return cm_local_has(&l[0], addr) ? 0 : cm_local_has(&l[1], addr) ? 1 : -1;
}

int bench_cm_pair(const struct bench_opts *o, const char *peer_ibdev, const char *ibdev,
		  struct bench_opts *ret)
{
	*ret = *o;
	if (!o->n_cm_addrs)
		return 0;
	struct cm_local l[2];
	struct err e = {{0}};
	if (cm_local_read(peer_ibdev, ib_port(o), &l[0], &e) < 0 ||
	    cm_local_read(ibdev, ib_port(o), &l[1], &e) < 0) {
		cli_error("%s", e.msg);
		return -EINVAL;
	}
	const char *taken[2] = {NULL, NULL};
	for (unsigned int i = 0; i < o->n_cm_addrs; i++) {
		const char *a = o->cm_addrs[i];
		int s = side_of(l, a);
		if (s < 0) {
			char have[2][CM_MAX_ADDRS * 17];
			cm_local_describe(&l[0], have[0], sizeof(have[0]));
			cm_local_describe(&l[1], have[1], sizeof(have[1]));
			cli_error("--cm-addr %s is on neither '%s' (IPv4 %s) nor '%s' (IPv4 %s)", a,
				  peer_ibdev, have[0], ibdev, have[1]);
			return -EINVAL;
		}
		if (taken[s]) {
			cli_error("--cm-addr %s and %s are both on '%s': give one for each side",
				  taken[s], a, s ? ibdev : peer_ibdev);
			return -EINVAL;
		}
		taken[s] = a;
	}
	ret->cfg.cm_peer_addr = taken[0];
	ret->cfg.cm_addr = taken[1];
	return 0;
}

int bench_cm_server_check(const struct bench_opts *o, const char *ibdev)
{
	if (!o->cfg.cm || !o->cfg.cm_addr)
		return 0;
	struct cm_local l;
	struct err e = {{0}};
	uint8_t a[4];
	char ip[16];
	if (cm_local_read(ibdev, ib_port(o), &l, &e) < 0 ||
	    cm_addr_choose(&l, ibdev, o->cfg.cm_addr, NULL, a, ip, sizeof(ip), &e) < 0) {
		cli_error("bench server: %s", e.msg);
		return -EINVAL;
	}
	return 0;
}
