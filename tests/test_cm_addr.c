// SPDX-License-Identifier: MIT
/* rdma_cm's address on each side (bench/cm_addr.h, tui/bench/bench_cm.c): the
 * choice on InfiniBand (an IPoIB netdev, no IPv4 in the GID) and on RoCE
 * (the GID's address preferred), --cm-addr refused by name when it is not on
 * the device's netdev, the netdevs found in a sysfs tree laid out as the
 * kernel lays it out (mlx5 device/net/ with dev_port, Soft-RoCE's parent),
 * the addresses read over rtnetlink from this test's own loopback, and the
 * command line's refusals. InfiniBand hardware is not at hand: its path is
 * the same code fed an IPoIB netdev. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/cm_addr.h"
#include "testutil.h"

/* A netdev with the addresses given as text, "10.0.0.5" ... NULL. */
static void add(struct cm_local *l, const char *netdev, const char *const *addrs)
{
	ck_assert_uint_lt(l->n_netdevs, CM_MAX_NETDEVS);
	snprintf(l->netdevs[l->n_netdevs], IF_NAMESIZE, "%s", netdev);
	for (; addrs && *addrs; addrs++) {
		unsigned int a, b, c, d;
		ck_assert_int_eq(sscanf(*addrs, "%u.%u.%u.%u", &a, &b, &c, &d), 4);
		struct cm_addr *x = &l->addrs[l->n_addrs++];
		x->ipv4[0] = (uint8_t)a;
		x->ipv4[1] = (uint8_t)b;
		x->ipv4[2] = (uint8_t)c;
		x->ipv4[3] = (uint8_t)d;
		x->netdev = (unsigned int)l->n_netdevs;
	}
	l->n_netdevs++;
}

/* cm_addr_choose's answer: the address text, or the error message. */
static int choose(const struct cm_local *l, const char *want, const uint8_t *gid4, char *buf,
		  size_t size)
{
	uint8_t out[4];
	struct err e = {{0}};
	int r = cm_addr_choose(l, "mlx5_4", want, gid4, out, buf, size, &e);
	if (r < 0 && snprintf(buf, size, "%s", e.msg) >= (int)size)
		ck_abort_msg("message too long: %s", e.msg);
	return r;
}

START_TEST(infiniband_takes_the_ipoib_address)
{
	struct cm_local l = {0};
	add(&l, "ibp23s0v1", (const char *const[]){"10.0.0.5", "10.0.1.5", NULL});
	char buf[512];
	/* An IB GID holds no IPv4: the netdev's first (primary) address. */
	ck_assert_int_eq(choose(&l, NULL, NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "10.0.0.5");
	ck_assert_int_eq(choose(&l, "10.0.1.5", NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "10.0.1.5");
	ck_assert_int_eq(choose(&l, "10.0.0.9", NULL, buf, sizeof(buf)), -EADDRNOTAVAIL);
	ck_assert_str_eq(buf, "--cm-addr 10.0.0.9 is not an address of 'mlx5_4' (its netdev "
			      "ibp23s0v1 has 10.0.0.5, 10.0.1.5)");
}
END_TEST

START_TEST(infiniband_without_an_address_is_refused)
{
	struct cm_local l = {0};
	add(&l, "ibp23s0v1", NULL);
	char buf[512];
	ck_assert_int_eq(choose(&l, NULL, NULL, buf, sizeof(buf)), -EADDRNOTAVAIL);
	ck_assert_str_eq(buf, "'mlx5_4' has no IPv4 address on its netdev ibp23s0v1: rdma_cm "
			      "needs one (on InfiniBand, an address on the IPoIB netdev)");
	ck_assert_int_eq(choose(&l, "10.0.0.5", NULL, buf, sizeof(buf)), -EADDRNOTAVAIL);
	ck_assert_str_eq(buf, "--cm-addr 10.0.0.5 is not an address of 'mlx5_4' (its netdev "
			      "ibp23s0v1 has no IPv4 address)");
}
END_TEST

START_TEST(roce_prefers_the_gid_address)
{
	static const uint8_t gid4[4] = {10, 11, 0, 2}, elsewhere[4] = {192, 168, 9, 9};
	struct cm_local l = {0};
	add(&l, "enp3s0f0v0", (const char *const[]){"10.11.0.9", "10.11.0.2", NULL});
	char buf[512];
	ck_assert_int_eq(choose(&l, NULL, gid4, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "10.11.0.2");
	/* --cm-addr wins over the GID. */
	ck_assert_int_eq(choose(&l, "10.11.0.9", gid4, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "10.11.0.9");
	/* A GID address the netdev no longer has: the netdev's first. */
	ck_assert_int_eq(choose(&l, NULL, elsewhere, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "10.11.0.9");
	/* No netdev found at all: the GID's, as before. */
	struct cm_local none = {0};
	ck_assert_int_eq(choose(&none, NULL, elsewhere, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "192.168.9.9");
}
END_TEST

START_TEST(nothing_to_choose_from_is_refused)
{
	struct cm_local none = {0};
	char buf[512];
	ck_assert_int_eq(choose(&none, NULL, NULL, buf, sizeof(buf)), -EADDRNOTAVAIL);
	ck_assert_str_eq(buf, "'mlx5_4' has no netdev (sysfs device/net/ or parent) and no IPv4 "
			      "address in its GID: rdma_cm needs one");
	ck_assert_int_eq(choose(&none, "10.0.0.5", NULL, buf, sizeof(buf)), -ENODEV);
	ck_assert_str_eq(buf, "--cm-addr 10.0.0.5: 'mlx5_4' has no netdev (sysfs device/net/ or "
			      "parent) to hold it");
	ck_assert_int_eq(choose(&none, "10.0.0.256", NULL, buf, sizeof(buf)), -EINVAL);
	ck_assert_str_eq(buf, "--cm-addr wants an IPv4 address (rdma_cm's)");
}
END_TEST

START_TEST(has_and_describe)
{
	struct cm_local l = {0};
	add(&l, "ib0", (const char *const[]){"10.0.0.5", NULL});
	add(&l, "ib1", (const char *const[]){"10.0.1.5", NULL});
	ck_assert(cm_local_has(&l, "10.0.1.5"));
	ck_assert(!cm_local_has(&l, "10.0.1.6"));
	ck_assert(!cm_local_has(&l, "ib0"));
	char buf[64];
	cm_local_describe(&l, buf, sizeof(buf));
	ck_assert_str_eq(buf, "10.0.0.5, 10.0.1.5");
	struct cm_local none = {0};
	cm_local_describe(&none, buf, sizeof(buf));
	ck_assert_str_eq(buf, "none");
}
END_TEST

static char *tree(void)
{
	char *d = strdup("/tmp/ibvf-cmaddr-XXXXXX");
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

START_TEST(netdevs_from_sysfs)
{
	char *root = tree();
	struct cm_local l;
	struct err e = {{0}};
	/* An mlx5 InfiniBand VF: its IPoIB netdev under device/net/. */
	tu_put(root, "sys/class/infiniband/mlx5_4/device/net/ibp23s0v1/dev_port", "0\n");
	ck_assert_int_eq(cm_netdevs_read(root, "mlx5_4", 1, &l, &e), 0);
	ck_assert_uint_eq(l.n_netdevs, 1);
	ck_assert_str_eq(l.netdevs[0], "ibp23s0v1");
	/* A two-port function: the netdev whose dev_port is the port's. */
	tu_put(root, "sys/class/infiniband/mlx4_0/device/net/ib0/dev_port", "0\n");
	tu_put(root, "sys/class/infiniband/mlx4_0/device/net/ib1/dev_port", "1\n");
	ck_assert_int_eq(cm_netdevs_read(root, "mlx4_0", 2, &l, &e), 0);
	ck_assert_uint_eq(l.n_netdevs, 1);
	ck_assert_str_eq(l.netdevs[0], "ib1");
	/* Soft-RoCE: no device link, the parent file names the netdev. */
	tu_put(root, "sys/class/infiniband/rxe0/parent", "enp1s0v0\n");
	ck_assert_int_eq(cm_netdevs_read(root, "rxe0", 1, &l, &e), 0);
	ck_assert_uint_eq(l.n_netdevs, 1);
	ck_assert_str_eq(l.netdevs[0], "enp1s0v0");
	/* A name that is not a plain netdev name is left out. */
	tu_put(root, "sys/class/infiniband/rxe1/parent", "a b\n");
	ck_assert_int_eq(cm_netdevs_read(root, "rxe1", 1, &l, &e), 0);
	ck_assert_uint_eq(l.n_netdevs, 0);
	/* Nothing found is no error; a device name with a slash is. */
	ck_assert_int_eq(cm_netdevs_read(root, "mlx5_9", 1, &l, &e), 0);
	ck_assert_uint_eq(l.n_netdevs, 0);
	ck_assert_int_eq(cm_netdevs_read(root, "../mlx5_4", 1, &l, &e), -EINVAL);
	tu_rmtree(root);
}
END_TEST

START_TEST(addresses_over_rtnetlink)
{
	/* The loopback of this test's network namespace holds 127.0.0.1. */
	struct cm_local l = {0};
	struct err e = {{0}};
	snprintf(l.netdevs[0], IF_NAMESIZE, "lo");
	snprintf(l.netdevs[1], IF_NAMESIZE, "nonexistent0");
	l.n_netdevs = 2;
	ck_assert_int_eq(cm_addrs_read(&l, &e), 0);
	ck_assert(cm_local_has(&l, "127.0.0.1"));
	for (size_t i = 0; i < l.n_addrs; i++)
		ck_assert_uint_eq(l.addrs[i].netdev, 0);
}
END_TEST

START_TEST(command_line_refusals)
{
	static const struct {
		const char *argv[10];
		const char *want;
	} cases[] = {
		{{"bench", "client", "h", "--cm", "--cm-addr", "10.0.0.300", NULL},
		 "ibvf: --cm-addr wants an IPv4 address (rdma_cm's), got '10.0.0.300'\n"},
		{{"bench", "client", "h", "--cm", "--cm-addr", "a\x1b[2Jb", NULL},
		 "ibvf: --cm-addr wants an IPv4 address (rdma_cm's), got 'a\\x1b[2Jb'\n"},
		{{"bench", "client", "h", "--cm-addr", "10.0.0.1", NULL},
		 "ibvf: --cm-addr chooses rdma_cm's address: it needs --cm\n"},
		{{"bench", "client", "h", "--cm", "--cm-addr", "10.0.0.1", "--cm-addr", "10.0.0.2",
		  NULL},
		 "ibvf: bench client runs one side here: one --cm-addr, this side's\n"},
		{{"bench", "server", "--cm", "--cm-addr", "10.0.0.1", "--cm-addr", "10.0.0.2",
		  NULL},
		 "ibvf: bench server runs one side here: one --cm-addr, this side's\n"},
		{{"bench", "client", "h", "--all-vfs", "--cm", "--cm-addr", "10.0.0.1", NULL},
		 "ibvf: --cm-addr names one device's address: not with --all-vfs\n"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *err;
		int rc = tu_run(cases[i].argv, &out, &err);
		ck_assert_msg(rc == 2, "case %zu: exit %d, stderr '%s'", i, rc, err);
		ck_assert_str_eq(err, cases[i].want);
		free(out);
		free(err);
	}
	const char *three[] = {"bench",	   "pair",	"a",	    "b",
			       "--cm",	   "--cm-addr", "10.0.0.1", "--cm-addr",
			       "10.0.0.2", "--cm-addr", "10.0.0.3", NULL};
	char *out, *err;
	ck_assert_int_eq(tu_run(three, &out, &err), 2);
	ck_assert_str_eq(err,
			 "ibvf: --cm-addr at most twice: one address for each side of a pair\n");
	free(out);
	free(err);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cm_addr");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, infiniband_takes_the_ipoib_address);
	tcase_add_test(tc, infiniband_without_an_address_is_refused);
	tcase_add_test(tc, roce_prefers_the_gid_address);
	tcase_add_test(tc, nothing_to_choose_from_is_refused);
	tcase_add_test(tc, has_and_describe);
	tcase_add_test(tc, netdevs_from_sysfs);
	tcase_add_test(tc, addresses_over_rtnetlink);
	tcase_add_test(tc, command_line_refusals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
