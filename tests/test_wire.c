// SPDX-License-Identifier: MIT
/* What a link carries (bench/wire.h) and this side's port block
 * (bench/port.h): headers, payload ceilings worked out by hand, the GRH
 * decision, the slower end, the physical port's identity. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/port.h"
#include "bench/wire.h"
#include "testutil.h"

START_TEST(headers_of_each_framing)
{
	/* LRH 8 + BTH 12 + ICRC 4 + VCRC 2 */
	ck_assert_uint_eq(bench_wire_overhead(BENCH_WIRE_IB), 26);
	/* the same + GRH 40 */
	ck_assert_uint_eq(bench_wire_overhead(BENCH_WIRE_IB_GRH), 66);
	/* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 */
	ck_assert_uint_eq(bench_wire_overhead(BENCH_WIRE_ROCE_V2_IPV4), 62);
	/* Ethernet 14 + IPv6 40 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 */
	ck_assert_uint_eq(bench_wire_overhead(BENCH_WIRE_ROCE_V2_IPV6), 82);
	/* Ethernet 14 + GRH 40 + BTH 12 + ICRC 4 + FCS 4 */
	ck_assert_uint_eq(bench_wire_overhead(BENCH_WIRE_ROCE_V1), 74);
	ck_assert_uint_eq(bench_wire_overhead(BENCH_WIRE_N), 0);
	ck_assert_ptr_null(bench_wire_name(BENCH_WIRE_N));
	ck_assert_str_eq(bench_wire_key(BENCH_WIRE_IB_GRH), "ib_grh");
}
END_TEST

START_TEST(infiniband_ceiling_without_a_grh)
{
	/* 400 x 4096 / (4096 + 26) = 1638400 / 4122 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(400000, 4096, BENCH_WIRE_IB),
				397.4769529354682, 1e-9);
	/* 400 x 2048 / 2074 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(400000, 2048, BENCH_WIRE_IB),
				394.9855351976856, 1e-9);
	/* 400 x 1024 / 1050 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(400000, 1024, BENCH_WIRE_IB),
				390.0952380952381, 1e-9);
	/* HDR: 200 x 4096 / 4122 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(200000, 4096, BENCH_WIRE_IB),
				198.7384764677341, 1e-9);
}
END_TEST

START_TEST(infiniband_ceiling_with_a_grh)
{
	/* 400 x 4096 / (4096 + 66) = 1638400 / 4162: the 393.7 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(400000, 4096, BENCH_WIRE_IB_GRH),
				393.65689572321, 1e-9);
	/* 400 x 2048 / 2114 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(400000, 2048, BENCH_WIRE_IB_GRH),
				387.511825922422, 1e-9);
	/* 400 x 1024 / 1090 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(400000, 1024, BENCH_WIRE_IB_GRH),
				375.7798165137615, 1e-9);
	/* 200 x 4096 / 4162 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(200000, 4096, BENCH_WIRE_IB_GRH),
				196.828447861605, 1e-9);
}
END_TEST

START_TEST(roce_ceilings)
{
	/* 400 x 4096 / (4096 + 62) = 1638400 / 4158 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(400000, 4096, BENCH_WIRE_ROCE_V2_IPV4),
				394.035594035594, 1e-9);
	/* 400 x 4096 / 4178 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(400000, 4096, BENCH_WIRE_ROCE_V2_IPV6),
				392.1493537577788, 1e-9);
	/* 400 x 4096 / 4170 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(400000, 4096, BENCH_WIRE_ROCE_V1),
				392.9016786570743, 1e-9);
	/* Soft-RoCE in the guest: 2.5 Gb/s (1X SDR) at MTU 1024: 2.5 x 1024 / 1086 */
	ck_assert_double_eq_tol(bench_wire_ceiling_gbps(2500, 1024, BENCH_WIRE_ROCE_V2_IPV4),
				2.357274401473297, 1e-12);
	ck_assert_double_eq(bench_wire_ceiling_gbps(0, 4096, BENCH_WIRE_IB), 0);
	ck_assert_double_eq(bench_wire_ceiling_gbps(400000, 0, BENCH_WIRE_IB), 0);
}
END_TEST

START_TEST(grh_only_when_needed)
{
	/* InfiniBand, distinct LIDs, no GID index asked: none, as perftest. */
	ck_assert(!bench_wire_needs_grh(false, false, 0x1a, 0x1b));
	/* A GID index asked for on either side: a GRH. */
	ck_assert(bench_wire_needs_grh(false, true, 0x1a, 0x1b));
	/* A VF sharing its PF's LID: only the GID tells the ends apart. */
	ck_assert(bench_wire_needs_grh(false, false, 0x1a, 0x1a));
	/* RoCE always routes by GID. */
	ck_assert(bench_wire_needs_grh(true, false, 0, 0));
	ck_assert(bench_wire_needs_grh(true, false, 1, 2));
}
END_TEST

START_TEST(the_slower_end_limits)
{
	enum bench_limiter who;
	/* Both 400G, no caps: this port (first on a tie). */
	ck_assert_uint_eq(bench_wire_limit_mbps(400000, 0, 400000, 0, true, &who), 400000);
	ck_assert_int_eq(who, BENCH_LIMIT_SELF_RATE);
	/* A 200G peer. */
	ck_assert_uint_eq(bench_wire_limit_mbps(400000, 0, 200000, 0, true, &who), 200000);
	ck_assert_int_eq(who, BENCH_LIMIT_PEER_RATE);
	/* This VF's cap limits what it sends ... */
	ck_assert_uint_eq(bench_wire_limit_mbps(400000, 100000, 400000, 0, true, &who), 100000);
	ck_assert_int_eq(who, BENCH_LIMIT_SELF_CAP);
	/* ... not what it receives. */
	ck_assert_uint_eq(bench_wire_limit_mbps(400000, 100000, 400000, 0, false, &who), 400000);
	ck_assert_int_eq(who, BENCH_LIMIT_SELF_RATE);
	/* The peer's cap limits what the peer sends (READ responses). */
	ck_assert_uint_eq(bench_wire_limit_mbps(400000, 0, 400000, 50000, false, &who), 50000);
	ck_assert_int_eq(who, BENCH_LIMIT_PEER_CAP);
	ck_assert_uint_eq(bench_wire_limit_mbps(400000, 0, 400000, 50000, true, &who), 400000);
	/* A cap above the rate limits nothing; the rate is the limit. */
	ck_assert_uint_eq(bench_wire_limit_mbps(200000, 300000, 400000, 0, true, &who), 200000);
	ck_assert_int_eq(who, BENCH_LIMIT_SELF_RATE);
	/* Unknown (0) values do not count; none known: none. */
	ck_assert_uint_eq(bench_wire_limit_mbps(0, 0, 200000, 0, true, &who), 200000);
	ck_assert_int_eq(who, BENCH_LIMIT_PEER_RATE);
	ck_assert_uint_eq(bench_wire_limit_mbps(0, 0, 0, 0, true, &who), 0);
	ck_assert_int_eq(who, BENCH_LIMIT_NONE);
}
END_TEST

START_TEST(same_port_needs_a_known_equal_identity)
{
	struct exchange_port a = {0}, b = {0};
	/* Unknown on both sides: not the same port (nothing is known). */
	ck_assert(!bench_wire_same_port(&a, &b));
	bench_port_identity("0f1e2d3c-boot", "0000:18:00.0", 1, a.phys_port);
	bench_port_identity("0f1e2d3c-boot", "0000:18:00.0", 1, b.phys_port);
	ck_assert(bench_wire_same_port(&a, &b));
	/* Another port of the function, another PF, another host: not. */
	bench_port_identity("0f1e2d3c-boot", "0000:18:00.0", 2, b.phys_port);
	ck_assert(!bench_wire_same_port(&a, &b));
	bench_port_identity("0f1e2d3c-boot", "0000:29:00.0", 1, b.phys_port);
	ck_assert(!bench_wire_same_port(&a, &b));
	bench_port_identity("another-boot", "0000:18:00.0", 1, b.phys_port);
	ck_assert(!bench_wire_same_port(&a, &b));
	/* One side unknown: not. */
	memset(b.phys_port, 0, sizeof(b.phys_port));
	ck_assert(!bench_wire_same_port(&a, &b));
	ck_assert(!bench_wire_same_port(&b, &b));
}
END_TEST

START_TEST(identity_layout_and_unknowns)
{
	uint8_t id[16], zero[16] = {0};
	bench_port_identity("host", "0000:18:00.0", 1, id);
	/* bytes 8..12: domain 0x0000, bus 0x18, device 0 function 0, port 1 */
	ck_assert_uint_eq(id[8], 0);
	ck_assert_uint_eq(id[9], 0);
	ck_assert_uint_eq(id[10], 0x18);
	ck_assert_uint_eq(id[11], 0);
	ck_assert_uint_eq(id[12], 1);
	bench_port_identity("host", "0001:af:1f.7", 2, id);
	ck_assert_uint_eq(id[9], 1);
	ck_assert_uint_eq(id[10], 0xaf);
	ck_assert_uint_eq(id[11], 0x1f << 3 | 7);
	bench_port_identity("", "0000:18:00.0", 1, id);
	ck_assert_mem_eq(id, zero, 16);
	bench_port_identity("host", "", 1, id);
	ck_assert_mem_eq(id, zero, 16);
	bench_port_identity("host", "0000:18:00.0x", 1, id);
	ck_assert_mem_eq(id, zero, 16);
}
END_TEST

START_TEST(verbs_speed_and_width_as_the_kernel_counts_them)
{
	uint8_t w;
	/* IB_SPEED_NDR (128) x IB_WIDTH_4X (2): 4 x 100 Gb/s */
	ck_assert_uint_eq(bench_port_verbs_rate_mbps(128, 2, &w), 400000);
	ck_assert_uint_eq(w, 4);
	/* HDR (64) x 4X: 200 Gb/s */
	ck_assert_uint_eq(bench_port_verbs_rate_mbps(64, 2, &w), 200000);
	/* Soft-RoCE's SDR (1) x 1X (1): 2.5 Gb/s */
	ck_assert_uint_eq(bench_port_verbs_rate_mbps(1, 1, &w), 2500);
	ck_assert_uint_eq(w, 1);
	/* Unknown codes: unknown. */
	ck_assert_uint_eq(bench_port_verbs_rate_mbps(3, 2, &w), 0);
	ck_assert_uint_eq(bench_port_verbs_rate_mbps(128, 3, &w), 0);
	ck_assert_uint_eq(w, 0);
}
END_TEST

/* The port block read through the kernel boundary, on the simulated DGX:
 * mlx5_12 is vf0 and mlx5_13 vf2 of PF 0000:18:00.0, mlx5_20 a VF of
 * 0000:40:00.0; every port reads 400 Gb/sec (4X NDR). */
START_TEST(probe_reads_the_simulated_node)
{
	char *dir = tu_mkfixture(NULL);
	struct sys *s;
	struct err e;
	struct bench_port_info a, b, c;
	tu_put(dir, "proc/sys/kernel/random/boot_id", "5d0c6c6e-4d1f-4b43-9a59-0e9b6a1f2c11\n");
	ck_assert_int_eq(sys_open_sim(dir, NULL, &s, &e), 0);
	bench_port_probe(s, "mlx5_12", 1, 0, 0, &a);
	ck_assert_uint_eq(a.rate_mbps, 400000);
	ck_assert_str_eq(a.bdf, "0000:18:00.1");
	ck_assert_str_eq(a.pf_bdf, "0000:18:00.0");
	ck_assert_int_eq(a.vf_index, 0);
	ck_assert_uint_eq(a.max_tx_rate_mbps, 0); /* the simulated PF caps no VF */
	/* The PF's LID, read through its infiniband/ entry: the simulated VFs
	 * have LIDs of their own, so none shares it. */
	char lid[32];
	ck_assert_int_gt(
		sys_read_attr(s, "/sys/bus/pci/devices/0000:18:00.0/infiniband/mlx5_0/ports/1/lid",
			      lid, sizeof(lid)),
		0);
	ck_assert_uint_eq(a.pf_lid, bench_port_parse_lid(lid));
	ck_assert_uint_ne(a.pf_lid, 0);
	bench_port_probe(s, "mlx5_13", 1, 0, 0, &b);
	bench_port_probe(s, "mlx5_20", 1, 0, 0, &c);
	ck_assert_str_eq(b.pf_bdf, "0000:18:00.0");
	struct exchange_port pa = {0}, pb = {0}, pc = {0};
	memcpy(pa.phys_port, a.phys_port, 16);
	memcpy(pb.phys_port, b.phys_port, 16);
	memcpy(pc.phys_port, c.phys_port, 16);
	ck_assert(bench_wire_same_port(&pa, &pb)); /* two VFs of one PF */
	ck_assert(!bench_wire_same_port(&pa, &pc));
	/* A rate altered in the tree is the rate exchanged: the ceiling follows. */
	tu_put(dir,
	       "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.3/"
	       "infiniband/mlx5_13/ports/1/rate",
	       "200 Gb/sec (4X HDR)\n");
	bench_port_probe(s, "mlx5_13", 1, 0, 0, &b);
	ck_assert_uint_eq(b.rate_mbps, 200000);
	/* No rate file: verbs' speed x width (HDR x 4X). */
	char path[4096];
	snprintf(path, sizeof(path),
		 "%s/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/"
		 "0000:18:00.3/infiniband/mlx5_13/ports/1/rate",
		 dir);
	ck_assert_int_eq(unlink(path), 0);
	bench_port_probe(s, "mlx5_13", 1, 64, 2, &b);
	ck_assert_uint_eq(b.rate_mbps, 200000);
	ck_assert_uint_eq(b.width, 4);
	/* A device the tree does not have: all unknown, no identity. */
	bench_port_probe(s, "mlx5_99", 1, 0, 0, &b);
	ck_assert_uint_eq(b.rate_mbps, 0);
	ck_assert_str_eq(b.pf_bdf, "");
	memcpy(pb.phys_port, b.phys_port, 16);
	ck_assert(!bench_wire_same_port(&pb, &pb));
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(a_vf_on_its_pfs_lid_asks_for_a_grh)
{
	ck_assert_uint_eq(bench_port_parse_lid("0x1a\n"), 0x1a);
	ck_assert_uint_eq(bench_port_parse_lid("0x0"), 0);    /* no LID assigned */
	ck_assert_uint_eq(bench_port_parse_lid("0xc000"), 0); /* multicast */
	ck_assert_uint_eq(bench_port_parse_lid("lid"), 0);
	ck_assert(bench_wire_shares_pf_lid(false, true, 0x1a, 0x1a));
	ck_assert(!bench_wire_shares_pf_lid(false, true, 0x1b, 0x1a));	/* a LID of its own */
	ck_assert(!bench_wire_shares_pf_lid(false, false, 0x1a, 0x1a)); /* the PF itself */
	ck_assert(!bench_wire_shares_pf_lid(false, true, 0x1a, 0));	/* PF LID unknown */
	ck_assert(!bench_wire_shares_pf_lid(true, true, 0, 0));		/* RoCE: GRH anyway */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wire");
	TCase *tc = tcase_create("wire");
	tcase_add_test(tc, headers_of_each_framing);
	tcase_add_test(tc, infiniband_ceiling_without_a_grh);
	tcase_add_test(tc, infiniband_ceiling_with_a_grh);
	tcase_add_test(tc, roce_ceilings);
	tcase_add_test(tc, grh_only_when_needed);
	tcase_add_test(tc, the_slower_end_limits);
	tcase_add_test(tc, same_port_needs_a_known_equal_identity);
	tcase_add_test(tc, identity_layout_and_unknowns);
	tcase_add_test(tc, verbs_speed_and_width_as_the_kernel_counts_them);
	tcase_add_test(tc, probe_reads_the_simulated_node);
	tcase_add_test(tc, a_vf_on_its_pfs_lid_asks_for_a_grh);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
