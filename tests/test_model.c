// SPDX-License-Identifier: MIT
/* What discovery reads for the checks (core/model/node.h): the kernel log's
 * records, .link files, ibvf's boot unit, netns presence and broken CNI
 * files, on the simulated node's faults, their absence on a healthy node,
 * and the same tree read as a captured one (--root). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/snapshot/kmsg.h"
#include "core/persist/boot.h"
#include "core/persist/linkfile.h"
#include "core/model/node.h"
#include "core/sys/sys.h"
#include "testutil.h"

static struct node *discover_dir(const char *dir, bool sim)
{
	struct sys *s;
	struct err e = {{0}};
	int r = sim ? sys_open_sim(dir, NULL, &s, &e) : sys_open_linux(dir, &s, &e);
	ck_assert_msg(r == 0, "open: %s", e.msg);
	struct node *n;
	r = node_discover(s, &n, &e);
	ck_assert_msg(r == 0, "discover: %s", e.msg);
	sys_close(s);
	return n;
}

static const struct port *port1(const struct fn *f)
{
	return f->n_rdmas && f->rdmas[0].n_ports ? &f->rdmas[0].ports[0] : NULL;
}

/* The VF netdev of a function, or the name it had before it moved into a pod. */
static const char *vf_name(const struct vf *vf)
{
	if (vf->fn.n_netdevs)
		return vf->fn.netdevs[0].name;
	return vf->pod ? vf->pod->host_ifname : NULL;
}

static const struct persisted_pf *persisted(const struct node *n, const char *bdf)
{
	for (size_t i = 0; i < n->n_persisted; i++)
		if (!strcmp(n->persisted[i].bdf, bdf))
			return &n->persisted[i];
	return NULL;
}

START_TEST(faulty_node_kmsg_with_times)
{
	char *dir = tu_mkfixture(NULL);
	struct node *n = discover_dir(dir, true);
	ck_assert_uint_eq(kmsg_count_errors(n), 2);
	const struct kmsg_line *sym = NULL, *probe = NULL;
	for (size_t i = 0; i < n->n_kmsg; i++) {
		if (strstr(n->kmsg[i].msg, "Unknown symbol strlcpy"))
			sym = &n->kmsg[i];
		if (strstr(n->kmsg[i].msg, "probe of 0000:18:00.2 failed with error -2"))
			probe = &n->kmsg[i];
		if (i)
			ck_assert_int_ge(n->kmsg[i].ts_usec.v, n->kmsg[i - 1].ts_usec.v);
	}
	ck_assert_ptr_nonnull(sym);
	ck_assert_ptr_nonnull(probe);
	ck_assert(sym->error && probe->error);
	ck_assert_int_eq(sym->prio, 4);
	ck_assert(sym->ts_usec.known && sym->ts_usec.v == 4102311);
	ck_assert(probe->ts_usec.known && probe->ts_usec.v == 130412907);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

START_TEST(faulty_node_rate_board_and_name_collision)
{
	char *dir = tu_mkfixture(NULL);
	struct node *n = discover_dir(dir, true);
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		bool storage =
			!strncmp(pf->fn.bdf, "0000:29:", 8) || !strncmp(pf->fn.bdf, "0000:aa:", 8);
		ck_assert_str_eq(pf->fn.rdmas[0].board_id,
				 storage ? "MT_0000000834" : "MT_0000000838");
		bool slow = !strcmp(pf->fn.bdf, "0000:dc:00.0");
		const struct port *p = port1(&pf->fn);
		if (slow) {
			ck_assert_str_eq(p->rate, "200 Gb/sec (2X NDR)");
			ck_assert(p->rate_mbps.known && p->rate_mbps.v == 200000);
		}
		for (size_t j = 0; j < pf->n_vfs; j++) {
			const struct port *vp = port1(&pf->vfs[j].fn);
			if (vp && slow)
				ck_assert_str_eq(vp->rate, "200 Gb/sec (2X NDR)");
			if (pf->vfs[j].fn.n_rdmas)
				ck_assert_str_eq(pf->vfs[j].fn.rdmas[0].board_id, "MT_0000000838");
		}
	}
	/* llm-serve-0's VF had the name ib12, which mlx5_5 VF 6 has now */
	const struct vf *held = node_find_vf(n, "0000:5e:00.0", 5);
	const struct vf *other = node_find_vf(n, "0000:5e:00.0", 6);
	ck_assert_ptr_nonnull(held->pod);
	ck_assert_str_eq(held->pod->name, "llm-serve-0");
	ck_assert_str_eq(held->pod->host_ifname, "ib12");
	ck_assert_uint_eq(other->fn.n_netdevs, 1);
	ck_assert_str_eq(other->fn.netdevs[0].name, "ib12");
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

START_TEST(faulty_node_pods_netns_gone_and_broken_cache)
{
	char *dir = tu_mkfixture(NULL);
	struct node *n = discover_dir(dir, true);
	const struct vf *t0 = node_find_vf(n, "0000:40:00.0", 3);
	ck_assert_ptr_nonnull(t0->pod);
	ck_assert_str_eq(t0->pod->name, "trainer-0");
	ck_assert_ptr_nonnull(t0->pod->netns);
	ck_assert(t0->pod->netns_present.known && t0->pod->netns_present.v == 0);
	const struct vf *t1 = node_find_vf(n, "0000:c0:00.0", 0);
	ck_assert(t1->pod->netns_present.known && t1->pod->netns_present.v == 1);
	/* no netns path: unknown */
	const struct vf *stale = node_find_vf(n, "0000:18:00.0", 2);
	ck_assert(stale->pod && stale->pod->stale);
	ck_assert(!stale->pod->netns_present.known);
	ck_assert_uint_eq(n->n_cni_broken, 1);
	ck_assert_ptr_nonnull(strstr(n->cni_broken[0].path, "/var/lib/cni/multus/results/"
							    "ib-sriov-network-e4d2"));
	ck_assert_ptr_nonnull(strstr(n->cni_broken[0].why, "truncated JSON"));
	bool noted = false;
	for (size_t i = 0; i < n->n_notes; i++)
		noted |= strstr(n->notes[i], "truncated JSON (half-written?)") != NULL;
	ck_assert(noted);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

START_TEST(faulty_node_pins_some_names_and_unit_disagrees)
{
	char *dir = tu_mkfixture(NULL);
	struct node *n = discover_dir(dir, true);
	ck_assert_uint_eq(n->n_link_files, 8);
	size_t pinned = 0, unpinned = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			const char *name = vf_name(vf);
			if (!name)
				continue;
			if (boot_vf_name_kept(n, &n->pfs[i], vf)) {
				ck_assert_str_eq(n->pfs[i].fn.bdf, "0000:40:00.0");
				pinned++;
			} else {
				unpinned++;
			}
		}
	ck_assert_uint_eq(pinned, 8);
	ck_assert_uint_gt(unpinned, 40);
	ck_assert_str_eq(n->persist_unit, "/etc/systemd/system/ibvf-sriov.service");
	ck_assert_uint_eq(n->n_persisted, 8);
	size_t differ = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		const struct persisted_pf *p = persisted(n, pf->fn.bdf);
		if (p && pf->numvfs.known && p->numvfs != pf->numvfs.v) {
			ck_assert_str_eq(pf->fn.bdf, "0000:c0:00.0");
			ck_assert_uint_eq(p->numvfs, 4);
			differ++;
		}
	}
	ck_assert_uint_eq(differ, 1);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

/* Hand edits: a drop-in naming PFs by netdev and ibdev, and an echo into
 * sriov_numvfs. */
START_TEST(unit_hand_edits_name_pfs_by_netdev)
{
	char *dir = tu_mkfixture(NULL), path[4096];
	snprintf(path, sizeof(path), "mkdir -p '%s/etc/systemd/system/ibvf-sriov.service.d'", dir);
	ck_assert_int_eq(system(path), 0);
	snprintf(path, sizeof(path), "%s/etc/systemd/system/ibvf-sriov.service.d/50-edit.conf",
		 dir);
	tu_write(path,
		 "[Service]\n"
		 "ExecStart=/bin/sh -c 'echo 6 > /sys/class/net/ibp206s0/device/sriov_numvfs'\n"
		 "ExecStart=/bin/sh -c \"echo 3 > /sys/bus/pci/devices/0000:18:00.0/"
		 "sriov_numvfs\"\n"
		 "ExecStart=/usr/local/sbin/ibvf vf create --timeout 60 mlx5_11 5 --yes\n"
		 "ExecStart=/usr/local/sbin/ibvf vf create ibp94s0v0 2 --yes\n");
	struct node *n = discover_dir(dir, true);
	ck_assert_uint_eq(n->n_persisted, 8);
	ck_assert_uint_eq(persisted(n, "0000:ce:00.0")->numvfs, 6);
	ck_assert_uint_eq(persisted(n, "0000:18:00.0")->numvfs, 3);
	ck_assert_uint_eq(persisted(n, "0000:dc:00.0")->numvfs, 5);
	ck_assert_uint_eq(persisted(n, "0000:5e:00.0")->numvfs, 8); /* a VF is no PF */
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

/* A healthy node, simulated and read as a captured tree: every VF name
 * pinned by its own file, the unit's counts the PFs', no broken file,
 * every pod's netns there, no degraded port. */
static void expect_healthy(const struct node *n)
{
	ck_assert_uint_eq(kmsg_count_errors(n), 0);
	ck_assert_uint_eq(n->n_cni_broken, 0);
	size_t vfs = 0, pods = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		const struct port *p = port1(&pf->fn);
		ck_assert(!strcmp(p->link_layer, "Ethernet") || p->rate_mbps.v == 400000);
		if (pf->n_vfs) {
			const struct persisted_pf *pp = persisted(n, pf->fn.bdf);
			ck_assert_ptr_nonnull(pp);
			ck_assert_int_eq(pp->numvfs, pf->numvfs.v);
		}
		for (size_t j = 0; j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			const char *name = vf_name(vf);
			ck_assert_ptr_nonnull(name);
			ck_assert_msg(boot_vf_name_kept(n, pf, vf), "%s (%s) not kept at boot",
				      vf->fn.bdf, name);
			vfs++;
			if (vf->pod) {
				pods++;
				ck_assert(vf->pod->netns_present.known && vf->pod->netns_present.v);
			}
		}
	}
	ck_assert_uint_eq(vfs, 64);
	ck_assert_uint_eq(pods, 4);
	ck_assert_uint_eq(n->n_persisted, 8);
}

START_TEST(healthy_node_pins_every_name)
{
	const char *args[] = {"--healthy", NULL};
	char *dir = tu_mkfixture(args);
	struct node *n = discover_dir(dir, true);
	expect_healthy(n);
	node_free(n);
	n = discover_dir(dir, false);
	expect_healthy(n);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

/* A captured tree holding a dmesg text instead of /dev/kmsg records, and no
 * netns directory: times from the stamps, netns presence unknown. */
START_TEST(captured_tree_with_dmesg_text)
{
	char *dir = tu_mkfixture(NULL);
	char path[4096];
	snprintf(path, sizeof(path), "%s/dev/kmsg", dir);
	tu_write(path, "[    0.000000] Linux version 6.8.0-55-generic\n"
		       "[    4.102311] mlx5_core: Unknown symbol strlcpy (err -2)\n"
		       "[  130.412907] mlx5_core 0000:18:00.2: probe with driver mlx5_core failed "
		       "with error -2\n");
	snprintf(path, sizeof(path), "rm -rf '%s/var/run/netns'", dir);
	ck_assert_int_eq(system(path), 0);
	struct node *n = discover_dir(dir, false);
	ck_assert_uint_eq(n->n_kmsg, 2);
	ck_assert_int_eq(n->kmsg[1].ts_usec.v, 130412907);
	ck_assert(n->kmsg[1].error);
	const struct vf *t0 = node_find_vf(n, "0000:40:00.0", 3);
	ck_assert_ptr_nonnull(t0->pod);
	ck_assert(!t0->pod->netns_present.known);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("fixture");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, faulty_node_kmsg_with_times);
	tcase_add_test(tc, faulty_node_rate_board_and_name_collision);
	tcase_add_test(tc, faulty_node_pods_netns_gone_and_broken_cache);
	tcase_add_test(tc, faulty_node_pins_some_names_and_unit_disagrees);
	tcase_add_test(tc, unit_hand_edits_name_pfs_by_netdev);
	tcase_add_test(tc, healthy_node_pins_every_name);
	tcase_add_test(tc, captured_tree_with_dmesg_text);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
