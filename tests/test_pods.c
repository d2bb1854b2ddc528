// SPDX-License-Identifier: MIT
/* Pod bindings from the files CNI plugins and kubelet leave on the node
 * (docs/kubernetes.md): each source format and the checkpoint cross-check
 * (the merge by PCI address and damaged files are in test_pods_merge.c). Trees are built
 * in a temporary root and read through the real-node code (--root). */
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

START_TEST(no_files_no_bindings_no_notes)
{
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 0);
	ck_assert_uint_eq(set.n_notes, 0);
	pods_set_fini(&set);
}
END_TEST

START_TEST(multus_result_names_pod_netns_and_interface)
{
	put(MULTUS_DIR "ib-sriov-network-" CID "-net1",
	    multus_json("0000:40:00.4", "ml-training", "trainer-0", UID_A, "net1"));
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 1);
	const struct pod_binding *b = pods_find(&set, "0000:40:00.4");
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(b->ns, "ml-training");
	ck_assert_str_eq(b->name, "trainer-0");
	ck_assert_str_eq(b->uid, UID_A);
	ck_assert_str_eq(b->ifname, "net1");
	ck_assert_str_eq(b->network, "ib-sriov-network");
	ck_assert_str_eq(b->netns, NETNS);
	ck_assert_str_eq(b->container_id, CID);
	ck_assert_str_eq(b->guid, "a0:88:c2:03:00:40:00:04");
	ck_assert_uint_eq(b->sources, POD_SRC_MULTUS);
	ck_assert(!b->stale);
	ck_assert(!b->in_pod.known && !b->in_pod.error);
	ck_assert_uint_eq(set.n_notes, 0);
	pods_set_fini(&set);
}
END_TEST

START_TEST(multus_device_from_cni_result_or_cached_config)
{
	/* CNI 1.1 result: interfaces[].pciID; no capabilityArgs. */
	put(MULTUS_DIR "net-a-" CID "-net1",
	    "{\"kind\":\"cniCacheV1\",\"ifName\":\"net1\",\"netns\":\"" NETNS "\","
	    "\"cniArgs\":[[\"K8S_POD_NAMESPACE\",\"ns\"],[\"K8S_POD_NAME\",\"p\"]],"
	    "\"result\":{\"interfaces\":[{\"name\":\"net1\",\"pciID\":\"0000:40:00.5\"}]}}");
	/* Multus puts deviceID in the delegate's config, which libcni caches in
	 * base64: {"cniVersion":"1.0.0","plugins":[{"type":"ib-sriov","deviceID":"0000:40:00.6"}]}
	 */
	put(MULTUS_DIR "net-b-" CID "-net2",
	    "{\"kind\":\"cniCacheV1\",\"ifName\":\"net2\",\"config\":"
	    "\"eyJjbmlWZXJzaW9uIjoiMS4wLjAiLCJwbHVnaW5zIjpbeyJ0eXBlIjoiaWIt"
	    "c3Jpb3YiLCJkZXZpY2VJRCI6IjAwMDA6NDA6MDAuNiJ9XX0=\","
	    "\"cniArgs\":[[\"K8S_POD_NAMESPACE\",\"ns\"],[\"K8S_POD_NAME\",\"p\"]]}");
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 2);
	ck_assert_str_eq(pods_find(&set, "0000:40:00.5")->ifname, "net1");
	ck_assert_str_eq(pods_find(&set, "0000:40:00.6")->ifname, "net2");
	pods_set_fini(&set);
}
END_TEST

START_TEST(multus_result_of_the_cluster_network_is_no_binding)
{
	put(MULTUS_DIR "k8s-pod-network-" CID "-eth0",
	    "{\"kind\":\"cniCacheV1\",\"ifName\":\"eth0\",\"networkName\":\"k8s-pod-network\","
	    "\"cniArgs\":[[\"K8S_POD_NAMESPACE\",\"ns\"],[\"K8S_POD_NAME\",\"p\"]],"
	    "\"result\":{\"interfaces\":[{\"name\":\"eth0\"}]}}");
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 0);
	ck_assert_uint_eq(set.n_notes, 0);
	pods_set_fini(&set);
}
END_TEST

START_TEST(multus_missing_fields_are_unknown_not_empty)
{
	put(MULTUS_DIR "x", "{\"capabilityArgs\":{\"deviceID\":\"0000:40:00.4\"},"
			    "\"cniArgs\":[[\"K8S_POD_NAME\"],42,[\"K8S_POD_UID\",7]],"
			    "\"ifName\":\"\",\"netns\":3}");
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 1);
	const struct pod_binding *b = &set.v[0];
	ck_assert_str_eq(b->bdf, "0000:40:00.4");
	ck_assert_ptr_null(b->ns);
	ck_assert_ptr_null(b->name);
	ck_assert_ptr_null(b->uid);
	ck_assert_ptr_null(b->ifname);
	ck_assert_ptr_null(b->netns);
	ck_assert_uint_eq(b->sources, POD_SRC_MULTUS);
	ck_assert(!b->stale);
	pods_set_fini(&set);
}
END_TEST

START_TEST(ib_sriov_cache_gives_names_guid_and_pkey)
{
	put("var/lib/cni/ib-sriov/" CID "-net1", ib_sriov_json("0000:40:00.4", "net1"));
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 1);
	const struct pod_binding *b = &set.v[0];
	ck_assert_str_eq(b->bdf, "0000:40:00.4");
	ck_assert_str_eq(b->ifname, "net1");
	ck_assert_str_eq(b->host_ifname, "ibp64s0v3");
	ck_assert_str_eq(b->guid, "a0:88:c2:03:00:40:00:04");
	ck_assert_str_eq(b->pkey, "0x7fff");
	ck_assert_str_eq(b->container_id, CID);
	ck_assert_ptr_null(b->uid);
	ck_assert_uint_eq(b->sources, POD_SRC_IB_SRIOV);
	pods_set_fini(&set);
}
END_TEST

START_TEST(sriov_cache_and_pci_file_give_names_and_netns)
{
	put("var/lib/cni/sriov/" CID "-net1",
	    "{\"cniVersion\":\"0.4.0\",\"type\":\"sriov\",\"deviceID\":\"0000:29:00.2\","
	    "\"ContIFNames\":\"net1\",\"HostIFNames\":\"enp41s0f0v0\",\"vlan\":0}");
	put("var/lib/cni/sriov/pci/0000:29:00.2", NETNS);
	put("var/lib/cni/sriov/pci/not-a-bdf", "/x");
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 1);
	const struct pod_binding *b = &set.v[0];
	ck_assert_str_eq(b->ifname, "net1");
	ck_assert_str_eq(b->host_ifname, "enp41s0f0v0");
	ck_assert_str_eq(b->netns, NETNS);
	ck_assert_uint_eq(b->sources, POD_SRC_SRIOV);
	ck_assert_uint_eq(set.n_notes, 0);
	pods_set_fini(&set);
}
END_TEST

START_TEST(checkpoint_entry_confirmed_by_pod_log_is_named_and_live)
{
	put(CHECKPOINT, checkpoint_json("{\"PodUID\":\"" UID_A "\",\"ContainerName\":\"trainer\","
					"\"ResourceName\":\"nvidia.com/ibvf\",\"DeviceIDs\":"
					"{\"-1\":[\"0000:40:00.4\"]},\"AllocResp\":\"CgQKAkFC\"}"));
	mkdirs("var/log/pods/ml-training_trainer-0_" UID_A "/trainer");
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 1);
	const struct pod_binding *b = &set.v[0];
	ck_assert_str_eq(b->uid, UID_A);
	ck_assert_str_eq(b->ns, "ml-training");
	ck_assert_str_eq(b->name, "trainer-0");
	ck_assert_str_eq(b->container, "trainer");
	ck_assert_str_eq(b->resource, "nvidia.com/ibvf");
	ck_assert_uint_eq(b->sources, POD_SRC_CHECKPOINT | POD_SRC_PODLOG);
	ck_assert(!b->stale);
	pods_set_fini(&set);
}
END_TEST

START_TEST(checkpoint_entry_alone_is_stale)
{
	put(CHECKPOINT, checkpoint_json("{\"PodUID\":\"" UID_GONE "\",\"ContainerName\":\"worker\","
					"\"ResourceName\":\"nvidia.com/ibvf\",\"DeviceIDs\":"
					"{\"-1\":[\"0000:18:00.3\"]}}"));
	/* Another pod's log directory confirms nothing about this one. */
	mkdirs("var/log/pods/ml-training_trainer-0_" UID_A);
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 1);
	const struct pod_binding *b = &set.v[0];
	ck_assert_str_eq(b->uid, UID_GONE);
	ck_assert_ptr_null(b->name);
	ck_assert_uint_eq(b->sources, POD_SRC_CHECKPOINT);
	ck_assert(b->stale);
	pods_set_fini(&set);
}
END_TEST

START_TEST(checkpoint_old_format_and_non_pci_devices)
{
	/* Before kubelet 1.20 DeviceIDs was a plain list; GPUs are no VFs. */
	put(CHECKPOINT,
	    checkpoint_json(
		    "{\"PodUID\":\"" UID_A "\",\"ContainerName\":\"c\",\"ResourceName\":"
		    "\"nvidia.com/ibvf\",\"DeviceIDs\":[\"0000:40:00.4\",\"0000:40:00.5\"]},"
		    "{\"PodUID\":\"" UID_B "\",\"ContainerName\":\"c\",\"ResourceName\":"
		    "\"nvidia.com/gpu\",\"DeviceIDs\":{\"0\":[\"GPU-8e1f0c3a-1111\"]}},"
		    "{\"ContainerName\":\"no-uid\",\"DeviceIDs\":[\"0000:40:00.7\"]}"));
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 2);
	ck_assert_str_eq(pods_find(&set, "0000:40:00.4")->uid, UID_A);
	ck_assert_str_eq(pods_find(&set, "0000:40:00.5")->uid, UID_A);
	pods_set_fini(&set);
}
END_TEST

START_TEST(checkpoint_entry_of_a_gone_pod_does_not_override_multus)
{
	put(MULTUS_DIR "ib-sriov-network-" CID "-net1",
	    multus_json("0000:40:00.4", "ml-training", "trainer-0", UID_A, "net1"));
	put(CHECKPOINT, checkpoint_json("{\"PodUID\":\"" UID_GONE "\",\"ContainerName\":\"old\","
					"\"ResourceName\":\"nvidia.com/ibvf\",\"DeviceIDs\":"
					"{\"-1\":[\"0000:40:00.4\"]}},"
					"{\"PodUID\":\"" UID_A "\",\"ContainerName\":\"trainer\","
					"\"ResourceName\":\"nvidia.com/ibvf\",\"DeviceIDs\":"
					"{\"-1\":[\"0000:40:00.4\"]}}"));
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 1);
	const struct pod_binding *b = &set.v[0];
	ck_assert_str_eq(b->uid, UID_A);
	ck_assert_str_eq(b->container, "trainer");
	ck_assert_uint_eq(b->sources, POD_SRC_MULTUS | POD_SRC_CHECKPOINT);
	ck_assert(has_note(&set, "stale kubelet checkpoint entry", UID_GONE));
	pods_set_fini(&set);
}
END_TEST

START_TEST(pod_log_names_a_pod_known_by_uid_only)
{
	put("var/lib/cni/ib-sriov/" CID "-net1", ib_sriov_json("0000:40:00.4", "net1"));
	put(CHECKPOINT, checkpoint_json("{\"PodUID\":\"" UID_B "\",\"ContainerName\":\"trainer\","
					"\"ResourceName\":\"nvidia.com/ibvf\",\"DeviceIDs\":"
					"{\"-1\":[\"0000:40:00.4\"]}}"));
	mkdirs("var/log/pods/ml-training_trainer-1_" UID_B "/trainer");
	mkdirs("var/log/pods/not-a-pod-dir");
	put("var/log/pods/a_b_c_d", "");
	struct pod_set set = read_set();
	ck_assert_uint_eq(set.n, 1);
	const struct pod_binding *b = &set.v[0];
	ck_assert_str_eq(b->ns, "ml-training");
	ck_assert_str_eq(b->name, "trainer-1");
	ck_assert_uint_eq(b->sources, POD_SRC_IB_SRIOV | POD_SRC_CHECKPOINT | POD_SRC_PODLOG);
	pods_set_fini(&set);
}
END_TEST

static Suite *pods_suite(void)
{
	Suite *s = suite_create("pods");
	TCase *tc = tcase_create("sources");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, no_files_no_bindings_no_notes);
	tcase_add_test(tc, multus_result_names_pod_netns_and_interface);
	tcase_add_test(tc, multus_device_from_cni_result_or_cached_config);
	tcase_add_test(tc, multus_result_of_the_cluster_network_is_no_binding);
	tcase_add_test(tc, multus_missing_fields_are_unknown_not_empty);
	tcase_add_test(tc, ib_sriov_cache_gives_names_guid_and_pkey);
	tcase_add_test(tc, sriov_cache_and_pci_file_give_names_and_netns);
	tcase_add_test(tc, checkpoint_entry_confirmed_by_pod_log_is_named_and_live);
	tcase_add_test(tc, checkpoint_entry_alone_is_stale);
	tcase_add_test(tc, checkpoint_old_format_and_non_pci_devices);
	tcase_add_test(tc, checkpoint_entry_of_a_gone_pod_does_not_override_multus);
	tcase_add_test(tc, pod_log_names_a_pod_known_by_uid_only);
	suite_add_tcase(s, tc);
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
