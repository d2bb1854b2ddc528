// SPDX-License-Identifier: MIT
/* The CNI plugins' caches (docs/kubernetes.md): Multus's result cache names the
 * pod, its netns and the interface in it; ib-sriov-cni and sriov-cni keep
 * their network config with the interface names, GUID and pkey. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pods_impl.h"
#include "core/sys/sys.h"

#define MULTUS_DIR    "/var/lib/cni/multus/results"
#define IB_SRIOV_DIR  "/var/lib/cni/ib-sriov"
#define SRIOV_DIR     "/var/lib/cni/sriov"
#define SRIOV_PCI_DIR "/var/lib/cni/sriov/pci"
#define CONFIG_MAX    (64 * 1024) /* Multus's base64 network config */

static int b64_value(int ch)
{
	static const char set[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = ch ? strchr(set, ch) : NULL;
	return p ? (int)(p - set) : -1;
}

/* Standard base64 (Go's encoding of []byte in JSON) into a malloc'd string. */
static char *b64_decode(const char *in)
{
	size_t len = strlen(in);
	if (len > CONFIG_MAX)
		return NULL;
	char *out = malloc(len / 4 * 3 + 4);
	if (!out)
		return NULL;
	size_t o = 0;
	unsigned int acc = 0;
	int bits = 0;
	for (const char *p = in; *p && *p != '='; p++) {
		int v = b64_value((unsigned char)*p);
		if (v < 0) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned int)v;
		if ((bits += 6) >= 8) {
			bits -= 8;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[o] = '\0';
	return out;
}

/* Multus hands the device plugin's device to the delegate as "deviceID" in
 * the network config (top level, or in each plugin of a list), which libcni
 * caches base64-encoded in "config". */
static bool config_device(struct json_object *cache, char bdf[static 16])
{
	const char *b64 = NULL;
	struct json_object *cfg;
	if (json_object_object_get_ex(cache, "config", &cfg) &&
	    json_object_is_type(cfg, json_type_string))
		b64 = json_object_get_string(cfg);
	char *text = b64 ? b64_decode(b64) : NULL;
	struct json_object *conf = text ? json_tokener_parse(text) : NULL;
	free(text);
	bool ok = node_bdf_normalize(pods_jstr(conf, "deviceID"), false, bdf);
	struct json_object *plugins = pods_jget(conf, "plugins", json_type_array);
	for (size_t i = 0; !ok && plugins && i < json_object_array_length(plugins); i++)
		ok = node_bdf_normalize(
			pods_jstr(json_object_array_get_idx(plugins, i), "deviceID"), false, bdf);
	json_object_put(conf);
	return ok;
}

/* The VF a Multus cache entry names: capabilityArgs.deviceID, else the
 * result's interface pciID (CNI 1.1), else the cached network config. */
static bool multus_device(struct json_object *o, char bdf[static 16])
{
	if (node_bdf_normalize(
		    pods_jstr(pods_jget(o, "capabilityArgs", json_type_object), "deviceID"), false,
		    bdf))
		return true;
	struct json_object *ifs =
		pods_jget(pods_jget(o, "result", json_type_object), "interfaces", json_type_array);
	for (size_t i = 0; ifs && i < json_object_array_length(ifs); i++)
		if (node_bdf_normalize(pods_jstr(json_object_array_get_idx(ifs, i), "pciID"), false,
				       bdf))
			return true;
	return config_device(o, bdf);
}

/* cniArgs: [["K8S_POD_NAMESPACE","ml"],["K8S_POD_NAME","trainer-0"],...] */
static const char *cni_arg(struct json_object *o, const char *key)
{
	struct json_object *args = pods_jget(o, "cniArgs", json_type_array);
	for (size_t i = 0; args && i < json_object_array_length(args); i++) {
		struct json_object *kv = json_object_array_get_idx(args, i);
		if (!json_object_is_type(kv, json_type_array) || json_object_array_length(kv) != 2)
			continue;
		struct json_object *k = json_object_array_get_idx(kv, 0),
				   *v = json_object_array_get_idx(kv, 1);
		if (json_object_is_type(k, json_type_string) &&
		    json_object_is_type(v, json_type_string) &&
		    !strcmp(json_object_get_string(k), key))
			return pods_value_ok(json_object_get_string(v));
	}
	return NULL;
}

static void read_multus_file(struct pods_ctx *c, const char *path, const char *name)
{
	(void)name; /* <net>-<containerID>-<ifName>: the content says it all */
	struct json_object *o = pods_parse_file(c, path);
	char bdf[16];
	if (!o)
		return;
	/* Results of networks without a device (the cluster network) name no VF. */
	if (!multus_device(o, bdf))
		goto out;
	const char *uid = cni_arg(o, "K8S_POD_UID");
	struct pod_binding *b = pods_binding(c, bdf);
	if (!b)
		goto out;
	if (!pods_same_pod(b, uid)) {
		pods_note(c, "ignored '%s': pod UID %s for '%s', which pod UID %s holds", path, uid,
			  bdf, b->uid);
		goto out;
	}
	b->sources |= POD_SRC_MULTUS;
	pods_set_str(c, &b->ns, cni_arg(o, "K8S_POD_NAMESPACE"));
	pods_set_str(c, &b->name, cni_arg(o, "K8S_POD_NAME"));
	pods_set_str(c, &b->uid, uid);
	pods_set_str(c, &b->network, pods_jstr(o, "networkName"));
	pods_set_str(c, &b->ifname, pods_jstr(o, "ifName"));
	const char *netns = pods_jstr(o, "netns");
	struct json_object *ifs =
		pods_jget(pods_jget(o, "result", json_type_object), "interfaces", json_type_array);
	for (size_t i = 0; !netns && ifs && i < json_object_array_length(ifs); i++)
		netns = pods_jstr(json_object_array_get_idx(ifs, i), "sandbox");
	pods_set_str(c, &b->netns, netns);
	pods_set_str(c, &b->container_id, pods_jstr(o, "containerId"));
	pods_set_str(c, &b->container_id, cni_arg(o, "K8S_POD_INFRA_CONTAINER_ID"));
	pods_set_str(c, &b->guid,
		     pods_jstr(pods_jget(o, "capabilityArgs", json_type_object), "infinibandGUID"));
out:
	json_object_put(o);
}

/* "<containerID>-<ifname>": the container ID is hex. */
static void cache_container_id(struct pods_ctx *c, struct pod_binding *b, const char *name)
{
	const char *dash = strchr(name, '-');
	size_t n = dash ? (size_t)(dash - name) : 0;
	if (n < 12 || n > 128)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)name[i]))
			return;
	char id[129];
	snprintf(id, sizeof(id), "%.*s", (int)n, name);
	pods_set_str(c, &b->container_id, id);
}

/* ib-sriov-cni and sriov-cni save their NetConf under the same keys. */
static void read_cni_cache(struct pods_ctx *c, const char *path, const char *name, unsigned int src)
{
	struct json_object *o = pods_parse_file(c, path);
	char bdf[16];
	if (!o)
		return;
	if (!node_bdf_normalize(pods_jstr(o, "deviceID"), false, bdf)) {
		pods_note(c, "skipped '%s': no PCI address in 'deviceID'", path);
		goto out;
	}
	struct pod_binding *b = pods_binding(c, bdf);
	if (!b)
		goto out;
	b->sources |= src;
	pods_set_str(c, &b->ifname, pods_jstr(o, "ContIFNames"));
	pods_set_str(c, &b->host_ifname, pods_jstr(o, "HostIFNames"));
	pods_set_str(c, &b->guid, pods_jstr(o, "HostIFGUID"));
	pods_set_str(c, &b->pkey, pods_jstr(o, "pkey"));
	cache_container_id(c, b, name);
out:
	json_object_put(o);
}

static void read_ib_sriov_file(struct pods_ctx *c, const char *path, const char *name)
{
	read_cni_cache(c, path, name, POD_SRC_IB_SRIOV);
}

static void read_sriov_file(struct pods_ctx *c, const char *path, const char *name)
{
	read_cni_cache(c, path, name, POD_SRC_SRIOV);
}

/* sriov-cni's allocator: /var/lib/cni/sriov/pci/<bdf> holds the netns path. */
static void read_sriov_pci_file(struct pods_ctx *c, const char *path, const char *name)
{
	char bdf[16], buf[PATH_MAX];
	if (!node_bdf_normalize(name, false, bdf))
		return;
	int r = sys_read_attr(c->s, path, buf, sizeof(buf));
	if (r == -ENOENT)
		return;
	if (r <= 0 || buf[0] != '/' || !pods_value_ok(buf)) {
		const char *why = r < 0 ? strerror(-r) : r == 0 ? "empty file" : "not a netns path";
		pods_note(c, "skipped '%s': %s", path, why);
		pods_broken(c, path, why);
		return;
	}
	struct pod_binding *b = pods_binding(c, bdf);
	if (!b)
		return;
	b->sources |= POD_SRC_SRIOV;
	pods_set_str(c, &b->netns, buf);
}

void pods_read_cni(struct pods_ctx *c)
{
	pods_for_each_file(c, MULTUS_DIR, read_multus_file);
	pods_for_each_file(c, SRIOV_PCI_DIR, read_sriov_pci_file);
	pods_for_each_file(c, IB_SRIOV_DIR, read_ib_sriov_file);
	pods_for_each_file(c, SRIOV_DIR, read_sriov_file);
}
