// SPDX-License-Identifier: MIT
/* `ibvf metrics` series that hold at scale and do not churn (issue 27): a
 * bench history of a full `--all-vfs` run on 8 PFs x 127 VFs x 4 tests
 * (twice, over 1 MiB) gives ibvf_validation_pass for all 1,016 VFs, the
 * newest run winning; a VF's value series keep the same labels whether a
 * pod holds it and whatever its netdev is called; names (ifname, device,
 * port) only on the _info series; ibvf_pf_info repeats no firmware. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/history.h"
#include "core/model/node.h"
#include "testutil.h"
#include "tui/render/metrics.h"

static char *render(const struct metrics_in *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(metrics_write(f, in), 0);
	fclose(f);
	return buf;
}

/* How many lines of text start with prefix and end with suffix. */
static size_t count_lines(const char *text, const char *prefix, const char *infix,
			  const char *suffix)
{
	size_t n = 0, lp = strlen(prefix), ls = strlen(suffix);
	for (const char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		size_t len = (size_t)(nl - p);
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (len >= lp + ls && !strncmp(p, prefix, lp) && !strncmp(nl - ls, suffix, ls) &&
		    (!infix || strstr(line, infix)))
			n++;
	}
	return n;
}

#define N_PFS 8
#define N_VFS 127

static const char *const tests[] = {"write_bw", "read_bw", "write_lat", "read_lat"};

START_TEST(all_1016_vfs_of_a_long_history)
{
	static struct pf pfs[N_PFS];
	static struct vf vfs[N_PFS][N_VFS];
	for (int i = 0; i < N_PFS; i++) {
		pfs[i] = (struct pf){.vfs = vfs[i], .n_vfs = N_VFS};
		snprintf(pfs[i].fn.bdf, sizeof(pfs[i].fn.bdf), "0000:%02x:00.0", 0x18 + 0x10 * i);
		for (int j = 0; j < N_VFS; j++) {
			vfs[i][j] = (struct vf){.index = (unsigned int)j};
			snprintf(vfs[i][j].fn.bdf, sizeof(vfs[i][j].fn.bdf), "0000:%02x:%02x.%x",
				 0x18 + 0x10 * i, (j + 1) / 8, (j + 1) % 8);
		}
	}
	struct node n = {.pfs = pfs, .n_pfs = N_PFS};

	char *dir = tu_mkfixture(NULL), path[4096];
	tu_put(dir, "var/lib/ibvf/bench-history.jsonl", "");
	snprintf(path, sizeof(path), "%s/var/lib/ibvf/bench-history.jsonl", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	/* Two full runs, as `ibvf bench validate --all-vfs` writes them: the
	 * first failed everywhere, the second passed. */
	for (int run = 0; run < 2; run++)
		for (int i = 0; i < N_PFS; i++)
			for (int j = 0; j < N_VFS; j++)
				for (int t = 0; t < 4; t++) {
					bool lat = strstr(tests[t], "lat") != NULL;
					fprintf(f,
						"{\"time\":\"2026-12-0%dT10:00:00Z\",\"host\":"
						"\"dgx-"
						"h200-17\",\"key\":{\"pf\":\"%s\",\"vf\":%d,"
						"\"test\":"
						"\"%s\",\"peer\":\"10.0.0.2\"},\"bdf\":\"%s\","
						"\"ibdev\":\"mlx5_%d\",\"status\":\"%s\","
						"\"figure\":%g,"
						"\"unit\":\"%s\",\"better\":\"%s\",\"spread\":0.01,"
						"\"params\":{\"size\":65536,\"iters\":5000,\"qps\":"
						"1,"
						"\"mtu\":4096}}\n",
						run + 1, pfs[i].fn.bdf, j, tests[t],
						vfs[i][j].fn.bdf, 12 + i * N_VFS + j,
						run ? "PASS" : "FAIL", lat ? 2.1 : 380.0,
						lat ? "us" : "Gb/s", lat ? "lower" : "higher");
				}
	ck_assert_int_eq(fclose(f), 0);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_gt(st.st_size, 1 << 20);

	struct metrics_in in = {.node = &n, .now = 1e9};
	struct bench_history_stats hs;
	struct err e = {{0}};
	ck_assert_msg(bench_history_read(path, &in.history, &hs, &e) == 0, "%.1500s", e.msg);
	ck_assert_uint_eq(hs.skipped, 0);
	ck_assert_uint_eq(hs.unread, 0);
	char *out = render(&in);
	ck_assert_uint_eq(count_lines(out, "ibvf_validation_pass{", NULL, "} 1"),
			  N_PFS * N_VFS * 4);
	ck_assert_uint_eq(count_lines(out, "ibvf_validation_pass{", "test=\"write_bw\"", "} 1"),
			  N_PFS * N_VFS);
	ck_assert_uint_eq(count_lines(out, "ibvf_validation_pass{", NULL, "} 0"), 0);
	/* The last VF of the last PF, as the old 256 KiB tail also had it, and
	 * the first of the first, as it did not. */
	ck_assert_ptr_nonnull(
		strstr(out, "ibvf_validation_pass{pci=\"0000:18:00.1\",pf=\"0000:"
			    "18:00.0\",vf=\"0\",test=\"write_bw\",peer=\"10.0.0.2\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(out,
				     "ibvf_validation_pass{pci=\"0000:88:0f.7\",pf=\"0000:"
				     "88:00.0\",vf=\"126\",test=\"read_lat\",peer=\"10.0.0.2\"} "
				     "1\n"));
	free(out);
	json_object_put(in.history);
	tu_rmtree(dir);
}
END_TEST

/* The sample lines of text whose family is not an _info one, each cut at
 * its value (the labels only), one string. */
static char *value_series_labels(const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (const char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		const char *brace = memchr(p, '{', (size_t)(nl - p));
		if (*p == '#' || !brace || (brace - p > 5 && !strncmp(brace - 5, "_info", 5)))
			continue;
		const char *close = memchr(brace, '}', (size_t)(nl - brace));
		ck_assert_ptr_nonnull(close);
		fprintf(f, "%.*s\n", (int)(close + 1 - p), p);
	}
	fclose(f);
	return buf;
}

/* A pod takes the VF (its netdev renamed in the pod, then gone from the
 * host): the value series are the same series, name_pinned aside (no
 * netdev, no sample). */
START_TEST(value_series_keep_their_labels_when_names_change)
{
	struct port port = {.num = 1, .link_layer = "InfiniBand"};
	struct rdma rd = {.name = "mlx5_12", .ports = &port, .n_ports = 1};
	struct netdev before = {.name = "ib0"}, renamed = {.name = "net1"};
	struct pod_binding pod = {.bdf = "0000:18:00.1", .ns = "train", .name = "job-0"};
	struct vf vf = {.index = 0,
			.fn = {.bdf = "0000:18:00.1",
			       .driver = "mlx5_core",
			       .netdevs = &before,
			       .n_netdevs = 1,
			       .rdmas = &rd,
			       .n_rdmas = 1}};
	struct pf pf = {.fn = {.bdf = "0000:18:00.0"},
			.vfs = &vf,
			.n_vfs = 1,
			.numvfs = {true, 1},
			.totalvfs = {true, 127}};
	struct node n = {.pfs = &pf, .n_pfs = 1};
	struct metrics_in in = {.node = &n, .now = 1e9};
	in.history = json_tokener_parse(
		"[{\"time\":\"2026-12-01T10:00:00Z\",\"key\":{\"pf\":\"0000:18:00.0\",\"vf\":0,"
		"\"test\":\"write_bw\",\"peer\":\"10.0.0.2\"},\"status\":\"PASS\",\"figure\":380,"
		"\"unit\":\"Gb/s\",\"spread\":0.01,\"ceiling\":390}]");
	ck_assert_ptr_nonnull(in.history);

	char *out[3], *labels[3];
	for (int k = 0; k < 3; k++) {
		if (k == 1) { /* in a pod, renamed there */
			vf.pod = &pod;
			vf.fn.netdevs = &renamed;
		} else if (k == 2) { /* its netdev gone from the host's namespace */
			vf.fn.netdevs = NULL;
			vf.fn.n_netdevs = 0;
		}
		out[k] = render(&in);
		labels[k] = value_series_labels(out[k]);
	}
	ck_assert_msg(strstr(labels[0], "ibvf_validation_pass{pci=\"0000:18:00.1\",pf=\"0000:18:"
					"00.0\",vf=\"0\",test=\"write_bw\",peer=\"10.0.0.2\"}\n"),
		      "%.1500s", labels[0]);
	ck_assert_msg(strstr(labels[0],
			     "ibvf_vf_guid_zero{pci=\"0000:18:00.1\",pf=\"0000:18:00.0\","
			     "vf=\"0\"}\n"),
		      "%.1500s", labels[0]);
	ck_assert_str_eq(labels[0], labels[1]);
	/* Without a netdev, no name to pin: that series alone is gone. */
	char *pinned = strstr(labels[0], "ibvf_vf_name_pinned{");
	ck_assert_ptr_nonnull(pinned);
	char *eol = strchr(pinned, '\n');
	memmove(pinned, eol + 1, strlen(eol + 1) + 1);
	ck_assert_str_eq(labels[0], labels[2]);
	/* The names and the pod move on the _info series only. */
	ck_assert_ptr_nonnull(strstr(out[0], "ifname=\"ib0\",device=\"mlx5_12\",port=\"1\""));
	ck_assert_ptr_nonnull(strstr(out[1], "ifname=\"net1\",device=\"mlx5_12\",port=\"1\""));
	ck_assert_ptr_nonnull(strstr(out[1],
				     "ibvf_vf_pod_info{pci=\"0000:18:00.1\",pf=\"0000:18:00."
				     "0\",vf=\"0\",namespace=\"train\",pod=\"job-0\""));
	for (int k = 0; k < 3; k++) {
		free(out[k]);
		free(labels[k]);
	}
	json_object_put(in.history);
}
END_TEST

/* On the seeded node through the CLI: device (node_exporter's label) on
 * ibvf_pf_info and ibvf_vf_info, no name on any other series, no
 * rdma_device anywhere, no firmware on ibvf_pf_info. */
START_TEST(names_only_on_info_series)
{
	char *dir = tu_mkfixture(NULL), *out = NULL, *err = NULL;
	int st = tu_sim_run(dir, &out, &err, "metrics", NULL);
	ck_assert_msg(st == 0, "exit %d: %.1500s", st, err);
	size_t info = 0;
	for (const char *p = out, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		if (line[0] == '#')
			continue;
		bool is_info =
			!strncmp(line, "ibvf_vf_info{", 13) || !strncmp(line, "ibvf_pf_info{", 13);
		ck_assert_msg(!strstr(line, "rdma_device=") && !strstr(line, "firmware="),
			      "%.1000s", line);
		if (is_info) {
			info++;
			ck_assert_msg(strstr(line, ",device=\"") && strstr(line, ",ifname=\"") &&
					      strstr(line, ",port=\""),
				      "%.1000s", line);
		} else {
			ck_assert_msg(!strstr(line, "device=\"") && !strstr(line, "ifname=\"") &&
					      !strstr(line, "port=\""),
				      "a name on a value series: %.1000s", line);
		}
	}
	ck_assert_uint_gt(info, 8);
	ck_assert_ptr_nonnull(
		strstr(out, "ibvf_pf_info{pci=\"0000:4f:00.0\",ifname=\"ibp79s0\",device=\"mlx5_"));
	free(out);
	free(err);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("metrics_series");
	TCase *tc = tcase_create("metrics_series");
	tcase_add_test(tc, all_1016_vfs_of_a_long_history);
	tcase_add_test(tc, value_series_keep_their_labels_when_names_change);
	tcase_add_test(tc, names_only_on_info_series);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
