// SPDX-License-Identifier: MIT
/* Discovery over simulated DGX H200 trees: every seeded fault visible in the
 * model, and every damaged sysfs file read as unknown, never as zero. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/snapshot/kmsg.h"
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

START_TEST(dgx_fixture_has_twelve_functions_and_sixty_four_vfs)
{
	char *dir = tu_mkfixture(NULL);
	struct node *n = discover_dir(dir, true);

	ck_assert_uint_eq(n->n_pfs, 12);
	size_t vfs = 0, ib400 = 0, eth = 0, mofed_pfs = 0, unprobed = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		ck_assert_str_eq(pf->fn.driver, "mlx5_core");
		ck_assert(pf->fn.vendor.known && pf->fn.vendor.v == 0x15b3);
		ck_assert(pf->fn.device.known && pf->fn.device.v == 0x1021);
		ck_assert_uint_eq(pf->fn.n_rdmas, 1);
		ck_assert_str_eq(pf->fn.rdmas[0].hca_type, "MT4129");
		ck_assert(pf->totalvfs.known && pf->numvfs.known);
		ck_assert_int_eq(pf->numvfs.v, (int64_t)pf->n_vfs);
		vfs += pf->n_vfs;
		const struct port *p = port1(&pf->fn);
		ck_assert_ptr_nonnull(p);
		if (!strcmp(p->link_layer, "InfiniBand") && p->rate_mbps.v == 400000)
			ib400++;
		if (!strcmp(p->link_layer, "Ethernet"))
			eth++;
		bool any_mofed = false;
		for (size_t j = 0; j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			ck_assert_uint_eq(vf->index, j);
			ck_assert(vf->fn.device.known && vf->fn.device.v == 0x101e);
			any_mofed |= vf->admin.mofed;
			if (!vf->fn.driver) { /* the probe that failed: no netdev, no ibdev */
				unprobed++;
				ck_assert_uint_eq(vf->fn.n_rdmas + vf->fn.n_netdevs, 0);
				continue;
			}
			ck_assert_uint_eq(vf->fn.n_rdmas, 1);
			ck_assert_str_eq(vf->fn.rdmas[0].hca_type, "MT4126");
		}
		mofed_pfs += any_mofed;
	}
	ck_assert_uint_eq(vfs, 64);
	ck_assert_uint_eq(unprobed, 1); /* "probe of 0000:18:00.2 failed" */
	ck_assert_ptr_null(node_find_vf(n, "0000:18:00.0", 1)->fn.driver);
	/* eight compute HCAs, one fell back to Ethernet, one trained at 2X */
	ck_assert_uint_eq(ib400, 6);
	ck_assert_uint_eq(eth, 4 + 1);		   /* four storage ports and the fallen one */
	ck_assert(mofed_pfs > 0 && mofed_pfs < 8); /* MOFED files on some PFs, not all */
	ck_assert_str_eq(n->kernel, "6.8.0-55-generic");
	ck_assert_ptr_nonnull(n->driver_version);

	node_free(n);
	tu_rmtree(dir);
}
END_TEST

START_TEST(seeded_faults_are_visible_in_the_model)
{
	char *dir = tu_mkfixture(NULL);
	struct node *n = discover_dir(dir, true);

	size_t zero_guid = 0, down = 0, old_fw = 0, kernel_named = 0;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		const char *fw = pf->fn.rdmas[0].fw_ver;
		if (fw && strcmp(fw, "28.43.1014") < 0)
			old_fw++;
		for (size_t j = 0; j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			if (vf->port_guid.known && vf->port_guid.v == 0)
				zero_guid++;
			const struct port *p = port1(&vf->fn);
			if (p && p->state.known && p->state.v == 1)
				down++;
			if (vf->fn.n_netdevs && !strncmp(vf->fn.netdevs[0].name, "ib", 2) &&
			    vf->fn.netdevs[0].name[2] >= '0' && vf->fn.netdevs[0].name[2] <= '9')
				kernel_named++;
		}
	}
	ck_assert_uint_gt(zero_guid, 0);
	ck_assert_uint_gt(down, 0);
	ck_assert_uint_eq(old_fw, 1);
	ck_assert_uint_gt(kernel_named, 0);
	bool strlcpy = false;
	for (size_t i = 0; i < n->n_kmsg; i++)
		strlcpy |= n->kmsg[i].error && strstr(n->kmsg[i].msg, "Unknown symbol strlcpy");
	ck_assert(strlcpy);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

START_TEST(healthy_fixture_has_no_faults)
{
	const char *args[] = {"--healthy", NULL};
	char *dir = tu_mkfixture(args);
	struct node *n = discover_dir(dir, true);
	ck_assert_uint_gt(n->n_kmsg, 0);
	ck_assert_uint_eq(kmsg_count_errors(n), 0);
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		for (size_t j = 0; j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			ck_assert(vf->port_guid.known && vf->port_guid.v != 0);
			ck_assert(vf->node_guid.known && vf->node_guid.v != 0);
			const struct port *p = port1(&vf->fn);
			ck_assert(p->state.known && p->state.v == 4);
			ck_assert_str_eq(p->state_name, "ACTIVE");
		}
	}
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

static void put(const char *dir, const char *rel, const char *content)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	tu_write(path, content);
}

static void drop(const char *dir, const char *rel)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	ck_assert_int_eq(unlink(path), 0);
}

START_TEST(damaged_files_read_as_unknown_never_zero)
{
	const char *args[] = {"--healthy", NULL};
	char *dir = tu_mkfixture(args);
	const char *ib = "sys/class/infiniband/mlx5_0";
	char rel[256];
#define AT(file) (snprintf(rel, sizeof(rel), "%s/%s", ib, file), rel)
	put(dir, AT("ports/1/state"), "");			    /* empty */
	put(dir, AT("ports/1/phys_state"), "5");		    /* number without its word */
	put(dir, AT("ports/1/rate"), "fast");			    /* garbage */
	put(dir, AT("node_guid"), "b859:9f03");			    /* truncated */
	put(dir, AT("sys_image_guid"), "\x01\x02\xff\n");	    /* binary garbage */
	put(dir, AT("ports/1/gids/0"), "fe80:0000:0000:0000:b859"); /* truncated GID */
	drop(dir, AT("ports/1/lid"));				    /* missing */
	put(dir, AT("fw_ver"), "\n");				    /* only a newline */
	char big[8192];
	memset(big, '7', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put(dir, AT("ports/1/sm_lid"), big); /* larger than any attribute */
	put(dir, "sys/bus/pci/devices/0000:18:00.0/sriov_numvfs", "8abc\n");
	put(dir, "sys/bus/pci/devices/0000:18:00.0/sriov_totalvfs", "");
#undef AT

	struct node *n = discover_dir(dir, false);
	const struct pf *pf = node_find_pf(n, "0000:18:00.0");
	ck_assert_ptr_nonnull(pf);
	const struct rdma *r = &pf->fn.rdmas[0];
	const struct port *p = &r->ports[0];
	ck_assert(!p->state.known);
	ck_assert_ptr_null(p->state_name);
	ck_assert(p->phys_state.known && p->phys_state.v == 5);
	ck_assert_ptr_null(p->phys_state_name);
	ck_assert_str_eq(p->rate, "fast");
	ck_assert(!p->rate_mbps.known);
	ck_assert(!r->node_guid.known);
	ck_assert(!r->sys_image_guid.known);
	ck_assert(!p->port_guid.known && !p->gid_prefix.known);
	ck_assert(!p->lid.known);
	ck_assert(!p->sm_lid.known);
	ck_assert_ptr_null(r->fw_ver);
	ck_assert(!pf->numvfs.known);
	ck_assert(!pf->totalvfs.known);
	/* The rest of the node still reads. */
	ck_assert_uint_eq(n->n_pfs, 12);
	ck_assert(pf->fn.vendor.known && pf->fn.vendor.v == 0x15b3);
	ck_assert_uint_eq(pf->n_vfs, 8);
	ck_assert(pf->vfs[0].port_guid.known && pf->vfs[0].port_guid.v != 0);
	/* A captured tree is not the running kernel: netlink is not consulted. */
	ck_assert_uint_ge(n->n_notes, 1);
	ck_assert(!pf->vfs[0].admin.netlink_known);
	node_free(n);
	tu_rmtree(dir);
}
END_TEST

START_TEST(vfs_created_through_the_sim_appear_in_the_next_snapshot)
{
	const char *args[] = {"--healthy", NULL};
	char *dir = tu_mkfixture(args);
	struct sys *s;
	struct err e = {{0}};
	ck_assert_int_eq(sys_open_sim(dir, NULL, &s, &e), 0);
	const char *numvfs = "/sys/bus/pci/devices/0000:18:00.0/sriov_numvfs";
	ck_assert_msg(sys_write(s, numvfs, "0", &e) == 0, "%s", e.msg);
	ck_assert_msg(sys_write(s, numvfs, "3", &e) == 0, "%s", e.msg);
	struct node *n;
	ck_assert_int_eq(node_discover(s, &n, &e), 0);
	const struct pf *pf = node_find_pf(n, "0000:18:00.0");
	ck_assert_uint_eq(pf->n_vfs, 3);
	ck_assert_int_eq(pf->numvfs.v, 3);
	ck_assert_ptr_nonnull(node_find_vf(n, "0000:18:00.0", 2));
	ck_assert_ptr_null(node_find_vf(n, "0000:18:00.0", 3));
	const struct vf *vf = node_find_vf(n, "0000:18:00.0", 0);
	ck_assert_str_eq(vf->fn.bdf, "0000:18:00.1");
	ck_assert_uint_eq(vf->fn.n_netdevs, 1);
	/* A new VF has zero GUIDs until one is set and the VF is rebound. */
	ck_assert(vf->port_guid.known && vf->port_guid.v == 0);
	ck_assert(vf->admin.netlink_known);
	node_free(n);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("discover");
	TCase *tc = tcase_create("discover");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, dgx_fixture_has_twelve_functions_and_sixty_four_vfs);
	tcase_add_test(tc, seeded_faults_are_visible_in_the_model);
	tcase_add_test(tc, healthy_fixture_has_no_faults);
	tcase_add_test(tc, damaged_files_read_as_unknown_never_zero);
	tcase_add_test(tc, vfs_created_through_the_sim_appear_in_the_next_snapshot);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
