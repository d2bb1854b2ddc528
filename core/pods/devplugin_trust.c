// SPDX-License-Identifier: MIT
/* Whose pods' ConfigMaps are device plugin configs (devplugin.h): the
 * plugins' own DaemonSets in the namespaces operators deploy them to, or
 * the lists in ibvf's config file. Any tenant can mount a ConfigMap that
 * holds a "resourceList"; only the plugin's own pod reads one. */
#include "devplugin.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sys/sys.h"

#define TRUST_FILE_MAX (64u * 1024)
#define TRUST_SECTION  "device-plugin"

/* Where the plugins' manifests put them: kube-system (the plugins' own
 * deployments/), the SR-IOV Network Operator (its OpenShift name too) and
 * the NVIDIA Network Operator (either namespace its docs use). */
static const char *const default_ns[] = {"kube-system", "sriov-network-operator",
					 "openshift-sriov-network-operator",
					 "nvidia-network-operator", "network-operator"};
/* Their DaemonSets: sriov-network-device-plugin's deployments/ (and its
 * older per-arch names), the SR-IOV Network Operator's, the NVIDIA Network
 * Operator's, k8s-rdma-shared-dev-plugin's. */
static const char *const default_ds[] = {"sriov-device-plugin",
					 "kube-sriov-device-plugin",
					 "kube-sriov-device-plugin-amd64",
					 "kube-sriov-device-plugin-arm64",
					 "kube-sriov-device-plugin-ppc64le",
					 "network-operator-sriov-device-plugin",
					 "rdma-shared-dp-ds",
					 "rdma-shared-device-plugin"};

static void add_name(char (*v)[DP_TRUST_NAME], size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(v[i], s))
			return;
	snprintf(v[(*n)++], DP_TRUST_NAME, "%s", s);
}

void devplugin_trust_default(struct dp_trust *t)
{
	*t = (struct dp_trust){0};
	for (size_t i = 0; i < sizeof(default_ns) / sizeof(*default_ns); i++)
		add_name(t->ns, &t->n_ns, default_ns[i]);
	for (size_t i = 0; i < sizeof(default_ds) / sizeof(*default_ds); i++)
		add_name(t->ds, &t->n_ds, default_ds[i]);
}

/* A Kubernetes object name as the API server takes it (RFC 1123 label). */
static bool dns_label(const char *s, size_t len)
{
	if (!len || len > 63 || !isalnum((unsigned char)s[0]) ||
	    !isalnum((unsigned char)s[len - 1]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
			return false;
	return true;
}

struct load {
	struct dp_trust t;
	bool ns_given, ds_given;
	char why[160];
};

static int on_ini(void *user, const char *section, const char *key, const char *value)
{
	struct load *l = user;
	if (strcmp(section, TRUST_SECTION))
		return 1; /* other sections are other features' */
	bool ns = !strcmp(key, "namespaces");
	if (!ns && strcmp(key, "daemonsets")) {
		snprintf(l->why, sizeof(l->why),
			 "unknown key '%.40s' (known: namespaces, daemonsets)", key);
		return 0;
	}
	if (ns && !l->ns_given)
		l->t.n_ns = 0; /* the file's list replaces the default one */
	if (!ns && !l->ds_given)
		l->t.n_ds = 0;
	l->ns_given |= ns;
	l->ds_given |= !ns;
	for (const char *p = value; *p;) {
		size_t len = strcspn(p, " \t,");
		if (len) {
			size_t *n = ns ? &l->t.n_ns : &l->t.n_ds;
			if (!dns_label(p, len)) {
				snprintf(l->why, sizeof(l->why),
					 "'%.*s' is no Kubernetes %s name (lowercase letters, "
					 "digits and '-', at most 63)",
					 (int)(len > 63 ? 63 : len), p,
					 ns ? "namespace" : "DaemonSet");
				return 0;
			}
			if (*n >= DP_TRUST_MAX) {
				snprintf(l->why, sizeof(l->why), "more than %d %s", DP_TRUST_MAX,
					 key);
				return 0;
			}
			char name[DP_TRUST_NAME];
			snprintf(name, sizeof(name), "%.*s", (int)len, p);
			add_name(ns ? l->t.ns : l->t.ds, n, name);
		}
		p += len;
		p += strspn(p, " \t,");
	}
	return 1;
}

int devplugin_trust_load(struct sys *s, struct dp_trust *ret)
{
	struct load l = {0};
	devplugin_trust_default(&l.t);
	char *buf;
	size_t len;
	int r = sys_read_file(s, DP_TRUST_FILE, TRUST_FILE_MAX, &buf, &len);
	if (r == -ENOENT || r == -ENOTDIR) {
		*ret = l.t;
		return 0;
	}
	if (r == -ENOMEM)
		return r;
	if (r == 0) {
		int line = memchr(buf, '\0', len) ? -1 : ini_parse_string(buf, on_ini, &l);
		free(buf);
		if (line == 0) {
			*ret = l.t;
			return 0;
		}
		*ret = (struct dp_trust){0};
		snprintf(ret->error, sizeof(ret->error), "%s line %d: %s", DP_TRUST_FILE, line,
			 line < 0   ? "a NUL byte: not a text file"
			 : l.why[0] ? l.why
				    : "not an INI line");
		return 0;
	}
	*ret = (struct dp_trust){0};
	snprintf(ret->error, sizeof(ret->error), "%s: %s%s", DP_TRUST_FILE, strerror(-r),
		 r == -EFBIG ? " (bigger than 64 KiB)" : "");
	return 0;
}

bool devplugin_trusted(const struct dp_trust *t, const char *ns, const char *pod)
{
	if (!ns || !pod || t->error[0])
		return false;
	bool ns_ok = false;
	for (size_t i = 0; i < t->n_ns && !ns_ok; i++)
		ns_ok = !strcmp(t->ns[i], ns);
	if (!ns_ok)
		return false;
	/* A DaemonSet's pod is "<daemonset>-<suffix>", the suffix one
	 * lowercase alphanumeric word. */
	for (size_t i = 0; i < t->n_ds; i++) {
		size_t dl = strlen(t->ds[i]);
		const char *sfx = pod + dl + 1;
		if (strncmp(pod, t->ds[i], dl) || pod[dl] != '-' || !*sfx)
			continue;
		bool word = true;
		for (const char *c = sfx; *c && word; c++)
			word = islower((unsigned char)*c) || isdigit((unsigned char)*c);
		if (word)
			return true;
	}
	return false;
}
