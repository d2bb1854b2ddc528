// SPDX-License-Identifier: MIT
/* Pod bindings from the files CNI plugins and kubelet leave on the node
 * (docs/kubernetes.md): each source format, damaged files skipped with a note,
 * the checkpoint cross-check, and the merge by PCI address. Trees are built
 * in a temporary root and read through the real-node code (--root). */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/json.h"
#include "core/node.h"
#include "core/pods.h"
#include "core/sys.h"
#include "testutil.h"

#define UID_A	 "6f1c2a4e-8b3d-4c71-9e2a-1d5b7c9e0f11"
#define UID_B	 "a2b4c6d8-e0f2-4a6c-8e0a-2c4e6f8a0b22"
#define UID_GONE "0d9e8f7a-6b5c-4d3e-9f2a-1b0c9d8e7f44"
#define CID	 "9f2e4c61b7a83d05e1c9f7a2b4d6e8013579bdf2468ace0f1e2d3c4b5a697887"
#define NETNS	 "/var/run/netns/cni-3a9d7c1e-52f4-4b8e-a1c6-0e7f2d9b4a13"

#define MULTUS_DIR "var/lib/cni/multus/results/"
#define CHECKPOINT "var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"

static char *root;

static void setup(void)
{
	char tmpl[] = "/tmp/ibvf-pods-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	root = strdup(tmpl);
}

static void teardown(void)
{
	tu_rmtree(root);
	root = NULL;
}

/* Writes root/rel, making the directories on the way. */
static void put(const char *rel, const char *content)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		ck_assert_msg(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir '%s'", path);
		*p = '/';
	}
	tu_write(path, content);
}

static void mkdirs(const char *rel)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s/.keep", rel);
	put(buf, "");
}

static const char *multus_json(const char *bdf, const char *ns, const char *name, const char *uid,
			       const char *ifname)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf),
		 "{\"kind\":\"cniCacheV1\",\"containerId\":\"" CID "\","
		 "\"config\":\"eyJjbmlWZXJzaW9uIjoiMC40LjAifQ==\",\"ifName\":\"%s\","
		 "\"networkName\":\"ib-sriov-network\",\"netns\":\"" NETNS "\","
		 "\"cniArgs\":[[\"IgnoreUnknown\",\"true\"],[\"K8S_POD_NAMESPACE\",\"%s\"],"
		 "[\"K8S_POD_NAME\",\"%s\"],[\"K8S_POD_INFRA_CONTAINER_ID\",\"" CID "\"],"
		 "[\"K8S_POD_UID\",\"%s\"]],"
		 "\"capabilityArgs\":{\"deviceID\":\"%s\",\"infinibandGUID\":\"a0:88:c2:03:00:40:"
		 "00:04\"},"
		 "\"result\":{\"cniVersion\":\"0.4.0\",\"interfaces\":[{\"name\":\"%s\","
		 "\"sandbox\":\"" NETNS "\"}],\"ips\":[],\"dns\":{}}}",
		 ifname, ns, name, uid, bdf, ifname);
	return buf;
}

static const char *ib_sriov_json(const char *bdf, const char *cont_if)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf),
		 "{\"cniVersion\":\"0.4.0\",\"name\":\"ib-sriov-network\",\"type\":\"ib-sriov\","
		 "\"deviceID\":\"%s\",\"VFID\":3,\"HostIFNames\":\"ibp64s0v3\","
		 "\"HostIFGUID\":\"a0:88:c2:03:00:40:00:04\",\"ContIFNames\":\"%s\","
		 "\"pkey\":\"0x7fff\",\"link_state\":\"enable\",\"rdmaIsolation\":false}",
		 bdf, cont_if);
	return buf;
}

/* One checkpoint entry; ids is the JSON of DeviceIDs. */
static const char *checkpoint_json(const char *entries)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf),
		 "{\"Data\":{\"PodDeviceEntries\":[%s],\"RegisteredDevices\":{\"nvidia.com/ibvf\":"
		 "[\"0000:40:00.4\",\"0000:18:00.3\"]}},\"Checksum\":1234567890}",
		 entries);
	return buf;
}

static struct pod_set read_set(void)
{
	struct sys *s;
	struct err e = {{0}};
	ck_assert_msg(sys_open_linux(root, &s, &e) == 0, "open: %s", e.msg);
	struct pod_set set;
	struct pods_opts o = {.netns = PODS_NETNS_NEVER};
	ck_assert_int_eq(pods_read(s, &o, &set), 0);
	sys_close(s);
	return set;
}

static bool has_note(const struct pod_set *set, const char *a, const char *b)
{
	for (size_t i = 0; i < set->n_notes; i++)
		if (strstr(set->notes[i], a) && (!b || strstr(set->notes[i], b)))
			return true;
	return false;
}

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
