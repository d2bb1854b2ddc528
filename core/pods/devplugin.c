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

struct scan {
	struct sys *s;
	struct node *n;
	char **logs; /* /var/log/pods entries, read once */
	size_t n_logs;
	bool logs_read;
};

static int add_config(struct node *n, struct dp_config *c)
{
	for (size_t i = 0; i < n->n_dp_configs; i++)
		if (n->dp_configs[i].hash == c->hash && n->dp_configs[i].plugin == c->plugin &&
		    !c->error == !n->dp_configs[i].error && c->pod_uid) {
			dp_config_fini(c); /* one ConfigMap in two volumes */
			return 0;
		}
	if (n->n_dp_configs >= DP_CONFIGS_MAX) {
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

/* The pod's namespace and name from its log directory <ns>_<name>_<uid>. */
static int pod_names(struct scan *sc, struct dp_config *c)
{
	if (!sc->logs_read) {
		sc->logs_read = true;
		if (sys_list(sc->s, POD_LOGS, &sc->logs, &sc->n_logs) == -ENOMEM)
			return -ENOMEM;
	}
	size_t ul = strlen(c->pod_uid);
	for (size_t i = 0; i < sc->n_logs && i < DP_PODS_MAX; i++) {
		const char *e = sc->logs[i];
		size_t el = strlen(e);
		const char *us = strchr(e, '_');
		if (el <= ul + 1 || strcmp(e + el - ul, c->pod_uid) || e[el - ul - 1] != '_' ||
		    !us || us >= e + el - ul - 1 || !entry_ok(e))
			continue;
		c->pod_ns = strndup(e, (size_t)(us - e));
		c->pod_name = strndup(us + 1, (size_t)(e + el - ul - 1 - us - 1));
		return c->pod_ns && c->pod_name ? 0 : -ENOMEM;
	}
	return 0;
}

static int read_volume(struct scan *sc, const char *uid, const char *vdir, const char *volume)
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
	c.pod_uid = strdup(uid);
	c.volume = strdup(volume);
	if (!c.pod_uid || !c.volume || pod_names(sc, &c) < 0) {
		dp_config_fini(&c);
		return -ENOMEM;
	}
	r = add_config(sc->n, &c);
	return r == -ENOSPC ? 0 : r;
}

static int scan_pod(struct scan *sc, const char *uid)
{
	char dir[PATH_MAX], vdir[PATH_MAX];
	char **vols;
	size_t n_vols;
	if (snprintf(dir, sizeof(dir), "%s/%s/%s", KUBELET_PODS, uid, CONFIGMAPS) >=
	    (int)sizeof(dir))
		return 0;
	int r = sys_list(sc->s, dir, &vols, &n_vols);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	r = 0;
	for (size_t i = 0; i < n_vols && i < DP_VOLUMES_MAX && r == 0; i++) {
		if (!entry_ok(vols[i]) ||
		    snprintf(vdir, sizeof(vdir), "%s/%s", dir, vols[i]) >= (int)sizeof(vdir))
			continue;
		r = read_volume(sc, uid, vdir, vols[i]);
	}
	sys_list_free(vols, n_vols);
	return r;
}

int devplugin_attach(struct sys *s, struct node *n)
{
	struct scan sc = {.s = s, .n = n};
	char **pods;
	size_t n_pods;
	int r = sys_list(s, KUBELET_PODS, &pods, &n_pods);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	r = 0;
	for (size_t i = 0; i < n_pods && i < DP_PODS_MAX && r == 0; i++)
		if (entry_ok(pods[i]))
			r = scan_pod(&sc, pods[i]);
	sys_list_free(pods, n_pods);
	sys_list_free(sc.logs, sc.n_logs);
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
