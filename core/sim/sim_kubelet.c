// SPDX-License-Identifier: MIT
/* The kubelet after a reboot of the simulated node (sim_boot.h): the pods
 * that held VFs run again, and the CNI moves a VF into each.
 *
 * The model, and why: a real reboot kills every pod; the kubelet, started
 * after the boot unit (Before=kubelet.service), admits the same pods again,
 * gives each the devices its checkpoint already holds (the device manager
 * re-uses the allocations in kubelet_internal_checkpoint, so the same VF by
 * PCI address), and the CNI ADD of the new sandbox moves that VF's netdev
 * into the pod's netns under its pod interface name, recording the host name
 * and GUID it had then (ib-sriov-cni's HostIFNames, HostIFGUID). So the
 * checkpoint and Multus' cache are left as they are, the ib-sriov cache
 * gets the VF's host name and GUID as the unit and udev left them, and the
 * netns file is there again. Simplifications: the sandbox keeps its
 * container ID and netns name (a real one gets new ones; ibvf reads the same
 * binding from either), and ib-sriov-cni's own GUID setting from the
 * network's infinibandGUID is not modelled (the unit set the GUIDs the
 * pods had). A VF with no host netdev (the unit did not create it) is not
 * moved: the CNI ADD fails and the pod waits, which the log says. */
#include "core/sim/sim_boot.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "core/sim/sim_tree.h"
#include "core/sim/sys_sim.h"
#include "core/sys/sys.h"

#define CACHE_MAX (64 << 10)
#define IB_SRIOV  "/var/lib/cni/ib-sriov"
#define MULTUS	  "/var/lib/cni/multus/results"

static json_object *read_json(struct sys *s, const char *path)
{
	char *text;
	if (sys_read_file(s, path, CACHE_MAX, &text, NULL) < 0)
		return NULL;
	json_object *j = json_tokener_parse(text);
	free(text);
	if (j && !json_object_is_type(j, json_type_object)) {
		json_object_put(j);
		j = NULL;
	}
	return j;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;
	return o && json_object_object_get_ex(o, key, &v) &&
			       json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

/* The pod's Multus cache for this sandbox and interface ("<net>-<cid>-<if>"),
 * whole; NULL when there is none or it cannot be read. */
static json_object *multus_of(struct sys *s, const char *cache_name)
{
	char **names, path[PATH_MAX];
	size_t n, len = strlen(cache_name);
	json_object *j = NULL;
	if (sys_list(s, MULTUS, &names, &n) < 0)
		return NULL;
	for (size_t i = 0; i < n && !j; i++) {
		size_t nl = strlen(names[i]);
		if (nl <= len + 1 || strcmp(names[i] + nl - len, cache_name) ||
		    names[i][nl - len - 1] != '-')
			continue;
		snprintf(path, sizeof(path), "%s/%s", MULTUS, names[i]);
		j = read_json(s, path);
	}
	sys_list_free(names, n);
	return j;
}

/* "ns/name" of the pod from its Multus cache's CNI args. */
static void pod_label(json_object *multus, char *buf, size_t size)
{
	const char *ns = NULL, *name = NULL;
	json_object *args;
	snprintf(buf, size, "a pod");
	if (!multus || !json_object_object_get_ex(multus, "cniArgs", &args) ||
	    !json_object_is_type(args, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(args); i++) {
		json_object *kv = json_object_array_get_idx(args, i);
		if (!json_object_is_type(kv, json_type_array) || json_object_array_length(kv) != 2)
			continue;
		const char *k = json_object_get_string(json_object_array_get_idx(kv, 0));
		const char *v = json_object_get_string(json_object_array_get_idx(kv, 1));
		if (k && !strcmp(k, "K8S_POD_NAMESPACE"))
			ns = v;
		else if (k && !strcmp(k, "K8S_POD_NAME"))
			name = v;
	}
	if (ns && name)
		snprintf(buf, size, "pod %s/%s", ns, name);
}

/* The netns file the sandbox's netns path names, made again (empty, as the
 * fixture has them) when it is one of /var/run/netns or /run/netns. */
static int netns_make(struct sys *s, const char *netns, struct err *e)
{
	const char *base = NULL;
	if (!strncmp(netns, "/var/run/netns/", 15))
		base = netns + 15;
	else if (!strncmp(netns, "/run/netns/", 11))
		base = netns + 11;
	if (!base || !*base || strchr(base, '/') || !strcmp(base, "..") || !strcmp(base, "."))
		return 0;
	char rel[PATH_MAX];
	sim_fmt(rel, sizeof(rel), "var/run/netns/%s", base);
	return sim_putf(sys_root(s), e, rel, "%s", "");
}

/* Moves the netdev of bdf out of the host (into the pod): its directory and
 * class link go, with the "remove" the host's namespace sees. */
static int move_out(const char *root, const char *bdf, const char *ifname, struct err *e)
{
	char fn[PATH_MAX], rel[PATH_MAX];
	int r = sim_fn_rel(root, bdf, fn, sizeof(fn));
	if (r < 0)
		return err_set(e, -r, "no PCI function '%s'", bdf);
	sim_fmt(rel, sizeof(rel), "%s/net/%s", fn, ifname);
	if ((r = sim_event_add(root, "remove", "net", ifname, NULL, rel, e)) < 0 ||
	    (r = sim_rmtree(root, rel, e)) < 0)
		return r;
	sim_fmt(rel, sizeof(rel), "sys/class/net/%s", ifname);
	return sim_rmtree(root, rel, e);
}

int sim_kubelet_cni_add(struct sys *s, const char *cache, bool again, struct sim_boot_log *log,
			struct err *e)
{
	char path[PATH_MAX], net[PATH_MAX], pf[16], label[160], g[GUID_STRLEN];
	char **names = NULL;
	size_t n = 0;
	unsigned int vf;
	struct sim_vf_admin a;
	snprintf(path, sizeof(path), "%s/%s", IB_SRIOV, cache);
	json_object *j = read_json(s, path), *multus = multus_of(s, cache);
	const char *bdf = jstr(j, "deviceID"), *ifname = jstr(j, "ContIFNames");
	int r = 0;
	pod_label(multus, label, sizeof(label));
	if (!bdf || !ifname || strlen(bdf) >= 16 || strchr(bdf, '/')) {
		sim_boot_note(log, "%s: '%s' cannot be read: its pod is not re-run", label, path);
		goto out;
	}
	snprintf(net, sizeof(net), "/sys/bus/pci/devices/%s/net", bdf);
	if (sys_list(s, net, &names, &n) < 0 || n == 0 ||
	    sim_kernel_vf_of(sys_root(s), bdf, pf, &vf) < 0 ||
	    sim_vf_admin_read(sys_root(s), pf, vf, &a) < 0) {
		sim_boot_note(log,
			      "%s waits: its VF %s has no netdev on the host (CNI ADD "
			      "fails)",
			      label, bdf);
		goto out;
	}
	guid_format_colon(a.port_guid, g);
	json_object_object_add(j, "HostIFNames", json_object_new_string(names[0]));
	json_object_object_add(j, "HostIFGUID", json_object_new_string(g));
	const char *text = json_object_to_json_string_ext(
		j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	r = sim_putf(sys_root(s), e, path + 1, "%s", text);
	if (r == 0)
		r = move_out(sys_root(s), bdf, names[0], e);
	const char *netns = jstr(multus, "netns");
	if (r == 0 && netns)
		r = netns_make(s, netns, e);
	if (r == 0) {
		char gs[GUID_STRLEN]; /* the CNI's file has its colon form; people, rdma's */
		guid_format_sysfs(a.port_guid, gs);
		sim_boot_note(log, "%s %s: VF %s ('%s', GUID %s) moved in as %s", label,
			      again ? "runs again" : "starts", bdf, names[0], gs, ifname);
	}
out:
	sys_list_free(names, n);
	json_object_put(j);
	json_object_put(multus);
	return r;
}

int sim_boot_kubelet(struct sys *s, struct sim_boot_log *log, struct err *e)
{
	char **caches;
	size_t n;
	if (!sys_is_sim(s))
		return err_setx(e, EOPNOTSUPP, "only a simulated node reboots this way");
	if (sys_list(s, IB_SRIOV, &caches, &n) < 0)
		return 0; /* no pod ever held a VF */
	int lock = sys_sim_lock((struct sim *)s, e), r = lock < 0 ? lock : 0;
	for (size_t i = 0; i < n && r == 0; i++)
		r = sim_kubelet_cni_add(s, caches[i], true, log, e);
	if (lock >= 0)
		sys_sim_unlock(lock);
	sys_list_free(caches, n);
	return r;
}
