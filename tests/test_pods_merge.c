// SPDX-License-Identifier: MIT
/* Pod bindings put together: every source merged into one binding per VF,
 * broken files skipped with a note, discovery attaching the bindings, and the
 * fixture's pods in `ibvf list` and the pod view. */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/snapshot/json.h"
#include "core/model/node.h"
#include "core/pods/pods.h"
#include "core/sys/sys.h"
#include "testutil.h"

#include "podsutil.h"

START_TEST(all_sources_merge_into_one_binding_per_vf)
{
	/* Uppercase in one file, lowercase in the others: one PCI address. */
	put(MULTUS_DIR "ib-sriov-network-" CID "-net1",
	    multus_json("0000:5E:00.6", "inference", "llm-serve-0", UID_A, "net1"));
	put("var/lib/cni/ib-sriov/" CID "-net1", ib_sriov_json("0000:5e:00.6", "net1"));
	put(CHECKPOINT, checkpoint_json("{\"PodUID\":\"" UID_A "\",\"ContainerName\":\"vllm\","
					"\"ResourceName\":\"nvidia.com/ibvf\",\"DeviceIDs\":"
					"{\"-1\":[\"0000:5e:00.6\"]}}"));
	mkdirs("var/log/pods/inference_llm-serve-0_" UID_A "/vllm");
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 1);
	const struct pod_binding *b = &set.v[0];
	ck_assert_str_eq(b->bdf, "0000:5e:00.6");
	ck_assert_str_eq(b->ns, "inference");
	ck_assert_str_eq(b->name, "llm-serve-0");
	ck_assert_str_eq(b->container, "vllm");
	ck_assert_str_eq(b->resource, "nvidia.com/ibvf");
	ck_assert_str_eq(b->network, "ib-sriov-network");
	ck_assert_str_eq(b->ifname, "net1");
	ck_assert_str_eq(b->host_ifname, "ibp64s0v3");
	ck_assert_str_eq(b->pkey, "0x7fff");
	ck_assert_str_eq(b->netns, NETNS);
	ck_assert_uint_eq(b->sources,
			  POD_SRC_MULTUS | POD_SRC_IB_SRIOV | POD_SRC_CHECKPOINT | POD_SRC_PODLOG);
	ck_assert(!b->stale);
	ck_assert_uint_eq(set.n_notes, 0);
	pods_set_fini(&set);
}
END_TEST

START_TEST(two_vfs_in_one_pod)
{
	put(MULTUS_DIR "ib-sriov-network-" CID "-net1",
	    multus_json("0000:c0:00.1", "ml-training", "trainer-1", UID_B, "net1"));
	put(MULTUS_DIR "ib-sriov-network-" CID "-net2",
	    multus_json("0000:dc:00.1", "ml-training", "trainer-1", UID_B, "net2"));
	put(CHECKPOINT, checkpoint_json("{\"PodUID\":\"" UID_B "\",\"ContainerName\":\"trainer\","
					"\"ResourceName\":\"nvidia.com/ibvf\",\"DeviceIDs\":"
					"{\"-1\":[\"0000:c0:00.1\",\"0000:dc:00.1\"]}}"));
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 2);
	ck_assert_str_eq(set.v[0].bdf, "0000:c0:00.1");
	ck_assert_str_eq(set.v[0].ifname, "net1");
	ck_assert_str_eq(set.v[1].bdf, "0000:dc:00.1");
	ck_assert_str_eq(set.v[1].ifname, "net2");
	for (size_t i = 0; i < 2; i++) {
		ck_assert_str_eq(set.v[i].uid, UID_B);
		ck_assert_str_eq(set.v[i].container, "trainer");
		ck_assert_uint_eq(set.v[i].sources, POD_SRC_MULTUS | POD_SRC_CHECKPOINT);
	}
	pods_set_fini(&set);
}
END_TEST

START_TEST(malformed_json_is_skipped_with_a_note)
{
	put(MULTUS_DIR "bad", "{\"kind\":\"cniCacheV1\",\"ifName\":net1}");
	put(MULTUS_DIR "trailing", "{\"capabilityArgs\":{\"deviceID\":\"0000:40:00.4\"}} {}");
	put(MULTUS_DIR "array", "[1,2,3]");
	put("var/lib/cni/ib-sriov/" CID "-net1", "{\"deviceID\":\"18:00.3\"}");
	put(CHECKPOINT, "{\"Data\":{\"PodDeviceEntries\":{}}}");
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 0);
	ck_assert(has_note(&set, "results/bad'", "malformed JSON"));
	ck_assert(has_note(&set, "results/trailing'", "data after the end"));
	ck_assert(has_note(&set, "results/array'", "not a JSON object"));
	ck_assert(has_note(&set, "ib-sriov/" CID "-net1'", "no PCI address"));
	ck_assert(has_note(&set, "kubelet_internal_checkpoint'", "PodDeviceEntries"));
	pods_set_fini(&set);
}
END_TEST

START_TEST(half_written_files_are_skipped_with_a_note)
{
	const char *full = multus_json("0000:40:00.4", "ml-training", "trainer-0", UID_A, "net1");
	char half[2048];
	snprintf(half, sizeof(half), "%.*s", (int)(strlen(full) / 2), full);
	put(MULTUS_DIR "ib-sriov-network-" CID "-net1", half);
	put(MULTUS_DIR "empty", "");
	/* The other VF's file is whole: it still counts. */
	put(MULTUS_DIR "ib-sriov-network-" CID "-net2",
	    multus_json("0000:40:00.5", "ml-training", "trainer-0", UID_A, "net2"));
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 1);
	ck_assert_str_eq(set.v[0].bdf, "0000:40:00.5");
	ck_assert(has_note(&set, CID "-net1'", "truncated JSON (half-written?)"));
	ck_assert(has_note(&set, "results/empty'", "empty file"));
	pods_set_fini(&set);
}
END_TEST

START_TEST(oversized_file_is_skipped_with_a_note)
{
	size_t n = PODS_FILE_MAX + 16;
	char *big = malloc(n + 1);
	ck_assert_ptr_nonnull(big);
	const char *head = "{\"capabilityArgs\":{\"deviceID\":\"0000:40:00.4\"},\"pad\":\"";
	memset(big, 'x', n);
	memcpy(big, head, strlen(head));
	memcpy(big + n - 2, "\"}", 2);
	big[n] = '\0';
	put(MULTUS_DIR "big", big);
	free(big);
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 0);
	ck_assert(has_note(&set, "results/big'", "larger than"));
	pods_set_fini(&set);
}
END_TEST

START_TEST(discovery_attaches_bindings_and_keeps_unplaced_ones)
{
	mkdirs("sys/bus/pci/devices");
	put(MULTUS_DIR "ib-sriov-network-" CID "-net1",
	    multus_json("0000:40:00.4", "ml-training", "trainer-0", UID_A, "net1"));
	put(MULTUS_DIR "bad", "{");
	struct sys *s;
	struct err e = {{0}};
	ck_assert_int_eq(sys_open_linux(root, &s, &e), 0);
	struct node *n;
	ck_assert_msg(node_discover(s, &n, &e) == 0, "discover: %s", e.msg);
	sys_close(s);
	ck_assert_uint_eq(n->n_pods_unplaced, 1);
	ck_assert_str_eq(n->pods_unplaced[0].name, "trainer-0");
	bool noted = false;
	for (size_t i = 0; i < n->n_notes; i++)
		noted |= strstr(n->notes[i], "results/bad'") != NULL;
	ck_assert(noted);

	struct json_object *o = node_pods_to_json(n);
	ck_assert_ptr_nonnull(o);
	struct json_object *pods, *pod, *v;
	ck_assert(json_object_object_get_ex(o, "pods", &pods));
	ck_assert_uint_eq(json_object_array_length(pods), 1);
	pod = json_object_array_get_idx(pods, 0);
	ck_assert(json_object_object_get_ex(pod, "name", &v));
	ck_assert_str_eq(json_object_get_string(v), "trainer-0");
	json_object_put(o);
	node_free(n);
}
END_TEST

/* The simulated DGX H200's pods, through the whole CLI. */
static struct json_object *run_json(const char *const *argv)
{
	char *out = NULL, *err = NULL;
	int rc = tu_run(argv, &out, &err);
	ck_assert_msg(rc == 0, "ibvf failed (%d): %s", rc, err);
	struct json_object *o = json_tokener_parse(out);
	ck_assert_msg(o != NULL, "not JSON: %s", out);
	free(out);
	free(err);
	return o;
}

static struct json_object *key(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;
	ck_assert_msg(json_object_object_get_ex(o, k, &v), "no key '%s'", k);
	return v;
}

START_TEST(fixture_pods_in_list_and_pod_view)
{
	char *dir = tu_mkfixture(NULL);
	char sim[PATH_MAX];
	snprintf(sim, sizeof(sim), "--sim=%s", dir);

	const char *pods_argv[] = {sim, "list", "--pods", "--json", NULL};
	struct json_object *o = run_json(pods_argv);
	struct json_object *pods = key(o, "pods");
	size_t stale = 0, two = 0;
	for (size_t i = 0; i < json_object_array_length(pods); i++) {
		struct json_object *p = json_object_array_get_idx(pods, i);
		stale += json_object_get_boolean(key(p, "stale"));
		struct json_object *name = key(p, "name");
		if (name && !strcmp(json_object_get_string(name), "trainer-1")) {
			ck_assert_uint_eq(json_object_array_length(key(p, "vfs")), 2);
			two++;
		}
	}
	ck_assert_uint_eq(stale, 1);
	ck_assert_uint_eq(two, 1);
	bool half = false;
	struct json_object *notes = key(o, "notes");
	for (size_t i = 0; i < json_object_array_length(notes); i++)
		half |= strstr(json_object_get_string(json_object_array_get_idx(notes, i)),
			       "half-written") != NULL;
	ck_assert(half);
	json_object_put(o);

	const char *list_argv[] = {sim, "list", "--json", NULL};
	o = run_json(list_argv);
	size_t bound = 0;
	struct json_object *pfs = key(o, "pfs");
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *vfs = key(json_object_array_get_idx(pfs, i), "vfs");
		for (size_t j = 0; j < json_object_array_length(vfs); j++) {
			struct json_object *pod = key(json_object_array_get_idx(vfs, j), "pod");
			if (!pod)
				continue;
			bound++;
			/* --sim records the netns path and never enters it. */
			ck_assert_ptr_null(key(pod, "in_pod"));
		}
	}
	ck_assert_uint_eq(bound, 5);
	json_object_put(o);

	char *out = NULL;
	const char *text_argv[] = {sim, "list", NULL};
	ck_assert_int_eq(tu_run(text_argv, &out, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, " POD\n"));
	ck_assert_ptr_nonnull(strstr(out, "ml-training/trainer-1\n"));
	ck_assert_ptr_nonnull(strstr(out, "(stale)\n"));
	free(out);
	const char *ptext_argv[] = {sim, "list", "--pods", NULL};
	ck_assert_int_eq(tu_run(ptext_argv, &out, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "POD "));
	ck_assert_ptr_nonnull(strstr(out, "inference/llm-serve-0 "));
	free(out);
	tu_rmtree(dir);
}
END_TEST

static Suite *pods_suite(void)
{
	Suite *s = suite_create("pods_merge");
	TCase *tc = tcase_create("sources");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, all_sources_merge_into_one_binding_per_vf);
	tcase_add_test(tc, two_vfs_in_one_pod);
	tcase_add_test(tc, malformed_json_is_skipped_with_a_note);
	tcase_add_test(tc, half_written_files_are_skipped_with_a_note);
	tcase_add_test(tc, oversized_file_is_skipped_with_a_note);
	tcase_add_test(tc, discovery_attaches_bindings_and_keeps_unplaced_ones);
	suite_add_tcase(s, tc);
	TCase *tf = tcase_create("fixture");
	tcase_add_test(tf, fixture_pods_in_list_and_pod_view);
	suite_add_tcase(s, tf);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pods_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
