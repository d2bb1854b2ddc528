// SPDX-License-Identifier: MIT
/* Writes the binary seeds of tests/fuzz/corpus (fuzz_exchange, fuzz_nlvf):
 * messages as ibvf's encoder and the kernel's rtnl_fill_ifinfo() lay them
 * out (the latter with the netlink suites' builders, tests/nlvfutil.c).
 * Usage: mkseeds CORPUS_DIR (docs/fuzz.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <linux/if_arp.h>
#include <linux/if_link.h>

#include <check.h>

#include "bench/exchange.h"
#include "tests/nlvfutil.h"

static const char *dir;

static void put(const char *target, const char *name, const void *data, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, target, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "mkseeds: cannot write '%s': %s\n", path, strerror(errno));
		exit(1);
	}
}

static struct exchange_msg hello(uint16_t type, unsigned int qps, uint8_t flags)
{
	struct exchange_msg m = {.type = type};
	m.params = (struct exchange_params){.test = BENCH_WRITE_BW,
					    .flags = flags,
					    .rd_atomic = 16,
					    .mtu = 5,
					    .qps = qps,
					    .tx_depth = 128,
					    .size = 65536,
					    .iters = 5000};
	m.dest.lid = 0x1a;
	m.dest.link_layer = EXCHANGE_LL_IB;
	m.dest.gid[0] = 0xfe;
	m.dest.gid[1] = 0x80;
	m.dest.gid[15] = 0x86;
	m.dest.addr = 0x7f0000001000ull;
	m.dest.rkey = 0x1234;
	m.dest.buf_size = 1 << 20;
	m.dest.n_qps = (uint16_t)qps;
	m.dest.port = (struct exchange_port){.rate_mbps = 400000,
					     .width = 4,
					     .mtu = 4096,
					     .phys_port = {0xde, 0xad, [15] = 0x01},
					     .numa_node = -1,
					     .buf_node = 1,
					     .cpu = 17};
	for (unsigned int i = 0; i < qps; i++)
		m.dest.qps[i] = (struct exchange_qp){.qpn = 0x100 + i, .psn = 0xabcdef - i};
	return m;
}

static void exchange(void)
{
	struct exchange_msg m[] = {
		hello(EXCHANGE_HELLO, 1, 0),
		hello(EXCHANGE_HELLO, 4, EXCHANGE_F_BIDIR | EXCHANGE_F_ALL_SIZES),
		hello(EXCHANGE_ACCEPT, 2, EXCHANGE_F_GRH),
		{.type = EXCHANGE_SYNC,
		 .sync = {.step = 3,
			  .phase = EXCHANGE_PHASE_DONE,
			  .bytes = 1ull << 40,
			  .ns = 7,
			  .msgs = 9,
			  .peak_kbps = 397500000}},
		{.type = EXCHANGE_SYNC, .sync = {.phase = EXCHANGE_PHASE_START}},
		{.type = EXCHANGE_MISMATCH,
		 .mismatch = {.param = EXCHANGE_P_SIZE,
			      .server_value = 65536,
			      .client_value = 4096}},
		{.type = EXCHANGE_ABORT,
		 .abort = {.code = EXCHANGE_ABORT_LINK_LAYER, .text = "mlx5_3"}},
		{.type = EXCHANGE_BYE},
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		uint8_t buf[EXCHANGE_MAX_MSG];
		struct err e;
		char name[32];
		int n = exchange_encode(&m[i], buf, sizeof(buf), &e);
		if (n < 0) {
			fprintf(stderr, "mkseeds: message %zu: %s\n", i, e.msg);
			exit(1);
		}
		snprintf(name, sizeof(name), "type%u-%zu", m[i].type, i);
		put("fuzz_exchange", name, buf, (size_t)n);
	}
}

/* A Check test: the builders assert as they go, which needs a runner. */
START_TEST(nlvf)
{
	struct nl_msg *pf = msg_pf();
	put("fuzz_nlvf", "ipoib-pf-3vfs", nlmsg_hdr(pf), nlmsg_hdr(pf)->nlmsg_len);
	nlmsg_free(pf);

	struct nl_msg *m = msg_new(3, ARPHRD_ETHER);
	uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x03};
	nla_put_string(m, IFLA_IFNAME, "veth0");
	nla_put_u32(m, IFLA_MTU, 1500);
	nla_put(m, IFLA_ADDRESS, sizeof(mac), mac);
	put("fuzz_nlvf", "veth-no-vfs", nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len);
	nlmsg_free(m);

	/* The VF list nest on its own (the target reads the input both ways). */
	struct nl_msg *l = nlmsg_alloc();
	put_vf_list(l, pf_vfs, 3);
	struct nlattr *a = first_attr(l); /* IFLA_NUM_VF, then the list */
	a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	put("fuzz_nlvf", "vfinfo-list", a, a->nla_len);
	nlmsg_free(l);
}
END_TEST

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds CORPUS_DIR\n");
		return 2;
	}
	dir = argv[1];
	exchange();
	Suite *s = suite_create("mkseeds");
	TCase *tc = tcase_create("nlvf");
	tcase_add_test(tc, nlvf);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_SILENT);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
