// SPDX-License-Identifier: MIT
/* `ibvf bench` as an operator meets it on a machine without RDMA: one clear
 * line and exit status 2 for every bad argument, devices named by PCI
 * address, netdev or ibdev placed through the node model, a VF in a pod
 * refused unless forced, and a device that cannot be opened named. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "tui/bench/bench_form.h"

static int lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

START_TEST(bad_arguments_give_one_line_and_status_2)
{
	static const struct {
		const char *argv[8];
		const char *want;
	} cases[] = {
		{{"bench", NULL}, "usage: ibvf bench server"},
		{{"bench", "loopback", "x", "--test", "send_bw", NULL}, "unknown test 'send_bw'"},
		{{"bench", "loopback", "x", "--iters", "5", "--duration", "2", NULL},
		 "--iters and --duration cannot be used together"},
		{{"bench", "loopback", "x", "--min-ratio", "1.5", NULL},
		 "--min-ratio wants a number from 0 to 1, got '1.5'"},
		{{"bench", "loopback", "x", "--qps", "65", NULL},
		 "--qps wants a number up to 64, got '65'"},
		{{"bench", "loopback", "x", "--size", "-1", NULL},
		 "--size wants a number up to 8388608, got '-1'"},
		{{"bench", "loopback", "x", "--unit", "GB/s", NULL},
		 "--unit is Gb/s or MB/s, got 'GB/s'"},
		{{"bench", "loopback", "x", "--test", "write_lat", "--bidir", NULL},
		 "latency tests run on one QP, one way"},
		{{"bench", "loopback", "x", "--frobnicate", NULL}, "unknown option '--frobnicate'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *err;
		int rc = tu_run(cases[i].argv, &out, &err);
		ck_assert_msg(rc == 2, "case %zu: exit %d, stderr '%s'", i, rc, err);
		ck_assert_msg(strstr(err, cases[i].want), "case %zu: stderr '%s'", i, err);
		if (i > 0)
			ck_assert_int_eq(lines(err), 1);
		free(out);
		free(err);
	}
}
END_TEST

START_TEST(unknown_device_and_mode_are_named)
{
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir), *out, *err;
	const char *a[] = {"bench", "loopback", "mlx5_99", sim, NULL};
	ck_assert_int_eq(tu_run(a, &out, &err), 2);
	ck_assert_str_eq(err, "ibvf: no PF or VF named 'mlx5_99' on this node (tried PCI address, "
			      "netdev, altname, RDMA device, pod)\n");
	free(out);
	free(err);
	const char *b[] = {"bench", "sideways", sim, NULL};
	ck_assert_int_eq(tu_run(b, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "unknown bench mode 'sideways'"));
	free(out);
	free(err);
	const char *c[] = {"bench", "pair", "mlx5_0", sim, NULL};
	ck_assert_int_eq(tu_run(c, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "bench pair needs two devices"));
	free(out);
	free(err);
	free(sim);
	tu_rmtree(dir);
}
END_TEST

START_TEST(a_vf_in_a_pod_is_refused_unless_forced)
{
	/* The fixture binds VF 0000:40:00.4 to ml-training/trainer-0. */
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir), *out, *err;
	const char *a[] = {"bench", "loopback", "0000:40:00.4", sim, NULL};
	ck_assert_int_eq(tu_run(a, &out, &err), 1);
	ck_assert_msg(strstr(err, "VF 0000:40:00.4 is bound to pod 'ml-training/trainer-0'") &&
			      strstr(err, "--force"),
		      "stderr: %s", err);
	free(out);
	free(err);
	/* Forced, it gets as far as opening the device, which this host lacks. */
	const char *b[] = {"bench", "loopback", "0000:40:00.4", "--force", sim, NULL};
	ck_assert_int_eq(tu_run(b, &out, &err), 1);
	ck_assert_msg(strstr(err, "no RDMA device 'mlx5_"), "stderr: %s", err);
	ck_assert_ptr_null(strstr(err, "bound to pod"));
	free(out);
	free(err);
	free(sim);
	tu_rmtree(dir);
}
END_TEST

START_TEST(json_error_is_valid_json)
{
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir), *out, *err;
	const char *a[] = {"bench", "loopback", "mlx5_0", "--json", sim, NULL};
	ck_assert_int_eq(tu_run(a, &out, &err), 1);
	ck_assert_ptr_nonnull(strstr(out, "\"error\""));
	ck_assert_ptr_nonnull(strstr(out, "\"device\": \"mlx5_0\""));
	free(out);
	free(err);
	free(sim);
	tu_rmtree(dir);
}
END_TEST

/* --cpu and --no-pin: a list that is not the kernel's syntax, a CPU that is
 * not online, or both at once are refused before anything runs. */
START_TEST(placement_options_are_checked_where_typed)
{
	static const struct {
		const char *argv[8];
		const char *want;
	} cases[] = {
		{{"bench", "loopback", "x", "--cpu", "0-3,,5", NULL},
		 "ibvf: --cpu '0-3,,5' is not a CPU list: a CPU number expected at character 5\n"},
		{{"bench", "loopback", "x", "--cpu", "1023", NULL},
		 "ibvf: --cpu: CPU 1023 is not online"},
		{{"bench", "loopback", "x", "--cpu", "4096", NULL},
		 "ibvf: --cpu '4096' names CPU 4096, beyond 1023 (the most ibvf handles)\n"},
		{{"bench", "loopback", "x", "--cpu", "", NULL},
		 "ibvf: --cpu wants at least one CPU, got an empty list\n"},
		{{"bench", "loopback", "x", "--cpu", "0", "--no-pin", NULL},
		 "ibvf: --cpu and --no-pin cannot be used together\n"},
		{{"bench", "loopback", "x", "--no-pin", "--cpu", "0", NULL},
		 "ibvf: --cpu and --no-pin cannot be used together\n"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *err;
		int rc = tu_run(cases[i].argv, &out, &err);
		ck_assert_msg(rc == 2, "case %zu: exit %d, stderr '%s'", i, rc, err);
		ck_assert_msg(!strncmp(err, cases[i].want, strlen(cases[i].want)),
			      "case %zu: stderr '%s'", i, err);
		ck_assert_int_eq(lines(err), 1);
		free(out);
		free(err);
	}
}
END_TEST

START_TEST(sl_and_pkey_index_are_bounded_and_named)
{
	static const struct {
		const char *argv[8];
		const char *want;
	} cases[] = {
		{{"bench", "loopback", "x", "--sl", "16", NULL},
		 "--sl wants a service level from 0 to 15, got '16'"},
		{{"bench", "loopback", "x", "--sl", "-1", NULL},
		 "--sl wants a service level from 0 to 15, got '-1'"},
		{{"bench", "loopback", "x", "--sl", "0x3", NULL},
		 "--sl wants a service level from 0 to 15, got '0x3'"},
		{{"bench", "loopback", "x", "--pkey-index", "65536", NULL},
		 "--pkey-index wants a P_Key table index from 0 to 65535, got '65536'"},
		{{"bench", "loopback", "x", "--pkey-index", "", NULL},
		 "--pkey-index wants a P_Key table index from 0 to 65535, got ''"},
		{{"bench", "loopback", "x", "--cm", "--sl", "1", NULL},
		 "--sl and --pkey-index cannot be used with --cm: rdma_cm takes"},
		{{"bench", "loopback", "x", "--pkey-index", "0", "--cm", NULL},
		 "--sl and --pkey-index cannot be used with --cm"},
		/* A control character never reaches the terminal as is. */
		{{"bench", "loopback", "x", "--sl", "1\x1b[2J", NULL},
		 "--sl wants a service level from 0 to 15, got '1\\x1b[2J'"},
		{{"bench", "loopback", "x", "--test", "w\x1b[1m", NULL},
		 "unknown test 'w\\x1b[1m' (write_bw"},
		{{"bench", "loopback", "x", "--qps", "1\a", NULL}, "got '1\\x07'"},
		{{"bench", "loopback", "x", "--min-ratio", "0\r", NULL}, "got '0\\x0d'"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *err;
		int rc = tu_run(cases[i].argv, &out, &err);
		ck_assert_msg(rc == 2, "case %zu: exit %d, stderr '%s'", i, rc, err);
		ck_assert_msg(strstr(err, cases[i].want), "case %zu: stderr '%s'", i, err);
		ck_assert_int_eq(lines(err), 1);
		free(out);
		free(err);
	}
	/* In range, they pass the command line: the run goes as far as the
	 * device, which this host lacks. */
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir), *out, *err;
	const char *a[] = {"bench", "loopback",		 "mlx5_0", "--sl", "15", "--pkey-index",
			   "3",	    "--allow-same-port", sim,	   NULL};
	ck_assert_int_eq(tu_run(a, &out, &err), 1);
	ck_assert_msg(strstr(err, "no RDMA device 'mlx5_0'"), "stderr: %s", err);
	free(out);
	free(err);
	free(sim);
	tu_rmtree(dir);
}
END_TEST

/* The console's bench view speaks to a keyed server as `bench client` does:
 * the form's run carries the key `ibvf console --key FILE` (or
 * $IBVF_BENCH_KEY_FILE) loaded, and a bad key file is one line, status 2. */
START_TEST(the_console_bench_form_carries_the_shared_key)
{
	struct exchange_key key = {.set = true, .len = 16};
	memcpy(key.bytes, "0123456789abcdef", 16);
	atomic_bool cancel = false;
	struct bench_form f = {.test = BENCH_WRITE_BW, .size = 65536, .qps = 4, .duration_s = 5};
	struct bench_config cfg;
	bench_form_config(&f, &key, &cancel, &cfg);
	ck_assert_msg(cfg.key == &key, "the form's run has no key: a keyed server refuses it");
	ck_assert_ptr_eq(cfg.cancel, &cancel);
	ck_assert_int_eq(cfg.qps, 4);
	struct exchange_key none = {0};
	bench_form_config(&f, &none, &cancel, &cfg);
	ck_assert_ptr_null(cfg.key);
	bench_form_config(&f, NULL, &cancel, &cfg);
	ck_assert_ptr_null(cfg.key);

	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir), *out, *err;
	char loose[300], good[300];
	snprintf(loose, sizeof(loose), "%s/loose", dir);
	snprintf(good, sizeof(good), "%s/good", dir);
	tu_write(loose, "0123456789abcdef0123456789abcdef\n");
	tu_write(good, "0123456789abcdef0123456789abcdef\n");
	chmod(loose, 0644);
	chmod(good, 0600);
	const char *bad[] = {sim, "console", "--key", loose, NULL};
	ck_assert_int_eq(tu_run(bad, &out, &err), 2);
	ck_assert_msg(strstr(err, "is readable or writable by others (mode 0644)"), "%s", err);
	ck_assert_int_eq(lines(err), 1);
	free(out);
	free(err);
	const char *missing[] = {sim, "console", "--key", NULL};
	ck_assert_int_eq(tu_run(missing, &out, &err), 2);
	ck_assert_msg(strstr(err, "option '--key' needs a value (FILE)"), "%s", err);
	free(out);
	free(err);
	/* A good key is taken; the console then wants its terminal. */
	const char *ok[] = {sim, "console", "--key", good, NULL};
	ck_assert_int_eq(tu_run(ok, &out, &err), 2);
	ck_assert_msg(strstr(err, "the console needs a terminal"), "%s", err);
	free(out);
	free(err);
	setenv("IBVF_BENCH_KEY_FILE", loose, 1);
	const char *env[] = {sim, "console", NULL};
	ck_assert_int_eq(tu_run(env, &out, &err), 2);
	ck_assert_msg(strstr(err, "(from $IBVF_BENCH_KEY_FILE)"), "%s", err);
	free(out);
	free(err);
	unsetenv("IBVF_BENCH_KEY_FILE");
	free(sim);
	tu_rmtree(dir);
}
END_TEST

/* Names typed or read from the node reach stderr escaped: no ESC, BEL or
 * C1 byte of a device name or host gets to the terminal (`bench server`,
 * `client`, `loopback`, `pair`, `--all-pfs`, a refused key's path). */
START_TEST(device_names_reach_stderr_escaped)
{
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir), *out, *err;
	const char *name = "mlx5_\x1b[31m0\x07\xc2\x9b";
	const char *cases[][9] = {
		{sim, "bench", "server", "-d", name, "--port", "0", "--once", NULL},
		{sim, "bench", "client", "127.0.0.1", "-d", name, "--timeout", "500", NULL},
		{sim, "bench", "server", "-d", "mlx5_0", "--bind", name, NULL},
		{sim, "bench", "loopback", name, NULL},
		{sim, "bench", "pair", "mlx5_0", name, NULL},
		{sim, "bench", "server", "--all-pfs", "--key", name, NULL},
		{sim, "bench", "validate", name, "mlx5_0", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = tu_run(cases[i], &out, &err);
		ck_assert_msg(rc == 1 || rc == 2, "case %zu: exit %d: %s", i, rc, err);
		ck_assert_msg(strstr(err, "[31m0"), "case %zu: the name is not shown: %s", i, err);
		for (const unsigned char *p = (const unsigned char *)err; *p; p++)
			ck_assert_msg(*p == '\n' || (*p >= 0x20 && *p != 0x7f && *p != 0xc2),
				      "case %zu: raw byte 0x%02x on stderr: %s", i, *p, err);
		free(out);
		free(err);
	}
	free(sim);
	tu_rmtree(dir);
}
END_TEST

static Suite *bench_cli_suite(void)
{
	Suite *s = suite_create("bench_cli");
	TCase *tc = tcase_create("cli");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, bad_arguments_give_one_line_and_status_2);
	tcase_add_test(tc, unknown_device_and_mode_are_named);
	tcase_add_test(tc, a_vf_in_a_pod_is_refused_unless_forced);
	tcase_add_test(tc, json_error_is_valid_json);
	tcase_add_test(tc, placement_options_are_checked_where_typed);
	tcase_add_test(tc, sl_and_pkey_index_are_bounded_and_named);
	tcase_add_test(tc, the_console_bench_form_carries_the_shared_key);
	tcase_add_test(tc, device_names_reach_stderr_escaped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(bench_cli_suite());
}
