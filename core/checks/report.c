// SPDX-License-Identifier: MIT
/* Findings as the commands show them (checks_report.h). */
#include "report.h"

#include <errno.h>
#include <string.h>

int findings_select(struct findings *fs, bool (*keep)(const struct finding *f, void *ctx),
		    void *ctx)
{
	size_t k = 0;
	for (size_t i = 0; i < fs->n; i++) {
		if (!keep(&fs->v[i], ctx)) {
			finding_fini(&fs->v[i]);
			continue;
		}
		if (k != i)
			fs->v[k] = fs->v[i];
		k++;
	}
	fs->n = k;
	return findings_group(fs);
}

bool finding_reaches(const struct finding *f, const struct node *n, const char *bdf)
{
	if (!strcmp(f->subject, bdf))
		return true;
	if (f->reach != REACH_BELOW)
		return false;
	if (f->kind == SUBJECT_NODE)
		return true;
	const struct pf *pf = NULL;
	const struct vf *vf = NULL;
	return f->kind == SUBJECT_PF && node_find_fn(n, bdf, &pf, &vf) && vf &&
	       !strcmp(pf->fn.bdf, f->subject);
}

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* The names of the finding's subject, for people: its first netdev and
 * RDMA device (null when it has none, or the subject is the node). */
static void add_names(struct json_object *jf, const struct finding *f, const struct node *n)
{
	const struct fn *fn = f->subject[0] ? node_find_fn(n, f->subject, NULL, NULL) : NULL;
	json_object_object_add(jf, "netdev",
			       fn && fn->n_netdevs ? jstr(fn->netdevs[0].name) : NULL);
	json_object_object_add(jf, "ibdev", fn && fn->n_rdmas ? jstr(fn->rdmas[0].name) : NULL);
}

struct json_object *checks_report_json(const struct findings *fs, const struct node *n)
{
	struct json_object *o = findings_to_json(fs), *a;
	if (!o)
		return NULL;
	json_object_object_add(o, "host", jstr(n->hostname));
	json_object_object_add(o, "kernel", jstr(n->kernel));
	json_object_object_add(o, "driver_version", jstr(n->driver_version));
	if (!json_object_object_get_ex(o, "findings", &a) || json_object_array_length(a) != fs->n) {
		json_object_put(o);
		return NULL;
	}
	for (size_t i = 0; i < fs->n; i++) {
		struct json_object *jf = json_object_array_get_idx(a, i);
		if (!jf) {
			json_object_put(o);
			return NULL;
		}
		add_names(jf, &fs->v[i], n);
	}
	return o;
}

/* {id, severity, title}: what a row of `list` needs. */
static struct json_object *compact(const struct finding *f)
{
	struct json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "id", jstr(f->id));
	json_object_object_add(o, "severity", jstr(check_severity_name(f->severity)));
	json_object_object_add(o, "title", jstr(f->title));
	return o;
}

/* The node JSON's PF and VF objects by PCI address (json-c's hash table),
 * each given an empty "findings" array. */
static struct json_object *index_functions(struct json_object *node)
{
	struct json_object *map = json_object_new_object(), *pfs;
	if (!map || !json_object_object_get_ex(node, "pfs", &pfs))
		return map;
	for (size_t i = 0; i < json_object_array_length(pfs); i++) {
		struct json_object *pf = json_object_array_get_idx(pfs, i), *vfs, *bdf;
		if (json_object_object_get_ex(pf, "bdf", &bdf)) {
			json_object_object_add(pf, "findings", json_object_new_array());
			json_object_object_add(map, json_object_get_string(bdf),
					       json_object_get(pf));
		}
		if (!json_object_object_get_ex(pf, "vfs", &vfs))
			continue;
		for (size_t j = 0; j < json_object_array_length(vfs); j++) {
			struct json_object *vf = json_object_array_get_idx(vfs, j);
			if (!json_object_object_get_ex(vf, "bdf", &bdf))
				continue;
			json_object_object_add(vf, "findings", json_object_new_array());
			json_object_object_add(map, json_object_get_string(bdf),
					       json_object_get(vf));
		}
	}
	return map;
}

int checks_decorate_node_json(struct json_object *node, const struct findings *fs)
{
	struct json_object *map = index_functions(node), *top = json_object_new_array();
	struct json_object *counts = json_object_new_object();
	size_t c[3] = {0};
	if (!map || !top || !counts)
		goto nomem;
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];
		struct json_object *fn = NULL, *arr = top, *j = compact(f);
		if (!j)
			goto nomem;
		if (f->subject[0] && json_object_object_get_ex(map, f->subject, &fn))
			json_object_object_get_ex(fn, "findings", &arr);
		if (!arr || json_object_array_add(arr, j) < 0) {
			json_object_put(j);
			goto nomem;
		}
		c[(unsigned int)f->severity < 3 ? f->severity : CHECK_CRITICAL]++;
	}
	for (unsigned int s = 3; s-- > 0;)
		json_object_object_add(counts, check_severity_name((enum check_severity)s),
				       json_object_new_int64((int64_t)c[s]));
	json_object_object_add(node, "findings", top);
	json_object_object_add(node, "counts", counts);
	json_object_put(map);
	return 0;
nomem:
	json_object_put(map);
	json_object_put(top);
	json_object_put(counts);
	return -ENOMEM;
}

struct json_object *checks_table_json(void)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; a && i < checks_table_len; i++) {
		const struct check_def *d = &checks_table[i];
		struct json_object *o = json_object_new_object();
		if (!o) {
			json_object_put(a);
			return NULL;
		}
		json_object_object_add(o, "id", jstr(d->id));
		json_object_object_add(o, "severity", jstr(check_severity_name(d->severity)));
		json_object_object_add(o, "title", jstr(d->title));
		json_object_object_add(o, "why", jstr(d->why));
		json_object_array_add(a, o);
	}
	return a;
}
