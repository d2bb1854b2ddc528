// SPDX-License-Identifier: MIT
/* The simulated kubelet's pod-resources API (core/sim/sim_podres.c): the
 * running pods with their VFs and GPUs and the NUMA nodes of both, not the
 * seeded node's stale checkpoint entry; what the plugins advertise; a pod
 * started later; and the faults podres=absent|timeout|refused|untrusted. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim/sim_tree.h"
#include "core/sys/podres.h"
#include "core/sys/sys.h"
#include "testutil.h"

static struct sys *open_node(const char *dir, const char *faults)
{
	struct sys *s;
	struct err e = {""};
	struct sys_sim_params p = {.faults = faults};
	ck_assert_msg(sys_open_sim(dir, &p, &s, &e) == 0, "%s", e.msg);
	return s;
}

static size_t count_resource(const struct podres_container *c, const char *res)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n_devs; i++)
		n += !strcmp(c->devs[i].resource, res);
	return n;
}

static const struct podres_devices *device(const struct podres_container *c, const char *id)
{
	for (size_t i = 0; i < c->n_devs; i++)
		if (c->devs[i].n_ids == 1 && !strcmp(c->devs[i].ids[0], id))
			return &c->devs[i];
	return NULL;
}

static int64_t numa_of(const struct podres_devices *d)
{
	ck_assert_ptr_nonnull(d);
	return d->n_numa == 1 ? d->numa[0] : -2;
}

static size_t alloc_count(const struct podres *p, const char *res)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n_alloc; i++)
		n += !strcmp(p->alloc[i].resource, res);
	return n;
}

START_TEST(running_pods_with_their_devices)
{
	bool healthy = _i == 1;
	char *dir = tu_mkfixture(healthy ? (const char *const[]){"--healthy", NULL} : NULL);
	struct sys *s = open_node(dir, NULL);
	struct podres p;
	ck_assert_int_eq(sys_podres_read(s, &p), 0);
	ck_assert_int_eq(p.state, PODRES_OK);
	ck_assert_ptr_null(p.note);
	ck_assert_str_eq(p.socket, PODRES_SOCKET);
	ck_assert(p.get_known && p.alloc_known && !p.truncated);

	const struct podres_pod *t1 = podres_find_pod(&p, "ml-training", "trainer-1");
	ck_assert_ptr_nonnull(t1);
	ck_assert_uint_eq(t1->n_ctrs, 1);
	ck_assert_str_eq(t1->ctrs[0].name, "trainer");
	ck_assert_uint_eq(count_resource(&t1->ctrs[0], "nvidia.com/ibvf"), 2);
	ck_assert_uint_eq(count_resource(&t1->ctrs[0], "nvidia.com/gpu"), 2);
	ck_assert_int_eq(numa_of(device(&t1->ctrs[0], "0000:c0:00.1")), 1);
	char g5[SIM_GPU_UUID_LEN], g3[SIM_GPU_UUID_LEN], g6[SIM_GPU_UUID_LEN];
	sim_gpu_uuid(5, g5);
	sim_gpu_uuid(3, g3);
	sim_gpu_uuid(6, g6);
	ck_assert_int_eq(numa_of(device(&t1->ctrs[0], g5)), 1);
	const struct podres_container *c;
	ck_assert_ptr_eq(podres_holder(&p, "nvidia.com/gpu", g5, &c), t1);

	/* llm-serve-0: its VF on socket 0; its GPU beside it, or (seeded) GPU 6
	 * on socket 1. */
	const struct podres_pod *llm = podres_find_pod(&p, "inference", "llm-serve-0");
	ck_assert_ptr_nonnull(llm);
	ck_assert_int_eq(numa_of(device(&llm->ctrs[0], "0000:5e:00.6")), 0);
	ck_assert_int_eq(numa_of(device(&llm->ctrs[0], healthy ? g3 : g6)), healthy ? 0 : 1);
	ck_assert_ptr_null(device(&llm->ctrs[0], healthy ? g6 : g3));

	/* The seeded stale entry's pod is gone: not listed, its VF held by none. */
	ck_assert_ptr_null(podres_holder(&p, NULL, "0000:18:00.3", NULL));
	for (size_t i = 0; i < p.n_pods; i++)
		ck_assert_str_ne(p.pods[i].name, "worker");
	/* The device plugins' own pods run, holding nothing. */
	ck_assert_ptr_nonnull(
		podres_find_pod(&p, "nvidia-network-operator", "sriov-device-plugin-7wq4z"));

	/* Allocatable: every GPU; the VFs the SR-IOV plugin's config selects
	 * (all on the healthy node, none with the seeded config). */
	ck_assert_uint_eq(alloc_count(&p, "nvidia.com/gpu"), 8);
	ck_assert_uint_eq(alloc_count(&p, "nvidia.com/ibvf"), healthy ? 64 : 0);
	ck_assert(podres_allocatable(&p, "nvidia.com/gpu", g6));
	podres_fini(&p);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(a_started_pod_is_listed)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", "--pfs", "2", NULL}), *out,
	     *err;
	int rc = tu_sim_run(dir, &out, &err, "debug", "pod-start", "ml-training/trainer-9",
			    "0000:18:00.3", NULL);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, err);
	free(out);
	free(err);
	struct sys *s = open_node(dir, NULL);
	struct podres p;
	ck_assert_int_eq(sys_podres_read(s, &p), 0);
	const struct podres_container *c;
	const struct podres_pod *pod = podres_holder(&p, "nvidia.com/ibvf", "0000:18:00.3", &c);
	ck_assert_ptr_nonnull(pod);
	ck_assert_str_eq(pod->name, "trainer-9");
	ck_assert_int_eq(numa_of(device(c, "0000:18:00.3")), 0);
	/* --pfs 2: two GPUs. */
	ck_assert_uint_eq(alloc_count(&p, "nvidia.com/gpu"), 2);
	podres_fini(&p);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

START_TEST(faults_answer_as_a_kubelet_would)
{
	char *dir = tu_mkfixture((const char *const[]){"--healthy", "--pfs", "1", NULL});
	static const struct {
		const char *fault;
		enum podres_state state;
		const char *note;
	} cases[] = {
		{"podres=absent", PODRES_ABSENT, NULL},
		{"podres=timeout", PODRES_FAILED, "deadline exceeded after 2000 ms"},
		{"podres=refused", PODRES_FAILED, "Connection refused"},
		{"podres=untrusted", PODRES_REFUSED, "not a socket root owns"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sys *s = open_node(dir, cases[i].fault);
		struct podres p;
		ck_assert_int_eq(sys_podres_read(s, &p), 0);
		ck_assert_int_eq(p.state, cases[i].state);
		ck_assert_uint_eq(p.n_pods, 0);
		if (cases[i].note) {
			ck_assert_ptr_nonnull(p.note);
			ck_assert_msg(strstr(p.note, cases[i].note) &&
					      strstr(p.note, PODRES_SOCKET),
				      "%s", p.note);
		} else {
			ck_assert_ptr_null(p.note);
		}
		podres_fini(&p);
		sys_close(s);
	}
	/* No kubelet: no checkpoint. */
	tu_put(dir, "var/lib/kubelet/device-plugins/x", "");
	char path[4096];
	snprintf(path, sizeof(path),
		 "%s/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint", dir);
	ck_assert_int_eq(remove(path), 0);
	struct sys *s = open_node(dir, NULL);
	struct podres p;
	ck_assert_int_eq(sys_podres_read(s, &p), 0);
	ck_assert_int_eq(p.state, PODRES_ABSENT);
	podres_fini(&p);
	/* A checkpoint the kubelet cannot read: it is down. */
	tu_put(dir, "var/lib/kubelet/device-plugins/kubelet_internal_checkpoint", "{\"Data\": ");
	ck_assert_int_eq(sys_podres_read(s, &p), 0);
	ck_assert_int_eq(p.state, PODRES_FAILED);
	podres_fini(&p);
	sys_close(s);
	tu_rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim_podres");
	TCase *tc = tcase_create("podres");
	tcase_add_loop_test(tc, running_pods_with_their_devices, 0, 2);
	tcase_add_test(tc, a_started_pod_is_listed);
	tcase_add_test(tc, faults_answer_as_a_kubelet_would);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
