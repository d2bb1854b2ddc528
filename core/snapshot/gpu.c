// SPDX-License-Identifier: MIT
/* The node's GPUs (gpu.h). What the NVIDIA driver writes in
 * /proc/driver/nvidia/gpus/<bdf>/information: one "Key: value" a line, the
 * colon followed by tabs and spaces ("GPU UUID: \t GPU-2f1a…"). */
#include "gpu.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/model/attr.h"
#include "refresh.h"

#define GPU_FIELD_MAX 128 /* the longest model or UUID kept */

static bool printable(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isprint((unsigned char)s[i]))
			return false;
	return len > 0;
}

static bool uuid_valid(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]) && s[i] != '-')
			return false;
	return len > 0;
}

/* One "Key: value" line: the key and value without surrounding blanks. */
static bool split_line(const char *line, size_t len, const char **ret_key, size_t *ret_klen,
		       const char **ret_val, size_t *ret_vlen)
{
	const char *colon = memchr(line, ':', len);
	if (!colon)
		return false;
	const char *k = line, *ke = colon, *v = colon + 1, *ve = line + len;
	while (k < ke && isblank((unsigned char)*k))
		k++;
	while (ke > k && isblank((unsigned char)ke[-1]))
		ke--;
	while (v < ve && isblank((unsigned char)*v))
		v++;
	while (ve > v && isspace((unsigned char)ve[-1]))
		ve--;
	*ret_key = k;
	*ret_klen = (size_t)(ke - k);
	*ret_val = v;
	*ret_vlen = (size_t)(ve - v);
	return ke > k;
}

static bool key_is(const char *k, size_t klen, const char *want)
{
	return klen == strlen(want) && !strncasecmp(k, want, klen);
}

static int take(char **field, const char *v, size_t vlen)
{
	char *c = strndup(v, vlen);
	if (!c)
		return 0;
	free(*field);
	*field = c;
	return 1;
}

int gpu_info_parse(const char *text, struct gpu *g)
{
	int got = 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *k, *v;
		size_t klen, vlen;
		if (split_line(line, len, &k, &klen, &v, &vlen) && vlen < GPU_FIELD_MAX) {
			if (key_is(k, klen, "Model") && printable(v, vlen)) {
				got += take(&g->model, v, vlen);
			} else if (key_is(k, klen, "GPU UUID") && vlen > 4 &&
				   !strncmp(v, "GPU-", 4) && uuid_valid(v + 4, vlen - 4)) {
				got += take(&g->uuid, v, vlen);
			} else if (key_is(k, klen, "Device Minor") && vlen <= 6) {
				char buf[8], *end;
				memcpy(buf, v, vlen);
				buf[vlen] = '\0';
				long m = strtol(buf, &end, 10);
				if (!*end && end != buf && m >= 0) {
					g->minor = m;
					got++;
				}
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return got;
}

static int cmp_gpu(const void *a, const void *b)
{
	return strcmp(((const struct gpu *)a)->bdf, ((const struct gpu *)b)->bdf);
}

int gpu_probe(struct discover *d, const char *bdf)
{
	char dir[128], path[PATH_MAX];
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", bdf);
	struct kval vendor = attr_read_int(d->s, dir, "vendor");
	if (!vendor.known || vendor.v != GPU_VENDOR_NVIDIA)
		return 0;
	struct kval cls = attr_read_int(d->s, dir, "class");
	if (!cls.known || ((cls.v >> 8) != 0x0300 && (cls.v >> 8) != 0x0302))
		return 0; /* the GPU's audio or USB function, an NVSwitch */
	struct node *n = d->n;
	struct gpu *nv = realloc(n->gpus, (n->n_gpus + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	n->gpus = nv;
	struct gpu *g = &nv[n->n_gpus++];
	*g = (struct gpu){.numa = -1, .minor = -1};
	snprintf(g->bdf, sizeof(g->bdf), "%s", bdf);
	g->devpath = discover_devpath(d->s, bdf);
	struct kval numa = attr_read_int(d->s, dir, "numa_node");
	if (numa.known)
		g->numa = numa.v;
	char drv[128];
	if (sys_readlink_name(d->s, attr_join(path, dir, "driver"), drv, sizeof(drv)) > 0)
		g->driver = strdup(drv);

	char *text = NULL;
	size_t len;
	snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", bdf);
	int r = sys_read_file(d->s, path, GPU_INFO_MAX, &text, &len);
	if (r == -EFBIG)
		discover_note(d, "'%s' is larger than %u bytes: not read", path, GPU_INFO_MAX);
	else if (r >= 0 && gpu_info_parse(text, g) == 0)
		discover_note(d, "'%s' names no model, UUID or minor", path);
	else if (r < 0 && r != -ENOENT && r != -ENOTDIR)
		discover_note(d, "cannot read '%s': %s", path, strerror(-r));
	free(text);
	return 1;
}

static int add_mig(struct gpu *g, const char *uuid)
{
	for (size_t i = 0; i < g->n_migs; i++)
		if (!strcasecmp(g->migs[i], uuid))
			return 0;
	char **nm = realloc(g->migs, (g->n_migs + 1) * sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	g->migs = nm;
	if (!(nm[g->n_migs] = strdup(uuid)))
		return -ENOMEM;
	g->n_migs++;
	return 1;
}

/* A MIG device's UUID ("MIG-<uuid>"), not the legacy MIG-GPU-… form. */
static bool is_mig_uuid(const char *s)
{
	size_t len = s ? strlen(s) : 0;
	return len > 4 && len < GPU_FIELD_MAX && !strncmp(s, "MIG-", 4) &&
	       strncmp(s, "MIG-GPU-", 8) && uuid_valid(s + 4, len - 4);
}

/* The minor of the one /dev/nvidia<N> among a CDI device's nodes, or -1. */
static long device_minor(struct json_object *dev)
{
	struct json_object *edits, *nodes;
	if (!json_object_object_get_ex(dev, "containerEdits", &edits) ||
	    !json_object_object_get_ex(edits, "deviceNodes", &nodes) ||
	    !json_object_is_type(nodes, json_type_array))
		return -1;
	long minor = -1;
	for (size_t i = 0; i < json_object_array_length(nodes); i++) {
		struct json_object *path, *node = json_object_array_get_idx(nodes, i);
		if (!json_object_object_get_ex(node, "path", &path) ||
		    !json_object_is_type(path, json_type_string))
			continue;
		const char *p = json_object_get_string(path);
		if (strncmp(p, "/dev/nvidia", 11) || !isdigit((unsigned char)p[11]))
			continue;
		char *end;
		long m = strtol(p + 11, &end, 10);
		if (*end || m > 65535)
			continue;
		if (minor >= 0 && minor != m)
			return -1; /* two GPUs' nodes: not one GPU's device */
		minor = m;
	}
	return minor;
}

static int place_device(struct gpu *gpus, size_t n, struct json_object *dev)
{
	long minor = device_minor(dev);
	struct gpu *g = NULL;
	for (size_t i = 0; minor >= 0 && i < n && !g; i++)
		if (gpus[i].minor == minor)
			g = &gpus[i];
	if (!g)
		return 0;
	int placed = 0, r;
	struct json_object *name, *ann;
	if (json_object_object_get_ex(dev, "name", &name) &&
	    json_object_is_type(name, json_type_string) &&
	    is_mig_uuid(json_object_get_string(name))) {
		if ((r = add_mig(g, json_object_get_string(name))) < 0)
			return r;
		placed += r;
	}
	if (json_object_object_get_ex(dev, "annotations", &ann) &&
	    json_object_is_type(ann, json_type_object)) {
		json_object_object_foreach(ann, key, val) {
			(void)key;
			if (!json_object_is_type(val, json_type_string) ||
			    !is_mig_uuid(json_object_get_string(val)))
				continue;
			if ((r = add_mig(g, json_object_get_string(val))) < 0)
				return r;
			placed += r;
		}
	}
	return placed;
}

int gpu_cdi_place(struct gpu *gpus, size_t n, const char *json, size_t len)
{
	if (len > GPU_CDI_MAX || len > INT_MAX)
		return -EINVAL;
	struct json_tokener *tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	struct json_object *doc = json_tokener_parse_ex(tok, json, (int)len), *devs;
	json_tokener_free(tok);
	int r = -EINVAL, placed = 0;
	if (!doc || !json_object_object_get_ex(doc, "devices", &devs) ||
	    !json_object_is_type(devs, json_type_array))
		goto out;
	r = 0;
	for (size_t i = 0; i < json_object_array_length(devs) && r >= 0; i++) {
		struct json_object *dev = json_object_array_get_idx(devs, i);
		if (json_object_is_type(dev, json_type_object) &&
		    (r = place_device(gpus, n, dev)) > 0)
			placed += r;
	}
out:
	json_object_put(doc);
	return r < 0 ? r : placed;
}

static void cdi_dir(struct discover *d, const char *dir)
{
	char **names;
	size_t n_names;
	if (sys_list(d->s, dir, &names, &n_names) < 0)
		return;
	size_t read = 0;
	for (size_t i = 0; i < n_names && read < GPU_CDI_FILES_MAX; i++) {
		size_t l = strlen(names[i]);
		if (l < 6 || strcmp(names[i] + l - 5, ".json"))
			continue;
		char path[PATH_MAX], *text = NULL;
		size_t len;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		read++;
		int r = sys_read_file(d->s, path, GPU_CDI_MAX, &text, &len);
		if (r >= 0)
			r = gpu_cdi_place(d->n->gpus, d->n->n_gpus, text, len);
		free(text);
		if (r == -EINVAL)
			discover_note(d, "CDI spec '%s' is no JSON CDI spec: skipped", path);
		else if (r < 0)
			discover_note(d, "cannot read CDI spec '%s': %s", path, strerror(-r));
	}
	sys_list_free(names, n_names);
}

void gpu_finish(struct discover *d)
{
	struct node *n = d->n;
	if (!n->n_gpus)
		return;
	qsort(n->gpus, n->n_gpus, sizeof(*n->gpus), cmp_gpu);
	cdi_dir(d, "/etc/cdi");
	cdi_dir(d, "/var/run/cdi");
}
