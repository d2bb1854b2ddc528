/* SPDX-License-Identifier: MIT */
/* What the pod-binding readers share (pods.c, pods_cni.c): the reading
 * context, notes, bounded values and the merge by PCI address. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "pods.h"
#include "core/model/node.h"

#define FILES_MAX 4096 /* entries read per directory */
#define VALUE_MAX 255  /* longest string value taken from a file */

struct podlog {
	char *ns, *name, *uid;
};

struct pods_ctx {
	struct sys *s;
	struct pod_set *set;
	struct podlog *logs;
	size_t n_logs;
	/* The GPUs of the kubelet checkpoint (uid, container, resource, id):
	 * the pods' GPUs when the API does not answer. */
	struct pod_gpu *ckpt_gpus;
	size_t n_ckpt_gpus;
	int err; /* -ENOMEM once anything failed to allocate */
};

/* Records a pod-binding file found but not readable whole (bounded). */
void pods_broken(struct pods_ctx *c, const char *path, const char *why);
/* Adds a line to the set's notes (bounded). */
void pods_note(struct pods_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A /var/log/pods entry, <namespace>_<name>_<uid> (none of the three holds
 * '_'): the namespace's and the name's lengths and where the UID starts;
 * false when entry is not of that form. */
bool pods_podlog_split(const char *entry, size_t *ns_len, size_t *name_len, const char **uid);
/* v when it is a printable string of sane length, else NULL. */
const char *pods_value_ok(const char *v);
/* o[key] as a string passing pods_value_ok(), else NULL. */
const char *pods_jstr(struct json_object *o, const char *key);
/* o[key] when it has that type, else NULL. */
struct json_object *pods_jget(struct json_object *o, const char *key, enum json_type type);
/* Sets *field from the first source that has it. */
void pods_set_str(struct pods_ctx *c, char **field, const char *v);
/* The binding of a PCI address, made on first use; NULL past the bound. */
struct pod_binding *pods_binding(struct pods_ctx *c, const char *bdf);
/* Whether a source naming pod uid for b agrees with what b already holds. */
bool pods_same_pod(const struct pod_binding *b, const char *uid);
/* Reads and parses one JSON object file; a file that cannot be used is noted
 * and yields NULL. */
struct json_object *pods_parse_file(struct pods_ctx *c, const char *path);
/* Calls fn for every entry of dir (bounded), with its full path and name. */
void pods_for_each_file(struct pods_ctx *c, const char *dir,
			void (*fn)(struct pods_ctx *c, const char *path, const char *name));

/* Whether each binding's netns file (/var/run/netns/cni-<uuid>,
 * /proc/<pid>/ns/net) is still there (pods_files.c). Known on the running
 * node and the simulated one; in a captured tree only when the capture
 * holds the directory the file would be in (/proc/1 for a process's). */
void pods_netns_presence(struct pods_ctx *c);
/* The podlog naming a binding's pod (by UID, else namespace/name), or NULL. */
const struct podlog *pods_find_podlog(const struct pods_ctx *c, const char *uid, const char *ns,
				      const char *name);
/* A GPU device ID of a checkpoint entry of resource for pod uid (bounded). */
void pods_ckpt_gpu(struct pods_ctx *c, const char *uid, const char *container, const char *resource,
		   const char *id);
/* The kubelet's pod-resources API merged into the bindings, and the GPUs
 * pods hold (pods_api.c). */
void pods_merge_api(struct pods_ctx *c);
/* Whether a resource name is a GPU device plugin's ("nvidia.com/gpu",
 * "nvidia.com/mig-1g.18gb"). */
bool pods_gpu_resource(const char *resource);

/* The CNI caches: Multus results, ib-sriov-cni, sriov-cni (pods_cni.c). */
void pods_read_cni(struct pods_ctx *c);
