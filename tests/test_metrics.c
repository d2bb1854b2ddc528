// SPDX-License-Identifier: MIT
/* `ibvf metrics` (tui/render/metrics.c): label values from the node escaped
 * whatever they hold (quote, backslash, newline, bytes that are not UTF-8);
 * every family once, its HELP and TYPE first, its samples together; every
 * check id with every severity; the last validation per VF and test from the
 * bench history, its regression by the history's noise rule, entries of
 * functions the node lacks left out. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/checks/checks.h"
#include "core/model/node.h"
#include "testutil.h"
#include "tui/render/metrics.h"

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	metrics_label_value(f, s);
	fclose(f);
	return buf;
}

START_TEST(label_values_escaped)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"plain-0", "plain-0"},
		{"a\"b", "a\\\"b"},
		{"a\\b", "a\\\\b"},
		{"a\nb", "a\\nb"},
		{"\\\"\n", "\\\\\\\"\\n"},
		{"p\xff\xfeq", "p\xef\xbf\xbd\xef\xbf\xbdq"},
		{"\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9"},		  /* valid UTF-8 stays */
		{"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* a surrogate */
		{NULL, ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *got = escaped(cases[i].in);
		ck_assert_msg(!strcmp(got, cases[i].out), "case %zu: got '%s'", i, got);
		free(got);
	}
}
END_TEST

/* The exposition's grammar (format 0.0.4) line by line, and the grouping:
 * each family's HELP and TYPE once, before its samples, which are not
 * interleaved with another family's. Returns NULL, or the first fault. */
static const char *lint(const char *text, char *why, size_t size)
{
	char seen[256][96];
	size_t n_seen = 0;
	char cur[96] = "";
	const char *p = text;
	int line = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		line++;
		if (!nl)
			return snprintf(why, size, "line %d: no newline at the end", line), why;
		char name[96];
		const char *q = p;
		if (!strncmp(p, "# HELP ", 7) || !strncmp(p, "# TYPE ", 7)) {
			int k = sscanf(p + 7, "%95[a-zA-Z0-9_:]", name);
			if (k != 1)
				return snprintf(why, size, "line %d: bad comment", line), why;
			if (!strncmp(p, "# HELP ", 7)) {
				for (size_t i = 0; i < n_seen; i++)
					if (!strcmp(seen[i], name))
						return snprintf(why, size, "line %d: %s twice",
								line, name),
						       why;
				snprintf(seen[n_seen++], sizeof(seen[0]), "%s", name);
				snprintf(cur, sizeof(cur), "%s", name);
			} else if (strcmp(name, cur)) {
				return snprintf(why, size, "line %d: TYPE of %s not after its HELP",
						line, name),
				       why;
			}
			p = nl + 1;
			continue;
		}
		size_t len = 0;
		while (isalnum((unsigned char)q[len]) || q[len] == '_' || q[len] == ':')
			len++;
		snprintf(name, sizeof(name), "%.*s", (int)len, q);
		if (!len || strcmp(name, cur))
			return snprintf(why, size,
					"line %d: sample of '%s' outside its family '%s'", line,
					name, cur),
			       why;
		q += len;
		if (*q == '{') {
			q++;
			while (*q != '}') {
				while (isalnum((unsigned char)*q) || *q == '_')
					q++;
				if (*q++ != '=' || *q++ != '"')
					return snprintf(why, size, "line %d: bad label", line), why;
				while (*q != '"') {
					if (*q == '\n' || !*q)
						return snprintf(why, size, "line %d: raw newline",
								line),
						       why;
					if (*q == '\\' && !strchr("\\\"n", q[1]))
						return snprintf(why, size, "line %d: bad escape",
								line),
						       why;
					q += *q == '\\' ? 2 : 1;
				}
				q++;
				if (*q == ',')
					q++;
				else if (*q != '}')
					return snprintf(why, size, "line %d: bad label list", line),
					       why;
			}
			q++;
		}
		char *end;
		if (*q++ != ' ' || (strtod(q, &end), end == q) || end != nl)
			return snprintf(why, size, "line %d: bad value", line), why;
		p = nl + 1;
	}
	return NULL;
}

static char *render(const struct metrics_in *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(metrics_write(f, in), 0);
	fclose(f);
	return buf;
}

/* One PF, one VF whose names and pod come from a hostile node. */
START_TEST(hostile_names_escaped_in_every_family)
{
	struct port port = {.num = 1, .link_layer = "Infini\"Band"};
	struct rdma rd = {.name = "mlx5_\\1", .ports = &port, .n_ports = 1};
	struct netdev nd = {.name = "ib\"0\\"};
	struct pod_binding pod = {.bdf = "0000:18:00.1",
				  .ns = "ns\nx",
				  .name = "p\xff\xfeq",
				  .uid = "u\"\\",
				  .stale = true};
	struct vf vf = {.index = 0,
			.fn = {.bdf = "0000:18:00.1",
			       .driver = "mlx5\n",
			       .netdevs = &nd,
			       .n_netdevs = 1,
			       .rdmas = &rd,
			       .n_rdmas = 1},
			.pod = &pod};
	struct pf pf = {.fn = {.bdf = "0000:18:00.0"}, .vfs = &vf, .n_vfs = 1, .numvfs = {true, 1}};
	struct node n = {.pfs = &pf, .n_pfs = 1};
	struct metrics_in in = {.node = &n, .now = 1e9};
	char *out = render(&in), why[128];
	const char *fault = lint(out, why, sizeof(why));
	ck_assert_msg(!fault, "%s", fault);
	ck_assert_ptr_nonnull(
		strstr(out, "ibvf_vf_info{pci=\"0000:18:00.1\",pf=\"0000:18:00.0\",vf=\"0\","
			    "ifname=\"ib\\\"0\\\\\",device=\"mlx5_\\\\1\",port=\"1\","
			    "link_layer=\"Infini\\\"Band\",driver=\"mlx5\\n\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(out, "namespace=\"ns\\nx\",pod=\"p\xef\xbf\xbd\xef\xbf\xbdq\","
					  "uid=\"u\\\"\\\\\",stale=\"true\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(out, "ibvf_vf_name_pinned{pci=\"0000:18:00.1\""));
	free(out);
}
END_TEST

static const char *const families[] = {
	"ibvf_pf_info",
	"ibvf_pf_sriov_vfs",
	"ibvf_pf_sriov_vfs_max",
	"ibvf_vf_info",
	"ibvf_vf_guid_zero",
	"ibvf_vf_guid_duplicate",
	"ibvf_vf_name_pinned",
	"ibvf_vf_pod_info",
	"ibvf_findings",
	"ibvf_problems",
	"ibvf_validation_validated",
	"ibvf_validation_pass",
	"ibvf_validation_timestamp_seconds",
	"ibvf_validation_bandwidth_bytes_per_second",
	"ibvf_validation_latency_seconds",
	"ibvf_validation_ratio",
	"ibvf_validation_regressed",
	"ibvf_validation_history_skipped_lines",
	"ibvf_validation_history_unread_bytes",
	"ibvf_metrics_interval_seconds",
	"ibvf_metrics_duration_seconds",
	"ibvf_metrics_last_success_timestamp_seconds",
	"ibvf_kernel_log_read",
};

/* A history line for VF vf of PF 0000:4f:00.0 (the seeded node's). */
static void history_line(FILE *f, const char *pf, int vf, const char *test, const char *when,
			 const char *status, double fig, const char *unit, const char *extra)
{
	fprintf(f,
		"{\"time\":\"%s\",\"host\":\"h\",\"key\":{\"pf\":\"%s\",\"vf\":%d,\"test\":\"%s\","
		"\"peer\":\"10.0.0.2\"},\"status\":\"%s\",\"figure\":%g,\"unit\":\"%s\","
		"\"better\":\"%s\",\"spread\":0.01%s}\n",
		when, pf, vf, test, status, fig, unit, strcmp(unit, "us") ? "higher" : "lower",
		extra);
}

static char *seeded_with_history(char **ret_dir)
{
	char *dir = tu_mkfixture(NULL), path[4096], *out = NULL, *err = NULL;
	snprintf(path, sizeof(path), "%s/var/lib/ibvf/bench-history.jsonl", dir);
	tu_put(dir, "var/lib/ibvf/bench-history.jsonl", "");
	FILE *f = fopen(path, "w");
	const char *pf = "0000:4f:00.0";
	history_line(f, pf, 1, "write_bw", "2026-12-01T10:00:00Z", "PASS", 380, "Gb/s",
		     ",\"ceiling\":390");
	history_line(f, pf, 1, "write_bw", "2026-12-02T10:00:00Z", "FAIL", 300, "Gb/s",
		     ",\"ceiling\":390");
	history_line(f, pf, 1, "write_lat", "2026-12-02T10:00:01Z", "PASS", 2.5, "us", "");
	history_line(f, pf, 2, "read_bw", "2026-12-02T10:00:02Z", "PASS", 370, "Gb/s",
		     ",\"ceiling\":390");
	history_line(f, pf, 2, "read_bw", "2026-12-02T10:00:03Z", "PASS", 369, "Gb/s",
		     ",\"ceiling\":390");
	history_line(f, "0000:99:00.0", 1, "write_bw", "2026-12-02T10:00:04Z", "PASS", 1, "Gb/s",
		     "");
	/* Not a verdict (issue 28's peer-limited): validated 0, no pass. */
	history_line(f, pf, 3, "write_bw", "2026-12-02T10:00:06Z", "peer-limited", 200, "Gb/s",
		     ",\"ceiling\":390");
	history_line(f, pf, 1, "bogus_test", "2026-12-02T10:00:05Z", "PASS", 1, "Gb/s", "");
	fputs("{\"torn\n", f);
	fclose(f);
	int st = tu_sim_run(dir, &out, &err, "metrics", NULL);
	ck_assert_msg(st == 0, "exit %d: %s", st, err);
	free(err);
	*ret_dir = dir;
	return out;
}

START_TEST(every_family_once_and_grouped)
{
	char *dir, *out = seeded_with_history(&dir), why[256], needle[160];
	const char *fault = lint(out, why, sizeof(why));
	ck_assert_msg(!fault, "%s", fault);
	for (size_t i = 0; i < sizeof(families) / sizeof(*families); i++) {
		snprintf(needle, sizeof(needle), "# TYPE %s gauge\n", families[i]);
		ck_assert_msg(strstr(out, needle), "no family %s", families[i]);
	}
	for (size_t k = 0; k < checks_table_len; k++)
		for (int s = 0; s < 3; s++) {
			snprintf(needle, sizeof(needle),
				 "ibvf_findings{check=\"%s\",severity=\"%s\"} ", checks_table[k].id,
				 check_severity_name((enum check_severity)s));
			ck_assert_msg(strstr(out, needle), "no %s", needle);
		}
	/* The seeded faults, as the checks see them. */
	ck_assert_ptr_nonnull(
		strstr(out, "ibvf_findings{check=\"guid-zero\",severity=\"critical\"} 15\n"));
	/* ... and as problems: the 15 zero GUIDs one, their 15 ports down in it */
	ck_assert_ptr_nonnull(
		strstr(out, "ibvf_problems{check=\"guid-zero\",severity=\"critical\"} 1\n"));
	ck_assert_ptr_nonnull(
		strstr(out, "ibvf_problems{check=\"probe-failed\",severity=\"critical\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(
		out, "ibvf_problems{check=\"driver-kernel-mismatch\",severity=\"critical\"} 1\n"));
	ck_assert_ptr_nonnull(
		strstr(out, "ibvf_vf_guid_zero{pci=\"0000:4f:00.1\",pf=\"0000:4f:00.0\",vf=\"0\""));
	ck_assert_ptr_nonnull(strstr(out, "ibvf_vf_guid_duplicate{pci=\"0000:c0:00.3\""));
	ck_assert_ptr_nonnull(strstr(out, "stale=\"true\"} 1\n"));
	free(out);
	tu_rmtree(dir);
}
END_TEST

/* A kernel log ibvf could not read (a container without /dev/kmsg) leaves the
 * kernel-log checks' findings at 0: the gauge says they did not run. */
START_TEST(unread_kernel_log_is_exported)
{
	struct node n = {0};
	struct metrics_in in = {.node = &n, .now = 1e9};
	char *out = render(&in);
	ck_assert_msg(strstr(out, "\nibvf_kernel_log_read 1\n"), "%s", out);
	free(out);
	n.kmsg_unknown = true;
	out = render(&in);
	ck_assert_msg(strstr(out, "\nibvf_kernel_log_read 0\n"), "%s", out);
	free(out);
}
END_TEST

START_TEST(last_validation_per_vf_and_test)
{
	char *dir, *out = seeded_with_history(&dir);
	const char *vf1 = "{pci=\"0000:4f:00.2\",pf=\"0000:4f:00.0\",vf=\"1\",test=\"write_bw\","
			  "peer=\"10.0.0.2\"} ";
	const char *vf2 = "{pci=\"0000:4f:00.3\",pf=\"0000:4f:00.0\",vf=\"2\",test=\"read_bw\","
			  "peer=\"10.0.0.2\"} ";
	char want[512];
	static const struct {
		const char *family, *value;
		int which;
	} expect[] = {
		{"ibvf_validation_pass", "0", 1},
		{"ibvf_validation_timestamp_seconds", "1796205600", 1},
		{"ibvf_validation_bandwidth_bytes_per_second", "37500000000", 1},
		{"ibvf_validation_ratio", "0.7692307692307693", 1},
		{"ibvf_validation_regressed", "1", 1}, /* 300 after 380: -21% */
		{"ibvf_validation_regressed", "0", 2}, /* 369 after 370: noise */
		{"ibvf_validation_pass", "1", 2},
		{"ibvf_validation_validated", "1", 1},
		{"ibvf_validation_validated", "1", 2},
	};
	for (size_t i = 0; i < sizeof(expect) / sizeof(*expect); i++) {
		snprintf(want, sizeof(want), "%s%s%s\n", expect[i].family,
			 expect[i].which == 1 ? vf1 : vf2, expect[i].value);
		ck_assert_msg(strstr(out, want), "no %s", want);
	}
	ck_assert_ptr_nonnull(strstr(out, "test=\"write_lat\",peer=\"10.0.0.2\"} 2.5e-06\n"));
	/* Not the node's, not validate's: left out; the torn line counted. */
	ck_assert_ptr_null(strstr(out, "0000:99:00.0"));
	ck_assert_ptr_null(strstr(out, "bogus_test"));
	ck_assert_ptr_nonnull(strstr(out, "ibvf_validation_history_skipped_lines 1\n"));
	ck_assert_ptr_nonnull(strstr(out, "ibvf_validation_history_unread_bytes 0\n"));
	ck_assert_ptr_nonnull(strstr(out,
				     "ibvf_validation_validated{pci=\"0000:4f:00.4\",pf=\"0000:4f:"
				     "00.0\",vf=\"3\",test=\"write_bw\",peer=\"10.0.0.2\"} 0\n"));
	ck_assert_ptr_null(strstr(out, "ibvf_validation_pass{pci=\"0000:4f:00.4\""));
	/* Latency has no bandwidth series, bandwidth no latency one. */
	ck_assert_ptr_null(strstr(out, "ibvf_validation_bandwidth_bytes_per_second{pci=\"0000:4f:"
				       "00.2\",pf=\"0000:4f:00.0\",vf=\"1\",test=\"write_lat\""));
	free(out);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("metrics");
	tcase_add_test(tc, label_values_escaped);
	tcase_add_test(tc, hostile_names_escaped_in_every_family);
	tcase_add_test(tc, every_family_once_and_grouped);
	tcase_add_test(tc, last_validation_per_vf_and_test);
	tcase_add_test(tc, unread_kernel_log_is_exported);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
