// SPDX-License-Identifier: MIT
/* A pod that asked for a VF starts on the simulated node (sim_boot.h): the
 * device plugin's allocation in the kubelet checkpoint, the Multus and
 * ib-sriov-cni caches, then the CNI's ADD (sim_kubelet.c) moving the VF's
 * netdev into the pod. And the field report's bug: the other VFs of that PF
 * whose names are the kernel's (ibN, no .link file naming them) are probed
 * again and come back with the lowest free kernel names, so the names shift
 * under everything that used them. */
#include "core/sim/sim_boot.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim/sim_tree.h"
#include "core/sim/sys_sim.h"
#include "core/sys/sys.h"

#define POD_IFNAME    "net1"
#define POD_CONTAINER "main"

/* One DNS-1123 label: lowercase alphanumerics and '-', alphanumeric at
 * both ends. */
static bool label_ok(const char *s, size_t len)
{
	if (len == 0 || len > 63 || s[0] == '-' || s[len - 1] == '-')
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
			return false;
	return true;
}

bool sim_k8s_label_valid(const char *s)
{
	return s && label_ok(s, strlen(s));
}

bool sim_k8s_subdomain_valid(const char *s)
{
	if (!s || !*s || strlen(s) > 253)
		return false;
	for (const char *p = s;;) {
		size_t len = strcspn(p, ".");
		if (!label_ok(p, len))
			return false;
		if (!p[len])
			return true;
		p += len + 1;
	}
}

/* 8-4-4-4-12 lowercase hex digits. */
static bool uid_valid(const char *s)
{
	if (strlen(s) != 36)
		return false;
	for (size_t i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-'
			 : !(isdigit((unsigned char)s[i]) || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	}
	return true;
}

static int validate(const struct sim_pod_start *p, const char *ifname, struct err *e)
{
	if (!sim_k8s_label_valid(p->ns))
		return err_setx(e, EINVAL,
				"'%s' is not a Kubernetes namespace (at most 63 lowercase letters, "
				"digits and '-', a letter or digit at each end)",
				p->ns ? p->ns : "");
	if (!sim_k8s_subdomain_valid(p->name))
		return err_setx(e, EINVAL,
				"'%s' is not a Kubernetes pod name (at most 253 lowercase letters, "
				"digits, '-' and '.', a letter or digit at each end of each part)",
				p->name ? p->name : "");
	if (p->uid && !uid_valid(p->uid))
		return err_setx(e, EINVAL, "'%s' is not a pod UID (a lowercase UUID)", p->uid);
	if (!sim_ifname_valid(ifname))
		return err_setx(e, EINVAL, "'%s' is not an interface name", ifname);
	return 0;
}

/* The function's host netdev into buf; -ENODEV when it has none. */
static int host_netdev(struct sys *s, const char *bdf, char buf[static 16])
{
	char path[128], **names;
	size_t n;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/net", bdf);
	if (sys_list(s, path, &names, &n) < 0)
		return -ENODEV;
	int r = n && strlen(names[0]) < 16 ? 0 : -ENODEV;
	if (r == 0)
		snprintf(buf, 16, "%s", names[0]);
	sys_list_free(names, n);
	return r;
}

/* A name the kernel gave: ib<N> or eth<N>. */
static bool kernel_name(const char *name)
{
	const char *d = !strncmp(name, "ib", 2)	   ? name + 2
			: !strncmp(name, "eth", 3) ? name + 3
						   : NULL;
	if (!d || !*d)
		return false;
	for (; *d; d++)
		if (!isdigit((unsigned char)*d))
			return false;
	return true;
}

/* The other VFs of pf with kernel names no .link file gives: probed again
 * (unbind, bind), in VF order, each taking the lowest free kernel name. */
static int reprobe_siblings(struct sys *s, const char *pf, const char *moved,
			    struct sim_boot_log *log, struct err *e)
{
	const char *root = sys_root(s);
	char pf_rel[PATH_MAX], rel[PATH_MAX], fn[PATH_MAX], what[128];
	uint64_t numvfs = 0;
	if (sim_fn_rel(root, pf, pf_rel, sizeof(pf_rel)) < 0)
		return 0;
	sim_fmt(rel, sizeof(rel), "%s/sriov_numvfs", pf_rel);
	sim_get_u64(root, rel, &numvfs);
	int r = 0;
	for (unsigned int i = 0; i < numvfs && r == 0; i++) {
		char was[16], now[16] = "", want[16];
		sim_fmt(rel, sizeof(rel), "%s/virtfn%u", pf_rel, i);
		if (sim_resolve(root, rel, fn, sizeof(fn)) < 0)
			continue;
		const char *bdf = strrchr(fn, '/') + 1;
		if (!strcmp(bdf, moved) || host_netdev(s, bdf, was) < 0 || !kernel_name(was))
			continue;
		if ((r = sim_udev_link_name(root, bdf, was, want, e)) < 0)
			break;
		if (want[0])
			continue;
		sim_fmt(what, sizeof(what), "cannot probe VF '%s' again", bdf);
		if ((r = sim_kernel_unbind(root, bdf, what, e)) < 0 ||
		    (r = sim_kernel_bind(root, bdf, what, e)) < 0)
			break;
		host_netdev(s, bdf, now);
		if (strcmp(was, now))
			sim_boot_note(
				log,
				"VF %s (PF %s VF %u) probed again by the kernel: '%s' is now '%s'",
				bdf, pf, i, was, now);
		else
			sim_boot_note(log,
				      "VF %s (PF %s VF %u) probed again by the kernel: keeps '%s'",
				      bdf, pf, i, was);
	}
	return r;
}

int sim_pod_start(struct sys *s, const struct sim_pod_start *p, struct sim_boot_log *log,
		  struct err *e)
{
	if (!sys_is_sim(s))
		return err_setx(e, EOPNOTSUPP, "only a simulated node starts pods this way");
	const char *root = sys_root(s), *ifname = p->ifname ? p->ifname : POD_IFNAME;
	int r = validate(p, ifname, e);
	if (r < 0)
		return r;
	char pf[16], host[16], uid[37], netns[37], a1[37], a2[37], cid[65], cache[256];
	unsigned int vf;
	struct sim_vf_admin a;
	if (sim_kernel_vf_of(root, p->bdf, pf, &vf) < 0)
		return err_setx(e, ENODEV, "'%s' is not a VF of the node", p->bdf);
	int lock = sys_sim_lock((struct sim *)s, e);
	if (lock < 0)
		return lock;
	if (host_netdev(s, p->bdf, host) < 0) {
		r = err_setx(e, ENODEV,
			     "VF '%s' has no netdev on the host (unbound, its probe failed, or in "
			     "a pod): the CNI's ADD would fail",
			     p->bdf);
		goto out;
	}
	if ((r = sim_vf_admin_read(root, pf, vf, &a)) < 0) {
		r = err_set(e, -r, "cannot read the VF state of PF '%s'", pf);
		goto out;
	}
	if (p->uid)
		snprintf(uid, sizeof(uid), "%s", p->uid);
	else
		sim_uuid_random(uid);
	sim_uuid_random(netns);
	sim_uuid_random(a1);
	sim_uuid_random(a2);
	size_t k = 0;
	for (const char *c = a1; *c && k < 32; c++)
		if (*c != '-')
			cid[k++] = *c;
	for (const char *c = a2; *c && k < 64; c++)
		if (*c != '-')
			cid[k++] = *c;
	cid[k] = '\0';
	struct sim_pod pod = {.ns = p->ns,
			      .name = p->name,
			      .uid = uid,
			      .netns_uuid = netns,
			      .container_id = cid,
			      .container = POD_CONTAINER};
	struct sim_pod_vf v = {.present = true, .vf = vf, .guid = a.port_guid};
	snprintf(v.bdf, sizeof(v.bdf), "%s", p->bdf);
	snprintf(v.host_ifname, sizeof(v.host_ifname), "%s", host);
	if ((r = sim_k8s_pod_add(root, &pod, &v, ifname, e)) < 0)
		goto out;
	sim_boot_note(log,
		      "pod %s/%s (uid %s) admitted by the kubelet: the device plugin gives it "
		      "VF %s (checkpoint entry, Multus and ib-sriov-cni caches written)",
		      p->ns, p->name, uid, p->bdf);
	sim_k8s_cache_name(&pod, ifname, cache, sizeof(cache));
	if ((r = sim_kubelet_cni_add(s, cache, false, log, e)) < 0)
		goto out;
	r = reprobe_siblings(s, pf, p->bdf, log, e);
out:
	sys_sim_unlock(lock);
	return r;
}
