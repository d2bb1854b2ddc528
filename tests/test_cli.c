// SPDX-License-Identifier: MIT
/* The ibvf binary as a user meets it: list text and JSON, help, version, and
 * one clear line with exit status 2 for every bad argument. */
#include <check.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pty.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;
	ck_assert_msg(json_object_object_get_ex(o, k, &v), "no key '%s'", k);
	return v;
}

START_TEST(list_json_parses_back_with_every_pf_and_vf)
{
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir), *out, *err;
	const char *argv[] = {"list", "--json", sim, NULL};
	ck_assert_int_eq(tu_run(argv, &out, &err), 0);
	ck_assert_str_eq(err, "");

	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = json_tokener_parse_ex(tok, out, (int)strlen(out));
	ck_assert_msg(o != NULL, "invalid JSON: %s",
		      json_tokener_error_desc(json_tokener_get_error(tok)));
	json_tokener_free(tok);
	ck_assert_int_eq(json_object_get_int(get(o, "version")), 2);
	struct json_object *pfs = get(o, "pfs");
	ck_assert_uint_eq(json_object_array_length(pfs), 12);
	size_t vfs = 0;
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i);
		vfs += json_object_array_length(get(pf, "vfs"));
		struct json_object *port = json_object_array_get_idx(
			get(json_object_array_get_idx(get(pf, "rdma"), 0), "ports"), 0);
		ck_assert_ptr_nonnull(json_object_get_string(get(port, "rate")));
	}
	ck_assert_uint_eq(vfs, 64);
	struct json_object *pf0 = json_object_array_get_idx(pfs, 0);
	ck_assert_str_eq(json_object_get_string(get(pf0, "bdf")), "0000:18:00.0");
	json_object_put(o);
	free(out);
	free(err);
	free(sim);
	tu_rmtree(dir);
}
END_TEST

START_TEST(list_text_is_an_aligned_tree)
{
	char *dir = tu_mkfixture(NULL), *sim = tu_sim_arg(dir), *out, *err;
	const char *argv[] = {"list", sim, NULL};
	ck_assert_int_eq(tu_run(argv, &out, &err), 0);
	/* A header line, the column header, 12 PFs, 64 VFs, plus kernel-log lines. */
	ck_assert_uint_ge(count_lines(out), 2 + 12 + 64);
	ck_assert_ptr_nonnull(strstr(out, "400 Gb/sec (4X NDR)"));
	ck_assert_ptr_nonnull(strstr(out, "Unknown symbol strlcpy"));
	ck_assert_ptr_nonnull(strstr(out, "└─ vf7 0000:18:01.0"));
	/* Every column starts at the same offset on the header and on a VF line. */
	const char *hdr = strstr(out, "DEVICE"), *vf = strstr(out, "├─ vf0");
	ck_assert_ptr_nonnull(hdr);
	ck_assert_ptr_nonnull(vf);
	const char *h_drv = strstr(hdr, "DRIVER"), *v_drv = strstr(vf, "mlx5_core");
	/* "├─" is two columns but six bytes. */
	ck_assert_int_eq((int)(h_drv - hdr), (int)(v_drv - vf) - 4);
	free(out);
	free(err);
	free(sim);
	tu_rmtree(dir);
}
END_TEST

START_TEST(version_and_help_behave_as_users_expect)
{
	char *out, *err;
	const char *v[] = {"--version", NULL};
	ck_assert_int_eq(tu_run(v, &out, &err), 0);
	ck_assert_str_eq(out, "ibvf " IBVF_VERSION "\n");
	free(out);
	free(err);
	const char *h[] = {"--help", NULL};
	ck_assert_int_eq(tu_run(h, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: ibvf"));
	/* The overview of every command, not the default command's help. */
	ck_assert_ptr_nonnull(strstr(out, "commands:"));
	ck_assert_ptr_nonnull(strstr(out, "  list"));
	ck_assert_ptr_nonnull(strstr(out, "  watch"));
	free(out);
	free(err);
	const char *hl[] = {"help", "list", NULL};
	ck_assert_int_eq(tu_run(hl, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "list [--json]"));
	free(out);
	free(err);
	const char *lh[] = {"list", "--help", NULL};
	ck_assert_int_eq(tu_run(lh, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "list [--json]"));
	free(out);
	free(err);
}
END_TEST

static const char *const bad_args[][8] = {
	{"frobnicate", NULL},
	{"list", "--jsn", NULL},
	{"list", "extra", NULL},
	{"--root", NULL},
	{"list", "--sim=/tmp", "--root", "/", NULL},
	{"list", "--kernel", "6.1.0", NULL},
	{"help", "nosuch", NULL},
	{"debug", "rename", "only-one", NULL},
	{"mkfixture", NULL},
	{"mkfixture", "/tmp/x", "--pfs", "abc", NULL},
	{"--theme", NULL},
	{"list", "--theme", "mono", NULL},
	{"--sim=/tmp", "mkfixture", "/tmp/x", NULL},
	{"debug", "vfinfo", "ib0", "--json", NULL},
	{"--frobnicate", "frobnicate", NULL},
	{"vf", NULL},
	{"vf", "state", "--node", "1", "x", "auto", NULL},
	{"--kubelet-timeout", "0", "list", NULL},
	{"list", "--kubelet-timeout", "60001", NULL},
	{"list", "--kubelet-timeout=2s", NULL},
	{"list", "--kubelet-socket", "kubelet.sock", NULL},
	{"mkfixture", "/tmp/x", "--kubelet-timeout", "500", NULL},
};

START_TEST(bad_arguments_give_one_line_and_exit_2)
{
	char *out, *err;
	const char *const *argv = bad_args[_i];
	ck_assert_int_eq(tu_run(argv, &out, &err), 2);
	ck_assert_msg(count_lines(err) == 1, "stderr for '%s': %s", argv[0], err);
	ck_assert_msg(!strncmp(err, "ibvf: ", 6), "stderr: %s", err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
}
END_TEST

/* The kubelet options' errors name the option and the value. */
START_TEST(bad_kubelet_options_name_the_option)
{
	char *out, *err;
	const char *t[] = {"list", "--kubelet-timeout", "0", NULL};
	ck_assert_int_eq(tu_run(t, &out, &err), 2);
	ck_assert_str_eq(err, "ibvf: --kubelet-timeout: '0' is not a number of milliseconds "
			      "from 1 to 60000\n");
	free(out);
	free(err);
	const char *s[] = {"--kubelet-socket=run/k.sock", "list", NULL};
	ck_assert_int_eq(tu_run(s, &out, &err), 2);
	ck_assert_str_eq(err, "ibvf: --kubelet-socket: 'run/k.sock' is not an absolute path of "
			      "at most 107 bytes\n");
	free(out);
	free(err);
}
END_TEST

START_TEST(missing_root_is_a_clear_error)
{
	char *out, *err;
	const char *argv[] = {"list", "--root", "/nonexistent/ibvf", NULL};
	ck_assert_int_eq(tu_run(argv, &out, &err), 1);
	ck_assert_ptr_nonnull(strstr(err, "'/nonexistent/ibvf'"));
	ck_assert_uint_eq(count_lines(err), 1);
	free(out);
	free(err);
}
END_TEST

/* Every command of the table, as `ibvf help` must list it. */
static const char *const commands[] = {"console", "list",  "check",	"watch", "vf",	"persist",
				       "journal", "bench", "mkfixture", "debug", "help"};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static char *run_ok(const char *const *argv, int want)
{
	char *out, *err;
	int rc = tu_run(argv, &out, &err);
	ck_assert_msg(rc == want, "%s %s: exit %d, stderr %s", argv[0], argv[1] ? argv[1] : "", rc,
		      err);
	free(err);
	return out;
}

START_TEST(help_lists_every_command)
{
	const char *h[] = {"help", NULL};
	char *all = run_ok(h, 0);
	for (size_t i = 0; i < N_COMMANDS; i++) {
		char row[32];
		snprintf(row, sizeof(row), "\n  %-12s ", commands[i]);
		ck_assert_msg(strstr(all, row), "'ibvf help' does not list %s:\n%s", commands[i],
			      all);
	}
	free(all);
}
END_TEST

/* help CMD, CMD --help, CMD -h, -h CMD: the same text, from the table. */
START_TEST(each_command_has_its_help)
{
	const char *cmd = commands[_i];
	const char *a[] = {"help", cmd, NULL}, *b[] = {cmd, "--help", NULL},
		   *c[] = {cmd, "-h", NULL}, *d[] = {"--help", cmd, NULL};
	char *ha = run_ok(a, 0), *hb = run_ok(b, 0), *hc = run_ok(c, 0), *hd = run_ok(d, 0);
	char usage[64];
	snprintf(usage, sizeof(usage), "usage: ibvf %s", cmd);
	ck_assert_msg(!strncmp(ha, usage, strlen(usage)), "%s", ha);
	ck_assert_str_eq(ha, hb);
	ck_assert_str_eq(ha, hc);
	ck_assert_str_eq(ha, hd);
	free(ha);
	free(hb);
	free(hc);
	free(hd);
}
END_TEST

/* One simulated node for the tests below, which only read it (dry runs,
 * refusals): made once, before the tests fork. */
static char *shared_dir, *shared_sim;

static void shared_setup(void)
{
	shared_dir = tu_mkfixture(NULL);
	shared_sim = tu_sim_arg(shared_dir);
}

static void shared_teardown(void)
{
	free(shared_sim);
	tu_rmtree(shared_dir);
}

#define SIM "@sim" /* stands for --sim=<the shared node> */

/* A command line, its global option, and its exit status. */
static const struct {
	const char *global;
	const char *argv[8];
	int want;
} anywhere[] = {
	{SIM, {"list", "--json"}, 0},
	{SIM, {"list", "--pods"}, 0},
	{SIM, {"check", "--json"}, 2}, /* the seeded node's findings are critical */
	{"--json", {"check", SIM}, 2},
	{"--json", {"list", SIM}, 0},
	{SIM, {"vf", "state", "18:00.1", "auto", "--dry-run", "--json"}, 0},
	{SIM, {"persist", "--dry-run"}, 2}, /* refused: this binary is in the build tree */
	{SIM, {"journal"}, 0},
	{"--json", {"journal", SIM}, 0},
	{SIM, {"bench", "loopback", "40:00.4", "--test", "read_lat"}, 1},
	{"--json", {"bench", "loopback", "40:00.4", SIM}, 1},
	{"--root=/nonexistent/ibvf", {"watch"}, 1},
	{"--root=/nonexistent/ibvf", {"debug", "vfinfo", "ib0"}, 1},
	{SIM, {"console"}, 2}, /* it needs a terminal: said, after the options */
	{"--theme=mono", {"console"}, 2},
	{"--kubelet-timeout=300", {"list", SIM}, 0},
	{SIM, {"help", "vf"}, 0},
	{"--kernel=6.1.0", {"mkfixture", "/nonexistent/ibvf", "--pfs", "0"}, 2},
	{"-V", {"list", "extra"}, 0},
};

static const char *subst(const char *a)
{
	return a && !strcmp(a, SIM) ? shared_sim : a;
}

/* The global option first, then last, then right after the command's name:
 * same status, same stdout, same stderr. */
START_TEST(global_options_before_or_after_every_command)
{
	const char *global = subst(anywhere[_i].global), *const *cmd = anywhere[_i].argv;
	const char *argv[3][12];
	size_t n = 0;
	while (cmd[n])
		n++;
	argv[0][0] = global;
	for (size_t i = 0; i < n; i++) {
		argv[0][i + 1] = subst(cmd[i]);
		argv[1][i] = subst(cmd[i]);
		argv[2][i + (i > 0)] = subst(cmd[i]);
	}
	argv[1][n] = global;
	argv[2][1] = global;
	argv[0][n + 1] = argv[1][n + 1] = argv[2][n + 1] = NULL;
	char *out[3], *err[3];
	for (int k = 0; k < 3; k++) {
		int rc = tu_run(argv[k], &out[k], &err[k]);
		ck_assert_msg(rc == anywhere[_i].want, "%s with %s at %d: exit %d, stderr %s",
			      cmd[0], global, k, rc, err[k]);
		/* Options reached the command: a missing --root tree is named. */
		if (!strncmp(global, "--root=", 7))
			ck_assert_ptr_nonnull(strstr(err[k], "'/nonexistent/ibvf'"));
	}
	for (int k = 1; k < 3; k++) {
		ck_assert_str_eq(out[0], out[k]);
		ck_assert_str_eq(err[0], err[k]);
	}
	for (int k = 0; k < 3; k++) {
		free(out[k]);
		free(err[k]);
	}
}
END_TEST

/* mkfixture takes --kernel before its name and after. */
START_TEST(mkfixture_takes_kernel_anywhere)
{
	char *dir =
		tu_mkfixture((const char *const[]){"--healthy", "--pfs", "1", "--vfs", "0", NULL});
	char fx[512], sim[600];
	snprintf(fx, sizeof(fx), "%s/fx", dir);
	const char *before[] = {"--kernel", "6.1.0", "mkfixture", fx, "--healthy", NULL};
	const char *after[] = {"mkfixture", fx, "--healthy", "--kernel", "6.1.0", NULL};
	free(run_ok(_i ? after : before, 0));
	snprintf(sim, sizeof(sim), "--sim=%s", fx);
	const char *l[] = {sim, "list", "--json", NULL};
	char *out = run_ok(l, 0);
	ck_assert_ptr_nonnull(strstr(out, "\"kernel\": \"6.1.0\""));
	free(out);
	tu_rmtree(dir);
}
END_TEST

/* The JSON plan of `vf state NAME auto --dry-run` (its subject is the BDF). */
static char *plan_for(const char *name, bool force)
{
	const char *a[] = {shared_sim, "vf",	    "state",  name,
			   "auto",     "--dry-run", "--json", force ? "--force" : NULL,
			   NULL};
	return run_ok(a, 0);
}

/* VF 0 of 0000:18:00.0: netdev ib0, RDMA device mlx5_12, no pod. */
static const char *const vf0[] = {"0000:18:00.1", "18:00.1", "ib0", "mlx5_12"};
/* VF 0000:40:00.4, held by ml-training/trainer-0: RDMA device mlx5_22 (its
 * netdev moved into the pod). */
static const char *const held[] = {"0000:40:00.4", "40:00.4", "mlx5_22", "ml-training/trainer-0"};

START_TEST(every_name_form_resolves_the_same_in_vf)
{
	char *want = plan_for(vf0[0], false), *got = plan_for(vf0[_i], false);
	ck_assert_ptr_nonnull(strstr(want, "\"subject\":\"0000:18:00.1\""));
	ck_assert_str_eq(got, want);
	free(want);
	free(got);
	want = plan_for(held[0], true);
	got = plan_for(held[_i], true);
	ck_assert_ptr_nonnull(strstr(want, "\"subject\":\"0000:40:00.4\""));
	ck_assert_str_eq(got, want);
	free(want);
	free(got);
}
END_TEST

START_TEST(every_name_form_resolves_the_same_in_bench)
{
	char *out, *err;
	/* The pod's VF is refused by its address, whatever name it was given. */
	const char *a[] = {shared_sim, "bench", "loopback", held[_i], NULL};
	ck_assert_int_eq(tu_run(a, &out, &err), 1);
	ck_assert_str_eq(err, "ibvf: VF 0000:40:00.4 is bound to pod 'ml-training/trainer-0': "
			      "benchmarking it would disturb the pod (--force to run anyway)\n");
	free(out);
	free(err);
	/* The free VF gets as far as opening the RDMA device it resolved to. */
	const char *b[] = {shared_sim, "bench", "loopback", vf0[_i], NULL};
	ck_assert_int_eq(tu_run(b, &out, &err), 1);
	ck_assert_msg(strstr(err, "'mlx5_12'"), "%s: %s", vf0[_i], err);
	free(out);
	free(err);
}
END_TEST

START_TEST(a_pod_with_two_vfs_is_ambiguous_in_vf_and_bench)
{
	char *out, *err;
	const char *v[] = {shared_sim, "vf",	    "state", "ml-training/trainer-1",
			   "auto",     "--dry-run", NULL};
	ck_assert_int_eq(tu_run(v, &out, &err), 2);
	ck_assert_str_eq(err, "ibvf: pod 'ml-training/trainer-1' holds 2 VFs (0000:c0:00.1, "
			      "0000:dc:00.1): name one by PCI address\n");
	free(out);
	free(err);
	const char *b[] = {shared_sim, "bench", "loopback", "ml-training/trainer-1", NULL};
	ck_assert_int_eq(tu_run(b, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "holds 2 VFs"));
	free(out);
	free(err);
}
END_TEST

/* Asked on a terminal while stdout and stderr go to one file (`>log 2>&1`,
 * a pipe to tee): the whole plan, then the question, then the answer's
 * outcome, in that order. */
START_TEST(the_question_comes_after_the_whole_plan)
{
	const char *dry[] = {shared_sim, "vf", "guid", "--assign-all", "--dry-run", NULL};
	char *plan, *err;
	ck_assert_int_eq(tu_run(dry, &plan, &err), 0);
	ck_assert_uint_gt(strlen(plan), 8192); /* more than stdio's buffer holds */
	free(err);
	int master, slave;
	ck_assert_int_eq(openpty(&master, &slave, NULL, NULL, NULL), 0);
	char path[] = "/tmp/ibvf-question-XXXXXX";
	int log = mkstemp(path);
	ck_assert_int_ge(log, 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(slave, STDIN_FILENO);
		dup2(log, STDOUT_FILENO);
		dup2(log, STDERR_FILENO);
		close(master);
		execl(getenv("IBVF_BIN"), "ibvf", shared_sim, "vf", "guid", "--assign-all",
		      (char *)NULL);
		_exit(127);
	}
	close(slave);
	ck_assert_int_eq(write(master, "n\n", 2), 2);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	close(master);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	FILE *f = fdopen(log, "r");
	ck_assert_ptr_nonnull(f);
	rewind(f);
	size_t cap = strlen(plan) + 4096, len = 0;
	char *got = calloc(1, cap + 1);
	ck_assert_ptr_nonnull(got);
	len = fread(got, 1, cap, f);
	got[len] = '\0';
	fclose(f);
	unlink(path);
	const char *q = strstr(got, "Apply these ");
	ck_assert_msg(q, "no question: %s", got);
	ck_assert_msg((size_t)(q - got) == strlen(plan) && !strncmp(got, plan, strlen(plan)),
		      "the question at byte %td of the output, the plan is %zu bytes: %.*s",
		      q - got, strlen(plan), 200, q > got + 100 ? q - 100 : got);
	ck_assert_str_eq(q, "Apply these 96 steps (VF traffic is interrupted)? [y/N] nothing was "
			    "changed\n");
	free(got);
	free(plan);
}
END_TEST

/* `list` on a terminal drops the columns that do not fit its width (issue
 * 26: 222 columns wide), --wide keeps them all, a pipe gets them all. */
START_TEST(list_fits_its_terminal_or_wide)
{
	char *dir = tu_mkfixture(NULL), cmd[8600], out[4300];
	snprintf(out, sizeof(out), "%s/list.txt", dir);
	for (int wide = 0; wide < 2; wide++) {
		snprintf(cmd, sizeof(cmd),
			 "COLUMNS=100 script -qec \"'%s' --sim='%s' list%s\" /dev/null > '%s'",
			 getenv("IBVF_BIN"), dir, wide ? " --wide" : "", out);
		ck_assert_int_eq(system(cmd), 0);
		FILE *f = fopen(out, "re");
		ck_assert_ptr_nonnull(f);
		char line[4096];
		bool header = false;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\r\n")] = '\0';
			if (strstr(line, "DEVICE") && strstr(line, "NETDEV")) {
				header = true;
				ck_assert_msg(!wide == !strstr(line, "NODE GUID"), "%s", line);
				if (!wide)
					ck_assert_msg(strlen(line) <= 100, "%zu: %s", strlen(line),
						      line);
			}
		}
		fclose(f);
		ck_assert(header);
	}
	char *o, *e;
	ck_assert_int_eq(tu_sim_run(dir, &o, &e, "list", NULL), 0); /* a pipe */
	ck_assert_ptr_nonnull(strstr(o, "NODE GUID"));
	ck_assert_ptr_nonnull(strstr(o, "FIRMWARE"));
	free(o);
	free(e);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, list_json_parses_back_with_every_pf_and_vf);
	tcase_add_test(tc, list_text_is_an_aligned_tree);
	tcase_add_test(tc, version_and_help_behave_as_users_expect);
	tcase_add_loop_test(tc, bad_arguments_give_one_line_and_exit_2, 0,
			    sizeof(bad_args) / sizeof(bad_args[0]));
	tcase_add_test(tc, missing_root_is_a_clear_error);
	tcase_add_test(tc, bad_kubelet_options_name_the_option);
	tcase_add_test(tc, help_lists_every_command);
	tcase_add_loop_test(tc, each_command_has_its_help, 0, N_COMMANDS);
	tcase_add_loop_test(tc, mkfixture_takes_kernel_anywhere, 0, 2);
	suite_add_tcase(s, tc);
	TCase *shared = tcase_create("shared node");
	tcase_set_timeout(shared, 60);
	tcase_add_unchecked_fixture(shared, shared_setup, shared_teardown);
	tcase_add_loop_test(shared, global_options_before_or_after_every_command, 0,
			    sizeof(anywhere) / sizeof(anywhere[0]));
	tcase_add_loop_test(shared, every_name_form_resolves_the_same_in_vf, 0, 4);
	tcase_add_loop_test(shared, every_name_form_resolves_the_same_in_bench, 0, 4);
	tcase_add_test(shared, a_pod_with_two_vfs_is_ambiguous_in_vf_and_bench);
	tcase_add_test(shared, the_question_comes_after_the_whole_plan);
	tcase_add_test(tc, list_fits_its_terminal_or_wide);
	suite_add_tcase(s, shared);
	return tu_run_suite(s);
}
