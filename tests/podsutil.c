// SPDX-License-Identifier: MIT
/* Helpers of the pods suites (test_pods.c, test_pods_merge.c): a fresh root
 * per test, the Kubernetes files written under it, the bindings read back. */
#include "podsutil.h"

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

char *root;

void setup(void)
{
	char tmpl[] = "/tmp/ibvf-pods-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	root = strdup(tmpl);
}

void teardown(void)
{
	tu_rmtree(root);
	root = NULL;
}

/* Writes root/rel, making the directories on the way. */
void put(const char *rel, const char *content)
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

void mkdirs(const char *rel)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s/.keep", rel);
	put(buf, "");
}

const char *multus_json(const char *bdf, const char *ns, const char *name, const char *uid,
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

const char *ib_sriov_json(const char *bdf, const char *cont_if)
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
const char *checkpoint_json(const char *entries)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf),
		 "{\"Data\":{\"PodDeviceEntries\":[%s],\"RegisteredDevices\":{\"nvidia.com/ibvf\":"
		 "[\"0000:40:00.4\",\"0000:18:00.3\"]}},\"Checksum\":1234567890}",
		 entries);
	return buf;
}

struct pod_set read_set(void)
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

bool has_note(const struct pod_set *set, const char *a, const char *b)
{
	for (size_t i = 0; i < set->n_notes; i++)
		if (strstr(set->notes[i], a) && (!b || strstr(set->notes[i], b)))
			return true;
	return false;
}
