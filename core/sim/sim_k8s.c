// SPDX-License-Identifier: MIT
/* The Kubernetes side of the simulated node (docs/kubernetes.md): Multus and
 * ib-sriov-cni caches, the kubelet device checkpoint, pod log directories
 * and netns files, for pods holding VFs. */
#include "core/sim/sim_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/guid.h"
#include "core/model/names.h"

#define RESOURCE       "nvidia.com/ibvf"
#define GPU_RESOURCE   "nvidia.com/gpu"
#define NETWORK	       "ib-sriov-network"
#define CHECKPOINT     "var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"
#define CHECKPOINT_MAX (4 << 20)

static const struct sim_pod pods[] = {
	{"ml-training", "trainer-0", "6f1c2a4e-8b3d-4c71-9e2a-1d5b7c9e0f11",
	 "3a9d7c1e-52f4-4b8e-a1c6-0e7f2d9b4a13",
	 "9f2e4c61b7a83d05e1c9f7a2b4d6e8013579bdf2468ace0f1e2d3c4b5a697887", "trainer"},
	{"ml-training", "trainer-1", "a2b4c6d8-e0f2-4a6c-8e0a-2c4e6f8a0b22",
	 "7b1e5d2c-9a3f-4e6b-8c1d-2f4a6b8c0d24",
	 "1c3e5a7b9d2f4a6c8e0b2d4f6a8c0e1f3a5c7e9b1d3f5a7c9e2b4d6f8a0c1e3f", "trainer"},
	{"inference", "llm-serve-0", "c3d5e7f9-1a2b-4c3d-8e4f-5a6b7c8d9e33",
	 "5c2f8e1a-7d4b-4a9e-b3c6-1e8f5a2d7c35",
	 "e4d2c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5a4938271605f4", "vllm"},
};
/* SIM_POD_VFS slot -> pod, interface in the pod. */
static const struct {
	int pod;
	const char *ifname;
} slots[SIM_POD_VFS] = {{0, "net1"}, {1, "net1"}, {1, "net2"}, {2, "net1"}};
#define TRUNCATED_SLOT 3
#define NETNS_GONE_POD 0 /* trainer-0 */
static const char *stale_uid = "0d9e8f7a-6b5c-4d3e-9f2a-1b0c9d8e7f44";

static int save(const char *root, const char *rel, json_object *j, bool truncate, struct err *e)
{
	const char *text = json_object_to_json_string_ext(
		j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(text);
	/* A file caught half-written: Multus died, or the disk filled. */
	int n = truncate ? (int)(len / 2) : (int)len;
	int r = sim_putf(root, e, rel, "%.*s", n, text);
	json_object_put(j);
	return r;
}

static json_object *pair(const char *k, const char *v)
{
	json_object *a = json_object_new_array();
	json_object_array_add(a, json_object_new_string(k));
	json_object_array_add(a, json_object_new_string(v));
	return a;
}

static int write_multus(const char *root, const struct sim_pod *p, const struct sim_pod_vf *v,
			const char *ifname, unsigned int ip, bool truncate, struct err *e)
{
	char rel[PATH_MAX], netns[128], g[GUID_STRLEN], addr[32];
	sim_fmt(netns, sizeof(netns), "/var/run/netns/cni-%s", p->netns_uuid);
	guid_format_colon(v->guid, g);
	json_object *j = json_object_new_object();
	json_object_object_add(j, "kind", json_object_new_string("cniCacheV1"));
	json_object_object_add(j, "containerId", json_object_new_string(p->container_id));
	json_object_object_add(
		j, "config",
		json_object_new_string("eyJjbmlWZXJzaW9uIjoiMC40LjAiLCJuYW1lIjoiaWItc3Jpb3YtbmV0d29"
				       "yayIsInR5cGUiOiJpYi1zcmlvdiJ9"));
	json_object_object_add(j, "ifName", json_object_new_string(ifname));
	json_object_object_add(j, "networkName", json_object_new_string(NETWORK));
	json_object_object_add(j, "netns", json_object_new_string(netns));
	json_object *args = json_object_new_array();
	json_object_array_add(args, pair("IgnoreUnknown", "true"));
	json_object_array_add(args, pair("K8S_POD_NAMESPACE", p->ns));
	json_object_array_add(args, pair("K8S_POD_NAME", p->name));
	json_object_array_add(args, pair("K8S_POD_INFRA_CONTAINER_ID", p->container_id));
	json_object_array_add(args, pair("K8S_POD_UID", p->uid));
	json_object_object_add(j, "cniArgs", args);
	json_object *cap = json_object_new_object();
	json_object_object_add(cap, "deviceID", json_object_new_string(v->bdf));
	json_object_object_add(cap, "infinibandGUID", json_object_new_string(g));
	json_object_object_add(j, "capabilityArgs", cap);
	json_object *res = json_object_new_object();
	json_object_object_add(res, "cniVersion", json_object_new_string("0.4.0"));
	json_object *ifs = json_object_new_array(), *ifo = json_object_new_object();
	json_object_object_add(ifo, "name", json_object_new_string(ifname));
	json_object_object_add(ifo, "sandbox", json_object_new_string(netns));
	json_object_array_add(ifs, ifo);
	json_object_object_add(res, "interfaces", ifs);
	json_object *ips = json_object_new_array(), *ipo = json_object_new_object();
	sim_fmt(addr, sizeof(addr), "192.168.%u.%u/16", ip >> 8, ip & 0xff);
	json_object_object_add(ipo, "version", json_object_new_string("4"));
	json_object_object_add(ipo, "address", json_object_new_string(addr));
	json_object_object_add(ipo, "interface", json_object_new_int(0));
	json_object_array_add(ips, ipo);
	json_object_object_add(res, "ips", ips);
	json_object_object_add(res, "dns", json_object_new_object());
	json_object_object_add(j, "result", res);
	sim_fmt(rel, sizeof(rel), "var/lib/cni/multus/results/%s-%s-%s", NETWORK, p->container_id,
		ifname);
	return save(root, rel, j, truncate, e);
}

static int write_ib_sriov(const char *root, const struct sim_pod *p, const struct sim_pod_vf *v,
			  const char *ifname, struct err *e)
{
	char rel[PATH_MAX], g[GUID_STRLEN];
	guid_format_colon(v->guid, g);
	json_object *j = json_object_new_object();
	json_object_object_add(j, "cniVersion", json_object_new_string("0.4.0"));
	json_object_object_add(j, "name", json_object_new_string(NETWORK));
	json_object_object_add(j, "type", json_object_new_string("ib-sriov"));
	json_object_object_add(j, "deviceID", json_object_new_string(v->bdf));
	json_object_object_add(j, "VFID", json_object_new_int((int)v->vf));
	json_object_object_add(j, "HostIFNames", json_object_new_string(v->host_ifname));
	json_object_object_add(j, "HostIFGUID", json_object_new_string(g));
	json_object_object_add(j, "ContIFNames", json_object_new_string(ifname));
	json_object_object_add(j, "pkey", json_object_new_string(""));
	json_object_object_add(
		j, "link_state",
		json_object_new_string(vf_link_state_to_string(VF_LINK_STATE_ENABLE)));
	json_object_object_add(j, "rdmaIsolation", json_object_new_boolean(0));
	json_object_object_add(j, "ibKubernetesEnabled", json_object_new_boolean(0));
	char cache[256];
	sim_k8s_cache_name(p, ifname, cache, sizeof(cache));
	sim_fmt(rel, sizeof(rel), "var/lib/cni/ib-sriov/%s", cache);
	return save(root, rel, j, false, e);
}

/* The device plugin's ContainerAllocateResponse (protobuf) with one env
 * variable naming the devices, as kubelet stores it. */
static json_object *alloc_resp(const char *key, const char *bdfs)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char pb[256], out[400];
	size_t kl = strlen(key), vl = strlen(bdfs), n = 0;
	if (kl + vl + 6 > sizeof(pb))
		vl = sizeof(pb) - kl - 6;
	pb[n++] = 0x0a; /* field 1 (envs), a map entry */
	pb[n++] = (unsigned char)(kl + vl + 4);
	pb[n++] = 0x0a;
	pb[n++] = (unsigned char)kl;
	memcpy(pb + n, key, kl);
	n += kl;
	pb[n++] = 0x12;
	pb[n++] = (unsigned char)vl;
	memcpy(pb + n, bdfs, vl);
	n += vl;
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned int v = (unsigned int)pb[i] << 16;
		if (i + 1 < n)
			v |= (unsigned int)pb[i + 1] << 8;
		if (i + 2 < n)
			v |= pb[i + 2];
		out[o++] = (unsigned char)b64[(v >> 18) & 63];
		out[o++] = (unsigned char)b64[(v >> 12) & 63];
		out[o++] = i + 1 < n ? (unsigned char)b64[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < n ? (unsigned char)b64[v & 63] : '=';
	}
	out[o] = '\0';
	return json_object_new_string((const char *)out);
}

static json_object *entry(const char *uid, const char *container, const char **bdfs, size_t n)
{
	char env[128] = "";
	json_object *j = json_object_new_object(), *ids = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		json_object_array_add(ids, json_object_new_string(bdfs[i]));
		sim_fmt(env + strlen(env), sizeof(env) - strlen(env), "%s%s", i ? "," : "",
			bdfs[i]);
	}
	json_object *numa = json_object_new_object();
	json_object_object_add(numa, "-1", ids);
	json_object_object_add(j, "PodUID", json_object_new_string(uid));
	json_object_object_add(j, "ContainerName", json_object_new_string(container));
	json_object_object_add(j, "ResourceName", json_object_new_string(RESOURCE));
	json_object_object_add(j, "DeviceIDs", numa);
	json_object_object_add(j, "AllocResp", alloc_resp("PCIDEVICE_NVIDIA_COM_IBVF", env));
	return j;
}

/* A pod's GPUs as the NVIDIA device plugin allocated them: the UUIDs by
 * NUMA node, NVIDIA_VISIBLE_DEVICES naming them. */
static json_object *gpu_entry(const char *uid, const char *container, const struct sim_pod_vf *v,
			      const int *slots_of_pod, size_t n)
{
	char env[256] = "", key[16];
	json_object *j = json_object_new_object(), *numa = json_object_new_object();
	for (size_t i = 0; i < n; i++) {
		const struct sim_pod_vf *s = &v[slots_of_pod[i]];
		json_object *ids;
		sim_fmt(key, sizeof(key), "%d", s->gpu_numa);
		if (!json_object_object_get_ex(numa, key, &ids)) {
			ids = json_object_new_array();
			json_object_object_add(numa, key, ids);
		}
		json_object_array_add(ids, json_object_new_string(s->gpu_uuid));
		sim_fmt(env + strlen(env), sizeof(env) - strlen(env), "%s%s", i ? "," : "",
			s->gpu_uuid);
	}
	json_object_object_add(j, "PodUID", json_object_new_string(uid));
	json_object_object_add(j, "ContainerName", json_object_new_string(container));
	json_object_object_add(j, "ResourceName", json_object_new_string(GPU_RESOURCE));
	json_object_object_add(j, "DeviceIDs", numa);
	json_object_object_add(j, "AllocResp", alloc_resp("NVIDIA_VISIBLE_DEVICES", env));
	return j;
}

/* The checkpoint around data (taken), saved. */
static int save_checkpoint(const char *root, json_object *data, struct err *e)
{
	json_object *j = json_object_new_object();
	/* kubelet's checksum is FNV-32a over its Go struct dump: any value
	 * reads the same to ibvf, which only reports it. */
	uint32_t h = 2166136261u;
	for (const char *c = json_object_to_json_string(data); *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	json_object_object_add(j, "Data", data);
	json_object_object_add(j, "Checksum", json_object_new_int64(h));
	return save(root, CHECKPOINT, j, false, e);
}

static int write_checkpoint(const char *root, const struct sim_pod_vf v[SIM_POD_VFS],
			    const char *stale_bdf, char (*all)[16], size_t n_all,
			    char (*gpus)[SIM_GPU_UUID_LEN], size_t n_gpus, struct err *e)
{
	json_object *entries = json_object_new_array();
	for (size_t p = 0; p < sizeof(pods) / sizeof(pods[0]); p++) {
		const char *bdfs[SIM_POD_VFS];
		size_t n = 0;
		for (int s = 0; s < SIM_POD_VFS; s++)
			if (slots[s].pod == (int)p && v[s].present)
				bdfs[n++] = v[s].bdf;
		if (n)
			json_object_array_add(entries,
					      entry(pods[p].uid, pods[p].container, bdfs, n));
		int with_gpu[SIM_POD_VFS];
		size_t ng = 0;
		for (int s = 0; s < SIM_POD_VFS; s++)
			if (slots[s].pod == (int)p && v[s].present && v[s].gpu_uuid[0])
				with_gpu[ng++] = s;
		if (ng)
			json_object_array_add(entries, gpu_entry(pods[p].uid, pods[p].container, v,
								 with_gpu, ng));
	}
	if (stale_bdf)
		json_object_array_add(entries, entry(stale_uid, "worker", &stale_bdf, 1));
	json_object *devs = json_object_new_array();
	for (size_t i = 0; i < n_all; i++)
		json_object_array_add(devs, json_object_new_string(all[i]));
	json_object *reg = json_object_new_object();
	json_object_object_add(reg, RESOURCE, devs);
	if (n_gpus) {
		json_object *g = json_object_new_array();
		for (size_t i = 0; i < n_gpus; i++)
			json_object_array_add(g, json_object_new_string(gpus[i]));
		json_object_object_add(reg, GPU_RESOURCE, g);
	}
	json_object *data = json_object_new_object();
	json_object_object_add(data, "PodDeviceEntries", entries);
	json_object_object_add(data, "RegisteredDevices", reg);
	return save_checkpoint(root, data, e);
}

int sim_k8s_write(const char *root, const struct sim_pod_vf v[SIM_POD_VFS], const char *stale_bdf,
		  bool faulty, char (*all_vfs)[16], size_t n_all, char (*gpus)[SIM_GPU_UUID_LEN],
		  size_t n_gpus, struct err *e)
{
	char rel[PATH_MAX];
	int r = sim_mkdirs(root, "var/lib/cni/multus/results", e);
	if (r == 0)
		r = sim_mkdirs(root, "var/lib/cni/sriov/pci", e);
	for (size_t p = 0; p < sizeof(pods) / sizeof(pods[0]) && r == 0; p++) {
		bool used = false;
		for (int s = 0; s < SIM_POD_VFS; s++)
			used |= slots[s].pod == (int)p && v[s].present;
		if (!used)
			continue;
		sim_fmt(rel, sizeof(rel), "var/log/pods/%s_%s_%s/%s/0.log", pods[p].ns,
			pods[p].name, pods[p].uid, pods[p].container);
		r = sim_putf(root, e, rel, "%s", "");
		sim_fmt(rel, sizeof(rel), "var/run/netns/cni-%s", pods[p].netns_uuid);
		if (r == 0 && !(faulty && p == NETNS_GONE_POD))
			r = sim_putf(root, e, rel, "%s", "");
	}
	for (int s = 0; s < SIM_POD_VFS && r == 0; s++) {
		if (!v[s].present)
			continue;
		const struct sim_pod *p = &pods[slots[s].pod];
		r = write_multus(root, p, &v[s], slots[s].ifname, 10 + (unsigned int)s,
				 faulty && s == TRUNCATED_SLOT, e);
		if (r == 0)
			r = write_ib_sriov(root, p, &v[s], slots[s].ifname, e);
	}
	if (r == 0)
		r = write_checkpoint(root, v, stale_bdf, all_vfs, n_all, gpus, n_gpus, e);
	return r;
}

/* The checkpoint's Data, read whole (bounded); a new one when there is
 * none. NULL when it cannot be read as the kubelet's. */
static json_object *checkpoint_data(const char *root, struct err *e)
{
	char path[PATH_MAX];
	sim_fmt(path, sizeof(path), "%s/%s", root, CHECKPOINT);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		json_object *data = json_object_new_object();
		json_object_object_add(data, "PodDeviceEntries", json_object_new_array());
		json_object_object_add(data, "RegisteredDevices", json_object_new_object());
		return data;
	}
	char *buf = fd >= 0 ? malloc(CHECKPOINT_MAX + 1) : NULL;
	ssize_t n = buf ? read(fd, buf, CHECKPOINT_MAX + 1) : -1;
	if (fd >= 0)
		close(fd);
	json_object *j = NULL, *data = NULL, *entries;
	if (n >= 0 && n <= CHECKPOINT_MAX) {
		buf[n] = '\0';
		j = json_tokener_parse(buf);
	}
	free(buf);
	if (j && json_object_object_get_ex(j, "Data", &data) &&
	    json_object_is_type(data, json_type_object) &&
	    json_object_object_get_ex(data, "PodDeviceEntries", &entries) &&
	    json_object_is_type(entries, json_type_array))
		json_object_get(data);
	else
		data = NULL;
	json_object_put(j);
	if (!data)
		err_setx(e, EINVAL, "'%s' cannot be read as the kubelet's device checkpoint", path);
	return data;
}

int sim_k8s_pod_add(const char *root, const struct sim_pod *p, const struct sim_pod_vf *v,
		    const char *ifname, struct err *e)
{
	char rel[PATH_MAX];
	unsigned int dom, bus, dev, fn;
	if (sscanf(v->bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return err_setx(e, EINVAL, "'%s' is not a PCI address", v->bdf);
	json_object *data = checkpoint_data(root, e), *entries;
	if (!data)
		return -EINVAL;
	const char *bdf = v->bdf;
	json_object_object_get_ex(data, "PodDeviceEntries", &entries);
	json_object_array_add(entries, entry(p->uid, p->container, &bdf, 1));
	sim_fmt(rel, sizeof(rel), "var/log/pods/%s_%s_%s/%s/0.log", p->ns, p->name, p->uid,
		p->container);
	int r = sim_putf(root, e, rel, "%s", "");
	/* One address per VF: 192.168.<bus>.<devfn + 1>. */
	if (r == 0)
		r = write_multus(root, p, v, ifname, bus << 8 | ((dev << 3 | fn) % 254 + 1), false,
				 e);
	if (r == 0)
		r = write_ib_sriov(root, p, v, ifname, e);
	if (r == 0)
		r = save_checkpoint(root, data, e);
	else
		json_object_put(data);
	return r;
}

int sim_k8s_cache_name(const struct sim_pod *p, const char *ifname, char *buf, size_t size)
{
	return sim_fmt(buf, size, "%s-%s", p->container_id, ifname);
}
