// SPDX-License-Identifier: MIT
/* `ibvf persist`: the .link files and the boot unit, checked three ways: a
 * strict reader of our own (sections, keys, no {attr/...} templates, the
 * boot order), systemd-analyze verify on the unit, and udev's own link-file
 * parser (udevadm test-builtin net_setup_link on a veth in a private network
 * namespace, with the seed's broken file as the control; systemd 252 has no
 * `udevadm verify`, which came in 253). persist's refusals (findings, the
 * ibvf path, the dry check of the unit's commands) and its plan, journal
 * and undo are in test_persist_plan.c. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/persist/naming.h"
#include "core/actions/actions.h"
#include "core/model/node.h"
#include "core/persist/persist.h"
#include "core/sys/sys.h"
#include "persistutil.h"
#include "testutil.h"

static int ibvf(const char *dir, char **out, char **err, const char *a1, const char *a2,
		const char *a3, const char *a4, const char *a5)
{
	char sim[4096];
	snprintf(sim, sizeof(sim), "--sim=%s", dir);
	/* persist writes when told, as --output only runs with --yes */
	const char *argv[] = {
		sim, a1, a2, a3, a4, a5, a1 && !strcmp(a1, "persist") ? "--yes" : NULL, NULL};
	return tu_run(argv, out, err);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read '%s'", path);
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The healthy node's files, written fresh into out. */
static char *persisted(char **ret_out)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", NULL}), *o, *e;
	char *bin = pu_install(dir), *out;
	ck_assert_int_gt(asprintf(&out, "%s/out", dir), 0);
	int rc = ibvf(dir, &o, &e, "persist", "--output", out, "--ibvf", bin);
	ck_assert_msg(rc == 0, "persist: %s", e);
	free(o);
	free(e);
	free(bin);
	*ret_out = out;
	return dir;
}

/* Our reading of systemd.link(5) for what we write. */
static void check_link_file(const char *path, const char *text)
{
	char *copy = strdup(text), *save = NULL, section[32] = "";
	bool path_seen = false, name_seen = false;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '#')
			continue;
		if (l[0] == '[') {
			ck_assert_msg(!strcmp(l, "[Match]") || !strcmp(l, "[Link]"),
				      "%s: section %s", path, l);
			snprintf(section, sizeof(section), "%s", l);
			continue;
		}
		char *eq = strchr(l, '=');
		ck_assert_msg(eq && eq > l, "%s: not key=value: '%s'", path, l);
		*eq = '\0';
		const char *v = eq + 1;
		ck_assert_msg(!strchr(v, '{') && !strchr(v, '%') && !strchr(v, '$'),
			      "%s: template in '%s'", path, v);
		if (!strcmp(section, "[Match]")) {
			ck_assert_msg(!strcmp(l, "Path"), "%s: [Match] key %s", path, l);
			ck_assert_msg(!strncmp(v, "pci-0000:", 9) && strlen(v) == 16, "%s: Path=%s",
				      path, v);
			path_seen = true;
		} else {
			ck_assert_msg(!strcmp(section, "[Link]") && !strcmp(l, "Name"),
				      "%s: key %s", path, l);
			struct err e;
			ck_assert_msg(naming_check_ifname(v, &e) == 0, "%s: %s", path, e.msg);
			name_seen = true;
		}
	}
	ck_assert_msg(path_seen && name_seen, "%s: no Path= or no Name=", path);
	free(copy);
}

START_TEST(link_files_match_by_pci_path_and_name_no_kernel_names)
{
	char *out, *dir = persisted(&out), path[4200];
	DIR *d = opendir(out);
	ck_assert_ptr_nonnull(d);
	size_t links = 0;
	bool renamed = false;
	for (struct dirent *de; (de = readdir(d));) {
		size_t len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 5, ".link"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", out, de->d_name);
		char *t = slurp(path);
		check_link_file(path, t);
		renamed |= strstr(t, "Path=pci-0000:18:00.4\n\n[Link]\nName=ibp24s0v3\n") != NULL;
		ck_assert_msg(!strstr(t, "Name=ib0\n") && !strstr(t, "Name=ib7\n"),
			      "kernel name in %s", path);
		free(t);
		links++;
	}
	closedir(d);
	ck_assert(renamed);
	ck_assert_uint_eq(links, 64); /* every VF of the 8 PFs, the pod's one too */
	free(out);
	tu_rmtree(dir);
}
END_TEST

/* The unit's ExecStart lines in order: driver, settle, creates, GUIDs, settle. */
START_TEST(unit_runs_driver_vfs_guids_settle_before_kubelet)
{
	char *out, *dir = persisted(&out), path[4200];
	snprintf(path, sizeof(path), "%s/ibvf-sriov.service", out);
	char *t = slurp(path);
	ck_assert_ptr_null(strstr(t, "bash -c"));
	ck_assert_ptr_nonnull(strstr(t, "\nType=oneshot\n"));
	ck_assert_ptr_nonnull(strstr(t, "\nBefore=network-pre.target kubelet.service"));
	char want[4200];
	snprintf(want, sizeof(want), "\nExecStart=/usr/sbin/ibvf vf create 0000:18:00.0 8 --yes");
	ck_assert_msg(strstr(t, want), "not the installed path: %s", t);
	const char *mod = strstr(t, "ExecStart=/usr/sbin/modprobe -a mlx5_core\n");
	const char *settle1 = strstr(t, "settle --timeout=60\n");
	const char *create = strstr(t, " vf create 0000:18:00.0 8 --yes");
	const char *guid = strstr(t, " vf guid 0000:18:00.4 --node a088:c203:0018:0004 --port "
				     "a088:c203:0018:0004 --yes --force\n");
	const char *last = strstr(guid ? guid : t, "settle --timeout=60\n");
	ck_assert_msg(mod && settle1 && create && guid && last, "%s", t);
	ck_assert(mod < settle1 && settle1 < create && create < guid && guid < last);
	free(t);
	free(out);
	tu_rmtree(dir);
}
END_TEST

START_TEST(systemd_analyze_verify_accepts_the_unit)
{
	if (access("/usr/bin/systemd-analyze", X_OK) != 0) {
		printf("SKIP: no systemd-analyze\n");
		return;
	}
	char *out, *dir = persisted(&out), cmd[8600];
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && systemd-analyze verify --man=no ./ibvf-sriov.service 2>&1", out);
	FILE *p = popen(cmd, "r");
	char buf[4096] = "";
	size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	int rc = pclose(p);
	ck_assert_msg(rc == 0 && n == 0, "systemd-analyze verify: %d: %s", rc, buf);
	/* The control: verify does reject a broken unit. */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && printf '[Service]\\nExecStart=/nonexistent/ibvf vf create\\n' > "
		 "bad.service && "
		 "systemd-analyze verify --man=no ./bad.service >/dev/null 2>&1",
		 out);
	ck_assert_int_ne(system(cmd), 0);
	free(out);
	tu_rmtree(dir);
}
END_TEST

static const char seed_link[] =
	"[Match]\nDriver=mlx5_core\nProperty=DEVTYPE=vf\n\n"
	"[Link]\nName=mlx-{attr/phys_port_name}\n"
	"AlternativeName=k8s-vf-{attr/dev_port}\nMACAddressPolicy=persistent\n";

/* In the child (private net and mount namespaces): our files and a veth0
 * twin of the first one in /run/systemd/network, then udev's parser. */
static int udev_child(const char *out, const char *report)
{
	char cmd[9000];
	if (tu_private_net_and_run() < 0)
		return 10;
	snprintf(cmd, sizeof(cmd),
		 "set -e; mkdir -p /run/systemd/network /run/udev; "
		 "cp '%s'/70-ibvf-*.link /run/systemd/network/; "
		 "printf '[Match]\\nOriginalName=veth0\\n\\n[Link]\\nName=ibp24s0v3\\n' "
		 "> /run/systemd/network/69-veth-twin.link; "
		 "ip link add veth0 type veth peer name veth1; "
		 "udevadm test-builtin net_setup_link /sys/class/net/veth0 > '%s' 2>&1",
		 out, report);
	return system(cmd) == 0 ? 0 : 11;
}

START_TEST(udev_parses_the_link_files_and_rejects_the_seeds)
{
	if (geteuid() != 0 || access("/usr/bin/udevadm", X_OK) != 0 ||
	    access("/usr/sbin/ip", X_OK) != 0) {
		printf("SKIP: udev's parser needs root, udevadm and ip\n");
		return;
	}
	char *out, *dir = persisted(&out), report[4200], seed[4200];
	/* The control: the seed's file next to ours. */
	snprintf(seed, sizeof(seed), "%s/70-ibvf-zz-seed.link", out);
	tu_write(seed, seed_link);
	snprintf(report, sizeof(report), "%s/udev.txt", dir);
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(udev_child(out, report));
	int status;
	waitpid(pid, &status, 0);
	char *t = slurp(report);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: %s", status, t);
	ck_assert_msg(strstr(t, "Parsed configuration file \"/run/systemd/network/"
				"70-ibvf-0000-18-00.4.link\""),
		      "%s", t);
	ck_assert_msg(strstr(t, "ID_NET_NAME=ibp24s0v3"), "%s", t);
	/* Only the seed's lines are complained about. */
	size_t complaints = 0;
	for (const char *p = t; (p = strstr(p, "ignoring assignment")); p++) {
		const char *bol = p;
		while (bol > t && bol[-1] != '\n')
			bol--;
		ck_assert_msg(!strncmp(bol, "/run/systemd/network/70-ibvf-zz-seed.link", 41),
			      "complaint about our file: %.200s", bol);
		complaints++;
	}
	ck_assert_msg(complaints >= 1, "udev accepted the seed's {attr/...}: %s", t);
	free(t);
	free(out);
	tu_rmtree(dir);
}
END_TEST

START_TEST(default_output_is_under_the_root_and_dry_run_writes_nothing)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", NULL}), *o, *e, path[4200];
	char *bin = pu_install(dir);
	snprintf(path, sizeof(path), "%s/etc/systemd/network/70-ibvf-0000-18-00.4.link", dir);
	ck_assert_int_eq(unlink(path), 0);
	const char *argv[] = {"persist", "--dry-run", "--ibvf", bin, NULL};
	ck_assert_int_eq(pu_run(dir, argv, &o, &e), 0);
	ck_assert_ptr_nonnull(strstr(o, "    | Name=ibp24s0v3"));
	/* the fixture's own files are as they were */
	ck_assert_int_ne(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/etc/systemd/system/ibvf-sriov.service", dir);
	char *unit = slurp(path);
	ck_assert_ptr_nonnull(strstr(unit, "ExecStart=/usr/sbin/ibvf vf create "));
	free(unit);
	free(o);
	free(e);
	/* A stale file of ours goes; a file of someone else's stays. */
	snprintf(path, sizeof(path),
		 "mkdir -p '%s/etc/systemd/network' && touch "
		 "'%s/etc/systemd/network/70-ibvf-0000-99-00.1.link' "
		 "'%s/etc/systemd/network/10-other.link'",
		 dir, dir, dir);
	ck_assert_int_eq(system(path), 0);
	const char *yes[] = {"persist", "--yes", "--ibvf", bin, NULL};
	ck_assert_int_eq(pu_run(dir, yes, &o, &e), 0);
	snprintf(path, sizeof(path), "%s/etc/systemd/network/70-ibvf-0000-18-00.4.link", dir);
	ck_assert_int_eq(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/etc/systemd/network/70-ibvf-0000-99-00.1.link", dir);
	ck_assert_int_ne(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/etc/systemd/network/10-other.link", dir);
	ck_assert_int_eq(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/etc/systemd/system/ibvf-sriov.service", dir);
	unit = slurp(path);
	ck_assert_ptr_nonnull(strstr(unit, "/usr/sbin/ibvf vf create 0000:c0:00.0 8 "));
	free(unit);
	free(o);
	free(e);
	free(bin);
	tu_rmtree(dir);
}
END_TEST

/* A PCI address goes into the unit's command lines and a .link file's Path=
 * as one word, and a planted tree can name a device anything: one that is no
 * canonical address (a glob that would match every netdev, a newline that
 * would add a line) is refused, naming what is wrong (found by fuzz_unit). */
START_TEST(a_function_named_no_pci_address_is_refused)
{
	static const char *const bad[] = {"0000:18:00.2 *", "0000:18:00.0\nEx", "", "0000:18:00.A"};
	char *dir = tu_mkfixture((const char *const[]){"--healthy", NULL});
	struct persist_opts po = {.ibvf = "/usr/local/sbin/ibvf"};
	struct sys *s;
	struct node *n;
	struct err e;
	ck_assert_msg(sys_open_sim(dir, NULL, &s, &e) == 0, "open: %s", e.msg);
	ck_assert_msg(node_discover(s, &n, &e) == 0, "discover: %s", e.msg);
	ck_assert_uint_gt(n->pfs[0].n_vfs, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fn *f = i % 2 ? &n->pfs[0].fn : &n->pfs[0].vfs[0].fn;
		char was[16];
		struct persist *ps = NULL;
		memcpy(was, f->bdf, sizeof(was));
		snprintf(f->bdf, sizeof(f->bdf), "%s", bad[i]);
		ck_assert_int_eq(persist_build(n, &po, &ps, &e), -EINVAL);
		ck_assert_ptr_null(ps);
		ck_assert_msg(strstr(e.msg, "not a PCI address") && !strchr(e.msg, '\n'), "%s",
			      e.msg);
		memcpy(f->bdf, was, sizeof(was));
	}
	node_free(n);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

/* A driver's name stands in the unit's modprobe line: one that reads as an
 * option (a planted driver link "-r") stays out of it (found by fuzz_unit). */
START_TEST(a_driver_named_like_an_option_is_not_loaded)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", NULL});
	struct persist_opts po = {.ibvf = "/usr/local/sbin/ibvf"};
	struct sys *s;
	struct node *n;
	struct persist *ps;
	struct err e;
	ck_assert_msg(sys_open_sim(dir, NULL, &s, &e) == 0, "open: %s", e.msg);
	ck_assert_msg(node_discover(s, &n, &e) == 0, "discover: %s", e.msg);
	char *was[64];
	ck_assert_uint_le(n->n_pfs, 64);
	for (size_t i = 0; i < n->n_pfs; i++) {
		was[i] = n->pfs[i].fn.driver;
		n->pfs[i].fn.driver = "-r";
	}
	ck_assert_msg(persist_build(n, &po, &ps, &e) == 0, "%s", e.msg);
	for (size_t i = 0; i < n->n_pfs; i++)
		n->pfs[i].fn.driver = was[i];
	const char *unit = ps->files[ps->n_files - 1].content, *mp = strstr(unit, "modprobe");
	ck_assert_msg(!mp, "the unit runs '%.*s'", (int)strcspn(mp ? mp : "", "\n"), mp);
	persist_free(ps);
	node_free(n);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("persist");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, link_files_match_by_pci_path_and_name_no_kernel_names);
	tcase_add_test(tc, unit_runs_driver_vfs_guids_settle_before_kubelet);
	tcase_add_test(tc, systemd_analyze_verify_accepts_the_unit);
	tcase_add_test(tc, udev_parses_the_link_files_and_rejects_the_seeds);
	tcase_add_test(tc, default_output_is_under_the_root_and_dry_run_writes_nothing);
	tcase_add_test(tc, a_function_named_no_pci_address_is_refused);
	tcase_add_test(tc, a_driver_named_like_an_option_is_not_loaded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
