// SPDX-License-Identifier: MIT
/* A captured tree read with --root (issue 14, item 7) is data, not a
 * node ibvf trusts: a FIFO where a file should be does not hang discovery,
 * and a symbolic link, absolute or climbing with '..', resolves inside the
 * tree, never on the host; a tree without a hostname or a kernel release
 * says so without passing NULL to printf. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/model/node.h"
#include "core/sys/sys.h"
#include "testutil.h"

static const char *const healthy[] = {"--healthy", NULL};

/* Discovers dir as a captured tree; 0 or the negative errno. */
static int discover_root(const char *dir, struct node **ret)
{
	struct sys *s;
	struct err e = {{0}};
	int r = sys_open_linux(dir, &s, &e);
	if (r < 0)
		return r;
	r = node_discover(s, ret, &e);
	sys_close(s);
	return r;
}

/* A first discovery of the clean tree sizes the bound: a blocked open
 * never returns, so any multiple of a finished run tells the two apart. */
static double bound_s(const char *dir)
{
	struct node *n;
	double t0 = tu_now_s();
	ck_assert_int_eq(discover_root(dir, &n), 0);
	double took = tu_now_s() - t0;
	node_free(n);
	const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
	double mult = m && atof(m) > 0 ? atof(m) : 1;
	return (2 + 20 * took) * mult;
}

/* Discovery in a child, killed after limit seconds: true when it finished. */
static bool discovers_within(const char *dir, double limit, int *ret_status)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct node *n;
		_exit(discover_root(dir, &n) == 0 ? 0 : 1);
	}
	double end = tu_now_s() + limit;
	int status;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (tu_now_s() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return false;
		}
		usleep(10000);
	}
	*ret_status = status;
	return true;
}

static void put_fifo(const char *dir, const char *rel)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	ck_assert_msg(unlink(p) == 0 || errno == ENOENT, "%s: %s", p, strerror(errno));
	ck_assert_msg(mkfifo(p, 0644) == 0, "%s: %s", p, strerror(errno));
}

static const char *const fifo_at[] = {
	"sys/class/infiniband/mlx5_0/fw_ver",
	"var/lib/kubelet/device-plugins/kubelet_internal_checkpoint",
	"dev/kmsg",
	"proc/sys/kernel/hostname",
};

/* Each file the seeded node has, turned into a FIFO with no writer. */
START_TEST(fifo_does_not_hang_discovery)
{
	char *dir = tu_mkfixture(healthy);
	double limit = bound_s(dir);
	char p[4200];
	snprintf(p, sizeof(p), "%s/%s", dir, fifo_at[_i]);
	struct stat st;
	ck_assert_msg(stat(p, &st) == 0 && S_ISREG(st.st_mode), "%s: not in the fixture", p);
	put_fifo(dir, fifo_at[_i]);
	int status = 0;
	ck_assert_msg(discovers_within(dir, limit, &status),
		      "discovery of a tree with a FIFO at '%s' did not finish in %.1f s",
		      fifo_at[_i], limit);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "discovery with a FIFO at '%s' failed (status %d)", fifo_at[_i], status);
	tu_rmtree(dir);
}
END_TEST

/* A character device where the kernel log was captured: a tree from a tar
 * of a node's /dev holds one. Under --root it is not the node's log (it
 * would be this host's, or /dev/zero's endless bytes): refused, not read. */
START_TEST(char_device_in_the_tree_is_not_read)
{
	char *dir = tu_mkfixture(healthy);
	double limit = bound_s(dir);
	char p[4200];
	snprintf(p, sizeof(p), "%s/dev/kmsg", dir);
	ck_assert_msg(unlink(p) == 0, "%s: %s", p, strerror(errno));
	if (mknod(p, S_IFCHR | 0644, makedev(1, 5)) < 0) { /* /dev/zero */
		fprintf(stderr, "char_device_in_the_tree_is_not_read: skipped: mknod: %s\n",
			strerror(errno));
		tu_rmtree(dir);
		return;
	}
	int status = 0;
	ck_assert_msg(discovers_within(dir, limit, &status),
		      "discovery of a tree with /dev/zero at 'dev/kmsg' did not finish in %.1f s",
		      limit);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "discovery with a device at 'dev/kmsg' failed (status %d)", status);
	tu_rmtree(dir);
}
END_TEST

/* A captured tree is read, never acted on: a rename of one of its VFs
 * would go to this host's kernel by netlink (a host link of the same name
 * renamed). Refused, naming the tree, before any netlink request. */
START_TEST(actions_do_not_reach_the_host)
{
	char *dir = tu_mkfixture(NULL), opt[4200], *out, *err;
	snprintf(opt, sizeof(opt), "--root=%s", dir);
	const char *const cmds[][6] = {
		{opt, "vf", "rename", "0000:9a:00.1", "x0", "--yes"},
		{opt, "vf", "state", "0000:9a:00.1", "enable", "--yes"},
	};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		const char *argv[] = {cmds[i][0], cmds[i][1], cmds[i][2], cmds[i][3],
				      cmds[i][4], cmds[i][5], NULL};
		int rc = tu_run(argv, &out, &err);
		ck_assert_msg(rc != 0 && strstr(err, "captured tree") && strstr(err, dir),
			      "%s %s: rc %d: %s", cmds[i][1], cmds[i][2], rc, err);
		free(out);
		free(err);
	}
	tu_rmtree(dir);
}
END_TEST

static void relink(const char *dir, const char *rel, const char *target)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	ck_assert_msg(unlink(p) == 0 || errno == ENOENT, "%s: %s", p, strerror(errno));
	ck_assert_msg(symlink(target, p) == 0, "%s: %s", p, strerror(errno));
}

/* hostname -> /etc/hostname reads ROOT/etc/hostname; osrelease climbing
 * out with '..' stops at the tree's top, as it would at '/'. */
START_TEST(links_resolve_inside_the_root)
{
	char *dir = tu_mkfixture(healthy);
	tu_put(dir, "etc/hostname", "inside-the-root\n");
	tu_put(dir, "etc/ibvf-test-osrelease", "6.99.0-inside\n");
	relink(dir, "proc/sys/kernel/hostname", "/etc/hostname");
	relink(dir, "proc/sys/kernel/osrelease",
	       "../../../../../../../../../../etc/ibvf-test-osrelease");
	struct node *n;
	ck_assert_int_eq(discover_root(dir, &n), 0);
	ck_assert_msg(n->hostname && !strcmp(n->hostname, "inside-the-root"), "hostname '%s'",
		      n->hostname ? n->hostname : "(none)");
	ck_assert_msg(n->kernel && !strcmp(n->kernel, "6.99.0-inside"), "kernel '%s'",
		      n->kernel ? n->kernel : "(none)");
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

/* Existence, listing and readlink through a directory link pointing at
 * the host's '/': all answered from the tree. */
START_TEST(every_read_stays_inside_the_root)
{
	char *dir = tu_mkfixture(healthy);
	char rootetc[4200];
	snprintf(rootetc, sizeof(rootetc), "%s/etc", dir);
	relink(dir, "var/host", "/");
	struct sys *s;
	struct err e = {{0}};
	ck_assert_int_eq(sys_open_linux(dir, &s, &e), 0);
	/* The host has /proc/self; the tree has no proc/self. */
	ck_assert_int_eq(access("/proc/self/exe", F_OK), 0);
	ck_assert_int_eq(sys_exists(s, "/var/host/proc/self/exe"), -ENOENT);
	char buf[256];
	ck_assert_int_lt(sys_readlink(s, "/var/host/proc/self/exe", buf, sizeof(buf)), 0);
	char **names;
	size_t nn;
	ck_assert_int_eq(sys_list(s, "/var/host", &names, &nn), 0);
	bool tree_only = true;
	for (size_t i = 0; i < nn; i++)
		tree_only &=
			strcmp(names[i], "boot") && strcmp(names[i], "bin"); /* the tree has usr/ */
	ck_assert_msg(tree_only, "listing '/var/host' showed the host's '/'");
	sys_list_free(names, nn);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

/* No hostname, no osrelease: the header says '?', never "(null)". */
START_TEST(missing_hostname_is_not_null)
{
	char *dir = tu_mkfixture(healthy);
	char p[4200];
	snprintf(p, sizeof(p), "%s/proc/sys/kernel/hostname", dir);
	ck_assert_int_eq(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/proc/sys/kernel/osrelease", dir);
	ck_assert_int_eq(unlink(p), 0);
	static const char *const cmds[][2] = {{"list", NULL}, {"check", NULL}};
	for (size_t i = 0; i < 2; i++) {
		const char *argv[] = {"--root", dir, cmds[i][0], NULL};
		char *out, *err;
		tu_run(argv, &out, &err);
		ck_assert_msg(!strstr(out, "(null)") && !strstr(err, "(null)"), "%s: %s%s",
			      cmds[i][0], out, err);
		ck_assert_msg(strstr(out, "host ?  kernel ?"), "%s: %s", cmds[i][0], out);
		free(out);
		free(err);
	}
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("root");
	TCase *tc = tcase_create("root");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, fifo_does_not_hang_discovery, 0,
			    (int)(sizeof(fifo_at) / sizeof(fifo_at[0])));
	tcase_add_test(tc, char_device_in_the_tree_is_not_read);
	tcase_add_test(tc, actions_do_not_reach_the_host);
	tcase_add_test(tc, links_resolve_inside_the_root);
	tcase_add_test(tc, every_read_stays_inside_the_root);
	tcase_add_test(tc, missing_hostname_is_not_null);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
