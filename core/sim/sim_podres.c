// SPDX-License-Identifier: MIT
/* The simulated kubelet's pod-resources API (core/sys/podres.h), from the
 * simulated node's state as the kubelet would answer List and
 * GetAllocatableResources:
 *
 *   pods         the pods running now: one a directory of var/log/pods
 *                (<ns>_<name>_<uid>), its containers the directories in it;
 *                a checkpoint entry of a pod that is gone is not listed
 *   devices      the kubelet checkpoint's entries of the pod's containers,
 *                one ContainerDevices per device ID as kubelet 1.2x gives
 *                them, with the NUMA node the device plugin reported (the
 *                checkpoint's key, else the function's numa_node)
 *   allocatable  every device the plugins registered (the checkpoint's
 *                RegisteredDevices)
 *
 * No checkpoint: no kubelet, PODRES_ABSENT. The fault podres=absent,
 * timeout, refused or untrusted (sim_faults.c) answers as a kubelet that is
 * not there, hangs, is down, or a socket ibvf does not trust. */
#include "core/model/node.h"
#include "core/sim/sys_sim.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sim/sim_tree.h"

#define CHECKPOINT     "var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"
#define CHECKPOINT_MAX (4 << 20)
#define PODLOGS	       "var/log/pods"
#define GPUINFO	       "proc/driver/nvidia/gpus"

struct gpu_numa {
	char uuid[SIM_GPU_UUID_LEN];
	int64_t numa;
};

struct answer {
	const char *root;
	struct podres *p;
	struct gpu_numa *gpus;
	size_t n_gpus;
	int err;
};

static json_object *checkpoint_read(const char *root, int *ret_err)
{
	char path[PATH_MAX];
	sim_fmt(path, sizeof(path), "%s/%s", root, CHECKPOINT);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		*ret_err = -errno;
		return NULL;
	}
	char *buf = malloc(CHECKPOINT_MAX + 1);
	ssize_t n = buf ? read(fd, buf, CHECKPOINT_MAX + 1) : -1;
	close(fd);
	json_object *j = NULL;
	if (n >= 0 && n <= CHECKPOINT_MAX) {
		buf[n] = '\0';
		j = json_tokener_parse(buf);
	}
	free(buf);
	*ret_err = j ? 0 : -EINVAL;
	return j;
}

/* GPU UUID -> NUMA node, from the driver's information files. */
static void gpus_load(struct answer *a)
{
	char rel[PATH_MAX], path[PATH_MAX], text[2048], numa[16];
	sim_fmt(path, sizeof(path), "%s/%s", a->root, GPUINFO);
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		sim_fmt(rel, sizeof(rel), "%s/%s/information", GPUINFO, de->d_name);
		if (sim_get(a->root, rel, text, sizeof(text)) < 0)
			continue;
		const char *u = strstr(text, "GPU UUID:");
		if (!u)
			continue;
		u += strlen("GPU UUID:");
		while (*u == ' ' || *u == '\t')
			u++;
		size_t len = strcspn(u, " \t\n");
		struct gpu_numa *g;
		if (len >= SIM_GPU_UUID_LEN ||
		    !(g = node_arr_grow(&a->gpus, &a->n_gpus, sizeof(*g))))
			continue;
		memcpy(g->uuid, u, len);
		g->numa = -1;
		sim_fmt(rel, sizeof(rel), "sys/bus/pci/devices/%s/numa_node", de->d_name);
		if (sim_get(a->root, rel, numa, sizeof(numa)) >= 0)
			g->numa = strtoll(numa, NULL, 10);
	}
	if (d)
		closedir(d);
}

/* The NUMA node the device plugin reports for id: the checkpoint's key, a
 * GPU's, a PCI function's numa_node; -1 when none. */
static int64_t device_numa(struct answer *a, const char *id, const char *key)
{
	char *end, rel[PATH_MAX], buf[16];
	long long k = key ? strtoll(key, &end, 10) : -1;
	if (key && !*end && k >= 0)
		return k;
	for (size_t i = 0; i < a->n_gpus; i++)
		if (!strcmp(a->gpus[i].uuid, id))
			return a->gpus[i].numa;
	if (strchr(id, '/') || strlen(id) > 32)
		return -1;
	sim_fmt(rel, sizeof(rel), "sys/bus/pci/devices/%s/numa_node", id);
	if (sim_get(a->root, rel, buf, sizeof(buf)) < 0)
		return -1;
	k = strtoll(buf, &end, 10);
	return end != buf && k >= 0 ? k : -1;
}

/* One ContainerDevices of one ID. */
static void devices_add(struct answer *a, struct podres_devices **v, size_t *n,
			const char *resource, const char *id, const char *numa_key)
{
	if (*n >= PODRES_DEVICES_MAX) {
		a->p->truncated = true;
		return;
	}
	struct podres_devices *d = node_arr_grow(v, n, sizeof(**v));
	if (!d || !(d->resource = strdup(resource)) || !(d->ids = calloc(1, sizeof(*d->ids))) ||
	    !(d->ids[0] = strdup(id))) {
		a->err = -ENOMEM;
		return;
	}
	d->n_ids = 1;
	int64_t numa = device_numa(a, id, numa_key);
	if (numa >= 0) {
		if (!(d->numa = malloc(sizeof(*d->numa)))) {
			a->err = -ENOMEM;
			return;
		}
		d->numa[0] = numa;
		d->n_numa = 1;
	}
}

/* DeviceIDs: {"<numa>": [ids]} (or a plain list, before kubelet 1.20). */
static void entry_devices(struct answer *a, struct podres_container *c, const char *resource,
			  json_object *ids)
{
	if (json_object_is_type(ids, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(ids); i++) {
			json_object *id = json_object_array_get_idx(ids, i);
			if (json_object_is_type(id, json_type_string))
				devices_add(a, &c->devs, &c->n_devs, resource,
					    json_object_get_string(id), NULL);
		}
		return;
	}
	if (!json_object_is_type(ids, json_type_object))
		return;
	json_object_object_foreach(ids, key, arr) {
		for (size_t i = 0;
		     json_object_is_type(arr, json_type_array) && i < json_object_array_length(arr);
		     i++) {
			json_object *id = json_object_array_get_idx(arr, i);
			if (json_object_is_type(id, json_type_string))
				devices_add(a, &c->devs, &c->n_devs, resource,
					    json_object_get_string(id), key);
		}
	}
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

static void container_devices(struct answer *a, struct podres_container *c, const char *uid,
			      json_object *entries)
{
	for (size_t i = 0; i < json_object_array_length(entries); i++) {
		json_object *e = json_object_array_get_idx(entries, i), *ids;
		const char *u = jstr(e, "PodUID"), *ctr = jstr(e, "ContainerName"),
			   *res = jstr(e, "ResourceName");
		if (u && ctr && res && !strcmp(u, uid) && !strcmp(ctr, c->name) &&
		    json_object_object_get_ex(e, "DeviceIDs", &ids))
			entry_devices(a, c, res, ids);
	}
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The names in the directory rel that are directories, sorted. */
static char **subdirs(const char *root, const char *rel, size_t *ret_n)
{
	char path[PATH_MAX];
	sim_fmt(path, sizeof(path), "%s/%s", root, rel);
	DIR *d = opendir(path);
	char **v = NULL;
	size_t n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)) && n < PODRES_PODS_MAX) {
		struct stat st;
		if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, 0) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		char **slot = node_arr_grow(&v, &n, sizeof(*v));
		if (!slot || !(*slot = strdup(de->d_name))) {
			n -= slot ? 1 : 0;
			break;
		}
	}
	if (d)
		closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*ret_n = n;
	return v;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void pod_add(struct answer *a, const char *dir, json_object *entries)
{
	/* <ns>_<name>_<uid>: none of the three holds '_'. */
	const char *n1 = strchr(dir, '_'), *n2 = n1 ? strchr(n1 + 1, '_') : NULL;
	if (!n1 || !n2 || strchr(n2 + 1, '_'))
		return;
	struct podres_pod *pod = node_arr_grow(&a->p->pods, &a->p->n_pods, sizeof(*pod));
	if (!pod || !(pod->ns = strndup(dir, (size_t)(n1 - dir))) ||
	    !(pod->name = strndup(n1 + 1, (size_t)(n2 - n1 - 1)))) {
		a->err = -ENOMEM;
		return;
	}
	char rel[PATH_MAX];
	size_t n;
	sim_fmt(rel, sizeof(rel), "%s/%s", PODLOGS, dir);
	char **ctrs = subdirs(a->root, rel, &n);
	for (size_t i = 0; i < n && a->err == 0; i++) {
		struct podres_container *c = node_arr_grow(&pod->ctrs, &pod->n_ctrs, sizeof(*c));
		if (!c || !(c->name = strdup(ctrs[i]))) {
			a->err = -ENOMEM;
			break;
		}
		if (entries)
			container_devices(a, c, n2 + 1, entries);
	}
	strv_free(ctrs, n);
}

static void allocatable(struct answer *a, json_object *data)
{
	json_object *reg;
	if (!json_object_object_get_ex(data, "RegisteredDevices", &reg) ||
	    !json_object_is_type(reg, json_type_object))
		return;
	json_object_object_foreach(reg, resource, ids) {
		for (size_t i = 0; json_object_is_type(ids, json_type_array) &&
				   i < json_object_array_length(ids) && a->err == 0;
		     i++) {
			json_object *id = json_object_array_get_idx(ids, i);
			if (json_object_is_type(id, json_type_string))
				devices_add(a, &a->p->alloc, &a->p->n_alloc, resource,
					    json_object_get_string(id), NULL);
		}
	}
}

static int fail(struct podres *p, enum podres_state state, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct podres *p, enum podres_state state, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&p->note, fmt, ap);
	va_end(ap);
	p->state = state;
	if (r < 0) {
		p->note = NULL;
		return -ENOMEM;
	}
	return 0;
}

int sim_podres_read(struct sys *s, struct podres *ret)
{
	struct sim *m = (struct sim *)s;
	char fault[32] = "";
	sim_fault_value(s->root, m->faults, "podres", fault, sizeof(fault));
	if (!strcmp(fault, "absent"))
		return 0;
	if (!strcmp(fault, "timeout"))
		return fail(ret, PODRES_FAILED,
			    "pod-resources API '%s': List: deadline exceeded after %d ms",
			    ret->socket, s->podres_timeout_ms);
	if (!strcmp(fault, "refused"))
		return fail(ret, PODRES_FAILED, "pod-resources API '%s': connect: %s", ret->socket,
			    strerror(ECONNREFUSED));
	if (!strcmp(fault, "untrusted"))
		return fail(ret, PODRES_REFUSED,
			    "pod-resources API '%s': not a socket root owns: not asked",
			    ret->socket);

	int err;
	json_object *cp = checkpoint_read(s->root, &err), *data = NULL, *entries = NULL;
	if (err == -ENOENT)
		return 0; /* no kubelet on this node */
	if (!cp)
		/* A kubelet that cannot read its checkpoint does not start. */
		return fail(ret, PODRES_FAILED, "pod-resources API '%s': connect: %s", ret->socket,
			    strerror(ECONNREFUSED));
	if (json_object_object_get_ex(cp, "Data", &data) &&
	    !json_object_object_get_ex(data, "PodDeviceEntries", &entries))
		entries = NULL;
	if (entries && !json_object_is_type(entries, json_type_array))
		entries = NULL;

	struct answer a = {.root = s->root, .p = ret};
	gpus_load(&a);
	ret->state = PODRES_OK;
	ret->get_known = true;
	ret->alloc_known = true;
	size_t n;
	char **dirs = subdirs(s->root, PODLOGS, &n);
	if (n >= PODRES_PODS_MAX)
		ret->truncated = true;
	for (size_t i = 0; i < n && a.err == 0; i++)
		pod_add(&a, dirs[i], entries);
	strv_free(dirs, n);
	if (a.err == 0 && data)
		allocatable(&a, data);
	free(a.gpus);
	json_object_put(cp);
	return a.err;
}
