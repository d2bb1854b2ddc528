// SPDX-License-Identifier: MIT
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"

static const char *const field_names[HF__N] = {
	[HF_DRIVER] = "driver",
	[HF_NETDEV] = "netdev",
	[HF_IBDEV] = "ibdev",
	[HF_NODE_GUID] = "node_guid",
	[HF_PORT_GUID] = "port_guid",
	[HF_PORT_STATE] = "port_state",
	[HF_PHYS_STATE] = "phys_state",
	[HF_RATE] = "rate",
	[HF_LINK_LAYER] = "link_layer",
	[HF_NUMVFS] = "numvfs",
	[HF_POD] = "pod",
	[HF_POD_UID] = "pod_uid",
	[HF_POD_IF] = "pod_if",
};

static void put(struct hist_fn *f, enum hist_field k, const char *s)
{
	HIST_SET(f->v[k], s ? s : "");
}

static void put_guid(struct hist_fn *f, enum hist_field k, struct kguid g)
{
	char buf[GUID_STRLEN];
	if (!g.known)
		return;
	guid_format_sysfs(g.v, buf);
	put(f, k, buf);
}

static void fn_values(struct hist_fn *f, const struct fn *fn)
{
	put(f, HF_DRIVER, fn->driver);
	if (fn->n_netdevs)
		put(f, HF_NETDEV, fn->netdevs[0].name);
	const struct rdma *r = fn_rdma(fn);
	if (r) {
		put(f, HF_IBDEV, r->name);
		put_guid(f, HF_NODE_GUID, r->node_guid);
	}
	const struct port *p = fn_port(fn);
	if (p) {
		put(f, HF_PORT_STATE, p->state_name);
		put(f, HF_PHYS_STATE, p->phys_state_name);
		put(f, HF_RATE, p->rate);
		put(f, HF_LINK_LAYER, p->link_layer);
		put_guid(f, HF_PORT_GUID, p->port_guid);
	}
}

int hist_state_add(struct hist_state *st, const struct hist_fn *f)
{
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		void *v = realloc(st->fns, cap * sizeof(*st->fns));
		if (!v)
			return -ENOMEM;
		st->fns = v;
		st->cap = cap;
	}
	st->fns[st->n++] = *f;
	return 0;
}

static int by_bdf(const void *a, const void *b)
{
	return strcmp(((const struct hist_fn *)a)->bdf, ((const struct hist_fn *)b)->bdf);
}

void hist_state_sort(struct hist_state *st)
{
	if (st->n)
		qsort(st->fns, st->n, sizeof(*st->fns), by_bdf);
}

int hist_state_from_node(const struct node *n, struct hist_state *ret)
{
	struct hist_state st = {0};
	struct hist_fn f;
	for (size_t i = 0; i < n->n_pfs; i++) {
		const struct pf *pf = &n->pfs[i];
		memset(&f, 0, sizeof(f));
		HIST_SET(f.bdf, pf->fn.bdf);
		HIST_SET(f.pf, pf->fn.bdf);
		f.vf = -1;
		fn_values(&f, &pf->fn);
		if (pf->numvfs.known)
			snprintf(f.v[HF_NUMVFS], sizeof(f.v[HF_NUMVFS]), "%lld",
				 (long long)pf->numvfs.v);
		if (hist_state_add(&st, &f) < 0)
			goto nomem;
		for (size_t j = 0; j < pf->n_vfs; j++) {
			const struct vf *vf = &pf->vfs[j];
			memset(&f, 0, sizeof(f));
			HIST_SET(f.bdf, vf->fn.bdf);
			HIST_SET(f.pf, pf->fn.bdf);
			f.vf = (int)vf->index;
			fn_values(&f, &vf->fn);
			f.v[HF_NODE_GUID][0] = f.v[HF_PORT_GUID][0] = '\0';
			put_guid(&f, HF_NODE_GUID, vf->node_guid);
			put_guid(&f, HF_PORT_GUID, vf->port_guid);
			const struct pod_binding *b = vf->pod;
			if (b && b->name) {
				char pod[HIST_POD_MAX];
				snprintf(pod, sizeof(pod), "%s/%s", b->ns ? b->ns : "", b->name);
				put(&f, HF_POD, pod);
				put(&f, HF_POD_UID, b->uid);
				put(&f, HF_POD_IF, b->in_pod.name ? b->in_pod.name : b->ifname);
			}
			if (hist_state_add(&st, &f) < 0)
				goto nomem;
		}
	}
	hist_state_sort(&st);
	*ret = st;
	return 0;
nomem:
	hist_state_fini(&st);
	return -ENOMEM;
}

void hist_state_fini(struct hist_state *st)
{
	if (!st)
		return;
	free(st->fns);
	memset(st, 0, sizeof(*st));
}

const struct hist_fn *hist_state_find(const struct hist_state *st, const char *bdf)
{
	struct hist_fn key;
	HIST_SET(key.bdf, bdf);
	return st->n ? bsearch(&key, st->fns, st->n, sizeof(*st->fns), by_bdf) : NULL;
}

char *hist_fn_to_json(const struct hist_fn *f)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "pf", json_object_new_string(f->pf));
	json_object_object_add(o, "vf", json_object_new_int(f->vf));
	for (int k = 0; k < HF__N; k++)
		if (f->v[k][0])
			json_object_object_add(o, field_names[k], json_object_new_string(f->v[k]));
	char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}

int hist_fn_from_json(const char *bdf, const char *json, struct hist_fn *ret)
{
	struct json_object *o = json_tokener_parse(json), *v;
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "pf", &v) || !json_object_is_type(v, json_type_string)) {
		json_object_put(o);
		return -EINVAL;
	}
	struct hist_fn f;
	memset(&f, 0, sizeof(f));
	HIST_SET(f.bdf, bdf);
	HIST_SET(f.pf, json_object_get_string(v));
	f.vf = json_object_object_get_ex(o, "vf", &v) ? json_object_get_int(v) : -1;
	for (int k = 0; k < HF__N; k++)
		if (json_object_object_get_ex(o, field_names[k], &v) &&
		    json_object_is_type(v, json_type_string))
			HIST_SET(f.v[k], json_object_get_string(v));
	json_object_put(o);
	*ret = f;
	return 0;
}

int hist_fn_cmp(const struct hist_fn *a, const struct hist_fn *b)
{
	int c = strcmp(a->pf, b->pf);
	if (c || (c = a->vf - b->vf))
		return c;
	for (int k = 0; k < HF__N; k++)
		if ((c = strcmp(a->v[k], b->v[k])))
			return c;
	return 0;
}

/* The passes of a diff, in the order a reader follows cause to effect. */
enum pass {
	PASS_FN_GONE,	/* functions removed, VF counts */
	PASS_DRIVER,	/* unbinds and binds */
	PASS_POD_GONE,	/* pods that let go */
	PASS_POD_BOUND, /* pods that took a VF */
	PASS_NETNS,	/* netdevs into and out of pods */
	PASS_FN_NEW,	/* functions that appeared */
	PASS_NAMES,	/* renames, netdevs that came or went */
	PASS_STATE,	/* GUIDs, ports */
	PASS__N,
};

struct emit {
	int64_t t_us, group;
	const char *boot;
	const char *ref; /* "rdma": the RDMA device's name, not the netdev's */
	int (*fn)(void *arg, struct hist_event *ev);
	void *arg;
};

/* One event of function f; holder (may be NULL) the state naming the pod
 * it concerns. name NULL: the function's netdev, else its RDMA device. */
static int emit_pod(const struct emit *m, const struct hist_fn *f, const struct hist_fn *holder,
		    enum hist_kind kind, const char *old, const char *new, const char *name)
{
	struct hist_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.t_us = ev.t_last_us = m->t_us;
	ev.count = 1;
	ev.group = m->group;
	ev.kind = kind;
	HIST_SET(ev.boot, m->boot);
	HIST_SET(ev.bdf, f->bdf);
	HIST_SET(ev.pf, f->pf);
	HIST_SET(ev.name, name ? name : f->v[HF_NETDEV][0] ? f->v[HF_NETDEV] : f->v[HF_IBDEV]);
	HIST_SET(ev.old, old);
	HIST_SET(ev.new, new);
	HIST_SET(ev.ref, m->ref ? m->ref : "");
	if (holder) {
		HIST_SET(ev.pod, holder->v[HF_POD]);
		HIST_SET(ev.pod_uid, holder->v[HF_POD_UID]);
	}
	return m->fn(m->arg, &ev);
}

static int emit(const struct emit *m, const struct hist_fn *f, enum hist_kind kind, const char *old,
		const char *new, const char *name)
{
	return emit_pod(m, f, NULL, kind, old, new, name);
}

static const struct {
	enum hist_field field;
	enum hist_kind kind;
} state_fields[] = {
	{HF_NODE_GUID, HK_NODE_GUID},	{HF_PORT_GUID, HK_PORT_GUID},
	{HF_LINK_LAYER, HK_LINK_LAYER}, {HF_PHYS_STATE, HK_PHYS_STATE},
	{HF_PORT_STATE, HK_PORT_STATE}, {HF_RATE, HK_RATE},
};

/* One function's events of one pass; a or b NULL: absent. */
static int diff_fn(const struct emit *m, enum pass pass, const struct hist_fn *a,
		   const struct hist_fn *b)
{
	const struct hist_fn *f = b ? b : a;
	int r = 0;
	switch (pass) {
	case PASS_FN_GONE:
		if (a && !b)
			return emit(m, a, HK_FN_REMOVED, "present", "", NULL);
		if (a && b && strcmp(a->v[HF_NUMVFS], b->v[HF_NUMVFS]))
			return emit(m, b, HK_VF_COUNT, a->v[HF_NUMVFS], b->v[HF_NUMVFS], NULL);
		return 0;
	case PASS_DRIVER:
		if (a && b && strcmp(a->v[HF_DRIVER], b->v[HF_DRIVER]))
			return emit(m, b, HK_DRIVER, a->v[HF_DRIVER], b->v[HF_DRIVER], NULL);
		return 0;
	case PASS_POD_GONE:
		if (a && a->v[HF_POD][0] &&
		    (!b || strcmp(a->v[HF_POD], b->v[HF_POD]) ||
		     strcmp(a->v[HF_POD_UID], b->v[HF_POD_UID])))
			return emit_pod(m, f, a, HK_POD_GONE, a->v[HF_POD], "", a->v[HF_POD_IF]);
		return 0;
	case PASS_POD_BOUND:
		if (b && b->v[HF_POD][0] &&
		    (!a || strcmp(a->v[HF_POD], b->v[HF_POD]) ||
		     strcmp(a->v[HF_POD_UID], b->v[HF_POD_UID])))
			return emit_pod(m, b, b, HK_POD_BOUND, "", b->v[HF_POD], b->v[HF_POD_IF]);
		return 0;
	case PASS_NETNS:
		if (!a || !b || !strcmp(a->v[HF_NETDEV], b->v[HF_NETDEV]))
			return 0;
		/* Into the pod: the host netdev went while a pod holds the VF,
		 * bound to its driver (an unbound VF's netdev is gone, not moved). */
		if (a->v[HF_NETDEV][0] && !b->v[HF_NETDEV][0] && b->v[HF_POD][0] &&
		    b->v[HF_DRIVER][0]) {
			char to[HIST_VALUE_MAX];
			snprintf(to, sizeof(to), "%.*s:%.15s", (int)(sizeof(to) - 18), b->v[HF_POD],
				 b->v[HF_POD_IF][0] ? b->v[HF_POD_IF] : "?");
			return emit_pod(m, b, b, HK_NETNS, a->v[HF_NETDEV], to, a->v[HF_NETDEV]);
		}
		if (!a->v[HF_NETDEV][0] && b->v[HF_NETDEV][0] && a->v[HF_POD][0] &&
		    a->v[HF_DRIVER][0]) {
			char from[HIST_VALUE_MAX];
			snprintf(from, sizeof(from), "%.*s:%.15s", (int)(sizeof(from) - 18),
				 a->v[HF_POD], a->v[HF_POD_IF][0] ? a->v[HF_POD_IF] : "?");
			return emit_pod(m, b, a, HK_NETNS, from, b->v[HF_NETDEV], b->v[HF_NETDEV]);
		}
		return 0;
	case PASS_FN_NEW:
		if (!a && b)
			return emit(m, b, HK_FN_ADDED, "", "present", NULL);
		return 0;
	case PASS_NAMES:
		if (!a || !b)
			return 0;
		if (strcmp(a->v[HF_NETDEV], b->v[HF_NETDEV])) {
			bool pod_move = (a->v[HF_NETDEV][0] && !b->v[HF_NETDEV][0] &&
					 b->v[HF_POD][0] && b->v[HF_DRIVER][0]) ||
					(!a->v[HF_NETDEV][0] && b->v[HF_NETDEV][0] &&
					 a->v[HF_POD][0] && a->v[HF_DRIVER][0]);
			if (a->v[HF_NETDEV][0] && b->v[HF_NETDEV][0])
				r = emit(m, b, HK_RENAME, a->v[HF_NETDEV], b->v[HF_NETDEV],
					 b->v[HF_NETDEV]);
			else if (!pod_move)
				r = emit(m, b, HK_NETDEV, a->v[HF_NETDEV], b->v[HF_NETDEV],
					 a->v[HF_NETDEV][0] ? a->v[HF_NETDEV] : b->v[HF_NETDEV]);
		}
		if (r == 0 && a->v[HF_IBDEV][0] && b->v[HF_IBDEV][0] &&
		    strcmp(a->v[HF_IBDEV], b->v[HF_IBDEV])) {
			struct emit rdma = *m;
			rdma.ref = "rdma";
			r = emit(&rdma, b, HK_RENAME, a->v[HF_IBDEV], b->v[HF_IBDEV],
				 b->v[HF_IBDEV]);
		}
		return r;
	case PASS_STATE:
		if (!a || !b)
			return 0;
		for (size_t i = 0; r == 0 && i < sizeof(state_fields) / sizeof(*state_fields);
		     i++) {
			enum hist_field k = state_fields[i].field;
			/* A value that became unreadable is not a change (a VF
			 * in a pod has no host ibdev to read). */
			if (strcmp(a->v[k], b->v[k]) && b->v[k][0])
				r = emit(m, b, state_fields[i].kind, a->v[k], b->v[k], NULL);
		}
		return r;
	case PASS__N:
		break;
	}
	return 0;
}

int hist_state_diff(const struct hist_state *old, const struct hist_state *new, int64_t t_us,
		    const char *boot, int64_t group, int (*fn)(void *arg, struct hist_event *ev),
		    void *arg)
{
	struct emit m = {.t_us = t_us, .group = group, .boot = boot, .fn = fn, .arg = arg};
	size_t na = old ? old->n : 0, nb = new ? new->n : 0;
	for (int pass = 0; pass < PASS__N; pass++) {
		size_t i = 0, j = 0;
		while (i < na || j < nb) {
			const struct hist_fn *a = i < na ? &old->fns[i] : NULL,
					     *b = j < nb ? &new->fns[j] : NULL;
			int c = !a ? 1 : !b ? -1 : strcmp(a->bdf, b->bdf);
			int r = diff_fn(&m, (enum pass)pass, c <= 0 ? a : NULL, c >= 0 ? b : NULL);
			if (r)
				return r;
			i += c <= 0;
			j += c >= 0;
		}
	}
	return 0;
}
