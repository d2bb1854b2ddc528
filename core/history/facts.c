// SPDX-License-Identifier: MIT
/* The checks' facts from the recorded history (facts.h). */
#include "facts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/guid.h"
#include "recorder.h"

/* Grows an array of elements of size to hold one more. */
static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	void *p = realloc(*v, c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

struct boot_start {
	const char *id;
	int64_t match_us, newest_us;
};

static int boot_start_cb(void *arg, const struct hist_event *ev)
{
	struct boot_start *b = arg;
	/* Oldest first: the last of each kind wins. */
	b->newest_us = ev->t_us;
	if (b->id[0] && (!strcmp(ev->boot, b->id) || !strcmp(ev->new, b->id)))
		b->match_us = ev->t_us;
	return 0;
}

int hist_facts_boot_start(struct hist_store *st, const char *boot_id, int64_t fallback_us,
			  int64_t *ret_us, struct err *e)
{
	struct boot_start b = {.id = boot_id ? boot_id : ""};
	struct hist_query q = {.kinds = 1u << HK_BOOT};
	int r = hist_store_query(st, &q, boot_start_cb, &b, e);
	if (r < 0)
		return r;
	/* A boot not recorded yet is this one all the same: never an older
	 * boot's start (its renames are not this boot's). */
	*ret_us = b.match_us ? b.match_us : fallback_us;
	return 0;
}

/* The boots the store holds, for their groups. */
struct boots {
	struct hist_event *v;
	size_t n, cap;
};

/* What is being read: the facts, and the boots. */
struct reader {
	struct hist_store *st;
	struct check_past *p;
	size_t cap_renames, cap_ports, cap_lost;
	struct boots boots;
	struct err *e;
};

static int boot_cb(void *arg, const struct hist_event *ev)
{
	struct reader *x = arg;
	if (!ev->group)
		return 0;
	if (grow((void **)&x->boots.v, &x->boots.cap, x->boots.n, sizeof(*x->boots.v)) < 0)
		return -ENOMEM;
	x->boots.v[x->boots.n++] = *ev;
	return 0;
}

/* The event that may explain a rename, in a few words. */
static void cause_text(const struct hist_event *c, char *buf, size_t size)
{
	char at[32];
	hist_time_format(c->t_us, at, sizeof(at));
	at[19] = 'Z'; /* seconds are enough here */
	at[20] = '\0';
	switch (c->kind) {
	case HK_BOOT:
		snprintf(buf, size, "the boot at %s", at);
		break;
	case HK_ACTION:
		snprintf(buf, size, "ibvf action %s at %s%s%s", c->ref, at, c->text[0] ? ": " : "",
			 c->text);
		break;
	case HK_POD_BOUND:
	case HK_POD_GONE:
	case HK_NETNS:
		snprintf(buf, size, "%s %s at %s", hist_kind_to_string(c->kind),
			 c->pod[0] ? c->pod : c->name, at);
		break;
	default:
		snprintf(buf, size, "%s %s%s%s -> %s at %s", hist_kind_to_string(c->kind), c->name,
			 c->name[0] ? " " : "", c->old, c->new, at);
		break;
	}
}

static const struct hist_event *boot_of_group(const struct boots *b, int64_t group)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].group == group)
			return &b->v[i];
	return NULL;
}

static int rename_cb(void *arg, const struct hist_event *ev)
{
	struct reader *x = arg;
	struct check_past *p = x->p;
	if (!ev->bdf[0] || !ev->old[0] || !ev->new[0])
		return 0;
	/* At boot the kernel numbers RDMA devices afresh (mlx5_N in probe
	 * order): nothing to see there, and nothing finds them by name the way
	 * a netdev is found. A netdev's new name at boot is a finding. */
	if (!strcmp(ev->ref, "rdma") && ev->group && boot_of_group(&x->boots, ev->group))
		return 0;
	if (grow((void **)&p->renames, &x->cap_renames, p->n_renames, sizeof(*p->renames)) < 0)
		return -ENOMEM;
	struct check_rename *r = &p->renames[p->n_renames];
	memset(r, 0, sizeof(*r));
	snprintf(r->bdf, sizeof(r->bdf), "%s", ev->bdf);
	hist_set(r->old_name, sizeof(r->old_name), ev->old);
	hist_set(r->new_name, sizeof(r->new_name), ev->new);
	hist_set(r->pod, sizeof(r->pod), ev->pod);
	r->rdma = !strcmp(ev->ref, "rdma");
	r->t_us = ev->t_us;
	/* The nearest cause that is not another rename of the same moment. */
	struct hist_event causes[HIST_CAUSES_MAX];
	size_t nc = 0;
	struct err ce = {{0}};
	if (hist_store_causes(x->st, ev, causes, &nc, &ce) == 0)
		for (size_t i = 0; i < nc; i++)
			if (causes[i].kind != HK_RENAME && causes[i].kind != HK_KMSG) {
				cause_text(&causes[i], r->cause, sizeof(r->cause));
				break;
			}
	p->n_renames++;
	return 0;
}

/* Appends word to the states unless it is the last one there. */
static void states_add(char *buf, size_t size, const char *word)
{
	if (!word[0])
		return;
	const char *last = strrchr(buf, ' ');
	last = last ? last + 1 : buf;
	if (!strcmp(last, word))
		return;
	size_t len = strlen(buf), w = strlen(word);
	if (len + (len ? 1 : 0) + w + 1 > size)
		return; /* full: the first states stay */
	snprintf(buf + len, size - len, "%s%s", len ? " " : "", word);
}

static int port_cb(void *arg, const struct hist_event *ev)
{
	struct reader *x = arg;
	struct check_past *p = x->p;
	if (!ev->bdf[0])
		return 0;
	struct check_port_changes *c = NULL;
	for (size_t i = 0; i < p->n_ports && !c; i++)
		if (!strcmp(p->ports[i].bdf, ev->bdf))
			c = &p->ports[i];
	if (!c) {
		if (p->n_ports >= HIST_FACTS_MAX)
			return 0;
		if (grow((void **)&p->ports, &x->cap_ports, p->n_ports, sizeof(*p->ports)) < 0)
			return -ENOMEM;
		c = &p->ports[p->n_ports++];
		memset(c, 0, sizeof(*c));
		snprintf(c->bdf, sizeof(c->bdf), "%s", ev->bdf);
		snprintf(c->pf, sizeof(c->pf), "%s", ev->pf);
		c->first_us = ev->t_us;
		states_add(c->states, sizeof(c->states), ev->old);
	}
	c->count += ev->count > 0 ? ev->count : 1;
	c->coalesced |= ev->count > 1;
	if (ev->t_us < c->first_us)
		c->first_us = ev->t_us;
	if (ev->t_last_us > c->last_us)
		c->last_us = ev->t_last_us;
	states_add(c->states, sizeof(c->states), ev->new);
	return 0;
}

static bool guid_nonzero(const char *s)
{
	uint64_t g;
	return guid_parse(s, &g) == 0 && g != 0;
}

static bool guid_zero(const char *s)
{
	uint64_t g;
	return guid_parse(s, &g) == 0 && g == 0;
}

static int guid_cb(void *arg, const struct hist_event *ev)
{
	struct reader *x = arg;
	struct check_past *p = x->p;
	/* A VF's (its PF is another function) non-zero GUID gone to zero, in
	 * the difference a boot's first observation recorded. */
	if (!ev->group || !ev->pf[0] || !strcmp(ev->bdf, ev->pf) || !guid_nonzero(ev->old) ||
	    !guid_zero(ev->new))
		return 0;
	const struct hist_event *boot = boot_of_group(&x->boots, ev->group);
	if (!boot)
		return 0;
	if (grow((void **)&p->guids_lost, &x->cap_lost, p->n_guids_lost, sizeof(*p->guids_lost)) <
	    0)
		return -ENOMEM;
	struct check_guid_lost *g = &p->guids_lost[p->n_guids_lost++];
	memset(g, 0, sizeof(*g));
	snprintf(g->bdf, sizeof(g->bdf), "%s", ev->bdf);
	snprintf(g->pf, sizeof(g->pf), "%s", ev->pf);
	g->port = ev->kind == HK_PORT_GUID;
	hist_set(g->old_guid, sizeof(g->old_guid), ev->old);
	g->t_us = ev->t_us;
	g->boot_us = boot->t_us;
	hist_set(g->boot_id, sizeof(g->boot_id), boot->new[0] ? boot->new : boot->boot);
	hist_set(g->boot_text, sizeof(g->boot_text), boot->text);
	return 0;
}

static int rename_cmp(const void *a, const void *b)
{
	const struct check_rename *x = a, *y = b;
	int c = strcmp(x->bdf, y->bdf);
	return c ? c : x->t_us < y->t_us ? -1 : x->t_us > y->t_us;
}

static int lost_cmp(const void *a, const void *b)
{
	const struct check_guid_lost *x = a, *y = b;
	int c = strcmp(x->bdf, y->bdf);
	if (c)
		return c;
	if (x->t_us != y->t_us)
		return x->t_us < y->t_us ? -1 : 1;
	return (int)x->port - (int)y->port;
}

void hist_facts_free(struct checks_opts *o)
{
	if (!o)
		return;
	free(o->past.renames);
	free(o->past.ports);
	free(o->past.guids_lost);
	o->past = (struct check_past){0};
}

int hist_facts_read(struct hist_store *st, int64_t since_us, struct checks_opts *ret, struct err *e)
{
	hist_facts_free(ret);
	struct check_past p = {.since_us = since_us > 0 ? since_us : 0};
	struct reader x = {.st = st, .p = &p, .e = e};
	/* The boots of every time: a boot before the window may own a group
	 * recorded in it. */
	struct hist_query boots = {.kinds = 1u << HK_BOOT};
	struct hist_query renames = {
		.since_us = p.since_us, .kinds = 1u << HK_RENAME, .limit = HIST_FACTS_MAX};
	struct hist_query ports = {.since_us = p.since_us, .kinds = 1u << HK_PORT_STATE};
	struct hist_query guids = {.since_us = p.since_us,
				   .kinds = 1u << HK_NODE_GUID | 1u << HK_PORT_GUID,
				   .limit = HIST_FACTS_MAX};
	int r = hist_store_query(st, &boots, boot_cb, &x, e);
	if (r == 0)
		r = hist_store_query(st, &renames, rename_cb, &x, e);
	if (r == 0)
		r = hist_store_query(st, &ports, port_cb, &x, e);
	if (r == 0)
		r = hist_store_query(st, &guids, guid_cb, &x, e);
	free(x.boots.v);
	if (r > 0 || r == -ENOMEM) /* a callback's own failure: unsaid */
		r = err_setx(e, ENOMEM, "out of memory reading the history store");
	if (r < 0) {
		struct checks_opts tmp = {.past = p};
		hist_facts_free(&tmp);
		return r;
	}
	if (p.n_renames)
		qsort(p.renames, p.n_renames, sizeof(*p.renames), rename_cmp);
	if (p.n_guids_lost)
		qsort(p.guids_lost, p.n_guids_lost, sizeof(*p.guids_lost), lost_cmp);
	p.read = true;
	snprintf(p.where, sizeof(p.where), "%s", HIST_STORE_PATH);
	ret->past = p;
	return 0;
}

int hist_facts_load(struct sys *s, int64_t since_us, struct checks_opts *ret, struct err *e)
{
	char path[PATH_MAX];
	struct hist_store *st;
	hist_store_path(s, path);
	int r = hist_store_open(path, false, &st, e);
	if (r < 0)
		return r;
	if (since_us == HIST_FACTS_SINCE_BOOT) {
		char boot[HIST_BOOT_MAX];
		hist_boot_id(s, boot);
		r = hist_facts_boot_start(st, boot, hist_boot_wall_us(s), &since_us, e);
	}
	if (r == 0)
		r = hist_facts_read(st, since_us, ret, e);
	hist_store_close(st);
	return r;
}
