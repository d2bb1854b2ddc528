// SPDX-License-Identifier: MIT
/* node_resolve(), the one way from what a user types to a function: every
 * name form of a PF and a VF lands on the same function, a pod holding
 * several VFs is ambiguous, an unknown name says what was tried; and the one
 * pod rule (pods_holder) and label (pods_label). The node is built here, so
 * forms the simulated node lacks (altnames, Soft-RoCE parents) are covered. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pods/pods.h"
#include "core/snapshot/resolve.h"
#include "testutil.h"

static char *altname_pf[] = {"enp24s0np0"}, *altname_vf[] = {"ibvf-a"};
static struct netdev pf_nd = {.name = "ibp24s0", .altnames = altname_pf, .n_altnames = 1};
static struct netdev vf_nd = {.name = "ib0", .altnames = altname_vf, .n_altnames = 1};
static struct rdma pf_rd = {.name = "mlx5_0"}, vf_rd = {.name = "mlx5_12"};
static struct rdma orphan = {.name = "rxe0", .parent = "veth0"};
static struct pod_binding job0 = {.ns = "ml", .name = "job-0"};
static struct pod_binding job1a = {.ns = "ml", .name = "job-1"},
			  job1b = {.ns = "ml", .name = "job-1"};
static struct pod_binding gone = {.ns = "ml", .name = "gone", .stale = true};
static struct pod_binding uid_only = {.uid = "0d9e8f7a"};
static struct vf vfs[5];
static struct pf pf;
static struct node node;

static void build(void)
{
	static const char *const bdfs[] = {"0000:af:00.2", "0000:af:00.3", "0000:af:00.4",
					   "0000:af:00.5", "0000:af:00.6"};
	struct pod_binding *pods[] = {&job0, &job1a, &job1b, &gone, NULL};
	memset(vfs, 0, sizeof(vfs));
	for (unsigned int i = 0; i < 5; i++) {
		vfs[i].index = i;
		snprintf(vfs[i].fn.bdf, sizeof(vfs[i].fn.bdf), "%s", bdfs[i]);
		vfs[i].pod = pods[i];
	}
	vfs[0].fn.netdevs = &vf_nd;
	vfs[0].fn.n_netdevs = 1;
	vfs[0].fn.rdmas = &vf_rd;
	vfs[0].fn.n_rdmas = 1;
	pf = (struct pf){.vfs = vfs, .n_vfs = 5};
	snprintf(pf.fn.bdf, sizeof(pf.fn.bdf), "0000:af:00.0");
	pf.fn.netdevs = &pf_nd;
	pf.fn.n_netdevs = 1;
	pf.fn.rdmas = &pf_rd;
	pf.fn.n_rdmas = 1;
	node = (struct node){.pfs = &pf, .n_pfs = 1, .orphans = &orphan, .n_orphans = 1};
}

START_TEST(every_form_of_a_vf_names_the_same_vf)
{
	static const struct {
		const char *name;
		enum node_name_kind how;
	} forms[] = {
		{"0000:af:00.2", NODE_NAME_BDF}, {"af:00.2", NODE_NAME_BDF},
		{"0000:AF:00.2", NODE_NAME_BDF}, {"ib0", NODE_NAME_NETDEV},
		{"ibvf-a", NODE_NAME_ALTNAME},	 {"mlx5_12", NODE_NAME_RDMA},
		{"ml/job-0", NODE_NAME_POD},
	};
	build();
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct node_ref ref;
		struct err e = {{0}};
		ck_assert_msg(node_resolve(&node, forms[i].name, &ref, &e) == 0, "%s: %s",
			      forms[i].name, e.msg);
		ck_assert_ptr_eq(ref.pf, &pf);
		ck_assert_ptr_eq(ref.vf, &vfs[0]);
		ck_assert_ptr_eq(ref.fn, &vfs[0].fn);
		ck_assert_ptr_eq(ref.rdma, &vf_rd);
		ck_assert_int_eq(ref.how, forms[i].how);
		bool by_netdev =
			forms[i].how == NODE_NAME_NETDEV || forms[i].how == NODE_NAME_ALTNAME;
		ck_assert_ptr_eq(ref.netdev, by_netdev ? &vf_nd : NULL);
	}
}
END_TEST

START_TEST(every_form_of_a_pf_names_the_pf)
{
	static const char *const forms[] = {"0000:af:00.0", "af:00.0", "ibp24s0", "enp24s0np0",
					    "mlx5_0"};
	build();
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct node_ref ref;
		struct err e = {{0}};
		ck_assert_msg(node_resolve(&node, forms[i], &ref, &e) == 0, "%s: %s", forms[i],
			      e.msg);
		ck_assert_ptr_eq(ref.pf, &pf);
		ck_assert_ptr_null(ref.vf);
		ck_assert_ptr_eq(ref.fn, &pf.fn);
		ck_assert_ptr_eq(ref.rdma, &pf_rd);
	}
}
END_TEST

START_TEST(an_unknown_name_says_what_was_tried)
{
	struct node_ref ref;
	struct err e = {{0}};
	build();
	ck_assert_int_eq(node_resolve(&node, "x\x1b[2J", &ref, &e), -ENODEV);
	ck_assert_str_eq(e.msg,
			 "no PF or VF named 'x?[2J' on this node (tried PCI address, netdev, "
			 "altname, RDMA device, pod)");
	/* Out of range or malformed addresses are names like any other. */
	ck_assert_int_eq(node_resolve(&node, "af:00.9", &ref, &e), -ENODEV);
	ck_assert_int_eq(node_resolve(&node, "0000:af:00", &ref, &e), -ENODEV);
	ck_assert_int_eq(node_resolve(&node, "", &ref, &e), -ENODEV);
}
END_TEST

START_TEST(a_pod_with_several_vfs_is_ambiguous_and_listed)
{
	struct node_ref ref;
	struct err e = {{0}};
	build();
	ck_assert_int_eq(node_resolve(&node, "ml/job-1", &ref, &e), -ENOTUNIQ);
	ck_assert_str_eq(e.msg, "pod 'ml/job-1' holds 2 VFs (0000:af:00.3, 0000:af:00.4): name one "
				"by PCI address");
}
END_TEST

START_TEST(a_stale_binding_holds_nothing)
{
	struct node_ref ref;
	struct err e = {{0}};
	char buf[64];
	build();
	ck_assert_int_eq(node_resolve(&node, "ml/gone", &ref, &e), -ENODEV);
	ck_assert_ptr_null(pods_holder(&vfs[3]));
	ck_assert_ptr_null(pods_holder_label(&vfs[3], buf, sizeof(buf)));
	ck_assert_ptr_eq(pods_holder(&vfs[0]), &job0);
	ck_assert_str_eq(pods_holder_label(&vfs[0], buf, sizeof(buf)), "ml/job-0");
	ck_assert_ptr_null(pods_holder(&vfs[4]));
	pods_label(&gone, buf, sizeof(buf));
	ck_assert_str_eq(buf, "ml/gone (stale)");
	pods_label(&uid_only, buf, sizeof(buf));
	ck_assert_str_eq(buf, "uid 0d9e8f7a");
}
END_TEST

START_TEST(an_unplaced_rdma_device_by_name_or_parent)
{
	static const char *const forms[] = {"rxe0", "veth0"};
	build();
	for (size_t i = 0; i < 2; i++) {
		struct node_ref ref;
		struct err e = {{0}};
		ck_assert_int_eq(node_resolve(&node, forms[i], &ref, &e), 0);
		ck_assert_ptr_null(ref.pf);
		ck_assert_ptr_null(ref.fn);
		ck_assert_ptr_eq(ref.rdma, &orphan);
	}
}
END_TEST

START_TEST(lookup_tries_only_the_forms_asked)
{
	struct node_ref ref;
	build();
	ck_assert_int_eq(node_lookup(&node, "ib0", NODE_NAME_RDMA, &ref), -ENODEV);
	ck_assert_int_eq(node_lookup(&node, "ibvf-a", NODE_NAME_NETDEV, &ref), -ENODEV);
	ck_assert_int_eq(node_lookup(&node, "ib0", NODE_NAME_NETDEV, &ref), 0);
	ck_assert_ptr_eq(ref.vf, &vfs[0]);
	ck_assert_int_eq(node_lookup(&node, "ml/job-0", NODE_NAME_ANY & ~NODE_NAME_POD, &ref),
			 -ENODEV);
}
END_TEST

START_TEST(bdf_normalize_takes_the_kernels_form)
{
	char out[16];
	ck_assert(node_bdf_normalize("0000:AF:00.1", false, out));
	ck_assert_str_eq(out, "0000:af:00.1");
	ck_assert(!node_bdf_normalize("af:00.1", false, out));
	ck_assert(node_bdf_normalize("af:00.1", true, out));
	ck_assert_str_eq(out, "0000:af:00.1");
	ck_assert(!node_bdf_normalize("0000:af:00.8", true, out));
	ck_assert(!node_bdf_normalize("0000-af:00.1", true, out));
	ck_assert(!node_bdf_normalize(NULL, true, out));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("resolve");
	tcase_add_test(tc, every_form_of_a_vf_names_the_same_vf);
	tcase_add_test(tc, every_form_of_a_pf_names_the_pf);
	tcase_add_test(tc, an_unknown_name_says_what_was_tried);
	tcase_add_test(tc, a_pod_with_several_vfs_is_ambiguous_and_listed);
	tcase_add_test(tc, a_stale_binding_holds_nothing);
	tcase_add_test(tc, an_unplaced_rdma_device_by_name_or_parent);
	tcase_add_test(tc, lookup_tries_only_the_forms_asked);
	tcase_add_test(tc, bdf_normalize_takes_the_kernels_form);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
