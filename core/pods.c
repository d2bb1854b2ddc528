// SPDX-License-Identifier: MIT
/* Pod bindings from the files on the node: the helpers every reader shares
 * (bounded JSON files, the merge by the VF's PCI address), the kubelet
 * checkpoint and pod logs, the cross-check that flags stale entries, and the
 * hand-over to the node model. The CNI caches are read in pods_cni.c, the
 * pods' network namespaces in linux/pods_netns.c. */
#include "pods.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guid.h"
#include "pods_impl.h"
#include "sys.h"

#define CHECKPOINT "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"
#define PODLOG_DIR "/var/log/pods"

#define BINDINGS_MAX 4096 /* far more VFs than a node has */
#define NOTES_MAX    32
#define BROKEN_MAX   64

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

void pods_broken(struct pods_ctx *c, const char *path, const char *why)
{
	struct pod_set *set = c->set;
	if (set->n_broken >= BROKEN_MAX)
		return;
	struct bad_file *v = realloc(set->broken, (set->n_broken + 1) * sizeof(*v));
	if (!v) {
		c->err = -ENOMEM;
		return;
	}
	set->broken = v;
	v[set->n_broken] = (struct bad_file){.path = strdup(path), .why = strdup(why)};
	if (!v[set->n_broken].path || !v[set->n_broken].why) {
		free(v[set->n_broken].path);
		free(v[set->n_broken].why);
		c->err = -ENOMEM;
		return;
	}
	set->n_broken++;
}

/* A file that cannot be used: a note for people and a broken file for checks. */
static void skipped(struct pods_ctx *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void skipped(struct pods_ctx *c, const char *path, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pods_note(c, "skipped '%s': %s", path, why);
	pods_broken(c, path, why);
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

/* Reads and parses one JSON file; a file that cannot be used is noted and
 * yields NULL. Half-written files are common: CNI writes them as pods start. */
struct json_object *pods_parse_file(struct pods_ctx *c, const char *path)
{
	char *buf;
	size_t len;
	int r = sys_read_file(c->s, path, PODS_FILE_MAX, &buf, &len);
	if (r == -ENOENT || r == -EISDIR)
		return NULL; /* gone since the listing, or a subdirectory */
	if (r == -EFBIG) {
		skipped(c, path, "larger than %u bytes", PODS_FILE_MAX);
		return NULL;
	}
	if (r < 0) {
		if (r == -ENOMEM)
			c->err = r;
		skipped(c, path, "%s", strerror(-r));
		return NULL;
	}
	struct json_tokener *tok = json_tokener_new();
	if (!tok) {
		free(buf);
		c->err = -ENOMEM;
		return NULL;
	}
	struct json_object *o = len ? json_tokener_parse_ex(tok, buf, (int)len) : NULL;
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);

	if (len == 0) {
		skipped(c, path, "empty file (half-written?)");
	} else if (je == json_tokener_continue) {
		char why[96];
		snprintf(why, sizeof(why), "truncated JSON: ends at byte %zu (half-written?)", len);
		pods_note(c, "skipped '%s': truncated JSON (half-written?)", path);
		pods_broken(c, path, why);
	} else if (je != json_tokener_success) {
		skipped(c, path, "malformed JSON at byte %zu: %s", end,
			json_tokener_error_desc(je));
	} else {
		while (end < len && isspace((unsigned char)buf[end]))
			end++;
		if (end < len)
			skipped(c, path, "malformed JSON: data after the end at byte %zu", end);
		else if (!json_object_is_type(o, json_type_object))
			skipped(c, path, "not a JSON object");
		else {
			free(buf);
			return o;
		}
	}
	json_object_put(o);
	free(buf);
	return NULL;
}

/* Calls fn for every regular entry of dir (bounded), with its full path. */
void pods_for_each_file(struct pods_ctx *c, const char *dir,
			void (*fn)(struct pods_ctx *c, const char *path, const char *name))
{
	char **names;
	size_t n;
	if (sys_list(c->s, dir, &names, &n) < 0)
		return;
	if (n > FILES_MAX)
		pods_note(c, "'%s' holds %zu entries: read the first %d", dir, n, FILES_MAX);
	for (size_t i = 0; i < n && i < FILES_MAX && !c->err; i++) {
		char path[PATH_MAX];
		if (names[i][0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= (int)sizeof(path))
			continue;
		fn(c, path, names[i]);
	}
	sys_list_free(names, n);
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

/* /var/log/pods/<namespace>_<name>_<uid>: none of the three holds '_'. */
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
		char *a = names[i], *b = strchr(a, '_'), *u = b ? strchr(b + 1, '_') : NULL;
		if (!b || !u || b == a || u == b + 1 || !u[1] || strchr(u + 1, '_') ||
		    !pods_value_ok(a))
			continue;
		struct podlog *l = &c->logs[c->n_logs];
		l->ns = strndup(a, (size_t)(b - a));
		l->name = strndup(b + 1, (size_t)(u - b - 1));
		l->uid = strdup(u + 1);
		c->n_logs++;
		if (!l->ns || !l->name || !l->uid)
			c->err = -ENOMEM;
	}
	sys_list_free(names, n);
}

static const struct podlog *find_podlog(const struct pods_ctx *c, const struct pod_binding *b)
{
	for (size_t i = 0; i < c->n_logs; i++) {
		const struct podlog *l = &c->logs[i];
		if (b->uid ? !strcmp(l->uid, b->uid)
			   : b->ns && b->name && !strcmp(l->ns, b->ns) && !strcmp(l->name, b->name))
			return l;
	}
	return NULL;
}

/* Names pods known by UID only, confirms the living, flags the stale. */
static void cross_check(struct pods_ctx *c)
{
	for (size_t i = 0; i < c->set->n; i++) {
		struct pod_binding *b = &c->set->v[i];
		const struct podlog *l = find_podlog(c, b);
		if (l) {
			b->sources |= POD_SRC_PODLOG;
			pods_set_str(c, &b->ns, l->ns);
			pods_set_str(c, &b->name, l->name);
			pods_set_str(c, &b->uid, l->uid);
		}
		b->stale = b->sources == POD_SRC_CHECKPOINT;
	}
}

/* Whether path, or the symlink at path, is there under the root. */
static bool path_there(struct sys *s, const char *path)
{
	char target[PATH_MAX];
	return sys_exists(s, path) == 0 || sys_readlink(s, path, target, sizeof(target)) > 0;
}

/* /var/run is a symlink to /run: in a captured tree an absolute one would
 * lead out of it, so the path is taken under /run. */
static void netns_path(struct sys *s, const char *netns, char *buf, size_t size)
{
	char target[64];
	if (!strncmp(netns, "/var/run/", 9) &&
	    sys_readlink(s, "/var/run", target, sizeof(target)) > 0 &&
	    (!strcmp(target, "/run") || !strcmp(target, "../run")))
		snprintf(buf, size, "/run/%s", netns + 9);
	else
		snprintf(buf, size, "%s", netns);
}

/* Whether each binding's netns file (/var/run/netns/cni-<uuid>,
 * /proc/<pid>/ns/net) is still there. Known on the running node and the
 * simulated one; in a captured tree only when the capture holds the
 * directory the file would be in (/proc/1 for a process's). */
static void netns_presence(struct pods_ctx *c)
{
	bool live = sys_is_sim(c->s) || !strcmp(sys_root(c->s), "/");
	for (size_t i = 0; i < c->set->n; i++) {
		struct pod_binding *b = &c->set->v[i];
		char path[PATH_MAX], dir[PATH_MAX];
		if (!b->netns || b->netns[0] != '/' || strstr(b->netns, "/../"))
			continue;
		netns_path(c->s, b->netns, path, sizeof(path));
		snprintf(dir, sizeof(dir), "%s", path);
		char *slash = strrchr(dir, '/');
		if (!strncmp(path, "/proc/", 6))
			snprintf(dir, sizeof(dir), "/proc/1");
		else if (slash && slash != dir)
			*slash = '\0';
		if (!live && sys_exists(c->s, dir) < 0)
			continue; /* not captured: unknown */
		b->netns_present = (struct kval){true, path_there(c->s, path)};
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
		netns_presence(&c);
	if (!c.err && netns_wanted(s, opts))
		read_netns(&c);
	for (size_t i = 0; i < c.n_logs; i++) {
		free(c.logs[i].ns);
		free(c.logs[i].name);
		free(c.logs[i].uid);
	}
	free(c.logs);
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
