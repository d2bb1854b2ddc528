// SPDX-License-Identifier: MIT
/* The checks of the kubelet's word and of the GPUs, on the simulated healthy
 * DGX H200 changed in memory: pod-unconfirmed, pod-no-cni,
 * dp-not-allocatable (core/checks/pods_api.c, devplugin.c), pod-affinity
 * (core/checks/affinity.c), pod-stale with the API's evidence; none of the
 * API's when it did not answer. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "checksutil.h"
#include "core/pods/pods.h"
#include "testutil.h"

#define TRAINER0_VF "0000:40:00.4" /* ml-training/trainer-0, GPU1 under its switch */
#define CLOSE_VF    "0000:ce:00.1" /* mlx5_10 VF 0: free, under GPU6's switch */

static struct node *n;
static struct findings fs;

static void setup(void)
{
	n = cu_node();
	memset(&fs, 0, sizeof(fs));
}

static void teardown(void)
{
	findings_fini(&fs);
	cu_node_free(n);
}

static const char *const api_ids[] = {"pod-unconfirmed", "pod-no-cni", "dp-not-allocatable",
				      "pod-affinity"};

START_TEST(healthy_node_has_none)
{
	ck_assert_int_eq(n->podres.state, PODRES_OK);
	ck_assert(n->podres.alloc_known);
	cu_checks(n, NULL, &fs);
	for (size_t i = 0; i < sizeof(api_ids) / sizeof(api_ids[0]); i++)
		ck_assert_uint_eq(cu_count(&fs, api_ids[i], NULL), 0);
	ck_assert_uint_eq(fs.n, 0);
}
END_TEST

/* trainer-0's GPU moved to GPU6, on the other socket, beside mlx5_10. */
static void move_gpu(const char *uid, int to)
{
	bool moved = false;
	for (size_t i = 0; i < n->n_pod_gpus; i++)
		if (n->pod_gpus[i].uid && !strcmp(n->pod_gpus[i].uid, uid)) {
			n->pod_gpus[i].gpu = to;
			moved = true;
		}
	ck_assert(moved);
}

START_TEST(affinity_sys_from_its_gpu_with_a_closer_free_vf)
{
	const struct vf *vf = cu_vf(n, TRAINER0_VF);
	ck_assert_ptr_nonnull(vf->pod);
	move_gpu(vf->pod->uid, 6);
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "pod-affinity", NULL), 1);
	const struct finding *f = cu_first(&fs, "pod-affinity", TRAINER0_VF);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->severity, CHECK_WARNING);
	ck_assert_msg(strstr(f->title, "ml-training/trainer-0") && strstr(f->title, "SYS") &&
			      strstr(f->title, "GPU6 0000:d1:00.0") &&
			      strstr(f->title, "free VF " CLOSE_VF " is PIX"),
		      "%s", f->title);
	ck_assert(cu_evidence(f, "0000:40:00.4", "numa_node 0"));
	ck_assert(cu_evidence(f, "0000:d1:00.0", "numa_node 1"));
	ck_assert(cu_evidence(f, "kubelet.sock", "ml-training/trainer-0 holds GPU-"));
	ck_assert(cu_step(f, "single-numa-node"));
	ck_assert(cu_step(f, "\"rootDevices\": [\"0000:ce:00.0\"]"));
	ck_assert(cu_step(f, "kubectl delete pod -n ml-training trainer-0"));
}
END_TEST

START_TEST(affinity_node_class_counts_too)
{
	/* GPU2 is on trainer-0's socket but under another switch: NODE, and
	 * mlx5_4's free VFs are PIX from it. */
	move_gpu(cu_vf(n, TRAINER0_VF)->pod->uid, 2);
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "pod-affinity", TRAINER0_VF);
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->title, "is NODE from") && strstr(f->title, "free VF 0000:4f:"),
		      "%s", f->title);
}
END_TEST

START_TEST(affinity_not_when_nothing_closer_is_free)
{
	move_gpu(cu_vf(n, TRAINER0_VF)->pod->uid, 6);
	/* Every VF beside GPU6 taken away (no driver: no pod can get one). */
	struct pf *pf = cu_pf(n, "0000:ce:00.0");
	for (size_t j = 0; j < pf->n_vfs; j++)
		cu_str(&pf->vfs[j].fn.driver, NULL);
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "pod-affinity", NULL), 0);
}
END_TEST

START_TEST(affinity_not_for_a_pod_without_gpus_here)
{
	move_gpu(cu_vf(n, TRAINER0_VF)->pod->uid, -1); /* a GPU ID of no GPU of the node */
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "pod-affinity", NULL), 0);
}
END_TEST

START_TEST(unconfirmed_when_the_api_lists_no_container)
{
	struct vf *vf = cu_vf(n, TRAINER0_VF);
	vf->pod->sources &= ~POD_SRC_API;
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "pod-unconfirmed", TRAINER0_VF);
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->title, "lists no container holding it"), "%s", f->title);
	ck_assert(cu_evidence(f, "/var/lib/cni/multus/results", "ml-training/trainer-0"));
	ck_assert(cu_evidence(f, "kubelet.sock", "List: no running container holds " TRAINER0_VF));
	ck_assert(cu_step(f, "kubectl get pod -n ml-training trainer-0"));
	ck_assert_uint_eq(cu_count(&fs, "pod-unconfirmed", NULL), 1);
}
END_TEST

START_TEST(unconfirmed_when_the_api_names_another_pod)
{
	struct vf *vf = cu_vf(n, TRAINER0_VF);
	vf->pod->sources &= ~POD_SRC_API;
	cu_str(&vf->pod->api_pod, "ml-training/other-7");
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "pod-unconfirmed", TRAINER0_VF);
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->title, "gives it to another pod"), "%s", f->title);
	ck_assert(cu_evidence(f, "kubelet.sock", "held by pod ml-training/other-7"));
}
END_TEST

START_TEST(no_cni_when_only_the_api_has_it)
{
	struct vf *vf = cu_vf(n, TRAINER0_VF);
	vf->pod->sources = POD_SRC_API;
	cu_checks(n, NULL, &fs);
	const struct finding *f = cu_first(&fs, "pod-no-cni", TRAINER0_VF);
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "kubelet.sock", "holds " TRAINER0_VF));
	ck_assert(cu_evidence(f, "/var/lib/cni", "no Multus"));
	ck_assert(cu_step(f, "k8s.v1.cni.cncf.io/networks"));
	ck_assert_uint_eq(cu_count(&fs, "pod-no-cni", NULL), 1);
}
END_TEST

/* Drops id from the kubelet's allocatable list (every group). */
static void unallocatable(const char *id)
{
	bool found = false;
	for (size_t i = 0; i < n->podres.n_alloc; i++) {
		struct podres_devices *d = &n->podres.alloc[i];
		for (size_t k = 0; k < d->n_ids; k++)
			if (!strcmp(d->ids[k], id)) {
				free(d->ids[k]);
				d->ids[k] = d->ids[--d->n_ids];
				found = true;
				break;
			}
	}
	ck_assert_msg(found, "%s is not allocatable", id);
}

START_TEST(dp_not_allocatable_names_the_vf)
{
	unallocatable("0000:18:00.2");
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "dp-not-allocatable", NULL), 1);
	const struct finding *f = cu_first(&fs, "dp-not-allocatable", "0000:18:00.2");
	ck_assert_ptr_nonnull(f);
	ck_assert(cu_evidence(f, "kubelet.sock", "GetAllocatableResources"));
	ck_assert(cu_evidence(f, "kubelet.sock", "not this VF"));
}
END_TEST

START_TEST(dp_not_allocatable_once_when_the_resource_is_missing)
{
	for (size_t i = 0; i < n->podres.n_alloc; i++)
		if (!strcmp(n->podres.alloc[i].resource, "nvidia.com/ibvf"))
			for (size_t k = 0; k < n->podres.alloc[i].n_ids; k++)
				cu_str(&n->podres.alloc[i].resource, "other.com/x");
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "dp-not-allocatable", NULL), 1);
	const struct finding *f = cu_first(&fs, "dp-not-allocatable", "");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->title, "lists no device of"), "%s", f->title);
}
END_TEST

START_TEST(no_api_no_api_findings)
{
	struct vf *vf = cu_vf(n, TRAINER0_VF);
	vf->pod->sources = POD_SRC_API; /* would be pod-no-cni */
	unallocatable("0000:18:00.2");	/* would be dp-not-allocatable */
	n->podres.state = PODRES_FAILED;
	cu_checks(n, NULL, &fs);
	ck_assert_uint_eq(cu_count(&fs, "pod-no-cni", NULL), 0);
	ck_assert_uint_eq(cu_count(&fs, "pod-unconfirmed", NULL), 0);
	ck_assert_uint_eq(cu_count(&fs, "dp-not-allocatable", NULL), 0);
}
END_TEST

/* The CLI's views on the seeded node: list --topo, list --pods, the JSON. */
START_TEST(cli_topology_pods_and_json_on_the_seeded_node)
{
	char *dir = tu_mkfixture(NULL), *out = NULL;
	ck_assert_int_eq(tu_sim_run(dir, &out, NULL, "list", "--topo", NULL), 0);
	ck_assert_msg(strstr(out, "GPU topology: 8 GPUs, 12 HCAs") &&
			      strstr(out, "GPU6   SYS   SYS   SYS   SYS   SYS   SYS   NODE  NODE  "
					  "NODE  NODE  PIX   NODE  1     inference/llm-serve-0") &&
			      strstr(out, "  VF 0000:5e:00.6 (mlx5_5 VF 5)  SYS to GPU6  far from "
					  "its GPUs (ibvf check: pod-affinity)") &&
			      strstr(out, "  VF 0000:40:00.4 (mlx5_3 VF 3)  PIX to GPU1\n"),
		      "%.3000s", out);
	free(out);
	ck_assert_int_eq(tu_sim_run(dir, &out, NULL, "list", "--pods", NULL), 0);
	ck_assert_msg(
		strstr(out, "NEAREST GPU") && strstr(out, "GPU6 SYS") &&
			strstr(out, "pod inference/llm-serve-0 holds 1 GPU: GPU6 (0000:d1:00.0)"),
		"%.3000s", out);
	free(out);
	ck_assert_int_eq(tu_sim_run(dir, &out, NULL, "--json", "list", NULL), 0);
	ck_assert_msg(strstr(out, "\"uuid\": \"GPU-d95a8ebd-7272-4033-ab7d-3fa6d395ab84\",\n"
				  "              \"class\": \"SYS\"") &&
			      strstr(out, "\"kubelet_api\": {\n    \"state\": \"ok\""),
		      "%.2000s", out);
	free(out);
	ck_assert_int_eq(tu_sim_run(dir, &out, NULL, "list", "--pods", "--topo", NULL), 2);
	free(out);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	cu_fixture((const char *const[]){"--healthy", NULL});
	Suite *s = suite_create("checks_api");
	TCase *tc = tcase_create("api");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, healthy_node_has_none);
	tcase_add_test(tc, affinity_sys_from_its_gpu_with_a_closer_free_vf);
	tcase_add_test(tc, affinity_node_class_counts_too);
	tcase_add_test(tc, affinity_not_when_nothing_closer_is_free);
	tcase_add_test(tc, affinity_not_for_a_pod_without_gpus_here);
	tcase_add_test(tc, unconfirmed_when_the_api_lists_no_container);
	tcase_add_test(tc, unconfirmed_when_the_api_names_another_pod);
	tcase_add_test(tc, no_cni_when_only_the_api_has_it);
	tcase_add_test(tc, dp_not_allocatable_names_the_vf);
	tcase_add_test(tc, dp_not_allocatable_once_when_the_resource_is_missing);
	tcase_add_test(tc, no_api_no_api_findings);
	suite_add_tcase(s, tc);
	TCase *tcli = tcase_create("cli");
	tcase_set_timeout(tcli, 60);
	tcase_add_test(tcli, cli_topology_pods_and_json_on_the_seeded_node);
	suite_add_tcase(s, tcli);
	int rc = tu_run_suite(s);
	cu_fixture_done();
	return rc;
}
