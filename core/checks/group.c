// SPDX-License-Identifier: MIT
/* Causes, consequences and problems (checks.h): which finding explains
 * which (check_causes_table), and the findings grouped into what an
 * operator reads first. Renderers only show what is made here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_int.h"

#define CAUSE_DEPTH_MAX 8 /* a chain of causes longer than this is cut */

static bool scope_holds(enum cause_scope scope, const struct finding *c, const struct finding *e)
{
	switch (scope) {
	case CAUSE_SAME:
		return c->subject[0] && !strcmp(c->subject, e->subject);
	case CAUSE_NODE:
		return c->kind == SUBJECT_NODE;
	case CAUSE_PF:
		return c->kind == SUBJECT_PF && e->pf[0] && !strcmp(c->subject, e->pf) &&
		       (e->kind == SUBJECT_VF || strcmp(c->id, e->id));
	case CAUSE_PF_TOPIC:
		return c->kind == SUBJECT_PF && e->topic[0] && !strcmp(c->subject, e->topic);
	case CAUSE_TOPIC:
		return c->topic[0] && !strcmp(c->topic, e->topic);
	case CAUSE_SUBJECT_TOPIC:
		return c->subject[0] && !strcmp(c->subject, e->topic);
	}
	return false;
}

void findings_link(struct findings *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		struct finding *e = &fs->v[i];
		e->cause = (struct finding_ref){0};
		for (size_t r = 0; r < check_causes_table_len && !e->cause.id; r++) {
			const struct check_cause *row = &check_causes_table[r];
			if (strcmp(row->effect, e->id))
				continue;
			for (size_t j = 0; j < fs->n; j++) {
				const struct finding *c = &fs->v[j];
				if (j == i || strcmp(row->cause, c->id) ||
				    !scope_holds(row->scope, c, e))
					continue;
				e->cause.id = c->id;
				snprintf(e->cause.subject, sizeof(e->cause.subject), "%s",
					 c->subject);
				break;
			}
		}
	}
}

static size_t find_index(const struct findings *fs, const struct finding_ref *ref)
{
	for (size_t i = 0; ref->id && i < fs->n; i++)
		if (!strcmp(fs->v[i].id, ref->id) && !strcmp(fs->v[i].subject, ref->subject))
			return i;
	return fs->n;
}

const struct finding *findings_find(const struct findings *fs, const struct finding_ref *ref)
{
	size_t i = find_index(fs, ref);
	return i < fs->n ? &fs->v[i] : NULL;
}

/* The finding at the top of i's chain of causes among fs. */
static size_t root_of(const struct findings *fs, size_t i)
{
	for (int d = 0; d < CAUSE_DEPTH_MAX; d++) {
		size_t c = find_index(fs, &fs->v[i].cause);
		if (c >= fs->n || c == i)
			break;
		i = c;
	}
	return i;
}

static const struct check_batch *batch_of(const struct finding *f)
{
	if (f->remedy.kind != REMEDY_IBVF)
		return NULL;
	for (size_t b = 0; b < check_batches_table_len; b++) {
		const struct check_batch *x = &check_batches_table[b];
		if (strcmp(x->id, f->id))
			continue;
		size_t k = 0;
		while (x->prefix[k] && k < f->remedy.n_steps &&
		       !strcmp(x->prefix[k], f->remedy.steps[k]))
			k++;
		if (!x->prefix[k])
			return x;
	}
	return NULL;
}

/* Whether the remedy names no function: one command for the node (persist). */
static bool remedy_node_wide(const struct finding *f)
{
	if (f->remedy.kind != REMEDY_IBVF || !f->remedy.n_steps)
		return false;
	for (size_t k = 0; k < f->remedy.n_steps; k++) {
		char bdf[16];
		if (check_find_bdf(f->remedy.steps[k], bdf))
			return false;
	}
	return true;
}

static bool same_remedy(const struct finding_remedy *a, const struct finding_remedy *b)
{
	if (a->kind != b->kind || a->n_steps != b->n_steps)
		return false;
	for (size_t k = 0; k < a->n_steps; k++)
		if (strcmp(a->steps[k], b->steps[k]))
			return false;
	return true;
}

/* Whether the root finding r goes into the problem whose first member is g:
 * one check; VFs of one PF, or across the node when one command (the same
 * node-wide remedy, or a batch form) fixes them all. */
static bool groups_with(const struct finding *g, const struct finding *r)
{
	if (strcmp(g->id, r->id) || g->kind != SUBJECT_VF || r->kind != SUBJECT_VF)
		return false;
	if (remedy_node_wide(g) || remedy_node_wide(r))
		return remedy_node_wide(g) && same_remedy(&g->remedy, &r->remedy);
	const struct check_batch *bg = batch_of(g), *br = batch_of(r);
	if (bg || br)
		return bg == br;
	return g->remedy.kind == r->remedy.kind && !strcmp(g->pf, r->pf);
}

static void remedy_copy(struct finding_remedy *to, enum remedy_kind kind, const char *summary,
			const char *const *steps, size_t n)
{
	to->kind = kind;
	to->summary = summary ? strdup(summary) : NULL;
	for (size_t i = 0; i < n && steps[i] && to->n_steps < FINDING_STEPS_MAX; i++) {
		char *s = strdup(steps[i]);
		if (!s)
			break;
		to->steps[to->n_steps++] = s;
	}
}

void problems_fini(struct findings *fs)
{
	for (size_t i = 0; i < fs->n_problems; i++) {
		struct problem *p = &fs->problems[i];
		free(p->title);
		free(p->members);
		free(p->consequences);
		free(p->remedy.summary);
		for (size_t k = 0; k < p->remedy.n_steps; k++)
			free(p->remedy.steps[k]);
	}
	free(fs->problems);
	fs->problems = NULL;
	fs->n_problems = 0;
}

/* "18:00.1": a subject without its PCI domain when it is 0000. */
static const char *short_bdf(const char *bdf)
{
	return !strncmp(bdf, "0000:", 5) ? bdf + 5 : bdf;
}

/* "zero GUID on 7 VFs of mlx5_0: 18:00.1, 18:00.3 … 18:01.0". */
static char *group_title(const struct findings *fs, const struct problem *p)
{
	const struct finding *f0 = &fs->v[p->members[0]];
	const struct check_def *d = check_find(f0->id);
	char pfs[160] = "", subj[160] = "";
	size_t npf = 0;
	for (size_t k = 0; k < p->n_members; k++) {
		const struct finding *f = &fs->v[p->members[k]];
		bool seen = false;
		for (size_t j = 0; j < k && !seen; j++)
			seen = !strcmp(fs->v[p->members[j]].pf_label, f->pf_label);
		if (seen)
			continue;
		if (npf++ < 3)
			snprintf(pfs + strlen(pfs), sizeof(pfs) - strlen(pfs), "%s%s",
				 npf > 1 ? ", " : "", f->pf_label[0] ? f->pf_label : "?");
	}
	if (npf > 3)
		snprintf(pfs + strlen(pfs), sizeof(pfs) - strlen(pfs), " and %zu more", npf - 3);
	for (size_t k = 0; k < p->n_members; k++) {
		if (p->n_members > 3 && k >= 2 && k + 1 < p->n_members)
			continue;
		const char *sep = !k					      ? ""
				  : p->n_members > 3 && k + 1 == p->n_members ? " … "
									      : ", ";
		snprintf(subj + strlen(subj), sizeof(subj) - strlen(subj), "%s%s", sep,
			 short_bdf(fs->v[p->members[k]].subject));
	}
	char *t = NULL;
	if (asprintf(&t, "%s on %zu VFs of %s: %s", d ? d->title : f0->id, p->n_members, pfs,
		     subj) < 0)
		return NULL;
	return t;
}

static int push(size_t **v, size_t *n, size_t x)
{
	size_t *a = realloc(*v, (*n + 1) * sizeof(**v));
	if (!a)
		return -ENOMEM;
	a[(*n)++] = x;
	*v = a;
	return 0;
}

/* The problem's title and remedy, from its members. */
static int problem_finish(const struct findings *fs, struct problem *p)
{
	const struct finding *f0 = &fs->v[p->members[0]];
	const struct check_batch *b = batch_of(f0);
	bool same = true;
	for (size_t k = 1; k < p->n_members && same; k++)
		same = same_remedy(&f0->remedy, &fs->v[p->members[k]].remedy);
	p->title = p->n_members > 1 ? group_title(fs, p) : strdup(f0->title ? f0->title : "");
	if (!p->title)
		return -ENOMEM;
	if (p->n_members > 1 && b && !same) {
		size_t n = 0;
		while (b->argv[n])
			n++;
		remedy_copy(&p->remedy, REMEDY_IBVF, b->summary, b->argv, n);
	} else {
		remedy_copy(&p->remedy, f0->remedy.kind, f0->remedy.summary,
			    (const char *const *)f0->remedy.steps, f0->remedy.n_steps);
		p->for_each = p->n_members > 1 && !same;
	}
	if (f0->remedy.summary && !p->remedy.summary)
		return -ENOMEM;
	return 0;
}

static int cmp_problem(const void *a, const void *b)
{
	const struct problem *x = a, *y = b;
	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	return x->members[0] < y->members[0] ? -1 : x->members[0] > y->members[0];
}

int findings_group(struct findings *fs)
{
	problems_fini(fs);
	size_t *root = fs->n ? calloc(fs->n, sizeof(*root)) : NULL;
	struct problem *v = fs->n ? calloc(fs->n, sizeof(*v)) : NULL;
	size_t np = 0;
	int r = 0;
	if (fs->n && (!root || !v)) {
		free(root);
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < fs->n; i++)
		root[i] = root_of(fs, i);
	for (size_t i = 0; i < fs->n; i++)
		if (root[root[i]] != root[i])
			root[i] = i; /* a cycle, or a chain cut: a problem of its own */
	/* Members: the findings no present finding explains, by group. */
	for (size_t i = 0; i < fs->n && r == 0; i++) {
		if (root[i] != i)
			continue;
		size_t p = 0;
		while (p < np && !groups_with(&fs->v[v[p].members[0]], &fs->v[i]))
			p++;
		if (p == np)
			v[np++] = (struct problem){.check = fs->v[i].id};
		r = push(&v[p].members, &v[p].n_members, i);
		fs->v[i].group = p;
	}
	/* Consequences: under their root's problem. */
	for (size_t i = 0; i < fs->n && r == 0; i++) {
		if (root[i] == i)
			continue;
		size_t p = fs->v[root[i]].group;
		r = push(&v[p].consequences, &v[p].n_consequences, i);
	}
	for (size_t p = 0; p < np && r == 0; p++) {
		v[p].severity = CHECK_INFO;
		for (size_t k = 0; k < v[p].n_members; k++)
			if (fs->v[v[p].members[k]].severity > v[p].severity)
				v[p].severity = fs->v[v[p].members[k]].severity;
		for (size_t k = 0; k < v[p].n_consequences; k++)
			if (fs->v[v[p].consequences[k]].severity > v[p].severity)
				v[p].severity = fs->v[v[p].consequences[k]].severity;
		r = problem_finish(fs, &v[p]);
	}
	fs->problems = v;
	fs->n_problems = np;
	free(root);
	if (r < 0) {
		problems_fini(fs);
		return r;
	}
	if (np)
		qsort(v, np, sizeof(*v), cmp_problem);
	for (size_t p = 0; p < np; p++) {
		v[p].id = p + 1;
		for (size_t k = 0; k < v[p].n_members; k++)
			fs->v[v[p].members[k]].group = p + 1;
		for (size_t k = 0; k < v[p].n_consequences; k++)
			fs->v[v[p].consequences[k]].group = p + 1;
	}
	return 0;
}

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

struct json_object *problems_to_json(const struct findings *fs)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; a && i < fs->n_problems; i++) {
		const struct problem *p = &fs->problems[i];
		struct json_object *o = json_object_new_object(), *subj = json_object_new_array(),
				   *idx = json_object_new_array();
		if (!o || !subj || !idx) {
			json_object_put(o);
			json_object_put(subj);
			json_object_put(idx);
			json_object_put(a);
			return NULL;
		}
		json_object_object_add(o, "id", json_object_new_int64((int64_t)p->id));
		json_object_object_add(o, "check", jstr(p->check));
		json_object_object_add(o, "severity", jstr(check_severity_name(p->severity)));
		json_object_object_add(o, "title", jstr(p->title));
		for (size_t k = 0; k < p->n_members; k++) {
			const struct finding *f = &fs->v[p->members[k]];
			json_object_array_add(subj, f->subject[0] ? jstr(f->subject) : NULL);
			json_object_array_add(idx, json_object_new_int64((int64_t)p->members[k]));
		}
		for (size_t k = 0; k < p->n_consequences; k++)
			json_object_array_add(idx,
					      json_object_new_int64((int64_t)p->consequences[k]));
		json_object_object_add(o, "subjects", subj);
		json_object_object_add(o, "consequences",
				       json_object_new_int64((int64_t)p->n_consequences));
		json_object_object_add(o, "findings", idx);
		json_object_object_add(o, "remedy", finding_remedy_to_json(&p->remedy));
		json_object_object_add(o, "for_each", json_object_new_boolean(p->for_each));
		json_object_array_add(a, o);
	}
	return a;
}
