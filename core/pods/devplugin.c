// SPDX-License-Identifier: MIT
/* Finding device plugin configs on the node (devplugin.h): the ConfigMap
 * volumes of the kubelet's pods, and a file the operator names. */
#include "devplugin.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sys/sys.h"
#include "pods_impl.h"

#define KUBELET_PODS "/var/lib/kubelet/pods"
#define CONFIGMAPS   "volumes/kubernetes.io~configmap"
#define POD_LOGS     "/var/log/pods"
#define CONFIG_NAME  "config.json"

/* Names kubelet gives pod directories (UIDs) and volumes (DNS labels), and
 * the ConfigMap's own ..data and timestamped entries. */
static bool entry_ok(const char *s)
{
	if (!*s || strlen(s) > 253 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

/* Follows the symlinks of rel (relative to dir) while every one stays inside
 * dir: a relative target with no ".." component, as kubelet writes
 * (config.json -> ..data/config.json, ..data -> ..2024_01_01_...). Each
 * component of the result is no link. Returns 0, -EXDEV for a link that
 * would leave dir, -ELOOP past DP_LINK_HOPS, or -errno. */
static int resolve_in(struct sys *s, const char *dir, char *rel, size_t size)
{
	char full[PATH_MAX], target[PATH_MAX], next[PATH_MAX];
	for (int hops = 0;;) {
		size_t start = 0, end;
		bool relinked = false;
		for (; !relinked; start = end + 1) {
			end = start + strcspn(rel + start, "/");
			size_t clen = end - start;
			if (clen == 0 || (clen == 1 && rel[start] == '.') ||
			    (clen == 2 && !strncmp(rel + start, "..", 2)))
				return -EXDEV;
			if (snprintf(full, sizeof(full), "%s/%.*s", dir, (int)end, rel) >=
			    (int)sizeof(full))
				return -ENAMETOOLONG;
			int r = sys_readlink(s, full, target, sizeof(target));
			if (r >= 0) {
				if (++hops > DP_LINK_HOPS)
					return -ELOOP;
				if (target[0] == '/')
					return -EXDEV;
				if (snprintf(next, sizeof(next), "%.*s%s%s", (int)start, rel,
					     target, rel + end) >= (int)size)
					return -ENAMETOOLONG;
				strcpy(rel, next);
				relinked = true;
			} else if (r != -EINVAL) {
				return r;
			}
			if (!rel[end])
				break;
		}
		if (!relinked)
			return 0;
	}
}

/* A pod's log directory <ns>_<name>_<uid> (kubelet's name for it). */
struct pod_log {
	const char *entry;
	size_t ns_len, name_len; /* the name follows ns_len + 1 bytes in */
	const char *uid;
};

struct scan {
	struct sys *s;
	struct node *n;
	struct dp_trust trust;
	struct pod_log *logs;
	size_t n_logs;
	size_t looked; /* pod directories looked into, at most DP_PODS_MAX */
};

/* configs given by the pods, or by the operator (pod_uid NULL), each at
 * most DP_CONFIGS_MAX: the operator's files are never crowded out. */
static int add_config(struct node *n, struct dp_config *c)
{
	size_t same_kind = 0;
	for (size_t i = 0; i < n->n_dp_configs; i++) {
		if (n->dp_configs[i].hash == c->hash && n->dp_configs[i].plugin == c->plugin &&
		    !c->error == !n->dp_configs[i].error && c->pod_uid) {
			dp_config_fini(c); /* one ConfigMap in two volumes */
			return 0;
		}
		same_kind += !n->dp_configs[i].pod_uid == !c->pod_uid;
	}
	if (same_kind >= DP_CONFIGS_MAX) {
		dp_config_fini(c);
		return -ENOSPC;
	}
	struct dp_config *v = realloc(n->dp_configs, (n->n_dp_configs + 1) * sizeof(*v));
	if (!v) {
		dp_config_fini(c);
		return -ENOMEM;
	}
	n->dp_configs = v;
	v[n->n_dp_configs++] = *c;
	return 0;
}

/* /var/log/pods into sc->logs: the entries that parse as <ns>_<name>_<uid>. */
static int read_logs(struct scan *sc, char **names, size_t n)
{
	if (!n)
		return 0;
	if (!(sc->logs = calloc(n, sizeof(*sc->logs))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *e = names[i], *uid;
		size_t ns_len, name_len;
		if (!entry_ok(e) || !pods_podlog_split(e, &ns_len, &name_len, &uid))
			continue;
		sc->logs[sc->n_logs++] = (struct pod_log){
			.entry = e, .ns_len = ns_len, .name_len = name_len, .uid = uid};
	}
	return 0;
}

static const struct pod_log *log_of(const struct scan *sc, const char *uid)
{
	for (size_t i = 0; i < sc->n_logs; i++)
		if (!strcmp(sc->logs[i].uid, uid))
			return &sc->logs[i];
	return NULL;
}

static int pod_names(const struct pod_log *l, struct dp_config *c)
{
	if (!l)
		return 0;
	c->pod_ns = strndup(l->entry, l->ns_len);
	c->pod_name = strndup(l->entry + l->ns_len + 1, l->name_len);
	return c->pod_ns && c->pod_name ? 0 : -ENOMEM;
}

static bool log_trusted(const struct scan *sc, const struct pod_log *l)
{
	char ns[DP_TRUST_NAME], name[256];
	if (!l || l->ns_len >= sizeof(ns) || l->name_len >= sizeof(name))
		return false;
	snprintf(ns, sizeof(ns), "%.*s", (int)l->ns_len, l->entry);
	snprintf(name, sizeof(name), "%.*s", (int)l->name_len, l->entry + l->ns_len + 1);
	return devplugin_trusted(&sc->trust, ns, name);
}

/* A config in a pod that is no plugin's: counted, its pod named. */
static void skip_untrusted(struct scan *sc, const struct pod_log *l, const char *uid)
{
	struct dp_skipped *k = &sc->n->dp_skipped;
	char who[sizeof(k->named[0])];
	if (l)
		snprintf(who, sizeof(who), "%.*s/%.*s", (int)(l->ns_len > 63 ? 63 : l->ns_len),
			 l->entry, (int)(l->name_len > 63 ? 63 : l->name_len),
			 l->entry + l->ns_len + 1);
	else
		snprintf(who, sizeof(who), "pod UID %.100s", uid);
	k->untrusted++;
	if (k->n_named && !strcmp(k->named[k->n_named - 1], who))
		return; /* named already (its other volume) */
	if (k->n_named < DP_SKIPPED_NAMED)
		snprintf(k->named[k->n_named++], sizeof(k->named[0]), "%s", who);
}

static int read_volume(struct scan *sc, const char *uid, const struct pod_log *l, bool trusted,
		       const char *vdir, const char *volume)
{
	char rel[PATH_MAX] = CONFIG_NAME, path[PATH_MAX], shown[PATH_MAX];
	if (resolve_in(sc->s, vdir, rel, sizeof(rel)) < 0)
		return 0;
	if (snprintf(path, sizeof(path), "%s/%s", vdir, rel) >= (int)sizeof(path) ||
	    snprintf(shown, sizeof(shown), "%s/%s", vdir, CONFIG_NAME) >= (int)sizeof(shown))
		return 0;
	char *buf;
	size_t len;
	int r = sys_read_file(sc->s, path, DP_FILE_MAX, &buf, &len);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	struct dp_config c;
	r = devplugin_parse(buf, len, shown, &c);
	free(buf);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	if (!trusted) {
		dp_config_fini(&c);
		skip_untrusted(sc, l, uid);
		return 0;
	}
	c.pod_uid = strdup(uid);
	c.volume = strdup(volume);
	if (!c.pod_uid || !c.volume || pod_names(l, &c) < 0) {
		dp_config_fini(&c);
		return -ENOMEM;
	}
	r = add_config(sc->n, &c);
	if (r == -ENOSPC)
		sc->n->dp_skipped.over++;
	return r == -ENOSPC ? 0 : r;
}

static int scan_pod(struct scan *sc, const char *uid, bool trusted)
{
	char dir[PATH_MAX], vdir[PATH_MAX];
	char **vols;
	size_t n_vols;
	if (sc->looked >= DP_PODS_MAX) {
		sc->n->dp_skipped.pods_over++;
		return 0;
	}
	sc->looked++;
	if (snprintf(dir, sizeof(dir), "%s/%s/%s", KUBELET_PODS, uid, CONFIGMAPS) >=
	    (int)sizeof(dir))
		return 0;
	int r = sys_list(sc->s, dir, &vols, &n_vols);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	r = 0;
	const struct pod_log *l = log_of(sc, uid);
	for (size_t i = 0; i < n_vols && i < DP_VOLUMES_MAX && r == 0; i++) {
		if (!entry_ok(vols[i]) ||
		    snprintf(vdir, sizeof(vdir), "%s/%s", dir, vols[i]) >= (int)sizeof(vdir))
			continue;
		r = read_volume(sc, uid, l, trusted, vdir, vols[i]);
	}
	sys_list_free(vols, n_vols);
	return r;
}

int devplugin_attach(struct sys *s, struct node *n)
{
	struct scan sc = {.s = s, .n = n};
	char **pods = NULL, **logs = NULL;
	size_t n_pods = 0, n_logs = 0;
	int r = devplugin_trust_load(s, &sc.trust);
	if (r < 0)
		return r;
	n->dp_skipped = (struct dp_skipped){0};
	snprintf(n->dp_skipped.trust_error, sizeof(n->dp_skipped.trust_error), "%s",
		 sc.trust.error);
	r = sys_list(s, KUBELET_PODS, &pods, &n_pods);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	bool *done = calloc(n_pods ? n_pods : 1, sizeof(*done));
	if (!done || sys_list(s, POD_LOGS, &logs, &n_logs) == -ENOMEM ||
	    read_logs(&sc, logs, n_logs) < 0) {
		r = -ENOMEM;
		goto out;
	}
	/* The plugins' pods first: no other pod, however its UID sorts,
	 * takes their place under DP_PODS_MAX or DP_CONFIGS_MAX. */
	for (size_t i = 0; i < n_pods && r == 0; i++)
		if (entry_ok(pods[i]) && log_trusted(&sc, log_of(&sc, pods[i]))) {
			done[i] = true;
			r = scan_pod(&sc, pods[i], true);
		}
	for (size_t i = 0; i < n_pods && r == 0; i++)
		if (!done[i] && entry_ok(pods[i]))
			r = scan_pod(&sc, pods[i], false);
out:
	free(done);
	free(sc.logs);
	sys_list_free(logs, n_logs);
	sys_list_free(pods, n_pods);
	return r;
}

int devplugin_read_file(struct sys *s, const char *path, struct node *n)
{
	char *buf;
	size_t len;
	int r = sys_read_file(s, path, DP_FILE_MAX, &buf, &len);
	if (r < 0)
		return r;
	struct dp_config c;
	r = devplugin_parse(buf, len, path, &c);
	free(buf);
	if (r == -ENOMSG) { /* named by the operator: kept, with the reason */
		c = (struct dp_config){.plugin = DP_SRIOV};
		if (!(c.path = strdup(path)) ||
		    !(c.error = strdup("neither plugin's config: no \"resourceList\" (SR-IOV "
				       "network device plugin) or \"configList\" (RDMA shared "
				       "device plugin)"))) {
			dp_config_fini(&c);
			return -ENOMEM;
		}
	} else if (r < 0) {
		return r;
	}
	return add_config(n, &c);
}

const char *devplugin_plugin_name(enum dp_plugin p)
{
	return p == DP_RDMA_SHARED ? "RDMA shared device plugin" : "SR-IOV network device plugin";
}

void devplugin_resource_label(const struct dp_resource *r, char *buf, size_t size)
{
	const char *prefix = r->prefix ? r->prefix : r->plugin == DP_RDMA_SHARED ? "rdma" : NULL;
	if (prefix)
		snprintf(buf, size, "%s/%s", prefix, r->name ? r->name : "");
	else
		snprintf(buf, size, "%s", r->name ? r->name : "");
}

bool devplugin_names(const struct dp_resource *r, const char *requested)
{
	const char *slash = requested ? strrchr(requested, '/') : NULL;
	if (!slash || !r->name || strcmp(slash + 1, r->name))
		return false;
	const char *prefix = r->prefix ? r->prefix : r->plugin == DP_RDMA_SHARED ? "rdma" : NULL;
	return !prefix || (strlen(prefix) == (size_t)(slash - requested) &&
			   !strncmp(prefix, requested, (size_t)(slash - requested)));
}

static int copy_str(char **dst, const char *src)
{
	*dst = NULL;
	return !src || (*dst = strdup(src)) ? 0 : -ENOMEM;
}

static int copy_list(struct dp_list *dst, const struct dp_list *src)
{
	*dst = (struct dp_list){0};
	if (!src->n)
		return 0;
	if (!(dst->v = calloc(src->n, sizeof(*dst->v))))
		return -ENOMEM;
	for (; dst->n < src->n; dst->n++)
		if (copy_str(&dst->v[dst->n], src->v[dst->n]) < 0)
			return -ENOMEM;
	return 0;
}

static int copy_resource(struct dp_resource *d, const struct dp_resource *s)
{
	*d = *s;
	d->sel = NULL;
	d->n_sel = 0;
	int r = copy_str(&d->name, s->name) | copy_str(&d->prefix, s->prefix) |
		copy_str(&d->device_type, s->device_type) | copy_str(&d->error, s->error);
	if (r || (s->n_sel && !(d->sel = calloc(s->n_sel, sizeof(*d->sel)))))
		return -ENOMEM;
	for (; d->n_sel < s->n_sel; d->n_sel++) {
		struct dp_selector *ds = &d->sel[d->n_sel];
		const struct dp_selector *ss = &s->sel[d->n_sel];
		ds->is_rdma = ss->is_rdma;
		ds->need_vhost_net = ss->need_vhost_net;
		for (int f = 0; f < DP_FIELDS; f++)
			r |= copy_list(&ds->f[f], &ss->f[f]);
		if (r | copy_str(&ds->unjudged, ss->unjudged)) {
			d->n_sel++;
			return -ENOMEM;
		}
	}
	return 0;
}

static int copy_config(struct dp_config *d, const struct dp_config *s)
{
	*d = *s;
	d->res = NULL;
	d->n_res = 0;
	int r = copy_str(&d->path, s->path) | copy_str(&d->error, s->error) |
		copy_str(&d->pod_uid, s->pod_uid) | copy_str(&d->volume, s->volume) |
		copy_str(&d->pod_ns, s->pod_ns) | copy_str(&d->pod_name, s->pod_name);
	if (r || (s->n_res && !(d->res = calloc(s->n_res, sizeof(*d->res)))))
		return -ENOMEM;
	for (; d->n_res < s->n_res; d->n_res++)
		if (copy_resource(&d->res[d->n_res], &s->res[d->n_res]) < 0) {
			d->n_res++;
			return -ENOMEM;
		}
	return 0;
}

int devplugin_copy(struct node *dst, const struct node *src)
{
	dst->dp_skipped = src->dp_skipped;
	if (!src->n_dp_configs)
		return 0;
	struct dp_config *v = calloc(src->n_dp_configs, sizeof(*v));
	if (!v)
		return -ENOMEM;
	int r = 0;
	size_t i;
	for (i = 0; i < src->n_dp_configs && r == 0; i++)
		r = copy_config(&v[i], &src->dp_configs[i]);
	if (r < 0) {
		devplugin_free(v, i);
		return r;
	}
	devplugin_free(dst->dp_configs, dst->n_dp_configs);
	dst->dp_configs = v;
	dst->n_dp_configs = src->n_dp_configs;
	return 0;
}
