// SPDX-License-Identifier: MIT
/* Pod bindings from the files on the node: the helpers every reader shares
 * (notes, bounded values, the merge by the VF's PCI address), the kubelet
 * checkpoint and pod logs, the cross-check that flags stale entries, and the
 * hand-over to the node model. The files themselves are read in
 * pods_files.c, the CNI caches in pods_cni.c, the pods' network namespaces
 * in linux/pods_netns.c. */
#include "pods.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "pods_impl.h"
#include "core/sys/sys.h"

#define CHECKPOINT "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"
#define PODLOG_DIR "/var/log/pods"

#define BINDINGS_MAX 4096 /* far more VFs than a node has */
#define NOTES_MAX    32

void pods_note(struct pods_ctx *c, const char *fmt, ...)
{
	struct pod_set *set = c->set;
	if (set->n_notes >= NOTES_MAX)
		return;
	char **nn = realloc(set->notes, (set->n_notes + 1) * sizeof(*nn));
	if (!nn) {
		c->err = -ENOMEM;
		return;
	}
	set->notes = nn;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&set->notes[set->n_notes], fmt, ap) >= 0)
		set->n_notes++;
	else
		c->err = -ENOMEM;
	va_end(ap);
}

const struct pod_binding *pods_holder(const struct vf *vf)
{
	if (!vf || !vf->pod || vf->pod->stale)
		return NULL;
	return vf->pod;
}

const char *pods_holder_label(const struct vf *vf, char *buf, size_t size)
{
	const struct pod_binding *b = pods_holder(vf);
	if (!b)
		return NULL;
	pods_label(b, buf, size);
	return buf;
}

void pods_label(const struct pod_binding *b, char *buf, size_t size)
{
	const char *stale = b->stale ? " (stale)" : "";
	if (b->name)
		snprintf(buf, size, "%s/%s%s", b->ns ? b->ns : "?", b->name, stale);
	else
		snprintf(buf, size, "uid %s%s", b->uid ? b->uid : "?", stale);
}

const char *pods_source_name(unsigned int bit)
{
	switch (bit) {
	case POD_SRC_MULTUS:
		return "multus";
	case POD_SRC_IB_SRIOV:
		return "ib-sriov";
	case POD_SRC_SRIOV:
		return "sriov";
	case POD_SRC_CHECKPOINT:
		return "checkpoint";
	case POD_SRC_PODLOG:
		return "podlog";
	case POD_SRC_API:
		return "kubelet-api";
	}
	return NULL;
}

/* A printable string of sane length, else NULL. */
const char *pods_value_ok(const char *v)
{
	if (!v || !*v || strlen(v) > VALUE_MAX)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return NULL;
	return v;
}

const char *pods_jstr(struct json_object *o, const char *key)
{
	struct json_object *v;
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return pods_value_ok(json_object_get_string(v));
}

struct json_object *pods_jget(struct json_object *o, const char *key, enum json_type type)
{
	struct json_object *v;
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

/* Sets *field from the first source that has it. */
void pods_set_str(struct pods_ctx *c, char **field, const char *v)
{
	if (*field || !(v = pods_value_ok(v)))
		return;
	if (!(*field = strdup(v)))
		c->err = -ENOMEM;
}

/* The binding of a PCI address, made on first use; NULL past the bound. */
struct pod_binding *pods_binding(struct pods_ctx *c, const char *bdf)
{
	struct pod_set *set = c->set;
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i].bdf, bdf))
			return &set->v[i];
	if (set->n >= BINDINGS_MAX)
		return NULL;
	struct pod_binding *v = realloc(set->v, (set->n + 1) * sizeof(*v));
	if (!v) {
		c->err = -ENOMEM;
		return NULL;
	}
	set->v = v;
	struct pod_binding *b = &v[set->n++];
	memset(b, 0, sizeof(*b));
	snprintf(b->bdf, sizeof(b->bdf), "%s", bdf);
	return b;
}

/* Whether a source naming pod uid for b agrees with what b already holds. */
bool pods_same_pod(const struct pod_binding *b, const char *uid)
{
	return !b->uid || !uid || !strcmp(b->uid, uid);
}

/* A GPU entry's device IDs (UUIDs), either shape of DeviceIDs. */
static void checkpoint_gpus(struct pods_ctx *c, struct json_object *ids, const char *uid,
			    const char *container, const char *resource, unsigned int depth)
{
	if (json_object_is_type(ids, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(ids); i++) {
			struct json_object *v = json_object_array_get_idx(ids, i);
			const char *id = json_object_is_type(v, json_type_string)
						 ? pods_value_ok(json_object_get_string(v))
						 : NULL;
			if (id)
				pods_ckpt_gpu(c, uid, container, resource, id);
		}
		return;
	}
	if (depth || !json_object_is_type(ids, json_type_object))
		return;
	json_object_object_foreach(ids, numa, arr) {
		(void)numa;
		checkpoint_gpus(c, arr, uid, container, resource, depth + 1);
	}
}

/* DeviceIDs: {"<numa>": ["0000:18:00.3", ...]} since kubelet 1.20, a plain
 * array before. Non-PCI devices (GPU UUIDs) are not VFs. */
static void checkpoint_devices(struct json_object *ids, char (*ret)[16], size_t *ret_n, size_t max)
{
	if (json_object_is_type(ids, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(ids) && *ret_n < max; i++) {
			struct json_object *v = json_object_array_get_idx(ids, i);
			if (json_object_is_type(v, json_type_string) &&
			    node_bdf_normalize(json_object_get_string(v), false, ret[*ret_n]))
				(*ret_n)++;
		}
		return;
	}
	if (!json_object_is_type(ids, json_type_object))
		return;
	json_object_object_foreach(ids, numa, arr) {
		(void)numa;
		checkpoint_devices(arr, ret, ret_n, max);
	}
}

static void read_checkpoint_entry(struct pods_ctx *c, struct json_object *e)
{
	const char *uid = pods_jstr(e, "PodUID");
	struct json_object *ids;
	char bdfs[64][16];
	size_t n = 0;
	if (!uid || !json_object_object_get_ex(e, "DeviceIDs", &ids))
		return;
	const char *resource = pods_jstr(e, "ResourceName");
	if (pods_gpu_resource(resource)) {
		checkpoint_gpus(c, ids, uid, pods_jstr(e, "ContainerName"), resource, 0);
		return;
	}
	checkpoint_devices(ids, bdfs, &n, sizeof(bdfs) / sizeof(bdfs[0]));
	for (size_t i = 0; i < n; i++) {
		struct pod_binding *b = pods_binding(c, bdfs[i]);
		if (!b)
			return;
		if (!pods_same_pod(b, uid)) {
			/* kubelet keeps entries of pods long gone. */
			pods_note(
				c,
				"stale kubelet checkpoint entry: pod UID %s for '%s', which %s%s%s "
				"holds",
				uid, bdfs[i], b->ns ? b->ns : "", b->ns ? "/" : "",
				b->name ? b->name : b->uid);
			continue;
		}
		b->sources |= POD_SRC_CHECKPOINT;
		pods_set_str(c, &b->uid, uid);
		pods_set_str(c, &b->container, pods_jstr(e, "ContainerName"));
		pods_set_str(c, &b->resource, pods_jstr(e, "ResourceName"));
	}
}

static void read_checkpoint(struct pods_ctx *c)
{
	struct json_object *o = pods_parse_file(c, CHECKPOINT);
	if (!o)
		return;
	struct json_object *entries = pods_jget(pods_jget(o, "Data", json_type_object),
						"PodDeviceEntries", json_type_array);
	if (!entries)
		pods_note(c, "skipped '%s': no 'Data.PodDeviceEntries' list", CHECKPOINT);
	for (size_t i = 0; entries && i < json_object_array_length(entries); i++) {
		struct json_object *e = json_object_array_get_idx(entries, i);
		if (json_object_is_type(e, json_type_object))
			read_checkpoint_entry(c, e);
	}
	json_object_put(o);
}

bool pods_podlog_split(const char *entry, size_t *ns_len, size_t *name_len, const char **uid)
{
	const char *b = strchr(entry, '_'), *u = b ? strchr(b + 1, '_') : NULL;
	if (!b || !u || b == entry || u == b + 1 || !u[1] || strchr(u + 1, '_'))
		return false;
	*ns_len = (size_t)(b - entry);
	*name_len = (size_t)(u - b - 1);
	*uid = u + 1;
	return true;
}

/* /var/log/pods/<namespace>_<name>_<uid> (pods_podlog_split()). */
static void read_podlogs(struct pods_ctx *c)
{
	char **names;
	size_t n;
	if (sys_list(c->s, PODLOG_DIR, &names, &n) < 0)
		return;
	c->logs = calloc(n ? n : 1, sizeof(*c->logs));
	if (!c->logs)
		c->err = -ENOMEM;
	for (size_t i = 0; c->logs && i < n && i < FILES_MAX; i++) {
		const char *a = names[i], *uid;
		size_t ns_len, name_len;
		if (!pods_podlog_split(a, &ns_len, &name_len, &uid) || !pods_value_ok(a))
			continue;
		struct podlog *l = &c->logs[c->n_logs];
		l->ns = strndup(a, ns_len);
		l->name = strndup(a + ns_len + 1, name_len);
		l->uid = strdup(uid);
		c->n_logs++;
		if (!l->ns || !l->name || !l->uid)
			c->err = -ENOMEM;
	}
	sys_list_free(names, n);
}

const struct podlog *pods_find_podlog(const struct pods_ctx *c, const char *uid, const char *ns,
				      const char *name)
{
	for (size_t i = 0; i < c->n_logs; i++) {
		const struct podlog *l = &c->logs[i];
		if (uid ? !strcmp(l->uid, uid)
			: ns && name && !strcmp(l->ns, ns) && !strcmp(l->name, name))
			return l;
	}
	return NULL;
}

/* Names pods known by UID only, confirms the living, flags the stale. */
static void cross_check(struct pods_ctx *c)
{
	for (size_t i = 0; i < c->set->n; i++) {
		struct pod_binding *b = &c->set->v[i];
		const struct podlog *l = pods_find_podlog(c, b->uid, b->ns, b->name);
		if (l) {
			b->sources |= POD_SRC_PODLOG;
			pods_set_str(c, &b->ns, l->ns);
			pods_set_str(c, &b->name, l->name);
			pods_set_str(c, &b->uid, l->uid);
		}
		b->stale = b->sources == POD_SRC_CHECKPOINT;
	}
}

static bool netns_wanted(struct sys *s, const struct pods_opts *opts)
{
	switch (opts ? opts->netns : PODS_NETNS_AUTO) {
	case PODS_NETNS_NEVER:
		return false;
	case PODS_NETNS_ENTER:
		return true;
	case PODS_NETNS_AUTO:
		break;
	}
	return !sys_is_sim(s) && !strcmp(sys_root(s), "/");
}

static void read_netns(struct pods_ctx *c)
{
	for (size_t i = 0; i < c->set->n; i++) {
		struct pod_binding *b = &c->set->v[i];
		uint64_t guid = 0;
		bool guid_known = b->guid && guid_parse(b->guid, &guid) == 0 && guid;
		if (!b->netns || b->stale || (!b->ifname && !guid_known))
			continue;
		int r = pods_netns_read(c->s, b->netns, b->ifname, guid_known, guid, &b->in_pod);
		if (r == -ENOMEM)
			c->err = r;
		if (r < 0)
			b->in_pod.error = r;
	}
}

static int cmp_binding(const void *x, const void *y)
{
	return strcmp(((const struct pod_binding *)x)->bdf, ((const struct pod_binding *)y)->bdf);
}

void pods_set_fini(struct pod_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		pod_binding_fini(&set->v[i]);
	free(set->v);
	for (size_t i = 0; i < set->n_notes; i++)
		free(set->notes[i]);
	free(set->notes);
	for (size_t i = 0; i < set->n_broken; i++) {
		free(set->broken[i].path);
		free(set->broken[i].why);
	}
	free(set->broken);
	podres_fini(&set->api);
	for (size_t i = 0; i < set->n_gpus; i++)
		pod_gpu_fini(&set->gpus[i]);
	free(set->gpus);
	*set = (struct pod_set){0};
}

int pods_read(struct sys *s, const struct pods_opts *opts, struct pod_set *ret)
{
	struct pod_set set = {0};
	struct pods_ctx c = {.s = s, .set = &set};

	pods_read_cni(&c);
	if (!c.err)
		read_checkpoint(&c);
	if (!c.err)
		read_podlogs(&c);
	if (!c.err)
		cross_check(&c);
	if (!c.err)
		pods_netns_presence(&c);
	if (!c.err)
		pods_merge_api(&c);
	if (!c.err && netns_wanted(s, opts))
		read_netns(&c);
	for (size_t i = 0; i < c.n_logs; i++) {
		free(c.logs[i].ns);
		free(c.logs[i].name);
		free(c.logs[i].uid);
	}
	free(c.logs);
	for (size_t i = 0; i < c.n_ckpt_gpus; i++)
		pod_gpu_fini(&c.ckpt_gpus[i]);
	free(c.ckpt_gpus);
	if (c.err) {
		pods_set_fini(&set);
		return c.err;
	}
	if (set.n > 1)
		qsort(set.v, set.n, sizeof(*set.v), cmp_binding);
	*ret = set;
	return 0;
}

const struct pod_binding *pods_find(const struct pod_set *set, const char *bdf)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i].bdf, bdf))
			return &set->v[i];
	return NULL;
}

int pods_attach(struct sys *s, const struct pods_opts *opts, struct node *n)
{
	struct pod_set set;
	int r = pods_read(s, opts, &set);
	if (r < 0)
		return r;
	/* Each binding moves to its VF, or stays in the array as unplaced. */
	size_t kept = 0;
	for (size_t i = 0; i < set.n; i++) {
		const struct vf *found = NULL;
		node_find_fn(n, set.v[i].bdf, NULL, &found);
		struct vf *vf = (struct vf *)found;
		if (vf && (vf->pod = malloc(sizeof(*vf->pod)))) {
			*vf->pod = set.v[i];
			continue;
		}
		if (vf)
			r = -ENOMEM;
		set.v[kept++] = set.v[i];
	}
	set.n = kept;
	if (kept) {
		n->pods_unplaced = set.v;
		n->n_pods_unplaced = kept;
	} else {
		free(set.v);
	}
	set.v = NULL;
	set.n = 0;
	n->cni_broken = set.broken;
	n->n_cni_broken = set.n_broken;
	podres_fini(&n->podres);
	n->podres = set.api;
	memset(&set.api, 0, sizeof(set.api));
	for (size_t i = 0; i < n->n_pod_gpus; i++)
		pod_gpu_fini(&n->pod_gpus[i]);
	free(n->pod_gpus);
	n->pod_gpus = set.gpus;
	n->n_pod_gpus = set.n_gpus;
	set.gpus = NULL;
	set.n_gpus = 0;
	for (size_t i = 0; i < n->n_pod_gpus; i++) {
		const struct gpu *g = gpu_find_id(n->gpus, n->n_gpus, n->pod_gpus[i].id);
		n->pod_gpus[i].gpu = g ? (int)(g - n->gpus) : -1;
	}
	set.broken = NULL;
	set.n_broken = 0;
	if (set.n_notes) {
		char **notes = realloc(n->notes, (n->n_notes + set.n_notes) * sizeof(*notes));
		if (!notes) {
			pods_set_fini(&set);
			return -ENOMEM;
		}
		n->notes = notes;
		for (size_t i = 0; i < set.n_notes; i++)
			n->notes[n->n_notes++] = set.notes[i];
		set.n_notes = 0;
	}
	pods_set_fini(&set);
	return r;
}

void pods_reserving(const struct node *n, const char *name, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n->n_pfs; i++)
		for (size_t j = 0; j < n->pfs[i].n_vfs; j++) {
			const struct vf *vf = &n->pfs[i].vfs[j];
			const struct pod_binding *b = pods_holder(vf);
			char who[128];
			if (b && !vf->fn.n_netdevs && b->host_ifname &&
			    !strcmp(b->host_ifname, name)) {
				pods_label(b, who, sizeof(who));
				snprintf(buf, size,
					 "the host name VF %s gets back when pod '%s' lets it go",
					 vf->fn.bdf, who);
				return;
			}
		}
}
