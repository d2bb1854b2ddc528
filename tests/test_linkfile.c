// SPDX-License-Identifier: MIT
/* systemd .link files and ibvf's boot unit read back (core/persist/linkfile.c,
 * core/snapshot/persist_read.c): real-world file contents, systemd's precedence and
 * matching, and what `ibvf persist` writes parsing and pinning. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/persist/boot.h"
#include "core/persist/linkfile.h"
#include "core/model/node.h"
#include "core/persist/persist.h"
#include "core/sys/sys.h"
#include "testutil.h"

/* The seed's file: Name= with a template systemd does not expand. */
static const char seed_70[] = "[Match]\n"
			      "Driver=mlx5_core\n"
			      "Property=DEVTYPE=vf\n"
			      "\n"
			      "[Link]\n"
			      "Name=mlx-{attr/phys_port_name}\n"
			      "AlternativeName=k8s-vf-{attr/dev_port}\n"
			      "MACAddressPolicy=persistent\n";

static struct fn vf_fn(const char *bdf, const char *driver, struct netdev *nd)
{
	struct fn f = {.driver = (char *)driver, .netdevs = nd, .n_netdevs = nd ? 1 : 0};
	snprintf(f.bdf, sizeof(f.bdf), "%s", bdf);
	return f;
}

START_TEST(linkfile_parses_match_lists_and_link_name)
{
	struct link_file lf;
	ck_assert_int_eq(
		linkfile_parse(
			"/etc/systemd/network/10-x.link",
			"# comment\n"
			"; another\n"
			"[Match]\n"
			"Path=pci-0000:18:00.4 pci-0000:18:00.5\n"
			"OriginalName=!eth* ib*\n"
			"MACAddress=00:00:10:87:fe:80:00:00:00:00:00:00:02:c9:03:00:ab:cd:ef:01\n"
			"Driver=mlx5_core\n"
			"\n"
			"[Link]\n"
			"NamePolicy=keep\n"
			"Name=ibp24s0v3\n",
			&lf),
		0);
	ck_assert_str_eq(lf.path, "/etc/systemd/network/10-x.link");
	ck_assert_uint_eq(lf.n_match_path, 2);
	ck_assert_str_eq(lf.match_path[1], "pci-0000:18:00.5");
	ck_assert_uint_eq(lf.n_match_original_name, 2);
	ck_assert_str_eq(lf.match_original_name[0], "!eth*");
	ck_assert_str_eq(lf.match_original_name[1], "!ib*");
	ck_assert_uint_eq(lf.n_match_mac, 1);
	ck_assert_uint_eq(lf.n_match_driver, 1);
	ck_assert_str_eq(lf.name, "ibp24s0v3");
	ck_assert_str_eq(lf.name_policy, "keep");
	ck_assert(!lf.match_other);
	linkfile_fini(&lf);
}
END_TEST

START_TEST(linkfile_matches_as_systemd)
{
	struct netdev nd = {.name = "ib7",
			    .address = "00:00:10:87:FE:80:00:00:00:00:00:00:02:c9:03:"
				       "00:ab:cd:ef:01"};
	struct fn f = vf_fn("0000:18:00.4", "mlx5_core", &nd);
	struct link_file lf;
	ck_assert_int_eq(linkfile_parse("a.link", "[Match]\nPath=pci-0000:18:00.*\n", &lf), 0);
	ck_assert(linkfile_matches(&lf, &f, "ib7"));
	linkfile_fini(&lf);
	ck_assert_int_eq(linkfile_parse("a.link", "[Match]\nPath=pci-0000:5e:00.*\n", &lf), 0);
	ck_assert(!linkfile_matches(&lf, &f, "ib7"));
	linkfile_fini(&lf);
	/* a negated list matches what it does not name */
	ck_assert_int_eq(linkfile_parse("a.link", "[Match]\nOriginalName=!eth*\n", &lf), 0);
	ck_assert(linkfile_matches(&lf, &f, "ib7"));
	ck_assert(!linkfile_matches(&lf, &f, "eth3"));
	linkfile_fini(&lf);
	/* every key must match; an empty value resets a list */
	ck_assert_int_eq(
		linkfile_parse("a.link",
			       "[Match]\nDriver=mlx4_core\nDriver=\nDriver=mlx5_*\n"
			       "MACAddress=00-00-10-87-fe-80-00-00-00-00-00-00-02-C9-03-00-"
			       "AB-CD-EF-01\n",
			       &lf),
		0);
	ck_assert_uint_eq(lf.n_match_driver, 1);
	ck_assert(linkfile_matches(&lf, &f, "ib7"));
	struct fn nodrv = vf_fn("0000:18:00.4", NULL, &nd);
	ck_assert(!linkfile_matches(&lf, &nodrv, "ib7"));
	linkfile_fini(&lf);
	/* systemd ignores a file without match keys */
	ck_assert_int_eq(linkfile_parse("a.link", "[Match]\n[Link]\nName=x\n", &lf), 0);
	ck_assert(!linkfile_matches(&lf, &f, "ib7"));
	linkfile_fini(&lf);
	/* a key ibvf cannot evaluate is taken to match */
	ck_assert_int_eq(linkfile_parse("70-dgx-sriov-vf.link", seed_70, &lf), 0);
	ck_assert(lf.match_other);
	ck_assert(linkfile_matches(&lf, &f, "ib7"));
	ck_assert_str_eq(lf.name, "mlx-{attr/phys_port_name}");
	linkfile_fini(&lf);
}
END_TEST

/* The next boot's name for VF 3 of PF 0000:18:00.0 (an IPoIB netdev named
 * ifname) on a node of that one VF with the given files, in order. */
static struct boot_name predict(struct link_file *files, size_t n, const char *ifname)
{
	struct netdev nd = {.name = (char *)ifname, .type = {.known = true, .v = 32}};
	struct vf vf = {.index = 3, .fn = vf_fn("0000:18:00.4", "mlx5_core", &nd)};
	struct pf pf = {.vfs = &vf, .n_vfs = 1};
	snprintf(pf.fn.bdf, sizeof(pf.fn.bdf), "0000:18:00.0");
	struct node node = {.link_files = files, .n_link_files = n, .pfs = &pf, .n_pfs = 1};
	struct boot_name b;
	ck_assert_int_eq(boot_vf_name(&node, NULL, &pf, &vf, &b), 0);
	return b;
}

START_TEST(the_first_matching_file_alone_names_it_at_boot)
{
	struct link_file lf[3];
	ck_assert_int_eq(
		linkfile_parse("/etc/systemd/network/70-dgx-sriov-vf.link", seed_70, &lf[0]), 0);
	ck_assert_int_eq(linkfile_parse("/etc/systemd/network/71-dgx-pci-vf.link",
					"[Match]\nPath=pci-0000:*:*.*\nDriver=mlx5_core\n"
					"Property=ID_NET_NAME_SLOT=*v*\n\n[Link]\nNamePolicy=keep\n"
					"Name=sriov-{phys_port_name}\n",
					&lf[1]),
			 0);
	ck_assert_int_eq(linkfile_parse("/usr/lib/systemd/network/99-default.link",
					"[Match]\nOriginalName=*\n\n[Link]\n"
					"NamePolicy=keep kernel database onboard slot path\n"
					"AlternativeNamesPolicy=database onboard slot path\n"
					"MACAddressPolicy=persistent\n",
					&lf[2]),
			 0);
	/* The seed's file comes first: its literal "mlx-{attr/...}" is no
	 * interface name (systemd.link has no such template), so the VF keeps
	 * the kernel's name, and the files after it are not applied. */
	struct boot_name b = predict(lf, 3, "ib7");
	ck_assert_int_eq(b.source, BOOT_NAME_NONE);
	ck_assert_ptr_eq(b.file, &lf[0]);
	ck_assert_str_eq(b.name, "");
	ck_assert_ptr_eq(b.shadowed, &lf[1]);
	/* Without it, 71: keep gives nothing to a new netdev, and its Name= is
	 * longer than an interface name may be. */
	b = predict(lf + 1, 2, "ib7");
	ck_assert_int_eq(b.source, BOOT_NAME_NONE);
	ck_assert_ptr_eq(b.file, &lf[1]);
	/* Only 99-default: keep and kernel give nothing (ib7 is an enumerated
	 * name), database/onboard/slot nothing here, path the PCI path name. */
	b = predict(lf + 2, 1, "ib7");
	ck_assert_int_eq(b.source, BOOT_NAME_POLICY);
	ck_assert_str_eq(b.policy, "path");
	ck_assert_str_eq(b.name, "ibp24s0v3");
	/* No file: the kernel's name. */
	b = predict(NULL, 0, "ib7");
	ck_assert_int_eq(b.source, BOOT_NAME_NO_FILE);
	ck_assert_ptr_null(b.file);
	/* Name= under a path policy: the policy names it. */
	struct link_file pol;
	ck_assert_int_eq(linkfile_parse("/etc/systemd/network/x.link",
					"[Match]\nPath=pci-0000:18:00.4\n[Link]\n"
					"NamePolicy=path\nName=keepme\n",
					&pol),
			 0);
	b = predict(&pol, 1, "ib7");
	ck_assert_str_eq(b.name, "ibp24s0v3");
	linkfile_fini(&pol);
	/* The site's file of issue 26: NamePolicy=kernel for a whole PF's
	 * functions, before ibvf's own file that names the VF. */
	struct link_file two[2];
	ck_assert_int_eq(linkfile_parse("/etc/systemd/network/60-site-mlx.link",
					"[Match]\nPath=pci-0000:18:*\n[Link]\nNamePolicy=kernel\n",
					&two[0]),
			 0);
	ck_assert_int_eq(linkfile_parse("/etc/systemd/network/70-ibvf-0000-18-00.4.link",
					"[Match]\nPath=pci-0000:18:00.4\n\n[Link]\n"
					"Name=ibp24s0v3\n",
					&two[1]),
			 0);
	b = predict(two, 2, "ibp24s0v3");
	ck_assert_int_eq(b.source, BOOT_NAME_NONE);
	ck_assert_ptr_eq(b.file, &two[0]);
	ck_assert_ptr_eq(b.shadowed, &two[1]);
	b = predict(two + 1, 1, "ibp24s0v3");
	ck_assert_int_eq(b.source, BOOT_NAME_NAME);
	ck_assert_str_eq(b.name, "ibp24s0v3");
	for (int i = 0; i < 2; i++)
		linkfile_fini(&two[i]);
	for (int i = 0; i < 3; i++)
		linkfile_fini(&lf[i]);
}
END_TEST

static void mkdirs(const char *root, const char *rel)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	mkdir(path, 0755);
}

static void put(const char *root, const char *rel, const char *content)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	tu_write(path, content);
}

START_TEST(linkfile_read_all_in_systemd_order)
{
	char root[] = "/tmp/ibvf-linkfile-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	mkdirs(root, "etc/systemd/network");
	mkdirs(root, "run/systemd/network");
	mkdirs(root, "usr/lib/systemd/network");
	mkdirs(root, "lib/systemd/network");
	put(root, "usr/lib/systemd/network/99-default.link",
	    "[Match]\nOriginalName=*\n[Link]\nNamePolicy=keep kernel database onboard slot path\n");
	put(root, "usr/lib/systemd/network/50-masked.link", "[Match]\nOriginalName=*\n");
	put(root, "lib/systemd/network/50-masked.link", "[Match]\nOriginalName=*\n");
	put(root, "run/systemd/network/70-a.link",
	    "[Match]\nPath=pci-0000:18:00.4\n[Link]\n"
	    "Name=from-run\n");
	put(root, "usr/lib/systemd/network/70-a.link",
	    "[Match]\nPath=pci-0000:18:00.4\n"
	    "[Link]\nName=from-usr\n");
	put(root, "etc/systemd/network/10-first.link",
	    "[Match]\nPath=pci-0000:5e:00.*\n"
	    "[Link]\nName=five\n");
	put(root, "etc/systemd/network/README", "not a link file");
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/etc/systemd/network/50-masked.link", root);
	ck_assert_int_eq(symlink("/dev/null", path), 0);

	struct sys *s;
	struct err e;
	ck_assert_int_eq(sys_open_linux(root, &s, &e), 0);
	struct link_file *v;
	size_t n;
	ck_assert_int_eq(linkfile_read_all(s, &v, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(v[0].path, "/etc/systemd/network/10-first.link");
	ck_assert_str_eq(v[1].path, "/run/systemd/network/70-a.link");
	ck_assert_str_eq(v[1].name, "from-run");
	ck_assert_str_eq(v[2].path, "/usr/lib/systemd/network/99-default.link");
	linkfile_free_all(v, n);
	sys_close(s);
	char *dir = strdup(root);
	tu_rmtree(dir);
}
END_TEST

static struct node *discover(const char *dir)
{
	struct sys *s;
	struct err e;
	ck_assert_msg(sys_open_sim(dir, NULL, &s, &e) == 0, "open: %s", e.msg);
	struct node *n;
	ck_assert_msg(node_discover(s, &n, &e) == 0, "discover: %s", e.msg);
	sys_close(s);
	return n;
}

/* `ibvf persist` writes under the node's /etc: discovery reads its files
 * back, they pin the names they give, and the unit's counts are the PFs'. */
START_TEST(persist_output_parses_and_pins)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", NULL}), *o, *er;
	const char *bin = "/usr/sbin/ibvf"; /* the node's (a stand-in): persist checks it */
	ck_assert_int_eq(tu_sim_run(dir, &o, &er, "vf", "rename", "0000:18:00.4", "ibp24s0v9",
				    "--yes", NULL),
			 0);
	free(o);
	free(er);
	int rc = tu_sim_run(dir, &o, &er, "persist", "--yes", "--ibvf", bin, NULL);
	ck_assert_msg(rc == 0, "%s", er);
	free(o);
	free(er);
	struct node *n = discover(dir);
	ck_assert_str_eq(n->persist_unit, "/etc/systemd/system/ibvf-sriov.service");
	size_t with_vfs = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		with_vfs += pf->sriov && pf->n_vfs;
		for (size_t j = 0; j < n->n_persisted; j++)
			if (!strcmp(n->persisted[j].bdf, pf->fn.bdf))
				ck_assert_uint_eq(n->persisted[j].numvfs, pf->n_vfs);
	}
	ck_assert_uint_eq(n->n_persisted, with_vfs);
	const struct pf *pf = node_find_pf(n, "0000:18:00.0");
	const struct fn *f = node_find_fn(n, "0000:18:00.4", NULL, NULL);
	ck_assert_ptr_nonnull(pf);
	ck_assert_ptr_nonnull(f);
	const struct vf *vf = NULL;
	ck_assert_ptr_nonnull(node_find_fn(n, "0000:18:00.4", NULL, &vf));
	struct boot_name b;
	ck_assert_int_eq(boot_vf_name(n, NULL, pf, vf, &b), 0);
	ck_assert_str_eq(b.name, "ibp24s0v9");
	ck_assert_str_eq(b.file->path, "/etc/systemd/network/70-ibvf-0000-18-00.4.link");
	ck_assert(boot_vf_name_kept(n, pf, vf));
	/* a VF of the same PF with another address is not named by it */
	const struct vf *other = NULL;
	ck_assert_ptr_nonnull(node_find_fn(n, "0000:18:00.5", NULL, &other));
	ck_assert_int_eq(boot_vf_name(n, NULL, pf, other, &b), 0);
	ck_assert(strcmp(b.name, "ibp24s0v9"));
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

START_TEST(persist_read_tolerates_hand_edits)
{
	char root[] = "/tmp/ibvf-unit-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	mkdirs(root, "etc/systemd/system/ibvf-sriov.service.d");
	put(root, "etc/systemd/system/ibvf-sriov.service",
	    "[Unit]\nDescription=ibvf\n# ExecStart=/x vf create 0000:01:00.0 9\n"
	    "[Service]\nType=oneshot\n"
	    "ExecStart=/usr/sbin/modprobe -a mlx5_core\n"
	    "ExecStart=/usr/local/bin/ibvf vf create 0000:18:00.0 16 --yes --timeout 120\n"
	    "ExecStart = -/usr/local/bin/ibvf  vf  create  0000:5E:00.0  \\\n  8 --yes\n"
	    "ExecStart=/usr/local/bin/ibvf vf create mlx5_3 8 --yes\n"
	    "ExecStart=/usr/local/bin/ibvf vf create 0000:9a:00.0 many\n"
	    "ExecStart=/usr/local/bin/ibvf vf create 0000:18:00.0 12 --yes\n"
	    "ExecStart=/usr/local/bin/ibvf vf guid 0000:18:00.1 --node 1 --port 2\n"
	    "[Install]\nWantedBy=multi-user.target\n");
	put(root, "etc/systemd/system/ibvf-sriov.service.d/10-more.conf",
	    "[Service]\nExecStart=/usr/local/bin/ibvf vf create 0000:c0:00.0 4 --yes\n");
	struct sys *s;
	struct err e;
	ck_assert_int_eq(sys_open_linux(root, &s, &e), 0);
	struct node *n = calloc(1, sizeof(*n));
	ck_assert_int_eq(persist_read(s, n), 0);
	ck_assert_str_eq(n->persist_unit, "/etc/systemd/system/ibvf-sriov.service");
	ck_assert_uint_eq(n->n_persisted, 3);
	ck_assert_str_eq(n->persisted[0].bdf, "0000:18:00.0");
	ck_assert_uint_eq(n->persisted[0].numvfs, 12); /* the last line wins */
	ck_assert_str_eq(n->persisted[1].bdf, "0000:5e:00.0");
	ck_assert_uint_eq(n->persisted[1].numvfs, 8);
	ck_assert_str_eq(n->persisted[2].bdf, "0000:c0:00.0");
	node_free(n);
	/* an empty ExecStart= in a drop-in forgets the unit's */
	put(root, "etc/systemd/system/ibvf-sriov.service.d/20-reset.conf",
	    "[Service]\nExecStart=\nExecStart=/usr/local/bin/ibvf vf create 0000:18:00.0 2\n");
	n = calloc(1, sizeof(*n));
	ck_assert_int_eq(persist_read(s, n), 0);
	ck_assert_uint_eq(n->n_persisted, 1);
	ck_assert_uint_eq(n->persisted[0].numvfs, 2);
	node_free(n);
	sys_close(s);
	char *dir = strdup(root);
	tu_rmtree(dir);
}
END_TEST

static const char site_text[] = "[Match]\nDriver=veth\n\n[Link]\nNamePolicy=kernel\n";
static const char pin_text[] = "[Match]\nDriver=veth\n\n[Link]\nName=vethpinned\n";

/* In a child with its own network and mount namespaces: the files in
 * /run/systemd/network (the site's only when site), a veth, and what
 * systemd-udevd's net_setup_link makes of it, into report. */
static int real_udev(bool site, const char *report)
{
	char cmd[4600];
	if (tu_private_net_and_run() < 0)
		return 10;
	snprintf(cmd, sizeof(cmd),
		 "set -e; mkdir -p /run/systemd/network /run/udev; "
		 "printf '%%s' '%s' > /run/systemd/network/70-ibvf-veth.link; %s"
		 "ip link add veth0 type veth peer name veth1; "
		 "udevadm test-builtin net_setup_link /sys/class/net/veth0 > '%s' 2>&1",
		 pin_text,
		 site ? "printf '%s' '[Match]\nDriver=veth\n\n[Link]\nNamePolicy=kernel\n' > "
			"/run/systemd/network/60-site.link; "
		      : "",
		 report);
	return system(cmd) == 0 ? 0 : 11;
}

static char *udev_report(bool site)
{
	char report[] = "/tmp/ibvf-udev-XXXXXX";
	int fd = mkstemp(report);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(real_udev(site, report));
	int status;
	waitpid(pid, &status, 0);
	FILE *f = fopen(report, "re");
	char *t = calloc(1, 1 << 16);
	if (f) {
		t[fread(t, 1, (1 << 16) - 1, f)] = '\0';
		fclose(f);
	}
	unlink(report);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: %s", status, t);
	return t;
}

/* The prediction's rule against the real systemd-udevd (net_setup_link):
 * the first matching file is applied, alone; a later one naming the netdev
 * is not, until the earlier one goes. */
START_TEST(real_udev_applies_the_file_the_prediction_names)
{
	if (geteuid() != 0 || access("/usr/bin/udevadm", X_OK) != 0 ||
	    access("/usr/sbin/ip", X_OK) != 0) {
		printf("SKIP: udev's net_setup_link needs root, udevadm and ip\n");
		return;
	}
	struct link_file lf[2];
	ck_assert_int_eq(linkfile_parse("/run/systemd/network/60-site.link", site_text, &lf[0]), 0);
	ck_assert_int_eq(linkfile_parse("/run/systemd/network/70-ibvf-veth.link", pin_text, &lf[1]),
			 0);
	struct netdev nd = {.name = (char *)"veth0"};
	struct vf vf = {.index = 0, .fn = vf_fn("0000:18:00.4", "veth", &nd)};
	struct pf pf = {.vfs = &vf, .n_vfs = 1};
	snprintf(pf.fn.bdf, sizeof(pf.fn.bdf), "0000:18:00.0");
	struct node node = {.link_files = lf, .n_link_files = 2, .pfs = &pf, .n_pfs = 1};
	struct boot_name b;
	ck_assert_int_eq(boot_vf_name(&node, NULL, &pf, &vf, &b), 0);
	char *t = udev_report(true);
	ck_assert_ptr_eq(b.file, &lf[0]);
	ck_assert_ptr_eq(b.shadowed, &lf[1]);
	ck_assert_msg(strstr(t, "ID_NET_LINK_FILE=/run/systemd/network/60-site.link"), "%s", t);
	ck_assert_msg(!strstr(t, "ID_NET_NAME=vethpinned"), "%s", t);
	free(t);
	node.link_files = &lf[1];
	node.n_link_files = 1;
	ck_assert_int_eq(boot_vf_name(&node, NULL, &pf, &vf, &b), 0);
	t = udev_report(false);
	ck_assert_str_eq(b.name, "vethpinned");
	ck_assert_msg(strstr(t, "ID_NET_LINK_FILE=/run/systemd/network/70-ibvf-veth.link"), "%s",
		      t);
	ck_assert_msg(strstr(t, "ID_NET_NAME=vethpinned"), "%s", t);
	free(t);
	linkfile_fini(&lf[0]);
	linkfile_fini(&lf[1]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("linkfile");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, linkfile_parses_match_lists_and_link_name);
	tcase_add_test(tc, linkfile_matches_as_systemd);
	tcase_add_test(tc, the_first_matching_file_alone_names_it_at_boot);
	tcase_add_test(tc, linkfile_read_all_in_systemd_order);
	tcase_add_test(tc, persist_output_parses_and_pins);
	tcase_add_test(tc, persist_read_tolerates_hand_edits);
	tcase_add_test(tc, real_udev_applies_the_file_the_prediction_names);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
